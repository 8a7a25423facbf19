-- pg_flake 0.3.0 -> 0.4.0 (docs/operations.md "Versions"). Every change of the SQL
-- surface since 0.3.0, so that ALTER EXTENSION pg_flake UPDATE gives a
-- database made at 0.3.0 (or at 0.1.0 or 0.2.0, updated through 0.3.0)
-- exactly the catalog of a fresh 0.4.0 (the regression test "upgrade"
-- compares them). One section per change, each saying why.
\echo Use "ALTER EXTENSION pg_flake UPDATE TO '0.4.0'" to load this file. \quit
