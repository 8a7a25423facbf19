-- Snowflake (docs/formats/snowflake.md): bigint IDs with
-- pg_flake.snowflake_epoch, or an epoch given per call; generation, decoding,
-- IDs from parts.
--
-- The whole SQL surface of src/formats/snowflake.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol named here is
-- a version-1 function of src/formats/snowflake.rs.

-- == Generation ================================================================

CREATE FUNCTION @extschema@.snowflake_generate() RETURNS bigint
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_generate_wrapper';

-- == Decoding ==================================================================

CREATE FUNCTION @extschema@.snowflake_timestamp(snowflake bigint, epoch_ms bigint) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_timestamp_wrapper';

CREATE FUNCTION @extschema@.snowflake_timestamp(snowflake bigint) RETURNS timestamptz
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'snowflake_timestamp_at_setting_wrapper';

CREATE FUNCTION @extschema@.snowflake_parts(snowflake bigint, epoch_ms bigint,
    OUT "time" timestamptz, OUT worker int, OUT process int, OUT sequence int)
RETURNS record IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_parts_wrapper';

CREATE FUNCTION @extschema@.snowflake_parts(snowflake bigint,
    OUT "time" timestamptz, OUT worker int, OUT process int, OUT sequence int)
RETURNS record STABLE STRICT PARALLEL SAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_parts_at_setting_wrapper';

-- == IDs from parts ============================================================

CREATE FUNCTION @extschema@.snowflake_from_time("time" timestamptz, epoch_ms bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_from_time_wrapper';

CREATE FUNCTION @extschema@.snowflake_from_time("time" timestamptz) RETURNS bigint
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'snowflake_from_time_at_setting_wrapper';

CREATE FUNCTION @extschema@.snowflake_from_parts("time" timestamptz, worker integer, process integer,
    sequence integer, epoch_ms bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'snowflake_from_parts_wrapper';

CREATE FUNCTION @extschema@.snowflake_from_parts("time" timestamptz, worker integer, process integer,
    sequence integer) RETURNS bigint
    STABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'snowflake_from_parts_at_setting_wrapper';
