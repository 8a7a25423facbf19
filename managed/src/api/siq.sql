-- SIQ (docs/formats/siq.md): the native extension's functions of sql/siq.sql
-- that need no C, on the type of either edition, and the generator on its
-- counters, one per kind (generation.sql).

-- == Text and bytes ============================================================

CREATE FUNCTION @extschema@.siq_to_bytea(id @extschema@.siq) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT id::bytea $$;

CREATE FUNCTION @extschema@.siq_hash(id @extschema@.siq) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash(id::bytea) $$;

CREATE FUNCTION @extschema@.siq_hash_extended(id @extschema@.siq, seed bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash_extended(id::bytea, seed) $$;

-- == Generation ================================================================

-- The 32 domain bits of generated SIQs (docs/formats/siq.md#domain-hash):
-- the hash of pg_flake.siq_domain with the node in the top byte;
-- pg_flake.siq_node keeps 0.1.0's rule (0 keeps the hash's byte),
-- pg_flake.node always replaces it. Where the hash keeps its own byte,
-- that byte must not be reserved for leases either.
CREATE FUNCTION @extschema@._siq_domain_bits() RETURNS bigint
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    domain text := coalesce(current_setting('pg_flake.siq_domain', true), '');
    hash bigint := @extschema@.siq_domain_name_hash(domain);
    identity record := @extschema@._flake_node_source('siq');
    node bigint := @extschema@._flake_node('siq');
    bits bigint;
    reserved record;
BEGIN
    bits := CASE WHEN identity.source = 'pg_flake.siq_node' AND node = 0 THEN hash
                 WHEN identity.source = 'default' THEN hash
                 ELSE (hash & 16777215) | (node << 24) END;
    IF bits >> 24 <> node THEN
        FOR reserved IN SELECT * FROM @extschema@._flake_lease_nodes('siq') LOOP
            IF bits >> 24 BETWEEN reserved.first_node AND reserved.last_node THEN
                RAISE EXCEPTION 'node % (from the hash of pg_flake.siq_domain) is reserved for application leases of siq (pg_flake.lease_nodes)',
                    bits >> 24
                    USING ERRCODE = '55000',
                          HINT = 'Give this server another node, or set pg_flake.lease_nodes to a range no server uses.';
            END IF;
        END LOOP;
    END IF;
    RETURN bits;
END
$$;

-- One nextval of the kind's counter gives (tick, serial); used as it is
-- when the tick is the clock's and the serial fits the kind's field.
-- SECURITY DEFINER: the counters are their owner's.
CREATE FUNCTION @extschema@.siq_generate(kind text) RETURNS @extschema@.siq
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    counter regclass;
    suffix integer;
    bits integer;
    max_serial bigint;
    domain_bits bigint;
    v bigint;
    us bigint;
    tick bigint;
    memory text;
    last_tick bigint;
BEGIN
    CASE lower(kind)
        WHEN 'user' THEN counter := '@extschema@.pg_flake_counter_siq_user'; suffix := 0; bits := 5;
        WHEN 'application' THEN counter := '@extschema@.pg_flake_counter_siq_application'; suffix := 16; bits := 5;
        WHEN 'event' THEN counter := '@extschema@.pg_flake_counter_siq_event'; suffix := 8; bits := 5;
        WHEN 'premium' THEN counter := '@extschema@.pg_flake_counter_siq_premium'; suffix := 24; bits := 5;
        WHEN 'group' THEN counter := '@extschema@.pg_flake_counter_siq_group'; suffix := 4; bits := 5;
        WHEN 'collection' THEN counter := '@extschema@.pg_flake_counter_siq_collection'; suffix := 20; bits := 5;
        WHEN 'invite' THEN counter := '@extschema@.pg_flake_counter_siq_invite'; suffix := 12; bits := 5;
        WHEN 'tag' THEN counter := '@extschema@.pg_flake_counter_siq_tag'; suffix := 2; bits := 5;
        WHEN 'channel' THEN counter := '@extschema@.pg_flake_counter_siq_channel'; suffix := 10; bits := 5;
        WHEN 'thread' THEN counter := '@extschema@.pg_flake_counter_siq_thread'; suffix := 6; bits := 4;
        WHEN 'message' THEN counter := '@extschema@.pg_flake_counter_siq_message'; suffix := 14; bits := 4;
        WHEN 'ternary' THEN counter := '@extschema@.pg_flake_counter_siq_ternary'; suffix := 1; bits := 3;
        WHEN 'manytomany' THEN counter := '@extschema@.pg_flake_counter_siq_manytomany'; suffix := 5; bits := 3;
        WHEN 'multi' THEN counter := '@extschema@.pg_flake_counter_siq_multi'; suffix := 3; bits := 3;
        WHEN 'content' THEN counter := '@extschema@.pg_flake_counter_siq_content'; suffix := 7; bits := 3;        ELSE PERFORM @extschema@._siq_kind(kind);
    END CASE;
    max_serial := (1 << (16 - bits)) - 1;
    IF current_setting('pg_flake.siq_node', true) IS NULL
       AND current_setting('pg_flake.node', true) IS NULL
       AND current_setting('pg_flake.lease_nodes', true) IS NULL
       AND coalesce(current_setting('pg_flake.siq_domain', true), '') = '' THEN
        domain_bits := 0;
    ELSE
        domain_bits := @extschema@._siq_domain_bits();
    END IF;
    v := nextval(counter);
    us := (date_part('epoch', clock_timestamp()) * 1000000)::bigint;
    -- The clock's tick, counted from 2024-01-01; the counter counts blocks
    -- of 64 ticks (generation.sql).
    tick := (us / 1000000) * 65536 + (us % 1000000) * 65536 / 1000000 - 111678878515200;
    -- Usable as it is: a serial that fits, in the clock's block (ahead of
    -- it, logical time, the slow path checks pg_flake.max_clock_lag).
    IF (v & 32767) > max_serial OR (v >> 16) <> tick >> 6 THEN
        v := @extschema@._flake_counter_next(counter, 'siq', max_serial);
    END IF;
    memory := 'pg_flake_sql.siq_tick_' || counter::oid;
    IF (v & 32768) <> 0 THEN
        -- A logical block: its last tick.
        tick := ((v >> 16) << 6) + 63;
    ELSE
        -- The clock's tick, at least the block's first (a block the
        -- counter moved to after that reading), and at least the tick of
        -- this session's previous ID of the kind in the same block (a
        -- clock set back inside it), which the session keeps in a setting.
        last_tick := nullif(current_setting(memory, true), '')::bigint;
        tick := greatest(tick, (v >> 16) << 6,
                         CASE WHEN last_tick >> 6 = v >> 16 THEN last_tick END);
    END IF;
    PERFORM set_config(memory, tick::text, false);
    -- ticks (counted from 2024-01-01) and shard 0, the domain bits, low16.
    RETURN (int8send((tick + 111678878515200) << 8)
            || int4send(domain_bits::bit(32)::integer)
            || substr(int4send(((v & 32767) << bits | suffix)::integer), 3, 2))::@extschema@.siq;
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.siq_generate(text) FROM PUBLIC;

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@._siq_ticks(id bytea) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT ('x' || encode(substr(id, 1, 7), 'hex'))::bit(56)::bigint $$;

-- The start of the tick, rounded down to the microsecond:
-- floor(ticks * 10^6 / 65536), exact.
CREATE FUNCTION @extschema@.siq_timestamp(id @extschema@.siq) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ticks bigint := ('x' || encode(substr(id::bytea, 1, 7), 'hex'))::bit(56)::bigint;
    us bigint := (ticks / 65536) * 1000000 + (ticks % 65536) * 1000000 / 65536;
BEGIN
    RETURN (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
END
$$;

CREATE FUNCTION @extschema@.siq_kind(id @extschema@.siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._siq_kind_of(get_byte(id::bytea, 12) << 8 | get_byte(id::bytea, 13)) $$;

CREATE FUNCTION @extschema@.siq_serial(id @extschema@.siq) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._siq_serial_of(get_byte(id::bytea, 12) << 8 | get_byte(id::bytea, 13)) $$;

CREATE FUNCTION @extschema@.siq_shard(id @extschema@.siq) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT get_byte(id::bytea, 7) $$;

CREATE FUNCTION @extschema@.siq_domain_hash(id @extschema@.siq) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT ('x' || encode(substr(id::bytea, 9, 4), 'hex'))::bit(32)::bigint $$;

CREATE FUNCTION @extschema@.siq_parts(id @extschema@.siq,
    OUT ticks bigint, OUT "time" timestamptz, OUT shard integer, OUT domain_hash bigint,
    OUT kind text, OUT serial integer, OUT low16 integer)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := id::bytea;
    us bigint;
BEGIN
    ticks := ('x' || encode(substr(b, 1, 7), 'hex'))::bit(56)::bigint;
    us := (ticks / 65536) * 1000000 + (ticks % 65536) * 1000000 / 65536;
    "time" := (timestamp '1970-01-01 00:00:00'
            + (us / 86400000000)::float8 * interval '1 day'
            + (us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC';
    shard := get_byte(b, 7);
    domain_hash := ('x' || encode(substr(b, 9, 4), 'hex'))::bit(32)::bigint;
    low16 := get_byte(b, 12) << 8 | get_byte(b, 13);
    -- As _siq_kind_of and _siq_serial_of (codec/siq.sql), inline.
    kind := CASE
        WHEN low16 & 1 = 1 THEN
            CASE low16 & 7 WHEN 1 THEN 'ternary' WHEN 5 THEN 'manytomany' WHEN 3 THEN 'multi'
                           ELSE 'content' END
        WHEN low16 & 7 = 6 THEN
            CASE low16 & 15 WHEN 6 THEN 'thread' ELSE 'message' END
        ELSE
            CASE low16 & 31 WHEN 0 THEN 'user' WHEN 16 THEN 'application' WHEN 8 THEN 'event'
                            WHEN 24 THEN 'premium' WHEN 4 THEN 'group' WHEN 20 THEN 'collection'
                            WHEN 12 THEN 'invite' WHEN 2 THEN 'tag' WHEN 10 THEN 'channel' END
    END;
    serial := low16 >> CASE WHEN low16 & 1 = 1 THEN 3 WHEN low16 & 7 = 6 THEN 4 ELSE 5 END;
END
$$;

-- == IDs from parts ============================================================

-- The tick of a time: floor(µs * 65536 / 10^6), 22008 outside 1970 to 36812.
CREATE FUNCTION @extschema@._siq_ticks_at(t timestamptz) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    us bigint := @extschema@._flake_unix_us(t, 'type siq',
        '1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00');
    ticks bigint;
BEGIN
    ticks := (us / 1000000) * 65536 + (us % 1000000) * 65536 / 1000000;
    IF us < 0 OR ticks > 72057594037927935 THEN
        RAISE EXCEPTION 'timestamp out of range for type siq: accepted 1970-01-01 00:00:00+00 to 36812-02-20 00:36:15.999999+00'
            USING ERRCODE = '22008';
    END IF;
    RETURN ticks;
END
$$;

CREATE FUNCTION @extschema@.siq_from_time("time" timestamptz) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN (int8send(@extschema@._siq_ticks_at("time") << 8)
            || '\x000000000000'::bytea)::@extschema@.siq;
END
$$;

CREATE FUNCTION @extschema@.siq_from_tick_parts(ticks bigint, shard integer, domain_hash bigint,
    kind text, serial integer) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    k record := @extschema@._siq_kind(kind);
BEGIN
    PERFORM @extschema@._flake_field('siq', 'serial', serial, 0, (1 << (16 - k.bits)) - 1);
    PERFORM @extschema@._flake_field('siq', 'ticks', ticks, 0, 72057594037927935);
    PERFORM @extschema@._flake_field('siq', 'shard', shard, 0, 255);
    PERFORM @extschema@._flake_field('siq', 'domain_hash', domain_hash, 0, 4294967295);
    RETURN (int8send(ticks << 8 | shard) || int4send(domain_hash::bit(32)::integer)
            || substr(int4send(serial << k.bits | k.suffix), 3, 2))::@extschema@.siq;
END
$$;

CREATE FUNCTION @extschema@.siq_from_parts("time" timestamptz, shard integer, domain_hash bigint,
    kind text, serial integer) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN @extschema@.siq_from_tick_parts(@extschema@._siq_ticks_at("time"), shard, domain_hash,
                                          kind, serial);
END
$$;

-- == Text and number forms =====================================================

CREATE FUNCTION @extschema@.siq_to_hex(id @extschema@.siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT encode(id::bytea, 'hex') $$;

CREATE FUNCTION @extschema@.siq_from_hex(hex text) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._siq_from_hex(hex)::@extschema@.siq; END $$;

-- URL-safe base64 of a zero byte and the 14: 20 characters, no padding.
CREATE FUNCTION @extschema@.siq_to_base64(id @extschema@.siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT translate(encode('\x00'::bytea || id::bytea, 'base64'), '+/', '-_') $$;

CREATE FUNCTION @extschema@.siq_to_did(id @extschema@.siq) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT 'did:siq:' || @extschema@.siq_out(id::bytea) $$;

CREATE FUNCTION @extschema@.siq_to_numeric(id @extschema@.siq) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_numeric(id::bytea) $$;

CREATE FUNCTION @extschema@.siq_from_numeric(value numeric) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN @extschema@._flake_numeric_bytes(@extschema@._flake_numeric_integer(value, 'type siq',
        5192296858534827628530496329220095, '0 to 5192296858534827628530496329220095'), 14)::@extschema@.siq;
END
$$;
