-- Functions of test_pg_upgrade.py (pg_upgrade from PostgreSQL 15 to
-- 18), loaded into each of its sessions as temporary functions: the test's
-- own machinery stays out of the database that is upgraded.

-- pg_temp.digest(tbl, key): the table's rows, as text, in the order of
-- `key` (the primary key's btree order), as a count and an md5.
CREATE FUNCTION pg_temp.digest(tbl text, key text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    result text;
BEGIN
    EXECUTE format('SELECT count(*) || '' rows, md5 '' || md5(coalesce(string_agg(t::text, E''\n'' ORDER BY %s), ''''))
                    FROM %I t', key, tbl) INTO result;
    RETURN result;
END
$$;

-- pg_temp.index_lookups(tbl, typ): for probe values of `other` (every
-- 250th non-NULL value in the type's order), the rows found through each
-- index that is not a btree must be those a sequential scan finds:
-- equality through the hash index (on other) and the BRIN bloom index (on
-- other_bloom), the range between two neighbouring probes through the BRIN
-- minmax (on other) and minmax-multi (on other_multi) indexes. With
-- sequential scans off the plan must use that index. Returns the number of
-- lookups and a description of each that failed.
CREATE FUNCTION pg_temp.index_lookups(tbl text, typ text, OUT lookups int, OUT failures text[])
LANGUAGE plpgsql AS $$
DECLARE
    probes text[];
    low text;
    high text;
    lookup record;
    query text;
    line text;
    plan text;
    through_index bigint;
    sequential bigint;
BEGIN
    lookups := 0;
    failures := '{}';
    EXECUTE format('SELECT array_agg(other::text ORDER BY other)
                    FROM (SELECT other, row_number() OVER (ORDER BY other) AS r
                          FROM %I WHERE other IS NOT NULL) s
                    WHERE r %% 250 = 1', tbl) INTO probes;
    IF coalesce(array_length(probes, 1), 0) < 2 THEN
        failures := failures || format('%s: too few values to probe', tbl);
        RETURN;
    END IF;
    FOR i IN 1 .. array_length(probes, 1) - 1 LOOP
        low := format('%L::%s', probes[i], typ);
        high := format('%L::%s', probes[i + 1], typ);
        FOR lookup IN SELECT * FROM (VALUES
            ('hash', format('other = %s', low)),
            ('brin_minmax', format('other BETWEEN %s AND %s', low, high)),
            ('brin_multi', format('other_multi BETWEEN %s AND %s', low, high)),
            ('brin_bloom', format('other_bloom = %s', low))) AS l(index_kind, condition)
        LOOP
            query := format('SELECT count(*) FROM %I WHERE %s', tbl, lookup.condition);
            PERFORM set_config('enable_seqscan', 'off', true);
            plan := '';
            FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
                plan := plan || line || E'\n';
            END LOOP;
            EXECUTE query INTO through_index;
            PERFORM set_config('enable_seqscan', 'on', true);
            PERFORM set_config('enable_indexscan', 'off', true);
            PERFORM set_config('enable_bitmapscan', 'off', true);
            EXECUTE query INTO sequential;
            PERFORM set_config('enable_indexscan', 'on', true);
            PERFORM set_config('enable_bitmapscan', 'on', true);
            IF plan !~ format('\m%s_%s\M', tbl, lookup.index_kind) THEN
                failures := failures || format('%s: the plan of %s does not use %s_%s:%s%s',
                                               tbl, query, tbl, lookup.index_kind, E'\n', plan);
            ELSIF through_index <> sequential THEN
                failures := failures || format('%s: %s finds %s rows through %s_%s, %s sequentially',
                                               tbl, query, through_index, tbl, lookup.index_kind, sequential);
            END IF;
            lookups := lookups + 1;
        END LOOP;
    END LOOP;
END
$$;

-- pg_temp.skip_scan(tbl, a_value): the query on the second column of the
-- index (id, a) alone, as an index scan: how many index searches it made
-- (more than one: it skipped through the id values), how many rows it
-- found, and whether a sequential scan finds the same rows. Raises an error
-- if the plan does not use the index.
CREATE FUNCTION pg_temp.skip_scan(tbl text, a_value int,
                                  OUT index_searches int, OUT rows_found bigint, OUT agrees boolean)
LANGUAGE plpgsql AS $$
DECLARE
    query text := format('SELECT id, a FROM %I WHERE a = %s', tbl, a_value);
    summary text := 'SELECT count(*), string_agg(coalesce(id::text, ''NULL''), '','' ORDER BY id) FROM (%s) s';
    line text;
    plan text := '';
    by_index text;
    by_scan text;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || query LOOP
        plan := plan || line || E'\n';
        IF line LIKE '%Index Searches:%' THEN
            index_searches := substring(line FROM 'Index Searches: (\d+)')::int;
        END IF;
    END LOOP;
    IF plan !~ format('Index (Only )?Scan using %s_id_a\M', tbl) THEN
        RAISE EXCEPTION '%: the query on a does not scan the index (id, a):%', tbl, E'\n' || plan;
    END IF;
    EXECUTE format(summary, query) INTO rows_found, by_index;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    EXECUTE format(summary, query) INTO rows_found, by_scan;
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_indexonlyscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'on', true);
    agrees := by_index IS NOT DISTINCT FROM by_scan;
END
$$;

-- pg_temp.check_btrees(): every btree index of the test's tables passes
-- amcheck's bt_index_check with heapallindexed (an error otherwise), and
-- every table verify_heapam; returns the number of indexes checked.
CREATE FUNCTION pg_temp.check_btrees() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    invalid text;
    corrupt text;
    checked bigint;
BEGIN
    SELECT string_agg(c.relname, ', ') INTO invalid
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relname LIKE 'up\_%' AND NOT (i.indisvalid AND i.indisready);
    IF invalid IS NOT NULL THEN
        RAISE EXCEPTION 'invalid indexes: %', invalid;
    END IF;
    SELECT string_agg(format('%s block %s: %s', c.relname, v.blkno, v.msg), E'\n') INTO corrupt
    FROM pg_class c CROSS JOIN LATERAL verify_heapam(c.oid) v
    WHERE c.relkind = 'r' AND c.relname LIKE 'up\_%';
    IF corrupt IS NOT NULL THEN
        RAISE EXCEPTION 'verify_heapam: %', corrupt;
    END IF;
    SELECT count(bt_index_check(c.oid, heapallindexed => true)) INTO checked
    FROM pg_class c JOIN pg_am a ON a.oid = c.relam
    WHERE c.relkind = 'i' AND a.amname = 'btree' AND c.relname LIKE 'up\_%';
    RETURN checked;
END
$$;
