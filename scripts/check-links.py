#!/usr/bin/env python3
"""Checks every relative link and #anchor of the repository's Markdown files.

    scripts/check-links.py [FILE.md ...]

Without arguments: every Markdown file git knows of (tracked, or new and not ignored), so
README.md, docs/**, python/README.md, clients/*/README.md, tests/vectors/README.md, …

For each inline link or image `[text](target)` and each reference definition `[name]: target`
outside code (fenced blocks and `code spans` are skipped):

- a target with a scheme (`https:`, `mailto:`, …) is not checked (no network);
- a relative path must exist (a file or a directory), relative to the file that links;
- an anchor (`#part`, alone or after a path to a Markdown file) must be a heading of that file,
  by GitHub's rules: the heading's text without its Markdown (`code` marks, emphasis, link
  targets), lower-cased, every character but letters, digits, spaces, `-` and `_` dropped,
  spaces turned into `-`; a repeated heading gets `-1`, `-2`, … An explicit `<a name="x">` or
  `id="x"` counts too.

Prints each broken link as `file:line: target: reason` and exits 1; exits 0 (saying how many
links it checked) when there is none. Standard library only (Python 3.9+).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:.*?[^`])?\1(?!`)")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        names = sorted({name for name in out.split("\0") if name})
        return [ROOT / name for name in names if (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return sorted(p for p in ROOT.rglob("*.md") if "target" not in p.relative_to(ROOT).parts)


def outside_fences(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with their numbers."""
    lines = []
    fence: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            continue
        lines.append((number, line))
    return lines


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The file's lines outside fenced code blocks, with their numbers, code spans blanked."""
    def blank(match: re.Match[str]) -> str:
        return " " * len(match.group(0))

    return [(number, CODE_SPAN.sub(blank, line)) for number, line in outside_fences(text)]


def slug(heading: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


_anchors: dict[Path, set[str]] = {}


def anchors(path: Path) -> set[str]:
    if path not in _anchors:
        found: set[str] = set()
        seen: dict[str, int] = {}
        for _, line in outside_fences(path.read_text(encoding="utf-8")):
            heading = HEADING.match(line)
            if heading:
                base = slug(heading.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line))
        _anchors[path] = found
    return _anchors[path]


def check_target(source: Path, target: str) -> str | None:
    """Why `target`, linked from `source`, is broken; None if it is fine (or not checked)."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    if path_part.startswith("/"):
        return "an absolute path (GitHub resolves it against the server, not the repository)"
    linked = (source.parent / path_part).resolve() if path_part else source
    if path_part:
        try:
            linked.relative_to(ROOT)
        except ValueError:
            return "outside the repository"
        if not linked.exists():
            return "no such file or directory"
    if anchor:
        if linked.is_dir() or linked.suffix.lower() != ".md":
            return None  # anchors of other files (source lines, …) are not checked
        if anchor not in anchors(linked):
            return f"no heading #{anchor} in {linked.relative_to(ROOT)}"
    return None


def main() -> int:
    files = [Path(arg).resolve() for arg in sys.argv[1:]] or markdown_files()
    broken = []
    checked = 0
    for path in files:
        for number, line in prose_lines(path.read_text(encoding="utf-8")):
            targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
            reference = REFERENCE.match(line)
            if reference:
                targets.append(reference.group(1))
            for target in targets:
                checked += 1
                reason = check_target(path, target)
                if reason:
                    broken.append(f"{path.relative_to(ROOT)}:{number}: {target}: {reason}")
    if broken:
        print(f"check-links: {len(broken)} broken link(s) of {checked} in {len(files)} files:", file=sys.stderr)
        for line in broken:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"check-links: {checked} links in {len(files)} Markdown files, none broken")
    return 0


if __name__ == "__main__":
    sys.exit(main())
