-- sno: the type, its operators and index support, functions and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';
SET extra_float_digits = 0;

-- Text I/O: canonical in, canonical out; the examples of docs/formats/sno.md.
SELECT '2222222222222222'::sno, 'xxxxxxxxxxxxxxxx'::sno, 'brpk4q72xwf2m63l'::sno;
SELECT 'brpk4q72xwf2m63l'::sno::bytea;
SELECT '\x4e6f2160a0ff9a0a1033'::bytea::sno;
SELECT 'brpk4q72xwf2m63l'::sno::text = 'brpk4q72xwf2m63l' AS text_cast;

-- Operators, with NULLs.
SELECT a, b, a = b AS eq, a <> b AS ne, a < b AS lt, a <= b AS le, a > b AS gt, a >= b AS ge,
       sno_cmp(a, b) AS cmp
FROM (VALUES ('2222222222222222'::sno, '2222222222222223'::sno),
             ('brpk4q72xwf2m63l', 'brpk4q72xwf2m63l'),
             ('xxxxxxxxxxxxxxxx', '2222222222222222')) v(a, b);
SELECT NULL::sno = 'brpk4q72xwf2m63l'::sno AS null_eq;
SELECT min(v), max(v), count(*) FROM (VALUES ('brpk4q72xwf2m63l'::sno), ('2222222222222223'), (NULL), ('xxxxxxxxxxxxxxxx')) t(v);
SELECT sno_hash('brpk4q72xwf2m63l') AS hash, sno_hash_extended('brpk4q72xwf2m63l', 0) AS hash0,
       sno_hash_extended('brpk4q72xwf2m63l', 42) AS hash42;

-- Decoding.
SELECT sno_timestamp('brpk4q72xwf2m63l'), sno_meta('brpk4q72xwf2m63l'),
       sno_partition('brpk4q72xwf2m63l'), sno_sequence('brpk4q72xwf2m63l'),
       sno_tick_tock('brpk4q72xwf2m63l');
SELECT * FROM sno_parts('brpk4q72xwf2m63l');
SELECT (sno_parts('xxxxxxxxxxxxxxxx')).*;

-- Construction: time rounds down to its 4 ms unit; from_parts round-trips.
SELECT sno_from_time('2010-01-01 00:00:00.003999+00'), sno_from_time('2010-01-01 00:00:00.004+00');
SELECT sno_from_time('2024-05-06 07:08:09.123456+00'),
       sno_timestamp(sno_from_time('2024-05-06 07:08:09.123456+00'));
SELECT sno_from_parts('2031-05-08 23:03:34.976+00', 255, 39434, 4147) = 'brpk4q72xwf2m63l' AS from_parts;
SELECT sno_from_parts('2031-05-08 23:03:34.976+00', 255, 39434, 4147, true) AS with_tick_tock;
SELECT sno_from_parts(p.time, p.meta, p.partition, p.sequence, p.tick_tock) = 'pdgpnjnk8934pahn' AS round_trip
FROM sno_parts('pdgpnjnk8934pahn') p;

-- Generation: defaults, meta, order within one backend, current time.
SELECT sno_meta(sno_generate()) AS default_meta, sno_meta(sno_generate(200)) AS meta;
SELECT bool_and(a < b) AS increasing, count(*) AS pairs
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, sno_generate() AS id FROM generate_series(1, 20000) n) s) t
WHERE b IS NOT NULL;
SELECT abs(extract(epoch FROM sno_timestamp(sno_generate()) - now())) < 60 AS near_now;
-- The mode is 'shared', preloaded or not (without preloading: a named DSM
-- segment on 17+, a pinned one on 15 and 16); this backend's IDs came from
-- the row shown.
SELECT format, kind, mode = 'shared' AS mode_ok,
       range_first, range_last, last_sequence IS NOT NULL AS used, issued > 0 AS issued
FROM pg_flake_generator_state() WHERE format = 'sno';

-- A table with a generated default, a primary key and indexes of every kind.
CREATE TABLE sno_events (
    id sno PRIMARY KEY DEFAULT sno_generate(7),
    created timestamptz GENERATED ALWAYS AS (sno_timestamp(id)) STORED,
    n int
);
INSERT INTO sno_events (n) SELECT g FROM generate_series(1, 1000) g;
INSERT INTO sno_events (id, n)
SELECT sno_from_parts(timestamptz '2024-01-01' + g * interval '1 day', 1, 0, 0), -g
FROM generate_series(0, 365) g;
SELECT count(*), count(DISTINCT id), bool_and(created = sno_timestamp(id)) AS generated_ok FROM sno_events;
CREATE INDEX sno_events_hash ON sno_events USING hash (id);
CREATE INDEX sno_events_brin ON sno_events USING brin (id);
CREATE INDEX sno_events_time ON sno_events (sno_timestamp(id));
ANALYZE sno_events;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM sno_events
WHERE id >= sno_from_time('2024-03-01') AND id < sno_from_time('2024-04-01');
SELECT count(*) AS march FROM sno_events
WHERE id >= sno_from_time('2024-03-01') AND id < sno_from_time('2024-04-01');
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT * FROM sno_events WHERE id = 'brpk4q72xwf2m63l';
RESET enable_indexscan;
SET enable_indexscan = off;
DROP INDEX sno_events_hash;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sno_events
WHERE id >= sno_from_time('2024-03-01') AND id < sno_from_time('2024-04-01');
RESET enable_indexscan;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sno_events WHERE sno_timestamp(id) >= '2024-02-01' AND sno_timestamp(id) < '2024-02-03';
SELECT count(*) FROM sno_events WHERE sno_timestamp(id) >= '2024-02-01' AND sno_timestamp(id) < '2024-02-03';
RESET enable_seqscan;
RESET enable_bitmapscan;

-- A BRIN index alone serves a time-range query.
CREATE TABLE sno_log (id sno NOT NULL);
INSERT INTO sno_log SELECT id FROM sno_events ORDER BY id;
CREATE INDEX sno_log_brin ON sno_log USING brin (id);
ANALYZE sno_log;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM sno_log WHERE id >= sno_from_time('2024-03-01') AND id < sno_from_time('2024-04-01');
SELECT count(*) FROM sno_log WHERE id >= sno_from_time('2024-03-01') AND id < sno_from_time('2024-04-01');
RESET enable_seqscan;

-- Sorting (sortsupport with abbreviated keys) agrees with the text order.
SELECT count(*) = 0 AS text_order_matches FROM (
    SELECT id, row_number() OVER (ORDER BY id) AS by_value,
           row_number() OVER (ORDER BY id::text COLLATE "C") AS by_text
    FROM sno_events) s
WHERE by_value <> by_text;

-- Hash join and hash aggregation. The join is between two tables holding
-- the same IDs (sno_log is a copy): a join of sno_events with itself on its
-- primary key is no join from PostgreSQL 18 on, which removes it
-- (self-join elimination).
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sno_events e JOIN sno_log l ON e.id = l.id;
SELECT count(*) FROM sno_events e JOIN sno_log l ON e.id = l.id;
RESET enable_mergejoin;
RESET enable_nestloop;
SET enable_sort = off;
SELECT count(*) FROM (SELECT id FROM sno_events GROUP BY id) g;
RESET enable_sort;

-- PARTITION BY RANGE with monthly bounds from sno_from_time.
CREATE TABLE sno_monthly (id sno NOT NULL, n int) PARTITION BY RANGE (id);
CREATE TABLE sno_2024_01 PARTITION OF sno_monthly
    FOR VALUES FROM (sno_from_time('2024-01-01')) TO (sno_from_time('2024-02-01'));
CREATE TABLE sno_2024_02 PARTITION OF sno_monthly
    FOR VALUES FROM (sno_from_time('2024-02-01')) TO (sno_from_time('2024-03-01'));
CREATE TABLE sno_later PARTITION OF sno_monthly
    FOR VALUES FROM (sno_from_time('2024-03-01')) TO (MAXVALUE);
INSERT INTO sno_monthly SELECT id, n FROM sno_events WHERE n < 0;
SELECT tableoid::regclass AS partition, count(*), min(sno_timestamp(id)), max(sno_timestamp(id))
FROM sno_monthly GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM sno_monthly WHERE id >= sno_from_time('2024-02-03') AND id < sno_from_time('2024-02-05');

-- PARTITION BY HASH.
CREATE TABLE sno_hashed (id sno NOT NULL) PARTITION BY HASH (id);
CREATE TABLE sno_hashed_0 PARTITION OF sno_hashed FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE sno_hashed_1 PARTITION OF sno_hashed FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO sno_hashed SELECT id FROM sno_events WHERE n < 0;
SELECT tableoid::regclass AS partition, count(*) FROM sno_hashed GROUP BY 1 ORDER BY 1;
SELECT satisfies_hash_partition('sno_hashed'::regclass, 2, 0, 'brpk4q72xwf2m63l'::sno) AS in_0,
       satisfies_hash_partition('sno_hashed'::regclass, 2, 1, 'brpk4q72xwf2m63l'::sno) AS in_1;

-- COPY in binary format, both directions.
COPY (SELECT id, n FROM sno_events ORDER BY id) TO '/tmp/pg_flake_regress_sno.bin' (FORMAT binary);
CREATE TABLE sno_copy (id sno, n int);
COPY sno_copy FROM '/tmp/pg_flake_regress_sno.bin' (FORMAT binary);
SELECT count(*) AS copied, count(*) FILTER (WHERE c.id = e.id AND c.n = e.n) AS identical
FROM sno_copy c JOIN sno_events e USING (n);
SELECT sno_send('brpk4q72xwf2m63l');

-- Errors: malformed text (22P02), wrong binary length (22P03), fields (22003),
-- times outside 2010-01-01 .. 2079-09-07 (22008).
\set VERBOSITY default
SELECT ''::sno;
SELECT 'brpk4q72xwf2m63'::sno;
SELECT 'brpk4q72xwf2m63ll'::sno;
SELECT 'BRPK4Q72XWF2M63L'::sno;
SELECT 'brpk4q72xwf2m63y'::sno;
SELECT 'brpk4q72xwf2m61l'::sno;
SELECT 'brpk4q72xwf2m6é'::sno;
SELECT '\x00'::bytea::sno;
SELECT '\x4e6f2160a0ff9a0a103300'::bytea::sno;
SELECT sno_generate(256);
SELECT sno_generate(-1);
SELECT sno_from_parts('2024-01-01', 256, 0, 0);
SELECT sno_from_parts('2024-01-01', 0, 65536, 0);
SELECT sno_from_parts('2024-01-01', 0, 0, -1);
SELECT sno_from_time('2009-12-31 23:59:59.999999+00');
SELECT sno_from_time('2079-09-07 15:47:35.552+00');
SELECT sno_from_time('infinity');
SELECT sno_from_parts('1970-01-01', 0, 0, 0);
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT ''::sno$$),
    ($$SELECT 'brpk4q72xwf2m63'::sno$$),
    ($$SELECT 'brpk4q72xwf2m63ll'::sno$$),
    ($$SELECT 'BRPK4Q72XWF2M63L'::sno$$),
    ($$SELECT 'brpk4q72xwf2m63y'::sno$$),
    ($$SELECT 'brpk4q72xwf2m61l'::sno$$),
    ($$SELECT 'brpk4q72xwf2m6é'::sno$$),
    ($$SELECT '\x00'::bytea::sno$$),
    ($$SELECT '\x4e6f2160a0ff9a0a103300'::bytea::sno$$),
    ($$SELECT sno_generate(256)$$),
    ($$SELECT sno_generate(-1)$$),
    ($$SELECT sno_from_parts('2024-01-01', 256, 0, 0)$$),
    ($$SELECT sno_from_parts('2024-01-01', 0, 65536, 0)$$),
    ($$SELECT sno_from_parts('2024-01-01', 0, 0, -1)$$),
    ($$SELECT sno_from_time('2009-12-31 23:59:59.999999+00')$$),
    ($$SELECT sno_from_time('2079-09-07 15:47:35.552+00')$$),
    ($$SELECT sno_from_time('infinity')$$),
    ($$SELECT sno_from_parts('1970-01-01', 0, 0, 0)$$)
) AS errors(statement);
SELECT sno_from_time('2079-09-07 15:47:35.551999+00');

-- Settings: the node is superuser-only and range-checked.
SET pg_flake.sno_node = 256;
SET pg_flake.sno_node = 3;
SELECT sno_partition(sno_generate()) >> 8 AS node;
RESET pg_flake.sno_node;
CREATE ROLE sno_regress_user;
SET ROLE sno_regress_user;
SET pg_flake.sno_node = 4;
SELECT sno_meta(sno_generate(5));
RESET ROLE;
DROP ROLE sno_regress_user;
SET pg_flake.no_such_setting = 1;

DROP TABLE sno_events, sno_log, sno_monthly, sno_hashed, sno_copy;
