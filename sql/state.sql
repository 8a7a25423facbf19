-- What the generators and the node settings are doing
-- (docs/sql-reference.md "Generator state"), and the marks an operator sets
-- (docs/operations.md).
--
-- The whole SQL surface of src/generator_state.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/generator_state.rs.

CREATE FUNCTION @extschema@.pg_flake_generator_state()
RETURNS TABLE (format text, kind text, mode text, slot integer, nslots integer, process integer,
    range_first integer, range_last integer, last_unit bigint, last_sequence integer,
    tick_tock boolean, safe_unit bigint, issued bigint, mark_unit bigint, mark_time timestamptz,
    clock_lead interval)
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'generator_state_wrapper';

CREATE FUNCTION @extschema@.pg_flake_node() RETURNS TABLE (format text, node bigint, source text, problem text)
    STABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_node_wrapper';

CREATE FUNCTION @extschema@.pg_flake_set_mark(format text, mark timestamptz) RETURNS timestamptz
    VOLATILE STRICT PARALLEL UNSAFE LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_set_mark_wrapper';
