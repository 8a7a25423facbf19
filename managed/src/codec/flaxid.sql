-- Flax ID's text codec on the stored bytes (docs/formats/flaxid.md#text-forms):
-- 16 characters of 6 bits over -0-9A-Z_a-z, which is base64's alphabet
-- renamed: translate() and PostgreSQL's base64 do the work.

CREATE FUNCTION @extschema@.flaxid_in(input text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF input !~ '^[-0-9A-Z_a-z]{16}$' THEN
        PERFORM @extschema@._flake_invalid_text('type flaxid', input,
            '16 characters from ''-'', 0-9, A-Z, ''_'' and a-z');
    END IF;
    RETURN decode(translate(input,
        '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz',
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'), 'base64');
END
$$;

CREATE FUNCTION @extschema@.flaxid_out(id bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(id) <> 12 THEN
        PERFORM @extschema@._flake_invalid_binary('type flaxid', 'exactly 12', length(id));
    END IF;
    RETURN translate(encode(id, 'base64'),
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
        '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz');
END
$$;

-- The bytes of bytea::flaxid: exactly 12 (22P03 otherwise).
CREATE FUNCTION @extschema@._flaxid_bytes(bytes bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(bytes) <> 12 THEN
        PERFORM @extschema@._flake_invalid_binary('type flaxid', 'exactly 12', length(bytes));
    END IF;
    RETURN bytes;
END
$$;
