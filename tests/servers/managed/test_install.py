"""The three ways in and the updates between versions (docs/managed.md
"Installing", "Upgrades"): psql -f by a role with nothing but CREATE on a
schema; CREATE EXTENSION from the extension files; pg_tle's installer and
CREATE EXTENSION by a pgtle_admin that is no superuser, then a superuser's
operator classes. Privileges: generators and counters are their owner's
(42501 for another role until granted), decoders every role's. Updates: a
synthetic 0.5.1 (fixtures/upgrade: 0.5.0's sources, a new function and a
changed one) reached from 0.5.0 by each way, with the catalog of a fresh
0.5.1 and generation going on above the IDs of 0.5.0. pgspot over every
generated file: 0 errors, and each file analyzed to its end (a probe
appended to it is found)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import skip_without_pg_tle
from managed_lib import (
    DIST,
    REPO,
    SCHEMA,
    connect,
    create_database,
    install,
    install_extension_files,
    psql,
    remove_extension_files,
    sqlstate_of,
)

FIXTURE = Path(__file__).parent / "fixtures" / "upgrade"


def generate_some(server, db: str, user: str = "postgres") -> None:
    with connect(server, db, user) as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        conn.execute("CREATE TABLE IF NOT EXISTS public.made (id bytea PRIMARY KEY, format text)")
        for fmt, call in [
            ("sno", "sno_generate()::bytea"),
            ("siq", "siq_generate('user')::bytea"),
            ("snowflake", "int8send(snowflake_generate())"),
            ("kuid64", "int8send(kuid64_generate())"),
            ("kuid96", "kuid96_generate()::bytea"),
        ]:
            conn.execute(
                f"INSERT INTO public.made SELECT {call}, '{fmt}' FROM generate_series(1, 200)"
            )


def test_psql_file_by_a_role_with_create_on_a_schema(cluster, figures):
    create_database(cluster, "way_psql")
    cluster.sql("DROP ROLE IF EXISTS installer")
    cluster.sql("DROP ROLE IF EXISTS app")
    cluster.sql("CREATE ROLE installer LOGIN; CREATE ROLE app LOGIN")
    cluster.sql(
        f"CREATE SCHEMA {SCHEMA}; GRANT CREATE, USAGE ON SCHEMA {SCHEMA} TO installer; "
        f"GRANT USAGE ON SCHEMA {SCHEMA} TO app; GRANT CREATE ON SCHEMA public TO installer",
        dbname="way_psql",
    )
    done = install(cluster, "way_psql", "psql", user="installer")
    assert "installed in schema flake" in done.stderr
    # Again: nothing to do.
    done = install(cluster, "way_psql", "psql", user="installer")
    assert "pg_flake_sql 0.5.0 is installed in schema flake" in done.stderr
    # Never into a temporary schema, which would take the counters away.
    done = install(cluster, "way_psql", "psql", schema="pg_temp", user="installer", check=False)
    assert done.returncode != 0 and "cannot be installed into the schema pg_temp" in done.stderr
    owners = cluster.sql(
        f"SELECT DISTINCT proowner::regrole::text FROM pg_proc WHERE pronamespace = '{SCHEMA}'::regnamespace",
        dbname="way_psql",
    )
    assert owners == [("installer",)]
    generate_some(cluster, "way_psql", user="installer")
    with connect(cluster, "way_psql", "app") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        # Decoders and constructors: every role's.
        assert (
            conn.execute("SELECT sno_to_text(sno_from_text('brpk4q72xwf2m63l'))").fetchone()[0]
            == "brpk4q72xwf2m63l"
        )
        # Generators and counters: the owner's until granted.
        assert sqlstate_of(conn, "SELECT sno_generate()") == "42501"
        assert sqlstate_of(conn, "SELECT nextval('pg_flake_counter_sno')") == "42501"
        assert sqlstate_of(conn, "SELECT setval('pg_flake_counter_sno', 1)") == "42501"
        assert sqlstate_of(conn, "SELECT pg_flake_set_mark('sno', now())") == "42501"
        assert sqlstate_of(conn, "SELECT * FROM pg_flake_lease('sno', 'x')") == "42501"
        # The state is readable.
        assert conn.execute("SELECT count(*) FROM pg_flake_generator_state()").fetchone()[0] == 5
    psql(
        cluster,
        "way_psql",
        user="installer",
        sql=f"GRANT EXECUTE ON FUNCTION {SCHEMA}.sno_generate(integer) TO app;",
    )
    with connect(cluster, "way_psql", "app") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        assert conn.execute("SELECT length(sno_generate()::bytea)").fetchone()[0] == 10
    figures(
        "psql -f by a role with CREATE on the schema: installed, rerun a no-op, 42501 for another role until granted"
    )


def test_extension_files(cluster, figures):
    install_extension_files()
    try:
        create_database(cluster, "way_extension", "extension")
        generate_some(cluster, "way_extension")
        config = cluster.value(
            "SELECT array_length(extconfig, 1) FROM pg_extension WHERE extname = 'pg_flake_sql'",
            dbname="way_extension",
        )
        # The 19 counters, the lease grants and their sequence: kept by pg_dump.
        assert config == 21
        # psql -f refuses where the extension is.
        done = psql(cluster, "way_extension", "-f", str(DIST / "pg_flake_sql.sql"), check=False)
        assert done.returncode != 0 and "installed in this database as an extension" in done.stderr
        cluster.sql("DROP EXTENSION pg_flake_sql", dbname="way_extension")
    finally:
        remove_extension_files()
    figures("CREATE EXTENSION pg_flake_sql from the extension files: 21 configuration relations")


def test_pg_tle_by_a_superuser(cluster, pg_tle, figures):
    skip_without_pg_tle(pg_tle)
    create_database(cluster, "way_tle", "pg_tle")
    generate_some(cluster, "way_tle")
    with cluster.connect("way_tle") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        conn.execute("CREATE TABLE notes (id sno PRIMARY KEY DEFAULT sno_generate(), body text)")
        conn.execute("CREATE INDEX ON notes USING hash (id)")
        conn.execute("CREATE INDEX ON notes USING brin (id)")
        conn.execute("INSERT INTO notes (body) SELECT 'n' || g FROM generate_series(1, 1000) g")
        rows = conn.execute("SELECT id::text FROM notes ORDER BY id").fetchall()
        assert [r[0] for r in rows] == sorted(r[0] for r in rows)
        assert (
            sqlstate_of(conn, "INSERT INTO notes SELECT id, 'again' FROM notes LIMIT 1") == "23505"
        )
        # The type's text I/O, as the native type's.
        assert conn.execute("SELECT 'brpk4q72xwf2m63l'::sno::bytea").fetchone()[0] == bytes.fromhex(
            "4e6f2160a0ff9a0a1033"
        )
        assert sqlstate_of(conn, "SELECT 'brpk4q72xwf2m63'::sno") == "22P02"
        opclasses = conn.execute(
            "SELECT count(*) FROM pg_opclass o JOIN pg_depend d ON d.objid = o.oid AND d.classid = 'pg_opclass'::regclass "
            "JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'pg_flake_sql'"
        ).fetchone()[0]
        assert opclasses == 15
    figures(
        "pg_tle by a superuser: 15 operator classes, a primary key, hash and BRIN indexes, ORDER BY"
    )


def test_pg_tle_by_a_pgtle_admin(cluster, pg_tle, figures):
    """A member of pgtle_admin without superuser installs and creates the
    extension (on RDS, the master user); PostgreSQL itself lets only a
    superuser create the operator classes, which one adds afterwards."""
    skip_without_pg_tle(pg_tle)
    cluster.sql("DROP DATABASE IF EXISTS way_tle_admin")
    cluster.sql("DROP ROLE IF EXISTS tle_admin")
    cluster.sql("CREATE ROLE tle_admin LOGIN")
    cluster.sql("CREATE DATABASE way_tle_admin OWNER tle_admin")
    cluster.sql("CREATE EXTENSION pg_tle", dbname="way_tle_admin")
    cluster.sql("GRANT pgtle_admin TO tle_admin")
    done = install(cluster, "way_tle_admin", "pg_tle", user="tle_admin")
    assert "have no operator classes" in done.stderr, done.stderr
    with connect(cluster, "way_tle_admin", "tle_admin") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        assert conn.execute("SELECT sno_generate()::bytea IS NOT NULL").fetchone()[0]
        assert sqlstate_of(conn, "CREATE TABLE public.t (id sno PRIMARY KEY)") == "42704"
        assert sqlstate_of(conn, "SELECT pg_flake_sql_operator_classes()") in ("42501",)
    cluster.sql(f"SELECT {SCHEMA}.pg_flake_sql_operator_classes()", dbname="way_tle_admin")
    with connect(cluster, "way_tle_admin", "tle_admin") as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        conn.execute("CREATE TABLE public.t (id sno PRIMARY KEY DEFAULT sno_generate())")
        conn.execute("INSERT INTO public.t SELECT FROM generate_series(1, 100)")
        assert conn.execute("SELECT count(DISTINCT id) FROM public.t").fetchone()[0] == 100
        assert (
            conn.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'pg_flake_sql'"
            ).fetchone()[0]
            == "0.5.0"
        )
    # Every object is the extension's: DROP EXTENSION takes the operator classes too.
    cluster.sql("DROP TABLE public.t", dbname="way_tle_admin")
    cluster.sql("DROP EXTENSION pg_flake_sql", dbname="way_tle_admin")
    assert (
        cluster.value(
            f"SELECT count(*) FROM pg_opclass WHERE opcnamespace = '{SCHEMA}'::regnamespace",
            dbname="way_tle_admin",
        )
        == 0
    )
    figures(
        "pg_tle by a pgtle_admin: installed without operator classes (WARNING), a superuser adds them"
    )


# --- updates ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dist_051(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist-0.5.1")
    subprocess.run(
        [
            sys.executable,
            str(REPO / "managed" / "build.py"),
            "--version",
            "0.5.1",
            "--extra-src",
            str(FIXTURE / "src"),
            "--upgrades",
            str(FIXTURE / "steps"),
            "--out",
            str(out),
        ],
        check=True,
    )
    return out


def catalog(server, db: str) -> list[tuple]:
    """The schema's objects as the catalog describes them."""
    return server.sql(
        f"""SELECT 'function', p.oid::regprocedure::text, pg_get_functiondef(p.oid)
            FROM pg_proc p WHERE p.pronamespace = '{SCHEMA}'::regnamespace AND p.prokind <> 'a'
            UNION ALL SELECT 'aggregate', p.oid::regprocedure::text, NULL
            FROM pg_proc p WHERE p.pronamespace = '{SCHEMA}'::regnamespace AND p.prokind = 'a'
            UNION ALL SELECT 'type', t.typname, t.typlen || ' ' || t.typtype::text || ' ' || coalesce(pg_get_constraintdef(c.oid), '')
            FROM pg_type t LEFT JOIN pg_constraint c ON c.contypid = t.oid
            WHERE t.typnamespace = '{SCHEMA}'::regnamespace
            UNION ALL SELECT 'relation', c.relname, c.relkind::text
            FROM pg_class c WHERE c.relnamespace = '{SCHEMA}'::regnamespace
            UNION ALL SELECT 'operator', o.oid::regoperator::text, o.oprcode::text
            FROM pg_operator o WHERE o.oprnamespace = '{SCHEMA}'::regnamespace
            UNION ALL SELECT 'cast', c.castsource::regtype || ' ' || c.casttarget::regtype, c.castcontext::text
            FROM pg_cast c WHERE c.castfunc IN (SELECT oid FROM pg_proc WHERE pronamespace = '{SCHEMA}'::regnamespace)
            ORDER BY 1, 2, 3""",
        dbname=db,
    )


def updated_and_fresh(server, db: str, fresh: str) -> None:
    assert server.value(f"SELECT {SCHEMA}.pg_flake_sql_version()", dbname=db) == "0.5.1"
    assert (
        server.value(f"SELECT {SCHEMA}.pg_flake_sql_upgrade_probe()", dbname=db) == "reached 0.5.1"
    )
    ours, theirs = catalog(server, db), catalog(server, fresh)
    assert ours == theirs, [x for x in ours if x not in theirs][:5] + [
        x for x in theirs if x not in ours
    ][:5]
    # Generation goes on above the IDs made at 0.5.0.
    with connect(server, db) as conn:
        conn.execute(f"SET search_path = {SCHEMA}")
        for fmt, call in [
            ("sno", "sno_generate()::bytea"),
            ("snowflake", "int8send(snowflake_generate())"),
        ]:
            above = conn.execute(
                f"SELECT {call} > (SELECT id FROM public.made WHERE format = '{fmt}' ORDER BY id DESC LIMIT 1)"
            ).fetchone()[0]
            assert above, fmt


def test_update_psql_file(cluster, dist_051, figures):
    create_database(cluster, "update_psql", "psql")
    generate_some(cluster, "update_psql")
    done = psql(
        cluster,
        "update_psql",
        "-c",
        f"SET pg_flake_sql.schema = '{SCHEMA}'",
        "-f",
        str(dist_051 / "pg_flake_sql.sql"),
    )
    assert "pg_flake_sql 0.5.1 is installed" in done.stderr
    create_database(cluster, "fresh_psql")
    install(cluster, "fresh_psql", "psql", files=dist_051)
    updated_and_fresh(cluster, "update_psql", "fresh_psql")
    figures(
        "psql -f of 0.5.1 over 0.5.0: the catalog of a fresh 0.5.1, generation above 0.5.0's IDs"
    )


def test_update_extension(cluster, dist_051, figures):
    install_extension_files()
    try:
        create_database(cluster, "update_extension", "extension")
        generate_some(cluster, "update_extension")
        install_extension_files(dist_051)
        cluster.sql("ALTER EXTENSION pg_flake_sql UPDATE", dbname="update_extension")
        create_database(cluster, "fresh_extension", "extension")
        updated_and_fresh(cluster, "update_extension", "fresh_extension")
    finally:
        remove_extension_files()
    figures("ALTER EXTENSION pg_flake_sql UPDATE from 0.5.0 to 0.5.1: the catalog of a fresh 0.5.1")


def test_update_pg_tle(cluster, pg_tle, dist_051, figures):
    skip_without_pg_tle(pg_tle)
    create_database(cluster, "update_tle", "pg_tle")
    generate_some(cluster, "update_tle")
    psql(cluster, "update_tle", "-f", str(dist_051 / "pg_flake_sql--pg_tle.sql"))
    cluster.sql("ALTER EXTENSION pg_flake_sql UPDATE", dbname="update_tle")
    create_database(cluster, "fresh_tle")
    cluster.sql("CREATE EXTENSION pg_tle", dbname="fresh_tle")
    install(cluster, "fresh_tle", "pg_tle", files=dist_051)
    updated_and_fresh(cluster, "update_tle", "fresh_tle")
    figures(
        "pg_tle: the 0.5.1 installer over 0.5.0, ALTER EXTENSION UPDATE: the catalog of a fresh 0.5.1"
    )


# --- pgspot ---------------------------------------------------------------------------

PGSPOT_ACCEPTING = [
    "replace",
    "install_extension",
    "install_extension_version_sql",
    "install_update_path",
]


def pgspot(path: Path) -> str:
    command = [str(Path(sys.executable).parent / "pgspot")]
    for f in PGSPOT_ACCEPTING:
        command += ["--sql-accepting", f]
    return subprocess.run([*command, str(path)], capture_output=True, text=True).stdout


def analyzable(text: str) -> str:
    """The file as pgspot's PL/pgSQL parser reads it: it stops at a parameter
    named by a quoted keyword ("time", "interval", the native functions'
    names), so those are renamed here, for the analysis only."""
    return text.replace('"time"', "time_").replace('"interval"', "interval_")


PROBE = """-- pgspot must find this one (no search_path, unqualified length()).
CREATE FUNCTION @extschema@.zz_pgspot_probe(x bytea) RETURNS integer LANGUAGE sql AS $$ SELECT length(x) $$;
"""


def test_pgspot(figures, tmp_path):
    """Every generated file, built with a probe at the end of its sources
    (inside the psql -f file's and the pg_tle installer's quoted scripts):
    pgspot finds the probe, so it read each file to its end, and nothing
    else, and reports 0 errors."""
    if shutil.which("pgspot", path=str(Path(sys.executable).parent)) is None:
        pytest.fail(
            "pgspot is not installed in the tests' environment (scripts/test-managed.sh installs it)"
        )
    sys.path.insert(0, str(REPO / "managed"))
    import build

    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "zz_probe.sql").write_text(PROBE)
    files = build.build(
        build.VERSION, REPO / "managed" / "src", [tmp_path / "probe"], REPO / "managed" / "upgrade"
    )
    checked = {}
    for name, text in files.items():
        if not name.endswith(".sql"):
            continue
        path = tmp_path / name
        path.write_text(analyzable(text))
        out = pgspot(path)
        errors = re.search(r"Errors: (\d+) Warnings: (\d+)", out)
        assert errors, out
        assert "syntax error" not in out and "not a known variable" not in out, (
            f"{name}: {out[-500:]}"
        )
        findings = [line for line in out.splitlines() if re.match(r"PS\d+", line)]
        assert any("zz_pgspot_probe" in line for line in findings), (
            f"{name}: pgspot stopped early: {out[-300:]}"
        )
        assert all("zz_pgspot_probe" in line or "length" in line for line in findings), (
            f"{name}: {findings}"
        )
        assert errors.group(1) == "0", f"{name}: {errors.group(0)}"
        checked[name] = errors.group(0)
    figures(
        f"pgspot over {', '.join(checked)}: 0 errors; each read to its end (its probe found), nothing else found"
    )
