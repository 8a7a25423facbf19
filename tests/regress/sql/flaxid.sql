-- flaxid: the type, its operators and index support, functions and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- Text I/O: the smallest, the largest and the reference README's example.
SELECT '----------------'::flaxid AS smallest, 'zzzzzzzzzzzzzzzz'::flaxid AS largest,
       '0RdKJcxqVBiAiQr0'::flaxid AS readme;
-- Casts to and from text (PostgreSQL's I/O conversion casts) and bytea.
SELECT '0RdKJcxqVBiAiQr0'::flaxid::text AS to_text, '0RdKJcxqVBiAiQr0'::text::flaxid AS from_text,
       '17cQYV3E6XowHpdd'::flaxid::bytea AS to_bytea,
       '\x088a1b8e010f1e2d3c4b5a69'::bytea::flaxid AS from_bytea;

-- Decoding.
SELECT flaxid_timestamp('17cQYV3E6XowHpdd');
SELECT * FROM flaxid_parts('17cQYV3E6XowHpdd');
SELECT (flaxid_parts('zzzzzzzzzzzzzzzz')).*;

-- Construction: time rounds down to the millisecond; from_parts round-trips.
SELECT flaxid_from_time('2015-01-01 00:00:00+00') AS epoch,
       flaxid_from_time('2016-02-29 12:00:00.001999+00') AS rounds_down;
SELECT flaxid_from_parts('2016-02-29 12:00:00.001+00', 4255304284592745) = '17cQYV3E6XowHpdd' AS from_parts,
       flaxid_from_parts('2049-11-03 19:53:47.775+00', 72057594037927935) = 'zzzzzzzzzzzzzzzz' AS largest;
SELECT flaxid_from_parts(p.time, p.random) = 'LYjgKG_MgtuxdGDx' AS round_trip
FROM flaxid_parts('LYjgKG_MgtuxdGDx') p;

-- Operators, hashing and aggregates.
SELECT a, b, a = b AS eq, a <> b AS ne, a < b AS lt, a <= b AS le, a > b AS gt, a >= b AS ge,
       flaxid_cmp(a, b) AS cmp
FROM (VALUES ('----------------'::flaxid, '---------------0'::flaxid),
             ('17cQYV3E6XowHpdd', '17cQYV3E6XowHpdd'),
             ('zzzzzzzzzzzzzzzz', '0RdKJcxqVBiAiQr0')) v(a, b);
SELECT min(v), max(v), count(*)
FROM (VALUES ('17cQYV3E6XowHpdd'::flaxid), ('LYjgKG_MgtuxdGDx'), (NULL), ('0RdKJcxqVBiAiQr0')) t(v);
SELECT flaxid_hash('17cQYV3E6XowHpdd') AS hash, flaxid_hash_extended('17cQYV3E6XowHpdd', 42) AS hash42;

-- Generation: current millisecond, 56 random bits; ordered by millisecond only.
SELECT abs(extract(epoch FROM flaxid_timestamp(flaxid_generate()) - now())) < 60 AS near_now;
SELECT count(DISTINCT id) AS distinct_ids, count(DISTINCT (flaxid_parts(id)).random) AS distinct_random,
       max((flaxid_parts(id)).random) > 72057594037927935 / 2 AS high_bits_used
FROM (SELECT flaxid_generate() AS id FROM generate_series(1, 10000)) s;
SELECT bool_and(flaxid_timestamp(a) <= flaxid_timestamp(b)) AS millisecond_order
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, flaxid_generate() AS id FROM generate_series(1, 10000) n) s) t
WHERE b IS NOT NULL;
-- A random format keeps no generator state.
SELECT count(*) AS flaxid_state_rows FROM pg_flake_generator_state() WHERE format = 'flaxid';

-- A table with a generated default, a primary key and a hash index.
CREATE TABLE flaxid_docs (
    id flaxid PRIMARY KEY DEFAULT flaxid_generate(),
    created timestamptz GENERATED ALWAYS AS (flaxid_timestamp(id)) STORED,
    n int
);
INSERT INTO flaxid_docs (n) SELECT g FROM generate_series(1, 500) g;
INSERT INTO flaxid_docs (id, n)
SELECT flaxid_from_parts(timestamptz '2024-01-01' + g * interval '1 day', g), -g
FROM generate_series(0, 365) g;
CREATE INDEX flaxid_docs_hash ON flaxid_docs USING hash (id);
ANALYZE flaxid_docs;
SELECT count(*), count(DISTINCT id), bool_and(created = flaxid_timestamp(id)) AS generated_ok
FROM flaxid_docs;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM flaxid_docs WHERE id >= flaxid_from_time('2024-03-01') AND id < flaxid_from_time('2024-04-01');
SELECT count(*) AS march FROM flaxid_docs
WHERE id >= flaxid_from_time('2024-03-01') AND id < flaxid_from_time('2024-04-01');
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT * FROM flaxid_docs WHERE id = '17cQYV3E6XowHpdd';
RESET enable_indexscan;
-- A BRIN index alone serves a time-range query.
CREATE TABLE flaxid_log AS SELECT id FROM flaxid_docs ORDER BY id;
CREATE INDEX flaxid_log_brin ON flaxid_log USING brin (id);
ANALYZE flaxid_log;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM flaxid_log WHERE id >= flaxid_from_time('2024-03-01') AND id < flaxid_from_time('2024-04-01');
SELECT count(*) FROM flaxid_log WHERE id >= flaxid_from_time('2024-03-01') AND id < flaxid_from_time('2024-04-01');
RESET enable_bitmapscan;
RESET enable_seqscan;
-- Sorting agrees with the text order; hash aggregation.
SELECT count(*) = 0 AS text_order_matches FROM (
    SELECT row_number() OVER (ORDER BY id) AS by_value,
           row_number() OVER (ORDER BY id::text COLLATE "C") AS by_text
    FROM flaxid_docs) s
WHERE by_value <> by_text;
SET enable_sort = off;
SELECT count(*) FROM (SELECT id FROM flaxid_docs GROUP BY id) g;
RESET enable_sort;
DROP TABLE flaxid_docs, flaxid_log;

-- Errors: malformed text (22P02), wrong binary length (22P03), random out of
-- range (22003), times outside 2015-01-01 .. 2049-11-03 19:53:47.775 (22008).
SELECT ''::flaxid;
SELECT '0RdKJcxqVBiAiQr'::flaxid;
SELECT '0RdKJcxqVBiAiQr00'::flaxid;
SELECT '0RdKJcxqVBiAiQr+'::flaxid;
SELECT '0RdKJcxqVBiAiQré'::flaxid;
SELECT '\x00'::bytea::flaxid;
SELECT '\x088a1b8e010f1e2d3c4b5a6900'::bytea::flaxid;
SELECT flaxid_from_parts('2024-01-01', -1);
SELECT flaxid_from_parts('2024-01-01', 72057594037927936);
SELECT flaxid_from_time('2014-12-31 23:59:59.999999+00');
SELECT flaxid_from_time('2049-11-03 19:53:47.776+00');
SELECT flaxid_from_time('infinity');
SELECT flaxid_from_parts('2049-11-03 19:53:47.776+00', 0);
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT ''::flaxid$$),
    ($$SELECT '0RdKJcxqVBiAiQr'::flaxid$$),
    ($$SELECT '0RdKJcxqVBiAiQr00'::flaxid$$),
    ($$SELECT '0RdKJcxqVBiAiQr+'::flaxid$$),
    ($$SELECT '0RdKJcxqVBiAiQré'::flaxid$$),
    ($$SELECT '\x00'::bytea::flaxid$$),
    ($$SELECT '\x088a1b8e010f1e2d3c4b5a6900'::bytea::flaxid$$),
    ($$SELECT flaxid_from_parts('2024-01-01', -1)$$),
    ($$SELECT flaxid_from_parts('2024-01-01', 72057594037927936)$$),
    ($$SELECT flaxid_from_time('2014-12-31 23:59:59.999999+00')$$),
    ($$SELECT flaxid_from_time('2049-11-03 19:53:47.776+00')$$),
    ($$SELECT flaxid_from_time('infinity')$$),
    ($$SELECT flaxid_from_parts('2049-11-03 19:53:47.776+00', 0)$$)
) AS errors(statement);
-- The edges of the range are accepted.
SELECT flaxid_from_time('2015-01-01 00:00:00+00') AS first, flaxid_from_time('2049-11-03 19:53:47.775999+00') AS last;
