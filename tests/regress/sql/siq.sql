-- siq: the type, its text forms, functions, settings and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- Text input: canonical, did: prefix, upper case; output is canonical.
SELECT 'mpzijbyagku7racaaaamgzymuoaaa'::siq AS canonical,
       'did:siq:mpzijbyagku7racaaaamgzymuoaaa'::siq AS from_did,
       'MPZIJBYAGKU7RACAAAAMGZYMUOAAA'::siq AS from_upper;
SELECT siq_to_did(s), siq_to_hex(s), siq_to_base64(s), s::numeric, s::bytea
FROM (SELECT 'mpzijbyagku7racaaaamgzymuoaaa'::siq s) x;
SELECT siq_from_hex('006553f10080000186ce19470000'), siq_from_hex('7'), siq_from_hex('ABC');
SELECT '8028023023239580534412744785920'::numeric::siq, 0::numeric::siq;
SELECT '\x006553f10080000186ce19470000'::bytea::siq AS bytes14,
       '\x0000006553f10080000186ce19470000'::bytea::siq AS bytes16;

-- Decoding.
SELECT siq_timestamp(s), siq_kind(s), siq_serial(s), siq_shard(s), siq_domain_hash(s)
FROM (SELECT 'crxckuyagku7racaaacmgzymuoabo'::siq s) x;
SELECT * FROM siq_parts('crxckuyagku7racaaacmgzymuoabo');
SELECT siq_domain_name_hash('example.com'), siq_domain_name_hash(''), siq_domain_name_hash('0');

-- An untyped literal means the ID (0.2.0; 0.1.0 read it as a domain name),
-- and siq_from_parts takes an untyped time (docs/operations.md "Versions").
SELECT siq_domain_hash('crxckuyagku7racaaacmgzymuoabo') AS id_field;
SELECT siq_from_parts('2023-11-14 22:13:20.5+00', 9, 2261653831, 'message', 2) AS from_time;
-- Every kind, with its suffix and serial width, through siq_from_tick_parts.
SELECT k, siq_kind(s), siq_serial(s), siq_to_hex(s)
FROM unnest(ARRAY['user', 'application', 'event', 'premium', 'group', 'collection', 'invite',
                  'tag', 'channel', 'thread', 'message', 'ternary', 'manytomany', 'multi',
                  'content']) k,
     siq_from_tick_parts(111411200032768, 1, 2261653831, k, 5) s;
SELECT siq_kind(siq_from_tick_parts(0, 0, 0, 'USER', 0)) AS case_insensitive;
SELECT siq_kind(siq_from_hex('1c')) AS unassigned_suffix, (siq_parts(siq_from_hex('1c'))).low16;

-- Construction from time rounds down to the 1/65536 s tick.
SELECT siq_from_time('2023-11-14 22:13:20.5+00') AS at_time,
       siq_timestamp(siq_from_time('2023-11-14 22:13:20.500014+00')) AS tick_start;
SELECT siq_from_parts(timestamptz '2023-11-14 22:13:20.5+00', 1, 2261653831, 'user', 0)
     = 'mpzijbyagku7racaaaamgzymuoaaa' AS from_time_parts;
SELECT siq_from_time('1970-01-01 00:00:00+00') = siq_from_hex('0') AS epoch;

-- Operators and aggregates.
SELECT 'mpzijbyagku7racaaaamgzymuoaaa'::siq < 'crxckuyagku7racaaacmgzymuoabo'::siq AS lt,
       siq_cmp('mpzijbyagku7racaaaamgzymuoaaa', 'mpzijbyagku7racaaaamgzymuoaaa') AS cmp;
SELECT min(s), max(s) FROM (VALUES ('mpzijbyagku7racaaaamgzymuoaaa'::siq),
                                   ('crxckuyagku7racaaacmgzymuoabo')) v(s);

-- Generation: kind, domain, node, order.
SET pg_flake.siq_domain = 'example.com';
SELECT siq_kind(s), siq_domain_hash(s), abs(extract(epoch FROM siq_timestamp(s) - now())) < 60 AS now
FROM siq_generate('message') s;
SET pg_flake.siq_node = 7;
SELECT to_hex(siq_domain_hash(siq_generate('user'))) AS with_node;
RESET pg_flake.siq_node;
SET pg_flake.siq_domain = '';
SELECT siq_domain_hash(siq_generate('user')) AS no_domain;
RESET pg_flake.siq_domain;
SELECT bool_and(a < b) AS increasing, count(*) AS pairs
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, siq_generate('user') AS id FROM generate_series(1, 5000) n) s) t
WHERE b IS NOT NULL;
SELECT count(DISTINCT siq_generate(k)) AS distinct_ids
FROM generate_series(1, 3000), unnest(ARRAY['user', 'message', 'content']) k;
SELECT format, kind, range_first, range_last, issued > 0 AS issued
FROM pg_flake_generator_state()
WHERE format = 'siq' AND kind IN ('user', 'message', 'content') ORDER BY kind;

-- A users table with a generated default, and a time-range query on the index.
CREATE TABLE siq_users (id siq PRIMARY KEY DEFAULT siq_generate('user'), name text);
INSERT INTO siq_users (name) SELECT 'user ' || g FROM generate_series(1, 100) g;
INSERT INTO siq_users (id, name)
SELECT siq_from_parts(timestamptz '2024-01-01' + g * interval '1 day', 0, 0, 'user', 0), 'old ' || g
FROM generate_series(0, 59) g;
ANALYZE siq_users;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM siq_users WHERE id >= siq_from_time('2024-02-01') AND id < siq_from_time('2024-03-01');
SELECT count(*) FROM siq_users WHERE id >= siq_from_time('2024-02-01') AND id < siq_from_time('2024-03-01');
RESET enable_seqscan;
SELECT count(*), count(DISTINCT id), bool_and(siq_kind(id) = 'user') FROM siq_users;
DROP TABLE siq_users;

-- Errors.
SELECT 'mpzijbyagku7racaaaamgzymuoaab'::siq;
SELECT 'mpzijbyagku7racaaaamgzymuoaa'::siq;
SELECT 'did:sno:mpzijbyagku7racaaaamgzymuoaaa'::siq;
SELECT 'mpzijbyagku7racaaaamgzymuoaa1'::siq;
SELECT siq_generate('robot');
SELECT siq_from_tick_parts(0, 0, 0, 'droid', 0);
SELECT siq_domain_name_hash('bücher.example');
SET pg_flake.siq_domain = 'bücher.example';
SELECT siq_from_tick_parts(72057594037927936, 0, 0, 'user', 0);
SELECT siq_from_tick_parts(-1, 0, 0, 'user', 0);
SELECT siq_from_tick_parts(0, 256, 0, 'user', 0);
SELECT siq_from_tick_parts(0, 0, 4294967296, 'user', 0);
SELECT siq_from_tick_parts(0, 0, 0, 'user', 2048);
SELECT siq_from_tick_parts(0, 0, 0, 'message', 4096);
SELECT siq_from_tick_parts(0, 0, 0, 'content', -1);
SELECT siq_from_time('1969-12-31 23:59:59.999999+00');
SELECT siq_from_time('-infinity');
SELECT siq_from_hex('');
SELECT siq_from_hex('00000000000000000000000000000');
SELECT siq_from_hex('xyz');
SELECT '5192296858534827628530496329220096'::numeric::siq;
SELECT (-1)::numeric::siq;
SELECT 1.5::numeric::siq;
SELECT 'NaN'::numeric::siq;
SELECT '\x00'::bytea::siq;
SELECT '\x0100006553f10080000186ce19470000'::bytea::siq;
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT 'mpzijbyagku7racaaaamgzymuoaab'::siq$$),
    ($$SELECT 'mpzijbyagku7racaaaamgzymuoaa'::siq$$),
    ($$SELECT 'did:sno:mpzijbyagku7racaaaamgzymuoaaa'::siq$$),
    ($$SELECT 'mpzijbyagku7racaaaamgzymuoaa1'::siq$$),
    ($$SELECT siq_generate('robot')$$),
    ($$SELECT siq_from_tick_parts(0, 0, 0, 'droid', 0)$$),
    ($$SELECT siq_domain_name_hash('bücher.example')$$),
    ($$SELECT siq_from_tick_parts(72057594037927936, 0, 0, 'user', 0)$$),
    ($$SELECT siq_from_tick_parts(-1, 0, 0, 'user', 0)$$),
    ($$SELECT siq_from_tick_parts(0, 256, 0, 'user', 0)$$),
    ($$SELECT siq_from_tick_parts(0, 0, 4294967296, 'user', 0)$$),
    ($$SELECT siq_from_tick_parts(0, 0, 0, 'user', 2048)$$),
    ($$SELECT siq_from_tick_parts(0, 0, 0, 'message', 4096)$$),
    ($$SELECT siq_from_tick_parts(0, 0, 0, 'content', -1)$$),
    ($$SELECT siq_from_time('1969-12-31 23:59:59.999999+00')$$),
    ($$SELECT siq_from_time('-infinity')$$),
    ($$SELECT siq_from_hex('')$$),
    ($$SELECT siq_from_hex('00000000000000000000000000000')$$),
    ($$SELECT siq_from_hex('xyz')$$),
    ($$SELECT '5192296858534827628530496329220096'::numeric::siq$$),
    ($$SELECT (-1)::numeric::siq$$),
    ($$SELECT 1.5::numeric::siq$$),
    ($$SELECT 'NaN'::numeric::siq$$),
    ($$SELECT '\x00'::bytea::siq$$),
    ($$SELECT '\x0100006553f10080000186ce19470000'::bytea::siq$$)
) AS errors(statement);
SET pg_flake.siq_node = 256;
CREATE ROLE siq_regress_user;
SET ROLE siq_regress_user;
SET pg_flake.siq_node = 1;
-- pg_flake.siq_domain is superuser-only too (0.4.0): without a node setting
-- the hash's top byte is the node in the IDs.
SET pg_flake.siq_domain = 'example.org';
SELECT pg_temp.sqlstate_of($$SET pg_flake.siq_domain = 'example.org'$$) AS siq_domain_as_user;
SELECT siq_kind(siq_generate('tag'));
RESET ROLE;
DROP ROLE siq_regress_user;

-- Binary input takes exactly 14 bytes: the 16-byte form is for bytea::siq only.
COPY (SELECT '\x0000006553f10080000186ce19470000'::bytea)
    TO '/tmp/pg_flake_regress_siq_16.bin' (FORMAT binary);
CREATE TABLE siq_copy (id siq);
COPY siq_copy FROM '/tmp/pg_flake_regress_siq_16.bin' (FORMAT binary);
COPY (SELECT '\x006553f10080000186ce19470000'::bytea)
    TO '/tmp/pg_flake_regress_siq_14.bin' (FORMAT binary);
COPY siq_copy FROM '/tmp/pg_flake_regress_siq_14.bin' (FORMAT binary);
SELECT id, id = '\x0000006553f10080000186ce19470000'::bytea::siq AS same_as_bytea16 FROM siq_copy;
DROP TABLE siq_copy;
