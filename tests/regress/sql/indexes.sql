-- The BRIN operator classes every native type has besides its default
-- minmax one, as uuid has them (docs/sql-reference.md "What every native type has"):
-- minmax-multi, for values that are not stored in order, and bloom, for
-- equality. Each index must find exactly what a sequential scan finds; the
-- time decoders are LEAKPROOF, as uuid_extract_timestamp.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SELECT setseed(0.5);
-- Values in random order (minmax-multi's case), 16 pages or so each.
CREATE TABLE brin_vals AS
SELECT g,
       substr(b, 1, 10)::sno AS sno,
       substr(b, 1, 14)::siq AS siq,
       substr(b, 1, 12)::flaxid AS flaxid,
       substr(b, 1, 12)::kuid96 AS kuid96,
       set_byte(substr(b, 1, 12), 0, get_byte(b, 0) & 31)::distributed_id AS distributed_id
FROM (SELECT g, decode(md5(random()::text), 'hex') AS b FROM generate_series(1, 5000) g) s;

-- pg_temp.brin_agrees(type): for both operator classes, an index of the
-- column answers 20 queries (minmax-multi: ranges; bloom: equality) exactly
-- as a sequential scan does, and the planner uses it for them.
CREATE FUNCTION pg_temp.brin_agrees(t text) RETURNS TABLE (opclass text, used boolean, agrees boolean)
LANGUAGE plpgsql AS $$
DECLARE
    probe record;
    query text;
    plan text;
    by_index text;
    by_scan text;
BEGIN
    FOREACH opclass IN ARRAY ARRAY[t || '_minmax_multi_ops', t || '_bloom_ops'] LOOP
        EXECUTE format('CREATE INDEX brin_vals_idx ON brin_vals USING brin (%I %I) WITH (pages_per_range = 1)', t, opclass);
        used := true;
        agrees := true;
        FOR probe IN EXECUTE format('SELECT %I::text AS v FROM brin_vals WHERE g %% 250 = 0', t) LOOP
            query := format('SELECT string_agg(g::text, '','' ORDER BY g) FROM brin_vals WHERE %I %s %L::%s',
                            t, CASE WHEN opclass LIKE '%minmax_multi%' THEN '>=' ELSE '=' END, probe.v, t);
            SET LOCAL enable_seqscan = off;
            FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
                used := used AND plan NOT LIKE '%Seq Scan%';
            END LOOP;
            EXECUTE query INTO by_index;
            SET LOCAL enable_seqscan = on;
            SET LOCAL enable_bitmapscan = off;
            EXECUTE query INTO by_scan;
            SET LOCAL enable_bitmapscan = on;
            agrees := agrees AND by_index IS NOT DISTINCT FROM by_scan;
        END LOOP;
        EXECUTE 'DROP INDEX brin_vals_idx';
        RETURN NEXT;
    END LOOP;
END
$$;
SELECT t AS type, b.* FROM unnest(ARRAY['sno', 'siq', 'flaxid', 'kuid96', 'distributed_id']) t,
    LATERAL pg_temp.brin_agrees(t) b;
DROP TABLE brin_vals;

-- The time decoders cannot fail: LEAKPROOF, like uuid_extract_timestamp.
SELECT p.oid::regprocedure AS function, p.proleakproof
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pg_flake'
WHERE p.proname LIKE '%\_timestamp' ORDER BY p.oid::regprocedure::text;
