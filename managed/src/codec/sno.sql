-- sno's text codec on the stored bytes (docs/formats/sno.md#text-forms):
-- 16 characters over 23456789abcdefghijklmnopqrstuvwx, 5 bits each, most
-- significant first; decoding is strict (exactly 16 characters of the
-- alphabet, lower case), 22P02 otherwise. sno_in and sno_out are the pg_tle
-- type's I/O (types/pg_tle.sql); the domain edition calls them from
-- sno_from_text and sno_to_text (api/sno.sql).

CREATE FUNCTION @extschema@.sno_in(input text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    c bytea;
    hi bigint;
    lo bigint;
BEGIN
    IF input !~ '^[2-9a-x]{16}$' THEN
        PERFORM @extschema@._flake_invalid_text('type sno', input,
            '16 characters from 2-9 and a-x');
    END IF;
    -- ASCII only now: '2'..'9' (50..57) are 0..7, 'a'..'x' (97..120) 8..31.
    c := convert_to(input, 'UTF8');
    hi := ((get_byte(c, 0) - 50 - (get_byte(c, 0) > 57)::int * 39)::bigint << 35)
        | ((get_byte(c, 1) - 50 - (get_byte(c, 1) > 57)::int * 39)::bigint << 30)
        | ((get_byte(c, 2) - 50 - (get_byte(c, 2) > 57)::int * 39)::bigint << 25)
        | ((get_byte(c, 3) - 50 - (get_byte(c, 3) > 57)::int * 39)::bigint << 20)
        | ((get_byte(c, 4) - 50 - (get_byte(c, 4) > 57)::int * 39)::bigint << 15)
        | ((get_byte(c, 5) - 50 - (get_byte(c, 5) > 57)::int * 39)::bigint << 10)
        | ((get_byte(c, 6) - 50 - (get_byte(c, 6) > 57)::int * 39)::bigint << 5)
        | (get_byte(c, 7) - 50 - (get_byte(c, 7) > 57)::int * 39)::bigint;
    lo := ((get_byte(c, 8) - 50 - (get_byte(c, 8) > 57)::int * 39)::bigint << 35)
        | ((get_byte(c, 9) - 50 - (get_byte(c, 9) > 57)::int * 39)::bigint << 30)
        | ((get_byte(c, 10) - 50 - (get_byte(c, 10) > 57)::int * 39)::bigint << 25)
        | ((get_byte(c, 11) - 50 - (get_byte(c, 11) > 57)::int * 39)::bigint << 20)
        | ((get_byte(c, 12) - 50 - (get_byte(c, 12) > 57)::int * 39)::bigint << 15)
        | ((get_byte(c, 13) - 50 - (get_byte(c, 13) > 57)::int * 39)::bigint << 10)
        | ((get_byte(c, 14) - 50 - (get_byte(c, 14) > 57)::int * 39)::bigint << 5)
        | (get_byte(c, 15) - 50 - (get_byte(c, 15) > 57)::int * 39)::bigint;
    RETURN substr(int8send(hi), 4, 5) || substr(int8send(lo), 4, 5);
END
$$;

CREATE FUNCTION @extschema@.sno_out(id bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    a constant text := '23456789abcdefghijklmnopqrstuvwx';
    hi bigint;
    lo bigint;
BEGIN
    IF length(id) <> 10 THEN
        PERFORM @extschema@._flake_invalid_binary('type sno', 'exactly 10', length(id));
    END IF;
    hi := ('x' || encode(substr(id, 1, 5), 'hex'))::bit(40)::bigint;
    lo := ('x' || encode(substr(id, 6, 5), 'hex'))::bit(40)::bigint;
    RETURN substr(a, ((hi >> 35) & 31)::int + 1, 1) || substr(a, ((hi >> 30) & 31)::int + 1, 1)
        || substr(a, ((hi >> 25) & 31)::int + 1, 1) || substr(a, ((hi >> 20) & 31)::int + 1, 1)
        || substr(a, ((hi >> 15) & 31)::int + 1, 1) || substr(a, ((hi >> 10) & 31)::int + 1, 1)
        || substr(a, ((hi >> 5) & 31)::int + 1, 1) || substr(a, (hi & 31)::int + 1, 1)
        || substr(a, ((lo >> 35) & 31)::int + 1, 1) || substr(a, ((lo >> 30) & 31)::int + 1, 1)
        || substr(a, ((lo >> 25) & 31)::int + 1, 1) || substr(a, ((lo >> 20) & 31)::int + 1, 1)
        || substr(a, ((lo >> 15) & 31)::int + 1, 1) || substr(a, ((lo >> 10) & 31)::int + 1, 1)
        || substr(a, ((lo >> 5) & 31)::int + 1, 1) || substr(a, (lo & 31)::int + 1, 1);
END
$$;

-- The bytes of bytea::sno: exactly 10 (22P03 otherwise).
CREATE FUNCTION @extschema@._sno_bytes(bytes bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(bytes) <> 10 THEN
        PERFORM @extschema@._flake_invalid_binary('type sno', 'exactly 10', length(bytes));
    END IF;
    RETURN bytes;
END
$$;
