-- DistributedId (docs/formats/distributed_id.md): the native type,
-- generation, decoding, IDs from parts, text and number forms.
--
-- The whole SQL surface of src/distributed_id.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/distributed_id.rs.

-- == The native type distributed_id ==================================================
-- Its functions, operators, operator classes, aggregates and casts
-- (docs/sql-reference.md "What every native type has"); the C functions are
-- native_type!'s in src/distributed_id.rs. Made from sql/native_type.sql.in with
-- the length flake_core::distributed_id::DistributedId::LEN gives: the test in src/native_type/ddl.rs checks
-- that this section is exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE distributed_id;

CREATE FUNCTION distributed_id_in(input cstring) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_in_wrapper';
CREATE FUNCTION distributed_id_out(id distributed_id) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_out_wrapper';
CREATE FUNCTION distributed_id_recv(buf internal) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_recv_wrapper';
CREATE FUNCTION distributed_id_send(id distributed_id) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_send_wrapper';

CREATE TYPE distributed_id (
    INTERNALLENGTH = 12,
    INPUT = distributed_id_in, OUTPUT = distributed_id_out,
    RECEIVE = distributed_id_recv, SEND = distributed_id_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION distributed_id_eq(a distributed_id, b distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_eq_wrapper';
CREATE FUNCTION distributed_id_ne(a distributed_id, b distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_ne_wrapper';
CREATE FUNCTION distributed_id_lt(a distributed_id, b distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_lt_wrapper';
CREATE FUNCTION distributed_id_le(a distributed_id, b distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_le_wrapper';
CREATE FUNCTION distributed_id_gt(a distributed_id, b distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_gt_wrapper';
CREATE FUNCTION distributed_id_ge(a distributed_id, b distributed_id) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_ge_wrapper';
CREATE FUNCTION distributed_id_cmp(a distributed_id, b distributed_id) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_cmp_wrapper';
CREATE FUNCTION distributed_id_smaller(a distributed_id, b distributed_id) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_smaller_wrapper';
CREATE FUNCTION distributed_id_larger(a distributed_id, b distributed_id) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_larger_wrapper';
CREATE FUNCTION distributed_id_hash(id distributed_id) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_hash_wrapper';
CREATE FUNCTION distributed_id_hash_extended(id distributed_id, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_hash_extended_wrapper';

CREATE OPERATOR = (
    LEFTARG = distributed_id, RIGHTARG = distributed_id, FUNCTION = distributed_id_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = distributed_id, RIGHTARG = distributed_id, FUNCTION = distributed_id_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = distributed_id, RIGHTARG = distributed_id, FUNCTION = distributed_id_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = distributed_id, RIGHTARG = distributed_id, FUNCTION = distributed_id_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = distributed_id, RIGHTARG = distributed_id, FUNCTION = distributed_id_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = distributed_id, RIGHTARG = distributed_id, FUNCTION = distributed_id_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION distributed_id_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_sortsupport_wrapper';

CREATE OPERATOR CLASS distributed_id_ops DEFAULT FOR TYPE distributed_id USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 distributed_id_cmp(distributed_id, distributed_id),
    FUNCTION 2 distributed_id_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS distributed_id_hash_ops DEFAULT FOR TYPE distributed_id USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 distributed_id_hash(distributed_id),
    FUNCTION 2 distributed_id_hash_extended(distributed_id, int8);

CREATE OPERATOR CLASS distributed_id_minmax_ops DEFAULT FOR TYPE distributed_id USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION distributed_id_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS distributed_id_minmax_multi_ops FOR TYPE distributed_id USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 distributed_id_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS distributed_id_bloom_ops FOR TYPE distributed_id USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 distributed_id_hash(distributed_id);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a distributed_id column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        CREATE FUNCTION distributed_id_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'distributed_id_skipsupport_wrapper';
        ALTER OPERATOR FAMILY distributed_id_ops USING btree
            ADD FUNCTION 6 (distributed_id, distributed_id) distributed_id_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE min(distributed_id) (
    SFUNC = distributed_id_smaller, STYPE = distributed_id, COMBINEFUNC = distributed_id_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(distributed_id) (
    SFUNC = distributed_id_larger, STYPE = distributed_id, COMBINEFUNC = distributed_id_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION distributed_id_to_bytea(id distributed_id) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_to_bytea_wrapper';
CREATE FUNCTION distributed_id_from_bytea(bytes bytea) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_from_bytea_wrapper';
CREATE CAST (distributed_id AS bytea) WITH FUNCTION distributed_id_to_bytea(distributed_id);
CREATE CAST (bytea AS distributed_id) WITH FUNCTION distributed_id_from_bytea(bytea);
-- == End of the native type distributed_id ===========================================

-- == Generation ================================================================

CREATE FUNCTION distributed_id_generate() RETURNS distributed_id
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: it cannot fail.
CREATE FUNCTION distributed_id_timestamp(id distributed_id) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_timestamp_wrapper';

CREATE FUNCTION distributed_id_parts(id distributed_id, OUT "time" timestamptz, OUT random bigint)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION distributed_id_from_time("time" timestamptz) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_time_wrapper';

CREATE FUNCTION distributed_id_from_parts("time" timestamptz, random bigint) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_parts_wrapper';

-- == Text and number forms =====================================================

CREATE FUNCTION distributed_id_to_hex(id distributed_id) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id_to_hex_wrapper';

CREATE FUNCTION distributed_id_from_hex(hex text) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_hex_wrapper';

CREATE FUNCTION distributed_id_to_numeric(id distributed_id) RETURNS numeric
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_to_numeric_wrapper';

CREATE FUNCTION distributed_id_from_numeric(value numeric) RETURNS distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id_from_numeric_wrapper';

-- Assignment casts (docs/formats/distributed_id.md#text-forms): a numeric
-- literal goes into a distributed_id column, and `id::numeric` is the
-- reference's DECIMAL(28,0).
CREATE CAST (distributed_id AS numeric) WITH FUNCTION distributed_id_to_numeric(distributed_id)
    AS ASSIGNMENT;
CREATE CAST (numeric AS distributed_id) WITH FUNCTION distributed_id_from_numeric(numeric)
    AS ASSIGNMENT;
