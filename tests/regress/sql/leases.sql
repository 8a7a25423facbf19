-- Leases for application generators (docs/sql-reference.md "Leases"): the reserved
-- ranges, grants of disjoint windows, renewal, release, exhaustion, the
-- servers' refusal to generate with a reserved node, and privileges. Times
-- differ from run to run: only their relations are printed. (Restarts,
-- failover and pg_dump: tests/servers/test_leases.py.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';
\set SHOW_CONTEXT never
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
TRUNCATE pg_flake_lease_grants RESTART IDENTITY;

-- The table and its sequence are extension configuration (pg_dump keeps
-- their rows).
SELECT unnest(extconfig)::regclass FROM pg_extension WHERE extname = 'pg_flake' ORDER BY 1;

-- The default ranges: the top of each node field. (The setting shows once
-- the library is loaded, which the first call does when not preloaded.)
SELECT f AS format, r.* FROM unnest(ARRAY['sno', 'siq', 'snowflake', 'kuid96']) f,
    LATERAL pg_flake_lease_range(f) r;
SHOW pg_flake.lease_nodes;

-- A grant: the first unit of the range, a window starting now.
SELECT lease_id, format, node, process, expires - not_before AS ttl,
       not_before <= server_time AS started, server_time <= clock_timestamp() AS server_time_read,
       epoch_ms, kuid_interval
FROM pg_flake_lease('sno', 'app-1');
SELECT lease_id, format, node, process, expires - not_before AS ttl, epoch_ms, kuid_interval
FROM pg_flake_lease('siq', 'app-1', '1 min');
SELECT lease_id, format, node, process, expires - not_before AS ttl, epoch_ms, kuid_interval
FROM pg_flake_lease('kuid96', 'app-1');
SELECT lease_id, format, node, process, expires - not_before AS ttl, epoch_ms, kuid_interval
FROM pg_flake_lease('snowflake', 'app-1', '2 s');
-- The next holder gets the next unit.
SELECT lease_id, format, node, process FROM pg_flake_lease('sno', 'app-2');
SELECT lease_id, format, node, process, holder, state FROM pg_flake_leases ORDER BY lease_id;

-- Renewal: expires becomes at least now + ttl, never earlier.
SELECT lease_id, expires - server_time BETWEEN interval '59 s' AND interval '60 s' AS one_minute_left
FROM pg_flake_renew(1, '1 min');
SELECT lease_id, expires - server_time > interval '59 s' AS not_shortened
FROM pg_flake_renew(1, '1 s');

-- One role holds at most half the units of a format (pg_flake.lease_max_per_role
-- 0, the default): 16 of Snowflake's 32 (node 31, processes 0-31).
SELECT count(*) AS more_leases, count(DISTINCT process) AS processes
FROM generate_series(1, 15) g, LATERAL pg_flake_lease('snowflake', 'filler-' || g, '1 min') l;
SELECT * FROM pg_flake_lease('snowflake', 'over the limit');
SELECT pg_temp.sqlstate_of($$SELECT pg_flake_lease('snowflake', 'over the limit')$$);
-- With a higher limit, every Snowflake unit held: exhaustion.
SET pg_flake.lease_max_per_role = 1000;
SELECT count(*) AS more_leases, count(DISTINCT process) AS processes
FROM generate_series(16, 31) g, LATERAL pg_flake_lease('snowflake', 'filler-' || g, '1 min') l;
SELECT * FROM pg_flake_lease('snowflake', 'one too many');
SELECT pg_temp.sqlstate_of($$SELECT pg_flake_lease('snowflake', 'one too many')$$);

-- An expired lease: its unit goes to the next holder, whose window starts
-- at or after the old one's end; the old lease cannot be renewed.
SELECT pg_sleep_until(expires + interval '50 ms') FROM pg_flake_leases WHERE lease_id = 4;
SELECT state FROM pg_flake_leases WHERE lease_id = 4;
SELECT l.lease_id, l.node, l.process, l.not_before >= old.expires AS after_predecessor
FROM pg_flake_lease('snowflake', 'successor') l, pg_flake_leases old WHERE old.lease_id = 4;
-- (The messages name the time; it is masked here.)
\set masked 'DO $$ BEGIN EXECUTE current_setting(''regress.statement''); EXCEPTION WHEN OTHERS THEN RAISE NOTICE ''% (%)'', regexp_replace(SQLERRM, '' at [^;]*;'', '' at …;''), SQLSTATE; END $$'
SET regress.statement = 'SELECT pg_flake_renew(4)';
:masked;
SELECT pg_flake_release(4) AS released_expired;
SELECT state FROM pg_flake_leases WHERE lease_id = 4;

-- A release with last_used (clamped into the window): the successor starts
-- 10 ms after it, which may be in the future.
SELECT pg_flake_release(7, not_before + interval '20 s') AS released FROM pg_flake_leases
WHERE lease_id = 7;
SELECT pg_flake_release(7) AS released_twice;
SELECT l.lease_id, l.node, l.process, l.not_before = old.last_used + interval '10 ms' AS at_last_use,
       l.not_before > l.server_time AS starts_later
FROM pg_flake_lease('snowflake', 'after a release') l, pg_flake_leases old WHERE old.lease_id = 7;
-- Without last_used, the successor starts at the predecessor's expiry.
SELECT pg_flake_release(8) AS released;
SELECT l.lease_id, l.process, l.not_before = old.expires AS at_expiry
FROM pg_flake_lease('snowflake', 'after a release') l, pg_flake_leases old WHERE old.lease_id = 8;
-- last_used before the window counts as its start.
SELECT pg_flake_release(9, '2000-01-01') AS released;
SELECT last_used = not_before AS clamped FROM pg_flake_leases WHERE lease_id = 9;
SET regress.statement = 'SELECT pg_flake_renew(9)';
:masked;
RESET regress.statement;
SELECT state, count(*) FROM pg_flake_leases GROUP BY state ORDER BY state;

-- A narrower range: one node of sno, 256 units; fewer units are counted.
SET pg_flake.lease_nodes = 'sno=7, kuid96=4294967295';
SELECT * FROM pg_flake_lease_range('sno');
SELECT lease_id, node, process FROM pg_flake_lease('sno', 'narrow');
SELECT lease_id, node, process FROM pg_flake_lease('kuid96', 'narrow');
SELECT * FROM pg_flake_lease('kuid96', 'narrow');
SET pg_flake.lease_nodes = 'snowflake=30-31';
SELECT lease_id, node, process FROM pg_flake_lease('snowflake', 'wider');
SET pg_flake.lease_nodes = 'siq=none';
SELECT * FROM pg_flake_lease('siq', 'none reserved');
RESET pg_flake.lease_nodes;
RESET pg_flake.lease_max_per_role;

-- A server never generates with a reserved node, and no lease is granted
-- while it would: pg_flake_node() shows why.
SET pg_flake.node = 255;
SELECT format, node, problem FROM pg_flake_node() WHERE format IN ('sno', 'siq') ORDER BY 1;
SELECT sno_generate();
SELECT * FROM pg_flake_lease('sno', 'overlap');
RESET pg_flake.node;
SET pg_flake.snowflake_worker = 31;
SELECT snowflake_generate();
SELECT * FROM pg_flake_lease('snowflake', 'overlap');
RESET pg_flake.snowflake_worker;
SET pg_flake.lease_nodes = 'kuid96=65742641';
SET pg_flake.kuid_node = 'uid@127.0.0.1';
SELECT kuid96_generate();
SET pg_flake.lease_nodes = 'sno=3, siq=3';
SET pg_flake.node = 3;
SELECT sno_generate();
SELECT siq_generate('user');
RESET ALL;
SET timezone = 'UTC';
SELECT count(*) AS generates FROM pg_flake_node() WHERE problem IS NULL;
SELECT sno_generate() IS NOT NULL AS generates;

-- Bad arguments and settings, and the SQLSTATE of every error above.
SET pg_flake.lease_nodes = 'sno=256';
SET pg_flake.lease_nodes = 'sno=5-4';
SELECT * FROM pg_flake_lease('kuid64', 'app');
SELECT * FROM pg_flake_lease('flaxid', 'app');
SELECT * FROM pg_flake_lease('uuid', 'app');
SELECT * FROM pg_flake_lease('sno', '');
SELECT * FROM pg_flake_lease('sno', 'app', '10 ms');
SELECT * FROM pg_flake_renew(1, '2 days');
SELECT * FROM pg_flake_renew(1000);
SELECT pg_flake_release(1000);
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SET pg_flake.lease_nodes = 'sno=256'$$),
    ($$SET pg_flake.lease_nodes = 'bogus=1'$$),
    ($$SET pg_flake.lease_nodes = 'sno=5-4'$$),
    ($$SET pg_flake.lease_nodes = 'sno=1,sno=2'$$),
    ($$SET pg_flake.lease_nodes = 'snowflake'$$),
    ($$SELECT pg_flake_lease('kuid64', 'app')$$),
    ($$SELECT pg_flake_lease('distributed_id', 'app')$$),
    ($$SELECT pg_flake_lease('SNO', 'app')$$),
    ($$SELECT pg_flake_lease(NULL, 'app')$$),
    ($$SELECT pg_flake_lease('sno', '')$$),
    ($$SELECT pg_flake_lease('sno', NULL)$$),
    ($$SELECT pg_flake_lease('sno', repeat('x', 201))$$),
    ($$SELECT pg_flake_lease('sno', 'app', '999 ms')$$),
    ($$SELECT pg_flake_lease('sno', 'app', '1 day 1 s')$$),
    ($$SELECT pg_flake_lease('sno', 'app', NULL)$$),
    ($$SELECT pg_flake_renew(1000)$$),
    ($$SELECT pg_flake_renew(1, '0 s')$$),
    ($$SELECT pg_flake_release(1000)$$),
    ($$SELECT pg_flake_renew(4)$$),
    ($$SELECT pg_flake_renew(9)$$)) s(statement);
SET pg_flake.lease_nodes = 'siq=none';
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT pg_flake_lease('siq', 'app')$$)) s(statement);
RESET pg_flake.lease_nodes;
SET pg_flake.node = 255;
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT pg_flake_lease('sno', 'app')$$),
    ($$SELECT sno_generate()$$),
    ($$SELECT siq_generate('user')$$)) s(statement);
RESET pg_flake.node;

-- Privileges: a role without the grant can neither lease nor read leases;
-- with it, it can (the functions are SECURITY DEFINER), but not touch the
-- table nor change the range.
CREATE ROLE regress_flake_lease_app;
SET ROLE regress_flake_lease_app;
SELECT * FROM pg_flake_lease('sno', 'no grant');
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT pg_flake_lease('sno', 'no grant')$$),
    ($$SELECT pg_flake_renew(1)$$),
    ($$SELECT pg_flake_release(1)$$),
    ($$SELECT pg_flake_lease_range('sno')$$),
    ($$SELECT * FROM pg_flake_leases$$),
    ($$SELECT * FROM pg_flake_lease_grants$$),
    ($$SET pg_flake.lease_nodes = 'sno=1'$$)) s(statement);
RESET ROLE;
-- In a transaction rolled back: the grants leave no explicit ACL behind
-- (the test upgrade compares this database's catalog with an updated one).
BEGIN;
GRANT EXECUTE ON FUNCTION pg_flake_lease(text, text, interval), pg_flake_renew(bigint, interval),
    pg_flake_release(bigint, timestamptz) TO regress_flake_lease_app;
GRANT SELECT ON pg_flake_leases TO regress_flake_lease_app;
SET ROLE regress_flake_lease_app;
SELECT lease_id, format, node, process FROM pg_flake_lease('sno', 'granted');
SELECT r.lease_id, r.expires > r.server_time AS renewed
FROM pg_flake_leases l, LATERAL pg_flake_renew(l.lease_id) r WHERE l.holder = 'granted';
SELECT pg_flake_release(lease_id) FROM pg_flake_leases WHERE holder = 'granted';
SELECT holder, state FROM pg_flake_leases WHERE holder = 'granted';
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT pg_flake_lease_range('sno')$$),
    ($$SELECT * FROM pg_flake_lease_grants$$),
    ($$DELETE FROM pg_flake_lease_grants$$),
    ($$SET pg_flake.lease_nodes = 'sno=1'$$)) s(statement);
RESET ROLE;
ROLLBACK;
DROP OWNED BY regress_flake_lease_app;
DROP ROLE regress_flake_lease_app;

-- Holders (issue 36): a lease belongs to the session's role that took it
-- (its login role, or the one SET ROLE chose). Another role can neither
-- renew it, nor release it, nor report its last use (42501); the holder's
-- role can, in any session.
CREATE ROLE regress_flake_holder_a;
CREATE ROLE regress_flake_holder_b;
GRANT EXECUTE ON FUNCTION pg_flake_lease(text, text, interval), pg_flake_renew(bigint, interval),
    pg_flake_release(bigint, timestamptz) TO regress_flake_holder_a, regress_flake_holder_b;
SET pg_flake.lease_nodes = 'kuid96=4294967294';
SET ROLE regress_flake_holder_a;
SELECT lease_id AS a_lease, node, process FROM pg_flake_lease('kuid96', 'holder a', '3 s') \gset
SELECT :a_lease AS a_lease, :node AS node, :process AS process;
SET ROLE regress_flake_holder_b;
SELECT * FROM pg_flake_renew(:a_lease);
SELECT pg_flake_release(:a_lease, '-infinity');
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    (format('SELECT pg_flake_renew(%s)', :a_lease)),
    (format('SELECT pg_flake_release(%s)', :a_lease)),
    (format('SELECT pg_flake_release(%s, %L)', :a_lease, '-infinity'))) s(statement);
-- A SECURITY DEFINER function that role a owns does not make its caller a.
RESET ROLE;
CREATE FUNCTION regress_flake_release_as_a(bigint) RETURNS boolean SECURITY DEFINER
    LANGUAGE sql AS 'SELECT pg_flake_release($1)';
ALTER FUNCTION regress_flake_release_as_a(bigint) OWNER TO regress_flake_holder_a;
SET ROLE regress_flake_holder_b;
SELECT pg_temp.sqlstate_of(format('SELECT regress_flake_release_as_a(%s)', :a_lease));
SET ROLE regress_flake_holder_a;
SELECT lease_id, expires > server_time AS renewed FROM pg_flake_renew(:a_lease, '3 s');
RESET ROLE;
DROP FUNCTION regress_flake_release_as_a(bigint);
SELECT lease_id, holder, holder_role, state FROM pg_flake_leases WHERE lease_id = :a_lease;

-- A superuser may end another role's lease, but not shorten its window:
-- no last use (42501), and the unit's next holder starts at its expiry.
\set statement 'SELECT pg_flake_release(' :a_lease ', now())'
SET regress.statement = :'statement';
\set masked_hint 'DO $$ BEGIN EXECUTE current_setting(''regress.statement''); EXCEPTION WHEN OTHERS THEN DECLARE hint text; BEGIN GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT; RAISE NOTICE ''% (%) %'', SQLERRM, SQLSTATE, regexp_replace(hint, ''[(][^()]*[)][.]$'', ''(…).''); END; END $$'
:masked_hint;
SELECT pg_flake_release(:a_lease) AS forced_end;
SET ROLE regress_flake_holder_a;
\set statement 'SELECT pg_flake_renew(' :a_lease ')'
SET regress.statement = :'statement';
:masked;
SET ROLE regress_flake_holder_b;
SELECT lease_id AS b_lease FROM pg_flake_lease('kuid96', 'holder b') \gset
RESET ROLE;
SELECT b.node = a.node AS same_unit, b.not_before = a.expires AS at_the_holders_expiry
FROM pg_flake_lease_grants a, pg_flake_lease_grants b
WHERE a.lease_id = :a_lease AND b.lease_id = :b_lease;

-- The limit is per role: with 4 units (2 each), b's third lease is
-- refused while a still gets two. Only a superuser sets the limit.
SET pg_flake.lease_nodes = 'kuid96=4294967290-4294967293';
SET ROLE regress_flake_holder_b;
SELECT count(*) AS b_leases FROM generate_series(1, 2) g, LATERAL pg_flake_lease('kuid96', 'b' || g) l;
SELECT * FROM pg_flake_lease('kuid96', 'b over the limit');
SET ROLE regress_flake_holder_a;
SELECT count(*) AS a_leases FROM generate_series(1, 2) g, LATERAL pg_flake_lease('kuid96', 'a' || g) l;
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT pg_flake_lease('kuid96', 'a over the limit')$$),
    ($$SET pg_flake.lease_max_per_role = 100$$)) s(statement);
RESET ROLE;
SELECT holder_role, count(*) FROM pg_flake_leases
WHERE format = 'kuid96' AND node BETWEEN 4294967290 AND 4294967293 AND state = 'held'
GROUP BY holder_role ORDER BY 1;

-- A lease granted before 0.4.0 names no role: any grantee may renew it
-- or end it, and no one may shorten its window (last_used is dropped).
UPDATE pg_flake_lease_grants SET holder_role = NULL
WHERE lease_id = (SELECT max(lease_id) FROM pg_flake_lease_grants WHERE holder = 'a2');
SELECT lease_id AS legacy FROM pg_flake_lease_grants WHERE holder = 'a2' AND holder_role IS NULL \gset
SET ROLE regress_flake_holder_b;
SELECT lease_id = :legacy AS renewed FROM pg_flake_renew(:legacy);
SELECT pg_flake_release(:legacy, now()) AS released;
RESET ROLE;
SELECT state, last_used FROM pg_flake_leases WHERE lease_id = :legacy;
RESET pg_flake.lease_nodes;
DROP OWNED BY regress_flake_holder_a, regress_flake_holder_b;
DROP ROLE regress_flake_holder_a, regress_flake_holder_b;

-- Synchronous replication (tests/servers/test_lease_sync.py has the
-- standbys): before answering, a grant or renewal raises the fence
-- pg_flake_lease_promised to its window's end; a session with
-- synchronous_commit = off commits its grant flushed (local).
SELECT timestamptz 'epoch' + last_value * interval '1 microsecond'
       >= (SELECT max(expires) FROM pg_flake_lease_grants) AS fence_at_latest_end
FROM pg_flake_lease_promised;
SET synchronous_commit = off;
BEGIN;
SELECT lease_id > 0 AS granted FROM pg_flake_lease('sno', 'asynchronous');
SHOW synchronous_commit;
COMMIT;
SHOW synchronous_commit;
RESET synchronous_commit;
-- A grant on a timeline other than the last grant's (a promoted standby)
-- starts no window before the fence, whatever unit it grants.
SELECT timeline = ('x' || left(pg_walfile_name(pg_current_wal_insert_lsn()), 8))::bit(32)::bigint
       AS this_timeline, doubt_until FROM pg_flake_lease_state;
SELECT lease_id AS long_lease FROM pg_flake_lease('siq', 'long', '1 hour') \gset
UPDATE pg_flake_lease_state SET timeline = timeline + 1;
SELECT l.not_before = f.expires AS after_the_fence
FROM pg_flake_lease('sno', 'after a failover') l, pg_flake_lease_grants f
WHERE f.lease_id = :long_lease;
SELECT timeline = ('x' || left(pg_walfile_name(pg_current_wal_insert_lsn()), 8))::bit(32)::bigint
       AS this_timeline, doubt_until = f.expires AS doubt_until
FROM pg_flake_lease_state, pg_flake_lease_grants f WHERE f.lease_id = :long_lease;
UPDATE pg_flake_lease_state SET doubt_until = NULL;
RESET regress.statement;

-- The functions run with a fixed search_path and lock_timeout; the
-- helpers they call are not PUBLIC's either.
SELECT proname, prosecdef, proconfig FROM pg_proc
WHERE proname IN ('pg_flake_lease', 'pg_flake_renew', 'pg_flake_release') ORDER BY 1;
SELECT p.oid::regprocedure, has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p WHERE proname LIKE 'pg_flake_lease_%' ORDER BY 1;
TRUNCATE pg_flake_lease_grants RESTART IDENTITY;
