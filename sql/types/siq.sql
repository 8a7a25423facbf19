-- The native type siq: its functions, operators, operator classes,
-- aggregates and casts (docs/sql-reference.md "What every native type has"). Its C functions
-- are declared by native_type! in src/siq.rs.
--
-- Made from sql/types/native_type.sql.in with the length of flake-core's
-- flake_core::siq::Siq::LEN; the test in src/native_type/ddl.rs checks that this file is
-- exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

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
