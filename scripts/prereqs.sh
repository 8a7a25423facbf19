#!/usr/bin/env bash
# Installs what building and testing pg_flake needs on Debian 12, as root.
# Idempotent: every step checks first and does nothing when already done.
set -euo pipefail
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGRX_VERSION=0.18.1

"$(dirname "$0")/apt-install.sh" prereqs \
    postgresql-15 postgresql-contrib postgresql-server-dev-15 libclang-dev clang sudo

if ! cargo pgrx --version 2>/dev/null | grep -q " $PGRX_VERSION\$"; then
    echo "prereqs: installing cargo-pgrx $PGRX_VERSION (a few minutes)"
    cargo install cargo-pgrx --version "$PGRX_VERSION" --locked
fi

if ! grep -qs "^pg15 = \"$PG_CONFIG\"" "${PGRX_HOME:-$HOME/.pgrx}/config.toml"; then
    echo "prereqs: cargo pgrx init --pg15 $PG_CONFIG"
    cargo pgrx init --pg15 "$PG_CONFIG"
fi
