#!/usr/bin/env python3
"""Assembles pg_flake_sql, the edition for managed PostgreSQL
(docs/managed.md), from its sources: the three files a user takes, one per
way in.

  managed/dist/pg_flake_sql.sql            psql -f: installs into a schema
                                           (or upgrades what is there)
  managed/dist/pg_flake_sql.control        CREATE EXTENSION from files
  managed/dist/pg_flake_sql--V.sql           (and pg_flake_sql--A--B.sql)
  managed/dist/pg_flake_sql--pg_tle.sql    pg_tle: pgtle.install_extension

Two editions come from one set of sources (managed/src): the domain edition
(the five native types as domains over bytea: psql -f and the extension
files) and the pg_tle edition (the five types as pg_tle base types). They
share every file but the one that makes the types (types/domain.sql,
types/pg_tle.sql).

Upgrades (docs/managed.md "Upgrades"): managed/upgrade/ (a directory <from>--<to> each) holds the
scripts from version A to B, applied in file-name order; a file named
*.domain.sql goes only into the domain edition's, *.pg_tle.sql only into
the pg_tle edition's. Each becomes pg_flake_sql--A--B.sql, an update path of
the pg_tle installer, and a step of the psql -f file.

    python3 managed/build.py            write managed/dist/
    python3 managed/build.py --check    exit 1 if managed/dist/ is not what the sources make
    python3 managed/build.py --version 0.5.1 --extra-src DIR --upgrades DIR --out DIR
                                        a synthetic version (the upgrade test)

Needs only python3.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NAME = "pg_flake_sql"
COMMENT = "pg_flake without a library: distributed, time-sortable IDs in SQL and PL/pgSQL"

# The order of the sources: helpers, the counters, the codecs (which the
# pg_tle types' I/O needs), the types, the typed functions, the rest.
FORMATS = ["sno", "siq", "distributed_id", "distributed_id128", "alphanumeric", "public_id",
           "flaxid", "kuid", "snowflake"]


def manifest(edition: str, src: Path) -> list[Path]:
    files = [src / "common.sql", src / "generation.sql"]
    files += [src / "codec" / f"{f}.sql" for f in FORMATS if (src / "codec" / f"{f}.sql").exists()]
    files.append(src / "types" / f"{edition}.sql")
    files += [src / "api" / f"{f}.sql" for f in FORMATS if (src / "api" / f"{f}.sql").exists()]
    files += [src / f for f in ("state.sql", "leases.sql") if (src / f).exists()]
    # Edition-only files (casts.pg_tle.sql: casts a domain cannot have).
    files += sorted(src.glob(f"*.{edition}.sql"))
    return files


# The version of this round (one version across the project, docs/operations.md
# "Versions"); the native extension's is Cargo.toml's.
VERSION = "0.5.0"


def relative(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


TYPES = ("sno", "siq", "flaxid", "kuid96", "distributed_id")


def pg_tle_casts(text: str) -> str:
    """The pg_tle edition's way from bytes to a type: the shared sources
    write `(bytes)::@extschema@.sno`, a domain's cast (its CHECK, nothing
    called); pg_tle makes no bytea-to-type cast of its own, and the one
    types/pg_tle.sql declares checks the bytes first, so each such cast of
    a parenthesized expression becomes `@extschema@.sno_out(bytes)::@extschema@.sno`:
    the text, which the type's input reads back."""
    out = []
    pos = 0
    pattern = re.compile(r"\)::@extschema@\.(" + "|".join(TYPES) + r")\b")
    for m in pattern.finditer(text):
        depth = 0
        i = m.start()
        while i >= 0:
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                break
            i -= 1
        if i < 0 or (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.\"")):
            continue  # a function call's parentheses, not an expression's
        out.append(text[pos:i])
        out.append(f"@extschema@.{m.group(1)}_out{text[i:m.start() + 1]}")
        pos = m.start() + 1
    out.append(text[pos:])
    return "".join(out)


# The native extension's files whose function bodies the edition takes by
# @body:NAME@ where they are the same (docs/development.md "pg_flake_sql"):
# pg_flake_release is one body in both; the others of the leases differ
# where the edition has no C helpers (managed/src/leases.sql says where).
NATIVE_BODIES = [ROOT / "sql" / "lease_functions.sql"]


def bodies(texts: list[str]) -> dict[str, str]:
    """The body (between AS $tag$ and $tag$) of every function of the
    sources, by name; the first of a name wins."""
    found = {}
    pattern = re.compile(r"CREATE FUNCTION @extschema@\.(\w+)\(.*?\bAS \$(\w*)\$(.*?)\$\2\$", re.S)
    for text in texts:
        for m in pattern.finditer(text):
            if not re.fullmatch(r"@body:\w+@", m.group(3)):  # a reference, not a body
                found.setdefault(m.group(1), m.group(3))
    return found


def with_bodies(text: str, known: dict[str, str]) -> str:
    """`AS $$@body:sno_out@$$` takes sno_out's body: the domain edition's
    sno_to_text is the codec itself, on the domain, rather than a second
    function call (each costs a search_path switch, docs/BENCHMARKS.md)."""

    def body(m):
        if m.group(1) not in known:
            sys.exit(f"build.py: @body:{m.group(1)}@ names no function of the sources")
        return known[m.group(1)]

    return re.sub(r"@body:(\w+)@", body, text)


def assemble(files: list[Path], version: str, edition: str) -> str:
    texts = [f.read_text() for f in files]
    known = bodies(texts + [f.read_text() for f in NATIVE_BODIES])
    parts = []
    for f, text in zip(files, texts):
        text = with_bodies(text, known)
        text = text.replace("@version@", version).replace("@edition@", edition)
        if edition == "pg_tle":
            text = pg_tle_casts(text)
        parts.append(f"-- ==== {relative(f)} ====\n\n{text.rstrip()}\n")
    return "\n".join(parts)


def upgrade_steps(upgrades: Path) -> list[tuple[str, str, Path]]:
    """(from, to, directory) of every upgrade, in the order they chain."""
    steps = []
    if upgrades.is_dir():
        for d in sorted(upgrades.iterdir()):
            m = re.fullmatch(r"(\d+\.\d+\.\d+)--(\d+\.\d+\.\d+)", d.name)
            if d.is_dir() and m:
                steps.append((m.group(1), m.group(2), d))
    key = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    return sorted(steps, key=lambda s: key(s[0]))


VERSION_FUNCTION = """
-- Every update ends with the version it reaches (build.py adds this).
CREATE OR REPLACE FUNCTION @extschema@.pg_flake_sql_version() RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT '{version}'::text $$;
"""


def upgrade_script(directory: Path, version: str, edition: str) -> str:
    other = "pg_tle" if edition == "domain" else "domain"
    files = [f for f in sorted(directory.glob("*.sql")) if not f.name.endswith(f".{other}.sql")]
    return assemble(files, version, edition) + VERSION_FUNCTION.format(version=version)


def check_dollar_quote(script: str, tag: str) -> None:
    if f"${tag}$" in script:
        sys.exit(f"build.py: the sources contain ${tag}$, which quotes them in the installers")


HEADER = """\
-- {title}
-- Generated by managed/build.py from managed/src (do not edit; edit the
-- sources and run python3 managed/build.py). docs/managed.md says how to
-- install it, what it offers and how it differs from the native extension.
"""


def extension_files(version: str, domain: str, steps, upgrades_domain) -> dict[str, str]:
    control = (
        f"# {NAME}: {COMMENT} (docs/managed.md).\n"
        f"# Generated by managed/build.py.\n"
        f"comment = '{COMMENT}'\n"
        f"default_version = '{version}'\n"
        "relocatable = false\n"
        "superuser = true\n"
        "trusted = false\n"
    )
    out = {f"{NAME}.control": control}
    out[f"{NAME}--{version}.sql"] = HEADER.format(
        title=f"{NAME} {version}: the extension script (CREATE EXTENSION {NAME})") + "\n" + domain
    for (a, b, _), script in zip(steps, upgrades_domain):
        out[f"{NAME}--{a}--{b}.sql"] = HEADER.format(
            title=f"{NAME}: the update from {a} to {b} (ALTER EXTENSION {NAME} UPDATE)") + "\n" + script
    return out


def psql_file(version: str, domain: str, steps, upgrades_domain) -> str:
    check_dollar_quote(domain, "pg_flake_sql")
    lines = [HEADER.format(title=f"{NAME} {version}: the install and upgrade file for psql -f"), """\
-- Installs pg_flake_sql into one schema of the current database, or updates
-- an earlier version installed there the same way, in one transaction. It
-- needs no superuser: CREATE on that schema (or on the database, for a
-- schema that does not exist yet).
--
--   psql -c "SET pg_flake_sql.schema = 'flake'" -f pg_flake_sql.sql
--
-- The schema: the setting pg_flake_sql.schema where set (as above, or
-- PGOPTIONS='-c pg_flake_sql.schema=flake', or SET before pasting this file
-- into a SQL editor); else the current schema (the first schema of
-- search_path that exists), as CREATE EXTENSION picks it.
""", "DO $pg_flake_sql_install$", "DECLARE",
        f"    target_version constant text := '{version}';",
        "    setting text := pg_catalog.current_setting('pg_flake_sql.schema', true);",
        "    target_schema text := CASE WHEN setting IS NULL OR setting OPERATOR(pg_catalog.=) ''",
        "                               THEN pg_catalog.current_schema() ELSE setting END;",
        "    installed text;",
        "BEGIN",
        "    IF target_schema IS NULL THEN",
        "        RAISE EXCEPTION 'pg_flake_sql: no schema to install into' USING ERRCODE = '3F000',",
        "            HINT = 'SET pg_flake_sql.schema = ''name'' first, or put an existing schema in search_path.';",
        "    END IF;",
        "    -- A temporary schema would take the counters away with the session.",
        "    IF target_schema OPERATOR(pg_catalog.~) '^pg_(temp|toast)' THEN",
        "        RAISE EXCEPTION 'pg_flake_sql cannot be installed into the schema %', target_schema",
        "            USING ERRCODE = '3F000', HINT = 'Name a permanent schema with SET pg_flake_sql.schema.';",
        "    END IF;",
        "    IF EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pg_flake_sql') THEN",
        "        RAISE EXCEPTION 'pg_flake_sql is installed in this database as an extension' USING ERRCODE = '55000',",
        "            HINT = 'Update it with ALTER EXTENSION pg_flake_sql UPDATE.';",
        "    END IF;",
        "    IF pg_catalog.to_regnamespace(pg_catalog.quote_ident(target_schema)) IS NULL THEN",
        "        EXECUTE pg_catalog.format('CREATE SCHEMA %I', target_schema);",
        "    END IF;",
        "    IF pg_catalog.to_regprocedure(pg_catalog.format('%I.pg_flake_sql_version()', target_schema)) IS NOT NULL THEN",
        "        EXECUTE pg_catalog.format('SELECT %I.pg_flake_sql_version()', target_schema) INTO installed;",
        "    END IF;",
        "    IF installed IS NULL THEN",
        "        EXECUTE pg_catalog.replace($pg_flake_sql$",
        domain.rstrip(),
        "$pg_flake_sql$, '@extschema@', pg_catalog.quote_ident(target_schema));",
        "        RAISE NOTICE 'pg_flake_sql % installed in schema %', target_version, target_schema;",
        "        RETURN;",
        "    END IF;",
    ]
    for (a, b, _), script in zip(steps, upgrades_domain):
        check_dollar_quote(script, "pg_flake_sql")
        lines += [
            f"    IF installed OPERATOR(pg_catalog.=) '{a}' THEN",
            "        EXECUTE pg_catalog.replace($pg_flake_sql$",
            script.rstrip(),
            "$pg_flake_sql$, '@extschema@', pg_catalog.quote_ident(target_schema));",
            f"        installed := '{b}';",
            "    END IF;",
        ]
    lines += [
        "    IF installed OPERATOR(pg_catalog.=) target_version THEN",
        "        RAISE NOTICE 'pg_flake_sql % is installed in schema %', target_version, target_schema;",
        "    ELSE",
        "        RAISE EXCEPTION 'pg_flake_sql: no update from version % to %', installed, target_version",
        "            USING ERRCODE = '55000';",
        "    END IF;",
        "END",
        "$pg_flake_sql_install$;",
    ]
    return "\n".join(lines) + "\n"


def pg_tle_file(version: str, tle: str, steps, upgrades_tle) -> str:
    check_dollar_quote(tle, "pg_flake_sql")
    installed = "SELECT FROM pgtle.available_extensions() e WHERE e.name OPERATOR(pg_catalog.=) 'pg_flake_sql'"
    parts = [HEADER.format(title=f"{NAME} {version}: the pg_tle installer"), f"""\
-- Makes pg_flake_sql {version} available to CREATE EXTENSION in this database,
-- through pg_tle (which must be installed: CREATE EXTENSION pg_tle, with
-- pg_tle in shared_preload_libraries). Run it as a member of pgtle_admin:
--
--   psql -f pg_flake_sql--pg_tle.sql
--   CREATE EXTENSION pg_flake_sql SCHEMA flake;   -- or ALTER EXTENSION pg_flake_sql UPDATE
--
-- Where an earlier version is available already, this adds {version} and the
-- update paths to it, and makes {version} the default.

SELECT pgtle.install_extension('{NAME}', '{version}', '{COMMENT}', $pg_flake_sql$
{tle.rstrip()}
$pg_flake_sql$)
WHERE NOT EXISTS ({installed});

SELECT pgtle.install_extension_version_sql('{NAME}', '{version}', $pg_flake_sql$
{tle.rstrip()}
$pg_flake_sql$)
WHERE EXISTS ({installed})
  AND NOT EXISTS (SELECT FROM pgtle.available_extension_versions() v
                  WHERE v.name OPERATOR(pg_catalog.=) 'pg_flake_sql'
                    AND v.version OPERATOR(pg_catalog.=) '{version}');
"""]
    for (a, b, _), script in zip(steps, upgrades_tle):
        check_dollar_quote(script, "pg_flake_sql")
        parts.append(f"""
SELECT pgtle.install_update_path('{NAME}', '{a}', '{b}', $pg_flake_sql$
{script.rstrip()}
$pg_flake_sql$)
WHERE EXISTS (SELECT FROM pgtle.available_extension_versions() v
              WHERE v.name OPERATOR(pg_catalog.=) 'pg_flake_sql' AND v.version OPERATOR(pg_catalog.=) '{a}')
  AND NOT EXISTS (SELECT FROM pgtle.extension_update_paths('pg_flake_sql') p
                  WHERE p.source OPERATOR(pg_catalog.=) '{a}' AND p.target OPERATOR(pg_catalog.=) '{b}'
                    AND p.path IS NOT NULL);
""")
    parts.append(f"""
SELECT pgtle.set_default_version('{NAME}', '{version}')
WHERE EXISTS (SELECT FROM pgtle.available_extensions() e
              WHERE e.name OPERATOR(pg_catalog.=) 'pg_flake_sql'
                AND e.default_version OPERATOR(pg_catalog.<>) '{version}');
""")
    return "".join(parts)


def build(version: str, src: Path, extra_src: list[Path], upgrades: Path) -> dict[str, str]:
    out = {}
    scripts = {}
    for edition in ("domain", "pg_tle"):
        files = manifest(edition, src)
        for extra in extra_src:
            files += sorted(p for p in extra.glob("*.sql")
                            if not p.name.endswith(".pg_tle.sql" if edition == "domain" else ".domain.sql"))
        scripts[edition] = assemble(files, version, edition)
    steps = upgrade_steps(upgrades)
    up_domain = [upgrade_script(d, b, "domain") for _, b, d in steps]
    up_tle = [upgrade_script(d, b, "pg_tle") for _, b, d in steps]
    out.update(extension_files(version, scripts["domain"], steps, up_domain))
    out[f"{NAME}.sql"] = psql_file(version, scripts["domain"], steps, up_domain)
    out[f"{NAME}--pg_tle.sql"] = pg_tle_file(version, scripts["pg_tle"], steps, up_tle)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the output directory instead of writing it")
    parser.add_argument("--version", default=None, help="the version (default: Cargo.toml's)")
    parser.add_argument("--src", type=Path, default=HERE / "src")
    parser.add_argument("--extra-src", type=Path, action="append", default=[],
                        help="a directory of more sources, appended (tests)")
    parser.add_argument("--upgrades", type=Path, default=HERE / "upgrade")
    parser.add_argument("--out", type=Path, default=HERE / "dist")
    args = parser.parse_args()
    files = build(args.version or VERSION, args.src, args.extra_src, args.upgrades)
    if args.check:
        stale = sorted(name for name, text in files.items()
                       if not (args.out / name).exists() or (args.out / name).read_text() != text)
        extra = sorted(p.name for p in args.out.glob(f"{NAME}*")
                       if p.name not in files) if args.out.is_dir() else []
        if stale or extra:
            print(f"managed/build.py --check: {relative(args.out)} is not what the sources make: "
                  f"{', '.join(stale + extra)}; run python3 managed/build.py", file=sys.stderr)
            return 1
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob(f"{NAME}*"):
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        (args.out / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
