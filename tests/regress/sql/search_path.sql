-- Every function of pg_flake with a SQL or PL/pgSQL body runs with
-- search_path pg_catalog, pg_temp, and names the extension's own objects
-- through the extension's schema (docs/guarantees.md "Privileges and
-- trust"; issue 49). Read from the catalog, so that a function added later
-- is checked without editing this test; tests/integration/tests/trojan.rs
-- shows what it keeps out.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
CREATE TEMP VIEW flake_members AS
SELECT d.classid, d.objid FROM pg_depend d
WHERE d.deptype = 'e' AND d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_flake');
-- The bodies, comments and string literals left out (they may name
-- anything).
CREATE TEMP VIEW flake_bodies AS
SELECT p.oid::regprocedure AS function, l.lanname AS language, p.proconfig,
       regexp_replace(regexp_replace(p.prosrc, '--[^\n]*', '', 'g'),
                      $re$'(''|[^'])*'$re$, '''''', 'g') AS body
FROM flake_members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
JOIN pg_language l ON l.oid = p.prolang
WHERE l.lanname NOT IN ('c', 'internal');
SELECT language, count(*) AS functions FROM flake_bodies GROUP BY 1 ORDER BY 1;
-- Without exactly that search_path: none.
SELECT function, proconfig FROM flake_bodies
WHERE proconfig IS DISTINCT FROM ARRAY['search_path=pg_catalog, pg_temp'];
-- The extension's functions (not its min and max aggregates, whose names
-- are pg_catalog's too), types and relations, named without a schema in a
-- body: none.
CREATE TEMP VIEW flake_names(name) AS
SELECT p.proname FROM flake_members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
WHERE p.prokind <> 'a'
UNION SELECT t.typname FROM flake_members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
UNION SELECT c.relname FROM flake_members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid;
SELECT count(*) > 100 AS names FROM flake_names;
SELECT b.function, n.name FROM flake_bodies b, flake_names n
WHERE b.body ~ ('(^|[^.[:alnum:]_"])' || n.name || '([^[:alnum:]_]|$)')
ORDER BY 1, 2;
