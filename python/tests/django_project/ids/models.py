"""One model per native type with a primary key the database generates, and
one with a nullable column of every type (values given by the application)."""

from django.db import models

from pg_flake.django import DistributedIdField, FlaxIdField, Kuid96Field, SiqField, SnoField


class Event(models.Model):
    id = SnoField(primary_key=True, generate=True)
    kind = models.CharField(max_length=20)

    def __str__(self):
        return f"{self.kind} {self.id}"


class Message(models.Model):
    id = SiqField(primary_key=True, generate=True, kind="message")
    event = models.ForeignKey(Event, null=True, on_delete=models.CASCADE)
    body = models.TextField(blank=True)


class Session(models.Model):
    id = Kuid96Field(primary_key=True, generate=True)


class Order(models.Model):
    id = DistributedIdField(primary_key=True, generate=True)


class Document(models.Model):
    id = FlaxIdField(primary_key=True, generate=True)
    title = models.CharField(max_length=50, blank=True)


class Holder(models.Model):
    sno = SnoField(null=True, blank=True, db_index=True)
    siq = SiqField(null=True, blank=True)
    kuid96 = Kuid96Field(null=True, blank=True, interval=5)
    distributed_id = DistributedIdField(null=True, blank=True)
    flaxid = FlaxIdField(null=True, blank=True)
    made = SnoField(generate=True)
