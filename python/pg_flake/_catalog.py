"""The catalog query every driver integration runs: pg_flake's native types
in whatever schema the extension was created in, with their current OIDs.

Type OIDs are assigned when ``CREATE EXTENSION`` runs, so they differ between
databases and change when the extension is dropped and created again or a
dump is restored; drivers that key adapters by OID must look them up again
then (README of the Python package, "Type OIDs").
"""

from . import TYPES

TYPE_QUERY = (
    "SELECT t.typname::text, t.oid::int8, t.typarray::int8, t.oid::regtype::text,"
    " t.typdelim::text, n.nspname::text"
    " FROM pg_catalog.pg_extension e"
    " JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"
    " JOIN pg_catalog.pg_type t ON t.typnamespace = e.extnamespace"
    " WHERE e.extname = 'pg_flake' AND t.typname IN ("
    + ", ".join(f"'{name}'" for name in TYPES)
    + ") ORDER BY t.typname"
)
