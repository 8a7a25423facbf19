-- The partition functions (docs/sql-reference.md "Partitions by time") and
-- what no role gains through them (docs/guarantees.md "Privileges and
-- trust"; issue 49, items 1 to 5): a superuser's documented calls run
-- nothing another role planted, on a table of any owner; a key of another
-- type (a domain over the format's type too) or another format is refused
-- before any of its values is read; daily partitions are UTC days whatever
-- the session's time zone.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/include/sqlstate_of.sql'
\i :sqlstate_of
-- A role that may create objects in the extension's schema (public), and
-- a log of every planted function that ran, with the role it ran as.
CREATE ROLE regress_planter;
GRANT CREATE ON SCHEMA public TO regress_planter;
CREATE TABLE public.planted_ran (fn text, ran_as name);
GRANT INSERT, SELECT ON public.planted_ran TO PUBLIC;
SET ROLE regress_planter;
-- Each planted function logs its call and, run by a superuser, tries to
-- make the planter one (item 1 and 2's payload).
CREATE FUNCTION public.planted(fn text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.planted_ran VALUES (fn, current_user);
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        EXECUTE 'ALTER ROLE regress_planter SUPERUSER';
    END IF;
END $$;
-- Overloads whose argument types beat pg_catalog's for the calls the
-- 0.4.0 bodies made (name before text, integer before double precision).
CREATE FUNCTION public.quote_ident(name) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('quote_ident(name)'); RETURN pg_catalog.quote_ident($1::text); END $$;
CREATE FUNCTION public.left(name, integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('left(name, integer)'); RETURN pg_catalog.left($1::text, $2); END $$;
CREATE FUNCTION public.interval_times(interval, integer) RETURNS interval LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('*(interval, integer)'); RETURN $1 * $2::float8; END $$;
CREATE OPERATOR public.* (LEFTARG = interval, RIGHTARG = integer, FUNCTION = public.interval_times);
CREATE FUNCTION public.lower(name) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('lower(name)'); RETURN pg_catalog.lower($1::text); END $$;
CREATE FUNCTION public.format_type(oid, integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('format_type(oid, integer)'); RETURN pg_catalog.format_type($1, $2); END $$;
-- The planter's own table, partitioned by sno, with an index whose
-- expression and a CHECK whose function are the planter's (item 3's
-- owner, without the domain).
CREATE FUNCTION public.planted_immutable(sno) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('index expression'); RETURN $1::text; END $$;
CREATE TABLE public.planter_events (id sno NOT NULL, note text CHECK (note IS DISTINCT FROM 'x'))
    PARTITION BY RANGE (id);
CREATE INDEX ON public.planter_events (public.planted_immutable(id));
-- A domain over sno whose check is the planter's (item 3).
CREATE FUNCTION public.planted_check(sno) RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('domain check'); RETURN true; END $$;
CREATE DOMAIN public.checked_sno AS sno CHECK (public.planted_check(VALUE));
CREATE TABLE public.domain_events (id public.checked_sno NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE public.domain_events_old PARTITION OF public.domain_events
    FOR VALUES FROM ('2222222222222222') TO ('brpk4q72xwf2m63l');
RESET ROLE;
TRUNCATE public.planted_ran;
-- The superuser's documented calls, on its own table and on the planter's.
CREATE TABLE events (id sno NOT NULL DEFAULT sno_generate(), payload text) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM pg_flake_create_partitions('events', 'sno',
    '2026-03-01 00:00+00', '2026-03-05 00:00+00', '1 day');
SELECT count(*) AS made FROM pg_flake_create_partitions('public.planter_events', 'sno',
    '2026-03-01 00:00+00', '2026-03-05 00:00+00', '1 day');
SELECT partition, partition_from, partition_to FROM pg_flake_drop_partitions('events', 'sno',
    '2026-03-03 00:00+00') ORDER BY partition_from;
SELECT partition, partition_from, partition_to FROM pg_flake_drop_partitions('public.planter_events', 'sno',
    '2026-03-03 00:00+00') ORDER BY partition_from;
SELECT count(*) AS made FROM pg_flake_create_partitions('events', 'sno',
    '2026-03-05 00:00+00', '2026-03-05 06:00+00', '2 hours');
-- Refused before a value of the domain is read (42804), on either call.
SELECT * FROM pg_flake_drop_partitions('public.domain_events', 'sno', '2026-03-03 00:00+00');
SELECT * FROM pg_flake_create_partitions('public.domain_events', 'sno',
    '2026-03-01 00:00+00', '2026-03-02 00:00+00', '1 day');
-- Nothing planted ran, and the planter is no superuser.
SELECT fn, ran_as FROM public.planted_ran ORDER BY 1, 2;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_planter';
-- The planter's own calls on its own table run its own code as itself:
-- nothing gained, and nothing refused.
SET ROLE regress_planter;
SELECT count(*) AS made FROM pg_flake_create_partitions('public.planter_events', 'sno',
    '2026-03-05 00:00+00', '2026-03-06 00:00+00', '1 day');
-- Another role's table: refused (42501), as CREATE TABLE … PARTITION OF is.
SELECT * FROM pg_flake_create_partitions('events', 'sno', '2026-03-06 00:00+00', '2026-03-07 00:00+00', '1 day');
SELECT * FROM pg_flake_drop_partitions('events', 'sno', '2026-03-07 00:00+00');
RESET ROLE;
SELECT DISTINCT ran_as FROM public.planted_ran;
TRUNCATE public.planted_ran;

-- Item 4: kuid64 and snowflake are both bigint. A kuid64 table, daily
-- partitions from two days back to three ahead: dropping them as Snowflakes
-- is refused (the partitions' names give their days, which their bounds do
-- not read as Snowflake times), and every row stays.
CREATE TABLE k (id bigint NOT NULL DEFAULT kuid64_generate(), n int) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM pg_flake_create_partitions('k', 'kuid64',
    date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '2 days',
    date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '4 days', '1 day');
INSERT INTO k (n) SELECT g FROM generate_series(1, 1000) g;
-- (The messages name today's partitions: their SQLSTATEs.)
SELECT pg_temp.sqlstate_of($$SELECT pg_flake_drop_partitions('k', 'snowflake', now() - interval '90 days')$$);
SELECT pg_temp.sqlstate_of($$SELECT pg_flake_create_partitions('k', 'snowflake', now(), now() + interval '1 day', '1 day')$$);
SELECT count(*) AS rows_kept FROM k;
-- Named right, nothing is old enough to go.
SELECT count(*) AS dropped FROM pg_flake_drop_partitions('k', 'kuid64', now() - interval '90 days');
-- The same with the key's default telling (partitions not named by pg_flake).
CREATE TABLE s (id bigint NOT NULL DEFAULT snowflake_generate()) PARTITION BY RANGE (id);
CREATE TABLE s_all PARTITION OF s FOR VALUES FROM (0) TO (9223372036854775807);
SELECT * FROM pg_flake_drop_partitions('s', 'kuid64', now());
-- A key of another operator class than the type's default: refused.
CREATE OPERATOR CLASS reversed_sno_ops FOR TYPE sno USING btree AS
    OPERATOR 1 > , OPERATOR 2 >= , OPERATOR 3 = , OPERATOR 4 <= , OPERATOR 5 < ,
    FUNCTION 1 sno_cmp(sno, sno);
CREATE TABLE r (id sno NOT NULL) PARTITION BY RANGE (id reversed_sno_ops);
SELECT * FROM pg_flake_create_partitions('r', 'sno', '2026-03-01 00:00+00', '2026-03-02 00:00+00', '1 day');
-- Another type, another strategy.
CREATE TABLE u (id uuid NOT NULL) PARTITION BY RANGE (id);
SELECT * FROM pg_flake_create_partitions('u', 'sno', '2026-03-01 00:00+00', '2026-03-02 00:00+00', '1 day');
CREATE TABLE l (id sno NOT NULL) PARTITION BY LIST (id);
SELECT * FROM pg_flake_drop_partitions('l', 'sno', now());

-- Item 5: daily partitions across a daylight-saving change are UTC days,
-- named by their UTC date, in any session time zone (New York, Berlin,
-- and Chatham's +12:45/+13:45).
CREATE TABLE dst (id sno NOT NULL) PARTITION BY RANGE (id);
SET TimeZone = 'America/New_York';
SELECT partition, partition_from AT TIME ZONE 'UTC' AS utc_from, partition_to - partition_from AS span
FROM pg_flake_create_partitions('dst', 'sno', '2026-03-06 00:00+00', '2026-03-11 00:00+00', '1 day');
SET TimeZone = 'Europe/Berlin';
SELECT partition, partition_from AT TIME ZONE 'UTC' AS utc_from, partition_to - partition_from AS span
FROM pg_flake_create_partitions('dst', 'sno', '2026-03-27 00:00+00', '2026-03-31 00:00+00', '1 day');
SET TimeZone = 'Pacific/Chatham';
SELECT partition, partition_from AT TIME ZONE 'UTC' AS utc_from, partition_to - partition_from AS span
FROM pg_flake_create_partitions('dst', 'sno', '2026-04-03 00:00+00', '2026-04-07 00:00+00', '1 day');
-- Hourly across New York's fall back: 25 local hours, 25 partitions.
SET TimeZone = 'America/New_York';
SELECT count(*) AS hours, count(DISTINCT partition) AS names
FROM pg_flake_create_partitions('dst', 'sno', '2026-11-01 04:00+00', '2026-11-02 05:00+00', '1 hour');
RESET TimeZone;
SELECT partition, partition_from, partition_to FROM pg_flake_partitions('dst', 'sno')
ORDER BY partition_from LIMIT 3;
SELECT count(*) AS dropped FROM pg_flake_drop_partitions('dst', 'sno', '2026-12-01 00:00+00');

DROP TABLE events, k, s, r, u, l, dst;
DROP OPERATOR CLASS reversed_sno_ops USING btree;
DROP TABLE public.planter_events, public.domain_events, public.planted_ran;
DROP OWNED BY regress_planter;
DROP ROLE regress_planter;
