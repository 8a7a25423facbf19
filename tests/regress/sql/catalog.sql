-- The SQL surface of this version: every object pg_flake creates, with its
-- definition. Its expected output was taken from version 0.1.0 as it landed;
-- any difference is a change of the surface, which needs a new version and
-- an upgrade script (README, "Versions"). catalog_1.out is the same surface
-- on PostgreSQL 17 and later, which make the array types (sno[], ...)
-- members of the extension too.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;
\pset format unaligned
CREATE TEMP VIEW pg_flake_member AS
SELECT classid, objid
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_flake')
  AND deptype = 'e';

SELECT pg_describe_object(classid, objid, 0) AS member
FROM pg_flake_member
ORDER BY 1;

-- Functions, as pg_get_functiondef writes them (arguments, defaults,
-- volatility, strictness, parallel safety, leakproofness, C symbol).
SELECT pg_get_functiondef(p.oid) AS function
FROM pg_flake_member m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
WHERE p.prokind <> 'a'
ORDER BY p.proname, pg_get_function_identity_arguments(p.oid);

SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
       a.aggtranstype::regtype, a.aggsortop::regoperator, a.aggkind
FROM pg_flake_member m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
ORDER BY a.aggfnoid::regprocedure::text;

SELECT t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
       t.typinput, t.typoutput, t.typreceive, t.typsend, t.typanalyze
FROM pg_flake_member m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
ORDER BY 1;

SELECT o.oid::regoperator AS operator, o.oprresult::regtype, o.oprcode, o.oprcom::regoperator,
       o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanmerge, o.oprcanhash
FROM pg_flake_member m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
ORDER BY o.oid::regoperator::text;

SELECT am.amname, c.opcname, c.opcintype::regtype, c.opcdefault, f.opfname,
       c.opckeytype::regtype
FROM pg_flake_member m
JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
JOIN pg_am am ON am.oid = c.opcmethod
JOIN pg_opfamily f ON f.oid = c.opcfamily
ORDER BY 1, 2;

SELECT am.amname, f.opfname, 'operator' AS kind, o.amopstrategy AS number,
       o.amopopr::regoperator::text AS member, o.amoppurpose
FROM pg_flake_member m
JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
JOIN pg_am am ON am.oid = f.opfmethod
JOIN pg_amop o ON o.amopfamily = f.oid
UNION ALL
SELECT am.amname, f.opfname, 'function', p.amprocnum,
       p.amproc::regprocedure::text, NULL
FROM pg_flake_member m
JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
JOIN pg_am am ON am.oid = f.opfmethod
JOIN pg_amproc p ON p.amprocfamily = f.oid
ORDER BY 1, 2, 3, 4, 5;

SELECT c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
       c.castcontext, c.castmethod
FROM pg_flake_member m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
ORDER BY c.castsource::regtype::text, c.casttarget::regtype::text;
