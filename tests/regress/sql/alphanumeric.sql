-- alphanumeric: the base62 encoding of bigint, uuid and distributed_id, and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;

-- bigint: exactly 11 characters of 0-9A-Za-z, zero-padded.
SELECT v, alphanumeric_encode(v) AS encoded, alphanumeric_decode_bigint(alphanumeric_encode(v)) = v AS round_trip
FROM (VALUES (0::bigint), (61), (62), (1234567890123456789), (9223372036854775807)) t(v);
-- uuid: 22 characters, two independent 11-character blocks.
SELECT u, alphanumeric_encode(u) AS encoded, alphanumeric_decode_uuid(alphanumeric_encode(u)) = u AS round_trip
FROM (VALUES ('00000000-0000-0000-0000-000000000001'::uuid),
             ('112210f4-7de9-8115-1122-10f47de98115'),
             ('00000000-0000-0000-ffff-ffffffffffff'),
             ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
             ('30322474-a954-ffa9-941c-6f038afe4ff1')) t(u);
-- distributed_id: 16 characters, 5 for id >> 64 and 11 for id mod 2^64.
SELECT d, alphanumeric_encode(d) AS encoded,
       alphanumeric_decode_distributed_id(alphanumeric_encode(d)) = d AS round_trip
FROM (VALUES ('0'::distributed_id), ('62'), ('447835050025542181830910637'),
             ('1088824355131185736905670087'), ('9999999999999999999999999999')) t(d);
-- Decoding is case-sensitive.
SELECT alphanumeric_decode_distributed_id('1DRBWFYI4A3PLLIX') AS upper,
       alphanumeric_decode_distributed_id('1drbWFYI4a3pLliX') AS mixed;
-- Text order (in the C collation) is value order.
SELECT count(*) = 0 AS text_order_matches FROM (
    SELECT row_number() OVER (ORDER BY u) AS by_value,
           row_number() OVER (ORDER BY alphanumeric_encode(u) COLLATE "C") AS by_text
    FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, 1000)) s) t
WHERE by_value <> by_text;
SELECT count(*) = 0 AS text_order_matches FROM (
    SELECT row_number() OVER (ORDER BY d) AS by_value,
           row_number() OVER (ORDER BY alphanumeric_encode(d) COLLATE "C") AS by_text
    FROM (SELECT distributed_id_generate() AS d FROM generate_series(1, 1000)) s) t
WHERE by_value <> by_text;
-- An untyped literal matches several overloads: give its type.
SELECT alphanumeric_encode('1');
SELECT alphanumeric_encode('1'::bigint) AS from_bigint, alphanumeric_encode(42) AS from_integer;

-- Errors: wrong length, characters outside the alphabet and blocks of 2^64
-- or more (22P02); negative or too large values (22003).
SELECT alphanumeric_encode(-1::bigint);
SELECT alphanumeric_decode_bigint('');
SELECT alphanumeric_decode_bigint('0000000000');
SELECT alphanumeric_decode_bigint('000000000000');
SELECT alphanumeric_decode_bigint('+12345678901');
SELECT alphanumeric_decode_bigint('1234567890_');
SELECT alphanumeric_decode_bigint('123456789é');
SELECT alphanumeric_decode_bigint('zzzzzzzzzzz');
SELECT alphanumeric_decode_bigint('LygHa16AHYG');
SELECT alphanumeric_decode_bigint('AzL8n0Y58m8');
SELECT alphanumeric_decode_bigint('LygHa16AHYF');
SELECT alphanumeric_decode_uuid('0000000000012345678,00');
SELECT alphanumeric_decode_uuid('+000000000001234567890');
SELECT alphanumeric_decode_uuid('00000000000LygHa16AHYG');
SELECT alphanumeric_decode_uuid('000000000000000000001');
SELECT alphanumeric_decode_distributed_id('1234567890123.00');
SELECT alphanumeric_decode_distributed_id('-1234567890123456');
SELECT alphanumeric_decode_distributed_id('00000LygHa16AHYG');
SELECT alphanumeric_decode_distributed_id('1drbWFYI4a3pLliŘ');
SELECT alphanumeric_decode_distributed_id('zzzzzzzzzzzzzzzz');
SELECT alphanumeric_decode_distributed_id('agbFu5KnEQGxp4QC');
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT alphanumeric_encode('1')$$),
    ($$SELECT alphanumeric_encode(-1::bigint)$$),
    ($$SELECT alphanumeric_decode_bigint('')$$),
    ($$SELECT alphanumeric_decode_bigint('0000000000')$$),
    ($$SELECT alphanumeric_decode_bigint('000000000000')$$),
    ($$SELECT alphanumeric_decode_bigint('+12345678901')$$),
    ($$SELECT alphanumeric_decode_bigint('1234567890_')$$),
    ($$SELECT alphanumeric_decode_bigint('123456789é')$$),
    ($$SELECT alphanumeric_decode_bigint('zzzzzzzzzzz')$$),
    ($$SELECT alphanumeric_decode_bigint('LygHa16AHYG')$$),
    ($$SELECT alphanumeric_decode_bigint('AzL8n0Y58m8')$$),
    ($$SELECT alphanumeric_decode_bigint('LygHa16AHYF')$$),
    ($$SELECT alphanumeric_decode_uuid('0000000000012345678,00')$$),
    ($$SELECT alphanumeric_decode_uuid('+000000000001234567890')$$),
    ($$SELECT alphanumeric_decode_uuid('00000000000LygHa16AHYG')$$),
    ($$SELECT alphanumeric_decode_uuid('000000000000000000001')$$),
    ($$SELECT alphanumeric_decode_distributed_id('1234567890123.00')$$),
    ($$SELECT alphanumeric_decode_distributed_id('-1234567890123456')$$),
    ($$SELECT alphanumeric_decode_distributed_id('00000LygHa16AHYG')$$),
    ($$SELECT alphanumeric_decode_distributed_id('1drbWFYI4a3pLliŘ')$$),
    ($$SELECT alphanumeric_decode_distributed_id('zzzzzzzzzzzzzzzz')$$),
    ($$SELECT alphanumeric_decode_distributed_id('agbFu5KnEQGxp4QC')$$)
) AS errors(statement);
