-- sno (docs/formats/sno.md): the native type, generation with pg_flake.node's
-- partition and the meta byte, decoding, IDs from parts.
--
-- The whole SQL surface of src/formats/sno.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/sno.rs.

-- == The native type sno ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/formats/sno.rs. Made from sql/native_type.sql.in with
-- the length flake_core::sno::Sno::LEN gives: the test in src/plumbing/fmgr/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE @extschema@.sno;

CREATE FUNCTION @extschema@.sno_in(input cstring) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_in_wrapper';
CREATE FUNCTION @extschema@.sno_out(id @extschema@.sno) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_out_wrapper';
CREATE FUNCTION @extschema@.sno_recv(buf internal) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_recv_wrapper';
CREATE FUNCTION @extschema@.sno_send(id @extschema@.sno) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_send_wrapper';

CREATE TYPE @extschema@.sno (
    INTERNALLENGTH = 10,
    INPUT = @extschema@.sno_in, OUTPUT = @extschema@.sno_out,
    RECEIVE = @extschema@.sno_recv, SEND = @extschema@.sno_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION @extschema@.sno_eq(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_eq_wrapper';
CREATE FUNCTION @extschema@.sno_ne(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_ne_wrapper';
CREATE FUNCTION @extschema@.sno_lt(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_lt_wrapper';
CREATE FUNCTION @extschema@.sno_le(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_le_wrapper';
CREATE FUNCTION @extschema@.sno_gt(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_gt_wrapper';
CREATE FUNCTION @extschema@.sno_ge(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_ge_wrapper';
CREATE FUNCTION @extschema@.sno_cmp(a @extschema@.sno, b @extschema@.sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_cmp_wrapper';
CREATE FUNCTION @extschema@.sno_smaller(a @extschema@.sno, b @extschema@.sno) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_smaller_wrapper';
CREATE FUNCTION @extschema@.sno_larger(a @extschema@.sno, b @extschema@.sno) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_larger_wrapper';
CREATE FUNCTION @extschema@.sno_hash(id @extschema@.sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_hash_wrapper';
CREATE FUNCTION @extschema@.sno_hash_extended(id @extschema@.sno, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_hash_extended_wrapper';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.sno_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_sortsupport_wrapper';

CREATE OPERATOR CLASS @extschema@.sno_ops DEFAULT FOR TYPE @extschema@.sno USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 @extschema@.sno_cmp(@extschema@.sno, @extschema@.sno),
    FUNCTION 2 @extschema@.sno_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.sno_hash_ops DEFAULT FOR TYPE @extschema@.sno USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 @extschema@.sno_hash(@extschema@.sno),
    FUNCTION 2 @extschema@.sno_hash_extended(@extschema@.sno, int8);

CREATE OPERATOR CLASS @extschema@.sno_minmax_ops DEFAULT FOR TYPE @extschema@.sno USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION @extschema@.sno_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS @extschema@.sno_minmax_multi_ops FOR TYPE @extschema@.sno USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 @extschema@.sno_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS @extschema@.sno_bloom_ops FOR TYPE @extschema@.sno USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 @extschema@.sno_hash(@extschema@.sno);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a sno column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION @extschema@.sno_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'sno_skipsupport_wrapper';
        ALTER OPERATOR FAMILY @extschema@.sno_ops USING btree
            ADD FUNCTION 6 (@extschema@.sno, @extschema@.sno) @extschema@.sno_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE @extschema@.min(@extschema@.sno) (
    SFUNC = @extschema@.sno_smaller, STYPE = @extschema@.sno, COMBINEFUNC = @extschema@.sno_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.sno) (
    SFUNC = @extschema@.sno_larger, STYPE = @extschema@.sno, COMBINEFUNC = @extschema@.sno_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.sno_to_bytea(id @extschema@.sno) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_to_bytea_wrapper';
CREATE FUNCTION @extschema@.sno_from_bytea(bytes bytea) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_from_bytea_wrapper';
CREATE CAST (@extschema@.sno AS bytea) WITH FUNCTION @extschema@.sno_to_bytea(@extschema@.sno);
CREATE CAST (bytea AS @extschema@.sno) WITH FUNCTION @extschema@.sno_from_bytea(bytea);
-- == End of the native type sno ===========================================

-- == Generation ================================================================

CREATE FUNCTION @extschema@.sno_generate(meta int DEFAULT 0) RETURNS @extschema@.sno
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION @extschema@.sno_timestamp(id @extschema@.sno) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_timestamp_wrapper';

CREATE FUNCTION @extschema@.sno_meta(id @extschema@.sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_meta_wrapper';

CREATE FUNCTION @extschema@.sno_partition(id @extschema@.sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_partition_wrapper';

CREATE FUNCTION @extschema@.sno_sequence(id @extschema@.sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_sequence_wrapper';

CREATE FUNCTION @extschema@.sno_tick_tock(id @extschema@.sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_tick_tock_wrapper';

CREATE FUNCTION @extschema@.sno_parts(id @extschema@.sno,
    OUT "time" timestamptz, OUT tick_tock boolean, OUT meta int, OUT partition int, OUT sequence int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'sno_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.sno_from_time("time" timestamptz) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_from_time_wrapper';

CREATE FUNCTION @extschema@.sno_from_parts("time" timestamptz, meta integer, partition integer,
    sequence integer, tick_tock boolean DEFAULT false) RETURNS @extschema@.sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_from_parts_wrapper';
