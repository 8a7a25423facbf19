-- Public identities (docs/formats/public_id.md): AES in ECB mode over one
-- block, through pgcrypto, which every managed service offers: PL/pgSQL has
-- no AES of its own. Without pgcrypto in the database, these functions
-- refuse (55000, hint: CREATE EXTENSION pgcrypto); docs/managed.md says so.
-- The forms without a key refuse too, as the native ones do without
-- preloading: this edition cannot hide pg_flake.public_id_key from other
-- roles, so it never reads it.

-- One AES block (ECB, no padding) under a 16-, 24- or 32-byte key (22023
-- for another length), with pgcrypto's encrypt or decrypt, found through
-- the pgcrypto extension's schema.
CREATE FUNCTION @extschema@._public_id_aes(block bytea, key bytea, decrypting boolean) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    crypto_schema name;
    result bytea;
BEGIN
    IF length(key) NOT IN (16, 24, 32) THEN
        RAISE EXCEPTION 'public id key must be 16, 24 or 32 bytes (AES-128, AES-192, AES-256), got % bytes', length(key)
            USING ERRCODE = '22023';
    END IF;
    SELECT n.nspname INTO crypto_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pgcrypto';
    IF crypto_schema IS NULL THEN
        RAISE EXCEPTION 'public identities need pgcrypto in pg_flake_sql' USING ERRCODE = '55000',
            HINT = 'CREATE EXTENSION pgcrypto in this database (docs/managed.md "What this edition cannot do").';
    END IF;
    -- The arguments typed, so that only pgcrypto's own (bytea, bytea, text)
    -- function of that schema matches.
    EXECUTE format('SELECT %I.%I($1, $2, ''aes-ecb/pad:none''::pg_catalog.text)', crypto_schema,
                   CASE WHEN decrypting THEN 'decrypt' ELSE 'encrypt' END)
        INTO result USING block, key;
    RETURN result;
END
$$;

-- .NET's Guid byte order (its own inverse): the first three fields reversed.
CREATE FUNCTION @extschema@._public_id_guid(b bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT substr(b, 4, 1) || substr(b, 3, 1) || substr(b, 2, 1) || substr(b, 1, 1)
        || substr(b, 6, 1) || substr(b, 5, 1) || substr(b, 8, 1) || substr(b, 7, 1) || substr(b, 9)
$$;

-- The bytes of b in reverse order (little-endian words).
CREATE FUNCTION @extschema@._flake_reverse(b bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    r bytea := b;
    n integer := length(b);
BEGIN
    FOR i IN 0 .. n - 1 LOOP
        r := set_byte(r, i, get_byte(b, n - 1 - i));
    END LOOP;
    RETURN r;
END
$$;

CREATE FUNCTION @extschema@._public_id_encrypt(plaintext bytea, key bytea) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT encode(@extschema@._public_id_guid(@extschema@._public_id_aes(plaintext, key, false)), 'hex')::uuid
$$;

CREATE FUNCTION @extschema@._public_id_decrypt(public_id uuid, key bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._public_id_aes(@extschema@._public_id_guid(uuid_send(public_id)), key, true) $$;

-- The refusal of the forms without a key (55000, as the native extension's
-- without preloading).
CREATE FUNCTION @extschema@._public_id_no_setting() RETURNS bytea
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RAISE EXCEPTION 'pg_flake.public_id_key is used only when pg_flake is in shared_preload_libraries'
        USING ERRCODE = '55000',
              HINT = 'pg_flake_sql cannot hide the setting from other roles, so it never reads it: pass the key as the last argument.';
END
$$;

-- == Encryption ================================================================

CREATE FUNCTION @extschema@.public_id_encrypt(value bigint, key bytea) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(key) NOT IN (16, 24, 32) THEN
        PERFORM @extschema@._public_id_aes('\x'::bytea, key, false);
    END IF;
    PERFORM @extschema@._flake_non_negative('a public identity of bigint', value);
    RETURN @extschema@._public_id_encrypt('\x0000000000000000'::bytea
                                          || @extschema@._flake_reverse(int8send(value)), key);
END
$$;

CREATE FUNCTION @extschema@.public_id_encrypt(id @extschema@.distributed_id, key bytea) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    b bytea := id::bytea;
BEGIN
    -- .NET decimal: flags (0), then the high, low and middle 32-bit words,
    -- each little-endian.
    RETURN @extschema@._public_id_encrypt('\x00000000'::bytea
        || @extschema@._flake_reverse(substr(b, 1, 4)) || @extschema@._flake_reverse(substr(b, 9, 4))
        || @extschema@._flake_reverse(substr(b, 5, 4)), key);
END
$$;

CREATE FUNCTION @extschema@.public_id_encrypt(id uuid, key bytea) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@._public_id_encrypt(uuid_send(id), key) $$;

CREATE FUNCTION @extschema@.public_id_encrypt(value bigint) RETURNS uuid
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.public_id_encrypt(value, @extschema@._public_id_no_setting()) $$;

CREATE FUNCTION @extschema@.public_id_encrypt(id @extschema@.distributed_id) RETURNS uuid
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.public_id_encrypt(id, @extschema@._public_id_no_setting()) $$;

CREATE FUNCTION @extschema@.public_id_encrypt(id uuid) RETURNS uuid
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.public_id_encrypt(id, @extschema@._public_id_no_setting()) $$;

-- == Decryption ================================================================

-- NULL unless the plaintext has a bigint's structure (8 zero bytes, value
-- at most 2^63 - 1).
CREATE FUNCTION @extschema@.public_id_decrypt_bigint(public_id uuid, key bytea) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    p bytea := @extschema@._public_id_decrypt(public_id, key);
    v bigint;
BEGIN
    IF substr(p, 1, 8) <> '\x0000000000000000'::bytea THEN
        RETURN NULL;
    END IF;
    v := ('x' || encode(@extschema@._flake_reverse(substr(p, 9, 8)), 'hex'))::bit(64)::bigint;
    RETURN CASE WHEN v >= 0 THEN v END;
END
$$;

-- NULL unless it has a distributed_id's (4 zero bytes, at most 10^28 - 1).
CREATE FUNCTION @extschema@.public_id_decrypt_distributed_id(public_id uuid, key bytea)
    RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    p bytea := @extschema@._public_id_decrypt(public_id, key);
    b bytea;
BEGIN
    IF substr(p, 1, 4) <> '\x00000000'::bytea THEN
        RETURN NULL;
    END IF;
    b := @extschema@._flake_reverse(substr(p, 5, 4)) || @extschema@._flake_reverse(substr(p, 13, 4))
         || @extschema@._flake_reverse(substr(p, 9, 4));
    IF b > '\x204fce5e3e2502610fffffff'::bytea THEN
        RETURN NULL;
    END IF;
    RETURN b::@extschema@.distributed_id;
END
$$;

CREATE FUNCTION @extschema@.public_id_decrypt_uuid(public_id uuid, key bytea) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT encode(@extschema@._public_id_decrypt(public_id, key), 'hex')::uuid $$;

CREATE FUNCTION @extschema@.public_id_decrypt_bigint(public_id uuid) RETURNS bigint
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.public_id_decrypt_bigint(public_id, @extschema@._public_id_no_setting()) $$;

CREATE FUNCTION @extschema@.public_id_decrypt_distributed_id(public_id uuid) RETURNS @extschema@.distributed_id
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.public_id_decrypt_distributed_id(public_id, @extschema@._public_id_no_setting()) $$;

CREATE FUNCTION @extschema@.public_id_decrypt_uuid(public_id uuid) RETURNS uuid
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.public_id_decrypt_uuid(public_id, @extschema@._public_id_no_setting()) $$;
