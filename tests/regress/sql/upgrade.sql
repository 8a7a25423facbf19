-- A database made at 0.1.0, 0.2.0, 0.3.0 or 0.4.0 keeps working with this
-- library, and ALTER EXTENSION pg_flake UPDATE gives it exactly the catalog
-- of a fresh install of this version (docs/operations.md "Versions"): from
-- 0.1.0 through every later one, from 0.2.0, from 0.3.0, and from 0.4.0. The
-- fresh one is this database's (the catalog test created it); the updated
-- ones are made here.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set include :abs_srcdir '/include/catalog_description.sql'
\set ECHO none
\i :include
\set ECHO all
SELECT current_database() AS fresh_database,
       string_agg(section || ': ' || line, E'\n' ORDER BY section, line) AS fresh
FROM pg_flake_catalog \gset
CREATE DATABASE regress_flake_upgraded;
\c regress_flake_upgraded
SET client_min_messages = warning;
CREATE EXTENSION pg_flake VERSION '0.1.0';
RESET client_min_messages;
-- 0.1.0's catalog on this library: every C function it names exists (else
-- CREATE EXTENSION fails), and the functions 0.2.0 renames or redefines
-- still answer as in 0.1.0.
SELECT siq_domain_hash('example.com') AS domain_hash,
       siq_from_parts(111411200032768, 9, 2261653831, 'message', 2) AS from_ticks,
       sno_parts('brpk4q72xwf2m63l') AS parts;
SELECT count(*) > 0 AS generated FROM (SELECT sno_generate(), kuid64_generate()) g;
SELECT format FROM pg_flake_generator_state() WHERE format = 'sno' LIMIT 1;
ALTER EXTENSION pg_flake UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_flake';
\set ECHO none
\i :include
\set ECHO all
SELECT md5(string_agg(section || ': ' || line, E'\n' ORDER BY section, line)) = md5(:'fresh')
    AS same_catalog
FROM pg_flake_catalog;
-- Where they differ (nothing, when the line above is true):
SELECT 'only fresh' AS side, line FROM (
    SELECT regexp_split_to_table(:'fresh', E'\n') AS line
    EXCEPT
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') FROM pg_flake_catalog) f
UNION ALL
SELECT 'only updated', line FROM (
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') AS line FROM pg_flake_catalog
    EXCEPT
    SELECT regexp_split_to_table(:'fresh', E'\n')) u
ORDER BY 1, 2;
-- The renamed functions under their new names, the new ones present:
SELECT siq_domain_name_hash('example.com') AS domain_hash,
       siq_from_tick_parts(111411200032768, 9, 2261653831, 'message', 2) AS from_ticks;
SELECT count(*) AS formats FROM pg_flake_node();
\c :fresh_database
DROP DATABASE regress_flake_upgraded;
-- From 0.2.0: its catalog on this library answers as in 0.2.0, and the
-- update gives the fresh catalog.
CREATE DATABASE regress_flake_upgraded;
\c regress_flake_upgraded
SET client_min_messages = warning;
CREATE EXTENSION pg_flake VERSION '0.2.0';
RESET client_min_messages;
SELECT count(*) > 0 AS generated
FROM (SELECT sno_generate(), siq_generate('user'), snowflake_generate(), kuid64_generate(),
             kuid96_generate(), flaxid_generate(), distributed_id_generate()) g;
SELECT count(*) > 0 AS state FROM pg_flake_generator_state() WHERE format = 'sno';
SELECT count(*) AS formats FROM pg_flake_node();
ALTER EXTENSION pg_flake UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_flake';
\set ECHO none
\i :include
\set ECHO all
SELECT md5(string_agg(section || ': ' || line, E'\n' ORDER BY section, line)) = md5(:'fresh')
    AS same_catalog
FROM pg_flake_catalog;
-- Where they differ (nothing, when the line above is true):
SELECT 'only fresh' AS side, line FROM (
    SELECT regexp_split_to_table(:'fresh', E'\n') AS line
    EXCEPT
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') FROM pg_flake_catalog) f
UNION ALL
SELECT 'only updated', line FROM (
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') AS line FROM pg_flake_catalog
    EXCEPT
    SELECT regexp_split_to_table(:'fresh', E'\n')) u
ORDER BY 1, 2;
\c :fresh_database
DROP DATABASE regress_flake_upgraded;
-- From 0.3.0: its catalog on this library answers as in 0.3.0 (leases
-- included), and the update gives the fresh catalog.
CREATE DATABASE regress_flake_upgraded;
\c regress_flake_upgraded
SET client_min_messages = warning;
CREATE EXTENSION pg_flake VERSION '0.3.0';
RESET client_min_messages;
SELECT count(*) > 0 AS generated
FROM (SELECT sno_generate(), siq_generate('user'), snowflake_generate(), kuid64_generate(),
             kuid96_generate(), flaxid_generate(), distributed_id_generate()) g;
SELECT count(*) AS leases FROM pg_flake_leases;
SELECT count(*) AS formats FROM pg_flake_node();
ALTER EXTENSION pg_flake UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_flake';
\set ECHO none
\i :include
\set ECHO all
SELECT md5(string_agg(section || ': ' || line, E'\n' ORDER BY section, line)) = md5(:'fresh')
    AS same_catalog
FROM pg_flake_catalog;
-- Where they differ (nothing, when the line above is true):
SELECT 'only fresh' AS side, line FROM (
    SELECT regexp_split_to_table(:'fresh', E'\n') AS line
    EXCEPT
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') FROM pg_flake_catalog) f
UNION ALL
SELECT 'only updated', line FROM (
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') AS line FROM pg_flake_catalog
    EXCEPT
    SELECT regexp_split_to_table(:'fresh', E'\n')) u
ORDER BY 1, 2;
\c :fresh_database
DROP DATABASE regress_flake_upgraded;
-- From 0.4.0: its catalog on this library answers as in 0.4.0 (its
-- partition functions and statistics included), and the update gives the
-- fresh catalog (0.5.0 replaces the partition and lease functions).
CREATE DATABASE regress_flake_upgraded;
\c regress_flake_upgraded
SET client_min_messages = warning;
CREATE EXTENSION pg_flake VERSION '0.4.0';
RESET client_min_messages;
SELECT count(*) > 0 AS generated
FROM (SELECT sno_generate(), siq_generate('user'), snowflake_generate(), kuid64_generate(),
             kuid96_generate(), flaxid_generate(), distributed_id_generate()) g;
SELECT count(*) AS formats FROM pg_flake_stats;
CREATE TABLE partitioned (id sno NOT NULL) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM pg_flake_create_partitions('partitioned', 'sno',
    '2026-01-01 00:00+00', '2026-01-03 00:00+00', '1 day');
ALTER EXTENSION pg_flake UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_flake';
-- The partitions 0.4.0 made, as 0.5.0 reads them.
SELECT partition, partition_from AT TIME ZONE 'UTC' AS utc_from
FROM pg_flake_partitions('partitioned', 'sno') ORDER BY 2;
DROP TABLE partitioned;
\set ECHO none
\i :include
\set ECHO all
SELECT md5(string_agg(section || ': ' || line, E'\n' ORDER BY section, line)) = md5(:'fresh')
    AS same_catalog
FROM pg_flake_catalog;
-- Where they differ (nothing, when the line above is true):
SELECT 'only fresh' AS side, line FROM (
    SELECT regexp_split_to_table(:'fresh', E'\n') AS line
    EXCEPT
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') FROM pg_flake_catalog) f
UNION ALL
SELECT 'only updated', line FROM (
    SELECT regexp_split_to_table(section || ': ' || line, E'\n') AS line FROM pg_flake_catalog
    EXCEPT
    SELECT regexp_split_to_table(:'fresh', E'\n')) u
ORDER BY 1, 2;
\c :fresh_database
DROP DATABASE regress_flake_upgraded;
