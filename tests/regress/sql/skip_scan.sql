-- PostgreSQL 18+ (scripts/test-sql.sh runs this test there only): btree
-- skip support (support function 6) for every native type, as uuid has,
-- so that a query on a later column skips through the values of a leading
-- pg_flake column (docs/sql-reference.md "What every native type has"). The leading
-- column holds few distinct values, the smallest and the greatest of the
-- type among them, so that the skip array steps to them and past them.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
-- pg_temp.skip_scan(type, values): a table (id T, a int) with each of the
-- given values 2000 times, an index on (id, a), and a query on a alone:
-- the plan skips (an index scan with several index searches) and finds
-- what a sequential scan finds.
CREATE FUNCTION pg_temp.skip_scan(t text, vals text[]) RETURNS TABLE (index_searches int, agrees boolean)
LANGUAGE plpgsql AS $$
DECLARE
    line text;
    by_index text;
    by_scan text;
BEGIN
    EXECUTE format('CREATE TABLE skip_vals AS SELECT v::%s AS id, g AS a
                    FROM unnest(%L::text[]) v, generate_series(1, 2000) g', t, vals);
    CREATE INDEX skip_vals_idx ON skip_vals (id, a);
    ANALYZE skip_vals;
    SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off;
    FOR line IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
        SELECT id, a FROM skip_vals WHERE a = 1999 LOOP
        IF line LIKE '%Index Searches:%' THEN
            index_searches := substring(line FROM 'Index Searches: (\d+)')::int;
        END IF;
    END LOOP;
    SELECT string_agg(id::text, ',' ORDER BY id::text) INTO by_index FROM skip_vals WHERE a = 1999;
    SET LOCAL enable_seqscan = on;
    SET LOCAL enable_indexscan = off;
    SET LOCAL enable_indexonlyscan = off;
    SELECT string_agg(id::text, ',' ORDER BY id::text) INTO by_scan FROM skip_vals WHERE a = 1999;
    agrees := by_index = by_scan;
    DROP TABLE skip_vals;
    RETURN NEXT;
END
$$;
SELECT 'sno' AS type, * FROM pg_temp.skip_scan('sno',
    ARRAY['2222222222222222', 'brpk4q72xwf2m63l', 'brpk4q72xwf2m63m', 'xxxxxxxxxxxxxxxw', 'xxxxxxxxxxxxxxxx']);
SELECT 'siq' AS type, * FROM pg_temp.skip_scan('siq',
    ARRAY[siq_from_hex('0')::text, 'crxckuyagku7racaaacmgzymuoabo', siq_from_hex('ffffffffffffffffffffffffffff')::text]);
SELECT 'flaxid' AS type, * FROM pg_temp.skip_scan('flaxid',
    ARRAY['----------------', '17cQYV3E6XowHpdd', 'zzzzzzzzzzzzzzzz']);
SELECT 'kuid96' AS type, * FROM pg_temp.skip_scan('kuid96',
    ARRAY['................', '.5.tXa0xODNvPN.0', 'zzzzzzzzzzzzzzzz']);
SELECT 'distributed_id' AS type, * FROM pg_temp.skip_scan('distributed_id',
    ARRAY['0', '1', '1088824355131185736905670087', '9999999999999999999999999998', '9999999999999999999999999999']);
-- Skip support is btree support function 6 of every type's operator family.
SELECT f.opfname, p.amproc::regprocedure
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE p.amprocnum = 6 AND f.opfname IN ('sno_ops', 'siq_ops', 'flaxid_ops', 'kuid96_ops', 'distributed_id_ops')
ORDER BY 1;
