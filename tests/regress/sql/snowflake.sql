-- Snowflake (Discord flavour) on bigint: functions, settings and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SET timezone = 'UTC';

-- Discord's documented example.
SELECT * FROM snowflake_parts(175928847299117063);
SELECT snowflake_timestamp(175928847299117063),
       snowflake_from_parts('2016-04-30 11:18:25.796+00', 1, 0, 7) AS from_parts;
-- Construction from time rounds down to the millisecond; the epoch is 0.
SELECT snowflake_from_time('2016-04-30 11:18:25.796999+00') AS from_time,
       snowflake_from_time('2015-01-01 00:00:00+00') AS epoch;
SELECT (snowflake_parts(9223372036854775807)).*;
SELECT snowflake_from_parts(p.time, p.worker, p.process, p.sequence) = 1174109841522966527 AS round_trip
FROM snowflake_parts(1174109841522966527) p;

-- An explicit epoch (here midnight in UTC+1, as the reference's constants).
SELECT * FROM snowflake_parts(101980307980701696, 1735686000000);
SELECT snowflake_timestamp(101980307980701696, 1735686000000),
       snowflake_from_time('2025-10-09 08:53:20.125+00', 1735686000000) AS from_time,
       snowflake_from_parts('2025-10-09 08:53:20.125+00', 3, 5, 0, 1735686000000) AS from_parts;

-- Settings: the functions without an epoch argument read pg_flake.snowflake_epoch.
SHOW pg_flake.snowflake_epoch;
SHOW pg_flake.snowflake_worker;
SET pg_flake.snowflake_epoch = 1735686000000;
SELECT * FROM snowflake_parts(101980307980701696);
SELECT snowflake_timestamp(101980307980701696),
       snowflake_from_time('2025-10-09 08:53:20.125+00') AS from_time,
       snowflake_from_parts('2025-10-09 08:53:20.125+00', 3, 5, 0) AS from_parts;
SET pg_flake.snowflake_epoch = 0;
SELECT snowflake_timestamp(175928847299117063);
RESET pg_flake.snowflake_epoch;
-- The forms with every argument are IMMUTABLE, those reading a setting STABLE.
SELECT proname, pg_get_function_identity_arguments(oid) AS arguments, provolatile, proisstrict, proparallel
FROM pg_proc WHERE proname LIKE 'snowflake%' ORDER BY 1, 2;

-- Generation: worker from the setting, process from the backend's slot,
-- increasing per backend.
SELECT worker, process = (SELECT process FROM pg_flake_generator_state() WHERE format = 'snowflake') AS slot_process,
       abs(extract(epoch FROM time - now())) < 60 AS near_now
FROM snowflake_parts(snowflake_generate());
SET pg_flake.snowflake_worker = 17;
SELECT worker FROM snowflake_parts(snowflake_generate());
RESET pg_flake.snowflake_worker;
SELECT bool_and(a < b) AS increasing, count(*) AS pairs
FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
      FROM (SELECT n, snowflake_generate() AS id FROM generate_series(1, 20000) n) s) t
WHERE b IS NOT NULL;
SELECT format, mode = 'shared' AS mode_ok,
       process = slot % 32 AS process_is_slot, range_first = (slot / 32) * (range_last - range_first + 1) AS range_of_slot,
       issued >= 20000 AS issued
FROM pg_flake_generator_state() WHERE format = 'snowflake';

-- A table keyed by generated snowflakes, with an expression index on the
-- IMMUTABLE timestamp form.
CREATE TABLE snowflake_messages (id bigint PRIMARY KEY DEFAULT snowflake_generate(), body text);
INSERT INTO snowflake_messages (body) SELECT 'message ' || g FROM generate_series(1, 500) g;
INSERT INTO snowflake_messages (id, body)
SELECT snowflake_from_parts(timestamptz '2024-01-01' + g * interval '1 day', 0, 0, 0, 1420070400000), 'old ' || g
FROM generate_series(0, 365) g;
CREATE INDEX snowflake_messages_time ON snowflake_messages (snowflake_timestamp(id, 1420070400000));
ANALYZE snowflake_messages;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM snowflake_messages
WHERE id >= snowflake_from_time('2024-03-01') AND id < snowflake_from_time('2024-04-01');
SELECT count(*) AS march FROM snowflake_messages
WHERE id >= snowflake_from_time('2024-03-01') AND id < snowflake_from_time('2024-04-01');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM snowflake_messages
WHERE snowflake_timestamp(id, 1420070400000) >= '2024-03-01' AND snowflake_timestamp(id, 1420070400000) < '2024-04-01';
SELECT count(*) AS march FROM snowflake_messages
WHERE snowflake_timestamp(id, 1420070400000) >= '2024-03-01' AND snowflake_timestamp(id, 1420070400000) < '2024-04-01';
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE snowflake_messages;

-- Errors: a negative bigint (22003), times before the epoch or 2^41 ms after
-- it (22008), fields (22003), epochs outside 1970 .. 9999 (22023).
SELECT snowflake_timestamp(-1);
SELECT snowflake_parts(-1);
SELECT snowflake_from_time('2014-12-31 23:59:59.999+00');
SELECT snowflake_from_time('2084-09-06 15:47:35.552+00');
SELECT snowflake_from_time('infinity');
SELECT snowflake_from_parts('2024-01-01', 32, 0, 0);
SELECT snowflake_from_parts('2024-01-01', -1, 0, 0);
SELECT snowflake_from_parts('2024-01-01', 0, 32, 0);
SELECT snowflake_from_parts('2024-01-01', 0, 0, 4096);
SELECT snowflake_from_parts('2024-01-01', 0, 0, -1);
SELECT snowflake_from_parts('2014-12-31', 0, 0, 0);
SELECT snowflake_timestamp(0, -1);
SELECT snowflake_from_time('2024-01-01', 253402300800000);
SELECT snowflake_parts(0, -1420070400000);
SELECT snowflake_from_parts('2024-01-01', 0, 0, 0, -1);
SET pg_flake.snowflake_epoch = 'discord';
SET pg_flake.snowflake_epoch = '1.5';
SET pg_flake.snowflake_epoch = -1;
SET pg_flake.snowflake_epoch = 253402300800000;
SET pg_flake.snowflake_worker = 32;
SET pg_flake.snowflake_epoch = 253402300799999;
SELECT snowflake_generate();
RESET pg_flake.snowflake_epoch;
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT snowflake_timestamp(-1)$$),
    ($$SELECT snowflake_parts(-1)$$),
    ($$SELECT snowflake_from_time('2014-12-31 23:59:59.999+00')$$),
    ($$SELECT snowflake_from_time('2084-09-06 15:47:35.552+00')$$),
    ($$SELECT snowflake_from_time('infinity')$$),
    ($$SELECT snowflake_from_parts('2024-01-01', 32, 0, 0)$$),
    ($$SELECT snowflake_from_parts('2024-01-01', -1, 0, 0)$$),
    ($$SELECT snowflake_from_parts('2024-01-01', 0, 32, 0)$$),
    ($$SELECT snowflake_from_parts('2024-01-01', 0, 0, 4096)$$),
    ($$SELECT snowflake_from_parts('2024-01-01', 0, 0, -1)$$),
    ($$SELECT snowflake_from_parts('2014-12-31', 0, 0, 0)$$),
    ($$SELECT snowflake_timestamp(0, -1)$$),
    ($$SELECT snowflake_from_time('2024-01-01', 253402300800000)$$),
    ($$SELECT snowflake_parts(0, -1420070400000)$$),
    ($$SELECT snowflake_from_parts('2024-01-01', 0, 0, 0, -1)$$),
    ($$SET pg_flake.snowflake_epoch = 'discord'$$),
    ($$SET pg_flake.snowflake_epoch = '1.5'$$),
    ($$SET pg_flake.snowflake_epoch = -1$$),
    ($$SET pg_flake.snowflake_epoch = 253402300800000$$),
    ($$SET pg_flake.snowflake_worker = 32$$)
) AS errors(statement);
SET pg_flake.snowflake_epoch = 253402300799999;
SELECT pg_temp.sqlstate_of($$SELECT snowflake_generate()$$) AS generate_before_the_epoch;
RESET pg_flake.snowflake_epoch;
-- The last millisecond before 2^41 ms after the epoch is accepted.
SELECT snowflake_from_time('2084-09-06 15:47:35.551+00');

-- pg_flake.snowflake_worker and pg_flake.snowflake_epoch are superuser-only (IDs made
-- under two epochs can collide in one table); the decoders with an explicit epoch work.
CREATE ROLE snowflake_regress_user;
SET ROLE snowflake_regress_user;
SET pg_flake.snowflake_worker = 9;
SELECT pg_temp.sqlstate_of($$SET pg_flake.snowflake_worker = 9$$) AS snowflake_worker_as_user;
SET pg_flake.snowflake_epoch = 1735686000000;
SELECT pg_temp.sqlstate_of($$SET pg_flake.snowflake_epoch = 1735686000000$$) AS snowflake_epoch_as_user;
SELECT * FROM snowflake_parts(101980307980701696, 1735686000000);
SELECT worker FROM snowflake_parts(snowflake_generate());
RESET ROLE;
DROP ROLE snowflake_regress_user;
