//! No role gains through pg_flake what it was not granted
//! (docs/guarantees.md "Privileges and trust"; issue 49): the search-path
//! hijack (CVE-2018-1058) and its cousins in extension scripts
//! (CVE-2020-14350, CVE-2023-39417), checked for every function, view and
//! script of the extension as the catalog and the installed scripts list
//! them, so that a new function or script line is covered without editing
//! this test.
//!
//! A planter — a role with CREATE on the extension's schema, and then the
//! database's owner — plants in that schema, under every function and
//! operator name that a body (SQL or PL/pgSQL), an SPI query of the
//! library (`src/`) or a script uses, overloads whose argument types would
//! beat pg_catalog's (`name` before `text`, `integer` before `double
//! precision`, a concrete type before a polymorphic one …). Each records
//! that it ran, and run by a superuser makes the planter one. Then a
//! superuser, with the default search path, calls every function with its
//! documented arguments (tests/integration/src/catalog.rs), the partition
//! functions on the planter's tables (an index expression of its own, a
//! domain key), and reads every view; and a database owner installs the
//! extension and updates it from 0.1.0 through every upgrade script over
//! such plants. Pass: nothing planted ran, and no role became superuser.

use pg_flake_integration::catalog::{drop_role, extension_functions};
use pg_flake_integration::*;
use postgres::Client;
use std::collections::BTreeSet;

/// Argument types that beat pg_catalog's for some call: where a body
/// passes one of them to a pg_catalog function declared with another (or
/// with a polymorphic type), an overload declaring it exactly wins.
const CANDIDATES: [&str; 16] = [
    "name",
    "text",
    "character varying",
    "smallint",
    "integer",
    "bigint",
    "numeric",
    "double precision",
    "oid",
    "regclass",
    "boolean",
    "interval",
    "timestamp without time zone",
    "timestamp with time zone",
    "bytea",
    "uuid",
];

/// The same for the two sides of an operator.
const OPERAND_CANDIDATES: [&str; 12] = [
    "name",
    "text",
    "character varying",
    "smallint",
    "integer",
    "bigint",
    "numeric",
    "double precision",
    "oid",
    "interval",
    "timestamp with time zone",
    "bytea",
];

/// Function and operator names a piece of SQL uses unqualified: an
/// identifier before `(`, and every run of operator characters, neither
/// after a `.` (a qualified name). Comments are left out, string literals
/// kept (dynamic SQL is built from them).
#[derive(Default)]
struct Names {
    functions: BTreeSet<String>,
    operators: BTreeSet<String>,
}

impl Names {
    fn add_sql(&mut self, sql: &str) {
        let text = without_comments(sql);
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let qualified = i > 0 && chars[i - 1] == '.';
            if c.is_ascii_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || "_$".contains(chars[i]))
                {
                    i += 1;
                }
                let mut j = i;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                let before = start > 0 && chars[start - 1] == '.';
                if !before && j < chars.len() && chars[j] == '(' {
                    let word: String = chars[start..i].iter().collect();
                    self.functions.insert(word.to_lowercase());
                }
                continue;
            }
            if "+-*/<>=~!@#%^&|?".contains(c) {
                let start = i;
                while i < chars.len() && "+-*/<>=~!@#%^&|?".contains(chars[i]) {
                    i += 1;
                }
                if !qualified {
                    self.operators.insert(chars[start..i].iter().collect());
                }
                continue;
            }
            i += 1;
        }
    }

    /// The SQL in the library's string literals (its SPI queries), from
    /// the repository's `src/`.
    fn add_library_queries(&mut self) {
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src");
        for path in rust_files(std::path::Path::new(src)) {
            let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            for literal in string_literals(&code) {
                if literal.to_uppercase().contains("SELECT") {
                    self.add_sql(&literal);
                }
            }
        }
    }
}

fn without_comments(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.find('\n').map_or("", |n| &after[n..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |n| &after[n + 2..]);
            out.push(' ');
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}")) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The contents of Rust's plain string literals in `code` (escapes kept
/// as written: they do not make names).
fn string_literals(code: &str) -> Vec<String> {
    let mut literals = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                // A char literal ('x', '\n') or a lifetime: skip two.
                chars.next();
                chars.next();
            }
            '"' => {
                let mut literal = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                            literal.push(' ');
                        }
                        '"' => break,
                        c => literal.push(c),
                    }
                }
                literals.push(literal);
            }
            _ => {}
        }
    }
    literals
}

/// A planter's plants, as SQL statements (each may fail: an overload that
/// exists already, or that PostgreSQL refuses, is simply not planted).
fn plants(admin: &mut Client, names: &Names, planter: &str) -> Vec<String> {
    // Each plant counts itself in a sequence (which a rollback does not
    // undo), warns, logs, and run by a superuser makes the planter one; then
    // answers as the pg_catalog function it shadows would, so that the call
    // around it goes on as if nothing happened — as a real attacker's would.
    let mut statements = vec![format!(
        "CREATE FUNCTION public.trojan_ran(what text) RETURNS void LANGUAGE plpgsql
         SET search_path = pg_catalog, pg_temp AS $trojan$
         BEGIN
             PERFORM nextval('public.trojan_hits');
             RAISE WARNING 'trojan ran: % as %', what, current_user;
             INSERT INTO public.trojan_log VALUES (what, current_user, current_query());
             IF (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user) THEN
                 EXECUTE 'ALTER ROLE {planter} SUPERUSER';
             END IF;
         END $trojan$"
    )];
    let functions: Vec<String> = names.functions.iter().cloned().collect();
    let overloads = admin
        .query(
            "SELECT p.proname,
                    ARRAY(SELECT format_type(a.t, NULL) FROM unnest(p.proargtypes) WITH ORDINALITY a(t, i)
                          ORDER BY a.i),
                    format_type(p.prorettype, NULL), p.proretset,
                    t.typtype = 'p' AND p.prorettype <> 'void'::regtype,
                    ARRAY(SELECT y.typtype = 'p' FROM unnest(p.proargtypes) WITH ORDINALITY a(t, i)
                          JOIN pg_catalog.pg_type y ON y.oid = a.t ORDER BY a.i)
             FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_type t ON t.oid = p.prorettype
             WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f'
               AND p.proname = ANY($1) AND p.pronargs BETWEEN 1 AND 4",
            &[&functions],
        )
        .expect("pg_catalog's overloads");
    let mut signatures = BTreeSet::new();
    for row in &overloads {
        let name: String = row.get(0);
        let args: Vec<String> = row.get(1);
        let returns: String = row.get(2);
        let set: bool = row.get(3);
        let pseudo: bool = row.get(4);
        let polymorphic: Vec<bool> = row.get(5);
        if pseudo {
            // Its result type follows its arguments': no plant can mimic it.
            continue;
        }
        let mut variants: Vec<Vec<String>> = Vec::new();
        for i in 0..args.len() {
            for c in CANDIDATES {
                let mut v = args.clone();
                v[i] = c.to_string();
                variants.push(v);
            }
        }
        if args.len() > 1 {
            for c in CANDIDATES {
                variants.push(vec![c.to_string(); args.len()]);
            }
        }
        for v in variants {
            if v == args || v.iter().any(|t| t == "internal" || t == "cstring") {
                continue;
            }
            let signature = format!("{name}({})", v.join(", "));
            if !signatures.insert(signature.clone()) {
                continue;
            }
            // The shadowed function's own answer: each argument cast back
            // to its declared type (a polymorphic one passed as it is).
            let call = format!(
                "pg_catalog.{}({})",
                quote_ident(&name),
                (0..v.len())
                    .map(|i| if polymorphic[i] {
                        format!("${}", i + 1)
                    } else {
                        format!("${}::{}", i + 1, args[i])
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let (ret, answer) = if set {
                (
                    format!("SETOF {returns}"),
                    format!("RETURN QUERY SELECT * FROM {call};"),
                )
            } else if returns == "void" {
                (returns.clone(), format!("PERFORM {call};"))
            } else {
                (returns.clone(), format!("RETURN {call};"))
            };
            statements.push(format!(
                "CREATE FUNCTION public.{}({}) RETURNS {ret} LANGUAGE plpgsql
                 SET search_path = pg_catalog, pg_temp AS $trojan$
                 BEGIN PERFORM public.trojan_ran({}); {answer} END $trojan$",
                quote_ident(&name),
                v.join(", "),
                quote_literal(&signature)
            ));
        }
    }
    // Operators: for each pair of candidate operand types, the pg_catalog
    // operator of the same name a call with those operands resolves to today
    // (operands equal, implicitly cast or polymorphic), planted with exactly
    // those operands and that operator's result type, so that the
    // expression around the call still type-checks and the plant runs.
    let operators: Vec<String> = names.operators.iter().cloned().collect();
    let candidates: Vec<String> = OPERAND_CANDIDATES.iter().map(|c| c.to_string()).collect();
    let shapes = admin
        .query(
            "WITH c(t) AS (SELECT unnest($2::text[])::regtype),
             fits(operand, candidate) AS (
                 SELECT t.oid, c.t FROM pg_catalog.pg_type t, c
                 WHERE t.oid = c.t OR t.typtype = 'p'
                    OR EXISTS (SELECT FROM pg_catalog.pg_cast k WHERE k.castsource = c.t
                               AND k.casttarget = t.oid AND k.castcontext = 'i'))
             SELECT DISTINCT ON (o.oprname, l.candidate, r.candidate)
                    o.oprname, format_type(l.candidate, NULL), format_type(r.candidate, NULL),
                    format_type(o.oprresult, NULL)
             FROM pg_catalog.pg_operator o
             JOIN pg_catalog.pg_type res ON res.oid = o.oprresult AND res.typtype <> 'p'
             JOIN fits l ON l.operand = o.oprleft
             JOIN fits r ON r.operand = o.oprright
             WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprkind = 'b'
               AND o.oprname = ANY($1)
               AND (o.oprleft, o.oprright) <> (l.candidate, r.candidate)
             ORDER BY o.oprname, l.candidate, r.candidate,
                      (o.oprleft = l.candidate)::int + (o.oprright = r.candidate)::int DESC",
            &[&operators, &candidates],
        )
        .expect("pg_catalog's operators");
    for (n, row) in shapes.iter().enumerate() {
        let op: String = row.get(0);
        let (left, right, result): (String, String, String) = (row.get(1), row.get(2), row.get(3));
        let function = format!("trojan_op_{n}");
        statements.push(format!(
            "CREATE FUNCTION public.{function}({left}, {right}) RETURNS {result}
             LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $trojan$
             BEGIN PERFORM public.trojan_ran({}); RETURN $1 OPERATOR(pg_catalog.{op}) $2; END $trojan$",
            quote_literal(&format!("{left} {op} {right}"))
        ));
        statements.push(format!(
            "CREATE OPERATOR public.{op} (LEFTARG = {left}, RIGHTARG = {right},
             FUNCTION = public.{function})"
        ));
    }
    statements
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Runs `statements` as the planter in one round trip, each in a
/// subtransaction of its own (so that one refused leaves the others);
/// returns how many took.
fn plant(db: &mut Client, statements: &[String]) -> i64 {
    db.batch_execute(
        "CREATE TABLE IF NOT EXISTS public.trojan_log (what text, ran_as name, query text);
         GRANT INSERT, SELECT ON public.trojan_log TO PUBLIC;
         CREATE SEQUENCE IF NOT EXISTS public.trojan_hits;
         GRANT USAGE, SELECT ON SEQUENCE public.trojan_hits TO PUBLIC;
         CREATE TEMP TABLE trojan_plants (statement text, planted boolean)",
    )
    .expect("the planter's log");
    db.execute(
        "INSERT INTO pg_temp.trojan_plants SELECT unnest($1::text[]), false",
        &[&statements],
    )
    .expect("the plants");
    db.batch_execute(
        "DO $plant$
         DECLARE
             one record;
         BEGIN
             FOR one IN SELECT ctid, statement FROM pg_temp.trojan_plants LOOP
                 BEGIN
                     EXECUTE one.statement;
                     UPDATE pg_temp.trojan_plants SET planted = true WHERE ctid = one.ctid;
                 EXCEPTION WHEN OTHERS THEN NULL;
                 END;
             END LOOP;
         END $plant$",
    )
    .expect("planting");
    db.query_one(
        "SELECT count(*) FILTER (WHERE planted) FROM pg_temp.trojan_plants",
        &[],
    )
    .expect("count the plants")
    .get(0)
}

/// What ran of the plants, and whether the planter became superuser, read
/// by a connection whose search path reaches no plant.
fn ran(dbname: &str, planter: &str) -> (Vec<String>, bool) {
    let mut checker = try_connect(Some(dbname), None).expect("connect to check");
    checker
        .batch_execute("SET search_path = pg_catalog, pg_temp")
        .expect("search path");
    let mut ran = checker
        .query(
            "SELECT what || ' as ' || ran_as || ' in: ' || left(query, 300)
             FROM public.trojan_log",
            &[],
        )
        .map(|rows| rows.iter().map(|r| r.get(0)).collect::<Vec<String>>())
        .unwrap_or_default();
    // A plant that ran in a statement that then failed left no log row
    // (rolled back), but counted itself in the sequence.
    let hits: i64 = checker
        .query_one(
            "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM public.trojan_hits",
            &[],
        )
        .map(|r| r.get(0))
        .unwrap_or(0);
    if hits as usize > ran.len() {
        ran.push(format!(
            "{} plants ran in statements that failed (see the server log's 'trojan ran' warnings)",
            hits as usize - ran.len()
        ));
    }
    let superuser: bool = checker
        .query_one(
            "SELECT rolsuper FROM pg_roles WHERE rolname = $1",
            &[&planter],
        )
        .expect("the planter")
        .get(0);
    (ran, superuser)
}

/// A fresh database `dbname` (owned by `owner`, or by the superuser) and a
/// planter role, `planter`, with CREATE on its schema public (PostgreSQL
/// 15's public schema belongs to the database's owner, who has it anyway).
fn fresh_database(admin: &mut Client, dbname: &str, planter: &str, owner: bool) {
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"))
        .expect("drop the database");
    drop_role(admin, planter);
    admin
        .batch_execute(&format!("CREATE ROLE {planter} LOGIN"))
        .expect("the planter");
    let created = if owner {
        format!("CREATE DATABASE {dbname} OWNER {planter}")
    } else {
        format!("CREATE DATABASE {dbname}")
    };
    admin.batch_execute(&created).expect("the database");
    if !owner {
        let mut db = try_connect(Some(dbname), None).expect("connect");
        db.batch_execute(&format!("GRANT CREATE ON SCHEMA public TO {planter}"))
            .expect("CREATE on public");
    }
}

fn drop_database(admin: &mut Client, dbname: &str, planter: &str) {
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {dbname} WITH (FORCE)"))
        .expect("drop the database");
    drop_role(admin, planter);
}

/// Every function of the extension called by a superuser with the default
/// search path, every view read, and the partition functions on the
/// planter's tables; returns how many calls were made.
fn call_everything(dbname: &str) -> usize {
    let mut db = try_connect(Some(dbname), None).expect("connect as the superuser");
    // The test's own catalog queries reach no plant; the calls below run
    // with the default search path, which does.
    db.batch_execute("SET search_path = pg_catalog, pg_temp")
        .expect("search path");
    let mut functions = extension_functions(&mut db);
    // Their types as the default search path names them (the catalog
    // printed them qualified: public is not on this one).
    for f in &mut functions {
        for (_, t) in &mut f.parameters {
            *t = t.trim_start_matches("public.").to_string();
        }
        f.returns = f.returns.trim_start_matches("public.").to_string();
    }
    let mut calls: Vec<String> = functions.iter().filter_map(|f| f.call()).collect();
    let views: Vec<String> = db
        .query(
            "SELECT c.oid::regclass::text FROM pg_catalog.pg_depend d
             JOIN pg_catalog.pg_class c ON c.oid = d.objid
             WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype = 'e'
               AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e
                                 WHERE e.extname = 'pg_flake')
               AND c.relkind = 'v'",
            &[],
        )
        .expect("the extension's views")
        .iter()
        .map(|r| r.get(0))
        .collect();
    calls.extend(views.iter().map(|v| format!("SELECT * FROM {v}")));
    db.batch_execute("RESET search_path")
        .expect("the default search path");
    for table in ["partitioned_ids", "hostile_ids"] {
        calls.push(format!(
            "SELECT * FROM pg_flake_create_partitions('{table}', 'sno', now(), now() + interval '2 days', '1 day')"
        ));
        calls.push(format!(
            "SELECT * FROM pg_flake_partitions('{table}', 'sno')"
        ));
        calls.push(format!(
            "SELECT * FROM pg_flake_drop_partitions('{table}', 'sno', now() + interval '3 days')"
        ));
    }
    for sql in &calls {
        // Refusals are fine (a lease already taken, a domain key): what
        // counts is what ran meanwhile.
        let _ = db.batch_execute(sql);
    }
    calls.len()
}

/// The planter's tables: partitioned by range on sno, one with an index
/// whose expression is the planter's function, one on a domain over sno
/// whose check is.
fn planter_tables(db: &mut Client) {
    db.batch_execute(
        "CREATE FUNCTION public.trojan_index(sno) RETURNS text IMMUTABLE LANGUAGE plpgsql
         SET search_path = pg_catalog, pg_temp AS $t$
         BEGIN PERFORM public.trojan_ran('index expression'); RETURN $1::text; END $t$;
         CREATE FUNCTION public.trojan_check(sno) RETURNS boolean IMMUTABLE LANGUAGE plpgsql
         SET search_path = pg_catalog, pg_temp AS $t$
         BEGIN PERFORM public.trojan_ran('domain check'); RETURN true; END $t$;
         CREATE TABLE public.partitioned_ids (id sno NOT NULL) PARTITION BY RANGE (id);
         CREATE INDEX ON public.partitioned_ids (public.trojan_index(id));
         CREATE DOMAIN public.hostile_sno AS sno CHECK (public.trojan_check(VALUE));
         CREATE TABLE public.hostile_ids (id public.hostile_sno NOT NULL) PARTITION BY RANGE (id);
         CREATE TABLE public.hostile_ids_old PARTITION OF public.hostile_ids
             FOR VALUES FROM ('2222222222222222') TO ('brpk4q72xwf2m63l')",
    )
    .expect("the planter's tables");
    // Their own setup ran their own functions: only what runs from here counts.
    db.batch_execute("TRUNCATE public.trojan_log; SELECT setval('public.trojan_hits', 1, false)")
        .expect("a clean log");
}

/// The names the extension's function bodies and the library's SPI
/// queries use.
fn runtime_names(db: &mut Client) -> Names {
    let mut names = Names::default();
    for row in db
        .query(
            "SELECT p.prosrc FROM pg_catalog.pg_depend d
             JOIN pg_catalog.pg_proc p ON p.oid = d.objid
             JOIN pg_catalog.pg_language l ON l.oid = p.prolang
             WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
               AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e
                                 WHERE e.extname = 'pg_flake')
               AND l.lanname IN ('sql', 'plpgsql')",
            &[],
        )
        .expect("the bodies")
    {
        names.add_sql(row.get(0));
    }
    names.add_library_queries();
    names
}

fn planted_functions_never_run(planter: &str, owner: bool) {
    let dbname = format!("flake_{planter}");
    let mut admin = connect();
    fresh_database(&mut admin, &dbname, planter, owner);
    let mut db = try_connect(Some(&dbname), None).expect("connect");
    db.batch_execute("CREATE EXTENSION pg_flake")
        .expect("the extension");
    let names = runtime_names(&mut db);
    let mut planter_db = try_connect(Some(&dbname), Some(planter)).expect("connect as the planter");
    let statements = plants(&mut db, &names, planter);
    let planted = plant(&mut planter_db, &statements);
    planter_tables(&mut planter_db);
    let calls = call_everything(&dbname);
    let (ran, superuser) = ran(&dbname, planter);
    assert!(
        ran.is_empty() && !superuser,
        "planted by {planter}, run by a superuser's calls (superuser now: {superuser}):\n{}",
        ran.join("\n")
    );
    println!(
        "trojan ({planter}): {} function and {} operator names, {planted} overloads and operators \
         planted; {calls} calls and reads as a superuser ran none of them",
        names.functions.len(),
        names.operators.len()
    );
    drop(planter_db);
    drop(db);
    drop_database(&mut admin, &dbname, planter);
}

#[test]
fn planted_by_a_role_with_create_on_the_schema_nothing_runs() {
    planted_functions_never_run("trojan_creator", false);
}

#[test]
fn planted_by_the_database_owner_nothing_runs() {
    planted_functions_never_run("trojan_owner", true);
}

/// The installed scripts of the extension: the install script of the
/// default version and every upgrade script, read by the server.
fn installed_scripts(db: &mut Client) -> Vec<(String, String)> {
    db.query(
        "SELECT f, pg_catalog.pg_read_file(d || '/extension/' || f)
         FROM (SELECT setting AS d FROM pg_catalog.pg_config WHERE name = 'SHAREDIR') s,
              LATERAL pg_catalog.pg_ls_dir(d || '/extension') f
         WHERE f LIKE 'pg\\_flake--%--%.sql'
            OR f = 'pg_flake--' || (SELECT default_version FROM pg_catalog.pg_available_extensions
                                    WHERE name = 'pg_flake') || '.sql'
         ORDER BY f",
        &[],
    )
    .expect("the installed scripts")
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

#[test]
fn installing_and_updating_run_nothing_planted() {
    const PLANTER: &str = "trojan_installer";
    let dbname = format!("flake_{PLANTER}");
    let mut admin = connect();
    let scripts = installed_scripts(&mut admin);
    assert!(
        scripts
            .iter()
            .filter(|(f, _)| f.matches("--").count() == 2)
            .count()
            >= 4,
        "every upgrade script from 0.1.0 is installed: {:?}",
        scripts.iter().map(|(f, _)| f).collect::<Vec<_>>()
    );
    let mut names = Names::default();
    for (_, sql) in &scripts {
        names.add_sql(sql);
    }
    let statements = plants(&mut admin, &names, PLANTER);
    for from in ["fresh", "0.1.0"] {
        fresh_database(&mut admin, &dbname, PLANTER, true);
        let mut owner = try_connect(Some(&dbname), Some(PLANTER)).expect("connect as the owner");
        if from != "fresh" {
            // The old release's own install script, before anything is
            // planted: only the upgrade scripts run over the plants.
            owner
                .batch_execute(&format!("CREATE EXTENSION pg_flake VERSION '{from}'"))
                .expect("the old release");
        }
        let planted = plant(&mut owner, &statements);
        let installed = if from == "fresh" {
            owner.batch_execute("CREATE EXTENSION pg_flake")
        } else {
            owner.batch_execute("ALTER EXTENSION pg_flake UPDATE")
        };
        installed.unwrap_or_else(|e| panic!("the database owner installs from {from}: {e:?}"));
        let (after_install, _) = ran(&dbname, PLANTER);
        planter_tables(&mut owner);
        let calls = call_everything(&dbname);
        let (ran, superuser) = ran(&dbname, PLANTER);
        assert!(
            after_install.is_empty() && ran.is_empty() && !superuser,
            "installed ({from}) over the database owner's plants (superuser now: {superuser}): \
             while installing:\n{}\nafter:\n{}",
            after_install.join("\n"),
            ran.join("\n")
        );
        println!(
            "trojan (install, {from}): {} scripts, {} function and {} operator names, {planted} \
             overloads and operators planted by the database owner; installing and {calls} calls \
             and reads as a superuser ran none of them",
            scripts.len(),
            names.functions.len(),
            names.operators.len()
        );
        drop(owner);
    }
    drop_database(&mut admin, &dbname, PLANTER);
}
