-- DistributedId128 (docs/formats/distributed_id128.md): 128-bit IDs in
-- uuid; the native extension's functions of sql/distributed_id128.sql, and
-- the reference's generator with its state in the session.

-- R (75 bits) as the uuid's bits 75-64 and 62-0, beside the time's 48 bits
-- and the version nibble 7.
CREATE FUNCTION @extschema@._distributed_id128_uuid(ts bigint, r numeric) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    high bigint := div(r, 9223372036854775808)::bigint;
    low bigint := mod(r, 9223372036854775808)::bigint;
BEGIN
    IF ts < 0 OR ts > 281474976710655 THEN
        RAISE EXCEPTION 'timestamp out of range for distributed_id128: accepted 1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00'
            USING ERRCODE = '22008';
    END IF;
    IF r < 0 OR r > 37778931862957161709567 THEN
        PERFORM @extschema@._flake_field('distributed_id128', 'random', r, 0, 37778931862957161709567);
    END IF;
    RETURN encode(substr(int8send(ts), 3, 6) || substr(int4send((28672 | high)::integer), 3, 2)
                  || int8send(low), 'hex')::uuid;
END
$$;

-- Milliseconds since 1700 of a time (rounded down), 22008 beyond 48 bits.
CREATE FUNCTION @extschema@._distributed_id128_ms(t timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := @extschema@._flake_unix_us(t, 'distributed_id128',
        '1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00');
    ms bigint := (us - ((us % 1000) + 1000) % 1000) / 1000 + 8520336000000;
BEGIN
    IF ms < 0 OR ms > 281474976710655 THEN
        RAISE EXCEPTION 'timestamp out of range for distributed_id128: accepted 1700-01-01 00:00:00+00 to 10619-08-04 05:31:50.655999+00'
            USING ERRCODE = '22008';
    END IF;
    RETURN ms;
END
$$;

-- == Generation ================================================================

-- One pass of the reference's loop (docs/formats/distributed_id128.md#generation):
-- the next (timestamp, R), or NULLs to sleep 1 ms and read the clock again.
CREATE FUNCTION @extschema@._distributed_id128_step(prev_ts bigint, prev_r numeric, ts bigint,
    draw numeric, OUT next_ts bigint, OUT next_r numeric)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    increment numeric := greatest(mod(mod(draw, 18446744073709551616), 288230376151711744), 1);
BEGIN
    IF ts <= prev_ts THEN
        IF prev_r + increment <= 37778931862957161709567 THEN
            next_ts := prev_ts;
            next_r := prev_r + increment;
            RETURN;
        END IF;
        IF ts + 1000 > prev_ts THEN
            RETURN;                                  -- sleep
        END IF;
    END IF;
    next_ts := ts;
    next_r := draw;
END
$$;

-- The reference generator, one per session (its previous (timestamp, R) in
-- the setting pg_flake_sql.distributed_id128). The draw: 16 random bytes of
-- two gen_random_uuid() (leaving out their version and variant bits), R =
-- (LE64(bytes 0-7) >> 53) * 2^64 + LE64(bytes 8-15), 0 becoming 1.
CREATE FUNCTION @extschema@.distributed_id128_generate() RETURNS uuid
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    state text[] := string_to_array(current_setting('pg_flake_sql.distributed_id128', true), ':');
    prev_ts bigint := coalesce(state[1]::bigint, 0);
    prev_r numeric := coalesce(state[2]::numeric, 0);
    a bytea := uuid_send(gen_random_uuid());
    b bytea := uuid_send(gen_random_uuid());
    draw numeric;
    ts bigint;
    step record;
BEGIN
    -- bytes 6 and 7 of the draw: random bytes 0 and 1 of the second uuid.
    draw := greatest((((get_byte(b, 1)::bigint << 8) | get_byte(b, 0)) >> 5)::numeric * 18446744073709551616
                     + @extschema@._flake_numeric(substr(a, 16, 1) || substr(a, 15, 1) || substr(a, 14, 1)
                         || substr(a, 13, 1) || substr(a, 12, 1) || substr(a, 11, 1)
                         || substr(a, 10, 1) || substr(b, 3, 1)), 1);
    LOOP
        ts := floor(date_part('epoch', clock_timestamp()) * 1000)::bigint + 8520336000000;
        step := @extschema@._distributed_id128_step(prev_ts, prev_r, ts, draw);
        EXIT WHEN step.next_ts IS NOT NULL;
        PERFORM pg_sleep(0.001);
    END LOOP;
    PERFORM set_config('pg_flake_sql.distributed_id128', step.next_ts || ':' || step.next_r, false);
    RETURN @extschema@._distributed_id128_uuid(step.next_ts, step.next_r);
END
$$;

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@.distributed_id128_timestamp(id uuid) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := (('x' || encode(substr(uuid_send(id), 1, 6), 'hex'))::bit(48)::bigint - 8520336000000) * 1000;
BEGIN
    RETURN (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
END
$$;

CREATE FUNCTION @extschema@.distributed_id128_parts(id uuid, OUT "time" timestamptz, OUT random numeric)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := uuid_send(id);
    us bigint := (('x' || encode(substr(b, 1, 6), 'hex'))::bit(48)::bigint - 8520336000000) * 1000;
BEGIN
    "time" := (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
    random := ((get_byte(b, 6) & 15) << 8 | get_byte(b, 7))::numeric * 9223372036854775808
              + (('x' || encode(substr(b, 9, 8), 'hex'))::bit(64)::bigint & 9223372036854775807);
END
$$;

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.distributed_id128_from_time("time" timestamptz) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN @extschema@._distributed_id128_uuid(@extschema@._distributed_id128_ms("time"), 0);
END
$$;

-- The random argument first (any numeric: 22003 for a negative, fractional
-- or too large one), then the time, in the native extension's order.
CREATE FUNCTION @extschema@.distributed_id128_from_parts("time" timestamptz, random numeric) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    r numeric := @extschema@._flake_numeric_integer(random, 'distributed_id128', 37778931862957161709567,
        '0 to 37778931862957161709567 (2^75 - 1) for the random field');
BEGIN
    RETURN @extschema@._distributed_id128_uuid(@extschema@._distributed_id128_ms("time"), r);
END
$$;

-- == Number forms ==============================================================

CREATE FUNCTION @extschema@.distributed_id128_to_numeric(id uuid) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_numeric(uuid_send(id)) $$;

CREATE FUNCTION @extschema@.distributed_id128_from_numeric(value numeric) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN encode(@extschema@._flake_numeric_bytes(@extschema@._flake_numeric_integer(value, 'type uuid',
        340282366920938463463374607431768211455, '0 to 340282366920938463463374607431768211455'), 16),
        'hex')::uuid;
END
$$;
