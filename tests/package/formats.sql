-- The package test's checks of an installed artifact (scripts/test-package-tarball.sh,
-- scripts/test-package-deb.sh; docs/operations.md "Packaging"), run in a database that has
-- pg_flake:
--   psql -v ON_ERROR_STOP=1 -v phase=PHASE -f tests/package/formats.sql
-- Every format generates 1000 IDs into a table of its own (a primary key: a duplicate fails)
-- and decodes them: the time of each within minutes of now, the text, hex and base62 forms
-- back to the same value, the kind, public identities decrypted to what was encrypted.
-- PHASE names the rows: `before` on the previous release (these statements use only what
-- 0.4.0 has), `after` once ALTER EXTENSION pg_flake UPDATE has run, in the same database:
-- then every coordination-based format (sno, siq, Snowflake, kuid64, kuid96) must generate
-- above every ID of `before`; `fresh` in a database made at this version.
\set QUIET on
SET client_min_messages = warning;
SELECT :'phase' = 'after' AS after_update \gset

CREATE FUNCTION pg_temp.expect(ok boolean, what text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'package test: % failed (phase %)', what, current_setting('package.phase');
    END IF;
END
$$;
SELECT set_config('package.phase', :'phase', false) \g /dev/null
-- An ID's time is one of now's, give or take the minutes a loaded machine takes.
CREATE FUNCTION pg_temp.recent(t timestamptz) RETURNS boolean
LANGUAGE sql AS $$
    SELECT t BETWEEN now() - interval '10 minutes' AND clock_timestamp() + interval '1 minute'
$$;

CREATE TABLE IF NOT EXISTS package_sno (id sno PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_siq (id siq PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_distributed_id (id distributed_id PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_distributed_id128 (id uuid PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_flaxid (id flaxid PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_kuid64 (id bigint PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_kuid96 (id kuid96 PRIMARY KEY, phase text NOT NULL);
CREATE TABLE IF NOT EXISTS package_snowflake (id bigint PRIMARY KEY, phase text NOT NULL);

INSERT INTO package_sno SELECT sno_generate(), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_siq SELECT siq_generate('user'), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_distributed_id SELECT distributed_id_generate(), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_distributed_id128 SELECT distributed_id128_generate(), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_flaxid SELECT flaxid_generate(), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_kuid64 SELECT kuid64_generate(), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_kuid96 SELECT kuid96_generate(), :'phase' FROM generate_series(1, 1000);
INSERT INTO package_snowflake SELECT snowflake_generate(), :'phase' FROM generate_series(1, 1000);

SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(sno_timestamp(id)))
    AND bool_and(id::text::sno = id), 'sno: decode')
FROM package_sno WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(siq_timestamp(id)))
    AND bool_and(siq_kind(id) = 'user') AND bool_and(id::text::siq = id), 'siq: decode')
FROM package_siq WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(distributed_id_timestamp(id)))
    AND bool_and(distributed_id_from_hex(distributed_id_to_hex(id)) = id)
    AND bool_and(alphanumeric_decode_distributed_id(alphanumeric_encode(id)) = id)
    AND bool_and(public_id_decrypt_distributed_id(public_id_encrypt(id, '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea),
        '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea) = id),
    'distributed_id: decode, base62 and public identity')
FROM package_distributed_id WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(distributed_id128_timestamp(id)))
    AND bool_and(alphanumeric_decode_uuid(alphanumeric_encode(id)) = id),
    'distributed_id128: decode and base62')
FROM package_distributed_id128 WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(flaxid_timestamp(id)))
    AND bool_and(id::text::flaxid = id), 'flaxid: decode')
FROM package_flaxid WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(kuid64_timestamp(id)))
    AND bool_and(kuid64_decode(kuid64_encode(id)) = id)
    AND bool_and(alphanumeric_decode_bigint(alphanumeric_encode(id)) = id), 'kuid64: decode and base62')
FROM package_kuid64 WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(kuid96_timestamp(id)))
    AND bool_and(id::text::kuid96 = id), 'kuid96: decode')
FROM package_kuid96 WHERE phase = :'phase' \g /dev/null
SELECT pg_temp.expect(count(*) = 1000 AND bool_and(pg_temp.recent(snowflake_timestamp(id))),
    'snowflake: decode')
FROM package_snowflake WHERE phase = :'phase' \g /dev/null

\if :after_update
SELECT pg_temp.expect(min(id) FILTER (WHERE phase = 'after') > max(id) FILTER (WHERE phase = 'before'),
    'sno: above the IDs before the update') FROM package_sno \g /dev/null
SELECT pg_temp.expect(min(id) FILTER (WHERE phase = 'after') > max(id) FILTER (WHERE phase = 'before'),
    'siq: above the IDs before the update') FROM package_siq \g /dev/null
SELECT pg_temp.expect(min(id) FILTER (WHERE phase = 'after') > max(id) FILTER (WHERE phase = 'before'),
    'snowflake: above the IDs before the update') FROM package_snowflake \g /dev/null
SELECT pg_temp.expect(min(id) FILTER (WHERE phase = 'after') > max(id) FILTER (WHERE phase = 'before'),
    'kuid64: above the IDs before the update') FROM package_kuid64 \g /dev/null
SELECT pg_temp.expect(min(id) FILTER (WHERE phase = 'after') > max(id) FILTER (WHERE phase = 'before'),
    'kuid96: above the IDs before the update') FROM package_kuid96 \g /dev/null
\endif
\echo formats.sql :phase every format generated and decoded
