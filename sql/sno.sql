-- sno (docs/formats/sno.md): the native type, generation with pg_flake.node's
-- partition and the meta byte, decoding, IDs from parts.
--
-- The whole SQL surface of src/sno.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/sno.rs.

-- == The native type sno ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/sno.rs. Made from sql/native_type.sql.in with
-- the length flake_core::sno::Sno::LEN gives: the test in src/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE sno;

CREATE FUNCTION sno_in(input cstring) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_in_wrapper';
CREATE FUNCTION sno_out(id sno) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_out_wrapper';
CREATE FUNCTION sno_recv(buf internal) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_recv_wrapper';
CREATE FUNCTION sno_send(id sno) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_send_wrapper';

CREATE TYPE sno (
    INTERNALLENGTH = 10,
    INPUT = sno_in, OUTPUT = sno_out,
    RECEIVE = sno_recv, SEND = sno_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION sno_eq(a sno, b sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_eq_wrapper';
CREATE FUNCTION sno_ne(a sno, b sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_ne_wrapper';
CREATE FUNCTION sno_lt(a sno, b sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_lt_wrapper';
CREATE FUNCTION sno_le(a sno, b sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_le_wrapper';
CREATE FUNCTION sno_gt(a sno, b sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_gt_wrapper';
CREATE FUNCTION sno_ge(a sno, b sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_ge_wrapper';
CREATE FUNCTION sno_cmp(a sno, b sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_cmp_wrapper';
CREATE FUNCTION sno_smaller(a sno, b sno) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_smaller_wrapper';
CREATE FUNCTION sno_larger(a sno, b sno) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_larger_wrapper';
CREATE FUNCTION sno_hash(id sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_hash_wrapper';
CREATE FUNCTION sno_hash_extended(id sno, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_hash_extended_wrapper';

CREATE OPERATOR = (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = sno, RIGHTARG = sno, FUNCTION = sno_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION sno_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_sortsupport_wrapper';

CREATE OPERATOR CLASS sno_ops DEFAULT FOR TYPE sno USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 sno_cmp(sno, sno),
    FUNCTION 2 sno_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS sno_hash_ops DEFAULT FOR TYPE sno USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 sno_hash(sno),
    FUNCTION 2 sno_hash_extended(sno, int8);

CREATE OPERATOR CLASS sno_minmax_ops DEFAULT FOR TYPE sno USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION sno_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS sno_minmax_multi_ops FOR TYPE sno USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 sno_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS sno_bloom_ops FOR TYPE sno USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 sno_hash(sno);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a sno column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        CREATE FUNCTION sno_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'sno_skipsupport_wrapper';
        ALTER OPERATOR FAMILY sno_ops USING btree
            ADD FUNCTION 6 (sno, sno) sno_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE min(sno) (
    SFUNC = sno_smaller, STYPE = sno, COMBINEFUNC = sno_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(sno) (
    SFUNC = sno_larger, STYPE = sno, COMBINEFUNC = sno_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION sno_to_bytea(id sno) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_to_bytea_wrapper';
CREATE FUNCTION sno_from_bytea(bytes bytea) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_from_bytea_wrapper';
CREATE CAST (sno AS bytea) WITH FUNCTION sno_to_bytea(sno);
CREATE CAST (bytea AS sno) WITH FUNCTION sno_from_bytea(bytea);
-- == End of the native type sno ===========================================

-- == Generation ================================================================

CREATE FUNCTION sno_generate(meta int DEFAULT 0) RETURNS sno
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION sno_timestamp(id sno) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'sno_timestamp_wrapper';

CREATE FUNCTION sno_meta(id sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_meta_wrapper';

CREATE FUNCTION sno_partition(id sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_partition_wrapper';

CREATE FUNCTION sno_sequence(id sno) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_sequence_wrapper';

CREATE FUNCTION sno_tick_tock(id sno) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_tick_tock_wrapper';

CREATE FUNCTION sno_parts(id sno,
    OUT "time" timestamptz, OUT tick_tock boolean, OUT meta int, OUT partition int, OUT sequence int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'sno_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION sno_from_time("time" timestamptz) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_from_time_wrapper';

CREATE FUNCTION sno_from_parts("time" timestamptz, meta integer, partition integer,
    sequence integer, tick_tock boolean DEFAULT false) RETURNS sno
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'sno_from_parts_wrapper';
