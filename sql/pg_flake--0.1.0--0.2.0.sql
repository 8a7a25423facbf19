-- pg_flake 0.1.0 -> 0.2.0 (README "Versions"). Every change of the SQL
-- surface since 0.1.0, so that ALTER EXTENSION pg_flake UPDATE gives a
-- database made at 0.1.0 exactly the catalog of a fresh 0.2.0 (the
-- regression test "upgrade" compares the two). Objects are renamed rather
-- than dropped and re-created wherever that keeps what depends on them.
\echo Use "ALTER EXTENSION pg_flake UPDATE TO '0.2.0'" to load this file. \quit

-- An untyped literal must not pick another meaning (README "Versions"):
-- siq_domain_hash('crxc…') resolved to the text overload, and
-- siq_from_parts('2023-11-14 …', …) matched two overloads.
ALTER FUNCTION siq_domain_hash(text) RENAME TO siq_domain_name_hash;
ALTER FUNCTION siq_from_parts(bigint, integer, bigint, text, integer)
    RENAME TO siq_from_tick_parts;

-- Durable marks and logical time (README "Guarantees"): the state shows
-- each generator's mark and how far its IDs run ahead of the clock.
DROP FUNCTION pg_flake_generator_state();
CREATE FUNCTION pg_flake_generator_state() RETURNS TABLE (
    "format" text, "kind" text, "mode" text, "slot" int, "nslots" int, "process" int,
    "range_first" int, "range_last" int, "last_unit" bigint, "last_sequence" int,
    "tick_tock" bool, "safe_unit" bigint, "issued" bigint,
    "mark_unit" bigint, "mark_time" timestamptz, "clock_lead" interval
)
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'generator_state_wrapper';

-- One node identity (README "Several servers"): which node each format
-- generates with, and where that comes from.
CREATE FUNCTION pg_flake_node() RETURNS TABLE (
    "format" text, "node" bigint, "source" text, "problem" text
)
STRICT STABLE PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_node_wrapper';
