-- Public identities (docs/formats/public_id.md): IDs encrypted into uuids
-- with a key given per call or pg_flake.public_id_key.
--
-- The whole SQL surface of src/formats/public_id.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/public_id.rs.

CREATE FUNCTION @extschema@.public_id_encrypt(value bigint, key bytea) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_encrypt_bigint_wrapper';

CREATE FUNCTION @extschema@.public_id_encrypt(value bigint) RETURNS uuid
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_encrypt_bigint_configured_wrapper';

CREATE FUNCTION @extschema@.public_id_encrypt(id @extschema@.distributed_id, key bytea) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_encrypt_distributed_id_wrapper';

CREATE FUNCTION @extschema@.public_id_encrypt(id @extschema@.distributed_id) RETURNS uuid
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_encrypt_distributed_id_configured_wrapper';

CREATE FUNCTION @extschema@.public_id_encrypt(id uuid, key bytea) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_encrypt_uuid_wrapper';

CREATE FUNCTION @extschema@.public_id_encrypt(id uuid) RETURNS uuid
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_encrypt_uuid_configured_wrapper';

CREATE FUNCTION @extschema@.public_id_decrypt_bigint(public_id uuid, key bytea) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_decrypt_bigint_wrapper';

CREATE FUNCTION @extschema@.public_id_decrypt_bigint(public_id uuid) RETURNS bigint
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_decrypt_bigint_configured_wrapper';

CREATE FUNCTION @extschema@.public_id_decrypt_distributed_id(public_id uuid, key bytea) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_decrypt_distributed_id_wrapper';

CREATE FUNCTION @extschema@.public_id_decrypt_distributed_id(public_id uuid) RETURNS @extschema@.distributed_id
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_decrypt_distributed_id_configured_wrapper';

CREATE FUNCTION @extschema@.public_id_decrypt_uuid(public_id uuid, key bytea) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_decrypt_uuid_wrapper';

CREATE FUNCTION @extschema@.public_id_decrypt_uuid(public_id uuid) RETURNS uuid
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'public_id_decrypt_uuid_configured_wrapper';
