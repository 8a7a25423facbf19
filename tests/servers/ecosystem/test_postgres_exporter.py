"""pg_flake's statistics scraped by Prometheus's postgres_exporter
(docs/operations.md "Metrics"; issue 40): Debian's
prometheus-postgres-exporter (0.11), a program of the machine, so every
version, run with the query file docs/postgres_exporter.yaml against a live
server, preloaded and not.

The server generates IDs of every coordination-based format, is refused
twice (a node that does not fit sno's field: 55000) and grants a lease; the
exporter's /metrics must then have loaded the file without error
(``pg_exporter_user_queries_load_error`` 0), serve every metric the file
declares, and report what the server did: the IDs issued, the refusals by
SQLSTATE, no node problem, the lease held.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from components import DB, flake_server, program

from conftest import BASE_PORT

EXPORTER_PORT = BASE_PORT + 18
QUERY_FILE = Path(__file__).resolve().parents[3] / "docs" / "postgres_exporter.yaml"
ISSUED = {
    "sno": "sno_generate()",
    "siq": "siq_generate('event')",
    "snowflake": "snowflake_generate()",
    "kuid64": "kuid64_generate()",
    "kuid96": "kuid96_generate()",
}
ROWS = 500


def declared_metrics(path: Path) -> set[str]:
    """``<query>_<column>`` for every non-label column of the query file:
    its top-level keys are the queries, ``- column:`` lines their columns,
    each followed by its ``usage:``."""
    names: set[str] = set()
    query = column = None
    for line in path.read_text().splitlines():
        if re.match(r"^[a-z_]+:\s*$", line):
            query = line.rstrip(":").strip()
        elif found := re.match(r"^\s+- ([a-z_]+):\s*$", line):
            column = found.group(1)
        elif found := re.match(r'^\s+usage:\s*"(\w+)"', line):
            if found.group(1) != "LABEL":
                names.add(f"{query}_{column}")
    return names


def scrape(port: int) -> list[tuple[str, dict[str, str], float]]:
    """The exporter's samples: (name, labels, value)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = []
    for line in text.splitlines():
        found = re.match(r"^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$", line)
        if found:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', found.group(2) or ""))
            samples.append((found.group(1), labels, float(found.group(3))))
    return samples


def value_of(samples, name: str, **labels) -> float | None:
    for sample_name, sample_labels, value in samples:
        if sample_name == name and all(sample_labels.get(k) == v for k, v in labels.items()):
            return value
    return None


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not_preloaded"])
def test_exporter_serves_the_query_file(servers, preload, pg_major, figures, tmp_path):
    exporter_binary = program("prometheus-postgres-exporter")
    server = flake_server(servers, "exported", preload=preload)
    for generate in ISSUED.values():
        server.sql(f"SELECT count(DISTINCT {generate}) FROM generate_series(1, {ROWS})", dbname=DB)
    with server.connect(DB) as conn:
        conn.execute("SET pg_flake.node = 256")
        for _ in range(2):
            with pytest.raises(Exception) as refused:
                conn.execute("SELECT sno_generate()")
            assert getattr(refused.value, "sqlstate", None) == "55000"
    server.sql("SELECT count(*) FROM pg_flake_lease('sno', 'exporter test')", dbname=DB)

    log = tmp_path / "exporter.log"
    environment = dict(
        os.environ,
        DATA_SOURCE_NAME=f"postgresql://postgres@127.0.0.1:{server.port}/{DB}?sslmode=disable",
    )
    with log.open("w") as output:
        exporter = subprocess.Popen(
            [
                exporter_binary,
                f"--web.listen-address=127.0.0.1:{EXPORTER_PORT}",
                f"--extend.query-path={QUERY_FILE}",
                "--disable-default-metrics",
                "--disable-settings-metrics",
            ],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        samples = None
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                samples = scrape(EXPORTER_PORT)
                if value_of(samples, "pg_flake_issued", format="sno") is not None:
                    break
            except OSError:
                pass
            time.sleep(0.3)
        assert samples is not None, log.read_text()[-2000:]
    finally:
        exporter.terminate()
        exporter.wait(timeout=10)

    load_errors = [v for n, _, v in samples if n == "pg_exporter_user_queries_load_error"]
    assert load_errors and all(v == 0 for v in load_errors), (load_errors, log.read_text())
    served = {name for name, _, _ in samples}
    missing = declared_metrics(QUERY_FILE) - served
    assert not missing, f"declared but not served: {sorted(missing)}"
    for name in ISSUED:
        issued = value_of(samples, "pg_flake_issued", format=name)
        assert issued is not None and issued >= ROWS, (name, issued)
    assert value_of(samples, "pg_flake_refusal_total", format="sno", sqlstate="55000") == 2
    assert value_of(samples, "pg_flake_refusals", format="sno") == 2
    assert value_of(samples, "pg_flake_node_problem", format="sno") == 0
    assert value_of(samples, "pg_flake_lease_held", format="sno") == 1
    figures(
        f"PostgreSQL {pg_major} ({'preloaded' if preload else 'not preloaded'}):"
        f" postgres_exporter served {len(declared_metrics(QUERY_FILE))} pg_flake metrics;"
        f' pg_flake_issued{{format="sno"}} {value_of(samples, "pg_flake_issued", format="sno"):g},'
        ' pg_flake_refusal_total{format="sno",sqlstate="55000"} 2'
    )
