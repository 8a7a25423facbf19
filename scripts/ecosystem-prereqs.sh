#!/usr/bin/env bash
# The components the ecosystem suite (tests/servers/ecosystem, make
# test-ecosystem-V; issue 40) runs pg_flake with, for PostgreSQL V, from
# Debian's packages (as root; idempotent, nothing to do once installed):
#   every version: pgbouncer (a program of the machine: it pools
#       connections to any version's server) and
#       prometheus-postgres-exporter (likewise: it scrapes any version's);
#   15: Debian 12's postgresql-15-partman (pg_partman 4.7),
#       postgresql-15-pglogical, postgresql-15-auto-failover (with
#       pg_autoctl) and postgresql-15-repmgr;
#   17 (Debian 13's, in the chroot of scripts/pg17-chroot.sh): Debian 13's
#       postgresql-17-partman (pg_partman 5.2), postgresql-17-timescaledb
#       (TimescaleDB 2.19), postgresql-17-pglogical and
#       postgresql-17-auto-failover, installed with the chroot's apt
#       (pg_autoctl runs there through the wrapper pg17-chroot.sh writes);
#   16, 18 (PyPI builds): no extension packages exist for them here; their
#       modules skip with a notice.
#   scripts/ecosystem-prereqs.sh V
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: ecosystem-prereqs.sh V}
PG_FLAKE_CHROOT=${PG_FLAKE_CHROOT:-/var/lib/pg_flake-trixie}
PG17_CONFIG=${PG17_CONFIG:-$PG_FLAKE_CHROOT/pg17/bin/pg_config}
scripts/apt-install.sh "ecosystem-$version" pgbouncer prometheus-postgres-exporter
case $version in
15) scripts/apt-install.sh ecosystem-15 postgresql-15-partman postgresql-15-pglogical \
    postgresql-15-auto-failover postgresql-15-repmgr ;;
17)
    # Only where 17 is the chroot's (another PG17_CONFIG: its own packages).
    if [ "$PG17_CONFIG" = "${PG_FLAKE_CHROOT%/}/pg17/bin/pg_config" ]; then
        APT_NO_RECOMMENDS=1 scripts/pg17-chroot.sh run scripts/apt-install.sh ecosystem-17 \
            postgresql-17-partman postgresql-17-timescaledb postgresql-17-pglogical \
            postgresql-17-auto-failover
    fi
    ;;
esac
