-- The alphanumeric text form (docs/formats/distributed_id.md): encoding and
-- decoding of bigint, uuid and distributed_id.
--
-- The whole SQL surface of src/formats/alphanumeric.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/alphanumeric.rs.

CREATE FUNCTION @extschema@.alphanumeric_encode(value bigint) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'alphanumeric_encode_bigint_wrapper';

CREATE FUNCTION @extschema@.alphanumeric_encode(value uuid) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'alphanumeric_encode_uuid_wrapper';

CREATE FUNCTION @extschema@.alphanumeric_encode(value @extschema@.distributed_id) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'alphanumeric_encode_distributed_id_wrapper';

CREATE FUNCTION @extschema@.alphanumeric_decode_bigint(text text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'alphanumeric_decode_bigint_wrapper';

CREATE FUNCTION @extschema@.alphanumeric_decode_uuid(text text) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'alphanumeric_decode_uuid_wrapper';

CREATE FUNCTION @extschema@.alphanumeric_decode_distributed_id(text text) RETURNS @extschema@.distributed_id
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'alphanumeric_decode_distributed_id_wrapper';
