from django.contrib import admin

from .models import Event, Holder


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["id", "kind"]
    readonly_fields = ["id"]


@admin.register(Holder)
class HolderAdmin(admin.ModelAdmin):
    list_display = ["id", "sno", "siq", "kuid96", "distributed_id", "flaxid", "made"]
