-- pg_flake 0.2.0 -> 0.3.0 (README "Versions"). Every change of the SQL
-- surface since 0.2.0, so that ALTER EXTENSION pg_flake UPDATE gives a
-- database made at 0.2.0 (or at 0.1.0, updated through 0.2.0) exactly the
-- catalog of a fresh 0.3.0 (the regression test "upgrade" compares them).
-- One section per change, each saying why.
\echo Use "ALTER EXTENSION pg_flake UPDATE TO '0.3.0'" to load this file. \quit

-- The marks file is never trusted blindly (README "Restarts, crashes and
-- the clock"): a superuser's deliberate step where a marks file is damaged
-- or missing, or where a clock set years ahead carried a mark along. Only
-- a superuser may run it (checked by the function: the install script
-- grants nothing).
CREATE FUNCTION pg_flake_set_mark("format" text, "mark" timestamptz) RETURNS timestamptz
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_set_mark_wrapper';
