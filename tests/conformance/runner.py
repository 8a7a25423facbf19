#!/usr/bin/env python3
"""The conformance runner (tests/conformance/PROTOCOL.md): every vector of
tests/vectors/*.jsonl, as requests to each language's adapter, and every
answer compared with the vectors. A language that disagrees on one vector
fails; exit status 1 then.

    runner.py --adapter rust=target/debug/examples/conformance \\
              --adapter python="python3 tests/conformance/adapters/python_adapter.py"
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checks import VECTORS, Check, derive

PROTOCOL = 1
TIMEOUT_S = 120
_INTEGER = re.compile(r"-?[0-9]+")


def same(expected, answer) -> bool:
    """Equality on the wire's terms: an integer may come as a number or a decimal string."""
    if expected is None or isinstance(expected, bool):
        return answer is expected
    if isinstance(expected, int):
        if isinstance(answer, bool):
            return False
        if isinstance(answer, str) and _INTEGER.fullmatch(answer):
            return int(answer) == expected
        return isinstance(answer, int) and answer == expected
    if isinstance(expected, dict):
        return isinstance(answer, dict) and all(
            same(value, answer.get(key, _MISSING)) for key, value in expected.items()
        )
    return answer == expected


_MISSING = object()


def verdict(check: Check, answer: dict) -> str | None:
    """None when the answer is right; else what is wrong ("unsupported" for a gap)."""
    if "unsupported" in answer:
        return "unsupported"
    outcome, expected = check.expect
    if outcome == "error":
        if "error" not in answer:
            return f"expected an error with SQLSTATE {'/'.join(expected)}, got {answer}"
        state = (answer["error"] or {}).get("sqlstate")
        if state not in expected:
            return f"expected SQLSTATE {'/'.join(expected)}, got {answer['error']}"
        return None
    if "ok" not in answer:
        return f"expected {expected}, got {answer}"
    wrong = {
        k: answer["ok"].get(k, "<missing>")
        for k, v in expected.items()
        if not same(v, answer["ok"].get(k, _MISSING))
    }
    if wrong:
        return f"expected {expected}, got {wrong}"
    return None


def run_adapter(name: str, command: str, checks: list[Check]) -> tuple[dict, list[dict]]:
    """The adapter's hello answer and its answers, one per check, in order."""
    requests = [{"id": 0, "type": "", "op": "hello", "args": {}}]
    requests += [check.request(i + 1) for i, check in enumerate(checks)]
    stdin = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    try:
        done = subprocess.run(
            shlex.split(command),
            input=stdin.encode(),
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AdapterBroken(f"no end after {TIMEOUT_S} s") from None
    except OSError as error:
        raise AdapterBroken(f"cannot start {command!r}: {error}") from None
    stderr = done.stderr.decode(errors="replace").strip()
    if done.returncode != 0:
        raise AdapterBroken(f"exit status {done.returncode}; stderr: {stderr[-2000:]}")
    lines = done.stdout.decode().splitlines()
    if len(lines) != len(requests):
        raise AdapterBroken(
            f"{len(lines)} answers to {len(requests)} requests; stderr: {stderr[-2000:]}"
        )
    answers = []
    for i, line in enumerate(lines):
        try:
            answer = json.loads(line)
        except ValueError:
            raise AdapterBroken(f"answer {i + 1} is not JSON: {line[:200]!r}") from None
        if not isinstance(answer, dict) or answer.get("id") != i:
            raise AdapterBroken(f"answer {i + 1} is out of order or has no id: {line[:200]!r}")
        answers.append(answer)
    hello = answers[0].get("ok") or {}
    if hello.get("protocol") != PROTOCOL:
        raise AdapterBroken(f"hello answered {answers[0]}; expected protocol {PROTOCOL}")
    return hello, answers[1:]


class AdapterBroken(Exception):
    pass


def report(name: str, command: str, checks: list[Check], show: int) -> bool:
    started = time.monotonic()
    try:
        hello, answers = run_adapter(name, command, checks)
    except AdapterBroken as error:
        print(f"  {name:<11} BROKEN: {error}")
        return False
    failed, uncovered = [], []
    for check, answer in zip(checks, answers):
        wrong = verdict(check, answer)
        if wrong == "unsupported" and check.optional:
            uncovered.append(check)
        elif wrong is not None:
            failed.append((check, answer, wrong))
    passed = len(checks) - len(failed) - len(uncovered)
    summary = f"{passed} passed, {len(failed)} failed"
    if uncovered:
        ops = sorted({f"{c.type}.{c.op}" for c in uncovered})
        summary += f", {len(uncovered)} optional not covered ({', '.join(ops)})"
    package = hello.get("package", "?")
    print(f"  {name:<11} {summary}  [{package}; {time.monotonic() - started:.1f} s]")
    for check, _answer, wrong in failed[:show]:
        request = json.dumps({"type": check.type, "op": check.op, "args": check.args})
        print(f"    FAIL {check.file}.jsonl {check.vector}: {request}\n         {wrong}")
    if len(failed) > show:
        print(f"    … and {len(failed) - show} more (--show N)")
    return not failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--adapter",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="an adapter to check (any number); COMMAND is split like a shell's",
    )
    parser.add_argument("--vectors", type=Path, default=VECTORS, help="the vector directory")
    parser.add_argument("--dump", type=Path, help="write each request and its expected answer")
    parser.add_argument("--show", type=int, default=20, help="failures shown per adapter")
    args = parser.parse_args()

    checks, not_sent, vectors = derive(args.vectors)
    if args.dump:
        with args.dump.open("w") as out:
            for i, check in enumerate(checks):
                outcome, expected = check.expect
                out.write(
                    json.dumps(
                        {
                            "vector": f"{check.file}.jsonl {check.vector}",
                            "request": check.request(i + 1),
                            "expect": {outcome: expected},
                            "optional": check.optional,
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
    print(
        f"conformance: {len(checks)} checks from {vectors} vectors in {args.vectors}"
        f" ({len(not_sent)} generator scenarios not sent: PROTOCOL.md)"
    )
    if not args.adapter and not args.dump:
        parser.error("give at least one --adapter NAME=COMMAND (or --dump FILE)")
    ok = True
    for spec in args.adapter:
        name, sep, command = spec.partition("=")
        if not sep or not command:
            parser.error(f"--adapter {spec!r}: expected NAME=COMMAND")
        ok = report(name, command, checks, args.show) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
