-- The k-ordered uid (docs/formats/kuid.md): kuid64 (bigint) and the native
-- type kuid96; generation, decoding, IDs from parts, text forms.
--
-- The whole SQL surface of src/formats/kuid.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/kuid.rs.

-- == The native type kuid96 ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/formats/kuid.rs. Made from sql/native_type.sql.in with
-- the length flake_core::kuid::Kuid96::LEN gives: the test in src/plumbing/fmgr/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE @extschema@.kuid96;

CREATE FUNCTION @extschema@.kuid96_in(input cstring) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_in_wrapper';
CREATE FUNCTION @extschema@.kuid96_out(id @extschema@.kuid96) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_out_wrapper';
CREATE FUNCTION @extschema@.kuid96_recv(buf internal) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_recv_wrapper';
CREATE FUNCTION @extschema@.kuid96_send(id @extschema@.kuid96) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_send_wrapper';

CREATE TYPE @extschema@.kuid96 (
    INTERNALLENGTH = 12,
    INPUT = @extschema@.kuid96_in, OUTPUT = @extschema@.kuid96_out,
    RECEIVE = @extschema@.kuid96_recv, SEND = @extschema@.kuid96_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION @extschema@.kuid96_eq(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_eq_wrapper';
CREATE FUNCTION @extschema@.kuid96_ne(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_ne_wrapper';
CREATE FUNCTION @extschema@.kuid96_lt(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_lt_wrapper';
CREATE FUNCTION @extschema@.kuid96_le(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_le_wrapper';
CREATE FUNCTION @extschema@.kuid96_gt(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_gt_wrapper';
CREATE FUNCTION @extschema@.kuid96_ge(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_ge_wrapper';
CREATE FUNCTION @extschema@.kuid96_cmp(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_cmp_wrapper';
CREATE FUNCTION @extschema@.kuid96_smaller(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_smaller_wrapper';
CREATE FUNCTION @extschema@.kuid96_larger(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_larger_wrapper';
CREATE FUNCTION @extschema@.kuid96_hash(id @extschema@.kuid96) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_hash_wrapper';
CREATE FUNCTION @extschema@.kuid96_hash_extended(id @extschema@.kuid96, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_hash_extended_wrapper';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.kuid96_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_sortsupport_wrapper';

CREATE OPERATOR CLASS @extschema@.kuid96_ops DEFAULT FOR TYPE @extschema@.kuid96 USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 @extschema@.kuid96_cmp(@extschema@.kuid96, @extschema@.kuid96),
    FUNCTION 2 @extschema@.kuid96_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.kuid96_hash_ops DEFAULT FOR TYPE @extschema@.kuid96 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 @extschema@.kuid96_hash(@extschema@.kuid96),
    FUNCTION 2 @extschema@.kuid96_hash_extended(@extschema@.kuid96, int8);

CREATE OPERATOR CLASS @extschema@.kuid96_minmax_ops DEFAULT FOR TYPE @extschema@.kuid96 USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION @extschema@.kuid96_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS @extschema@.kuid96_minmax_multi_ops FOR TYPE @extschema@.kuid96 USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 @extschema@.kuid96_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS @extschema@.kuid96_bloom_ops FOR TYPE @extschema@.kuid96 USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 @extschema@.kuid96_hash(@extschema@.kuid96);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a kuid96 column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION @extschema@.kuid96_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'kuid96_skipsupport_wrapper';
        ALTER OPERATOR FAMILY @extschema@.kuid96_ops USING btree
            ADD FUNCTION 6 (@extschema@.kuid96, @extschema@.kuid96) @extschema@.kuid96_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE @extschema@.min(@extschema@.kuid96) (
    SFUNC = @extschema@.kuid96_smaller, STYPE = @extschema@.kuid96, COMBINEFUNC = @extschema@.kuid96_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.kuid96) (
    SFUNC = @extschema@.kuid96_larger, STYPE = @extschema@.kuid96, COMBINEFUNC = @extschema@.kuid96_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.kuid96_to_bytea(id @extschema@.kuid96) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_to_bytea_wrapper';
CREATE FUNCTION @extschema@.kuid96_from_bytea(bytes bytea) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_from_bytea_wrapper';
CREATE CAST (@extschema@.kuid96 AS bytea) WITH FUNCTION @extschema@.kuid96_to_bytea(@extschema@.kuid96);
CREATE CAST (bytea AS @extschema@.kuid96) WITH FUNCTION @extschema@.kuid96_from_bytea(bytea);
-- == End of the native type kuid96 ===========================================

-- == Generation ================================================================

CREATE FUNCTION @extschema@.kuid64_generate() RETURNS bigint
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_generate_wrapper';

CREATE FUNCTION @extschema@.kuid96_generate() RETURNS @extschema@.kuid96
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_generate_wrapper';

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@.kuid64_timestamp(kuid64 bigint) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_timestamp_wrapper';

CREATE FUNCTION @extschema@.kuid64_parts(kuid64 bigint,
    OUT "time" timestamptz, OUT megaseconds int, OUT seconds int, OUT microseconds int,
    OUT seq int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_parts_wrapper';

CREATE FUNCTION @extschema@.kuid96_timestamp(id @extschema@.kuid96, "interval" integer) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_timestamp_wrapper';

CREATE FUNCTION @extschema@.kuid96_timestamp(id @extschema@.kuid96) RETURNS timestamptz
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'kuid96_timestamp_at_setting_wrapper';

CREATE FUNCTION @extschema@.kuid96_node(id @extschema@.kuid96, "interval" integer) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_node_wrapper';

CREATE FUNCTION @extschema@.kuid96_node(id @extschema@.kuid96) RETURNS bigint
    STABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_node_at_setting_wrapper';

CREATE FUNCTION @extschema@.kuid96_parts(id @extschema@.kuid96, "interval" int,
    OUT "time" timestamptz, OUT node bigint, OUT seq int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_parts_wrapper';

CREATE FUNCTION @extschema@.kuid96_parts(id @extschema@.kuid96,
    OUT "time" timestamptz, OUT node bigint, OUT seq int)
RETURNS record STABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_parts_at_setting_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.kuid64_from_time("time" timestamptz) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_from_time_wrapper';

CREATE FUNCTION @extschema@.kuid64_from_parts("time" timestamptz, seq integer) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_from_parts_wrapper';

CREATE FUNCTION @extschema@.kuid96_from_parts("time" timestamptz, node bigint, seq integer, "interval" integer)
RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_from_parts_wrapper';

CREATE FUNCTION @extschema@.kuid96_from_parts("time" timestamptz, node bigint, seq integer) RETURNS @extschema@.kuid96
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'kuid96_from_parts_at_setting_wrapper';

CREATE FUNCTION @extschema@.kuid96_from_time("time" timestamptz, "interval" integer) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_from_time_wrapper';

CREATE FUNCTION @extschema@.kuid96_from_time("time" timestamptz) RETURNS @extschema@.kuid96
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'kuid96_from_time_at_setting_wrapper';

-- == Text and number forms =====================================================

CREATE FUNCTION @extschema@.kuid64_encode(kuid64 bigint) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_encode_wrapper';

CREATE FUNCTION @extschema@.kuid64_decode(text text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid64_decode_wrapper';

-- == Node fingerprints, and kuid64 made global =================================

CREATE FUNCTION @extschema@.kuid_node_fingerprint(name text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid_node_fingerprint_wrapper';

CREATE FUNCTION @extschema@.kuid96_globalize(kuid64 bigint, node bigint, "interval" integer) RETURNS @extschema@.kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_globalize_wrapper';

CREATE FUNCTION @extschema@.kuid96_globalize(kuid64 bigint, node bigint) RETURNS @extschema@.kuid96
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'kuid96_globalize_at_setting_wrapper';

CREATE FUNCTION @extschema@.kuid96_globalize(kuid64 bigint) RETURNS @extschema@.kuid96
    STABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_globalize_here_wrapper';

CREATE FUNCTION @extschema@.kuid96_localize(id @extschema@.kuid96, "interval" integer) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_localize_wrapper';

CREATE FUNCTION @extschema@.kuid96_localize(id @extschema@.kuid96) RETURNS bigint
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'kuid96_localize_at_setting_wrapper';
