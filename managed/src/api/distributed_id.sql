-- DistributedId (docs/formats/distributed_id.md): the native extension's
-- functions of sql/distributed_id.sql that need no C, on the type of either
-- edition, and the reference's generator with its state in the session.

-- == Text and bytes ============================================================

CREATE FUNCTION @extschema@.distributed_id_to_bytea(id @extschema@.distributed_id) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT id::bytea $$;

CREATE FUNCTION @extschema@.distributed_id_hash(id @extschema@.distributed_id) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash(id::bytea) $$;

CREATE FUNCTION @extschema@.distributed_id_hash_extended(id @extschema@.distributed_id, seed bigint)
    RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash_extended(id::bytea, seed) $$;

-- == Generation ================================================================

-- One pass of the reference's loop (docs/formats/distributed_id.md#generation):
-- from the previous (timestamp, random), the clock's timestamp (already 1000
-- ms behind) and the draw, the next (timestamp, random), or NULLs to sleep
-- 1 ms and read the clock again.
CREATE FUNCTION @extschema@._distributed_id_step(prev_ts bigint, prev_r bigint, ts bigint,
    draw bigint, OUT next_ts bigint, OUT next_r bigint)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    increment bigint := greatest(draw & 2199023255551, 1);
BEGIN
    IF ts < 0 THEN
        RAISE EXCEPTION 'timestamp out of range for type distributed_id: accepted 1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00'
            USING ERRCODE = '22008';
    END IF;
    IF ts <= prev_ts THEN
        IF prev_r + increment <= 281474976710655 THEN
            next_ts := prev_ts;
            next_r := prev_r + increment;
            RETURN;
        END IF;
        IF prev_ts < ts + 999 THEN
            ts := prev_ts + 1;
        ELSIF prev_ts - (ts + 999) <= 1000 THEN
            RETURN;                                  -- sleep
        END IF;
    END IF;
    IF ts > 35184372088831 THEN
        RAISE EXCEPTION 'timestamp out of range for type distributed_id: accepted 1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00'
            USING ERRCODE = '22008';
    END IF;
    next_ts := ts;
    next_r := draw;
END
$$;

-- The reference generator, one per session: its previous (timestamp,
-- random) lives in the session's setting pg_flake_sql.distributed_id (a
-- rolled-back transaction takes its changes back, like any setting's); the
-- draw is 6 random bytes of gen_random_uuid() (PostgreSQL's strong random
-- source), read little-endian.
CREATE FUNCTION @extschema@.distributed_id_generate() RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    state text[] := string_to_array(current_setting('pg_flake_sql.distributed_id', true), ':');
    prev_ts bigint := coalesce(state[1]::bigint, 0);
    prev_r bigint := coalesce(state[2]::bigint, 0);
    r bytea := substr(uuid_send(gen_random_uuid()), 1, 6);
    draw bigint;
    ts bigint;
    step record;
BEGIN
    draw := greatest(get_byte(r, 0)::bigint | (get_byte(r, 1)::bigint << 8)
                     | (get_byte(r, 2)::bigint << 16) | (get_byte(r, 3)::bigint << 24)
                     | (get_byte(r, 4)::bigint << 32) | (get_byte(r, 5)::bigint << 40), 1);
    LOOP
        -- Milliseconds since 1900, floored, minus the reference's 1000.
        ts := floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + 2208988800000 - 1000;
        step := @extschema@._distributed_id_step(prev_ts, prev_r, ts, draw);
        EXIT WHEN step.next_ts IS NOT NULL;
        PERFORM pg_sleep(0.001);
    END LOOP;
    PERFORM set_config('pg_flake_sql.distributed_id', step.next_ts || ':' || step.next_r, false);
    RETURN (substr(int8send(step.next_ts), 3, 6) || substr(int8send(step.next_r), 3, 6))
        ::@extschema@.distributed_id;
END
$$;

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@.distributed_id_timestamp(id @extschema@.distributed_id) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    -- 1900-01-01 plus id >> 48 milliseconds.
    us bigint := (('x' || encode(substr(id::bytea, 1, 6), 'hex'))::bit(48)::bigint - 2208988800000) * 1000;
BEGIN
    RETURN (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
END
$$;

CREATE FUNCTION @extschema@.distributed_id_parts(id @extschema@.distributed_id,
    OUT "time" timestamptz, OUT random bigint)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := id::bytea;
    us bigint := (('x' || encode(substr(b, 1, 6), 'hex'))::bit(48)::bigint - 2208988800000) * 1000;
BEGIN
    "time" := (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
    random := ('x' || encode(substr(b, 7, 6), 'hex'))::bit(48)::bigint;
END
$$;

-- == IDs from parts ============================================================

-- Milliseconds since 1900 of a time (rounded down), 22008 beyond 45 bits.
CREATE FUNCTION @extschema@._distributed_id_ms(t timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := @extschema@._flake_unix_us(t, 'type distributed_id',
        '1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00');
    ms bigint := (us - ((us % 1000) + 1000) % 1000) / 1000 + 2208988800000;
BEGIN
    IF ms < 0 OR ms > 35184372088831 THEN
        RAISE EXCEPTION 'timestamp out of range for type distributed_id: accepted 1900-01-01 00:00:00+00 to 3014-12-13 12:41:28.831999+00'
            USING ERRCODE = '22008';
    END IF;
    RETURN ms;
END
$$;

CREATE FUNCTION @extschema@.distributed_id_from_time("time" timestamptz) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN (substr(int8send(@extschema@._distributed_id_ms("time")), 3, 6) || '\x000000000000'::bytea)
        ::@extschema@.distributed_id;
END
$$;

CREATE FUNCTION @extschema@.distributed_id_from_parts("time" timestamptz, random bigint)
    RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ms bigint := @extschema@._distributed_id_ms("time");
BEGIN
    PERFORM @extschema@._flake_field('distributed_id', 'random', random, 0, 281474976710655);
    RETURN (substr(int8send(ms), 3, 6) || substr(int8send(random), 3, 6))::@extschema@.distributed_id;
END
$$;

-- == Text and number forms =====================================================

CREATE FUNCTION @extschema@.distributed_id_to_hex(id @extschema@.distributed_id) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT '00' || upper(encode(id::bytea, 'hex')) $$;

CREATE FUNCTION @extschema@.distributed_id_from_hex(hex text) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._distributed_id_from_hex(hex)::@extschema@.distributed_id; END $$;

CREATE FUNCTION @extschema@.distributed_id_to_numeric(id @extschema@.distributed_id) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_numeric(id::bytea) $$;

CREATE FUNCTION @extschema@.distributed_id_from_numeric(value numeric) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN @extschema@._flake_numeric_bytes(@extschema@._flake_numeric_integer(value,
        'type distributed_id', 9999999999999999999999999999, '0 to 9999999999999999999999999999'), 12)
        ::@extschema@.distributed_id;
END
$$;
