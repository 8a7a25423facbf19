-- Flax ID (docs/formats/flaxid.md): the native type, generation, decoding,
-- IDs from parts.
--
-- The whole SQL surface of src/formats/flaxid.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/flaxid.rs.

-- == The native type flaxid ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/formats/flaxid.rs. Made from sql/native_type.sql.in with
-- the length flake_core::flaxid::FlaxId::LEN gives: the test in src/plumbing/fmgr/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE @extschema@.flaxid;

CREATE FUNCTION @extschema@.flaxid_in(input cstring) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_in_wrapper';
CREATE FUNCTION @extschema@.flaxid_out(id @extschema@.flaxid) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_out_wrapper';
CREATE FUNCTION @extschema@.flaxid_recv(buf internal) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_recv_wrapper';
CREATE FUNCTION @extschema@.flaxid_send(id @extschema@.flaxid) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_send_wrapper';

CREATE TYPE @extschema@.flaxid (
    INTERNALLENGTH = 12,
    INPUT = @extschema@.flaxid_in, OUTPUT = @extschema@.flaxid_out,
    RECEIVE = @extschema@.flaxid_recv, SEND = @extschema@.flaxid_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION @extschema@.flaxid_eq(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_eq_wrapper';
CREATE FUNCTION @extschema@.flaxid_ne(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_ne_wrapper';
CREATE FUNCTION @extschema@.flaxid_lt(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_lt_wrapper';
CREATE FUNCTION @extschema@.flaxid_le(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_le_wrapper';
CREATE FUNCTION @extschema@.flaxid_gt(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_gt_wrapper';
CREATE FUNCTION @extschema@.flaxid_ge(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_ge_wrapper';
CREATE FUNCTION @extschema@.flaxid_cmp(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_cmp_wrapper';
CREATE FUNCTION @extschema@.flaxid_smaller(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_smaller_wrapper';
CREATE FUNCTION @extschema@.flaxid_larger(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_larger_wrapper';
CREATE FUNCTION @extschema@.flaxid_hash(id @extschema@.flaxid) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_hash_wrapper';
CREATE FUNCTION @extschema@.flaxid_hash_extended(id @extschema@.flaxid, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_hash_extended_wrapper';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.flaxid_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_sortsupport_wrapper';

CREATE OPERATOR CLASS @extschema@.flaxid_ops DEFAULT FOR TYPE @extschema@.flaxid USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 @extschema@.flaxid_cmp(@extschema@.flaxid, @extschema@.flaxid),
    FUNCTION 2 @extschema@.flaxid_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.flaxid_hash_ops DEFAULT FOR TYPE @extschema@.flaxid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 @extschema@.flaxid_hash(@extschema@.flaxid),
    FUNCTION 2 @extschema@.flaxid_hash_extended(@extschema@.flaxid, int8);

CREATE OPERATOR CLASS @extschema@.flaxid_minmax_ops DEFAULT FOR TYPE @extschema@.flaxid USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION @extschema@.flaxid_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS @extschema@.flaxid_minmax_multi_ops FOR TYPE @extschema@.flaxid USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 @extschema@.flaxid_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS @extschema@.flaxid_bloom_ops FOR TYPE @extschema@.flaxid USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 @extschema@.flaxid_hash(@extschema@.flaxid);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a flaxid column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION @extschema@.flaxid_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'flaxid_skipsupport_wrapper';
        ALTER OPERATOR FAMILY @extschema@.flaxid_ops USING btree
            ADD FUNCTION 6 (@extschema@.flaxid, @extschema@.flaxid) @extschema@.flaxid_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE @extschema@.min(@extschema@.flaxid) (
    SFUNC = @extschema@.flaxid_smaller, STYPE = @extschema@.flaxid, COMBINEFUNC = @extschema@.flaxid_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.flaxid) (
    SFUNC = @extschema@.flaxid_larger, STYPE = @extschema@.flaxid, COMBINEFUNC = @extschema@.flaxid_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.flaxid_to_bytea(id @extschema@.flaxid) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_to_bytea_wrapper';
CREATE FUNCTION @extschema@.flaxid_from_bytea(bytes bytea) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_from_bytea_wrapper';
CREATE CAST (@extschema@.flaxid AS bytea) WITH FUNCTION @extschema@.flaxid_to_bytea(@extschema@.flaxid);
CREATE CAST (bytea AS @extschema@.flaxid) WITH FUNCTION @extschema@.flaxid_from_bytea(bytea);
-- == End of the native type flaxid ===========================================

-- == Generation ================================================================

CREATE FUNCTION @extschema@.flaxid_generate() RETURNS @extschema@.flaxid
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION @extschema@.flaxid_timestamp(id @extschema@.flaxid) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_timestamp_wrapper';

CREATE FUNCTION @extschema@.flaxid_parts(id @extschema@.flaxid, OUT "time" timestamptz, OUT random bigint)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.flaxid_from_time("time" timestamptz) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_from_time_wrapper';

CREATE FUNCTION @extschema@.flaxid_from_parts("time" timestamptz, random bigint) RETURNS @extschema@.flaxid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'flaxid_from_parts_wrapper';
