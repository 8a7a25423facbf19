-- DistributedId's codecs on the stored bytes (docs/formats/distributed_id.md#text-forms):
-- the decimal integer, the hex form, the range 0 to 10^28 - 1.

-- Decimal digits, surrounded by C white space, leading zeros allowed: 22P02
-- for anything else, 22003 beyond 28 significant digits.
CREATE FUNCTION @extschema@.distributed_id_in(input text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    digits text := btrim(input, E' \t\n\r\x0b\x0c');
BEGIN
    IF digits !~ '^[0-9]+$' THEN
        PERFORM @extschema@._flake_invalid_text('type distributed_id', input, '1 to 28 decimal digits');
    END IF;
    digits := ltrim(digits, '0');
    IF length(digits) > 28 THEN
        PERFORM @extschema@._flake_value_out_of_range('type distributed_id', input,
            '0 to 9999999999999999999999999999');
    END IF;
    RETURN @extschema@._flake_numeric_bytes(CASE WHEN digits = '' THEN 0 ELSE digits::numeric END, 12);
END
$$;

CREATE FUNCTION @extschema@.distributed_id_out(id bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(id) <> 12 THEN
        PERFORM @extschema@._flake_invalid_binary('type distributed_id', 'exactly 12', length(id));
    END IF;
    RETURN @extschema@._flake_numeric(id)::text;
END
$$;

-- The bytes of bytea::distributed_id: exactly 12 (22P03), at most 10^28 - 1
-- (22003, naming the value).
CREATE FUNCTION @extschema@._distributed_id_bytes(bytes bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(bytes) <> 12 THEN
        PERFORM @extschema@._flake_invalid_binary('type distributed_id', 'exactly 12', length(bytes));
    END IF;
    IF bytes > '\x204fce5e3e2502610fffffff'::bytea THEN
        PERFORM @extschema@._flake_value_out_of_range('type distributed_id',
            @extschema@._flake_numeric(bytes)::text, '0 to 9999999999999999999999999999');
    END IF;
    RETURN bytes;
END
$$;

-- Exactly 26 hex digits in any case (22P02); a non-zero first byte or a
-- value above 10^28 - 1 is 22003.
CREATE FUNCTION @extschema@._distributed_id_from_hex(hex text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bytes bytea;
BEGIN
    IF hex !~ '^[0-9A-Fa-f]{26}$' THEN
        PERFORM @extschema@._flake_invalid_text('type distributed_id', hex,
            'exactly 26 hexadecimal digits');
    END IF;
    bytes := decode(hex, 'hex');
    IF get_byte(bytes, 0) <> 0 OR substr(bytes, 2) > '\x204fce5e3e2502610fffffff'::bytea THEN
        PERFORM @extschema@._flake_value_out_of_range('type distributed_id', hex,
            '0 to 9999999999999999999999999999');
    END IF;
    RETURN substr(bytes, 2);
END
$$;
