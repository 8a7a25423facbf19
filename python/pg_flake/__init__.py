"""pg_flake for Python: the extension's identifiers as native values.

One class per native SQL type (``Sno``, ``Siq``, ``DistributedId``,
``FlaxId``, ``Kuid96``), functions for the ``bigint`` formats (kuid64,
Snowflake) and for DistributedId128 on ``uuid``, and integrations in
``pg_flake.psycopg``, ``pg_flake.psycopg2``, ``pg_flake.asyncpg``,
``pg_flake.sqlalchemy`` and ``pg_flake.django``. Every value is byte-exact
with the extension: ``bytes(x)`` is what PostgreSQL stores and sends in
binary, ``str(x)`` its canonical text.
"""

from ._base import FlakeError, FlakeId
from .alphanumeric import decode_bigint as alphanumeric_decode_bigint
from .alphanumeric import decode_uuid as alphanumeric_decode_uuid
from .alphanumeric import encode_bigint as alphanumeric_encode_bigint
from .alphanumeric import encode_uuid as alphanumeric_encode_uuid
from .distributed_id import DistributedId
from .distributed_id128 import (
    DistributedId128Parts,
    distributed_id128_from_numeric,
    distributed_id128_from_parts,
    distributed_id128_from_time,
    distributed_id128_parts,
    distributed_id128_to_numeric,
)
from .flaxid import FlaxId
from .kuid import (
    Kuid64Parts,
    Kuid96,
    Kuid96Parts,
    kuid64_decode,
    kuid64_encode,
    kuid64_from_parts,
    kuid64_from_time,
    kuid64_parts,
    kuid_node_fingerprint,
)
from .siq import Siq, siq_domain_hash
from .sno import Sno
from .snowflake import (
    DISCORD_EPOCH_MS,
    SnowflakeParts,
    snowflake_from_parts,
    snowflake_from_time,
    snowflake_parts,
)

__version__ = "0.5.0"

#: The value class of each native SQL type, by type name.
TYPES = {cls.TYPE_NAME: cls for cls in (Sno, Siq, DistributedId, FlaxId, Kuid96)}

__all__ = [
    "DISCORD_EPOCH_MS",
    "TYPES",
    "DistributedId",
    "DistributedId128Parts",
    "FlakeError",
    "FlakeId",
    "FlaxId",
    "Kuid64Parts",
    "Kuid96",
    "Kuid96Parts",
    "Siq",
    "Sno",
    "SnowflakeParts",
    "alphanumeric_decode_bigint",
    "alphanumeric_decode_uuid",
    "alphanumeric_encode_bigint",
    "alphanumeric_encode_uuid",
    "distributed_id128_from_numeric",
    "distributed_id128_from_parts",
    "distributed_id128_from_time",
    "distributed_id128_parts",
    "distributed_id128_to_numeric",
    "kuid64_decode",
    "kuid64_encode",
    "kuid64_from_parts",
    "kuid64_from_time",
    "kuid64_parts",
    "kuid_node_fingerprint",
    "siq_domain_hash",
    "snowflake_from_parts",
    "snowflake_from_time",
    "snowflake_parts",
]
