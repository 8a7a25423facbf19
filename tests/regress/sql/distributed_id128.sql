-- distributed_id128: functions on the built-in uuid, the generator and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- Decoding: 48 bits of milliseconds since 1700-01-01, version nibble 7, a
-- 75-bit random value R split around bit 63 (always 0).
SELECT distributed_id128_timestamp('094dc056-1a01-7001-0000-000000000000');
SELECT * FROM distributed_id128_parts('094dc056-1a01-7001-0000-000000000000');
SELECT * FROM distributed_id128_parts('00000000-0000-7fff-7fff-ffffffffffff');
SELECT (distributed_id128_parts('ee379893-4400-7000-0000-000000001234')).*;
-- Any uuid decodes (the version nibble and bit 63 are ignored).
SELECT (distributed_id128_parts('ffffffff-ffff-ffff-ffff-ffffffffffff')).*;

-- Construction: time rounds down to the millisecond; R is 0 .. 2^75 - 1.
SELECT distributed_id128_from_time('1700-01-01 00:00:00+00') AS epoch,
       distributed_id128_from_time('2020-01-01 00:00:00.000999+00') AS rounds_down,
       distributed_id128_from_time('10619-08-04 05:31:50.655999+00') AS last;
SELECT distributed_id128_from_parts('2024-02-29 12:00:00.001+00', 9223372036854775808) AS bit_63_moves_up,
       distributed_id128_from_parts('1700-01-01', 37778931862957161709567) AS largest_random,
       distributed_id128_from_parts('2020-01-01', 18889465931478580854784.000) AS integral_numeric;
SELECT distributed_id128_from_parts(p.time, p.random) = '08a65609-45e9-7233-2e9d-6869146a56e1' AS round_trip
FROM distributed_id128_parts('08a65609-45e9-7233-2e9d-6869146a56e1') p;

-- The 128-bit integer as numeric, both ways (the reference's DECIMAL(38,0)).
SELECT distributed_id128_to_numeric('092f2a00-ac00-7800-0000-000000000000') AS to_numeric,
       distributed_id128_to_numeric('ffffffff-ffff-ffff-ffff-ffffffffffff') AS largest,
       distributed_id128_from_numeric(16) AS from_numeric,
       distributed_id128_from_numeric(340282366920938463463374607431768211455) AS from_largest;

-- uuid order is the numeric order of the 128-bit value.
SELECT bool_and((a < b) = (distributed_id128_to_numeric(a) < distributed_id128_to_numeric(b))) AS order_agrees
FROM (SELECT gen_random_uuid() AS a, gen_random_uuid() AS b FROM generate_series(1, 1000)) s;

-- Generation: the current millisecond (no lag), version 7, bit 63 zero,
-- strictly increasing within a backend.
SELECT abs(extract(epoch FROM distributed_id128_timestamp(distributed_id128_generate()) - clock_timestamp())) < 0.5
       AS current_millisecond;
SELECT count(DISTINCT id) AS distinct_ids,
       bool_and(substr(id::text, 15, 1) = '7') AS version_7,
       bool_and(substr(id::text, 20, 1) < '8') AS bit_63_zero
FROM (SELECT distributed_id128_generate() AS id FROM generate_series(1, 10000)) s;
SELECT bool_and(a < b) AS strictly_increasing
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, distributed_id128_generate() AS id FROM generate_series(1, 10000) n) s) t
WHERE b IS NOT NULL;

-- A uuid primary key with a generated default; time ranges are index range scans.
CREATE TABLE distributed_id128_docs (
    id uuid PRIMARY KEY DEFAULT distributed_id128_generate(),
    created timestamptz GENERATED ALWAYS AS (distributed_id128_timestamp(id)) STORED,
    n int
);
INSERT INTO distributed_id128_docs (n) SELECT g FROM generate_series(1, 500) g;
INSERT INTO distributed_id128_docs (id, n)
SELECT distributed_id128_from_parts(timestamptz '2024-01-01' + g * interval '1 day', g), -g
FROM generate_series(0, 365) g;
ANALYZE distributed_id128_docs;
SELECT count(*), count(DISTINCT id), bool_and(created = distributed_id128_timestamp(id)) AS generated_ok
FROM distributed_id128_docs;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM distributed_id128_docs
WHERE id >= distributed_id128_from_time('2024-03-01') AND id < distributed_id128_from_time('2024-04-01');
SELECT count(*) AS march FROM distributed_id128_docs
WHERE id >= distributed_id128_from_time('2024-03-01') AND id < distributed_id128_from_time('2024-04-01');
RESET enable_bitmapscan;
RESET enable_seqscan;
DROP TABLE distributed_id128_docs;

-- Errors: random or numeric out of range (22003), times outside
-- 1700-01-01 .. 10619-08-04 (22008).
SELECT distributed_id128_from_parts('2024-01-01', -1);
SELECT distributed_id128_from_parts('2024-01-01', 37778931862957161709568);
SELECT distributed_id128_from_parts('2024-01-01', 0.5);
SELECT distributed_id128_from_parts('2024-01-01', 'NaN');
SELECT distributed_id128_from_numeric(-1);
SELECT distributed_id128_from_numeric(340282366920938463463374607431768211456);
SELECT distributed_id128_from_numeric(1.5);
SELECT distributed_id128_from_numeric('Infinity');
SELECT distributed_id128_from_time('1699-12-31 23:59:59.999999+00');
SELECT distributed_id128_from_time('10619-08-04 05:31:50.656+00');
SELECT distributed_id128_from_time('-infinity');
SELECT distributed_id128_from_parts('1699-12-31 23:59:59.999999+00', 0);
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT distributed_id128_from_parts('2024-01-01', -1)$$),
    ($$SELECT distributed_id128_from_parts('2024-01-01', 37778931862957161709568)$$),
    ($$SELECT distributed_id128_from_parts('2024-01-01', 0.5)$$),
    ($$SELECT distributed_id128_from_parts('2024-01-01', 'NaN')$$),
    ($$SELECT distributed_id128_from_numeric(-1)$$),
    ($$SELECT distributed_id128_from_numeric(340282366920938463463374607431768211456)$$),
    ($$SELECT distributed_id128_from_numeric(1.5)$$),
    ($$SELECT distributed_id128_from_numeric('Infinity')$$),
    ($$SELECT distributed_id128_from_time('1699-12-31 23:59:59.999999+00')$$),
    ($$SELECT distributed_id128_from_time('10619-08-04 05:31:50.656+00')$$),
    ($$SELECT distributed_id128_from_time('-infinity')$$),
    ($$SELECT distributed_id128_from_parts('1699-12-31 23:59:59.999999+00', 0)$$)
) AS errors(statement);
