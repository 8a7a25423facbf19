-- What the server's PostgreSQL version gives pg_flake (build.rs's
-- capabilities, docs/operations.md "Versions"), each checked against the
-- version the server reports, so that one expected output holds on every
-- version: a build for the wrong version, or a capability on the wrong side
-- of its version, shows as an f.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SELECT current_setting('server_version_num')::int / 10000 AS major,
    (current_setting('shared_preload_libraries') ~ 'pg_flake')::int AS preloaded \gset

-- Btree skip support (18): support function 6 in every native type's btree
-- family from 18, in none before (the catalog of 17 is catalog_3.out's).
SELECT count(*) = CASE WHEN :major >= 18 THEN 5 ELSE 0 END AS skip_support_from_18
FROM pg_opfamily f
JOIN pg_am am ON am.oid = f.opfmethod AND am.amname = 'btree'
JOIN pg_amproc p ON p.amprocfamily = f.oid AND p.amprocnum = 6
WHERE f.opfname IN ('sno_ops', 'siq_ops', 'flaxid_ops', 'kuid96_ops', 'distributed_id_ops');

-- Shared mode on every version, preloaded or not (0.4.0; earlier versions
-- gave each backend its own generators on 15 and 16 without preloading).
SELECT sno_generate() IS NOT NULL AS generated;
SELECT string_agg(DISTINCT mode, ',')
    = 'shared' AS mode_as_expected
FROM pg_flake_generator_state() WHERE format = 'sno';
