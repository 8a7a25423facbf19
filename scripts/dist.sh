#!/usr/bin/env bash
# The PGXN source distribution of pg_flake (`make dist`; docs/operations.md
# "Packaging"):
#   target/package/pg_flake-<version>.zip
# HEAD's tree by `git archive`, every file under the one directory
# pg_flake-<version>/ with META.json at its top (the version: Cargo.toml's,
# which scripts/check-versions.py keeps equal to META.json's). What is not
# committed is not in it: a changed tracked file is named. Then checked as
# PGXN checks an upload (scripts/check-dist.py): the layout, and META.json
# against the PGXN Meta Spec by PGXN's own validator, the `pgxn_meta` command
# of the pgxn_meta crate (crates.io), installed by cargo on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
PGXN_META_VERSION=0.7.0
version=$(awk -F '"' '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ { print $2; exit }' Cargo.toml)
zip=target/package/pg_flake-$version.zip
mkdir -p target/package
git archive --format=zip --prefix="pg_flake-$version/" -o "$zip.new" HEAD
mv -f "$zip.new" "$zip"
changed=$(git status --porcelain --untracked-files=no)
if [ -n "$changed" ]; then
    echo "dist: $zip is HEAD's; these changes are not committed, so not in it:"
    echo "$changed"
fi

# The validator, built in its debug profile (a minute; the release profile's
# LTO takes several, and it reads one small file).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if [ "$(pgxn_meta --version 2>/dev/null)" != "pgxn_meta $PGXN_META_VERSION" ]; then
    echo "dist: installing pgxn_meta $PGXN_META_VERSION (PGXN's META.json validator) with cargo"
    nice -n 10 cargo install --quiet --locked --debug pgxn_meta --version "$PGXN_META_VERSION"
fi
python3 scripts/check-dist.py "$zip"
echo "dist: $zip ($(du -h "$zip" | cut -f1))"
