-- The alphanumeric (base62) encoding (docs/formats/alphanumeric.md): the
-- native extension's functions of sql/alphanumeric.sql.

CREATE FUNCTION @extschema@.alphanumeric_encode(value bigint) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN @extschema@._flake_base62(
        @extschema@._flake_non_negative('the alphanumeric encoding of bigint', value), 11);
END
$$;

CREATE FUNCTION @extschema@.alphanumeric_encode(value uuid) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := uuid_send(value);
BEGIN
    RETURN @extschema@._flake_base62(('x' || encode(substr(b, 1, 8), 'hex'))::bit(64)::bigint, 11)
        || @extschema@._flake_base62(('x' || encode(substr(b, 9, 8), 'hex'))::bit(64)::bigint, 11);
END
$$;

CREATE FUNCTION @extschema@.alphanumeric_encode(value @extschema@.distributed_id) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := value::bytea;
BEGIN
    RETURN @extschema@._flake_base62(('x' || encode(substr(b, 1, 4), 'hex'))::bit(32)::bigint, 5)
        || @extschema@._flake_base62(('x' || encode(substr(b, 5, 8), 'hex'))::bit(64)::bigint, 11);
END
$$;

CREATE FUNCTION @extschema@.alphanumeric_decode_bigint(text text) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v numeric;
BEGIN
    IF octet_length(text) = 11 THEN
        v := @extschema@._flake_unbase62(text);
    END IF;
    IF v IS NULL THEN
        PERFORM @extschema@._flake_invalid_text('type bigint', text,
            '11 characters of 0-9, A-Z, a-z, at most LygHa16AHYF');
    END IF;
    IF v > 9223372036854775807 THEN
        PERFORM @extschema@._flake_value_out_of_range('type bigint', text,
            '00000000000 to AzL8n0Y58m7 (0 to 9223372036854775807)');
    END IF;
    RETURN v::bigint;
END
$$;

CREATE FUNCTION @extschema@.alphanumeric_decode_uuid(text text) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    high numeric;
    low numeric;
BEGIN
    IF octet_length(text) = 22 THEN
        high := @extschema@._flake_unbase62(substr(text, 1, 11));
        low := @extschema@._flake_unbase62(substr(text, 12));
    END IF;
    IF high IS NULL OR low IS NULL THEN
        PERFORM @extschema@._flake_invalid_text('type uuid', text,
            '22 characters of 0-9, A-Z, a-z, each 11-character half at most LygHa16AHYF');
    END IF;
    RETURN encode(@extschema@._flake_numeric_bytes(high * 18446744073709551616 + low, 16), 'hex')::uuid;
END
$$;

CREATE FUNCTION @extschema@.alphanumeric_decode_distributed_id(text text) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    high numeric;
    low numeric;
BEGIN
    IF octet_length(text) = 16 THEN
        high := @extschema@._flake_unbase62(substr(text, 1, 5));
        low := @extschema@._flake_unbase62(substr(text, 6));
    END IF;
    IF high IS NULL OR low IS NULL THEN
        PERFORM @extschema@._flake_invalid_text('type distributed_id', text,
            '16 characters of 0-9, A-Z, a-z, the last 11 at most LygHa16AHYF');
    END IF;
    IF high * 18446744073709551616 + low > 9999999999999999999999999999 THEN
        PERFORM @extschema@._flake_value_out_of_range('type distributed_id', text,
            '0000000000000000 to agbFu5KnEQGxp4QB (0 to 9999999999999999999999999999)');
    END IF;
    RETURN @extschema@._flake_numeric_bytes(high * 18446744073709551616 + low, 12)::@extschema@.distributed_id;
END
$$;
