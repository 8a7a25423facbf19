-- sno (docs/formats/sno.md): the native extension's functions of sql/sno.sql
-- that need no C, on the type of either edition (types/*.sql), and the
-- generator on its counter (generation.sql).

-- == Text and bytes ============================================================
-- The native type's I/O casts, as functions (a domain's text is bytea's).

CREATE FUNCTION @extschema@.sno_to_bytea(id @extschema@.sno) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT id::bytea $$;

CREATE FUNCTION @extschema@.sno_hash(id @extschema@.sno) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash(id::bytea) $$;

CREATE FUNCTION @extschema@.sno_hash_extended(id @extschema@.sno, seed bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash_extended(id::bytea, seed) $$;

-- == Generation ================================================================
-- One nextval of the sno counter gives (unit, sequence); it is used as it
-- is when the unit is the clock's 4 ms unit and the sequence fits 16 bits,
-- else _flake_counter_next advances the counter (generation.sql).
-- SECURITY DEFINER: the counter is its owner's, which no caller may set.
-- Few statements: each costs its own set-up in every transaction (a
-- single-row INSERT by DEFAULT pays it per row).
CREATE FUNCTION @extschema@.sno_generate(meta integer DEFAULT 0) RETURNS @extschema@.sno
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    node_setting text := current_setting('pg_flake.node', true);
    -- The node: the common cases inline, the rest (a format setting, lease
    -- ranges, a value to check) in _flake_node; a bad meta first.
    node bigint := CASE WHEN meta < 0 OR meta > 255
                        THEN @extschema@._flake_field('sno', 'meta', meta, 0, 255)::bigint
                        WHEN current_setting('pg_flake.sno_node', true) IS NULL
                             AND current_setting('pg_flake.lease_nodes', true) IS NULL
                             AND (node_setting IS NULL
                                  OR node_setting ~ '^[0-9]{1,3}$' AND node_setting::integer < 255)
                        THEN coalesce(node_setting::bigint, 0)
                        ELSE @extschema@._flake_node('sno') END;
    v bigint := nextval('@extschema@.pg_flake_counter_sno');
BEGIN
    IF (v & 524287) > 65535
       OR (v >> 19) <> ((date_part('epoch', clock_timestamp()) * 1000000)::bigint
                        - 1262304000000000) / 4000 THEN
        v := @extschema@._flake_counter_next('@extschema@.pg_flake_counter_sno', 'sno', 65535);
    END IF;
    -- units << 1 (tick-tock 0); meta, partition (node, process 0), sequence.
    RETURN (substr(int8send((v >> 19) << 1), 4, 5)
            || substr(int8send((meta::bigint << 32) | (node << 24) | (v & 65535)), 4, 5))::@extschema@.sno;
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.sno_generate(integer) FROM PUBLIC;

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@.sno_timestamp(id @extschema@.sno) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    -- 2010-01-01 plus the 39-bit count of 4 ms units.
    us bigint := 1262304000000000
        + (('x' || encode(substr(id::bytea, 1, 5), 'hex'))::bit(40)::bigint >> 1) * 4000;
BEGIN
    RETURN (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
END
$$;

CREATE FUNCTION @extschema@.sno_meta(id @extschema@.sno) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT get_byte(id::bytea, 5) $$;

CREATE FUNCTION @extschema@.sno_partition(id @extschema@.sno) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT get_byte(id::bytea, 6) << 8 | get_byte(id::bytea, 7) $$;

CREATE FUNCTION @extschema@.sno_sequence(id @extschema@.sno) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT get_byte(id::bytea, 8) << 8 | get_byte(id::bytea, 9) $$;

CREATE FUNCTION @extschema@.sno_tick_tock(id @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT get_byte(id::bytea, 4) & 1 = 1 $$;

CREATE FUNCTION @extschema@.sno_parts(id @extschema@.sno,
    OUT "time" timestamptz, OUT tick_tock boolean, OUT meta integer, OUT partition integer,
    OUT sequence integer)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := id::bytea;
    us bigint := 1262304000000000
        + (('x' || encode(substr(b, 1, 5), 'hex'))::bit(40)::bigint >> 1) * 4000;
BEGIN
    "time" := (timestamp '1970-01-01 00:00:00'
               + (us / 86400000000)::float8 * interval '1 day'
               + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
    tick_tock := get_byte(b, 4) & 1 = 1;
    meta := get_byte(b, 5);
    partition := get_byte(b, 6) << 8 | get_byte(b, 7);
    sequence := get_byte(b, 8) << 8 | get_byte(b, 9);
END
$$;

-- == IDs from parts ============================================================
-- The 4 ms unit of a time since 2010-01-01 (22008 outside the range); the
-- fields range-checked (22003), in the native extension's order.

CREATE FUNCTION @extschema@.sno_from_time("time" timestamptz) RETURNS @extschema@.sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    since bigint;
BEGIN
    IF isfinite("time") THEN
        since := (extract(epoch FROM "time") * 1000000)::bigint - 1262304000000000;
    END IF;
    IF since IS NULL OR since < 0 OR since / 4000 > 549755813887 THEN
        RAISE EXCEPTION 'timestamp out of range for type sno: accepted 2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00'
            USING ERRCODE = '22008';
    END IF;
    RETURN (substr(int8send((since / 4000) << 1), 4, 5) || '\x0000000000'::bytea)::@extschema@.sno;
END
$$;

CREATE FUNCTION @extschema@.sno_from_parts("time" timestamptz, meta integer, partition integer,
    sequence integer, tick_tock boolean DEFAULT false) RETURNS @extschema@.sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    since bigint;
BEGIN
    IF isfinite("time") THEN
        since := (extract(epoch FROM "time") * 1000000)::bigint - 1262304000000000;
    END IF;
    IF since IS NULL OR since < 0 OR since / 4000 > 549755813887 THEN
        RAISE EXCEPTION 'timestamp out of range for type sno: accepted 2010-01-01 00:00:00+00 to 2079-09-07 15:47:35.551999+00'
            USING ERRCODE = '22008';
    END IF;
    IF meta < 0 OR meta > 255 THEN
        PERFORM @extschema@._flake_field('sno', 'meta', meta, 0, 255);
    END IF;
    IF partition < 0 OR partition > 65535 THEN
        PERFORM @extschema@._flake_field('sno', 'partition', partition, 0, 65535);
    END IF;
    IF sequence < 0 OR sequence > 65535 THEN
        PERFORM @extschema@._flake_field('sno', 'sequence', sequence, 0, 65535);
    END IF;
    RETURN (substr(int8send(((since / 4000) << 1) | tick_tock::integer), 4, 5)
            || substr(int8send((meta::bigint << 32) | (partition::bigint << 16) | sequence), 4, 5))
           ::@extschema@.sno;
END
$$;
