-- Sorts and btree builds use sortsupport with abbreviated keys relative to
-- the sort's first value: their order must be the byte order (bytea) for
-- values far apart, values sharing long prefixes, and in external sorts.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
SELECT setseed(0.25);
CREATE TEMP TABLE raw AS
SELECT g, CASE g % 4
        WHEN 0 THEN b                                             -- anywhere
        WHEN 1 THEN '\x0a0b0c0d0e0f'::bytea || substr(b, 7)       -- 6-byte prefix
        WHEN 2 THEN '\x0a0b0c0d0e0f1011121314'::bytea || substr(b, 12) -- 11-byte prefix
        ELSE '\x0a0b0c0d0e0f'::bytea || substr(b, 7, 2) || '\x0000000000000000'::bytea
    END AS b
FROM (SELECT g, decode(md5(random()::text), 'hex') AS b FROM generate_series(1, 20000) g) s;
-- distributed_id admits values below 10^28 only: its first byte stays below 0x20.
CREATE TEMP TABLE vals AS
SELECT g,
       substr(b, 1, 10)::sno AS sno,
       substr(b, 1, 14)::siq AS siq,
       substr(b, 1, 12)::flaxid AS flaxid,
       substr(b, 1, 12)::kuid96 AS kuid96,
       set_byte(substr(b, 1, 12), 0, get_byte(b, 0) & 31)::distributed_id AS distributed_id
FROM raw;
SET max_parallel_workers_per_gather = 0;
SELECT (SELECT array_agg(sno ORDER BY sno) FROM vals)::text
     = (SELECT array_agg(sno ORDER BY sno::bytea) FROM vals)::text AS sno,
       (SELECT array_agg(siq ORDER BY siq) FROM vals)::text
     = (SELECT array_agg(siq ORDER BY siq::bytea) FROM vals)::text AS siq,
       (SELECT array_agg(flaxid ORDER BY flaxid) FROM vals)::text
     = (SELECT array_agg(flaxid ORDER BY flaxid::bytea) FROM vals)::text AS flaxid,
       (SELECT array_agg(kuid96 ORDER BY kuid96) FROM vals)::text
     = (SELECT array_agg(kuid96 ORDER BY kuid96::bytea) FROM vals)::text AS kuid96,
       (SELECT array_agg(distributed_id ORDER BY distributed_id) FROM vals)::text
     = (SELECT array_agg(distributed_id ORDER BY distributed_id::bytea) FROM vals)::text AS distributed_id;
-- The same as an external sort (merges compare full values).
SET work_mem = '64kB';
SELECT (SELECT array_agg(sno ORDER BY sno) FROM vals)::text
     = (SELECT array_agg(sno ORDER BY sno::bytea) FROM vals)::text AS sno,
       (SELECT array_agg(siq ORDER BY siq) FROM vals)::text
     = (SELECT array_agg(siq ORDER BY siq::bytea) FROM vals)::text AS siq,
       (SELECT array_agg(distributed_id ORDER BY distributed_id) FROM vals)::text
     = (SELECT array_agg(distributed_id ORDER BY distributed_id::bytea) FROM vals)::text AS distributed_id;
RESET work_mem;
-- Index builds sort with the same keys; an index scan returns byte order.
CREATE INDEX ON vals (sno);
CREATE INDEX ON vals (siq);
CREATE INDEX ON vals (flaxid);
CREATE INDEX ON vals (kuid96);
CREATE INDEX ON vals (distributed_id);
ANALYZE vals;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SELECT (SELECT array_agg(sno) FROM (SELECT sno FROM vals ORDER BY sno) s)::text
     = (SELECT array_agg(sno ORDER BY sno::bytea) FROM vals)::text AS sno,
       (SELECT array_agg(siq) FROM (SELECT siq FROM vals ORDER BY siq) s)::text
     = (SELECT array_agg(siq ORDER BY siq::bytea) FROM vals)::text AS siq,
       (SELECT array_agg(flaxid) FROM (SELECT flaxid FROM vals ORDER BY flaxid) s)::text
     = (SELECT array_agg(flaxid ORDER BY flaxid::bytea) FROM vals)::text AS flaxid,
       (SELECT array_agg(kuid96) FROM (SELECT kuid96 FROM vals ORDER BY kuid96) s)::text
     = (SELECT array_agg(kuid96 ORDER BY kuid96::bytea) FROM vals)::text AS kuid96,
       (SELECT array_agg(distributed_id) FROM (SELECT distributed_id FROM vals ORDER BY distributed_id) s)::text
     = (SELECT array_agg(distributed_id ORDER BY distributed_id::bytea) FROM vals)::text AS distributed_id;
-- Point lookups and min/max through the indexes.
SELECT count(*) FILTER (WHERE (SELECT count(*) FROM vals w WHERE w.sno = v.sno) >= 1) = 200 AS found
FROM (SELECT sno FROM vals ORDER BY g LIMIT 200) v;
SELECT min(sno) = (SELECT sno FROM vals ORDER BY sno::bytea LIMIT 1) AS min_sno,
       max(distributed_id) = (SELECT distributed_id FROM vals ORDER BY distributed_id::bytea DESC LIMIT 1) AS max_did
FROM vals;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_sort;
