-- The alphanumeric (base62) encoding's blocks (docs/formats/alphanumeric.md):
-- an unsigned 64-bit value as exactly 11 digits of 0-9A-Za-z, and back.

-- n base62 digits of an unsigned value (a bigint read as unsigned).
CREATE FUNCTION @extschema@._flake_base62(v bigint, n integer) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    a constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    out text := '';
BEGIN
    IF v < 0 THEN
        -- Above 2^63 - 1: the last digit and the rest from the unsigned value.
        out := substr(a, mod(v::numeric + 18446744073709551616, 62)::integer + 1, 1);
        v := div(v::numeric + 18446744073709551616, 62)::bigint;
        n := n - 1;
    END IF;
    FOR k IN 1 .. n LOOP
        out := substr(a, (v % 62)::integer + 1, 1) || out;
        v := v / 62;
    END LOOP;
    RETURN out;
END
$$;

-- The value of base62 digits, NULL for a character outside the alphabet or
-- a value of 2^64 or more.
CREATE FUNCTION @extschema@._flake_unbase62(digits text) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    a constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    v numeric := 0;
    d integer;
BEGIN
    IF digits !~ '^[0-9A-Za-z]*$' THEN
        RETURN NULL;
    END IF;
    FOR k IN 1 .. length(digits) LOOP
        d := strpos(a, substr(digits, k, 1)) - 1;
        v := v * 62 + d;
    END LOOP;
    IF v >= 18446744073709551616 THEN
        RETURN NULL;
    END IF;
    RETURN v;
END
$$;
