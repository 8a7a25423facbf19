-- pg_flake 0.2.0 -> 0.3.0 (docs/operations.md "Versions"). Every change of the SQL
-- surface since 0.2.0, so that ALTER EXTENSION pg_flake UPDATE gives a
-- database made at 0.2.0 (or at 0.1.0, updated through 0.2.0) exactly the
-- catalog of a fresh 0.3.0 (the regression test "upgrade" compares them).
-- One section per change, each saying why.
\echo Use "ALTER EXTENSION pg_flake UPDATE TO '0.3.0'" to load this file. \quit

-- The marks file is never trusted blindly (docs/guarantees.md "Restarts, crashes and
-- the clock"): a superuser's deliberate step where a marks file is damaged
-- or missing, or where a clock set years ahead carried a mark along. Only
-- a superuser may run it (checked by the function: the install script
-- grants nothing).
CREATE FUNCTION @extschema@.pg_flake_set_mark("format" text, "mark" timestamptz) RETURNS timestamptz
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_set_mark_wrapper';

-- Leases for application generators (docs/sql-reference.md "Leases", issue 23). An
-- application that makes its own IDs leases a unit (a node of the range
-- pg_flake.lease_nodes reserves for the format, and where the format has
-- one a process field value) and a time window [not_before, expires).
-- Successive holders of a unit get disjoint windows, and servers never
-- generate with a reserved node (src/node/mod.rs), so IDs made by holders and
-- by servers never collide.
--
-- The same text is the fresh install's (src/leases.rs) and the last section
-- of sql/upgrades/pg_flake--0.2.0--0.3.0.sql, so both give one catalog (regression
-- test "upgrade").
--
-- Privileges: EXECUTE on the functions is revoked from PUBLIC (the table
-- and the view grant PUBLIC nothing); a superuser grants them to the
-- application's role. The
-- functions are SECURITY DEFINER (they write the table, which no other role
-- may touch), with a fixed search_path, and with synchronous_commit = on: a
-- grant waits for the synchronous standbys like any commit, so a session's
-- synchronous_commit = local cannot make a lease that a failover forgets.

-- == The table ==============================================================
-- Every lease ever granted (history; superseded rows older than 7 days are
-- deleted at the next grant). Extension configuration, table and sequence,
-- so that pg_dump keeps the rows: a restored database must not hand a held
-- unit out again.
CREATE SEQUENCE @extschema@.pg_flake_lease_grants_lease_id_seq;
CREATE TABLE @extschema@.pg_flake_lease_grants (
    lease_id bigint PRIMARY KEY DEFAULT pg_catalog.nextval('@extschema@.pg_flake_lease_grants_lease_id_seq'::pg_catalog.regclass),
    format text NOT NULL,
    node bigint NOT NULL,
    process integer NOT NULL,
    holder text NOT NULL,
    granted timestamptz NOT NULL,
    not_before timestamptz NOT NULL,
    expires timestamptz NOT NULL,
    released timestamptz,
    last_used timestamptz,
    -- What the holder generates with: Snowflake's epoch and kuid96's
    -- interval at the grant (NULL for the other formats).
    epoch_ms bigint,
    kuid_interval integer
);
ALTER SEQUENCE @extschema@.pg_flake_lease_grants_lease_id_seq OWNED BY @extschema@.pg_flake_lease_grants.lease_id;
-- The newest lease of a unit: the highest lease_id (grants are serialised).
CREATE INDEX pg_flake_lease_grants_unit ON @extschema@.pg_flake_lease_grants (format, node, process, lease_id);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.pg_flake_lease_grants'::pg_catalog.regclass, '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.pg_flake_lease_grants_lease_id_seq'::pg_catalog.regclass, '');
-- No REVOKE: a table, a sequence and a view grant PUBLIC nothing to begin
-- with, and an explicit ACL equal to the default would not survive pg_upgrade
-- (pg_dump leaves it out), so the catalogs would differ.

-- == The reserved range (Rust) ==============================================
-- The nodes pg_flake.lease_nodes reserves for the format and the process
-- values per node; 22023 for a format that cannot be leased, 55000 where
-- nothing is reserved or this server's own node for the format is inside
-- the range (src/leases.rs).
CREATE FUNCTION @extschema@.pg_flake_lease_range("format" text)
RETURNS TABLE (first_node bigint, last_node bigint, processes integer)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_lease_range_wrapper';
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_range(text) FROM PUBLIC;

-- == The row pg_flake_lease and pg_flake_renew return ======================
-- A type of its own rather than RETURNS TABLE, whose output columns would
-- share the names of the input parameters (format, lease_id), which
-- PL/pgSQL refuses.
CREATE TYPE @extschema@.pg_flake_lease_row AS (
    lease_id bigint,
    "format" text,
    node bigint,
    process integer,
    not_before timestamptz,
    expires timestamptz,
    -- clock_timestamp() just before returning: the holder's clock is this
    -- plus its monotonic time since the answer arrived.
    server_time timestamptz,
    epoch_ms bigint,
    kuid_interval integer
);

-- == pg_flake_lease =========================================================
-- Grants the first free unit (never leased first, then the one whose
-- predecessor ended earliest; node then process ascending), with
-- not_before at or after the predecessor's end.
CREATE FUNCTION @extschema@.pg_flake_lease("format" text, holder text, ttl interval DEFAULT '30 s')
RETURNS SETOF @extschema@.pg_flake_lease_row
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET synchronous_commit = on
LANGUAGE plpgsql AS $function$
#variable_conflict use_column
DECLARE
    lease_format text := $1;
    lease_holder text := $2;
    lease_ttl interval := $3;
    range_first bigint;
    range_last bigint;
    nprocs integer;
    units bigint;
    unit bigint;
    unit_node bigint;
    unit_process integer;
    predecessor_end timestamptz := '-infinity';
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

    -- One grant at a time: the choice below sees every earlier grant.
    LOCK TABLE @extschema@.pg_flake_lease_grants IN EXCLUSIVE MODE;

    -- History: superseded leases ended over 7 days ago are no longer needed.
    DELETE FROM @extschema@.pg_flake_lease_grants old
    WHERE old.expires < clock_timestamp() - interval '7 days'
      AND EXISTS (SELECT FROM @extschema@.pg_flake_lease_grants newer
                  WHERE newer.format = old.format AND newer.node = old.node
                    AND newer.process = old.process AND newer.lease_id > old.lease_id);

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
        -- (longer than every format's time unit).
        SELECT newest.node, newest.process,
               CASE WHEN newest.released IS NOT NULL AND newest.last_used IS NOT NULL
                    THEN least(newest.expires, newest.last_used + interval '10 ms')
                    ELSE newest.expires END AS ended
        INTO unit_node, unit_process, predecessor_end
        FROM (SELECT DISTINCT ON (g.node, g.process) g.*
              FROM @extschema@.pg_flake_lease_grants g
              WHERE g.format = lease_format AND g.node BETWEEN range_first AND range_last
                AND g.process < nprocs
              ORDER BY g.node, g.process, g.lease_id DESC) newest
        WHERE newest.released IS NOT NULL OR newest.expires <= clock_timestamp()
        ORDER BY ended, newest.node, newest.process
        LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'every % lease unit is held (pg_flake.lease_nodes reserves % nodes %-%: % units)',
                lease_format, lease_format, range_first, range_last, units
                USING ERRCODE = '53400',
                HINT = 'Release leases, wait for expiries, or widen pg_flake.lease_nodes.';
        END IF;
    END IF;

    INSERT INTO @extschema@.pg_flake_lease_grants AS g
        (format, node, process, holder, granted, not_before, expires, epoch_ms, kuid_interval)
    SELECT lease_format, unit_node, unit_process, lease_holder, clock_timestamp(), start,
           start + lease_ttl,
           CASE lease_format WHEN 'snowflake'
                THEN current_setting('pg_flake.snowflake_epoch')::bigint END,
           CASE lease_format WHEN 'kuid96'
                THEN current_setting('pg_flake.kuid_interval')::integer END
    FROM (SELECT greatest(clock_timestamp(), predecessor_end) AS start) s
    RETURNING g.* INTO grant_row;

    RETURN QUERY SELECT grant_row.lease_id, grant_row.format, grant_row.node, grant_row.process,
        grant_row.not_before, grant_row.expires, clock_timestamp(), grant_row.epoch_ms,
        grant_row.kuid_interval;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease(text, text, interval) FROM PUBLIC;

-- == pg_flake_renew =========================================================
-- Extends a held lease to at least now + ttl. A lease that expired, was
-- released or has a successor cannot come back: its holder takes a new one.
CREATE FUNCTION @extschema@.pg_flake_renew(lease_id bigint, ttl interval DEFAULT '30 s')
RETURNS SETOF @extschema@.pg_flake_lease_row
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET synchronous_commit = on
LANGUAGE plpgsql AS $function$
#variable_conflict use_column
DECLARE
    id bigint := $1;
    lease_ttl interval := $2;
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
    -- Serialised with grants: a grant never takes a unit whose lease a
    -- renewal is extending.
    LOCK TABLE @extschema@.pg_flake_lease_grants IN EXCLUSIVE MODE;
    SELECT g.* INTO lease FROM @extschema@.pg_flake_lease_grants g WHERE g.lease_id = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'lease % does not exist', coalesce(id::text, 'NULL') USING ERRCODE = '22023';
    END IF;
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
    SET expires = greatest(g.expires, clock_timestamp() + lease_ttl)
    WHERE g.lease_id = id
    RETURNING g.* INTO lease;
    RETURN QUERY SELECT lease.lease_id, lease.format, lease.node, lease.process,
        lease.not_before, lease.expires, clock_timestamp(), lease.epoch_ms, lease.kuid_interval;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_renew(bigint, interval) FROM PUBLIC;

-- == pg_flake_release =======================================================
-- Ends a held lease now (true); last_used (clamped to the window) lets the
-- unit's next holder start 10 ms after it instead of at expires. A lease
-- already released or expired is left as it is (false).
CREATE FUNCTION @extschema@.pg_flake_release(lease_id bigint, last_used timestamptz DEFAULT NULL)
RETURNS boolean
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET synchronous_commit = on
LANGUAGE plpgsql AS $function$
DECLARE
    id bigint := $1;
    used timestamptz := $2;
    lease @extschema@.pg_flake_lease_grants;
BEGIN
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'cannot release lease % on a server in recovery', id
            USING ERRCODE = '25006', HINT = 'Release leases on the primary.';
    END IF;
    LOCK TABLE @extschema@.pg_flake_lease_grants IN EXCLUSIVE MODE;
    SELECT g.* INTO lease FROM @extschema@.pg_flake_lease_grants g WHERE g.lease_id = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'lease % does not exist', coalesce(id::text, 'NULL') USING ERRCODE = '22023';
    END IF;
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
-- unit has a newer lease) or released.
CREATE VIEW @extschema@.pg_flake_leases AS
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
            ELSE 'held' END AS state
FROM @extschema@.pg_flake_lease_grants g;
