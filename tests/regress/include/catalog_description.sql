-- The SQL surface of the installed pg_flake, as (section, line) rows in a
-- temporary view pg_flake_catalog: every object the extension owns, with
-- its definition (functions as pg_get_functiondef writes them: arguments,
-- defaults, volatility, strictness, parallel safety, leakproofness, C
-- symbol; relations with their columns, indexes and privileges; the
-- extension's configuration tables). The tests catalog (prints it) and upgrade (compares a database
-- updated from 0.1.0 with a fresh one) read it.
CREATE TEMP VIEW pg_flake_member AS
SELECT classid, objid
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_flake')
  AND deptype = 'e';

CREATE TEMP VIEW pg_flake_catalog(section, line) AS
SELECT '1 member', pg_describe_object(classid, objid, 0)
FROM pg_flake_member
UNION ALL
SELECT '2 function', pg_get_functiondef(p.oid)
FROM pg_flake_member m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
WHERE p.prokind <> 'a'
UNION ALL
SELECT '3 aggregate', concat_ws(' | ', a.aggfnoid::regprocedure, a.aggtransfn, a.aggfinalfn,
       a.aggcombinefn, a.aggtranstype::regtype, a.aggsortop::regoperator, a.aggkind)
FROM pg_flake_member m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
UNION ALL
SELECT '4 type', concat_ws(' | ', t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage,
       t.typcategory, t.typinput, t.typoutput, t.typreceive, t.typsend, t.typanalyze)
FROM pg_flake_member m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
UNION ALL
SELECT '5 operator', concat_ws(' | ', o.oid::regoperator, o.oprresult::regtype, o.oprcode,
       o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanmerge,
       o.oprcanhash)
FROM pg_flake_member m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
UNION ALL
SELECT '6 operator class', concat_ws(' | ', am.amname, c.opcname, c.opcintype::regtype,
       c.opcdefault, f.opfname, c.opckeytype::regtype)
FROM pg_flake_member m
JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
JOIN pg_am am ON am.oid = c.opcmethod
JOIN pg_opfamily f ON f.oid = c.opcfamily
UNION ALL
SELECT '7 operator family', concat_ws(' | ', am.amname, f.opfname, 'operator',
       o.amopstrategy, o.amopopr::regoperator, o.amoppurpose)
FROM pg_flake_member m
JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
JOIN pg_am am ON am.oid = f.opfmethod
JOIN pg_amop o ON o.amopfamily = f.oid
UNION ALL
SELECT '7 operator family', concat_ws(' | ', am.amname, f.opfname, 'function',
       p.amprocnum, p.amproc::regprocedure)
FROM pg_flake_member m
JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
JOIN pg_am am ON am.oid = f.opfmethod
JOIN pg_amproc p ON p.amprocfamily = f.oid
UNION ALL
SELECT '8 cast', concat_ws(' | ', c.castsource::regtype, c.casttarget::regtype,
       c.castfunc::regprocedure, c.castcontext, c.castmethod)
FROM pg_flake_member m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
UNION ALL
-- Tables, sequences, views and composite types: columns and privileges.
SELECT '9 relation', concat_ws(' | ', c.oid::regclass, c.relkind,
       (SELECT string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod),
                                    CASE WHEN a.attnotnull THEN 'not null' END,
                                    'default ' || pg_get_expr(d.adbin, d.adrelid)),
                          ', ' ORDER BY a.attnum)
        FROM pg_attribute a
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
       c.relacl)
FROM pg_flake_member m
JOIN pg_class c ON (m.classid = 'pg_class'::regclass AND c.oid = m.objid)
                OR (m.classid = 'pg_type'::regclass AND c.reltype = m.objid)
UNION ALL
SELECT '9 relation', pg_get_indexdef(i.indexrelid)
FROM pg_flake_member m JOIN pg_index i ON m.classid = 'pg_class'::regclass AND i.indrelid = m.objid
UNION ALL
SELECT '9 relation', c.oid::regclass || ' AS ' || pg_get_viewdef(c.oid)
FROM pg_flake_member m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
WHERE c.relkind = 'v'
UNION ALL
-- Functions whose EXECUTE is not PUBLIC's (revoked, granted).
SELECT 'a privilege', p.oid::regprocedure || ' ' || p.proacl::text
FROM pg_flake_member m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
WHERE p.proacl IS NOT NULL
UNION ALL
SELECT 'b configuration', concat_ws(' | ', x.extconfig::regclass[], x.extcondition)
FROM pg_extension x WHERE x.extname = 'pg_flake' AND x.extconfig IS NOT NULL;
