-- Flax ID (docs/formats/flaxid.md): the native type, generation, decoding,
-- IDs from parts.
--
-- The whole SQL surface of src/flaxid.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/flaxid.rs.

-- == The native type flaxid ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/flaxid.rs. Made from sql/native_type.sql.in with
-- the length flake_core::flaxid::FlaxId::LEN gives: the test in src/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE flaxid;

CREATE FUNCTION flaxid_in(input cstring) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_in_wrapper';
CREATE FUNCTION flaxid_out(id flaxid) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_out_wrapper';
CREATE FUNCTION flaxid_recv(buf internal) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_recv_wrapper';
CREATE FUNCTION flaxid_send(id flaxid) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_send_wrapper';

CREATE TYPE flaxid (
    INTERNALLENGTH = 12,
    INPUT = flaxid_in, OUTPUT = flaxid_out,
    RECEIVE = flaxid_recv, SEND = flaxid_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION flaxid_eq(a flaxid, b flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_eq_wrapper';
CREATE FUNCTION flaxid_ne(a flaxid, b flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_ne_wrapper';
CREATE FUNCTION flaxid_lt(a flaxid, b flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_lt_wrapper';
CREATE FUNCTION flaxid_le(a flaxid, b flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_le_wrapper';
CREATE FUNCTION flaxid_gt(a flaxid, b flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_gt_wrapper';
CREATE FUNCTION flaxid_ge(a flaxid, b flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_ge_wrapper';
CREATE FUNCTION flaxid_cmp(a flaxid, b flaxid) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_cmp_wrapper';
CREATE FUNCTION flaxid_smaller(a flaxid, b flaxid) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_smaller_wrapper';
CREATE FUNCTION flaxid_larger(a flaxid, b flaxid) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_larger_wrapper';
CREATE FUNCTION flaxid_hash(id flaxid) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_hash_wrapper';
CREATE FUNCTION flaxid_hash_extended(id flaxid, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_hash_extended_wrapper';

CREATE OPERATOR = (
    LEFTARG = flaxid, RIGHTARG = flaxid, FUNCTION = flaxid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = flaxid, RIGHTARG = flaxid, FUNCTION = flaxid_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = flaxid, RIGHTARG = flaxid, FUNCTION = flaxid_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = flaxid, RIGHTARG = flaxid, FUNCTION = flaxid_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = flaxid, RIGHTARG = flaxid, FUNCTION = flaxid_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = flaxid, RIGHTARG = flaxid, FUNCTION = flaxid_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION flaxid_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_sortsupport_wrapper';

CREATE OPERATOR CLASS flaxid_ops DEFAULT FOR TYPE flaxid USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 flaxid_cmp(flaxid, flaxid),
    FUNCTION 2 flaxid_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS flaxid_hash_ops DEFAULT FOR TYPE flaxid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 flaxid_hash(flaxid),
    FUNCTION 2 flaxid_hash_extended(flaxid, int8);

CREATE OPERATOR CLASS flaxid_minmax_ops DEFAULT FOR TYPE flaxid USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION flaxid_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS flaxid_minmax_multi_ops FOR TYPE flaxid USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 flaxid_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS flaxid_bloom_ops FOR TYPE flaxid USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 flaxid_hash(flaxid);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a flaxid column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        CREATE FUNCTION flaxid_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'flaxid_skipsupport_wrapper';
        ALTER OPERATOR FAMILY flaxid_ops USING btree
            ADD FUNCTION 6 (flaxid, flaxid) flaxid_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE min(flaxid) (
    SFUNC = flaxid_smaller, STYPE = flaxid, COMBINEFUNC = flaxid_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(flaxid) (
    SFUNC = flaxid_larger, STYPE = flaxid, COMBINEFUNC = flaxid_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION flaxid_to_bytea(id flaxid) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_to_bytea_wrapper';
CREATE FUNCTION flaxid_from_bytea(bytes bytea) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_from_bytea_wrapper';
CREATE CAST (flaxid AS bytea) WITH FUNCTION flaxid_to_bytea(flaxid);
CREATE CAST (bytea AS flaxid) WITH FUNCTION flaxid_from_bytea(bytea);
-- == End of the native type flaxid ===========================================

-- == Generation ================================================================

CREATE FUNCTION flaxid_generate() RETURNS flaxid
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION flaxid_timestamp(id flaxid) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_timestamp_wrapper';

CREATE FUNCTION flaxid_parts(id flaxid, OUT "time" timestamptz, OUT random bigint)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION flaxid_from_time("time" timestamptz) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_from_time_wrapper';

CREATE FUNCTION flaxid_from_parts("time" timestamptz, random bigint) RETURNS flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_from_parts_wrapper';
