-- SIQ (docs/formats/siq.md): the native type, generation per kind with
-- pg_flake.siq_domain's hash and the node, decoding, IDs from parts, text and
-- number forms.
--
-- The whole SQL surface of src/siq.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/siq.rs.

-- == The native type siq ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/siq.rs. Made from sql/native_type.sql.in with
-- the length flake_core::siq::Siq::LEN gives: the test in src/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE siq;

CREATE FUNCTION siq_in(input cstring) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_in_wrapper';
CREATE FUNCTION siq_out(id siq) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_out_wrapper';
CREATE FUNCTION siq_recv(buf internal) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_recv_wrapper';
CREATE FUNCTION siq_send(id siq) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_send_wrapper';

CREATE TYPE siq (
    INTERNALLENGTH = 14,
    INPUT = siq_in, OUTPUT = siq_out,
    RECEIVE = siq_recv, SEND = siq_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION siq_eq(a siq, b siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_eq_wrapper';
CREATE FUNCTION siq_ne(a siq, b siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_ne_wrapper';
CREATE FUNCTION siq_lt(a siq, b siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_lt_wrapper';
CREATE FUNCTION siq_le(a siq, b siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_le_wrapper';
CREATE FUNCTION siq_gt(a siq, b siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_gt_wrapper';
CREATE FUNCTION siq_ge(a siq, b siq) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_ge_wrapper';
CREATE FUNCTION siq_cmp(a siq, b siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_cmp_wrapper';
CREATE FUNCTION siq_smaller(a siq, b siq) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_smaller_wrapper';
CREATE FUNCTION siq_larger(a siq, b siq) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_larger_wrapper';
CREATE FUNCTION siq_hash(id siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_hash_wrapper';
CREATE FUNCTION siq_hash_extended(id siq, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_hash_extended_wrapper';

CREATE OPERATOR = (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = siq, RIGHTARG = siq, FUNCTION = siq_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION siq_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_sortsupport_wrapper';

CREATE OPERATOR CLASS siq_ops DEFAULT FOR TYPE siq USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 siq_cmp(siq, siq),
    FUNCTION 2 siq_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS siq_hash_ops DEFAULT FOR TYPE siq USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 siq_hash(siq),
    FUNCTION 2 siq_hash_extended(siq, int8);

CREATE OPERATOR CLASS siq_minmax_ops DEFAULT FOR TYPE siq USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION siq_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS siq_minmax_multi_ops FOR TYPE siq USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 siq_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS siq_bloom_ops FOR TYPE siq USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 siq_hash(siq);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a siq column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        CREATE FUNCTION siq_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'siq_skipsupport_wrapper';
        ALTER OPERATOR FAMILY siq_ops USING btree
            ADD FUNCTION 6 (siq, siq) siq_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE min(siq) (
    SFUNC = siq_smaller, STYPE = siq, COMBINEFUNC = siq_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(siq) (
    SFUNC = siq_larger, STYPE = siq, COMBINEFUNC = siq_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION siq_to_bytea(id siq) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_bytea_wrapper';
CREATE FUNCTION siq_from_bytea(bytes bytea) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_bytea_wrapper';
CREATE CAST (siq AS bytea) WITH FUNCTION siq_to_bytea(siq);
CREATE CAST (bytea AS siq) WITH FUNCTION siq_from_bytea(bytea);
-- == End of the native type siq ===========================================

-- == Generation ================================================================

CREATE FUNCTION siq_generate(kind text) RETURNS siq
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION siq_timestamp(id siq) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'siq_timestamp_wrapper';

CREATE FUNCTION siq_kind(id siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_kind_wrapper';

CREATE FUNCTION siq_serial(id siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_serial_wrapper';

CREATE FUNCTION siq_shard(id siq) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_shard_wrapper';

CREATE FUNCTION siq_domain_hash(id siq) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_domain_hash_of_id_wrapper';

CREATE FUNCTION siq_domain_name_hash(domain text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'siq_domain_hash_of_domain_wrapper';

CREATE FUNCTION siq_parts(id siq,
    OUT ticks bigint, OUT "time" timestamptz, OUT shard int, OUT domain_hash bigint,
    OUT kind text, OUT serial int, OUT low16 int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'siq_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION siq_from_time("time" timestamptz) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_time_wrapper';

CREATE FUNCTION siq_from_tick_parts(ticks bigint, shard integer, domain_hash bigint, kind text,
    serial integer) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_parts_ticks_wrapper';

CREATE FUNCTION siq_from_parts("time" timestamptz, shard integer, domain_hash bigint, kind text,
    serial integer) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_parts_time_wrapper';

-- == Text and number forms =====================================================

CREATE FUNCTION siq_to_hex(id siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_hex_wrapper';

CREATE FUNCTION siq_from_hex(hex text) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_hex_wrapper';

CREATE FUNCTION siq_to_base64(id siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_base64_wrapper';

CREATE FUNCTION siq_to_did(id siq) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_did_wrapper';

CREATE FUNCTION siq_to_numeric(id siq) RETURNS numeric
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_to_numeric_wrapper';

CREATE FUNCTION siq_from_numeric(value numeric) RETURNS siq
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'siq_from_numeric_wrapper';

CREATE CAST (siq AS numeric) WITH FUNCTION siq_to_numeric(siq);
CREATE CAST (numeric AS siq) WITH FUNCTION siq_from_numeric(numeric);
