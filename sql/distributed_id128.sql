-- DistributedId128 (docs/formats/distributed_id.md): 128-bit IDs held in uuid;
-- generation, decoding, IDs from parts, number forms.
--
-- The whole SQL surface of src/formats/distributed_id128.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/distributed_id128.rs.

-- == Generation ================================================================

CREATE FUNCTION @extschema@.distributed_id128_generate() RETURNS uuid
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id128_generate_wrapper';

-- == Decoding ==================================================================

-- LEAKPROOF, like uuid_extract_timestamp: every uuid decodes.
CREATE FUNCTION @extschema@.distributed_id128_timestamp(id uuid) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id128_timestamp_wrapper';

CREATE FUNCTION @extschema@.distributed_id128_parts(id uuid, OUT "time" timestamptz, OUT random numeric)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'distributed_id128_parts_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.distributed_id128_from_time("time" timestamptz) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id128_from_time_wrapper';

CREATE FUNCTION @extschema@.distributed_id128_from_parts("time" timestamptz, random numeric) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id128_from_parts_wrapper';

-- == Text and number forms =====================================================

CREATE FUNCTION @extschema@.distributed_id128_to_numeric(id uuid) RETURNS numeric
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id128_to_numeric_wrapper';

CREATE FUNCTION @extschema@.distributed_id128_from_numeric(value numeric) RETURNS uuid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'distributed_id128_from_numeric_wrapper';
