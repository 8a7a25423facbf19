-- Generation without shared memory (docs/managed.md "Generation without shared memory"): each
-- coordination-based format's state is a sequence, a counter whose value is
-- unit * 2^k + sequence. nextval hands out (unit, sequence) pairs without
-- any lock; a pair is used when its unit is the clock's and its sequence
-- fits the format's field. Otherwise the counter is advanced, under an
-- advisory lock that only advancing takes, with setval: to the clock's unit
-- when the clock has passed the counter's, or to the next unit (logical
-- time, at most pg_flake.max_clock_lag ahead of the clock) when the unit's
-- sequence values are used up while the clock is behind it; with the clock
-- inside a used-up unit, to the next unit once the clock reaches it.
--
-- Why a setval cannot hand out a pair twice: between an advancer's own
-- nextval (under the lock) and its setval, other sessions' nextvals only
-- reach a few values more: a session whose pair is unusable goes to the
-- lock (one nextval each), and usable pairs end at the format's sequence
-- field (2^16 for sno). Values above the field up to 2^k - 1 are never
-- used, so as long as 2^k exceeds twice that field plus the number of
-- sessions, the values other sessions reached stay below the next unit,
-- and the advancer's target is never below the next unit. k is 19 for sno,
-- snowflake, kuid64 and kuid96 (room for 196 608 sessions) and 16 for SIQ
-- (room for 16 384 sessions below the flag of a logical block, 2^15, and as many above it).
--
-- SIQ's unit is a block of 64 ticks (2^-10 s, 976.5625 µs) counted from
-- 2024-01-01, not SIQ's 15 µs tick, shorter than one PL/pgSQL call (a
-- counter per tick would advance on nearly every ID): the serials are
-- unique within a block, and each ID carries the tick of the clock's
-- reading, inside the block, or a later one where the session's previous
-- ID of that kind had a later tick in the same block (the clock set back,
-- logical time), so that each session's IDs increase (siq_generate). A
-- block the counter enters in logical time (ahead of the clock) carries a
-- flag, 2^15 in its sequence values: all its IDs take its last tick, above
-- every ID of the blocks before it, also once the clock reaches it. A
-- block the clock falls behind while it is in use (a clock set back, a
-- restart with the clock behind) is left for the next one, flagged: its
-- IDs so far may hold any of its ticks.
--
-- Durability is the sequences': every nextval that logs (one in 32) and
-- every setval is WAL-logged and gives the transaction an xid, so its
-- commit flushes the WAL and waits for synchronous standbys; a restarted,
-- crashed or promoted server goes on above every committed value.

CREATE SEQUENCE @extschema@.pg_flake_counter_sno MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_snowflake MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_kuid64 MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_kuid96 MINVALUE 0 START 0;
-- SIQ: one counter per kind, as the native generator has one per kind.
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_user MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_application MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_event MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_premium MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_group MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_collection MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_invite MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_tag MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_channel MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_thread MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_message MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_ternary MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_manytomany MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_multi MINVALUE 0 START 0;
CREATE SEQUENCE @extschema@.pg_flake_counter_siq_content MINVALUE 0 START 0;
-- Every role may read them (pg_flake_generator_state); only their owner,
-- through the generators (SECURITY DEFINER), may move them.
GRANT SELECT ON SEQUENCE @extschema@.pg_flake_counter_sno, @extschema@.pg_flake_counter_snowflake,
    @extschema@.pg_flake_counter_kuid64, @extschema@.pg_flake_counter_kuid96,
    @extschema@.pg_flake_counter_siq_user, @extschema@.pg_flake_counter_siq_application,
    @extschema@.pg_flake_counter_siq_event, @extschema@.pg_flake_counter_siq_premium,
    @extschema@.pg_flake_counter_siq_group, @extschema@.pg_flake_counter_siq_collection,
    @extschema@.pg_flake_counter_siq_invite, @extschema@.pg_flake_counter_siq_tag,
    @extschema@.pg_flake_counter_siq_channel, @extschema@.pg_flake_counter_siq_thread,
    @extschema@.pg_flake_counter_siq_message, @extschema@.pg_flake_counter_siq_ternary,
    @extschema@.pg_flake_counter_siq_manytomany, @extschema@.pg_flake_counter_siq_multi,
    @extschema@.pg_flake_counter_siq_content TO PUBLIC;

-- pg_dump keeps the counters of an extension (the psql -f install's are
-- plain sequences, dumped anyway): a restored database goes on above them.
DO $config$
DECLARE
    counter text;
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pg_flake_sql') THEN
        FOR counter IN
            SELECT c.relname FROM pg_catalog.pg_class c
            WHERE c.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
              AND c.relkind OPERATOR(pg_catalog.=) 'S'
              AND c.relname OPERATOR(pg_catalog.~) '^pg_flake_counter_'
        LOOP
            PERFORM pg_catalog.pg_extension_config_dump(
                pg_catalog.format('@extschema@.%I', counter)::pg_catalog.regclass, '');
        END LOOP;
    END IF;
END
$config$;

-- == Units ==================================================================
-- A format's counter unit at a clock reading (Unix microseconds); 22008 at
-- or beyond the end of the format's range (or of the counter's).

CREATE FUNCTION @extschema@._flake_unit_at(fmt text, unix_us bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    unit bigint;
    last bigint;
    time_range text;
BEGIN
    CASE
    WHEN fmt = 'sno' THEN
        unit := (unix_us - 1262304000000000) / 4000;
        last := 549755813887;  -- 2^39 - 1
        time_range := '2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00';
        IF unix_us < 1262304000000000 THEN unit := -1; END IF;
    WHEN fmt = 'snowflake' THEN
        unit := unix_us / 1000;
        last := 17592186044415;  -- 2^44 - 1 (the counter's; year 2527)
        time_range := 'the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)';
    WHEN fmt IN ('kuid64', 'kuid96') THEN
        unit := (unix_us / 1000000) * 1024 + (unix_us % 1000000) / 1024;
        last := 17592186044415;  -- 2^44 - 1 (the counter's; year 2514)
        time_range := CASE fmt WHEN 'kuid64' THEN '1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00'
                       ELSE '1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00' END;
    WHEN fmt = 'siq' THEN
        -- Blocks of 64 ticks since 2024-01-01 (1704067200 s * 65536 ticks).
        unit := ((unix_us / 1000000) * 65536 + (unix_us % 1000000) * 65536 / 1000000
                 - 111678878515200) >> 6;
        last := 140737488355327;  -- 2^47 - 1 (the counter's; year 6379)
        time_range := '1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00';
    END CASE;
    IF unix_us >= 0 AND unit > last THEN
        RAISE EXCEPTION 'timestamp out of range for %: accepted %',
            CASE WHEN fmt IN ('snowflake', 'kuid64') THEN fmt ELSE 'type ' || fmt END, time_range
            USING ERRCODE = '22008',
                  HINT = 'pg_flake_sql''s counters end earlier than some formats (docs/managed.md "As strong as native, and weaker").';
    ELSIF unix_us < 0 OR unit < 0 THEN
        RAISE EXCEPTION 'timestamp out of range for %: accepted %',
            CASE WHEN fmt IN ('snowflake', 'kuid64') THEN fmt ELSE 'type ' || fmt END, time_range
            USING ERRCODE = '22008';
    END IF;
    RETURN unit;
END
$$;

-- The unit after `unit` (kuid skips units 977-1023 of a second, which
-- stand for no time).
CREATE FUNCTION @extschema@._flake_unit_after(fmt text, unit bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT CASE WHEN fmt IN ('kuid64', 'kuid96') AND unit % 1024 >= 976
                THEN (unit / 1024 + 1) * 1024
                ELSE unit + 1 END
$$;

-- The first Unix microsecond of `unit`.
CREATE FUNCTION @extschema@._flake_unit_start(fmt text, unit bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT CASE fmt
        WHEN 'sno' THEN 1262304000000000 + unit * 4000
        WHEN 'snowflake' THEN unit * 1000
        WHEN 'siq' THEN (((unit << 6) + 111678878515200) / 65536) * 1000000
                        + ((((unit << 6) + 111678878515200) % 65536) * 1000000 + 65535) / 65536
        ELSE (unit / 1024) * 1000000 + (unit % 1024) * 1024 END
$$;

-- pg_flake.max_clock_lag in microseconds: a placeholder setting holds the
-- text it was given, milliseconds or a value with a unit ('60s', '1min').
CREATE FUNCTION @extschema@._flake_max_lag_us() RETURNS bigint
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    setting text := current_setting('pg_flake.max_clock_lag', true);
BEGIN
    IF setting IS NULL OR setting = '' THEN
        RETURN 60000000;
    ELSIF setting ~ '^\s*[0-9]{1,10}\s*$' THEN
        RETURN setting::bigint * 1000;
    END IF;
    BEGIN
        RETURN (extract(epoch FROM setting::interval) * 1000000)::bigint;
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'invalid value for parameter "pg_flake.max_clock_lag": "%"', setting
            USING ERRCODE = '22023',
                  HINT = 'Milliseconds, or a value with a unit such as ''60s''.';
    END;
END
$$;

-- Seconds as the native messages write them: 3 decimals, no trailing zeros.
CREATE FUNCTION @extschema@._flake_seconds(us bigint) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT rtrim(rtrim(to_char(us / 1000000.0, 'FM999999999990.000'), '0'), '.') || ' s' $$;

-- == The counters' slow path =================================================
-- A usable counter value of `fmt` (max_seq: the largest sequence value of
-- the format's field), advancing the counter where the pair nextval gives
-- is not usable. Called by the generators when their one nextval is not
-- usable as it is: at most once per unit and session in steady state.
CREATE FUNCTION @extschema@._flake_counter_next(counter regclass, fmt text, max_seq bigint)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    k constant integer := CASE WHEN fmt = 'siq' THEN 16 ELSE 19 END;
    -- The sequence values: SIQ's flag of a logical block (generation.sql's
    -- head) is not part of them.
    mask constant bigint := CASE WHEN fmt = 'siq' THEN 32767 ELSE (1::bigint << k) - 1 END;
    flag constant bigint := CASE WHEN fmt = 'siq' THEN 32768 ELSE 0 END;
    -- 'pgfs' in the high word, the counter's oid in the low one.
    lock_key constant bigint := (1885824627::bigint << 32) | counter::oid::bigint;
    v bigint;
    unit bigint;
    s bigint;
    now_us bigint;
    now_unit bigint;
    target bigint;
    lead_us bigint;
    max_lag_us bigint;
BEGIN
    LOOP
        -- A session-level lock, released on every way out (an error, a
        -- cancel) by the handler: a transaction-level one would be held
        -- until the end of a long INSERT ... SELECT.
        PERFORM pg_advisory_lock(lock_key);
        BEGIN
            v := nextval(counter);
            unit := v >> k;
            s := v & mask;
            now_us := (date_part('epoch', clock_timestamp()) * 1000000)::bigint;
            -- The clock's unit, inline (_flake_unit_at's arithmetic: this
            -- path runs once per unit, every few IDs for SIQ's 15 µs ticks);
            -- outside the counter's range, _flake_unit_at raises.
            now_unit := CASE fmt
                WHEN 'sno' THEN (now_us - 1262304000000000) / 4000
                WHEN 'snowflake' THEN now_us / 1000
                WHEN 'siq' THEN ((now_us / 1000000) * 65536 + (now_us % 1000000) * 65536 / 1000000
                                 - 111678878515200) >> 6
                ELSE (now_us / 1000000) * 1024 + (now_us % 1000000) / 1024 END;
            IF now_us < 1262304000000000 OR now_unit < 0
               OR now_unit > (CASE fmt WHEN 'sno' THEN 549755813887
                                       WHEN 'siq' THEN 140737488355327
                                       ELSE 17592186044415 END) THEN
                now_unit := @extschema@._flake_unit_at(fmt, now_us);
            END IF;
            IF s <= max_seq AND unit >= now_unit
               AND (flag = 0 OR unit = now_unit OR (v & flag) <> 0) THEN
                target := NULL;                    -- usable (logical time if ahead)
            ELSIF flag <> 0 AND unit > now_unit THEN
                -- SIQ behind the clock: the next block, flagged.
                target := unit + 1;
                PERFORM @extschema@._flake_unit_at(fmt, @extschema@._flake_unit_start(fmt, target));
            ELSIF unit < now_unit THEN
                -- The clock passed the counter: its unit (whose start lies
                -- at or before the clock: no lag to check).
                PERFORM setval(counter, now_unit << k, true);
                PERFORM pg_advisory_unlock(lock_key);
                RETURN now_unit << k;
            ELSIF unit > now_unit THEN
                target := @extschema@._flake_unit_after(fmt, unit);  -- used up, clock behind
                PERFORM @extschema@._flake_unit_at(fmt, @extschema@._flake_unit_start(fmt, target));
            ELSE
                target := -1;                      -- used up: wait for the next unit
            END IF;
            IF target IS NOT NULL AND target >= 0 THEN
                lead_us := @extschema@._flake_unit_start(fmt, target) - now_us;
                max_lag_us := @extschema@._flake_max_lag_us();
                IF lead_us > max_lag_us THEN
                    RAISE EXCEPTION '% generation stopped: the clock is % behind the last % IDs issued',
                        fmt, @extschema@._flake_seconds(lead_us), fmt
                        USING ERRCODE = '55000',
                              DETAIL = format('IDs may run at most %s ahead of the clock.',
                                              @extschema@._flake_seconds(max_lag_us)),
                              HINT = 'Correct the server''s clock, or let IDs run further ahead of it with pg_flake.max_clock_lag (docs/guarantees.md "Guarantees").';
                END IF;
                -- The counter's next nextval gives target * 2^k + 1: this
                -- session takes sequence 0 of the new unit (flagged: SIQ's
                -- logical block).
                PERFORM setval(counter, (target << k) | flag, true);
                v := (target << k) | flag;
                unit := target;
            ELSIF target IS NULL AND unit > now_unit THEN
                lead_us := @extschema@._flake_unit_start(fmt, unit) - now_us;
                max_lag_us := @extschema@._flake_max_lag_us();
                IF lead_us > max_lag_us THEN
                    RAISE EXCEPTION '% generation stopped: the clock is % behind the last % IDs issued',
                        fmt, @extschema@._flake_seconds(lead_us), fmt
                        USING ERRCODE = '55000',
                              DETAIL = format('IDs may run at most %s ahead of the clock.',
                                              @extschema@._flake_seconds(max_lag_us)),
                              HINT = 'Correct the server''s clock, or let IDs run further ahead of it with pg_flake.max_clock_lag (docs/guarantees.md "Guarantees").';
                END IF;
            END IF;
            PERFORM pg_advisory_unlock(lock_key);
        EXCEPTION WHEN OTHERS OR query_canceled THEN
            PERFORM pg_advisory_unlock(lock_key);
            RAISE;
        END;
        IF target IS NULL OR target >= 0 THEN
            RETURN v;
        END IF;
        -- The unit's sequence values are used up and the clock is inside
        -- it: wait (cancellably, without the lock) for the next unit.
        PERFORM pg_sleep(greatest(@extschema@._flake_unit_start(fmt,
            @extschema@._flake_unit_after(fmt, unit)) - now_us, 1) / 1000000.0);
    END LOOP;
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@._flake_counter_next(regclass, text, bigint) FROM PUBLIC;

-- == Node identity ===========================================================
-- Without the library the node settings are custom placeholders
-- (docs/managed.md "Generation without shared memory"): read with current_setting(name, true),
-- NULL where never set, checked here rather than when set.

-- The nodes pg_flake.lease_nodes reserves for fmt (sno, siq, snowflake,
-- kuid96), as (first, last); no row where it says fmt=none. 22023 for a
-- malformed setting, with the native extension's messages.
CREATE FUNCTION @extschema@._flake_lease_nodes(fmt text, OUT first_node bigint, OUT last_node bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    setting text := coalesce(current_setting('pg_flake.lease_nodes', true), '');
    entry text;
    entry_name text;
    entry_value text;
    node_max bigint;
    nodes text[];
    seen text[] := '{}';
    found_range boolean := false;
    parsed bigint[];
    i integer;
BEGIN
    first_node := CASE fmt WHEN 'snowflake' THEN 31 WHEN 'kuid96' THEN 4294967040 ELSE 255 END;
    last_node := CASE fmt WHEN 'snowflake' THEN 31 WHEN 'kuid96' THEN 4294967295 ELSE 255 END;
    IF btrim(setting) = '' THEN
        RETURN NEXT;
        RETURN;
    END IF;
    FOREACH entry IN ARRAY string_to_array(setting, ',') LOOP
        entry := btrim(entry);
        IF position('=' IN entry) = 0 THEN
            RAISE EXCEPTION 'invalid value for parameter "pg_flake.lease_nodes": "%"', setting
                USING ERRCODE = '22023',
                      DETAIL = format('entry "%s" is not format=first-last, format=n or format=none', entry);
        END IF;
        entry_name := btrim(split_part(entry, '=', 1));
        entry_value := btrim(substr(entry, position('=' IN entry) + 1));
        IF entry_name NOT IN ('sno', 'siq', 'snowflake', 'kuid96') THEN
            RAISE EXCEPTION 'invalid value for parameter "pg_flake.lease_nodes": "%"', setting
                USING ERRCODE = '22023',
                      DETAIL = CASE WHEN entry_name = 'kuid64'
                                    THEN 'kuid64 has no node field, so it cannot be leased; use kuid96, whose IDs carry the leased node'
                                    ELSE format('unknown lease format "%s"; accepted formats: sno, siq, snowflake, kuid96', entry_name) END;
        END IF;
        IF entry_name = ANY (seen) THEN
            RAISE EXCEPTION 'invalid value for parameter "pg_flake.lease_nodes": "%"', setting
                USING ERRCODE = '22023', DETAIL = format('%s is named twice', entry_name);
        END IF;
        seen := seen || entry_name;
        node_max := CASE entry_name WHEN 'snowflake' THEN 31 WHEN 'kuid96' THEN 4294967295 ELSE 255 END;
        IF lower(entry_value) = 'none' THEN
            parsed := NULL;
        ELSE
            nodes := CASE WHEN position('-' IN entry_value) > 0
                          THEN ARRAY[btrim(split_part(entry_value, '-', 1)),
                                     btrim(substr(entry_value, position('-' IN entry_value) + 1))]
                          ELSE ARRAY[entry_value, entry_value] END;
            parsed := ARRAY[NULL, NULL]::bigint[];
            FOR i IN 1..2 LOOP
                IF nodes[i] !~ '^[0-9]{1,10}$' OR nodes[i]::bigint > node_max THEN
                    RAISE EXCEPTION 'invalid value for parameter "pg_flake.lease_nodes": "%"', setting
                        USING ERRCODE = '22023',
                              DETAIL = CASE WHEN nodes[i] ~ '^[0-9]{1,19}$'
                                            THEN format('node %s is outside the node field of %s (0 to %s)', nodes[i], entry_name, node_max)
                                            ELSE format('"%s" is not a node number of %s (0 to %s)', nodes[i], entry_name, node_max) END;
                END IF;
                parsed[i] := nodes[i]::bigint;
            END LOOP;
            IF parsed[1] > parsed[2] THEN
                RAISE EXCEPTION 'invalid value for parameter "pg_flake.lease_nodes": "%"', setting
                    USING ERRCODE = '22023',
                          DETAIL = format('%s''s range %s-%s is empty (first > last)', entry_name, parsed[1], parsed[2]);
            END IF;
        END IF;
        IF entry_name = fmt THEN
            found_range := true;
            first_node := parsed[1];
            last_node := parsed[2];
        END IF;
    END LOOP;
    IF found_range AND first_node IS NULL THEN
        RETURN;  -- fmt=none: nothing reserved
    END IF;
    RETURN NEXT;
END
$$;

-- An integer node setting: NULL where unset (never set, '' or -1, the
-- native extension's "unset"), 22023 where it is no integer. Where the
-- native library is loaded too (the edition beside it, during a
-- migration), its format node settings are real settings whose default is
-- 0, which means "unset" there: a 0 that comes from that default is unset
-- here as well (pg_settings tells; read only for a 0).
CREATE FUNCTION @extschema@._flake_int_setting(name text) RETURNS bigint
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    setting text := btrim(current_setting(name, true));
BEGIN
    IF setting IS NULL OR setting = '' OR setting = '-1' THEN
        RETURN NULL;
    ELSIF setting = '0' AND EXISTS (SELECT FROM pg_catalog.pg_settings s
                                    WHERE s.name OPERATOR(pg_catalog.=) $1
                                      AND s.source OPERATOR(pg_catalog.=) 'default') THEN
        RETURN NULL;
    ELSIF setting !~ '^[0-9]{1,10}$' OR setting::bigint > 2147483647 THEN
        RAISE EXCEPTION 'invalid value for parameter "%": "%"', name, setting
            USING ERRCODE = '22023', HINT = 'A node number from 0 to 2147483647.';
    END IF;
    RETURN setting::bigint;
END
$$;

-- This server's node for fmt (docs/sql-reference.md "Node identity"): the
-- format's own setting where set, else pg_flake.node where set, else 0;
-- with where it comes from. No Citus group: this edition does not read
-- Citus's catalog (docs/managed.md "As strong as native, and weaker").
CREATE FUNCTION @extschema@._flake_node_source(fmt text, OUT node bigint, OUT source text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    own_setting text := CASE fmt WHEN 'sno' THEN 'pg_flake.sno_node'
                                 WHEN 'siq' THEN 'pg_flake.siq_node'
                                 WHEN 'snowflake' THEN 'pg_flake.snowflake_worker'
                                 WHEN 'kuid96' THEN 'pg_flake.kuid_node' END;
    name_setting text;
BEGIN
    IF fmt = 'kuid96' THEN
        name_setting := current_setting('pg_flake.kuid_node', true);
        IF name_setting IS NOT NULL AND name_setting <> '' THEN
            node := @extschema@.kuid_node_fingerprint(name_setting);
            source := 'pg_flake.kuid_node';
            RETURN;
        END IF;
    ELSIF own_setting IS NOT NULL THEN
        node := @extschema@._flake_int_setting(own_setting);
        IF node IS NOT NULL THEN
            source := own_setting;
            RETURN;
        END IF;
    END IF;
    node := @extschema@._flake_int_setting('pg_flake.node');
    IF node IS NOT NULL THEN
        source := 'pg_flake.node';
    ELSE
        node := 0;
        source := 'default';
    END IF;
END
$$;

-- The node fmt generates with, checked: it fits the format's field, and
-- is not reserved for leases (55000, as the native generators refuse).
CREATE FUNCTION @extschema@._flake_node(fmt text) RETURNS bigint
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    identity record;
    bits integer := CASE fmt WHEN 'snowflake' THEN 5 WHEN 'kuid96' THEN 32 ELSE 8 END;
    own_setting text := CASE fmt WHEN 'sno' THEN 'pg_flake.sno_node'
                                 WHEN 'siq' THEN 'pg_flake.siq_node'
                                 WHEN 'snowflake' THEN 'pg_flake.snowflake_worker'
                                 ELSE 'pg_flake.node' END;
    reserved record;
BEGIN
    identity := @extschema@._flake_node_source(fmt);
    IF bits < 32 AND identity.node >= (1::bigint << bits) THEN
        RAISE EXCEPTION 'node % (from %) does not fit the %-bit node field of % (0 to %)',
            identity.node, identity.source, bits, fmt, (1::bigint << bits) - 1
            USING ERRCODE = '55000',
                  HINT = format('Set %s to a number from 0 to %s that no other server uses.',
                                own_setting, (1::bigint << bits) - 1);
    END IF;
    FOR reserved IN SELECT * FROM @extschema@._flake_lease_nodes(fmt) LOOP
        IF identity.node BETWEEN reserved.first_node AND reserved.last_node THEN
            RAISE EXCEPTION 'node % (from %) is reserved for application leases of % (pg_flake.lease_nodes)',
                identity.node, identity.source, fmt
                USING ERRCODE = '55000',
                      HINT = 'Give this server another node, or set pg_flake.lease_nodes to a range no server uses.';
        END IF;
    END LOOP;
    RETURN identity.node;
END
$$;
