-- Range partitions by time on an ID column (docs/sql-reference.md
-- "Partitions by time", docs/operations.md "Partitioning by time"): a table
-- PARTITION BY RANGE (id) whose partitions' bounds are the IDs
-- <format>_from_time gives for their start and end, so that a partition
-- holds exactly the IDs of its time range, and WHERE id >= <format>_from_time(…)
-- prunes. pg_partman cannot manage the native types (its control column
-- must be a built-in integer, time, text or uuid type), so these make, list
-- and drop such partitions; a scheduler (pg_cron, cron with psql) calls
-- them for premake and retention.
--
-- Plain SQL and PL/pgSQL, no C symbol; included in the extension script by
-- src/generator_state.rs's sql_file!, and in the update from 0.4.0 by
-- sql/upgrades/pg_flake--0.4.0--0.5.0.sql (assembled from this file at
-- build time, so each body is written once). Written as the caller's
-- rights require (docs/guarantees.md "Privileges and trust"): SECURITY
-- INVOKER (the caller must own the table, as for CREATE TABLE … PARTITION
-- OF and DROP TABLE); search_path pg_catalog, pg_temp, so that no object of
-- another schema is reached by an unqualified name (pg_temp is never
-- searched for functions and operators, and comes after pg_catalog for
-- types); the extension's own objects by @extschema@; no dynamic SQL but
-- the DDL itself, whose only values are literals of the key's type; and
-- the key's type and operator class checked to be exactly the format's own
-- (a domain, another type or another operator class would run code its
-- owner wrote, with the caller's rights, when a bound is read or compared).

-- == The format's bounds, times and order ===================================
-- One CASE per question, over the eight formats, each branch a static call
-- of the format's own function: no function name is made from text.

-- <format>_from_time(t) as text: a partition bound.
CREATE FUNCTION @extschema@.pg_flake_partition_bound("format" text, "time" timestamptz)
RETURNS text
STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE sql AS $function$
SELECT CASE $1
    WHEN 'sno' THEN @extschema@.sno_from_time($2)::text
    WHEN 'siq' THEN @extschema@.siq_from_time($2)::text
    WHEN 'kuid96' THEN @extschema@.kuid96_from_time($2)::text
    WHEN 'flaxid' THEN @extschema@.flaxid_from_time($2)::text
    WHEN 'distributed_id' THEN @extschema@.distributed_id_from_time($2)::text
    WHEN 'distributed_id128' THEN @extschema@.distributed_id128_from_time($2)::text
    WHEN 'snowflake' THEN @extschema@.snowflake_from_time($2)::text
    WHEN 'kuid64' THEN @extschema@.kuid64_from_time($2)::text
END
$function$;

-- <format>_timestamp of a bound's text: the time the bound starts.
CREATE FUNCTION @extschema@.pg_flake_partition_time("format" text, bound text)
RETURNS timestamptz
STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE sql AS $function$
SELECT CASE $1
    WHEN 'sno' THEN @extschema@.sno_timestamp($2::@extschema@.sno)
    WHEN 'siq' THEN @extschema@.siq_timestamp($2::@extschema@.siq)
    WHEN 'kuid96' THEN @extschema@.kuid96_timestamp($2::@extschema@.kuid96)
    WHEN 'flaxid' THEN @extschema@.flaxid_timestamp($2::@extschema@.flaxid)
    WHEN 'distributed_id' THEN @extschema@.distributed_id_timestamp($2::@extschema@.distributed_id)
    WHEN 'distributed_id128' THEN @extschema@.distributed_id128_timestamp($2::uuid)
    WHEN 'snowflake' THEN @extschema@.snowflake_timestamp($2::bigint)
    WHEN 'kuid64' THEN @extschema@.kuid64_timestamp($2::bigint)
END
$function$;

-- A bound's bytes, in the order of the format's IDs: the native types
-- compare as their bytes (docs/sql-reference.md "What every native type has"), a positive
-- bigint and a uuid as their big-endian binary forms.
CREATE FUNCTION @extschema@.pg_flake_partition_sortkey("format" text, bound text)
RETURNS bytea
IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE sql AS $function$
SELECT CASE $1
    WHEN 'sno' THEN $2::@extschema@.sno::bytea
    WHEN 'siq' THEN $2::@extschema@.siq::bytea
    WHEN 'kuid96' THEN $2::@extschema@.kuid96::bytea
    WHEN 'flaxid' THEN $2::@extschema@.flaxid::bytea
    WHEN 'distributed_id' THEN $2::@extschema@.distributed_id::bytea
    WHEN 'distributed_id128' THEN uuid_send($2::uuid)
    WHEN 'snowflake' THEN int8send($2::bigint)
    WHEN 'kuid64' THEN int8send($2::bigint)
END
$function$;

-- == pg_flake_partitions ====================================================
-- The partitions of "parent" with finite bounds, as the format reads them:
-- each with its bounds (as text) and their times. Checks first that
-- "parent" is PARTITION BY RANGE on one column of exactly the format's type
-- (sno, siq, kuid96, flaxid, distributed_id; bigint for snowflake and
-- kuid64; uuid for distributed_id128) with that type's default btree
-- operator class, else 42804 (42809 for a table not so partitioned). Two
-- formats share bigint, so it also refuses (42804) where the table says it
-- holds another format's IDs: its key's default calls another format's
-- generator, or a partition named as pg_flake_create_partitions names them
-- (<parent>_p<YYYYMMDD>[_<HH24MISS>], its start in UTC) has a lower bound
-- that the format does not read as a time of that day (or second): a
-- kuid64 bound read as a Snowflake is a time in 2015, and the other way
-- round in the year 4800 (docs/sql-reference.md "Partitions by time").
CREATE FUNCTION @extschema@.pg_flake_partitions(parent regclass, "format" text)
RETURNS TABLE (partition regclass, partition_from timestamptz, partition_to timestamptz,
               lower_bound text, upper_bound text)
STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE plpgsql AS $function$
#variable_conflict use_variable
DECLARE
    fmt text := lower($2);
    key_type oid;
    key_class oid;
    key_column int2;
    expected_type regtype;
    other_generators text;
    part_name name;
    bound_spec text;
    matched text[];
    named text[];
    named_start timestamptz;
    named_span interval;
BEGIN
    IF fmt IS NULL OR fmt NOT IN ('sno', 'siq', 'kuid96', 'flaxid', 'distributed_id',
                                  'distributed_id128', 'snowflake', 'kuid64') THEN
        RAISE EXCEPTION 'cannot partition by time for format %', coalesce($2, 'NULL') USING ERRCODE = '22023',
            HINT = 'Give one of sno, siq, kuid96, flaxid, distributed_id, distributed_id128, snowflake, kuid64.';
    END IF;
    IF parent IS NULL THEN
        RAISE EXCEPTION 'parent must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT a.atttypid, p.partclass[0], a.attnum INTO key_type, key_class, key_column
    FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = parent AND p.partstrat = 'r' AND p.partnatts = 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION '% is not partitioned by range on one column', parent USING ERRCODE = '42809',
            HINT = 'CREATE TABLE … PARTITION BY RANGE (id).';
    END IF;
    expected_type := CASE fmt
        WHEN 'sno' THEN pg_typeof(NULL::@extschema@.sno)
        WHEN 'siq' THEN pg_typeof(NULL::@extschema@.siq)
        WHEN 'kuid96' THEN pg_typeof(NULL::@extschema@.kuid96)
        WHEN 'flaxid' THEN pg_typeof(NULL::@extschema@.flaxid)
        WHEN 'distributed_id' THEN pg_typeof(NULL::@extschema@.distributed_id)
        WHEN 'distributed_id128' THEN 'uuid'::regtype
        ELSE 'bigint'::regtype END;
    IF key_type <> expected_type THEN
        RAISE EXCEPTION '% is partitioned on a column of type %, not % (%)', parent,
            format_type(key_type, NULL), expected_type, fmt USING ERRCODE = '42804',
            HINT = 'The key must be of exactly the format''s type: not a domain over it, nor another type.';
    END IF;
    IF key_class IS DISTINCT FROM (SELECT c.oid FROM pg_opclass c JOIN pg_am m ON m.oid = c.opcmethod
                                   WHERE m.amname = 'btree' AND c.opcintype = expected_type
                                     AND c.opcdefault) THEN
        RAISE EXCEPTION '% is partitioned with the operator class %, not the default one of %', parent,
            (SELECT c.opcname FROM pg_opclass c WHERE c.oid = key_class), expected_type USING ERRCODE = '42804';
    END IF;
    SELECT string_agg(DISTINCT p.proname, ', ') INTO other_generators
    FROM pg_attrdef d
    JOIN pg_depend dep ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = d.oid
                      AND dep.refclassid = 'pg_proc'::regclass
    JOIN pg_proc p ON p.oid = dep.refobjid
    JOIN pg_depend member ON member.classid = 'pg_proc'::regclass AND member.objid = p.oid
                         AND member.refclassid = 'pg_extension'::regclass AND member.deptype = 'e'
    JOIN pg_extension e ON e.oid = member.refobjid AND e.extname = 'pg_flake'
    WHERE d.adrelid = parent AND d.adnum = key_column
      AND p.proname LIKE '%\_generate' AND p.proname <> fmt || '_generate';
    IF other_generators IS NOT NULL THEN
        RAISE EXCEPTION '% holds IDs of another format: its key''s default calls %, not %_generate',
            parent, other_generators, fmt USING ERRCODE = '42804';
    END IF;
    FOR partition, part_name, bound_spec IN
        SELECT c.oid::regclass, c.relname, pg_get_expr(c.relpartbound, c.oid)
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent
        ORDER BY c.oid
    LOOP
        -- pg_get_expr writes each finite bound as a literal of the key type.
        matched := regexp_match(bound_spec, '^FOR VALUES FROM \((.*)\) TO \((.*)\)$');
        CONTINUE WHEN matched IS NULL OR 'MINVALUE' = ANY (matched) OR 'MAXVALUE' = ANY (matched);
        lower_bound := CASE WHEN matched[1] ~ '^''.*''$'
                            THEN replace(substr(matched[1], 2, length(matched[1]) - 2), '''''', '''')
                            ELSE matched[1] END;
        upper_bound := CASE WHEN matched[2] ~ '^''.*''$'
                            THEN replace(substr(matched[2], 2, length(matched[2]) - 2), '''''', '''')
                            ELSE matched[2] END;
        partition_from := @extschema@.pg_flake_partition_time(fmt, lower_bound);
        partition_to := @extschema@.pg_flake_partition_time(fmt, upper_bound);
        named := regexp_match(part_name, '_p([0-9]{4})([0-9]{2})([0-9]{2})(?:_([0-9]{2})([0-9]{2})([0-9]{2}))?$');
        IF named IS NOT NULL THEN
            BEGIN
                named_start := make_timestamptz(named[1]::int, named[2]::int, named[3]::int,
                                                coalesce(named[4], '0')::int, coalesce(named[5], '0')::int,
                                                coalesce(named[6], '0')::double precision, 'UTC');
            EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format THEN
                named_start := NULL;
            END;
            named_span := CASE WHEN named[4] IS NULL THEN interval '1 day' ELSE interval '1 second' END;
            IF named_start IS NOT NULL
               AND NOT (partition_from >= named_start - interval '1 second'
                        AND partition_from < named_start + named_span) THEN
                RAISE EXCEPTION 'the lower bound of % reads as the % time %, but its name says %', partition,
                    fmt, partition_from, named_start USING ERRCODE = '42804',
                    HINT = 'Its IDs are not ' || fmt || ' IDs: name the format the table holds.';
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$function$;

-- == pg_flake_create_partitions =============================================
-- Partitions of "parent" (as pg_flake_partitions checks it) for
-- [from_time + i * step, from_time + (i + 1) * step), i = 0, 1, … while the
-- start is before to_time, each bounded by <format>_from_time of its start
-- and end (the one-argument forms: snowflake's and kuid96's read
-- pg_flake.snowflake_epoch and pg_flake.kuid_interval). Starts are added in
-- UTC whatever the session's TimeZone (a day is 24 hours, a month a
-- calendar month of UTC). Named <parent>_p<YYYYMMDD> (start in UTC) where
-- every start is a UTC midnight, else <parent>_p<YYYYMMDD>_<HH24MISS>, in
-- the parent's schema. A partition with exactly those bounds already there
-- (of any name) is kept; one that overlaps otherwise is an error (42P17,
-- CREATE TABLE's). Returns the partitions made. The caller must own the
-- table (42501).
CREATE FUNCTION @extschema@.pg_flake_create_partitions(parent regclass, "format" text, from_time timestamptz,
    to_time timestamptz, step interval)
RETURNS TABLE (partition regclass, partition_from timestamptz, partition_to timestamptz)
VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE plpgsql AS $function$
#variable_conflict use_variable
DECLARE
    fmt text := lower($2);
    parent_schema name;
    parent_name name;
    first_start timestamp;
    daily boolean;
    starts timestamptz;
    ends timestamptz;
    lower_bound text;
    upper_bound text;
    existing text[];
    suffix text;
    part_name text;
    i integer := 0;
BEGIN
    IF from_time IS NULL OR to_time IS NULL OR step IS NULL OR parent IS NULL THEN
        RAISE EXCEPTION 'parent, from_time, to_time and step must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF step < interval '1 second' THEN
        RAISE EXCEPTION 'partition step % is shorter than 1 second', step USING ERRCODE = '22023';
    END IF;
    SELECT n.nspname, c.relname INTO parent_schema, parent_name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
    IF NOT pg_has_role((SELECT c.relowner FROM pg_class c WHERE c.oid = parent), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    -- One maintenance at a time per table (the lock conflicts with itself,
    -- not with reads and writes).
    EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    SELECT array_agg(p.lower_bound || ' ' || p.upper_bound) INTO existing
    FROM @extschema@.pg_flake_partitions(parent, fmt) p;
    first_start := from_time AT TIME ZONE 'UTC';
    daily := date_trunc('day', step) = step AND first_start = date_trunc('day', first_start);
    WHILE (first_start + step * i) AT TIME ZONE 'UTC' < to_time LOOP
        i := i + 1;
        IF i > 10000 THEN
            RAISE EXCEPTION 'more than 10000 partitions from % to % by %', from_time, to_time, step
                USING ERRCODE = '54000';
        END IF;
    END LOOP;
    i := 0;
    WHILE (first_start + step * i) AT TIME ZONE 'UTC' < to_time LOOP
        starts := (first_start + step * i) AT TIME ZONE 'UTC';
        ends := (first_start + step * (i + 1)) AT TIME ZONE 'UTC';
        lower_bound := @extschema@.pg_flake_partition_bound(fmt, starts);
        upper_bound := @extschema@.pg_flake_partition_bound(fmt, ends);
        IF NOT coalesce(lower_bound || ' ' || upper_bound = ANY (existing), false) THEN
            suffix := '_p' || to_char(first_start + step * i,
                                      CASE WHEN daily THEN 'YYYYMMDD' ELSE 'YYYYMMDD"_"HH24MISS' END);
            part_name := left(parent_name, 63 - length(suffix)) || suffix;
            EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%L)',
                           parent_schema, part_name, parent, lower_bound, upper_bound);
            partition := format('%I.%I', parent_schema, part_name)::regclass;
            partition_from := starts;
            partition_to := ends;
            RETURN NEXT;
        END IF;
        i := i + 1;
    END LOOP;
END
$function$;

-- == pg_flake_drop_partitions ===============================================
-- Drops the partitions of "parent" (as pg_flake_partitions reads them)
-- whose every ID is older than before_time: those whose upper bound is at
-- or below <format>_from_time(before_time). Returns them (named as in the
-- parent's schema), with the times of their bounds. DEFAULT and MAXVALUE
-- partitions are never dropped. The caller must own the table (42501).
CREATE FUNCTION @extschema@.pg_flake_drop_partitions(parent regclass, "format" text, before_time timestamptz)
RETURNS TABLE (partition text, partition_from timestamptz, partition_to timestamptz)
VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE plpgsql AS $function$
#variable_conflict use_variable
DECLARE
    fmt text := lower($2);
    cutoff bytea;
    part record;
BEGIN
    IF before_time IS NULL OR parent IS NULL THEN
        RAISE EXCEPTION 'parent and before_time must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF NOT pg_has_role((SELECT c.relowner FROM pg_class c WHERE c.oid = parent), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', parent USING ERRCODE = '42501';
    END IF;
    EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    FOR part IN SELECT * FROM @extschema@.pg_flake_partitions(parent, fmt) LOOP
        IF cutoff IS NULL THEN
            cutoff := @extschema@.pg_flake_partition_sortkey(fmt, @extschema@.pg_flake_partition_bound(fmt, before_time));
        END IF;
        CONTINUE WHEN @extschema@.pg_flake_partition_sortkey(fmt, part.upper_bound) > cutoff;
        -- Its name as the caller sees it: qualified only outside the parent's schema.
        SELECT CASE WHEN c.relnamespace = (SELECT p.relnamespace FROM pg_class p WHERE p.oid = parent)
                    THEN quote_ident(c.relname) ELSE part.partition::text END
        INTO partition FROM pg_class c WHERE c.oid = part.partition;
        partition_from := part.partition_from;
        partition_to := part.partition_to;
        EXECUTE format('DROP TABLE %s', part.partition);
        RETURN NEXT;
    END LOOP;
END
$function$;
