"""Settings of the test project (pytest-django, from pyproject.toml): the
database is the server of PG_FLAKE_TEST_DSN (pytest-django creates and drops
``test_<dbname>`` on it). Without PG_FLAKE_TEST_DSN the Django tests skip.

PG_FLAKE_DJANGO_DRIVER=psycopg2 hides psycopg 3, so that Django's backend
falls back to psycopg2 (scripts/test-python.sh runs the Django tests once
more that way).
"""

import os
import sys

if os.environ.get("PG_FLAKE_DJANGO_DRIVER") == "psycopg2":
    sys.modules["psycopg"] = None  # Django's backend then imports psycopg2


def _database(dsn):
    if "psycopg" in sys.modules and sys.modules["psycopg"] is None:
        from psycopg2.extensions import parse_dsn
    else:
        from psycopg.conninfo import conninfo_to_dict as parse_dsn
    info = parse_dsn(dsn)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": info.get("dbname", ""),
        "USER": info.get("user", ""),
        "PASSWORD": info.get("password", ""),
        "HOST": info.get("host", ""),
        "PORT": info.get("port", ""),
    }


DSN = os.environ.get("PG_FLAKE_TEST_DSN", "")
DATABASES = {
    "default": _database(DSN)
    if DSN
    else {"ENGINE": "django.db.backends.postgresql", "NAME": "unused"}
}

SECRET_KEY = "pg_flake test project"
DEBUG = False
USE_TZ = True
TIME_ZONE = "UTC"
ROOT_URLCONF = "flakesite.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "ids",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users
