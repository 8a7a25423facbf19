-- pg_flake 0.3.0 -> 0.4.0 (docs/operations.md "Versions"). Every change of the SQL
-- surface since 0.3.0, so that ALTER EXTENSION pg_flake UPDATE gives a
-- database made at 0.3.0 (or at 0.1.0 or 0.2.0, updated through 0.3.0)
-- exactly the catalog of a fresh 0.4.0 (the regression test "upgrade"
-- compares them). One section per change, each saying why.
\echo Use "ALTER EXTENSION pg_flake UPDATE TO '0.4.0'" to load this file. \quit

-- == Issue 36, items 2 and 3: lease holders, and grants under synchronous replication ==
-- 0.3.0 let any grantee renew or release any lease (and report a last use
-- that shortened its window, so that the unit went to another holder
-- while the first still generated in it), let one role take every unit,
-- and locked the whole table for each grant, renewal and release until
-- the caller's transaction ended; a grant or renewal relied on its
-- commit's wait for the synchronous standbys, which a cancel ends with a
-- WARNING after the local commit, so a failover could grant the unit again.
-- Now (sql/leases.sql, whose functions and view are repeated here as they
-- are there): each lease records the role that took it (holder_role; NULL
-- for the leases already granted, which any grantee may still renew or
-- end, without shortening them); grants take a lock of their own (the
-- row of pg_flake_lease_state), renewals and releases their lease's row;
-- a grant or renewal raises the fence (pg_flake_lease_promised) and waits
-- for the synchronous standbys before it answers (pg_flake_lease_promise);
-- pg_flake.lease_max_per_role bounds the units of a role.
ALTER TABLE @extschema@.pg_flake_lease_grants ADD COLUMN holder_role text;
CREATE TABLE @extschema@.pg_flake_lease_state (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    timeline bigint,
    doubt_until timestamptz
);
INSERT INTO @extschema@.pg_flake_lease_state (timeline)
VALUES (('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_insert_lsn()), 8))::pg_catalog.bit(32)::pg_catalog.int8);
CREATE SEQUENCE @extschema@.pg_flake_lease_promised MINVALUE 0 START 0;
CREATE FUNCTION @extschema@.pg_flake_lease_role()
RETURNS text
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_lease_role_wrapper';
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_role() FROM PUBLIC;
CREATE FUNCTION @extschema@.pg_flake_lease_promise(fence regclass, expires timestamptz)
RETURNS void
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_lease_promise_wrapper';
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_promise(regclass, timestamptz) FROM PUBLIC;

-- == pg_flake_lease =========================================================
-- Grants the first free unit (never leased first, then the one whose
-- predecessor ended earliest; node then process ascending), with
-- not_before at or after the predecessor's end, to the session's role
-- (pg_flake_lease_role()), which alone may renew or release it.
CREATE OR REPLACE FUNCTION @extschema@.pg_flake_lease("format" text, holder text, ttl interval DEFAULT '30 s')
RETURNS SETOF @extschema@.pg_flake_lease_row
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
LANGUAGE plpgsql AS $function$
#variable_conflict use_column
DECLARE
    lease_format text := $1;
    lease_holder text := $2;
    lease_ttl interval := $3;
    caller text := @extschema@.pg_flake_lease_role();
    range_first bigint;
    range_last bigint;
    nprocs integer;
    units bigint;
    unit bigint;
    unit_node bigint;
    unit_process integer;
    predecessor_end timestamptz := '-infinity';
    candidate record;
    role_limit bigint;
    role_held bigint;
    this_timeline bigint;
    grant_state record;
    group_id integer;
    grant_row @extschema@.pg_flake_lease_grants;
BEGIN
    IF lease_format IS NULL THEN
        RAISE EXCEPTION 'lease format must not be NULL' USING ERRCODE = '22023',
            HINT = 'Give one of sno, siq, snowflake, kuid96.';
    END IF;
    IF lease_holder IS NULL OR lease_holder = '' OR length(lease_holder) > 200 THEN
        RAISE EXCEPTION 'lease holder must be a text of 1 to 200 characters' USING ERRCODE = '22023',
            HINT = 'Name the application process that holds the lease, e.g. host:pid.';
    END IF;
    IF lease_ttl IS NULL OR lease_ttl < interval '1 s' OR lease_ttl > interval '1 day' THEN
        RAISE EXCEPTION 'lease ttl % is outside 1 second to 1 day', coalesce(lease_ttl::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'cannot take a % lease on a server in recovery', lease_format
            USING ERRCODE = '25006', HINT = 'Take leases on the primary.';
    END IF;
    SELECT r.first_node, r.last_node, r.processes INTO range_first, range_last, nprocs
    FROM @extschema@.pg_flake_lease_range(lease_format) r;
    units := (range_last - range_first + 1) * nprocs;

    -- Citus (README "Several servers"): the coordinator (group 0) hands out
    -- leases, and no node of the cluster may generate with a reserved node.
    IF to_regclass('pg_catalog.pg_dist_local_group') IS NOT NULL
       AND to_regclass('pg_catalog.pg_dist_node') IS NOT NULL THEN
        EXECUTE 'SELECT groupid FROM pg_catalog.pg_dist_local_group LIMIT 1' INTO group_id;
        IF group_id <> 0 THEN
            RAISE EXCEPTION 'cannot take a lease on Citus worker group %', group_id
                USING ERRCODE = '55000', HINT = 'Take leases on the coordinator.';
        END IF;
        EXECUTE 'SELECT min(groupid) FROM pg_catalog.pg_dist_node WHERE groupid BETWEEN $1 AND $2'
            INTO group_id USING range_first, range_last;
        IF group_id IS NOT NULL THEN
            RAISE EXCEPTION 'Citus group % generates % with node %, which pg_flake.lease_nodes reserves for leases (% to %)',
                group_id, lease_format, group_id, range_first, range_last
                USING ERRCODE = '55000',
                HINT = 'Set pg_flake.lease_nodes to a range no node of the cluster uses, or give that node another pg_flake.node.';
        END IF;
    END IF;

    -- One grant at a time: the choice below sees every earlier grant. The
    -- lock is the state row's, which only grants take: renewals and
    -- releases lock their own lease's row only, so a session that holds
    -- this lock (a grant inside a longer transaction) stalls no renewal,
    -- and other grants wait for it at most lock_timeout. At repeatable
    -- read, a grant committed after this statement's snapshot updated the
    -- row: the lock raises 40001 rather than grant from a stale view.
    BEGIN
        SELECT s.* INTO grant_state FROM @extschema@.pg_flake_lease_state s FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO @extschema@.pg_flake_lease_state (id) VALUES (true) ON CONFLICT DO NOTHING;
            SELECT s.* INTO grant_state FROM @extschema@.pg_flake_lease_state s FOR UPDATE;
        END IF;
    EXCEPTION WHEN lock_not_available THEN
        RAISE EXCEPTION 'another lease grant has held the grant lock longer than lock_timeout (%)',
            current_setting('lock_timeout') USING ERRCODE = '55P03',
            HINT = 'Retry. A session that took a lease inside a longer transaction holds the lock until that transaction ends (pg_locks shows it on pg_flake_lease_state).';
    END;

    -- A timeline other than the last grant's: this server is a promoted
    -- standby (or a restored backup) of the one that answered the last
    -- grants and renewals, whose commits may not have reached it. The
    -- fence (pg_flake_lease_promise) did, before each answer: no window
    -- starts before it, on any unit, until then.
    this_timeline := ('x' || left(pg_walfile_name(pg_current_wal_insert_lsn()), 8))::bit(32)::bigint;
    IF grant_state.timeline IS DISTINCT FROM this_timeline THEN
        grant_state.doubt_until := (SELECT greatest(grant_state.doubt_until,
                                                    timestamptz 'epoch' + f.last_value * interval '1 microsecond')
                                    FROM @extschema@.pg_flake_lease_promised f);
    END IF;
    UPDATE @extschema@.pg_flake_lease_state s
    SET timeline = this_timeline, doubt_until = grant_state.doubt_until;

    -- A role holds at most pg_flake.lease_max_per_role units of a format
    -- (0: half of them, rounded up): every unit whose newest lease it
    -- took and whose window has not ended.
    role_limit := current_setting('pg_flake.lease_max_per_role')::bigint;
    IF role_limit = 0 THEN
        role_limit := (units + 1) / 2;
    END IF;
    SELECT count(*) INTO role_held
    FROM (SELECT DISTINCT ON (g.node, g.process) g.*
          FROM @extschema@.pg_flake_lease_grants g
          WHERE g.format = lease_format AND g.node BETWEEN range_first AND range_last
            AND g.process < nprocs
          ORDER BY g.node, g.process, g.lease_id DESC) newest
    WHERE newest.holder_role = caller
      AND CASE WHEN newest.released IS NOT NULL AND newest.last_used IS NOT NULL
               THEN least(newest.expires, newest.last_used + interval '10 ms')
               ELSE newest.expires END > clock_timestamp();
    IF role_held >= role_limit THEN
        RAISE EXCEPTION 'role % holds % % lease units, the most pg_flake.lease_max_per_role allows (% of %)',
            caller, role_held, lease_format, role_limit, units
            USING ERRCODE = '53400',
            HINT = 'Release leases the role no longer uses, or have a superuser raise pg_flake.lease_max_per_role for it (ALTER ROLE ... SET).';
    END IF;

    -- History: superseded leases ended over 7 days ago are no longer needed
    -- (a row some session holds locked is left for a later grant).
    DELETE FROM @extschema@.pg_flake_lease_grants old
    WHERE old.lease_id IN (
        SELECT o.lease_id FROM @extschema@.pg_flake_lease_grants o
        WHERE o.expires < clock_timestamp() - interval '7 days'
          AND EXISTS (SELECT FROM @extschema@.pg_flake_lease_grants newer
                      WHERE newer.format = o.format AND newer.node = o.node
                        AND newer.process = o.process AND newer.lease_id > o.lease_id)
        FOR UPDATE OF o SKIP LOCKED);

    -- A unit never leased: the first of the range, or the first after a
    -- leased one (so the search is bounded by the rows, not the range).
    WITH used AS (
        SELECT DISTINCT (g.node - range_first) * nprocs + g.process AS n
        FROM @extschema@.pg_flake_lease_grants g
        WHERE g.format = lease_format AND g.node BETWEEN range_first AND range_last AND g.process < nprocs)
    SELECT min(c.n) INTO unit
    FROM (SELECT 0::bigint AS n UNION ALL SELECT used.n + 1 FROM used) c
    WHERE c.n < units AND NOT EXISTS (SELECT FROM used WHERE used.n = c.n);

    IF unit IS NOT NULL THEN
        unit_node := range_first + unit / nprocs;
        unit_process := unit % nprocs;
    ELSE
        -- Else the unit whose newest lease ended (released or expired)
        -- earliest; a release with last_used ends it 10 ms after that
        -- (longer than every format's time unit). A lease whose row a
        -- renewal or release holds locked is passed by, not waited for.
        FOR candidate IN
            SELECT newest.lease_id,
                   CASE WHEN newest.released IS NOT NULL AND newest.last_used IS NOT NULL
                        THEN least(newest.expires, newest.last_used + interval '10 ms')
                        ELSE newest.expires END AS ended
            FROM (SELECT DISTINCT ON (g.node, g.process) g.*
                  FROM @extschema@.pg_flake_lease_grants g
                  WHERE g.format = lease_format AND g.node BETWEEN range_first AND range_last
                    AND g.process < nprocs
                  ORDER BY g.node, g.process, g.lease_id DESC) newest
            WHERE newest.released IS NOT NULL OR newest.expires <= clock_timestamp()
            ORDER BY ended, newest.node, newest.process
        LOOP
            SELECT g.node, g.process,
                   CASE WHEN g.released IS NOT NULL AND g.last_used IS NOT NULL
                        THEN least(g.expires, g.last_used + interval '10 ms')
                        ELSE g.expires END
            INTO unit_node, unit_process, predecessor_end
            FROM @extschema@.pg_flake_lease_grants g
            WHERE g.lease_id = candidate.lease_id
              AND (g.released IS NOT NULL OR g.expires <= clock_timestamp())
            FOR NO KEY UPDATE SKIP LOCKED;
            EXIT WHEN FOUND;
        END LOOP;
        IF unit_node IS NULL THEN
            RAISE EXCEPTION 'every % lease unit is held (pg_flake.lease_nodes reserves % nodes %-%: % units)',
                lease_format, lease_format, range_first, range_last, units
                USING ERRCODE = '53400',
                HINT = 'Release leases, wait for expiries, or widen pg_flake.lease_nodes.';
        END IF;
    END IF;

    INSERT INTO @extschema@.pg_flake_lease_grants AS g
        (format, node, process, holder, granted, not_before, expires, epoch_ms, kuid_interval,
         holder_role)
    SELECT lease_format, unit_node, unit_process, lease_holder, clock_timestamp(), start,
           start + lease_ttl,
           CASE lease_format WHEN 'snowflake'
                THEN current_setting('pg_flake.snowflake_epoch')::bigint END,
           CASE lease_format WHEN 'kuid96'
                THEN current_setting('pg_flake.kuid_interval')::integer END,
           caller
    FROM (SELECT greatest(clock_timestamp(), predecessor_end, grant_state.doubt_until) AS start) s
    RETURNING g.* INTO grant_row;

    -- The synchronous standbys have the fence before the answer leaves;
    -- the commit is flushed before the client hears of it.
    PERFORM @extschema@.pg_flake_lease_promise('@extschema@.pg_flake_lease_promised'::regclass,
        grant_row.expires);
    IF current_setting('synchronous_commit') = 'off' THEN
        PERFORM set_config('synchronous_commit', 'local', true);
    END IF;
    RETURN QUERY SELECT grant_row.lease_id, grant_row.format, grant_row.node, grant_row.process,
        grant_row.not_before, grant_row.expires, clock_timestamp(), grant_row.epoch_ms,
        grant_row.kuid_interval;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease(text, text, interval) FROM PUBLIC;

-- == pg_flake_renew =========================================================
-- Extends a held lease to at least now + ttl; only its holder's role may.
-- A lease that expired, was released or has a successor cannot come back:
-- its holder takes a new one.
CREATE OR REPLACE FUNCTION @extschema@.pg_flake_renew(lease_id bigint, ttl interval DEFAULT '30 s')
RETURNS SETOF @extschema@.pg_flake_lease_row
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
LANGUAGE plpgsql AS $function$
#variable_conflict use_column
DECLARE
    id bigint := $1;
    lease_ttl interval := $2;
    caller text := @extschema@.pg_flake_lease_role();
    lease @extschema@.pg_flake_lease_grants;
BEGIN
    IF lease_ttl IS NULL OR lease_ttl < interval '1 s' OR lease_ttl > interval '1 day' THEN
        RAISE EXCEPTION 'lease ttl % is outside 1 second to 1 day', coalesce(lease_ttl::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'cannot renew lease % on a server in recovery', id
            USING ERRCODE = '25006', HINT = 'Renew leases on the primary.';
    END IF;
    SELECT g.* INTO lease FROM @extschema@.pg_flake_lease_grants g WHERE g.lease_id = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'lease % does not exist', coalesce(id::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    -- (A lease granted before 0.4.0 names no role: any grantee renews it.)
    IF lease.holder_role <> caller THEN
        RAISE EXCEPTION 'lease % is held by role %, not %: only its holder may renew it',
            id, lease.holder_role, caller USING ERRCODE = '42501',
            HINT = 'Renew it in a session of the role that took it; take a lease of your own with pg_flake_lease.';
    END IF;
    -- Its row, locked: a grant passes it by meanwhile, another renewal or
    -- release of it waits at most lock_timeout.
    BEGIN
        SELECT g.* INTO lease FROM @extschema@.pg_flake_lease_grants g WHERE g.lease_id = id
        FOR NO KEY UPDATE;
    EXCEPTION WHEN lock_not_available THEN
        RAISE EXCEPTION 'lease % has been locked by another renewal, release or grant longer than lock_timeout (%)',
            id, current_setting('lock_timeout') USING ERRCODE = '55P03',
            HINT = 'Retry; a session that renewed or released it inside a longer transaction holds the lock until that transaction ends.';
    END;
    IF lease.released IS NOT NULL THEN
        RAISE EXCEPTION 'lease % of % was released at %; take a new lease with pg_flake_lease',
            id, lease.format, lease.released USING ERRCODE = '55000';
    END IF;
    IF lease.expires <= clock_timestamp()
       OR EXISTS (SELECT FROM @extschema@.pg_flake_lease_grants newer
                  WHERE newer.format = lease.format AND newer.node = lease.node
                    AND newer.process = lease.process AND newer.lease_id > id) THEN
        RAISE EXCEPTION 'lease % of % expired at %; take a new lease with pg_flake_lease',
            id, lease.format, lease.expires USING ERRCODE = '55000',
            HINT = 'Stop generating with this lease: its unit may already belong to another holder.';
    END IF;
    UPDATE @extschema@.pg_flake_lease_grants g
    SET expires = greatest(g.expires, clock_timestamp() + lease_ttl),
        renewals = g.renewals + 1
    WHERE g.lease_id = id
    RETURNING g.* INTO lease;
    -- As a grant: the standbys have the fence before the answer leaves.
    PERFORM @extschema@.pg_flake_lease_promise('@extschema@.pg_flake_lease_promised'::regclass,
        lease.expires);
    IF current_setting('synchronous_commit') = 'off' THEN
        PERFORM set_config('synchronous_commit', 'local', true);
    END IF;
    RETURN QUERY SELECT lease.lease_id, lease.format, lease.node, lease.process,
        lease.not_before, lease.expires, clock_timestamp(), lease.epoch_ms, lease.kuid_interval;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_renew(bigint, interval) FROM PUBLIC;

-- == pg_flake_release =======================================================
-- Ends a held lease now (true); last_used (clamped to the window) lets the
-- unit's next holder start 10 ms after it instead of at expires. A lease
-- already released or expired is left as it is (false). Only the holder's
-- role may, or a superuser: its release (a forced end) never reports
-- last_used, so the unit waits for the end of the holder's window.
CREATE OR REPLACE FUNCTION @extschema@.pg_flake_release(lease_id bigint, last_used timestamptz DEFAULT NULL)
RETURNS boolean
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
LANGUAGE plpgsql AS $function$
DECLARE
    id bigint := $1;
    used timestamptz := $2;
    caller text := @extschema@.pg_flake_lease_role();
    lease @extschema@.pg_flake_lease_grants;
BEGIN
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'cannot release lease % on a server in recovery', id
            USING ERRCODE = '25006', HINT = 'Release leases on the primary.';
    END IF;
    SELECT g.* INTO lease FROM @extschema@.pg_flake_lease_grants g WHERE g.lease_id = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'lease % does not exist', coalesce(id::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    IF lease.holder_role IS NULL THEN
        -- Granted before 0.4.0, it names no role: any grantee may end it,
        -- but no one may shorten its window.
        used := NULL;
    ELSIF lease.holder_role <> caller THEN
        IF NOT coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = caller), false) THEN
            RAISE EXCEPTION 'lease % is held by role %, not %: only its holder or a superuser may release it',
                id, lease.holder_role, caller USING ERRCODE = '42501',
                HINT = 'Release it in a session of the role that took it.';
        END IF;
        IF used IS NOT NULL THEN
            RAISE EXCEPTION 'only the holder of lease % (role %) may report its last use',
                id, lease.holder_role USING ERRCODE = '42501',
                HINT = format('End it with pg_flake_release(%s) and no last_used: the unit then waits for the end of its window (%s).',
                              id, lease.expires);
        END IF;
    END IF;
    IF lease.released IS NOT NULL OR lease.expires <= clock_timestamp() THEN
        RETURN false;
    END IF;
    BEGIN
        SELECT g.* INTO lease FROM @extschema@.pg_flake_lease_grants g WHERE g.lease_id = id
        FOR NO KEY UPDATE;
    EXCEPTION WHEN lock_not_available THEN
        RAISE EXCEPTION 'lease % has been locked by another renewal, release or grant longer than lock_timeout (%)',
            id, current_setting('lock_timeout') USING ERRCODE = '55P03',
            HINT = 'Retry; a session that renewed or released it inside a longer transaction holds the lock until that transaction ends.';
    END;
    IF lease.released IS NOT NULL OR lease.expires <= clock_timestamp()
       OR EXISTS (SELECT FROM @extschema@.pg_flake_lease_grants newer
                  WHERE newer.format = lease.format AND newer.node = lease.node
                    AND newer.process = lease.process AND newer.lease_id > id) THEN
        RETURN false;
    END IF;
    UPDATE @extschema@.pg_flake_lease_grants g
    SET released = clock_timestamp(),
        last_used = CASE WHEN used IS NOT NULL
                         THEN least(greatest(used, g.not_before), g.expires) END
    WHERE g.lease_id = id;
    RETURN true;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_release(bigint, timestamptz) FROM PUBLIC;

-- == The view ===============================================================
-- Every lease with its state: held, expired (its window is over, or its
-- unit has a newer lease) or released; and the role holding it.
CREATE OR REPLACE VIEW @extschema@.pg_flake_leases AS
SELECT g.lease_id, g.format, g.node, g.process, g.holder, g.not_before, g.expires,
       g.released, g.last_used,
       CASE WHEN g.released IS NOT NULL THEN 'released'
            WHEN g.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp()
                 OR EXISTS (SELECT FROM @extschema@.pg_flake_lease_grants newer
                            WHERE newer.format OPERATOR(pg_catalog.=) g.format
                              AND newer.node OPERATOR(pg_catalog.=) g.node
                              AND newer.process OPERATOR(pg_catalog.=) g.process
                              AND newer.lease_id OPERATOR(pg_catalog.>) g.lease_id)
            THEN 'expired'
            ELSE 'held' END AS state,
       g.holder_role
FROM @extschema@.pg_flake_lease_grants g;

-- == Issue 40: range partitions by time on an ID column =====================
-- New: pg_flake_create_partitions and pg_flake_drop_partitions make and drop
-- the partitions of a table PARTITION BY RANGE (id) by time, with bounds
-- from <format>_from_time (pg_partman manages no native type). As they are
-- in sql/partitions.sql, the fresh install's text.

-- 0.4.0 released these two with the extension's schema on their
-- search_path, where an overload another role planted ran with the caller's
-- rights (issue 49). Since 0.5.0 this update no longer creates them: the
-- update to 0.5.0 that follows it makes them as the fresh install does
-- (sql/upgrades/pg_flake--0.4.0--0.5.0.sql), so that no update of a
-- release after 0.4.0 creates the unsafe ones, even for a moment.

-- == Issue 40: statistics an operator scrapes ================================
-- New: pg_flake_stats, pg_flake_refusal_stats (views over functions of the
-- same names), pg_flake_stats_reset and pg_flake_lease_stats; the lease
-- table counts renewals (pg_flake_renew above adds one; leases renewed
-- before 0.4.0 count from 0). As in sql/stats.sql, the fresh install's text.
ALTER TABLE @extschema@.pg_flake_lease_grants ADD COLUMN renewals bigint NOT NULL DEFAULT 0;

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
