-- public_id: AES-encrypted public identifiers, the key setting and errors.
-- The test server has pg_flake in shared_preload_libraries (the key setting
-- is hidden from other roles only then).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;

-- The README example: a distributed_id under an AES-256 key.
SELECT public_id_encrypt('1088824355131185736905670087'::distributed_id,
                         decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64')) AS public_id;
SELECT alphanumeric_encode('30322474-a954-ffa9-941c-6f038afe4ff1'::uuid) AS public_alphanumeric;
SELECT public_id_decrypt_distributed_id(p, k) AS as_distributed_id, public_id_decrypt_bigint(p, k) AS as_bigint,
       public_id_decrypt_uuid(p, k) AS as_uuid
FROM (SELECT '30322474-a954-ffa9-941c-6f038afe4ff1'::uuid AS p,
             decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64') AS k) s;

-- bigint and uuid inputs (reference vectors, AES-256 with a zero key).
SELECT public_id_encrypt(1::bigint, k) AS bigint_1, public_id_encrypt(0::bigint, '\x01'::bytea || substr(k, 2)) AS bigint_0,
       public_id_encrypt('00000000-0000-0000-0000-000000000000'::uuid, k) AS uuid_0
FROM (SELECT decode('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'base64') AS k) s;
-- A distributed_id below 2^64 has the public ID of the bigint of that value.
SELECT public_id_encrypt(9223372036854775807::bigint, k) = public_id_encrypt('9223372036854775807'::distributed_id, k)
       AS same_as_bigint,
       public_id_decrypt_bigint(public_id_encrypt('9545989187036454889'::distributed_id, k), k) AS above_bigint
FROM (SELECT decode('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'base64') AS k) s;

-- FIPS-197 known answers for each key size, through the uuid form (the
-- public uuid's bytes are C[3] C[2] C[1] C[0] C[5] C[4] C[7] C[6] C[8..15]).
SELECT bits, public_id_encrypt('00112233-4455-6677-8899-aabbccddeeff'::uuid, k) AS public_id,
       public_id_decrypt_uuid(public_id_encrypt('00112233-4455-6677-8899-aabbccddeeff'::uuid, k), k) AS decrypted
FROM (VALUES (128, '\x000102030405060708090a0b0c0d0e0f'::bytea),
             (192, '\x000102030405060708090a0b0c0d0e0f1011121314151617'),
             (256, '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')) v(bits, k);

-- Round trips of random values under random keys of each size.
SELECT bits,
       count(*) FILTER (WHERE public_id_decrypt_bigint(public_id_encrypt(b, k), k) = b) AS bigint_ok,
       count(*) FILTER (WHERE public_id_decrypt_distributed_id(public_id_encrypt(d, k), k) = d) AS distributed_id_ok,
       count(*) FILTER (WHERE public_id_decrypt_uuid(public_id_encrypt(u, k), k) = u) AS uuid_ok,
       count(DISTINCT public_id_encrypt(u, k)) AS distinct_public_ids
FROM (SELECT bits, substr(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 1, bits / 8) AS k,
             (random() * 9.2e18)::bigint AS b,
             (floor(random() * 1e14)::numeric * 1e14 + floor(random() * 1e14)::numeric)::distributed_id AS d,
             gen_random_uuid() AS u
      FROM unnest(ARRAY[128, 192, 256]) bits, generate_series(1, 1000)) s
GROUP BY bits ORDER BY bits;
-- Decrypting a public ID that was not made from a bigint (or distributed_id)
-- gives NULL: the structure check fails with probability 1 - 2^-64 (2^-32).
SELECT count(public_id_decrypt_bigint(u, k)) AS bigint_hits,
       count(public_id_decrypt_distributed_id(u, k)) AS distributed_id_hits,
       count(public_id_decrypt_uuid(u, k)) AS uuid_always
FROM (SELECT gen_random_uuid() AS u, decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64') AS k
      FROM generate_series(1, 10000)) s;
SELECT public_id_decrypt_bigint(p, k) AS as_bigint, public_id_decrypt_distributed_id(p, k) AS as_distributed_id,
       public_id_decrypt_uuid(p, k) AS as_uuid
FROM (SELECT 'b2382298-56e4-a3ed-502b-b6b88db034bb'::uuid AS p,
             decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64') AS k) s;

-- The key setting: base64, superuser-only. The one-argument forms use it.
SET pg_flake.public_id_key = 'k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=';
SELECT public_id_encrypt('1088824355131185736905670087'::distributed_id) AS public_id,
       public_id_decrypt_distributed_id('30322474-a954-ffa9-941c-6f038afe4ff1') AS internal_id;
SELECT public_id_encrypt(42::bigint) = public_id_encrypt(42::bigint, k) AS bigint_same,
       public_id_encrypt(u) = public_id_encrypt(u, k) AS uuid_same,
       public_id_decrypt_bigint(public_id_encrypt(42::bigint)) AS bigint_back,
       public_id_decrypt_uuid(public_id_encrypt(u)) = u AS uuid_back
FROM (SELECT gen_random_uuid() AS u, decode('k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=', 'base64') AS k) s;
-- A superuser can read it with SHOW; pg_settings lists it for nobody.
SHOW pg_flake.public_id_key;
SELECT count(*) AS listed FROM pg_settings WHERE name = 'pg_flake.public_id_key';
-- Exposing a public ID in a view.
CREATE TABLE public_id_orders (id distributed_id PRIMARY KEY DEFAULT distributed_id_generate(), item text);
INSERT INTO public_id_orders (id, item) VALUES (1088824355131185736905670087, 'book');
CREATE VIEW public_id_orders_public AS
    SELECT public_id_encrypt(id) AS public_id, alphanumeric_encode(public_id_encrypt(id)) AS public_code, item
    FROM public_id_orders;
SELECT * FROM public_id_orders_public;
-- An ordinary role uses the configured key but can neither read nor change it.
-- (public_id_1.out: PostgreSQL 16 and later word the refusal to read it
-- differently.)
CREATE ROLE public_id_regress_user;
GRANT SELECT ON public_id_orders_public TO public_id_regress_user;
SET ROLE public_id_regress_user;
SELECT * FROM public_id_orders_public;
SELECT public_id_decrypt_distributed_id('30322474-a954-ffa9-941c-6f038afe4ff1') AS internal_id;
SHOW pg_flake.public_id_key;
SELECT current_setting('pg_flake.public_id_key');
SELECT current_setting('pg_flake.public_id_key', true);
SELECT count(*) AS listed FROM pg_settings WHERE name LIKE 'pg_flake.public%';
SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAAAA==';
SELECT set_config('pg_flake.public_id_key', 'AAAAAAAAAAAAAAAAAAAAAA==', false);
RESET pg_flake.public_id_key;
SELECT public_id_encrypt('1088824355131185736905670087'::distributed_id) AS still_the_same_key;
RESET ROLE;
DROP VIEW public_id_orders_public;
DROP TABLE public_id_orders;
DROP ROLE public_id_regress_user;

-- A bad setting is rejected without showing the value, and the key stays.
SET pg_flake.public_id_key = 'not base64!';
SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAA';
SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAAAAAA';
SELECT public_id_encrypt('1088824355131185736905670087'::distributed_id) AS unchanged;
-- Keys of 16, 24 and 32 bytes are accepted.
SET pg_flake.public_id_key = 'AAECAwQFBgcICQoLDA0ODw==';
SELECT public_id_encrypt('00112233-4455-6677-8899-aabbccddeeff'::uuid) AS aes_128;
SET pg_flake.public_id_key = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX';
SELECT public_id_encrypt('00112233-4455-6677-8899-aabbccddeeff'::uuid) AS aes_192;
-- Unset (the default, or ''): the one-argument forms say how to set it.
SET pg_flake.public_id_key = '';
SELECT public_id_encrypt(1::bigint);

-- Errors: bad key length (22023), negative or invalid input (22003), unset key (22023).
SELECT public_id_encrypt(1::bigint, '\x000000000000000000000000000000');
SELECT public_id_encrypt('1'::distributed_id, '');
SELECT public_id_encrypt(gen_random_uuid(), decode(repeat('00', 33), 'hex'));
SELECT public_id_decrypt_bigint(gen_random_uuid(), '\x000000000000000000000000000000');
SELECT public_id_decrypt_distributed_id(gen_random_uuid(), '\x00');
SELECT public_id_decrypt_uuid(gen_random_uuid(), decode(repeat('00', 31), 'hex'));
SELECT public_id_encrypt(-1::bigint, decode(repeat('00', 32), 'hex'));
SELECT public_id_encrypt((-1)::numeric::distributed_id, decode(repeat('00', 32), 'hex'));
SELECT public_id_decrypt_bigint(gen_random_uuid());
-- The SQLSTATE of every error above, one line each.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
SELECT statement, pg_temp.sqlstate_of(statement) FROM (VALUES
    ($$SELECT public_id_encrypt(1::bigint, '\x000000000000000000000000000000')$$),
    ($$SELECT public_id_encrypt('1'::distributed_id, '')$$),
    ($$SELECT public_id_encrypt(gen_random_uuid(), decode(repeat('00', 33), 'hex'))$$),
    ($$SELECT public_id_decrypt_bigint(gen_random_uuid(), '\x000000000000000000000000000000')$$),
    ($$SELECT public_id_decrypt_distributed_id(gen_random_uuid(), '\x00')$$),
    ($$SELECT public_id_decrypt_uuid(gen_random_uuid(), decode(repeat('00', 31), 'hex'))$$),
    ($$SELECT public_id_encrypt(-1::bigint, decode(repeat('00', 32), 'hex'))$$),
    ($$SELECT public_id_encrypt((-1)::numeric::distributed_id, decode(repeat('00', 32), 'hex'))$$),
    ($$SELECT public_id_decrypt_bigint(gen_random_uuid())$$),
    ($$SET pg_flake.public_id_key = 'not base64!'$$),
    ($$SET pg_flake.public_id_key = 'AAAAAAAAAAAAAAAAAAAA'$$)
) AS errors(statement);
RESET pg_flake.public_id_key;
