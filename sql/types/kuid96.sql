-- The native type kuid96: its functions, operators, operator classes,
-- aggregates and casts (docs/sql-reference.md "What every native type has"). Its C functions
-- are declared by native_type! in src/kuid.rs.
--
-- Made from sql/types/native_type.sql.in with the length of flake-core's
-- flake_core::kuid::Kuid96::LEN; the test in src/native_type/ddl.rs checks that this file is
-- exactly that (PG_FLAKE_WRITE_TYPES=1 rewrites it).

CREATE TYPE kuid96;

CREATE FUNCTION kuid96_in(input cstring) RETURNS kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_in_wrapper';
CREATE FUNCTION kuid96_out(id kuid96) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_out_wrapper';
CREATE FUNCTION kuid96_recv(buf internal) RETURNS kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_recv_wrapper';
CREATE FUNCTION kuid96_send(id kuid96) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_send_wrapper';

CREATE TYPE kuid96 (
    INTERNALLENGTH = 12,
    INPUT = kuid96_in, OUTPUT = kuid96_out,
    RECEIVE = kuid96_recv, SEND = kuid96_send,
    ALIGNMENT = char, STORAGE = plain
);

CREATE FUNCTION kuid96_eq(a kuid96, b kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_eq_wrapper';
CREATE FUNCTION kuid96_ne(a kuid96, b kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_ne_wrapper';
CREATE FUNCTION kuid96_lt(a kuid96, b kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_lt_wrapper';
CREATE FUNCTION kuid96_le(a kuid96, b kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_le_wrapper';
CREATE FUNCTION kuid96_gt(a kuid96, b kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_gt_wrapper';
CREATE FUNCTION kuid96_ge(a kuid96, b kuid96) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_ge_wrapper';
CREATE FUNCTION kuid96_cmp(a kuid96, b kuid96) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_cmp_wrapper';
CREATE FUNCTION kuid96_smaller(a kuid96, b kuid96) RETURNS kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_smaller_wrapper';
CREATE FUNCTION kuid96_larger(a kuid96, b kuid96) RETURNS kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_larger_wrapper';
CREATE FUNCTION kuid96_hash(id kuid96) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_hash_wrapper';
CREATE FUNCTION kuid96_hash_extended(id kuid96, seed bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_hash_extended_wrapper';

CREATE OPERATOR = (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = kuid96, RIGHTARG = kuid96, FUNCTION = kuid96_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION kuid96_sortsupport(ssup internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_sortsupport_wrapper';

CREATE OPERATOR CLASS kuid96_ops DEFAULT FOR TYPE kuid96 USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 kuid96_cmp(kuid96, kuid96),
    FUNCTION 2 kuid96_sortsupport(internal),
    FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS kuid96_hash_ops DEFAULT FOR TYPE kuid96 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 kuid96_hash(kuid96),
    FUNCTION 2 kuid96_hash_extended(kuid96, int8);

CREATE OPERATOR CLASS kuid96_minmax_ops DEFAULT FOR TYPE kuid96 USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Like uuid's: BRIN minmax-multi (for values that are not all in order)
-- and bloom (for equality only) operator classes, not the default ones.
CREATE FUNCTION kuid96_minmax_multi_distance(a internal, b internal) RETURNS float8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_minmax_multi_distance_wrapper';

CREATE OPERATOR CLASS kuid96_minmax_multi_ops FOR TYPE kuid96 USING brin AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 brin_minmax_multi_opcinfo(internal),
    FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
    FUNCTION 5 brin_minmax_multi_options(internal),
    FUNCTION 11 kuid96_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS kuid96_bloom_ops FOR TYPE kuid96 USING brin AS
    OPERATOR 1 =,
    FUNCTION 1 brin_bloom_opcinfo(internal),
    FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
    FUNCTION 4 brin_bloom_union(internal, internal, internal),
    FUNCTION 5 brin_bloom_options(internal),
    FUNCTION 11 kuid96_hash(kuid96);

-- PostgreSQL 18: btree skip support (support function 6), as uuid has, so
-- that skip scans work on indexes led by a kuid96 column. Earlier versions
-- have no support function 6.
DO $skip_support$
BEGIN
    IF current_setting('server_version_num')::int >= 180000 THEN
        CREATE FUNCTION kuid96_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'kuid96_skipsupport_wrapper';
        ALTER OPERATOR FAMILY kuid96_ops USING btree
            ADD FUNCTION 6 (kuid96, kuid96) kuid96_skipsupport(internal);
    END IF;
END
$skip_support$;

CREATE AGGREGATE min(kuid96) (
    SFUNC = kuid96_smaller, STYPE = kuid96, COMBINEFUNC = kuid96_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(kuid96) (
    SFUNC = kuid96_larger, STYPE = kuid96, COMBINEFUNC = kuid96_larger,
    SORTOP = >, PARALLEL = SAFE
);

CREATE FUNCTION kuid96_to_bytea(id kuid96) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_to_bytea_wrapper';
CREATE FUNCTION kuid96_from_bytea(bytes bytea) RETURNS kuid96
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'kuid96_from_bytea_wrapper';
CREATE CAST (kuid96 AS bytea) WITH FUNCTION kuid96_to_bytea(kuid96);
CREATE CAST (bytea AS kuid96) WITH FUNCTION kuid96_from_bytea(bytea);
