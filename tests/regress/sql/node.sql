-- One node identity (docs/operations.md "Several servers"): pg_flake.node names the
-- node for every format, a format's own setting overrides it where set, a
-- node wider than a format's field is an error naming the setting to use,
-- and pg_flake_node() says which node each format uses and why. (On a
-- standby, and inside Citus: tests/servers/test_standby.py and
-- tests/servers/citus/test_citus.py.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- Nothing set: every node field is 0, by default.
SELECT * FROM pg_flake_node() ORDER BY format;
SHOW pg_flake.node;

-- pg_flake.node for every format.
SET pg_flake.node = 7;
SELECT * FROM pg_flake_node() ORDER BY format;
SELECT sno_partition(sno_generate()) >> 8 AS sno,
       siq_domain_hash(siq_generate('user')) >> 24 AS siq,
       (snowflake_parts(snowflake_generate())).worker AS snowflake,
       kuid96_node(kuid96_generate()) AS kuid96,
       kuid96_node(kuid96_globalize(27084864703004673)) AS kuid96_globalize;

-- A format's own setting overrides it, 0 included; RESET gives it back.
SET pg_flake.sno_node = 3;
SET pg_flake.snowflake_worker = 0;
SELECT format, node, source FROM pg_flake_node() ORDER BY format;
SELECT sno_partition(sno_generate()) >> 8 AS sno,
       (snowflake_parts(snowflake_generate())).worker AS snowflake;
RESET pg_flake.sno_node;
RESET pg_flake.snowflake_worker;
SELECT format, node, source FROM pg_flake_node() WHERE format IN ('sno', 'snowflake') ORDER BY 1;

-- From pg_flake.node, SIQ's node byte replaces the domain hash's top byte
-- even for node 0 (pg_flake.siq_node = 0 keeps the hash's byte, as in 0.1.0).
SET pg_flake.siq_domain = 'example.com';
SELECT to_hex(siq_domain_name_hash('example.com')) AS domain_hash;
SET pg_flake.node = 0;
SELECT to_hex(siq_domain_hash(siq_generate('user'))) AS from_node_0;
RESET pg_flake.node;
SET pg_flake.siq_node = 0;
SELECT to_hex(siq_domain_hash(siq_generate('user'))) AS from_siq_node_0;
RESET pg_flake.siq_node;
RESET pg_flake.siq_domain;

-- Too wide for a field: an error that names the setting to use, never a
-- truncation; the formats it fits go on.
SET pg_flake.node = 32;
SELECT format, node, source, problem FROM pg_flake_node() ORDER BY format;
SELECT snowflake_generate();
SELECT sno_partition(sno_generate()) >> 8 AS sno;
SET pg_flake.node = 256;
SELECT sno_generate();
SELECT siq_generate('user');
SET pg_flake.snowflake_worker = 5;
SET pg_flake.sno_node = 5;
SET pg_flake.siq_node = 5;
SELECT format, node, source, problem IS NULL AS generates FROM pg_flake_node() ORDER BY format;
SELECT kuid96_node(kuid96_generate()) AS kuid96;
SET pg_flake.node = 2147483647;
SELECT kuid96_node(kuid96_generate()) AS kuid96;
RESET ALL;

-- Generators keep the node they work out until a setting changes (docs/
-- BENCHMARKS.md "Generation profile"): every way a setting changes back
-- reaches the next ID, a SET LOCAL undone by ROLLBACK, a SET undone with its
-- savepoint, and a change of the nodes reserved for leases.
RESET pg_flake.sno_node;
RESET pg_flake.node;
SELECT sno_partition(sno_generate()) >> 8 AS sno_before;
BEGIN;
SET LOCAL pg_flake.node = 9;
SELECT sno_partition(sno_generate()) >> 8 AS sno_set_local;
ROLLBACK;
SELECT sno_partition(sno_generate()) >> 8 AS sno_after_rollback;
BEGIN;
SAVEPOINT before_setting;
SET pg_flake.sno_node = 4;
SELECT sno_partition(sno_generate()) >> 8 AS sno_in_savepoint;
ROLLBACK TO SAVEPOINT before_setting;
SELECT sno_partition(sno_generate()) >> 8 AS sno_after_savepoint;
COMMIT;
SET pg_flake.lease_nodes = 'sno=0';
SELECT sno_generate();
RESET pg_flake.lease_nodes;
SELECT sno_partition(sno_generate()) >> 8 AS sno_lease_nodes_reset;

-- A bad value and a non-superuser.
SET pg_flake.node = -2;
SET pg_flake.node = 'node1';
CREATE ROLE regress_flake_node_user;
SET ROLE regress_flake_node_user;
SET pg_flake.node = 1;
SELECT format, source FROM pg_flake_node() ORDER BY format;
RESET ROLE;
DROP ROLE regress_flake_node_user;

-- The SQLSTATE of every error above.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SET pg_flake.node = 32;
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT snowflake_generate()$$)) s(statement);
SET pg_flake.node = 256;
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT sno_generate()$$),
    ($$SELECT siq_generate('user')$$),
    ($$SET pg_flake.node = -2$$)) s(statement);
RESET pg_flake.node;
