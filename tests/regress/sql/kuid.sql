-- k-ordered uid: kuid64 on bigint, the type kuid96, node fingerprints,
-- settings and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- kuid64: the reference README's time, 1024 µs units, the 11-character text.
SELECT kuid64_encode(0) AS zero, kuid64_encode(27084864703004673) AS readme,
       kuid64_encode(9223372036854775807) AS largest;
SELECT kuid64_decode('...........'), kuid64_decode('.5.tXbhdV.3'), kuid64_decode('Ezzzzzzzzzw');
SELECT kuid64_timestamp(27084864703004673);
SELECT * FROM kuid64_parts(27084864703004673);
SELECT (kuid64_parts(9223372036854775807)).*;
SELECT kuid64_from_time('2018-10-15 17:41:15.432128+00') AS unit_start,
       kuid64_from_time('2018-10-15 17:41:15.433151+00') AS unit_end,
       kuid64_from_time('2018-10-15 17:41:15.433152+00') AS next_unit,
       kuid64_from_time('1970-01-01 00:00:00+00') AS epoch;
SELECT kuid64_from_parts('2018-10-15 17:41:15.432999+00', 1) AS from_parts;
SELECT kuid64_from_parts(p.time, p.seq) = 8376415737141536435 AS round_trip
FROM kuid64_parts(8376415737141536435) p;
-- The text order is the value order.
SELECT count(*) = 0 AS text_order_matches FROM (
    SELECT row_number() OVER (ORDER BY k) AS by_value,
           row_number() OVER (ORDER BY kuid64_encode(k) COLLATE "C") AS by_text
    FROM (SELECT ((g::numeric * 4611686018427387 * 7919) % 9223372036854775807)::bigint AS k
          FROM generate_series(1, 2000) g) s) t
WHERE by_value <> by_text;

-- kuid96: text and bytes; node fingerprints.
SELECT '.5.tXa0xODNvPN.0'::kuid96 AS readme, '................'::kuid96 AS zero,
       'zzzzzzzzzzzzzzzz'::kuid96 AS largest;
SELECT '.5.tXa0xODNvPN.0'::kuid96::bytea AS to_bytea,
       '\x0060398a607d64e63b698001'::bytea::kuid96 AS from_bytea,
       '.5.tXa0xODNvPN.0'::kuid96::text AS to_text;
SELECT kuid_node_fingerprint('uid@127.0.0.1') AS readme_node, kuid_node_fingerprint('') AS empty,
       kuid_node_fingerprint('nonode@nohost') AS nonode, kuid_node_fingerprint('é') AS latin1;

-- Decoding with an explicit interval: the same local ID on one node, laid
-- out for I = 5 and I = 9.
SELECT * FROM kuid96_parts('.5.tXa0xODNvPN.0', 5);
SELECT * FROM kuid96_parts('.5.tXVULIa8vPN.0', 9);
SELECT kuid96_timestamp('.5.tXa0xODNvPN.0', 5), kuid96_node('.5.tXa0xODNvPN.0', 5),
       kuid96_localize('.5.tXa0xODNvPN.0', 5);
SELECT kuid96_globalize(27084864703004673, 65742641, 5) AS i5,
       kuid96_globalize(27084864703004673, 65742641, 9) AS i9;
-- Read with another interval, the same bytes are another time and node.
SELECT * FROM kuid96_parts('.5.tXa0xODNvPN.0', 8);

-- Construction.
SELECT kuid96_from_parts('2018-10-15 17:41:15.432999+00', 65742641, 1, 5) AS from_parts,
       kuid96_from_time('2018-10-15 17:41:15.432999+00', 5) AS from_time;
SELECT kuid96_from_parts(p.time, p.node, p.seq, 6) = 'zzzzFYzzzzzzx2zz' AS round_trip
FROM kuid96_parts('zzzzFYzzzzzzx2zz', 6) p;

-- Settings: without an interval argument the functions read
-- pg_flake.kuid_interval (default 8); kuid96_globalize without a node reads
-- pg_flake.kuid_node.
SHOW pg_flake.kuid_interval;
SHOW pg_flake.kuid_node;
SELECT * FROM kuid96_parts('.6.nakFkn3H9Ps.1');
SET pg_flake.kuid_interval = 5;
SELECT * FROM kuid96_parts('.5.tXa0xODNvPN.0');
SELECT kuid96_timestamp('.5.tXa0xODNvPN.0'), kuid96_node('.5.tXa0xODNvPN.0'),
       kuid96_localize('.5.tXa0xODNvPN.0'),
       kuid96_from_parts('2018-10-15 17:41:15.432128+00', 65742641, 1) AS from_parts,
       kuid96_from_time('2018-10-15 17:41:15.432128+00') AS from_time,
       kuid96_globalize(27084864703004673, 65742641) AS globalize;
SELECT kuid96_globalize(27084864703004673) AS this_node;
SET pg_flake.kuid_node = 'uid@127.0.0.1';
SELECT kuid96_globalize(27084864703004673) AS this_node;
SELECT kuid96_node(kuid96_generate()) AS generated_node;
RESET pg_flake.kuid_node;
RESET pg_flake.kuid_interval;
-- The forms with every argument are IMMUTABLE, those reading a setting STABLE.
SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS arguments, p.provolatile, p.proisstrict,
       p.proparallel
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname ~ '^kuid' AND p.proname !~ '^kuid96_(in|out|recv|send|eq|ne|lt|le|gt|ge|cmp|smaller|larger|hash|hash_extended|sortsupport|skipsupport|minmax_multi_distance|to_bytea|from_bytea)$'
ORDER BY 1, 2;

-- Generation: increasing per backend; the slot's share of the 14-bit sequence.
SELECT bool_and(a < b) AS increasing, count(*) AS pairs
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, kuid64_generate() AS id FROM generate_series(1, 20000) n) s) t
WHERE b IS NOT NULL;
SELECT bool_and(a < b) AS increasing, count(*) AS pairs
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, kuid96_generate() AS id FROM generate_series(1, 20000) n) s) t
WHERE b IS NOT NULL;
SELECT abs(extract(epoch FROM kuid64_timestamp(kuid64_generate()) - now())) < 60 AS kuid64_now,
       abs(extract(epoch FROM kuid96_timestamp(kuid96_generate()) - now())) < 60 AS kuid96_now;
SELECT format, mode = 'shared' AS mode_ok,
       process,
       range_last - range_first + 1 = 16384 / nslots AS range_is_share, issued >= 20000 AS issued
FROM pg_flake_generator_state() WHERE format LIKE 'kuid%' ORDER BY format;

-- kuid96 in a table: primary key, hash and BRIN indexes, time ranges.
CREATE TABLE kuid96_events (id kuid96 PRIMARY KEY DEFAULT kuid96_generate(), n int);
INSERT INTO kuid96_events (n) SELECT g FROM generate_series(1, 500) g;
INSERT INTO kuid96_events (id, n)
SELECT kuid96_from_parts(timestamptz '2024-01-01' + g * interval '1 day', 0, g, 8), -g
FROM generate_series(0, 365) g;
CREATE INDEX kuid96_events_hash ON kuid96_events USING hash (id);
ANALYZE kuid96_events;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM kuid96_events
WHERE id >= kuid96_from_time('2024-03-01', 8) AND id < kuid96_from_time('2024-04-01', 8);
SELECT count(*) AS march FROM kuid96_events
WHERE id >= kuid96_from_time('2024-03-01', 8) AND id < kuid96_from_time('2024-04-01', 8);
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT * FROM kuid96_events WHERE id = '.5.tXa0xODNvPN.0';
RESET enable_indexscan;
CREATE TABLE kuid96_log AS SELECT id FROM kuid96_events ORDER BY id;
CREATE INDEX kuid96_log_brin ON kuid96_log USING brin (id);
ANALYZE kuid96_log;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM kuid96_log
WHERE id >= kuid96_from_time('2024-03-01', 8) AND id < kuid96_from_time('2024-04-01', 8);
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT min(id) AS oldest, count(*), count(DISTINCT id) FROM kuid96_events;
-- The IMMUTABLE form serves an expression index.
CREATE INDEX kuid96_events_time ON kuid96_events (kuid96_timestamp(id, 8));
SELECT count(*) = 0 AS text_order_matches FROM (
    SELECT row_number() OVER (ORDER BY id) AS by_value,
           row_number() OVER (ORDER BY id::text COLLATE "C") AS by_text
    FROM kuid96_events) s
WHERE by_value <> by_text;
DROP TABLE kuid96_events, kuid96_log;

-- Errors: malformed text (22P02), a value that is no kuid64 (22003), wrong
-- binary length (22P03), fields (22003), times (22008), intervals (22023).
SELECT kuid64_decode('..........');
SELECT kuid64_decode('............');
SELECT kuid64_decode('.5.tXbhdV.+');
SELECT kuid64_decode('..........0');
SELECT kuid64_decode('zzzzzzzzzzw');
SELECT kuid64_encode(-1);
SELECT kuid64_timestamp(-1);
SELECT kuid64_parts(-1);
SELECT kuid64_from_time('1969-12-31 23:59:59.999999+00');
SELECT kuid64_from_time('18584-01-10 03:33:20+00');
SELECT kuid64_from_time('infinity');
SELECT kuid64_from_parts('2024-01-01', 16384);
SELECT kuid64_from_parts('2024-01-01', -1);
SELECT ''::kuid96;
SELECT '.5.tXa0xODNvPN.'::kuid96;
SELECT '.5.tXa0xODNvPN.0.'::kuid96;
SELECT '.5.tXa0xODNvPN-0'::kuid96;
SELECT '\x0060398a607d64e63b6980'::bytea::kuid96;
SELECT kuid96_timestamp('.5.tXa0xODNvPN.0', 4);
SELECT kuid96_node('.5.tXa0xODNvPN.0', 11);
SELECT kuid96_parts('.5.tXa0xODNvPN.0', -1);
SELECT kuid96_localize('.5.tXa0xODNvPN.0', 0);
SELECT kuid96_from_time('2024-01-01', 4);
SELECT kuid96_globalize(0, 0, 11);
SELECT kuid96_from_parts('2024-01-01', 0, 0, 12);
SELECT kuid96_from_parts('2024-01-01', -1, 0, 8);
SELECT kuid96_from_parts('2024-01-01', 4294967296, 0, 8);
SELECT kuid96_from_parts('2024-01-01', 0, 16384, 8);
SELECT kuid96_from_parts('2024-01-01', 0, -1, 8);
SELECT kuid96_globalize(-1, 0, 8);
SELECT kuid96_globalize(0, 4294967296, 8);
SELECT kuid96_from_time('1969-12-31 23:59:59.999999+00', 8);
SELECT kuid96_from_time('35198-01-19 07:06:40+00', 8);
SELECT kuid96_from_time('-infinity');
SELECT kuid96_localize('zzzzzzzzzzzzzzzz', 8);
SET pg_flake.kuid_interval = 4;
SET pg_flake.kuid_interval = 11;
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT kuid64_decode('..........')$$),
    ($$SELECT kuid64_decode('............')$$),
    ($$SELECT kuid64_decode('.5.tXbhdV.+')$$),
    ($$SELECT kuid64_decode('..........0')$$),
    ($$SELECT kuid64_decode('zzzzzzzzzzw')$$),
    ($$SELECT kuid64_encode(-1)$$),
    ($$SELECT kuid64_timestamp(-1)$$),
    ($$SELECT kuid64_parts(-1)$$),
    ($$SELECT kuid64_from_time('1969-12-31 23:59:59.999999+00')$$),
    ($$SELECT kuid64_from_time('18584-01-10 03:33:20+00')$$),
    ($$SELECT kuid64_from_time('infinity')$$),
    ($$SELECT kuid64_from_parts('2024-01-01', 16384)$$),
    ($$SELECT kuid64_from_parts('2024-01-01', -1)$$),
    ($$SELECT ''::kuid96$$),
    ($$SELECT '.5.tXa0xODNvPN.'::kuid96$$),
    ($$SELECT '.5.tXa0xODNvPN.0.'::kuid96$$),
    ($$SELECT '.5.tXa0xODNvPN-0'::kuid96$$),
    ($$SELECT '\x0060398a607d64e63b6980'::bytea::kuid96$$),
    ($$SELECT kuid96_timestamp('.5.tXa0xODNvPN.0', 4)$$),
    ($$SELECT kuid96_node('.5.tXa0xODNvPN.0', 11)$$),
    ($$SELECT kuid96_parts('.5.tXa0xODNvPN.0', -1)$$),
    ($$SELECT kuid96_localize('.5.tXa0xODNvPN.0', 0)$$),
    ($$SELECT kuid96_from_time('2024-01-01', 4)$$),
    ($$SELECT kuid96_globalize(0, 0, 11)$$),
    ($$SELECT kuid96_from_parts('2024-01-01', 0, 0, 12)$$),
    ($$SELECT kuid96_from_parts('2024-01-01', -1, 0, 8)$$),
    ($$SELECT kuid96_from_parts('2024-01-01', 4294967296, 0, 8)$$),
    ($$SELECT kuid96_from_parts('2024-01-01', 0, 16384, 8)$$),
    ($$SELECT kuid96_from_parts('2024-01-01', 0, -1, 8)$$),
    ($$SELECT kuid96_globalize(-1, 0, 8)$$),
    ($$SELECT kuid96_globalize(0, 4294967296, 8)$$),
    ($$SELECT kuid96_from_time('1969-12-31 23:59:59.999999+00', 8)$$),
    ($$SELECT kuid96_from_time('35198-01-19 07:06:40+00', 8)$$),
    ($$SELECT kuid96_from_time('-infinity')$$),
    ($$SELECT kuid96_localize('zzzzzzzzzzzzzzzz', 8)$$),
    ($$SET pg_flake.kuid_interval = 4$$),
    ($$SET pg_flake.kuid_interval = 11$$)
) AS errors(statement);

-- pg_flake.kuid_node and pg_flake.kuid_interval are superuser-only (kuid96 values made
-- under two intervals can collide in one table); the explicit-interval forms work.
CREATE ROLE kuid_regress_user;
SET ROLE kuid_regress_user;
SET pg_flake.kuid_node = 'forged@elsewhere';
SELECT pg_temp.sqlstate_of($$SET pg_flake.kuid_node = 'forged@elsewhere'$$) AS kuid_node_as_user;
SET pg_flake.kuid_interval = 6;
SELECT pg_temp.sqlstate_of($$SET pg_flake.kuid_interval = 6$$) AS kuid_interval_as_user;
SELECT kuid96_node(kuid96_generate()) AS node, kuid96_node(kuid96_generate(), 8) AS node8;
RESET ROLE;
DROP ROLE kuid_regress_user;
