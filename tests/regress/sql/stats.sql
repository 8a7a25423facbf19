-- Statistics (docs/sql-reference.md "Statistics"): one row per
-- coordination-based format, counting from the generators' set-up or the
-- last pg_flake_stats_reset; IDs issued exactly, refusals by SQLSTATE (also
-- where the caller catches the error), a reset of one format or all, and the
-- leases by format. Times differ from run to run: only their relations are
-- printed. (Steps back of a moved clock:
-- tests/servers/clock/test_clock_step.py; the postgres_exporter file:
-- tests/servers/ecosystem/test_postgres_exporter.py.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of

-- A reset of every format: all counters zero, from now.
SELECT pg_flake_stats_reset() AS reset_at \gset
SELECT :'reset_at'::timestamptz BETWEEN now() - interval '1 min' AND now() AS reset_now;
SELECT format, issued, waits, refusals, marks_recorded, mark_file_time, mark_wal_time,
       clock_steps_back, stats_reset = :'reset_at' AS since_reset
FROM pg_flake_stats ORDER BY format;

-- IDs issued, exactly.
SELECT count(DISTINCT sno_generate()) FROM generate_series(1, 1000);
SELECT count(DISTINCT siq_generate('user')) FROM generate_series(1, 500);
SELECT count(DISTINCT kuid64_generate()) FROM generate_series(1, 20);
SELECT format, issued, refusals, clock_lead >= '0' AS lead FROM pg_flake_stats ORDER BY format;

-- Refusals by SQLSTATE: a node that does not fit the field (55000), twice,
-- once caught by the caller.
SET pg_flake.node = 256;
SELECT pg_temp.sqlstate_of('SELECT sno_generate()');
SELECT pg_temp.sqlstate_of('SELECT siq_generate(''user'')');
SELECT pg_temp.sqlstate_of('SELECT sno_generate()');
RESET pg_flake.node;
SELECT * FROM pg_flake_refusal_stats ORDER BY format, sqlstate;
SELECT format, issued, refusals FROM pg_flake_stats WHERE refusals > 0 ORDER BY format;

-- A reset of one format leaves the others.
SELECT pg_flake_stats_reset('sno') >= now() AS reset_now;
SELECT format, issued, refusals FROM pg_flake_stats WHERE format IN ('sno', 'siq') ORDER BY format;
SELECT * FROM pg_flake_refusal_stats ORDER BY format, sqlstate;
SELECT pg_temp.sqlstate_of('SELECT pg_flake_stats_reset(''uuid'')');

-- A set mark replaces the server's sequencers; the counts go on (issue 49,
-- item 6: 0.4.0 read 0 after it). Its WARNING names the marks: left out.
SELECT count(DISTINCT sno_generate()) FROM generate_series(1, 100);
SET client_min_messages = error;
SELECT pg_flake_set_mark('sno', now()) IS NOT NULL AS set;
RESET client_min_messages;
SELECT count(DISTINCT sno_generate()) FROM generate_series(1, 1000);
SELECT format, issued FROM pg_flake_stats WHERE format = 'sno';

-- The reset is not for PUBLIC; the views are (pg_flake_lease_stats, as
-- pg_flake_leases, only where granted).
SELECT has_function_privilege('public', 'pg_flake_stats_reset(text)', 'execute') AS reset,
       has_table_privilege('public', 'pg_flake_stats', 'select') AS stats,
       has_table_privilege('public', 'pg_flake_refusal_stats', 'select') AS refusals,
       has_table_privilege('public', 'pg_flake_lease_stats', 'select') AS leases;

-- Leases by format: granted, renewed, held, expired, released.
TRUNCATE pg_flake_lease_grants RESTART IDENTITY;
SELECT count(*) FROM pg_flake_lease('sno', 'stats-1');
SELECT count(*) FROM pg_flake_lease('sno', 'stats-2');
SELECT count(*) FROM pg_flake_lease('siq', 'stats-1');
SELECT count(*) FROM pg_flake_renew(1);
SELECT count(*) FROM pg_flake_renew(1);
SELECT pg_flake_release(2);
SELECT * FROM pg_flake_lease_stats ORDER BY format;
TRUNCATE pg_flake_lease_grants RESTART IDENTITY;
