-- pg_flake 0.1.0 -> 0.2.0 (docs/operations.md "Versions"). Every change of the SQL
-- surface since 0.1.0, so that ALTER EXTENSION pg_flake UPDATE gives a
-- database made at 0.1.0 exactly the catalog of a fresh 0.2.0 (the
-- regression test "upgrade" compares the two). Objects are renamed rather
-- than dropped and re-created wherever that keeps what depends on them.
\echo Use "ALTER EXTENSION pg_flake UPDATE TO '0.2.0'" to load this file. \quit

-- An untyped literal must not pick another meaning (docs/operations.md "Versions"):
-- siq_domain_hash('crxc…') resolved to the text overload, and
-- siq_from_parts('2023-11-14 …', …) matched two overloads.
ALTER FUNCTION siq_domain_hash(text) RENAME TO siq_domain_name_hash;
ALTER FUNCTION siq_from_parts(bigint, integer, bigint, text, integer)
    RENAME TO siq_from_tick_parts;

-- Durable marks and logical time (docs/guarantees.md "Guarantees"): the state shows
-- each generator's mark and how far its IDs run ahead of the clock.
DROP FUNCTION pg_flake_generator_state();
CREATE FUNCTION pg_flake_generator_state() RETURNS TABLE (
    "format" text, "kind" text, "mode" text, "slot" int, "nslots" int, "process" int,
    "range_first" int, "range_last" int, "last_unit" bigint, "last_sequence" int,
    "tick_tock" bool, "safe_unit" bigint, "issued" bigint,
    "mark_unit" bigint, "mark_time" timestamptz, "clock_lead" interval
)
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'generator_state_wrapper';

-- One node identity (docs/operations.md "Several servers"): which node each format
-- generates with, and where that comes from.
CREATE FUNCTION pg_flake_node() RETURNS TABLE (
    "format" text, "node" bigint, "source" text, "problem" text
)
STRICT STABLE PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_node_wrapper';

-- What uuid has and the native types lacked (docs/sql-reference.md "What every native type
-- has"): BRIN minmax-multi and bloom operator classes, skip support on
-- PostgreSQL 18, and LEAKPROOF time decoders (as uuid_extract_timestamp).

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
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION sno_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'sno_skipsupport_wrapper';
        ALTER OPERATOR FAMILY sno_ops USING btree
            ADD FUNCTION 6 (sno, sno) sno_skipsupport(internal);
    END IF;
END
$skip_support$;

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
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION siq_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'siq_skipsupport_wrapper';
        ALTER OPERATOR FAMILY siq_ops USING btree
            ADD FUNCTION 6 (siq, siq) siq_skipsupport(internal);
    END IF;
END
$skip_support$;

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
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION flaxid_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'flaxid_skipsupport_wrapper';
        ALTER OPERATOR FAMILY flaxid_ops USING btree
            ADD FUNCTION 6 (flaxid, flaxid) flaxid_skipsupport(internal);
    END IF;
END
$skip_support$;

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
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION kuid96_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'kuid96_skipsupport_wrapper';
        ALTER OPERATOR FAMILY kuid96_ops USING btree
            ADD FUNCTION 6 (kuid96, kuid96) kuid96_skipsupport(internal);
    END IF;
END
$skip_support$;

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
    IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
        CREATE FUNCTION distributed_id_skipsupport(ssup internal) RETURNS void
            IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
            AS 'MODULE_PATHNAME', 'distributed_id_skipsupport_wrapper';
        ALTER OPERATOR FAMILY distributed_id_ops USING btree
            ADD FUNCTION 6 (distributed_id, distributed_id) distributed_id_skipsupport(internal);
    END IF;
END
$skip_support$;

ALTER FUNCTION sno_timestamp(sno) LEAKPROOF;
ALTER FUNCTION siq_timestamp(siq) LEAKPROOF;
ALTER FUNCTION flaxid_timestamp(flaxid) LEAKPROOF;
ALTER FUNCTION distributed_id_timestamp(distributed_id) LEAKPROOF;
ALTER FUNCTION distributed_id128_timestamp(uuid) LEAKPROOF;
