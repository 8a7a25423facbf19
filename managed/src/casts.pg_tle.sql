-- The native types' casts to and from numeric, which the pg_tle types have
-- and domains cannot (a cast of a domain is ignored): siq's explicit ones,
-- distributed_id's assignment casts (docs/formats/distributed_id.md#text-forms).
-- The domain edition offers the functions only.
CREATE CAST (@extschema@.siq AS numeric) WITH FUNCTION @extschema@.siq_to_numeric(@extschema@.siq);
CREATE CAST (numeric AS @extschema@.siq) WITH FUNCTION @extschema@.siq_from_numeric(numeric);
CREATE CAST (@extschema@.distributed_id AS numeric)
    WITH FUNCTION @extschema@.distributed_id_to_numeric(@extschema@.distributed_id) AS ASSIGNMENT;
CREATE CAST (numeric AS @extschema@.distributed_id)
    WITH FUNCTION @extschema@.distributed_id_from_numeric(numeric) AS ASSIGNMENT;
