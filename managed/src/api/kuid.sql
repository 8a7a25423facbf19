-- The k-ordered uid (docs/formats/kuid.md): kuid64 on bigint and kuid96 on
-- the type of either edition; the native extension's functions of
-- sql/kuid.sql that need no C, and the generators on their counters, in
-- units of unix_seconds * 1024 + (µs >> 10) (generation.sql).

CREATE FUNCTION @extschema@.kuid96_to_bytea(id @extschema@.kuid96) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT id::bytea $$;

CREATE FUNCTION @extschema@.kuid96_hash(id @extschema@.kuid96) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash(id::bytea) $$;

CREATE FUNCTION @extschema@.kuid96_hash_extended(id @extschema@.kuid96, seed bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_hash_extended(id::bytea, seed) $$;

-- A kuid96 node argument, 0 to 4294967295 (22003).
CREATE FUNCTION @extschema@._kuid96_node_arg(node bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._flake_field('kuid96', 'node', node, 0, 4294967295)::bigint $$;

-- == Generation ================================================================
-- SECURITY DEFINER: the counters are their owner's.

CREATE FUNCTION @extschema@.kuid64_generate() RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v bigint := nextval('@extschema@.pg_flake_counter_kuid64');
    us bigint := (date_part('epoch', clock_timestamp()) * 1000000)::bigint;
    secs bigint;
BEGIN
    IF (v & 524287) > 16383 OR (v >> 19) <> (us / 1000000) * 1024 + (us % 1000000) / 1024 THEN
        v := @extschema@._flake_counter_next('@extschema@.pg_flake_counter_kuid64', 'kuid64', 16383);
    END IF;
    secs := (v >> 19) / 1024;
    -- A << 44 | B << 24 | (C >> 10) << 14 | seq (A below 2^19 up to the counter's end).
    RETURN ((secs / 1000000) << 44) | ((secs % 1000000) << 24) | (((v >> 19) % 1024) << 14)
           | (v & 16383);
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.kuid64_generate() FROM PUBLIC;

CREATE FUNCTION @extschema@.kuid96_generate() RETURNS @extschema@.kuid96
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    node_setting text := current_setting('pg_flake.node', true);
    node bigint;
    i integer;
    v bigint;
    us bigint;
    secs bigint;
    local bigint;
    bits bit varying;
BEGIN
    IF coalesce(current_setting('pg_flake.kuid_node', true), '') = ''
       AND current_setting('pg_flake.lease_nodes', true) IS NULL
       AND (node_setting IS NULL OR node_setting ~ '^[0-9]{1,9}$') THEN
        node := coalesce(node_setting::bigint, 0);
    ELSE
        node := @extschema@._flake_node('kuid96');
    END IF;
    IF current_setting('pg_flake.kuid_interval', true) IS NULL THEN
        i := 8;
    ELSE
        i := @extschema@._kuid_interval_setting();
    END IF;
    v := nextval('@extschema@.pg_flake_counter_kuid96');
    us := (date_part('epoch', clock_timestamp()) * 1000000)::bigint;
    IF (v & 524287) > 16383 OR (v >> 19) <> (us / 1000000) * 1024 + (us % 1000000) / 1024 THEN
        v := @extschema@._flake_counter_next('@extschema@.pg_flake_counter_kuid96', 'kuid96', 16383);
    END IF;
    secs := (v >> 19) / 1024;
    local := ((secs / 1000000) << 44) | ((secs % 1000000) << 24) | (((v >> 19) % 1024) << 14)
             | (v & 16383);
    -- _kuid96_insert_node, inline (one call fewer per ID): the node's 32
    -- bits between the local value's top 40 - i bits and the rest.
    bits := substring(local::bit(64) FROM 1 FOR 40 - i) || substring(node::bit(64) FROM 33)
            || substring(local::bit(64) FROM 41 - i);
    RETURN (int4send(substring(bits FROM 1 FOR 32)::bit(32)::integer)
            || int4send(substring(bits FROM 33 FOR 32)::bit(32)::integer)
            || int4send(substring(bits FROM 65 FOR 32)::bit(32)::integer))::@extschema@.kuid96;
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.kuid96_generate() FROM PUBLIC;

-- == kuid64: decoding, IDs from parts ===========================================

CREATE FUNCTION @extschema@.kuid64_parts(kuid64 bigint,
    OUT "time" timestamptz, OUT megaseconds integer, OUT seconds integer, OUT microseconds integer,
    OUT seq integer)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    f record := @extschema@._kuid_fields(@extschema@._flake_non_negative('kuid64', kuid64));
BEGIN
    "time" := @extschema@._flake_ts(f.unix_us);
    megaseconds := f.megaseconds;
    seconds := f.seconds;
    microseconds := f.microseconds;
    seq := f.seq;
END
$$;

CREATE FUNCTION @extschema@.kuid64_timestamp(kuid64 bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT p."time" FROM @extschema@.kuid64_parts(kuid64) p $$;

CREATE FUNCTION @extschema@.kuid64_from_parts("time" timestamptz, seq integer) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record := @extschema@._kuid_time("time", 'kuid64');
BEGIN
    PERFORM @extschema@._flake_field('kuid64', 'seq', seq, 0, 16383);
    RETURN @extschema@._kuid_local(t.megaseconds, t.seconds, t.units, seq);
END
$$;

CREATE FUNCTION @extschema@.kuid64_from_time("time" timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.kuid64_from_parts("time", 0) $$;

-- == kuid96: decoding ==========================================================

CREATE FUNCTION @extschema@.kuid96_parts(id @extschema@.kuid96, "interval" integer,
    OUT "time" timestamptz, OUT node bigint, OUT seq integer)
    RETURNS record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    r record := @extschema@._kuid96_remove_node(id::bytea, @extschema@._kuid_interval("interval"));
    f record := @extschema@._kuid_fields(r.local);
BEGIN
    "time" := @extschema@._flake_ts(f.unix_us);
    node := r.node;
    seq := f.seq;
END
$$;

CREATE FUNCTION @extschema@.kuid96_parts(id @extschema@.kuid96,
    OUT "time" timestamptz, OUT node bigint, OUT seq integer)
    RETURNS record
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT * FROM @extschema@.kuid96_parts(id, @extschema@._kuid_interval_setting()) $$;

CREATE FUNCTION @extschema@.kuid96_timestamp(id @extschema@.kuid96, "interval" integer) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT p."time" FROM @extschema@.kuid96_parts(id, "interval") p $$;

CREATE FUNCTION @extschema@.kuid96_timestamp(id @extschema@.kuid96) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT p."time" FROM @extschema@.kuid96_parts(id, @extschema@._kuid_interval_setting()) p $$;

CREATE FUNCTION @extschema@.kuid96_node(id @extschema@.kuid96, "interval" integer) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT (@extschema@._kuid96_remove_node(id::bytea, @extschema@._kuid_interval("interval"))).node $$;

CREATE FUNCTION @extschema@.kuid96_node(id @extschema@.kuid96) RETURNS bigint
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.kuid96_node(id, @extschema@._kuid_interval_setting()) $$;

-- == kuid96: IDs from parts ====================================================

CREATE FUNCTION @extschema@.kuid96_from_parts("time" timestamptz, node bigint, seq integer,
    "interval" integer) RETURNS @extschema@.kuid96
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n bigint := @extschema@._kuid96_node_arg(node);
    i integer := @extschema@._kuid_interval("interval");
    t record := @extschema@._kuid_time("time", 'kuid96');
BEGIN
    PERFORM @extschema@._flake_field('kuid96', 'seq', seq, 0, 16383);
    RETURN @extschema@._kuid96_insert_node(@extschema@._kuid_local(t.megaseconds, t.seconds, t.units, seq),
                                          n, i)::@extschema@.kuid96;
END
$$;

CREATE FUNCTION @extschema@.kuid96_from_parts("time" timestamptz, node bigint, seq integer)
    RETURNS @extschema@.kuid96
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n bigint := @extschema@._kuid96_node_arg(node);
BEGIN
    RETURN @extschema@.kuid96_from_parts("time", n, seq, @extschema@._kuid_interval_setting());
END
$$;

CREATE FUNCTION @extschema@.kuid96_from_time("time" timestamptz, "interval" integer) RETURNS @extschema@.kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.kuid96_from_parts("time", 0, 0, "interval") $$;

CREATE FUNCTION @extschema@.kuid96_from_time("time" timestamptz) RETURNS @extschema@.kuid96
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.kuid96_from_parts("time", 0, 0, @extschema@._kuid_interval_setting()) $$;

-- == kuid64 made global, and back ==============================================

CREATE FUNCTION @extschema@.kuid96_globalize(kuid64 bigint, node bigint, "interval" integer)
    RETURNS @extschema@.kuid96
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n bigint := @extschema@._kuid96_node_arg(node);
    i integer := @extschema@._kuid_interval("interval");
BEGIN
    RETURN @extschema@._kuid96_insert_node(@extschema@._flake_non_negative('kuid64', kuid64), n, i)
        ::@extschema@.kuid96;
END
$$;

CREATE FUNCTION @extschema@.kuid96_globalize(kuid64 bigint, node bigint) RETURNS @extschema@.kuid96
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n bigint := @extschema@._kuid96_node_arg(node);
BEGIN
    RETURN @extschema@.kuid96_globalize(kuid64, n, @extschema@._kuid_interval_setting());
END
$$;

-- With this server's node (docs/sql-reference.md "Node identity").
CREATE FUNCTION @extschema@.kuid96_globalize(kuid64 bigint) RETURNS @extschema@.kuid96
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT @extschema@.kuid96_globalize(kuid64, @extschema@._flake_node('kuid96'),
                                       @extschema@._kuid_interval_setting())
$$;

CREATE FUNCTION @extschema@.kuid96_localize(id @extschema@.kuid96, "interval" integer) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    r record := @extschema@._kuid96_remove_node(id::bytea, @extschema@._kuid_interval("interval"));
BEGIN
    IF r.local < 0 THEN
        RAISE EXCEPTION 'timestamp out of range for kuid64: accepted 1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00'
            USING ERRCODE = '22008';
    END IF;
    RETURN r.local;
END
$$;

CREATE FUNCTION @extschema@.kuid96_localize(id @extschema@.kuid96) RETURNS bigint
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.kuid96_localize(id, @extschema@._kuid_interval_setting()) $$;
