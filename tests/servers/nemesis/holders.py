"""The nemesis's lease holders: application processes that make their own
IDs under leases (``core/examples/lease_writer.rs``,
``tests/servers/lease_writer.py`` as ``test_lease_load.py`` launches them, and
``tests/servers/lease_writer.mjs`` over the npm package),
insert them into the primary's ``h_<format>`` tables and write each to an
``--ids`` file first, which the checker reads.

They reach the writable server of the line through a DSN naming both of its
data directories' ports with ``target_session_attrs=read-write``, so they
follow a promotion. A holder that exits (a server went away, a kill -9) is
started again a second later as a new incarnation with files of its own;
each runs with libfaketime and a clock file of its own, so that its
machine's clock steps while it runs (it must not matter: holders use the
database's time; see ``Holder.command`` for the Python holders' monotonic
clock).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from harness import FAKETIME_LIB

REPO = Path(__file__).resolve().parents[3]
TTL_MS = 2000
LEASE_WRITER_PY = REPO / "tests" / "servers" / "lease_writer.py"
LEASE_WRITER_TS = REPO / "tests" / "servers" / "lease_writer.mjs"
_typescript_built = False


def build_typescript() -> None:
    """The npm package the TypeScript holders use, built once (quick when it is)."""
    global _typescript_built
    if not _typescript_built:
        subprocess.run(
            [str(REPO / "scripts" / "build-typescript.sh")], check=True, stdout=subprocess.DEVNULL
        )
        _typescript_built = True


GO_BUILD = REPO / "clients" / "go" / "build.sh"


def go_writer(_built: list = []) -> str:  # noqa: B006 (built once per run)
    """The Go holder (clients/go/cmd/pgflake-lease-writer), built on first use."""
    if not _built:
        out = subprocess.run(
            [str(GO_BUILD), "pgflake-lease-writer"], check=True, capture_output=True, text=True
        )
        _built.append(out.stdout.strip())
    return _built[0]


# The Java holder (clients/java/src/test/java/io/github/pgflake/tools/LeaseWriter.java).
LEASE_WRITER_JAVA = REPO / "clients" / "java" / "lease-writer.sh"


class Holder:
    """One holder: a kind (rust, python, typescript, go, java), a format, a role; ``oneshot``
    holders (an intruder's) are not started again."""

    def __init__(self, world, name: str, kind: str, fmt: str, role: str, extra=(), oneshot=False):
        self.world = world
        self.name = name
        self.kind = kind
        self.fmt = fmt
        self.role = role
        self.extra = list(extra)
        self.oneshot = oneshot
        self.incarnation = 0
        self.proc: subprocess.Popen | None = None
        self.paused = False
        self.next_start = 0.0
        self.offset = 0.0
        self.dir: Path = world.root / "holders"
        self.clock_file = self.dir / f"{name}.faketime"
        self.set_clock(0.0)
        self.exits: Counter = Counter()
        self.done = False
        if kind == "java":
            # The jar, once, before the run starts (cached: clients/java/build.sh).
            build = REPO / "clients" / "java" / "build.sh"
            subprocess.run([str(build)], check=True, stdout=subprocess.DEVNULL)

    @property
    def label(self) -> str:
        return f"{self.name}.{self.incarnation}"

    def set_clock(self, offset: float) -> None:
        self.offset = offset
        self.dir.mkdir(parents=True, exist_ok=True)
        written = self.clock_file.with_name(self.clock_file.name + ".new")
        written.write_text(f"{offset:+f}s\n")
        os.replace(written, self.clock_file)

    def command(self, seconds: float) -> tuple[list[str], dict]:
        world = self.world
        dsn = (
            f"host=127.0.0.1,127.0.0.1 port={world.cluster.a.port},{world.cluster.b.port}"
            f" dbname=flake user={self.role} target_session_attrs=read-write connect_timeout=3"
            " options='-c statement_timeout=5000'"
        )
        args = [
            *("--dsn", dsn, "--format", self.fmt, "--holder", self.label),
            *("--ttl-ms", str(TTL_MS), "--table", f"h_{self.fmt}"),
            *("--seconds", str(round(seconds))),
            *("--ids", str(self.dir / f"{self.label}.{self.fmt}.ids")),
        ]
        env = {
            "LD_PRELOAD": FAKETIME_LIB,
            "FAKETIME_TIMESTAMP_FILE": str(self.clock_file),
            "FAKETIME_NO_CACHE": "1",
        }
        if self.kind == "rust":
            # Only the real-time clock steps (Instant, the holder's clock,
            # does not), as when a machine's clock is set.
            env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            return [str(world.rust_writer), *args], env
        if self.kind == "typescript":
            # Node's performance.now() and timers use CLOCK_MONOTONIC: only the
            # real-time clock steps, as for the Rust holders.
            env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            build_typescript()
            return ["node", str(LEASE_WRITER_TS), *args], env
        if self.kind == "go":
            # Go reads its clocks from the vDSO, not through libc, so
            # libfaketime moves neither: clock_holder changes nothing for a
            # Go holder, whose generator reads no wall clock anyway.
            return [go_writer(), *args], env
        if self.kind == "java":
            # As the Python holders: with FAKETIME_DONT_FAKE_MONOTONIC, libfaketime 0.9.10
            # breaks the JVM's timed waits (LockSupport.parkNanos returns at once).
            return [str(LEASE_WRITER_JAVA), *args], env
        # libfaketime 0.9.10 with FAKETIME_DONT_FAKE_MONOTONIC makes Python's
        # time.sleep (an absolute CLOCK_MONOTONIC clock_nanosleep) fail with
        # EINVAL: the Python holders' monotonic clock steps with their
        # real-time one. Harsher than a machine's clock, and still within
        # the promise, which rests on units, not on any clock.
        env["PYTHONPATH"] = str(REPO / "python")
        return [sys.executable, str(LEASE_WRITER_PY), *args, *self.extra], env

    def start(self, seconds: float) -> None:
        self.incarnation += 1
        command, env = self.command(seconds)
        out = self.dir / f"{self.label}.out"
        err = self.dir / f"{self.label}.err"
        self.proc = subprocess.Popen(
            command,
            stdout=out.open("w"),
            stderr=err.open("w"),
            env={**os.environ, **env},
        )

    def poll(self) -> None:
        if self.proc is None or self.proc.poll() is None:
            return
        code = self.proc.returncode
        self.exits[code] += 1
        self.proc = None
        self.next_start = time.monotonic() + 1.0
        if self.oneshot:
            self.done = True

    def maintain(self, seconds_left: float) -> None:
        self.poll()
        if (
            self.proc is None
            and not self.done
            and not self.paused
            and time.monotonic() >= self.next_start
            and seconds_left > 5
        ):
            self.start(seconds_left)

    def signal(self, sig: int) -> bool:
        if self.proc is None or self.proc.poll() is not None:
            return False
        try:
            self.proc.send_signal(sig)
        except ProcessLookupError:
            return False
        return True

    def lease_ids(self) -> list[int]:
        """The leases this incarnation has taken (its stdout's JSON lines)."""
        path = self.dir / f"{self.label}.out"
        found = []
        try:
            lines = path.read_text().splitlines()
        except FileNotFoundError:
            return found
        for line in lines:
            try:
                found.append(int(json.loads(line)["lease_id"]))
            except (ValueError, KeyError, TypeError):
                pass
        return found

    def stop(self) -> None:
        self.done = True
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.poll()


def python_holder_supports(option: str) -> bool:
    """Whether tests/servers/lease_writer.py has ``option`` (threads and
    fork come with issue 36 item 1)."""
    return option in LEASE_WRITER_PY.read_text()
