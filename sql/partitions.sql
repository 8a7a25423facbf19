-- Range partitions by time on an ID column (docs/sql-reference.md
-- "Partitions by time", docs/operations.md "Partitioning"; issue 40): a
-- table PARTITION BY RANGE (id) whose partitions' bounds are the IDs
-- <format>_from_time gives for their start and end, so that a partition
-- holds exactly the IDs of its time range, and WHERE id >= <format>_from_time(…)
-- prunes. pg_partman cannot manage the native types (its control column
-- must be a built-in integer, time, text or uuid type), so these two make
-- and drop such partitions; a scheduler (pg_cron, cron with psql) calls
-- them for premake and retention.
--
-- Plain SQL, no C symbol; included in the extension script by src/state.rs's
-- sql_file!, and repeated as it is here by sql/pg_flake--0.3.0--0.4.0.sql.
-- SECURITY INVOKER (the caller must own the table, as for CREATE TABLE …
-- PARTITION OF and DROP TABLE), with a fixed search_path (pg_catalog first,
-- then the extension's schema, for the operators of its types): the format's
-- functions are called by their schema, the tables named qualified where
-- needed.

-- == pg_flake_create_partitions =============================================
-- Partitions of "parent" (PARTITION BY RANGE on one column of the format's
-- type: sno, siq, kuid96, flaxid, distributed_id; bigint for snowflake and
-- kuid64; uuid for distributed_id128) for [from_time + i * step,
-- from_time + (i + 1) * step), i = 0, 1, … while the start is before
-- to_time, each bounded by <format>_from_time of its start and end (the
-- one-argument forms: snowflake's and kuid96's read pg_flake.snowflake_epoch
-- and pg_flake.kuid_interval). Named <parent>_p<YYYYMMDD> (start in UTC)
-- where every start is a UTC midnight, else <parent>_p<YYYYMMDD>_<HH24MISS>,
-- in the parent's schema. A partition with exactly those bounds already
-- there (of any name) is kept; one that overlaps otherwise is an error
-- (42P17, CREATE TABLE's). Returns the partitions made.
CREATE FUNCTION pg_flake_create_partitions(parent regclass, "format" text, from_time timestamptz,
    to_time timestamptz, step interval)
RETURNS TABLE (partition regclass, partition_from timestamptz, partition_to timestamptz)
VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
LANGUAGE plpgsql AS $function$
#variable_conflict use_variable
DECLARE
    fmt text := lower($2);
    key_type text;
    expected_type text;
    parent_schema name;
    parent_name name;
    daily boolean;
    starts timestamptz;
    ends timestamptz;
    lower_bound text;
    upper_bound text;
    existing_lower text[] := '{}';
    existing_upper text[] := '{}';
    part regclass;
    matched text[];
    suffix text;
    part_name text;
    i integer := 0;
    made regclass;
BEGIN
    IF fmt IS NULL OR fmt NOT IN ('sno', 'siq', 'kuid96', 'flaxid', 'distributed_id',
                                  'distributed_id128', 'snowflake', 'kuid64') THEN
        RAISE EXCEPTION 'cannot partition by time for format %', coalesce($2, 'NULL') USING ERRCODE = '22023',
            HINT = 'Give one of sno, siq, kuid96, flaxid, distributed_id, distributed_id128, snowflake, kuid64.';
    END IF;
    IF from_time IS NULL OR to_time IS NULL OR step IS NULL OR parent IS NULL THEN
        RAISE EXCEPTION 'parent, from_time, to_time and step must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF step < interval '1 second' THEN
        RAISE EXCEPTION 'partition step % is shorter than 1 second', step USING ERRCODE = '22023';
    END IF;
    SELECT format_type(a.atttypid, NULL) INTO key_type
    FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = parent AND p.partstrat = 'r' AND p.partnatts = 1;
    IF key_type IS NULL THEN
        RAISE EXCEPTION '% is not partitioned by range on one column', parent USING ERRCODE = '42809',
            HINT = 'CREATE TABLE … PARTITION BY RANGE (id).';
    END IF;
    expected_type := CASE fmt
        WHEN 'snowflake' THEN 'bigint' WHEN 'kuid64' THEN 'bigint'
        WHEN 'distributed_id128' THEN 'uuid'
        ELSE format_type(to_regtype('@extschema@.' || fmt), NULL) END;
    IF key_type <> expected_type THEN
        RAISE EXCEPTION '% is partitioned on a column of type %, not % (%)', parent, key_type,
            expected_type, fmt USING ERRCODE = '42804';
    END IF;
    SELECT n.nspname, c.relname INTO parent_schema, parent_name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
    -- One maintenance at a time per table (the lock conflicts with itself,
    -- not with reads and writes).
    EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    FOR part, matched IN
        SELECT c.oid::regclass,
               regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \((.*)\) TO \((.*)\)$')
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent
    LOOP
        -- pg_get_expr writes each finite bound as a literal of the key type.
        CONTINUE WHEN matched IS NULL OR 'MINVALUE' = ANY (matched) OR 'MAXVALUE' = ANY (matched);
        EXECUTE format('SELECT (%1$s)::%3$s::text, (%2$s)::%3$s::text', matched[1], matched[2], key_type)
            INTO lower_bound, upper_bound;
        existing_lower := existing_lower || lower_bound;
        existing_upper := existing_upper || upper_bound;
    END LOOP;
    daily := date_trunc('day', step) = step
        AND from_time = date_trunc('day', from_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    WHILE from_time + step * i < to_time LOOP
        i := i + 1;
        IF i > 10000 THEN
            RAISE EXCEPTION 'more than 10000 partitions from % to % by %', from_time, to_time, step
                USING ERRCODE = '54000';
        END IF;
    END LOOP;
    i := 0;
    WHILE from_time + step * i < to_time LOOP
        starts := from_time + step * i;
        ends := from_time + step * (i + 1);
        EXECUTE format('SELECT @extschema@.%1$I(%2$L::timestamptz)::text, @extschema@.%1$I(%3$L::timestamptz)::text',
                       fmt || '_from_time', starts, ends)
            INTO lower_bound, upper_bound;
        IF NOT EXISTS (SELECT FROM unnest(existing_lower, existing_upper) e(l, u)
                       WHERE e.l = lower_bound AND e.u = upper_bound) THEN
            suffix := '_p' || to_char(starts AT TIME ZONE 'UTC',
                                      CASE WHEN daily THEN 'YYYYMMDD' ELSE 'YYYYMMDD"_"HH24MISS' END);
            part_name := left(parent_name, 63 - length(suffix)) || suffix;
            EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%L)',
                           parent_schema, part_name, parent, lower_bound, upper_bound);
            made := format('%I.%I', parent_schema, part_name)::regclass;
            partition := made;
            partition_from := starts;
            partition_to := ends;
            RETURN NEXT;
        END IF;
        i := i + 1;
    END LOOP;
END
$function$;

-- == pg_flake_drop_partitions ===============================================
-- Drops the partitions of "parent" (as pg_flake_create_partitions makes
-- them) whose every ID is older than before_time: those whose upper bound is
-- at or below <format>_from_time(before_time). Returns them (named as in the
-- parent's schema), with the times of their bounds. DEFAULT and MAXVALUE
-- partitions are never dropped.
CREATE FUNCTION pg_flake_drop_partitions(parent regclass, "format" text, before_time timestamptz)
RETURNS TABLE (partition text, partition_from timestamptz, partition_to timestamptz)
VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
LANGUAGE plpgsql AS $function$
#variable_conflict use_variable
DECLARE
    fmt text := lower($2);
    key_type text;
    cutoff text;
    part regclass;
    matched text[];
    lower_bound text;
    upper_bound text;
    expired boolean;
BEGIN
    IF fmt IS NULL OR fmt NOT IN ('sno', 'siq', 'kuid96', 'flaxid', 'distributed_id',
                                  'distributed_id128', 'snowflake', 'kuid64') THEN
        RAISE EXCEPTION 'cannot partition by time for format %', coalesce($2, 'NULL') USING ERRCODE = '22023',
            HINT = 'Give one of sno, siq, kuid96, flaxid, distributed_id, distributed_id128, snowflake, kuid64.';
    END IF;
    IF before_time IS NULL OR parent IS NULL THEN
        RAISE EXCEPTION 'parent and before_time must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT format_type(a.atttypid, NULL) INTO key_type
    FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = parent AND p.partstrat = 'r' AND p.partnatts = 1;
    IF key_type IS NULL THEN
        RAISE EXCEPTION '% is not partitioned by range on one column', parent USING ERRCODE = '42809',
            HINT = 'CREATE TABLE … PARTITION BY RANGE (id).';
    END IF;
    EXECUTE format('SELECT @extschema@.%I(%L::timestamptz)::text', fmt || '_from_time', before_time)
        INTO cutoff;
    EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    FOR part, matched IN
        SELECT c.oid::regclass,
               regexp_match(pg_get_expr(c.relpartbound, c.oid), '^FOR VALUES FROM \((.*)\) TO \((.*)\)$')
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent
    LOOP
        -- pg_get_expr writes each finite bound as a literal of the key type.
        CONTINUE WHEN matched IS NULL OR 'MINVALUE' = ANY (matched) OR 'MAXVALUE' = ANY (matched);
        EXECUTE format('SELECT (%1$s)::%3$s::text, (%2$s)::%3$s::text', matched[1], matched[2], key_type)
            INTO lower_bound, upper_bound;
        EXECUTE format('SELECT %1$L::%2$s <= %3$L::%2$s', upper_bound, key_type, cutoff) INTO expired;
        CONTINUE WHEN NOT expired;
        EXECUTE format('SELECT @extschema@.%1$I(%2$L::%4$s), @extschema@.%1$I(%3$L::%4$s)',
                       fmt || '_timestamp', lower_bound, upper_bound, key_type)
            INTO partition_from, partition_to;
        -- Its name as the caller sees it: qualified only outside the parent's schema.
        SELECT CASE WHEN c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = parent)
                    THEN quote_ident(c.relname) ELSE part::text END
        INTO partition FROM pg_class c WHERE c.oid = part;
        EXECUTE format('DROP TABLE %s', part);
        RETURN NEXT;
    END LOOP;
END
$function$;
