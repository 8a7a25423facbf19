-- What the counters and the node settings are doing (docs/sql-reference.md
-- "Generator state", "Node identity"), and the mark an operator sets: the
-- native extension's functions of sql/state.sql, on this edition's
-- counters (generation.sql).

-- The counters of the coordination-based formats: format, kind (SIQ's),
-- counter, k, the largest sequence value.
CREATE FUNCTION @extschema@._flake_counters(OUT format text, OUT kind text, OUT counter regclass,
    OUT k integer, OUT max_seq bigint)
    RETURNS SETOF record
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT f, k, format('@extschema@.%I', 'pg_flake_counter_' || coalesce('siq_' || k, f))::regclass,
           CASE WHEN f = 'siq' THEN 16 ELSE 19 END, m
    FROM (VALUES ('sno', NULL, 65535), ('siq', 'user', 2047), ('siq', 'application', 2047),
                 ('siq', 'event', 2047), ('siq', 'premium', 2047), ('siq', 'group', 2047),
                 ('siq', 'collection', 2047), ('siq', 'invite', 2047), ('siq', 'tag', 2047),
                 ('siq', 'channel', 2047), ('siq', 'thread', 4095), ('siq', 'message', 4095),
                 ('siq', 'ternary', 8191), ('siq', 'manytomany', 8191), ('siq', 'multi', 8191),
                 ('siq', 'content', 8191), ('kuid64', NULL, 16383), ('kuid96', NULL, 16383),
                 ('snowflake', NULL, 4095)) v(f, k, m)
$$;

-- One row per counter (a SIQ kind shows once it has issued an ID), with
-- the columns of the native function: mode 'sequence', the counter's last
-- unit and sequence value, its unit as the mark (the counter is what a
-- restarted server goes on above), and how far it runs ahead of the clock.
-- issued, slot rule and tick-tock have no counterpart here (NULL).
CREATE FUNCTION @extschema@.pg_flake_generator_state()
    RETURNS TABLE (format text, kind text, mode text, slot integer, nslots integer, process integer,
        range_first integer, range_last integer, last_unit bigint, last_sequence integer,
        tick_tock boolean, safe_unit bigint, issued bigint, mark_unit bigint, mark_time timestamptz,
        clock_lead interval)
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    c record;
    v bigint;
    used boolean;
    unit bigint;
    start_us bigint;
    now_us bigint := (date_part('epoch', clock_timestamp()) * 1000000)::bigint;
BEGIN
    FOR c IN SELECT * FROM @extschema@._flake_counters() LOOP
        EXECUTE format('SELECT last_value, is_called FROM %s', c.counter) INTO v, used;
        CONTINUE WHEN c.format = 'siq' AND NOT used;
        format := c.format;
        kind := c.kind;
        mode := 'sequence';
        slot := 0;
        nslots := 1;
        process := 0;
        range_first := 0;
        range_last := c.max_seq;
        unit := v >> c.k;
        -- SIQ's: the first tick of the counter's block of 64 (generation.sql).
        last_unit := CASE WHEN c.format = 'siq' THEN (unit << 6) + 111678878515200 ELSE unit END;
        -- (SIQ's values carry the flag of a logical block, 2^15: generation.sql.)
        last_sequence := CASE WHEN used AND (v & ((1::bigint << (c.k - (c.format = 'siq')::integer)) - 1)) <= c.max_seq
                              THEN v & ((1::bigint << (c.k - (c.format = 'siq')::integer)) - 1) END;
        tick_tock := CASE WHEN c.format = 'sno' THEN false END;
        safe_unit := NULL;
        issued := NULL;
        mark_unit := last_unit;
        start_us := @extschema@._flake_unit_start(c.format, unit);
        mark_time := CASE WHEN used THEN @extschema@._flake_ts(start_us) END;
        clock_lead := CASE WHEN used THEN greatest(start_us - now_us, 0) * interval '1 microsecond'
                           ELSE interval '0' END;
        RETURN NEXT;
    END LOOP;
END
$$;

-- One row per coordination-based format: the node this session generates
-- it with, where that comes from, and what stops generation, if anything.
CREATE FUNCTION @extschema@.pg_flake_node()
    RETURNS TABLE (format text, node bigint, source text, problem text)
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    f text;
    identity record;
BEGIN
    FOREACH f IN ARRAY ARRAY['sno', 'siq', 'kuid64', 'kuid96', 'snowflake'] LOOP
        format := f;
        problem := NULL;
        IF f = 'kuid64' THEN
            node := NULL;
            source := 'none';
        ELSE
            BEGIN
                identity := @extschema@._flake_node_source(f);
                node := identity.node;
                source := identity.source;
                PERFORM @extschema@._flake_node(f);
                IF f = 'siq' THEN
                    PERFORM @extschema@._siq_domain_bits();
                END IF;
            EXCEPTION WHEN OTHERS THEN
                problem := SQLERRM;
            END;
        END IF;
        IF problem IS NULL AND pg_is_in_recovery() THEN
            problem := format('cannot generate %s IDs on a server in recovery: pg_flake_sql keeps its counters in sequences, which only a primary advances', f);
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

-- Sets a format's counter to the unit that holds `mark` (the unit of the
-- microsecond's last nanosecond, so that the time of the highest stored
-- ID marks that ID's unit), up or down: the next IDs are above it. The
-- deliberate step of docs/guarantees.md "Restarts, crashes and the clock"
-- (a clock set far ahead, a restore from an older backup); logged as a
-- WARNING. Its owner's alone: EXECUTE is revoked from PUBLIC, and only the
-- counters' owner may set them.
CREATE FUNCTION @extschema@.pg_flake_set_mark(format text, mark timestamptz) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := @extschema@._flake_unix_us(mark, 'timestamptz', 'finite times');
    c record;
    unit bigint;
    old bigint;
    found_format boolean := false;
BEGIN
    FOR c IN SELECT * FROM @extschema@._flake_counters() f WHERE f.format = $1 LOOP
        found_format := true;
        IF c.format = 'siq' THEN
            -- The block of the tick of the microsecond's last nanosecond.
            unit := ((us / 1000000) * 65536 + ((us % 1000000) * 1000 + 999) * 65536 / 1000000000
                     - 111678878515200) >> 6;
            unit := greatest(unit, 0);  -- the counters begin at 2024-01-01
        ELSE
            unit := @extschema@._flake_unit_at(c.format, us);
        END IF;
        PERFORM pg_advisory_lock((1885824627::bigint << 32) | c.counter::oid::bigint);
        BEGIN
            EXECUTE format('SELECT last_value FROM %s', c.counter) INTO old;
            -- The unit's sequence values all used: the next value is the
            -- next unit's first.
            PERFORM setval(c.counter, (unit << c.k) | ((1::bigint << c.k) - 1), true);
            PERFORM pg_advisory_unlock((1885824627::bigint << 32) | c.counter::oid::bigint);
        EXCEPTION WHEN OTHERS OR query_canceled THEN
            PERFORM pg_advisory_unlock((1885824627::bigint << 32) | c.counter::oid::bigint);
            RAISE;
        END;
    END LOOP;
    IF NOT found_format THEN
        RAISE EXCEPTION 'pg_flake_set_mark: "%" is not a coordination-based format; accepted: sno, siq, kuid64, kuid96, snowflake', $1
            USING ERRCODE = '22023';
    END IF;
    RAISE WARNING 'pg_flake: the % mark was set to unit % (%) by %, deliberately; it was unit %',
        $1, CASE WHEN $1 = 'siq' THEN (unit << 6) + 111678878515200 ELSE unit END,
        @extschema@._flake_ts(@extschema@._flake_unit_start($1, unit)), current_user,
        CASE WHEN $1 = 'siq' THEN ((old >> 16) << 6) + 111678878515200 ELSE old >> 19 END
        USING DETAIL = format('%s IDs above the new mark that were issued before it may be issued again if it lies below them.', $1);
    RETURN @extschema@._flake_ts(@extschema@._flake_unit_start($1, unit));
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_set_mark(text, timestamptz) FROM PUBLIC;
