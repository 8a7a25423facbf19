-- The SQL surface of this version: every object pg_flake creates, with its
-- definition (tests/regress/include/catalog_description.sql). Its expected
-- output is the surface of 0.2.0; any difference is a change of the
-- surface, which needs a new version and an upgrade script (docs/operations.md,
-- "Versions"). PostgreSQL 17+ also records the types' array types as
-- members of the extension, and 18 adds btree skip support: catalog_1.out;
-- 17, without skip support: catalog_3.out. PostgreSQL 16 prints a view's
-- columns without their table's alias: catalog_2.out.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'pg_flake';
\getenv abs_srcdir PG_ABS_SRCDIR
\set include :abs_srcdir '/include/catalog_description.sql'
\set ECHO none
\i :include
\set ECHO all
\pset format unaligned
\pset tuples_only on
SELECT section || ': ' || line FROM pg_flake_catalog ORDER BY section, line;
