-- The k-ordered uid's codecs (docs/formats/kuid.md#text-forms): 6 bits a
-- character over .0-9A-Z_a-z, base64's alphabet renamed; kuid64's 64 bits
-- end in two zero padding bits. The node fingerprint.

CREATE FUNCTION @extschema@.kuid96_in(input text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF input !~ '^[.0-9A-Z_a-z]{16}$' THEN
        PERFORM @extschema@._flake_invalid_text('type kuid96', input,
            '16 characters from ''.'', 0-9, A-Z, ''_'' and a-z');
    END IF;
    RETURN decode(translate(input,
        '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz',
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'), 'base64');
END
$$;

CREATE FUNCTION @extschema@.kuid96_out(id bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(id) <> 12 THEN
        PERFORM @extschema@._flake_invalid_binary('type kuid96', 'exactly 12', length(id));
    END IF;
    RETURN translate(encode(id, 'base64'),
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
        '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz');
END
$$;

-- The bytes of bytea::kuid96: exactly 12 (22P03 otherwise).
CREATE FUNCTION @extschema@._kuid96_bytes(bytes bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(bytes) <> 12 THEN
        PERFORM @extschema@._flake_invalid_binary('type kuid96', 'exactly 12', length(bytes));
    END IF;
    RETURN bytes;
END
$$;

CREATE FUNCTION @extschema@.kuid64_encode(kuid64 bigint) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM @extschema@._flake_non_negative('kuid64', kuid64);
    RETURN translate(left(encode(int8send(kuid64), 'base64'), 11),
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
        '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz');
END
$$;

-- 11 characters whose last two padding bits are zero (22P02 otherwise); a
-- value with the top bit set is no positive bigint (22003).
CREATE FUNCTION @extschema@.kuid64_decode(text text) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    a constant text := '.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
    v bigint;
BEGIN
    IF text !~ '^[.0-9A-Z_a-z]{11}$' OR ((strpos(a, right(text, 1)) - 1) & 3) <> 0 THEN
        PERFORM @extschema@._flake_invalid_text('kuid64', text,
            '11 characters from ''.'', 0-9, A-Z, ''_'' and a-z whose last two padding bits are zero');
    END IF;
    v := ('x' || encode(decode(translate(text, a,
             'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') || '=', 'base64'),
             'hex'))::bit(64)::bigint;
    IF v < 0 THEN
        PERFORM @extschema@._flake_value_out_of_range('kuid64', text, '0 to 9223372036854775807');
    END IF;
    RETURN v;
END
$$;

-- The ELF hash of the name's bytes, a UTF-8 character led by 0xC2 or 0xC3
-- counting as its Latin-1 byte: what the reference gets from phash2 of the
-- node atom (docs/formats/kuid.md#node-fingerprint).
CREATE FUNCTION @extschema@.kuid_node_fingerprint(name text) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := convert_to(name, 'UTF8');
    n integer := length(b);
    i integer := 0;
    c integer;
    h bigint := 0;
    g bigint;
BEGIN
    WHILE i < n LOOP
        c := get_byte(b, i);
        IF c IN (194, 195) AND i + 1 < n AND (get_byte(b, i + 1) & 192) = 128 THEN
            c := ((c & 3) << 6) | (get_byte(b, i + 1) & 63);
            i := i + 2;
        ELSE
            i := i + 1;
        END IF;
        h := ((h << 4) + c) & 4294967295;
        g := h & 4026531840;
        IF g <> 0 THEN
            h := (h # (g >> 24)) # g;
        END IF;
    END LOOP;
    RETURN h;
END
$$;

-- The neighbourhood interval I (5-10; 22023 otherwise).
CREATE FUNCTION @extschema@._kuid_interval(i integer) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF i < 5 OR i > 10 THEN
        RAISE EXCEPTION 'kuid interval % is outside 5 to 10', i USING ERRCODE = '22023';
    END IF;
    RETURN i;
END
$$;

-- pg_flake.kuid_interval (default 8), checked.
CREATE FUNCTION @extschema@._kuid_interval_setting() RETURNS integer
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    setting text := btrim(current_setting('pg_flake.kuid_interval', true));
BEGIN
    IF setting IS NULL OR setting = '' THEN
        RETURN 8;
    ELSIF setting !~ '^[0-9]{1,9}$' THEN
        RAISE EXCEPTION 'invalid value for parameter "pg_flake.kuid_interval": "%"', setting
            USING ERRCODE = '22023', HINT = 'An interval from 5 to 10.';
    END IF;
    RETURN @extschema@._kuid_interval(setting::integer);
END
$$;

-- The kuid64 layout (64 bits; A may reach 2^20 - 1 in a kuid96, so the
-- bigint may be negative) and a node to kuid96 bytes: the node goes in
-- above the low 24 + I bits (docs/formats/kuid.md#kuid96-layout).
CREATE FUNCTION @extschema@._kuid96_insert_node(local bigint, node bigint, i integer) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bits bit varying := substring(local::bit(64) FROM 1 FOR 40 - i)
                        || substring(node::bit(64) FROM 33)
                        || substring(local::bit(64) FROM 41 - i);
BEGIN
    RETURN int4send(substring(bits FROM 1 FOR 32)::bit(32)::integer)
        || int4send(substring(bits FROM 33 FOR 32)::bit(32)::integer)
        || int4send(substring(bits FROM 65 FOR 32)::bit(32)::integer);
END
$$;

-- kuid96 bytes to the kuid64 layout (as above) and the node.
CREATE FUNCTION @extschema@._kuid96_remove_node(id bytea, i integer, OUT local bigint, OUT node bigint)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bits bit(96) := ('x' || encode(id, 'hex'))::bit(96);
BEGIN
    local := (substring(bits FROM 1 FOR 40 - i) || substring(bits FROM 73 - i))::bit(64)::bigint;
    node := substring(bits FROM 41 - i FOR 32)::bit(32)::bigint;
END
$$;

-- The kuid64 layout of Erlang time fields and seq (A up to 2^20 - 1).
CREATE FUNCTION @extschema@._kuid_local(megaseconds bigint, seconds bigint, units bigint, seq bigint)
    RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT (megaseconds::bit(20) || seconds::bit(20) || units::bit(10) || seq::bit(14))::bit(64)::bigint
$$;

-- The time (Unix microseconds) and fields of the kuid64 layout, each as
-- stored (docs/guarantees.md "Decisions where the spec is silent").
CREATE FUNCTION @extschema@._kuid_fields(local bigint, OUT unix_us bigint, OUT megaseconds integer,
    OUT seconds integer, OUT microseconds integer, OUT seq integer)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    megaseconds := ((local >> 44) & 1048575)::integer;
    seconds := ((local >> 24) & 1048575)::integer;
    microseconds := (((local >> 14) & 1023) << 10)::integer;
    seq := (local & 16383)::integer;
    unix_us := (megaseconds::bigint * 1000000 + seconds) * 1000000 + microseconds;
END
$$;

-- Erlang time of a Unix-microsecond time below 2^mega_bits megaseconds:
-- (megaseconds, seconds, units), 22008 otherwise.
CREATE FUNCTION @extschema@._kuid_time(t timestamptz, fmt text, OUT megaseconds bigint,
    OUT seconds bigint, OUT units bigint)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    time_range text := CASE fmt WHEN 'kuid64' THEN '1970-01-01 00:00:00+00 to 18584-01-10 03:33:19.999999+00'
                       ELSE '1970-01-01 00:00:00+00 to 35198-01-19 07:06:39.999999+00' END;
    subject text := CASE fmt WHEN 'kuid64' THEN 'kuid64' ELSE 'type kuid96' END;
    us bigint := @extschema@._flake_unix_us(t, subject, time_range);
BEGIN
    megaseconds := us / 1000000000000;
    IF us < 0 OR megaseconds >= (CASE fmt WHEN 'kuid64' THEN 524288 ELSE 1048576 END) THEN
        RAISE EXCEPTION 'timestamp out of range for %: accepted %', subject, time_range
            USING ERRCODE = '22008';
    END IF;
    seconds := (us / 1000000) % 1000000;
    units := (us % 1000000) >> 10;
END
$$;
