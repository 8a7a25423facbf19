-- DistributedId (docs/formats/distributed_id.md): the native type,
-- generation, decoding, IDs from parts, text and number forms.
--
-- The whole SQL surface of src/formats/distributed_id.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/distributed_id.rs.

-- == The native type distributed_id ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/formats/distributed_id.rs. Made from sql/native_type.sql.in with
-- the length flake_core::distributed_id::DistributedId::LEN gives: the test in src/plumbing/fmgr/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE @extschema@.distributed_id;

CREATE FUNCTION @extschema@.distributed_id_in(input cstring) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_in_wrapper';
CREATE FUNCTION @extschema@.distributed_id_out(id @extschema@.distributed_id) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_out_wrapper';
CREATE FUNCTION @extschema@.distributed_id_recv(buf internal) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_recv_wrapper';
CREATE FUNCTION @extschema@.distributed_id_send(id @extschema@.distributed_id) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_send_wrapper';

CREATE TYPE @extschema@.distributed_id (
    INTERNALLENGTH = 12,
    INPUT = @extschema@.distributed_id_in, OUTPUT = @extschema@.distributed_id_out,
    RECEIVE = @extschema@.distributed_id_recv, SEND = @extschema@.distributed_id_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION @extschema@.distributed_id_eq(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_eq_wrapper';
CREATE FUNCTION @extschema@.distributed_id_ne(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_ne_wrapper';
CREATE FUNCTION @extschema@.distributed_id_lt(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_lt_wrapper';
CREATE FUNCTION @extschema@.distributed_id_le(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_le_wrapper';
CREATE FUNCTION @extschema@.distributed_id_gt(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_gt_wrapper';
CREATE FUNCTION @extschema@.distributed_id_ge(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_ge_wrapper';
CREATE FUNCTION @extschema@.distributed_id_cmp(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_cmp_wrapper';
CREATE FUNCTION @extschema@.distributed_id_smaller(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_smaller_wrapper';
CREATE FUNCTION @extschema@.distributed_id_larger(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_larger_wrapper';
CREATE FUNCTION @extschema@.distributed_id_hash(id @extschema@.distributed_id) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_hash_wrapper';
CREATE FUNCTION @extschema@.distributed_id_hash_extended(id @extschema@.distributed_id, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_hash_extended_wrapper';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.distributed_id_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_sortsupport_wrapper';

CREATE OPERATOR CLASS @extschema@.distributed_id_ops DEFAULT FOR TYPE @extschema@.distributed_id USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 @extschema@.distributed_id_cmp(@extschema@.distributed_id, @extschema@.distributed_id),
    FUNCTION 2 @extschema@.distributed_id_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.distributed_id_hash_ops DEFAULT FOR TYPE @extschema@.distributed_id USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 @extschema@.distributed_id_hash(@extschema@.distributed_id),
    FUNCTION 2 @extschema@.distributed_id_hash_extended(@extschema@.distributed_id, int8);

CREATE OPERATOR CLASS @extschema@.distributed_id_minmax_ops DEFAULT FOR TYPE @extschema@.distributed_id USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION @extschema@.distributed_id_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS @extschema@.distributed_id_minmax_multi_ops FOR TYPE @extschema@.distributed_id USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 @extschema@.distributed_id_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS @extschema@.distributed_id_bloom_ops FOR TYPE @extschema@.distributed_id USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 @extschema@.distributed_id_hash(@extschema@.distributed_id);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a distributed_id column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION @extschema@.distributed_id_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'distributed_id_skipsupport_wrapper';
        ALTER OPERATOR FAMILY @extschema@.distributed_id_ops USING btree
            ADD FUNCTION 6 (@extschema@.distributed_id, @extschema@.distributed_id) @extschema@.distributed_id_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE @extschema@.min(@extschema@.distributed_id) (
    SFUNC = @extschema@.distributed_id_smaller, STYPE = @extschema@.distributed_id, COMBINEFUNC = @extschema@.distributed_id_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.distributed_id) (
    SFUNC = @extschema@.distributed_id_larger, STYPE = @extschema@.distributed_id, COMBINEFUNC = @extschema@.distributed_id_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.distributed_id_to_bytea(id @extschema@.distributed_id) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_to_bytea_wrapper';
CREATE FUNCTION @extschema@.distributed_id_from_bytea(bytes bytea) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_from_bytea_wrapper';
CREATE CAST (@extschema@.distributed_id AS bytea) WITH FUNCTION @extschema@.distributed_id_to_bytea(@extschema@.distributed_id);
CREATE CAST (bytea AS @extschema@.distributed_id) WITH FUNCTION @extschema@.distributed_id_from_bytea(bytea);
-- == End of the native type distributed_id ===========================================

-- == Generation ================================================================

CREATE FUNCTION @extschema@.distributed_id_generate() RETURNS @extschema@.distributed_id
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION @extschema@.distributed_id_timestamp(id @extschema@.distributed_id) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_timestamp_wrapper';

CREATE FUNCTION @extschema@.distributed_id_parts(id @extschema@.distributed_id, OUT "time" timestamptz, OUT random bigint)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.distributed_id_from_time("time" timestamptz) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_time_wrapper';

CREATE FUNCTION @extschema@.distributed_id_from_parts("time" timestamptz, random bigint) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_parts_wrapper';

-- == Text and number forms =====================================================

CREATE FUNCTION @extschema@.distributed_id_to_hex(id @extschema@.distributed_id) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_to_hex_wrapper';

CREATE FUNCTION @extschema@.distributed_id_from_hex(hex text) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_hex_wrapper';

CREATE FUNCTION @extschema@.distributed_id_to_numeric(id @extschema@.distributed_id) RETURNS numeric
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_to_numeric_wrapper';

CREATE FUNCTION @extschema@.distributed_id_from_numeric(value numeric) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_numeric_wrapper';

-- Assignment casts (docs/formats/distributed_id.md#text-forms): a numeric
-- literal goes into a distributed_id column, and `id::numeric` is the
-- reference's DECIMAL(28,0).
CREATE CAST (@extschema@.distributed_id AS numeric) WITH FUNCTION @extschema@.distributed_id_to_numeric(@extschema@.distributed_id)
    AS ASSIGNMENT;
CREATE CAST (numeric AS @extschema@.distributed_id) WITH FUNCTION @extschema@.distributed_id_from_numeric(numeric)
    AS ASSIGNMENT;
