-- Leases for application generators (docs/sql-reference.md "Leases", issue 23). An
-- application that makes its own IDs leases a unit (a node of the range
-- pg_flake.lease_nodes reserves for the format, and where the format has
-- one a process field value) and a time window [not_before, expires).
-- Successive holders of a unit get disjoint windows, and servers never
-- generate with a reserved node (src/node/mod.rs), so IDs made by holders and
-- by servers never collide.
--
-- The fresh install's text (src/leases.rs), the functions in
-- sql/lease_functions.sql. 0.3.0 had an earlier one (the last section of
-- sql/upgrades/pg_flake--0.2.0--0.3.0.sql); the updates from it turn it into
-- this one (sql/upgrades/), so that both give one catalog (regression test
-- "upgrade").
--
-- Privileges: EXECUTE on the functions is revoked from PUBLIC (the tables,
-- the sequences and the view grant PUBLIC nothing); a superuser grants
-- pg_flake_lease, pg_flake_renew and pg_flake_release to the application's
-- role. The functions are SECURITY DEFINER (they write the tables, which no
-- other role may touch), with a fixed search_path. A lease belongs to the
-- role that took it (issue 36): only that role renews it, releases it and
-- reports its last use; a superuser may end it, never shortening its
-- window; a role holds at most pg_flake.lease_max_per_role units of a
-- format. Before answering, a grant or renewal waits for the synchronous
-- standbys (pg_flake_lease_promise) as marks do (src/marks/wal.rs), whatever the
-- session's synchronous_commit, and a cancel of that wait is an ERROR.

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
SELECT pg_catalog.pg_extension_config_dump('@extschema@.pg_flake_lease_grants'::pg_catalog.regclass, '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.pg_flake_lease_grants_lease_id_seq'::pg_catalog.regclass, '');
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

-- == The helpers (Rust) =====================================================
-- The nodes pg_flake.lease_nodes reserves for the format and the process
-- values per node; 22023 for a format that cannot be leased, 55000 where
-- nothing is reserved or this server's own node for the format is inside
-- the range (src/leases.rs).
CREATE FUNCTION @extschema@.pg_flake_lease_range("format" text)
RETURNS TABLE (first_node bigint, last_node bigint, processes integer)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_lease_range_wrapper';
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_range(text) FROM PUBLIC;
-- The session's role, which holds the leases it takes: its login role or
-- the one SET ROLE chose, never a SECURITY DEFINER function's owner.
CREATE FUNCTION @extschema@.pg_flake_lease_role()
RETURNS text
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_lease_role_wrapper';
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_lease_role() FROM PUBLIC;
-- Raises the fence to expires, flushes the WAL and waits for the
-- synchronous standbys to confirm it; a cancel raises 57014.
CREATE FUNCTION @extschema@.pg_flake_lease_promise(fence regclass, expires timestamptz)
RETURNS void
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c AS 'MODULE_PATHNAME', 'pg_flake_lease_promise_wrapper';
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
