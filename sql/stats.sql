-- The statistics an operator scrapes (docs/sql-reference.md "Statistics";
-- docs/operations.md "Metrics", with a postgres_exporter query file in
-- docs/postgres_exporter.yaml).
--
-- The whole SQL surface of src/stats.rs, in the extension script in the
-- order the sql_file! calls require; build.rs checks that every C symbol
-- named here is a version-1 function of src/stats.rs. Counters are the
-- server's generators' own: one set per server, preloaded or not, from the
-- generators' set-up until the server stops or pg_flake_stats_reset.

-- == Per format ==============================================================
-- IDs issued; calls that waited for the next unit (their unit used up);
-- refusals (an ERROR instead of an ID: pg_flake_refusal_stats has them by
-- SQLSTATE); marks recorded, and the milliseconds spent in the marks file
-- (written and synced) and in the WAL (flushed, and confirmed by the
-- synchronous standbys where there are any); steps back of the clock seen;
-- how far the last ID ran ahead of the clock; when counting began.
-- Readable by every role, as pg_stat_statements is: counts, no IDs.
CREATE FUNCTION @extschema@.pg_flake_stats()
RETURNS TABLE (format text, issued bigint, waits bigint, refusals bigint, marks_recorded bigint,
    mark_file_time double precision, mark_wal_time double precision, clock_steps_back bigint,
    clock_lead interval, stats_reset timestamptz)
    VOLATILE STRICT PARALLEL RESTRICTED LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_stats_wrapper';
CREATE VIEW @extschema@.pg_flake_stats AS
SELECT format, issued, waits, refusals, marks_recorded, mark_file_time, mark_wal_time,
       clock_steps_back, clock_lead, stats_reset
FROM @extschema@.pg_flake_stats();
GRANT SELECT ON @extschema@.pg_flake_stats TO PUBLIC;

-- == Refusals by SQLSTATE ====================================================
-- One row per format and SQLSTATE refused at least once since the reset.
CREATE FUNCTION @extschema@.pg_flake_refusal_stats()
RETURNS TABLE (format text, sqlstate text, refusals bigint)
    VOLATILE STRICT PARALLEL RESTRICTED LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_refusal_stats_wrapper';
CREATE VIEW @extschema@.pg_flake_refusal_stats AS
SELECT format, sqlstate, refusals FROM @extschema@.pg_flake_refusal_stats();
GRANT SELECT ON @extschema@.pg_flake_refusal_stats TO PUBLIC;

-- == Reset ===================================================================
-- Zero for one format's counters (NULL: every format's), from now on;
-- returns that time. Not for PUBLIC, as pg_stat_reset is not: a superuser
-- grants it to a monitoring role.
CREATE FUNCTION @extschema@.pg_flake_stats_reset("format" text DEFAULT NULL) RETURNS timestamptz
    VOLATILE PARALLEL UNSAFE LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_stats_reset_wrapper';
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_stats_reset(text) FROM PUBLIC;

-- == Leases ==================================================================
-- The leases pg_flake_lease_grants keeps (superseded ones older than 7 days
-- are deleted at the next grant), by format: granted, renewals, and how many
-- are held, expired (window over or unit leased again) and released now.
-- As pg_flake_leases, readable by whom a superuser grants it to.
CREATE VIEW @extschema@.pg_flake_lease_stats AS
SELECT l.format,
       pg_catalog.count(*) AS grants,
       coalesce(pg_catalog.sum(g.renewals), 0)::pg_catalog.int8 AS renewals,
       pg_catalog.count(*) FILTER (WHERE l.state OPERATOR(pg_catalog.=) 'held') AS held,
       pg_catalog.count(*) FILTER (WHERE l.state OPERATOR(pg_catalog.=) 'expired') AS expired,
       pg_catalog.count(*) FILTER (WHERE l.state OPERATOR(pg_catalog.=) 'released') AS released
FROM @extschema@.pg_flake_leases l JOIN @extschema@.pg_flake_lease_grants g USING (lease_id)
GROUP BY l.format;
