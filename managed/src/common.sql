-- pg_flake_sql: helpers every format uses (docs/managed.md "How it is built").
--
-- Every function of this edition runs with search_path = pg_catalog,
-- pg_temp and names the edition's own objects through @extschema@, as the
-- native extension's SQL does (docs/guarantees.md "Privileges and trust").
-- The messages and SQLSTATEs are the native extension's
-- (docs/sql-reference.md "Errors").

-- The version of the edition's SQL, for the installers: the psql -f file
-- reads it to tell a fresh install from an upgrade (docs/managed.md
-- "Upgrades").
CREATE FUNCTION @extschema@.pg_flake_sql_version() RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT '@version@'::text $$;

-- Unix microseconds of a finite timestamp; an infinite one is outside every
-- format's range (22008, docs/guarantees.md "Decisions where the spec is
-- silent"). subject: "type sno", or "kuid64" for a format without a type.
CREATE FUNCTION @extschema@._flake_unix_us(t timestamptz, subject text, time_range text)
    RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT isfinite(t) THEN
        RAISE EXCEPTION 'timestamp out of range for %: accepted %', subject, time_range
            USING ERRCODE = '22008';
    END IF;
    RETURN (extract(epoch FROM t) * 1000000)::bigint;
END
$$;

-- The timestamp of a Unix-microsecond instant, exact over PostgreSQL's
-- whole range: whole days and the rest added to a timestamp without time
-- zone (no daylight saving in between), read as UTC.
CREATE FUNCTION @extschema@._flake_ts(unix_us bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT (timestamp '1970-01-01 00:00:00'
            + (unix_us / 86400000000)::float8 * interval '1 day'
            + (unix_us % 86400000000)::float8 * interval '1 microsecond') AT TIME ZONE 'UTC'
$$;

-- Up to 8 bytes read big-endian as a bigint (8 bytes: two's complement).
CREATE FUNCTION @extschema@._flake_int8(b bytea) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT ('x' || lpad(encode(b, 'hex'), 16, '0'))::bit(64)::bigint $$;

-- The low n bytes of v, big-endian.
CREATE FUNCTION @extschema@._flake_bytes(v bigint, n integer) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT substr(int8send(v), 9 - n, n) $$;

-- An unsigned integer of up to 16 bytes (big-endian) as numeric.
CREATE FUNCTION @extschema@._flake_numeric(b bytea) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hex text := lpad(encode(b, 'hex'), 32, '0');
    hi bigint := ('x' || substr(hex, 1, 16))::bit(64)::bigint;
    lo bigint := ('x' || substr(hex, 17, 16))::bit(64)::bigint;
BEGIN
    RETURN (CASE WHEN hi < 0 THEN hi + 18446744073709551616 ELSE hi END)::numeric
               * 18446744073709551616
           + (CASE WHEN lo < 0 THEN lo + 18446744073709551616 ELSE lo END)::numeric;
END
$$;

-- A non-negative integer below 2^128 as n big-endian bytes (the caller has
-- checked the range).
CREATE FUNCTION @extschema@._flake_numeric_bytes(v numeric, n integer) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hi numeric := div(v, 18446744073709551616);
    lo numeric := mod(v, 18446744073709551616);
BEGIN
    RETURN substr(int8send((CASE WHEN hi >= 9223372036854775808
                                 THEN hi - 18446744073709551616 ELSE hi END)::bigint)
                  || int8send((CASE WHEN lo >= 9223372036854775808
                                    THEN lo - 18446744073709551616 ELSE lo END)::bigint),
                  17 - n, n);
END
$$;

-- An integer from a numeric argument for the casts from numeric
-- (docs/formats/distributed_id.md#text-forms): negative, fractional, NaN,
-- infinite or above max is 22003, the message naming the numeric's text.
CREATE FUNCTION @extschema@._flake_numeric_integer(v numeric, subject text, max numeric,
    value_range text) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF v = 'NaN'::numeric OR v::text IN ('Infinity', '-Infinity') OR v < 0 OR v <> trunc(v)
       OR v > max THEN
        RAISE EXCEPTION 'value "%" is out of range for %', v::text, subject
            USING ERRCODE = '22003', DETAIL = format('Accepted values: %s.', value_range);
    END IF;
    RETURN trunc(v);
END
$$;

-- A field of a *_from_parts call outside its range (22003).
CREATE FUNCTION @extschema@._flake_field(format_name text, field text, v numeric, min numeric,
    max numeric) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF v < min OR v > max THEN
        RAISE EXCEPTION '% field "%" out of range: % (accepted: % to %)',
            format_name, field, v, min, max USING ERRCODE = '22003';
    END IF;
    RETURN v;
END
$$;

-- Malformed text (22P02), with the accepted form as the detail.
CREATE FUNCTION @extschema@._flake_invalid_text(subject text, input text, expected text)
    RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RAISE EXCEPTION 'invalid input syntax for %: "%"', subject, input
        USING ERRCODE = '22P02', DETAIL = format('Expected %s.', expected);
END
$$;

-- A binary value of the wrong length (22P03). Returns boolean so that the
-- domains' CHECKs can call it where the length is wrong.
CREATE FUNCTION @extschema@._flake_invalid_binary(subject text, expected text, actual integer)
    RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RAISE EXCEPTION 'invalid binary value for %: expected %, got % byte%', subject, expected,
        actual, CASE WHEN actual = 1 THEN '' ELSE 's' END
        USING ERRCODE = '22P03';
END
$$;

-- A value out of its type's range (22003). Returns boolean for the CHECKs.
CREATE FUNCTION @extschema@._flake_value_out_of_range(subject text, input text, value_range text)
    RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RAISE EXCEPTION 'value "%" is out of range for %', input, subject
        USING ERRCODE = '22003', DETAIL = format('Accepted values: %s.', value_range);
END
$$;

-- A bigint that a format reads as unsigned: negative stands for nothing.
CREATE FUNCTION @extschema@._flake_non_negative(subject text, v bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF v < 0 THEN
        PERFORM @extschema@._flake_value_out_of_range(subject, v::text,
            '0 to 9223372036854775807');
    END IF;
    RETURN v;
END
$$;

-- hash_bytes over a value's bytes, the native types' hash (and bytea's):
-- hash_array of a one-element array is 31 + the element's hash, the
-- element's hash being hashvarlena's (arrayfuncs.c, hash_array).
CREATE FUNCTION @extschema@._flake_hash(b bytea) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    h bigint := hash_array(ARRAY[b])::bigint - 31;
BEGIN
    RETURN (CASE WHEN h < -2147483648 THEN h + 4294967296 ELSE h END)::integer;
END
$$;

CREATE FUNCTION @extschema@._flake_hash_extended(b bytea, seed bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    h bigint := hash_array_extended(ARRAY[b], seed);
BEGIN
    RETURN CASE WHEN h >= -9223372036854775777 THEN h - 31
                ELSE (h::numeric - 31 + 18446744073709551616)::bigint END;
END
$$;
