-- Flax ID (docs/formats/flaxid.md): the native extension's functions of
-- sql/flaxid.sql that need no C, on the type of either edition.

CREATE FUNCTION @extschema@.flaxid_to_bytea(id @extschema@.flaxid) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT id::bytea $$;

CREATE FUNCTION @extschema@.flaxid_hash(id @extschema@.flaxid) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash(id::bytea) $$;

CREATE FUNCTION @extschema@.flaxid_hash_extended(id @extschema@.flaxid, seed bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash_extended(id::bytea, seed) $$;

-- Milliseconds since 2015-01-01 of a Unix millisecond (22008 outside 40 bits).
CREATE FUNCTION @extschema@._flaxid_ms(unix_ms bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF unix_ms - 1420070400000 < 0 OR unix_ms - 1420070400000 > 1099511627775 THEN
        RAISE EXCEPTION 'timestamp out of range for type flaxid: accepted 2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00'
            USING ERRCODE = '22008';
    END IF;
    RETURN unix_ms - 1420070400000;
END
$$;

-- The current millisecond and 56 random bits of gen_random_uuid()
-- (PostgreSQL's strong random source; its bytes 9-15 are all random).
CREATE FUNCTION @extschema@.flaxid_generate() RETURNS @extschema@.flaxid
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ms bigint := floor(date_part('epoch', clock_timestamp()) * 1000)::bigint - 1420070400000;
BEGIN
    IF ms < 0 OR ms > 1099511627775 THEN
        ms := @extschema@._flaxid_ms(ms + 1420070400000);
    END IF;
    RETURN (substr(int8send(ms), 4, 5) || substr(uuid_send(gen_random_uuid()), 10, 7))::@extschema@.flaxid;
END
$$;

CREATE FUNCTION @extschema@.flaxid_timestamp(id @extschema@.flaxid) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := (('x' || encode(substr(id::bytea, 1, 5), 'hex'))::bit(40)::bigint + 1420070400000) * 1000;
BEGIN
    RETURN (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
END
$$;

CREATE FUNCTION @extschema@.flaxid_parts(id @extschema@.flaxid, OUT "time" timestamptz, OUT random bigint)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := id::bytea;
    us bigint := (('x' || encode(substr(b, 1, 5), 'hex'))::bit(40)::bigint + 1420070400000) * 1000;
BEGIN
    "time" := (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
    random := ('x' || encode(substr(b, 6, 7), 'hex'))::bit(56)::bigint;
END
$$;

CREATE FUNCTION @extschema@.flaxid_from_time("time" timestamptz) RETURNS @extschema@.flaxid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := @extschema@._flake_unix_us("time", 'type flaxid',
        '2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00');
BEGIN
    RETURN (substr(int8send(@extschema@._flaxid_ms((us - ((us % 1000) + 1000) % 1000) / 1000)), 4, 5)
            || '\x00000000000000'::bytea)::@extschema@.flaxid;
END
$$;

CREATE FUNCTION @extschema@.flaxid_from_parts("time" timestamptz, random bigint) RETURNS @extschema@.flaxid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := @extschema@._flake_unix_us("time", 'type flaxid',
        '2015-01-01 00:00:00+00 to 2049-11-03 19:53:47.775+00');
    ms bigint := @extschema@._flaxid_ms((us - ((us % 1000) + 1000) % 1000) / 1000);
BEGIN
    PERFORM @extschema@._flake_field('flaxid', 'random', random, 0, 72057594037927935);
    RETURN (substr(int8send(ms), 4, 5) || substr(int8send(random), 2, 7))::@extschema@.flaxid;
END
$$;
