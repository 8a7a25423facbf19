#!/usr/bin/env python3
"""Checks the repository's signposts: Markdown links, paths and documentation headings.

    scripts/check-signposts.py [FILE ...]

Without arguments: every file git knows of (tracked, or new and not ignored). Three kinds of
signpost, each where it stands (docs/development.md "Signposts"):

1. **Markdown links** (`*.md` only): each inline link or image `[text](target)` and each
   reference definition `[name]: target` outside code. A target with a scheme (`https:`, …) is
   not checked (no network); a relative path must exist, relative to the file that links; an
   anchor (`#part`, alone or after a path to a Markdown file) must be one of that file's anchors.
2. **Paths**, in every file (comments, strings, prose, code blocks): a word that starts with a
   top-level directory of the repository and a slash (`src/…`, `core/…`, `sql/…`, `docs/…`,
   `scripts/…`, `tests/…`, …) or is the name of a file at the root (`Makefile`, `build.rs`, …).
   It must be a file or directory git knows of, found from the root, else from the referring
   file's package (the nearest directory above it with a Cargo.toml, pyproject.toml,
   package.json, go.mod or pom.xml), else from the referring file's own directory. `<name>` and
   `*` in a path are wildcards (one match is enough); a `:LINE` after it is left out.
3. **Headings**: a Markdown file named by its path, by its bare name (`operations.md`: the
   ones in the referring file's directory, package or the root, else those of that name
   anywhere) or as `README`, followed by `#anchor` or by a heading in double quotes
   (`docs/operations.md "Versions"`; the quotes may go on to the next comment line). The anchor
   must be one of the file's anchors; the quoted text one of its headings, or the part of a
   heading before its colon (`"Several servers"` for "Several servers: a deployment guide").
   Where the name has several places (`README` in python/: python/README.md and README.md),
   one of them must have the heading.

Anchors follow GitHub's rules: the heading's text without its Markdown (`code` marks,
emphasis, link targets), lower-cased, every character but letters, digits, spaces, `-` and `_`
dropped, spaces turned into `-`; a repeated heading gets `-1`, `-2`, … An explicit `<a
name="x">` or `id="x"` counts too.

Not checked: a path that git ignores (`python/.venv`, `target/…`: what a program makes), a
path written `./…` (relative to a working directory, not to the repository), and a word with
`$`, `{`, `%`, `\\`, `…` or `...` in it (a pattern of a program). A capital letter alone between
`-`, `_`, `.` or `/` is a placeholder, like `<name>` (`docs/bench-insert-V.png`).

SQL scripts: the released install scripts (`pg_flake--V.sql` anywhere under `sql/`, for a V of
scripts/releases.txt) are `cargo pgrx package`'s output pinned as it shipped (its comments name
that release's files): not read. The upgrade scripts are read; in a released one the function
bodies (`$$ … $$`) are the catalog that release made, which cannot change: those are not read.
In a live SQL file a function body is read, but a fix there changes the catalog (the regression
test "upgrade" compares a fresh install with an updated one): such a signpost waits for an
upgrade script that re-creates the function.

WAITING below lists the broken signposts that wait for a named change (such a function body; a
path that work under way will make), each with why: they are reported as waiting, not as
broken, and an entry that is no longer broken is an error, so it leaves the list when its wait
ends. Not read either: data and generated
files (`tests/vectors/`, `*.jsonl`, lock files, `*.proptest-regressions`, images, `.gitignore`
patterns), the regression tests' expected output (`tests/regress/expected/*.out`: psql's
echo of `tests/regress/sql/` and of the catalog, whose sources are checked) and
scripts/test-checkers.py, whose samples are broken on purpose.

Prints each broken signpost as `file:line: reference: why` (with the files of that name, or the
nearest headings, when there are) and exits 1; exits 0, with the counts, when there is none.
Standard library only (Python 3.9+).
"""

from __future__ import annotations

import bisect
import difflib
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)"
)
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:.*?[^`])?\1(?!`)")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
MANIFESTS = ("Cargo.toml", "pyproject.toml", "package.json", "go.mod", "pom.xml")
# Data and generated files: no signposts of their own.
NOT_READ = re.compile(
    r"(^|/)(\.gitignore|Cargo\.lock|package-lock\.json)$|^tests/vectors/(?!README\.md$)"
    r"|\.(jsonl|out|png|jpg|svg|proptest-regressions)$"
    r"|^scripts/test-checkers\.py$"  # the checkers' tests: broken signposts on purpose
)
RELEASED_INSTALL = re.compile(r"^sql/(?:.*/)?pg_flake--([0-9.]+)\.sql$")
RELEASED_UPGRADE = re.compile(r"^sql/(?:.*/)?pg_flake--[0-9.]+--([0-9.]+)\.sql$")
DOLLAR_BODY = re.compile(r"\$((?:[A-Za-z_]\w*)?)\$.*?\$\1\$", re.DOTALL)
# Broken signposts that wait for a named change: (file, reference) -> why. (A reference here is
# written in two parts, so that this file does not cite it.)
WAITING: dict[tuple[str, str], str] = {
}
# A comment's continuation on the next line: its leader (Rust, SQL, shell, Python, C, Lisp).
CONTINUATION = r"\n[ \t]*(?:///?!?|--|#+|\*(?!/)|;+)?[ \t]*"
QUOTED_HEADING = re.compile(
    r"`?,?(?:[ \t]+|[ \t]*"
    + CONTINUATION
    + r")\"([\w`'(][^\"\n]*(?:"
    + CONTINUATION
    + r"[^\"\n]+)?)\""
)


class Tree:
    """The files git knows of in the work tree (tracked, or new and not ignored), and their text."""

    def __init__(self) -> None:
        out = git("ls-files", "--cached", "--others", "--exclude-standard", "-z")
        self.files = {n for n in out.split("\0") if n and (ROOT / n).is_file()}
        self.dirs = {str(p) for n in self.files for p in PurePosixPath(n).parents if str(p) != "."}
        self._text: dict[str, str] = {}
        self._anchors: dict[str, set[str]] = {}
        self._headings: dict[str, list[str]] = {}
        self._ignored: dict[str, bool] = {}

    def exists(self, path: str) -> bool:
        path = path.rstrip("/")
        return path in self.files or path in self.dirs or path == ""

    def matches(self, pattern: str) -> bool:
        """Whether a file or directory matches `pattern`, whose `*` stands for part of a name."""
        parts = (re.escape(p) for p in pattern.rstrip("/").split("*"))
        rx = re.compile("^" + "[^/]*".join(parts) + "$")
        return any(rx.match(n) for n in self.files) or any(rx.match(d) for d in self.dirs)

    def ignored(self, path: str) -> bool:
        """Whether git ignores `path` (as a file or as a directory): a program's output."""
        if path not in self._ignored:
            # One name at a time: git refuses "name/" beyond a symbolic link
            # (a venv's bin/python), and then answers for neither.
            names = [path.rstrip("/"), path.rstrip("/") + "/"]
            self._ignored[path] = any(
                subprocess.run(
                    ["git", "check-ignore", "--no-index", name],
                    check=False,
                    cwd=ROOT,
                    capture_output=True,
                ).returncode
                == 0
                for name in names
            )
        return self._ignored[path]

    def text(self, path: str) -> str:
        if path not in self._text:
            self._text[path] = (ROOT / path).read_text(encoding="utf-8", errors="replace")
        return self._text[path]

    def anchors(self, path: str) -> set[str]:
        if path not in self._anchors:
            found: set[str] = set()
            headings: list[str] = []
            seen: dict[str, int] = {}
            for _, line in outside_fences(self.text(path)):
                heading = HEADING.match(line)
                if heading:
                    headings.append(heading.group(2))
                    base = slug(heading.group(2))
                    count = seen.get(base, 0)
                    seen[base] = count + 1
                    found.add(base if count == 0 else f"{base}-{count}")
                found.update(HTML_ANCHOR.findall(line))
            self._anchors[path] = found
            self._headings[path] = headings
        return self._anchors[path]

    def headings(self, path: str) -> list[str]:
        self.anchors(path)
        return self._headings[path]


def git(*args: str) -> str:
    run = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, check=True)
    return run.stdout.decode("utf-8", "replace")


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


def slug(heading: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def blank(text: str, start: int, end: int) -> str:
    """`text` with [start, end) turned into spaces, its newlines kept (offsets and lines stay)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def same_name(tree: Tree, path: str) -> str:
    name = PurePosixPath(path.rstrip("/")).name
    if "*" in name or "<" in name:
        return ""
    others = [n for n in tree.files | tree.dirs if PurePosixPath(n).name == name]
    others.sort(key=lambda n: (-difflib.SequenceMatcher(None, path, n).ratio(), n))
    return f" (named so: {', '.join(others[:4])})" if others else ""


def nearest_headings(tree: Tree, md: str, wanted: str) -> str:
    near = difflib.get_close_matches(wanted, sorted(tree.anchors(md)), n=3, cutoff=0.5)
    return f" (nearest: {', '.join('#' + a for a in near)})" if near else ""


# ---- Markdown links ---------------------------------------------------------------------


def check_link(tree: Tree, source: str, target: str) -> str | None:
    """Why `target`, linked from `source`, is broken; None if it is fine (or not checked)."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    if path_part.startswith("/"):
        return "an absolute path (GitHub resolves it against the server, not the repository)"
    linked = source
    if path_part:
        resolved = (ROOT / source).parent.joinpath(path_part).resolve()
        try:
            linked = resolved.relative_to(ROOT).as_posix()
        except ValueError:
            return "outside the repository"
        linked = "" if linked == "." else linked
        if not tree.exists(linked):
            return "no such file or directory" + same_name(tree, linked)
    if anchor:
        if linked in tree.dirs or not linked.lower().endswith(".md"):
            return None  # anchors of other files (source lines, …) are not checked
        if anchor not in tree.anchors(linked):
            return f"no heading #{anchor} in {linked}" + nearest_headings(tree, linked, anchor)
    return None


def markdown_links(tree: Tree, path: str) -> tuple[str, list[tuple[int, str, str | None]]]:
    """The links of a Markdown file, checked, and its text with their targets blanked."""
    found = []
    text = tree.text(path)
    for number, line in outside_fences(text):
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        reference = REFERENCE.match(line)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            found.append((number, target, check_link(tree, path, target)))
    for rx in (INLINE_LINK, re.compile(REFERENCE.pattern, re.MULTILINE)):
        for match in rx.finditer(text):
            text = blank(text, *match.span(1))
    return text, found


# ---- Paths and headings -------------------------------------------------------------------


class Finder:
    """The path and heading references of a file's text, checked against the tree."""

    def __init__(self, tree: Tree):
        self.tree = tree
        top_dirs = sorted(
            {n.split("/", 1)[0] for n in tree.files if "/" in n}, key=len, reverse=True
        )
        root_files = sorted((n for n in tree.files if "/" not in n), key=len, reverse=True)
        dirs = "|".join(re.escape(d) for d in top_dirs)
        files = "|".join(re.escape(f) for f in root_files)
        self.path = re.compile(
            r"(?<![\w./\\~@${-])((?:" + dirs + r")/[\w.<>*/+@=-]*|(?:" + files + r")(?![\w-]|\.\w))"
        )
        self.bare_md = re.compile(r"(?<![\w./-])([\w-]+\.md|README)(?![\w.-])")
        self.md_by_name: dict[str, list[str]] = {}
        for n in tree.files:
            if n.endswith(".md"):
                self.md_by_name.setdefault(PurePosixPath(n).name, []).append(n)

    def places(self, source: str, path: str) -> list[str]:
        """Where `path`, named in `source`, may be: from the root, the package, the directory."""
        here = PurePosixPath(source).parent
        package = next(
            (
                p
                for p in (here, *here.parents)
                if str(p) != "." and any(f"{p}/{m}" in self.tree.files for m in MANIFESTS)
            ),
            None,
        )
        found = [path] + [
            f"{base}/{path}" for base in (package, here) if base is not None and str(base) != "."
        ]
        return list(dict.fromkeys(found))

    def check_path(self, source: str, path: str) -> tuple[str | None, list[str]]:
        """Why `path` is broken (None if it is not), and the places where it is."""
        pattern = re.sub(r"<[^<>/]*>", "*", path)
        pattern = (
            re.sub(r"(?<=[-_./])[A-Z](?=[-_./]|$)", "*", pattern).replace("<", "").replace(">", "")
        )
        found = [
            p
            for p in self.places(source, pattern)
            if (self.tree.matches(p) if "*" in p else self.tree.exists(p))
        ]
        if found or self.tree.ignored(pattern):
            return None, found
        return "no such file or directory" + same_name(self.tree, path), []

    def check_heading(self, mds: list[str], anchor: str | None, quoted: str | None) -> str | None:
        """Why the heading (#anchor, or "quoted") is in none of `mds`; None if it is in one."""
        if not mds:
            return "no such Markdown file"
        wanted = anchor if anchor is not None else slug(quoted or "")
        for md in mds:
            if anchor is not None and anchor in self.tree.anchors(md):
                return None
            if anchor is None and any(
                wanted in (slug(h), slug(h.split(":", 1)[0])) for h in self.tree.headings(md)
            ):
                return None
        shown = f"#{anchor}" if anchor is not None else f'"{quoted}"'
        return f"no heading {shown} in {' or '.join(mds)}" + nearest_headings(
            self.tree, mds[0], wanted
        )

    def references(self, source: str, text: str) -> list[tuple[int, str, str | None]]:
        """(line, reference, why it is broken or None) for every path and heading of `text`."""
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        found: list[tuple[int, str, str | None]] = []
        taken: set[int] = set()
        for match in self.path.finditer(text):
            word = match.group(1)
            if re.search(r"[$%{…\\]|\.\.\.", text[match.start() : match.end() + 1]):
                continue
            word = word.rstrip(".-") if not word.endswith("/") else word
            path = re.sub(r":\d+(?:-\d+)?$", "", word)
            why, places = self.check_path(source, path)
            line = bisect.bisect_right(starts, match.start())
            found.append((line, path, why))
            taken.add(match.start())
            mds = [p for p in places if p.endswith(".md") and p in self.tree.files]
            if mds:
                found.extend(self.heading_after(text, match.start() + len(word), mds, path, starts))
        for match in self.bare_md.finditer(text):
            if match.start() in taken:
                continue
            name = "README.md" if match.group(1) == "README" else match.group(1)
            near = [p for p in reversed(self.places(source, name)) if p in self.tree.files]
            mds = near or sorted(self.md_by_name.get(name, []))
            found.extend(self.heading_after(text, match.end(), mds, match.group(1), starts))
        return sorted(found, key=lambda f: f[0])

    def heading_after(self, text: str, end: int, mds: list[str], shown: str, starts: list[int]):
        """The heading reference right after a Markdown file's name, if there is one; `mds`: the
        files that name may be (none: no such Markdown file)."""
        line = bisect.bisect_right(starts, end)
        anchor = re.match(r"#([\w-]+)", text[end : end + 200])
        if anchor:
            return [
                (line, f"{shown}#{anchor.group(1)}", self.check_heading(mds, anchor.group(1), None))
            ]
        quoted = QUOTED_HEADING.match(text, end)
        if quoted:
            heading = re.sub(CONTINUATION, " ", quoted.group(1))
            return [(line, f'{shown} "{heading}"', self.check_heading(mds, None, heading))]
        return []


# ---- The run ------------------------------------------------------------------------------


def released_versions() -> set[str]:
    """The versions of scripts/releases.txt."""
    lines = (ROOT / "scripts/releases.txt").read_text().splitlines()
    return {line.split()[0] for line in lines if line.strip() and not line.startswith("#")}


def to_read(tree: Tree, path: str, released: set[str]) -> bool:
    install = RELEASED_INSTALL.match(path)
    if NOT_READ.search(path) or (install and install.group(1) in released):
        return False
    return b"\0" not in (ROOT / path).read_bytes()[:8192]


def main() -> int:
    tree = Tree()
    released = released_versions()
    chosen = [Path(a).resolve().relative_to(ROOT).as_posix() for a in sys.argv[1:]]
    files = sorted(chosen or (f for f in tree.files if to_read(tree, f, released)))
    finder = Finder(tree)
    broken: list[str] = []
    waiting: set[tuple[str, str]] = set()
    links = references = 0
    for path in files:
        text = tree.text(path)
        if path.endswith(".md"):
            text, found = markdown_links(tree, path)
            links += len(found)
            broken.extend(f"{path}:{n}: {target}: {why}" for n, target, why in found if why)
        upgrade = RELEASED_UPGRADE.match(path)
        if upgrade and upgrade.group(1) in released:
            for body in DOLLAR_BODY.finditer(text):
                text = blank(text, *body.span())
        for number, reference, why in finder.references(path, text):
            references += 1
            if why and (path, reference) in WAITING:
                waiting.add((path, reference))
            elif why:
                broken.append(f"{path}:{number}: {reference}: {why}")
    for (path, reference), reason in WAITING.items():
        if (path, reference) in waiting:
            print(f"check-signposts: {path}: {reference}: waits: {reason}", file=sys.stderr)
        elif not chosen or path in chosen:
            broken.append(
                f"{path}: {reference}: in WAITING of scripts/check-signposts.py but not broken there: remove it"
            )
    summary = f"{links} Markdown links and {references} paths and headings in {len(files)} files"
    if broken:
        print(f"check-signposts: {len(broken)} broken of {summary}:", file=sys.stderr)
        for line in broken:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"check-signposts: {summary}, none broken")
    return 0


if __name__ == "__main__":
    sys.exit(main())
