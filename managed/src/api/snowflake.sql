-- Snowflake (docs/formats/snowflake.md): bigint IDs with
-- pg_flake.snowflake_epoch, or an epoch given per call; the generator on
-- its counter, in Unix milliseconds (generation.sql).

-- An epoch (milliseconds since 1970), 0 to 253402300799999 (22023).
CREATE FUNCTION @extschema@._snowflake_epoch(epoch_ms bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF epoch_ms < 0 OR epoch_ms > 253402300799999 THEN
        RAISE EXCEPTION 'snowflake epoch % is outside 0 to 253402300799999 (milliseconds since 1970-01-01 00:00:00 UTC, up to 9999-12-31)', epoch_ms
            USING ERRCODE = '22023';
    END IF;
    RETURN epoch_ms;
END
$$;

-- pg_flake.snowflake_epoch (default Discord's 1420070400000), checked.
CREATE FUNCTION @extschema@._snowflake_epoch_setting() RETURNS bigint
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    setting text := btrim(current_setting('pg_flake.snowflake_epoch', true));
BEGIN
    IF setting IS NULL OR setting = '' THEN
        RETURN 1420070400000;
    ELSIF setting !~ '^[0-9]{1,15}$' THEN
        RAISE EXCEPTION 'invalid value for parameter "pg_flake.snowflake_epoch": "%"', setting
            USING ERRCODE = '22023',
                  DETAIL = 'A snowflake epoch is an integer number of milliseconds since 1970-01-01 00:00:00 UTC, from 0 to 253402300799999 (9999-12-31 23:59:59.999 UTC).';
    END IF;
    RETURN @extschema@._snowflake_epoch(setting::bigint);
END
$$;

-- == Generation ================================================================
-- One nextval of the counter gives (Unix millisecond, sequence), used as it
-- is in the clock's millisecond with the sequence within 12 bits.
-- SECURITY DEFINER: the counter is its owner's.
CREATE FUNCTION @extschema@.snowflake_generate() RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    worker_setting text := current_setting('pg_flake.node', true);
    -- Few statements (sno_generate says why).
    worker bigint := CASE WHEN current_setting('pg_flake.snowflake_worker', true) IS NULL
                               AND current_setting('pg_flake.lease_nodes', true) IS NULL
                               AND (worker_setting IS NULL
                                    OR worker_setting ~ '^[0-9]{1,2}$' AND worker_setting::integer < 31)
                          THEN coalesce(worker_setting::bigint, 0)
                          ELSE @extschema@._flake_node('snowflake') END;
    epoch_ms bigint := CASE WHEN current_setting('pg_flake.snowflake_epoch', true) IS NULL
                            THEN 1420070400000 ELSE @extschema@._snowflake_epoch_setting() END;
    v bigint := nextval('@extschema@.pg_flake_counter_snowflake');
    unit bigint;
BEGIN
    IF (v & 524287) > 4095
       OR (v >> 19) <> (date_part('epoch', clock_timestamp()) * 1000000)::bigint / 1000 THEN
        v := @extschema@._flake_counter_next('@extschema@.pg_flake_counter_snowflake', 'snowflake', 4095);
    END IF;
    unit := (v >> 19) - epoch_ms;
    IF unit < 0 OR unit > 2199023255551 THEN
        RAISE EXCEPTION 'timestamp out of range for snowflake: accepted the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)'
            USING ERRCODE = '22008';
    END IF;
    RETURN (unit << 22) | (worker << 17) | (v & 4095);
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.snowflake_generate() FROM PUBLIC;

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@.snowflake_parts(snowflake bigint, epoch_ms bigint,
    OUT "time" timestamptz, OUT worker integer, OUT process integer, OUT sequence integer)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM @extschema@._snowflake_epoch(epoch_ms);
    PERFORM @extschema@._flake_non_negative('snowflake', snowflake);
    "time" := @extschema@._flake_ts((epoch_ms + (snowflake >> 22)) * 1000);
    worker := ((snowflake >> 17) & 31)::integer;
    process := ((snowflake >> 12) & 31)::integer;
    sequence := (snowflake & 4095)::integer;
END
$$;

CREATE FUNCTION @extschema@.snowflake_parts(snowflake bigint,
    OUT "time" timestamptz, OUT worker integer, OUT process integer, OUT sequence integer)
    RETURNS record
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT * FROM @extschema@.snowflake_parts(snowflake, @extschema@._snowflake_epoch_setting()) $$;

CREATE FUNCTION @extschema@.snowflake_timestamp(snowflake bigint, epoch_ms bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT p."time" FROM @extschema@.snowflake_parts(snowflake, epoch_ms) p $$;

CREATE FUNCTION @extschema@.snowflake_timestamp(snowflake bigint) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT p."time" FROM @extschema@.snowflake_parts(snowflake, @extschema@._snowflake_epoch_setting()) p $$;

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.snowflake_from_parts("time" timestamptz, worker integer, process integer,
    sequence integer, epoch_ms bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint;
    ms bigint;
BEGIN
    PERFORM @extschema@._snowflake_epoch(epoch_ms);
    us := @extschema@._flake_unix_us("time", 'snowflake',
        'the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)');
    PERFORM @extschema@._flake_field('snowflake', 'worker', worker, 0, 31);
    PERFORM @extschema@._flake_field('snowflake', 'process', process, 0, 31);
    PERFORM @extschema@._flake_field('snowflake', 'sequence', sequence, 0, 4095);
    ms := (us - ((us % 1000) + 1000) % 1000) / 1000 - epoch_ms;
    IF ms < 0 OR ms > 2199023255551 THEN
        RAISE EXCEPTION 'timestamp out of range for snowflake: accepted the epoch to 2^41 - 1 ms after it (for the default epoch: until 2084-09-06 15:47:35.551+00)'
            USING ERRCODE = '22008';
    END IF;
    RETURN (ms << 22) | (worker::bigint << 17) | (process::bigint << 12) | sequence;
END
$$;

CREATE FUNCTION @extschema@.snowflake_from_parts("time" timestamptz, worker integer, process integer,
    sequence integer) RETURNS bigint
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT @extschema@.snowflake_from_parts("time", worker, process, sequence,
                                           @extschema@._snowflake_epoch_setting())
$$;

CREATE FUNCTION @extschema@.snowflake_from_time("time" timestamptz, epoch_ms bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.snowflake_from_parts("time", 0, 0, 0, epoch_ms) $$;

CREATE FUNCTION @extschema@.snowflake_from_time("time" timestamptz) RETURNS bigint
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.snowflake_from_parts("time", 0, 0, 0, @extschema@._snowflake_epoch_setting()) $$;
