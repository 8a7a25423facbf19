"""What the managed suite's tests share (``make test-managed``, docs/managed.md):
the generated files of pg_flake_sql (managed/dist), psql against a server,
and databases holding each edition, beside the native extension where a
test compares them.

The editions, as a test names them:
- ``psql``: the domain edition installed by ``psql -f pg_flake_sql.sql``;
- ``extension``: the domain edition by ``CREATE EXTENSION pg_flake_sql`` from
  the extension files (copied into the PostgreSQL's extension directory);
- ``pg_tle``: the pg_tle edition by ``pg_flake_sql--pg_tle.sql`` and
  ``CREATE EXTENSION``, where pg_tle is installed (scripts/pg-tle-build.sh).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from harness import PG_BIN, Server

REPO = Path(__file__).resolve().parents[3]
DIST = REPO / "managed" / "dist"
INSTALL_FILE = DIST / "pg_flake_sql.sql"
TLE_FILE = DIST / "pg_flake_sql--pg_tle.sql"
SCHEMA = "flake"
VECTORS = REPO / "tests" / "vectors"


def sharedir() -> Path:
    out = subprocess.run(
        [str(PG_BIN / "pg_config"), "--sharedir"], check=True, capture_output=True, text=True
    )
    return Path(out.stdout.strip())


def has_pg_tle() -> bool:
    return (sharedir() / "extension" / "pg_tle.control").exists()


def has_pgcrypto() -> bool:
    """Whether this PostgreSQL has pgcrypto, which the edition's public
    identities need (every managed service has it; the PyPI builds of 16
    and 18 here do not)."""
    return (sharedir() / "extension" / "pgcrypto.control").exists()


def create_pgcrypto(server: Server, db: str) -> None:
    """pgcrypto in ``db`` where this PostgreSQL has it."""
    if has_pgcrypto():
        server.sql("CREATE EXTENSION IF NOT EXISTS pgcrypto", dbname=db)


def skip_without_pgcrypto() -> None:
    import pytest

    if not has_pgcrypto():
        pytest.skip(
            "pgcrypto is not in this PostgreSQL build: public identities are not tested here"
        )


def version() -> str:
    text = INSTALL_FILE.read_text()
    return text.split("target_version constant text := '", 1)[1].split("'", 1)[0]


def remove_extension_files() -> None:
    """pg_flake_sql's extension files out of the extension directory: pg_tle
    refuses a TLE whose name a file-based extension has."""
    for old in (sharedir() / "extension").glob("pg_flake_sql*"):
        old.unlink()


def install_extension_files(directory: Path = DIST) -> None:
    """The extension files of pg_flake_sql into the PostgreSQL's extension
    directory (as `make install` puts pg_flake's), replacing earlier ones;
    remove_extension_files() takes them out again."""
    target = sharedir() / "extension"
    remove_extension_files()
    for f in directory.glob("pg_flake_sql*"):
        if f.name.endswith("--pg_tle.sql") or f.name == "pg_flake_sql.sql":
            continue
        shutil.copyfile(f, target / f.name)
        os.chmod(target / f.name, 0o644)


def psql(
    server: Server,
    db: str,
    *args: str,
    user: str = "postgres",
    sql: str | None = None,
    check: bool = True,
    env: dict | None = None,
) -> subprocess.CompletedProcess:
    """psql -X against ``db`` as ``user``, stopping at the first error;
    ``sql`` on standard input."""
    command = [
        str(PG_BIN / "psql"),
        *("-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(server.port)),
        *("-U", user, "-d", db),
        *args,
    ]
    done = subprocess.run(
        command,
        input=sql,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    if check and done.returncode != 0:
        raise AssertionError(f"psql {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def install(
    server: Server,
    db: str,
    edition: str,
    schema: str = SCHEMA,
    user: str = "postgres",
    files: Path = DIST,
    check: bool = True,
) -> subprocess.CompletedProcess:
    """pg_flake_sql into ``schema`` of ``db`` the edition's way, as ``user``
    (``check``: fail on an error; for psql -f only)."""
    if edition == "psql":
        return psql(
            server,
            db,
            "-c",
            f"SET pg_flake_sql.schema = '{schema}'",
            "-f",
            str(files / "pg_flake_sql.sql"),
            user=user,
            check=check,
        )
    if edition == "extension":
        return psql(
            server,
            db,
            user=user,
            sql=f"CREATE SCHEMA IF NOT EXISTS {schema};\n"
            f"CREATE EXTENSION pg_flake_sql SCHEMA {schema};\n",
        )
    if edition == "pg_tle":
        psql(server, db, "-f", str(files / "pg_flake_sql--pg_tle.sql"), user=user)
        return psql(
            server,
            db,
            user=user,
            sql=f"CREATE SCHEMA IF NOT EXISTS {schema};\n"
            f"CREATE EXTENSION pg_flake_sql SCHEMA {schema};\n",
        )
    raise ValueError(edition)


def create_database(
    server: Server, db: str, edition: str | None = None, native: bool = False, schema: str = SCHEMA
) -> None:
    """A fresh database with pg_flake_sql (``edition``) in ``schema`` and,
    with ``native``, the native extension in the schema ``native``."""
    server.sql(f"DROP DATABASE IF EXISTS {db}")
    server.sql(f"CREATE DATABASE {db}")
    if native:
        server.sql("CREATE SCHEMA native; CREATE EXTENSION pg_flake SCHEMA native", dbname=db)
    if edition == "pg_tle":
        server.sql("CREATE EXTENSION pg_tle", dbname=db)
    if edition:
        install(server, db, edition, schema)


def sqlstate_of(conn, query: str, params=None) -> str | None:
    """The SQLSTATE ``query`` fails with, None when it succeeds (in a
    savepoint: the connection goes on)."""
    import psycopg

    try:
        with conn.transaction():
            conn.execute(query, params)
    except psycopg.Error as e:
        return e.sqlstate
    return None


def connect(server: Server, db: str, user: str = "postgres"):
    """An autocommit connection to ``db`` as ``user``."""
    import psycopg

    return psycopg.connect(
        host="127.0.0.1", port=server.port, user=user, dbname=db, autocommit=True
    )
