-- Leases for application generators (docs/sql-reference.md "Leases"): the
-- native extension's sql/leases.sql, ported. A holder leases a unit (a
-- node of the range pg_flake.lease_nodes reserves for the format, and a
-- process field value) and a time window; successive holders of a unit get
-- disjoint windows, and this edition's generators refuse a reserved node
-- (_flake_node), so IDs of holders and of the server never collide. The
-- application-side clients (the Rust and Python LeasedGenerator) work
-- against it unchanged.
--
-- What is not the native extension's (docs/managed.md "As strong as native, and weaker"):
-- its C helpers are PL/pgSQL here (_flake_lease_range, pg_flake_lease_role,
-- pg_flake_lease_promise). The fence is raised before the answer as there,
-- but the wait for the synchronous standbys is the commit's: a grant or
-- renewal makes its transaction commit with synchronous_commit at least
-- 'on', which the clients' own commit waits for before they use the lease;
-- a cancel of that wait leaves a WARNING and a committed lease (PostgreSQL's
-- rule for every commit), where the native extension refuses (57014).
--
-- Privileges: as the native extension's, EXECUTE on the functions is
-- revoked from PUBLIC and the tables and the view grant PUBLIC nothing; the
-- functions are SECURITY DEFINER, owned by the installing role, which
-- grants pg_flake_lease, pg_flake_renew and pg_flake_release to the
-- application's role.

-- == The table ==============================================================
-- Every lease ever granted (history; superseded rows older than 7 days are
-- deleted at the next grant). Extension configuration, table and sequence,
-- so that pg_dump keeps the rows: a restored database must not hand a held
-- unit out again.
CREATE SEQUENCE @extschema@.pg_flake_lease_grants_lease_id_seq;
CREATE TABLE @extschema@.pg_flake_lease_grants (
    lease_id bigint PRIMARY KEY DEFAULT pg_catalog.nextval('@extschema@.pg_flake_lease_grants_lease_id_seq'),
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
    kuid_interval integer,
    -- The role that took the lease (pg_flake_lease_role()); NULL for a
    -- lease granted before 0.4.0.
    holder_role text,
    -- How many times pg_flake_renew extended it (pg_flake_lease_stats);
    -- 0 for the renewals of a lease before 0.4.0.
    renewals bigint NOT NULL DEFAULT 0
);
ALTER SEQUENCE @extschema@.pg_flake_lease_grants_lease_id_seq OWNED BY @extschema@.pg_flake_lease_grants.lease_id;
-- The newest lease of a unit: the highest lease_id (grants are serialised).
CREATE INDEX pg_flake_lease_grants_unit ON @extschema@.pg_flake_lease_grants (format, node, process, lease_id);
-- (pg_extension_config_dump only inside CREATE EXTENSION; the psql -f
-- install's tables are plain ones, which pg_dump keeps anyway.)
DO $config$
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pg_flake_sql') THEN
        PERFORM pg_catalog.pg_extension_config_dump('@extschema@.pg_flake_lease_grants', '');
        PERFORM pg_catalog.pg_extension_config_dump('@extschema@.pg_flake_lease_grants_lease_id_seq', '');
    END IF;
END
$config$;
-- No REVOKE: a table, a sequence and a view grant PUBLIC nothing to begin
-- with, and an explicit ACL equal to the default would not survive pg_upgrade
-- (pg_dump leaves it out), so the catalogs would differ.

-- == What grants share ======================================================
-- One row, whose lock serialises grants (only grants take it): the
-- timeline of the server that made the last grant, and after a failover
-- the time before which no new window starts (doubt_until, from the
-- fence). The fence, pg_flake_lease_promised, is a sequence because a
-- sequence is not transactional: the latest end of a window any grant or
-- renewal answered (Unix microseconds), raised and confirmed by the
-- synchronous standbys before the answer, kept even where the commit that
-- follows the answer is lost. Neither is extension configuration: a
-- database restored from a dump is a new history, whose row this script
-- makes.
CREATE TABLE @extschema@.pg_flake_lease_state (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    timeline bigint,
    doubt_until timestamptz
);
INSERT INTO @extschema@.pg_flake_lease_state (timeline)
VALUES (('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_insert_lsn()), 8))::pg_catalog.bit(32)::pg_catalog.int8);
CREATE SEQUENCE @extschema@.pg_flake_lease_promised MINVALUE 0 START 0;

-- == The helpers =============================================================
-- The nodes pg_flake.lease_nodes reserves for the format and the process
-- values per node; 22023 for a format that cannot be leased, 55000 where
-- nothing is reserved or this server's own node for the format is inside
-- the range.
CREATE FUNCTION @extschema@.pg_flake_lease_range("format" text)
RETURNS TABLE (first_node bigint, last_node bigint, processes integer)
STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE plpgsql AS $function$
DECLARE
    lease_format text := $1;
    reserved record;
    identity record;
BEGIN
    IF lease_format = 'kuid64' THEN
        RAISE EXCEPTION 'kuid64 has no node field, so it cannot be leased; use kuid96, whose IDs carry the leased node'
            USING ERRCODE = '22023';
    ELSIF lease_format IN ('flaxid', 'distributed_id', 'distributed_id128') THEN
        RAISE EXCEPTION '% is random and needs no lease: generate it anywhere; formats that can be leased: sno, siq, snowflake, kuid96', lease_format
            USING ERRCODE = '22023';
    ELSIF lease_format NOT IN ('sno', 'siq', 'snowflake', 'kuid96') THEN
        RAISE EXCEPTION 'unknown lease format "%"; accepted formats: sno, siq, snowflake, kuid96', lease_format
            USING ERRCODE = '22023';
    END IF;
    SELECT * INTO reserved FROM @extschema@._flake_lease_nodes(lease_format);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no % nodes are reserved for leases (pg_flake.lease_nodes says %=none)',
            lease_format, lease_format
            USING ERRCODE = '55000',
                  HINT = format('Reserve nodes no server uses, e.g. SET pg_flake.lease_nodes = ''%s=%s'' (superuser, in postgresql.conf or ALTER SYSTEM).',
                                lease_format, CASE lease_format WHEN 'snowflake' THEN 31
                                                               WHEN 'kuid96' THEN 4294967040 ELSE 255 END);
    END IF;
    identity := @extschema@._flake_node_source(lease_format);
    IF identity.node BETWEEN reserved.first_node AND reserved.last_node THEN
        RAISE EXCEPTION 'node % (from %) is reserved for application leases of % (pg_flake.lease_nodes)',
            identity.node, identity.source, lease_format
            USING ERRCODE = '55000',
                  HINT = 'Give this server another node, or set pg_flake.lease_nodes to a range no server uses.';
    END IF;
    first_node := reserved.first_node;
    last_node := reserved.last_node;
    processes := CASE lease_format WHEN 'snowflake' THEN 32 WHEN 'kuid96' THEN 1 ELSE 256 END;
    RETURN NEXT;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_range(text) FROM PUBLIC;
-- The session's role, which holds the leases it takes: its login role or
-- the one SET ROLE chose, never a SECURITY DEFINER function's owner (the
-- setting role is not changed by one).
CREATE FUNCTION @extschema@.pg_flake_lease_role()
RETURNS text
STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE sql AS $function$
    SELECT CASE WHEN current_setting('role') = 'none' THEN session_user::text
                ELSE current_setting('role') END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_role() FROM PUBLIC;
-- Raises the fence to expires (under a lock of its own: it only rises),
-- and makes the transaction's commit wait for the synchronous standbys
-- (synchronous_commit at least 'on'), whatever the session set.
CREATE FUNCTION @extschema@.pg_flake_lease_promise(fence regclass, expires timestamptz)
RETURNS void
STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
LANGUAGE plpgsql AS $function$
DECLARE
    until bigint := (extract(epoch FROM expires) * 1000000)::bigint;
    lock_key constant bigint := (1885824627::bigint << 32) | fence::oid::bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(lock_key);
    PERFORM setval(fence, greatest(coalesce(pg_sequence_last_value(fence), 0), until));
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM set_config('synchronous_commit', 'on', true);
    END IF;
END
$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_promise(regclass, timestamptz) FROM PUBLIC;

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
-- not_before at or after the predecessor's end, to the session's role
-- (pg_flake_lease_role()), which alone may renew or release it.
CREATE FUNCTION @extschema@.pg_flake_lease("format" text, holder text, ttl interval DEFAULT '30 s')
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
    role_limit_text text;
    role_held bigint;
    this_timeline bigint;
    grant_state @extschema@.pg_flake_lease_state;
    grant_doubt timestamptz;
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

    -- Citus (docs/operations.md "Several servers"): the coordinator (group 0) hands out
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
    grant_doubt := grant_state.doubt_until;
    IF grant_state.timeline IS DISTINCT FROM this_timeline THEN
        SELECT greatest(grant_state.doubt_until,
                        timestamptz 'epoch' + f.last_value * interval '1 microsecond')
        INTO grant_doubt FROM @extschema@.pg_flake_lease_promised f;
    END IF;
    UPDATE @extschema@.pg_flake_lease_state s
    SET timeline = this_timeline, doubt_until = grant_doubt;

    -- A role holds at most pg_flake.lease_max_per_role units of a format
    -- (0: half of them, rounded up): every unit whose newest lease it
    -- took and whose window has not ended.
    role_limit_text := coalesce(nullif(btrim(current_setting('pg_flake.lease_max_per_role', true)), ''), '0');
    IF role_limit_text !~ '^[0-9]{1,10}$' THEN
        RAISE EXCEPTION 'invalid value for parameter "pg_flake.lease_max_per_role": "%"',
            current_setting('pg_flake.lease_max_per_role', true) USING ERRCODE = '22023';
    END IF;
    role_limit := role_limit_text::bigint;
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
                THEN @extschema@._snowflake_epoch_setting() END,
           CASE lease_format WHEN 'kuid96'
                THEN @extschema@._kuid_interval_setting() END,
           caller
    FROM (SELECT greatest(clock_timestamp(), predecessor_end, grant_doubt) AS start) s
    RETURNING g.* INTO grant_row;

    -- The synchronous standbys have the fence before the answer leaves;
    -- the commit is flushed before the client hears of it.
    PERFORM @extschema@.pg_flake_lease_promise('@extschema@.pg_flake_lease_promised'::regclass,
        grant_row.expires);
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
CREATE FUNCTION @extschema@.pg_flake_renew(lease_id bigint, ttl interval DEFAULT '30 s')
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
CREATE FUNCTION @extschema@.pg_flake_release(lease_id bigint, last_used timestamptz DEFAULT NULL)
RETURNS boolean
VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
LANGUAGE plpgsql AS $function$@body:pg_flake_release@$function$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_release(bigint, timestamptz) FROM PUBLIC;

-- == The view ===============================================================
-- Every lease with its state: held, expired (its window is over, or its
-- unit has a newer lease) or released; and the role holding it.
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
            ELSE 'held' END AS state,
       g.holder_role
FROM @extschema@.pg_flake_lease_grants g;

-- The leases pg_flake_lease_grants keeps, by format (the native extension's
-- pg_flake_lease_stats, sql/stats.sql): readable by whom the owner grants it to.
CREATE VIEW @extschema@.pg_flake_lease_stats AS
SELECT l.format,
       pg_catalog.count(*) AS grants,
       COALESCE(pg_catalog.sum(g.renewals), 0)::pg_catalog.int8 AS renewals,
       pg_catalog.count(*) FILTER (WHERE l.state OPERATOR(pg_catalog.=) 'held') AS held,
       pg_catalog.count(*) FILTER (WHERE l.state OPERATOR(pg_catalog.=) 'expired') AS expired,
       pg_catalog.count(*) FILTER (WHERE l.state OPERATOR(pg_catalog.=) 'released') AS released
FROM @extschema@.pg_flake_leases l JOIN @extschema@.pg_flake_lease_grants g USING (lease_id)
GROUP BY l.format;
