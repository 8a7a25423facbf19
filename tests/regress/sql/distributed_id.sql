-- distributed_id: the type, numeric casts, functions, the generator and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- Text I/O: plain decimal; input allows leading zeros and surrounding white space.
SELECT '0'::distributed_id AS smallest, '9999999999999999999999999999'::distributed_id AS largest,
       '1088824355131185736905670087'::distributed_id AS readme,
       '  00042 '::distributed_id AS padded;
-- Casts to and from text and bytea.
SELECT '1088824355131185736905670087'::distributed_id::text AS to_text,
       '1088824355131185736905670087'::text::distributed_id AS from_text,
       '1088824355131185736905670087'::distributed_id::bytea AS to_bytea,
       '\x0384a786907db2ad82883dc7'::bytea::distributed_id AS from_bytea;
-- Casts to and from numeric, explicit and in assignments.
SELECT '1088824355131185736905670087'::distributed_id::numeric AS to_numeric,
       pg_typeof('1'::distributed_id::numeric) AS numeric_type,
       1088824355131185736905670087::distributed_id AS from_numeric,
       9999999999999999999999999999::numeric::distributed_id AS largest,
       0.000::distributed_id AS zero_with_scale, 42.0::distributed_id AS integral;
CREATE TABLE distributed_id_assign (id distributed_id, n numeric);
INSERT INTO distributed_id_assign (id) VALUES (1088824355131185736905670087), (0.0);
UPDATE distributed_id_assign SET n = id;
SELECT id, n, pg_typeof(n) FROM distributed_id_assign ORDER BY id;
DROP TABLE distributed_id_assign;

-- Decoding: time is 1900-01-01 + (id >> 48) ms, random is id mod 2^48.
SELECT distributed_id_timestamp('1088824355131185736905670087');
SELECT * FROM distributed_id_parts('1088824355131185736905670087');
SELECT (distributed_id_parts('0')).*, (distributed_id_parts('281474976710655')).random AS max_random;
-- Every valid value has a time, even past the 45-bit field (3014-12-13).
SELECT distributed_id_timestamp('9999999999999999999999999999') AS largest_time;

-- Construction: time rounds down to the millisecond; random 0 .. 2^48 - 1.
SELECT distributed_id_from_time('1900-01-01 00:00:00+00') AS epoch,
       distributed_id_from_time('2022-07-31 18:33:00.285999+00') AS rounds_down,
       distributed_id_from_time('3000-01-01') AS year_3000;
SELECT distributed_id_from_parts('2022-07-31 18:33:00.285+00', 196458289053127) AS readme,
       distributed_id_from_parts('3014-12-13 12:41:28.831+00', 281474976710655) AS last_time;
SELECT distributed_id_from_parts(p.time, p.random) = '447835050025542181830910637' AS round_trip
FROM distributed_id_parts('447835050025542181830910637') p;

-- Hex: a 00 byte then the 12 bytes, upper case; input any case.
SELECT distributed_id_to_hex('1088824355131185736905670087') AS to_hex,
       distributed_id_from_hex('00017270c2b5280ce29739e2ad') AS from_lower_hex,
       distributed_id_from_hex('00204FCE5E3E2502610FFFFFFF') AS largest;

-- Operators, hashing and aggregates: order is numeric order.
SELECT a, b, a = b AS eq, a <> b AS ne, a < b AS lt, a <= b AS le, a > b AS gt, a >= b AS ge,
       distributed_id_cmp(a, b) AS cmp
FROM (VALUES ('9'::distributed_id, '10'::distributed_id),
             ('1088824355131185736905670087', '1088824355131185736905670087'),
             ('9999999999999999999999999999', '281474976710656')) v(a, b);
SELECT min(v), max(v), count(*)
FROM (VALUES ('62'::distributed_id), ('9999999999999999999999999999'), (NULL), ('1')) t(v);
SELECT distributed_id_hash('1088824355131185736905670087') AS hash,
       distributed_id_hash_extended('1088824355131185736905670087', 42) AS hash42;

-- Generation: the stored time is the clock minus one second (reference behaviour).
SELECT clock_timestamp() - distributed_id_timestamp(distributed_id_generate())
       BETWEEN interval '0.5 s' AND interval '1.5 s' AS about_one_second_early;
SELECT count(DISTINCT id) AS distinct_ids, bool_and(id::numeric < 2::numeric ^ 93) AS below_2_93,
       bool_and(length(id::text) = 28) AS digits_28
FROM (SELECT distributed_id_generate() AS id FROM generate_series(1, 10000)) s;
SELECT bool_and(a < b) AS strictly_increasing
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, distributed_id_generate() AS id FROM generate_series(1, 10000) n) s) t
WHERE b IS NOT NULL;
-- A random format keeps no slot: no row in the generator state.
SELECT count(*) AS distributed_id_state_rows FROM pg_flake_generator_state()
WHERE format LIKE 'distributed_id%';

-- A table with a generated default, a primary key, a hash and a BRIN index.
CREATE TABLE distributed_id_docs (
    id distributed_id PRIMARY KEY DEFAULT distributed_id_generate(),
    created timestamptz GENERATED ALWAYS AS (distributed_id_timestamp(id)) STORED,
    n int
);
INSERT INTO distributed_id_docs (n) SELECT g FROM generate_series(1, 500) g;
INSERT INTO distributed_id_docs (id, n)
SELECT distributed_id_from_parts(timestamptz '2024-01-01' + g * interval '1 day', g), -g
FROM generate_series(0, 365) g;
CREATE INDEX distributed_id_docs_hash ON distributed_id_docs USING hash (id);
ANALYZE distributed_id_docs;
SELECT count(*), count(DISTINCT id), bool_and(created = distributed_id_timestamp(id)) AS generated_ok
FROM distributed_id_docs;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM distributed_id_docs
WHERE id >= distributed_id_from_time('2024-03-01') AND id < distributed_id_from_time('2024-04-01');
SELECT count(*) AS march FROM distributed_id_docs
WHERE id >= distributed_id_from_time('2024-03-01') AND id < distributed_id_from_time('2024-04-01');
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT * FROM distributed_id_docs WHERE id = '1088824355131185736905670087';
RESET enable_indexscan;
CREATE TABLE distributed_id_log AS SELECT id FROM distributed_id_docs ORDER BY id;
CREATE INDEX distributed_id_log_brin ON distributed_id_log USING brin (id);
ANALYZE distributed_id_log;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM distributed_id_log
WHERE id >= distributed_id_from_time('2024-03-01') AND id < distributed_id_from_time('2024-04-01');
SELECT count(*) FROM distributed_id_log
WHERE id >= distributed_id_from_time('2024-03-01') AND id < distributed_id_from_time('2024-04-01');
RESET enable_bitmapscan;
RESET enable_seqscan;
-- Sorting agrees with numeric order; hash aggregation.
SELECT count(*) = 0 AS numeric_order_matches FROM (
    SELECT row_number() OVER (ORDER BY id) AS by_value,
           row_number() OVER (ORDER BY id::numeric) AS by_numeric
    FROM distributed_id_docs) s
WHERE by_value <> by_numeric;
SET enable_sort = off;
SELECT count(*) FROM (SELECT id FROM distributed_id_docs GROUP BY id) g;
RESET enable_sort;

-- COPY in binary format: both directions, and binary input is range-checked
-- (12 bytes hold up to 2^96 - 1, the type only up to 10^28 - 1).
COPY (SELECT id, n FROM distributed_id_docs ORDER BY id)
    TO '/tmp/pg_flake_regress_distributed_id.bin' (FORMAT binary);
CREATE TABLE distributed_id_copy (id distributed_id, n int);
COPY distributed_id_copy FROM '/tmp/pg_flake_regress_distributed_id.bin' (FORMAT binary);
SELECT count(*) AS copied, count(*) FILTER (WHERE c.id = d.id) AS identical
FROM distributed_id_copy c JOIN distributed_id_docs d USING (n);
SELECT distributed_id_send('1088824355131185736905670087');
-- A bytea field has the same binary layout: 12 bytes that are too large, then 11 bytes.
COPY (SELECT '\x204fce5e3e25026110000000'::bytea, 0)
    TO '/tmp/pg_flake_regress_distributed_id_big.bin' (FORMAT binary);
COPY distributed_id_copy FROM '/tmp/pg_flake_regress_distributed_id_big.bin' (FORMAT binary);
COPY (SELECT '\x0384a786907db2ad82883d'::bytea, 0)
    TO '/tmp/pg_flake_regress_distributed_id_short.bin' (FORMAT binary);
COPY distributed_id_copy FROM '/tmp/pg_flake_regress_distributed_id_short.bin' (FORMAT binary);
COPY (SELECT '\x204fce5e3e2502610fffffff'::bytea, 0)
    TO '/tmp/pg_flake_regress_distributed_id_max.bin' (FORMAT binary);
COPY distributed_id_copy FROM '/tmp/pg_flake_regress_distributed_id_max.bin' (FORMAT binary);
SELECT max(id) AS largest_copied FROM distributed_id_copy;
DROP TABLE distributed_id_docs, distributed_id_log;

-- Errors: malformed text (22P02), wrong binary length (22P03), values and
-- fields out of range (22003), times outside 1900-01-01 .. 3014-12-13 (22008).
SELECT ''::distributed_id;
SELECT '-1'::distributed_id;
SELECT '+1'::distributed_id;
SELECT '1e3'::distributed_id;
SELECT '12 34'::distributed_id;
SELECT '١٢'::distributed_id;
SELECT '10000000000000000000000000000'::distributed_id;
SELECT '\x00'::bytea::distributed_id;
SELECT '\x0384a786907db2ad82883dc700'::bytea::distributed_id;
SELECT '\x204fce5e3e25026110000000'::bytea::distributed_id;
SELECT '\xffffffffffffffffffffffff'::bytea::distributed_id;
SELECT (-1)::numeric::distributed_id;
SELECT 1.5::numeric::distributed_id;
SELECT 10000000000000000000000000000::numeric::distributed_id;
SELECT 'NaN'::numeric::distributed_id;
SELECT distributed_id_from_hex('');
SELECT distributed_id_from_hex('0x000000000000000000000001');
SELECT distributed_id_from_hex('0000000000FFFFFFFFFFFFFFFG');
SELECT distributed_id_from_hex('01000000000000000000000000');
SELECT distributed_id_from_hex('00204FCE5E3E25026110000000');
SELECT distributed_id_from_parts('2024-01-01', -1);
SELECT distributed_id_from_parts('2024-01-01', 281474976710656);
SELECT distributed_id_from_time('1899-12-31 23:59:59.999999+00');
SELECT distributed_id_from_time('3014-12-13 12:41:28.832+00');
SELECT distributed_id_from_time('infinity');
SELECT distributed_id_from_parts('3014-12-13 12:41:28.832+00', 0);
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT ''::distributed_id$$),
    ($$SELECT '-1'::distributed_id$$),
    ($$SELECT '+1'::distributed_id$$),
    ($$SELECT '1e3'::distributed_id$$),
    ($$SELECT '12 34'::distributed_id$$),
    ($$SELECT '١٢'::distributed_id$$),
    ($$SELECT '10000000000000000000000000000'::distributed_id$$),
    ($$SELECT '\x00'::bytea::distributed_id$$),
    ($$SELECT '\x0384a786907db2ad82883dc700'::bytea::distributed_id$$),
    ($$SELECT '\x204fce5e3e25026110000000'::bytea::distributed_id$$),
    ($$SELECT '\xffffffffffffffffffffffff'::bytea::distributed_id$$),
    ($$SELECT (-1)::numeric::distributed_id$$),
    ($$SELECT 1.5::numeric::distributed_id$$),
    ($$SELECT 10000000000000000000000000000::numeric::distributed_id$$),
    ($$SELECT 'NaN'::numeric::distributed_id$$),
    ($$SELECT distributed_id_from_hex('')$$),
    ($$SELECT distributed_id_from_hex('0x000000000000000000000001')$$),
    ($$SELECT distributed_id_from_hex('0000000000FFFFFFFFFFFFFFFG')$$),
    ($$SELECT distributed_id_from_hex('01000000000000000000000000')$$),
    ($$SELECT distributed_id_from_hex('00204FCE5E3E25026110000000')$$),
    ($$SELECT distributed_id_from_parts('2024-01-01', -1)$$),
    ($$SELECT distributed_id_from_parts('2024-01-01', 281474976710656)$$),
    ($$SELECT distributed_id_from_time('1899-12-31 23:59:59.999999+00')$$),
    ($$SELECT distributed_id_from_time('3014-12-13 12:41:28.832+00')$$),
    ($$SELECT distributed_id_from_time('infinity')$$),
    ($$SELECT distributed_id_from_parts('3014-12-13 12:41:28.832+00', 0)$$),
    ($$COPY distributed_id_copy FROM '/tmp/pg_flake_regress_distributed_id_big.bin' (FORMAT binary)$$)
) AS errors(statement);
-- The edges of the time range are accepted.
SELECT distributed_id_from_time('1900-01-01 00:00:00+00') AS first,
       distributed_id_from_time('3014-12-13 12:41:28.831999+00') AS last;
DROP TABLE distributed_id_copy;
