-- SIQ (docs/formats/siq.md): the native type, generation per kind with
-- pg_flake.siq_domain's hash and the node, decoding, IDs from parts, text and
-- number forms.
--
-- The whole SQL surface of src/formats/siq.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/siq.rs.

-- == The native type siq ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/formats/siq.rs. Made from sql/native_type.sql.in with
-- the length flake_core::siq::Siq::LEN gives: the test in src/plumbing/fmgr/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE @extschema@.siq;

CREATE FUNCTION @extschema@.siq_in(input cstring) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_in_wrapper';
CREATE FUNCTION @extschema@.siq_out(id @extschema@.siq) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_out_wrapper';
CREATE FUNCTION @extschema@.siq_recv(buf internal) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_recv_wrapper';
CREATE FUNCTION @extschema@.siq_send(id @extschema@.siq) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_send_wrapper';

CREATE TYPE @extschema@.siq (
    INTERNALLENGTH = 14,
    INPUT = @extschema@.siq_in, OUTPUT = @extschema@.siq_out,
    RECEIVE = @extschema@.siq_recv, SEND = @extschema@.siq_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION @extschema@.siq_eq(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_eq_wrapper';
CREATE FUNCTION @extschema@.siq_ne(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_ne_wrapper';
CREATE FUNCTION @extschema@.siq_lt(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_lt_wrapper';
CREATE FUNCTION @extschema@.siq_le(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_le_wrapper';
CREATE FUNCTION @extschema@.siq_gt(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_gt_wrapper';
CREATE FUNCTION @extschema@.siq_ge(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_ge_wrapper';
CREATE FUNCTION @extschema@.siq_cmp(a @extschema@.siq, b @extschema@.siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_cmp_wrapper';
CREATE FUNCTION @extschema@.siq_smaller(a @extschema@.siq, b @extschema@.siq) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_smaller_wrapper';
CREATE FUNCTION @extschema@.siq_larger(a @extschema@.siq, b @extschema@.siq) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_larger_wrapper';
CREATE FUNCTION @extschema@.siq_hash(id @extschema@.siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_hash_wrapper';
CREATE FUNCTION @extschema@.siq_hash_extended(id @extschema@.siq, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_hash_extended_wrapper';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.siq_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_sortsupport_wrapper';

CREATE OPERATOR CLASS @extschema@.siq_ops DEFAULT FOR TYPE @extschema@.siq USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 @extschema@.siq_cmp(@extschema@.siq, @extschema@.siq),
    FUNCTION 2 @extschema@.siq_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.siq_hash_ops DEFAULT FOR TYPE @extschema@.siq USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 @extschema@.siq_hash(@extschema@.siq),
    FUNCTION 2 @extschema@.siq_hash_extended(@extschema@.siq, int8);

CREATE OPERATOR CLASS @extschema@.siq_minmax_ops DEFAULT FOR TYPE @extschema@.siq USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION @extschema@.siq_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS @extschema@.siq_minmax_multi_ops FOR TYPE @extschema@.siq USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 @extschema@.siq_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS @extschema@.siq_bloom_ops FOR TYPE @extschema@.siq USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 @extschema@.siq_hash(@extschema@.siq);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a siq column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION @extschema@.siq_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'siq_skipsupport_wrapper';
        ALTER OPERATOR FAMILY @extschema@.siq_ops USING btree
            ADD FUNCTION 6 (@extschema@.siq, @extschema@.siq) @extschema@.siq_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE @extschema@.min(@extschema@.siq) (
    SFUNC = @extschema@.siq_smaller, STYPE = @extschema@.siq, COMBINEFUNC = @extschema@.siq_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.siq) (
    SFUNC = @extschema@.siq_larger, STYPE = @extschema@.siq, COMBINEFUNC = @extschema@.siq_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.siq_to_bytea(id @extschema@.siq) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_bytea_wrapper';
CREATE FUNCTION @extschema@.siq_from_bytea(bytes bytea) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_bytea_wrapper';
CREATE CAST (@extschema@.siq AS bytea) WITH FUNCTION @extschema@.siq_to_bytea(@extschema@.siq);
CREATE CAST (bytea AS @extschema@.siq) WITH FUNCTION @extschema@.siq_from_bytea(bytea);
-- == End of the native type siq ===========================================

-- == Generation ================================================================

CREATE FUNCTION @extschema@.siq_generate(kind text) RETURNS @extschema@.siq
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION @extschema@.siq_timestamp(id @extschema@.siq) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_timestamp_wrapper';

CREATE FUNCTION @extschema@.siq_kind(id @extschema@.siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_kind_wrapper';

CREATE FUNCTION @extschema@.siq_serial(id @extschema@.siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_serial_wrapper';

CREATE FUNCTION @extschema@.siq_shard(id @extschema@.siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_shard_wrapper';

CREATE FUNCTION @extschema@.siq_domain_hash(id @extschema@.siq) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_domain_hash_of_id_wrapper';

CREATE FUNCTION @extschema@.siq_domain_name_hash(domain text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'siq_domain_hash_of_domain_wrapper';

CREATE FUNCTION @extschema@.siq_parts(id @extschema@.siq,
    OUT ticks bigint, OUT "time" timestamptz, OUT shard int, OUT domain_hash bigint,
    OUT kind text, OUT serial int, OUT low16 int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'siq_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.siq_from_time("time" timestamptz) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_time_wrapper';

CREATE FUNCTION @extschema@.siq_from_tick_parts(ticks bigint, shard integer, domain_hash bigint, kind text,
    serial integer) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_parts_ticks_wrapper';

CREATE FUNCTION @extschema@.siq_from_parts("time" timestamptz, shard integer, domain_hash bigint, kind text,
    serial integer) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_parts_time_wrapper';

-- == Text and number forms =====================================================

CREATE FUNCTION @extschema@.siq_to_hex(id @extschema@.siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_hex_wrapper';

CREATE FUNCTION @extschema@.siq_from_hex(hex text) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_hex_wrapper';

CREATE FUNCTION @extschema@.siq_to_base64(id @extschema@.siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_base64_wrapper';

CREATE FUNCTION @extschema@.siq_to_did(id @extschema@.siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_did_wrapper';

CREATE FUNCTION @extschema@.siq_to_numeric(id @extschema@.siq) RETURNS numeric
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_numeric_wrapper';

CREATE FUNCTION @extschema@.siq_from_numeric(value numeric) RETURNS @extschema@.siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_numeric_wrapper';

CREATE CAST (@extschema@.siq AS numeric) WITH FUNCTION @extschema@.siq_to_numeric(@extschema@.siq);
CREATE CAST (numeric AS @extschema@.siq) WITH FUNCTION @extschema@.siq_from_numeric(numeric);
