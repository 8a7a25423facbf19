#!/usr/bin/env bash
# PostgreSQL 17 from Debian 13's own packages, on this Debian 12 machine.
# Debian 13's binaries need glibc 2.38 (Debian 12 has 2.36), so they run in
# a Debian 13 ("trixie") chroot, PG_FLAKE_CHROOT (default
# /var/lib/pg_flake-trixie), in which every path the tests use means what it
# means outside: /proc, /sys, /dev, /tmp, the checkout (and its git
# directory), the cargo and rustup homes are bind-mounted at their own
# paths, the `postgres` user has the machine's uid and gid, and the chroot's
# own path is a relative symlink to its root ($PG_FLAKE_CHROOT inside is /).
# Version 17's programs are wrappers in $PG_FLAKE_CHROOT/pg17/bin
# (PG17_CONFIG=$PG_FLAKE_CHROOT/pg17/bin/pg_config; docs/development.md
# "PostgreSQL 17: Debian 13's, in a chroot"): each runs the real one in the chroot with the caller's
# user, environment and working directory.
#
#   pg17-chroot.sh setup [DIR...]  makes or completes the chroot: debootstrap,
#       Debian 13's postgresql-17 and what building pg_flake needs, the
#       postgres user, the mounts (and DIR... too), the wrappers, `cargo pgrx
#       init` for 17 inside. Idempotent and quick when done; one at a time.
#   pg17-chroot.sh run CMD [ARG...]  CMD in the chroot (as root, with this
#       environment, in this directory): `make install-17` builds there.
#   pg17-chroot.sh remove          unmounts all, then deletes the chroot.
#       Never delete it with rm -rf alone: it would descend into the bind
#       mounts (/tmp, the checkout, ~/.cargo) and delete them too.
#
# The Debian archive is the one this machine's apt uses (its bookworm/main
# source), with the same keyring; nothing is fetched from anywhere else.
set -euo pipefail
ROOT=${PG_FLAKE_CHROOT:-/var/lib/pg_flake-trixie}
ROOT=${ROOT%/}
SUITE=trixie
BIN=$ROOT/pg17/bin
PG=/usr/lib/postgresql/17
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/.." && pwd)
# What the chroot gets (--no-install-recommends): the server, its headers,
# PGXS and pg_regress (postgresql-server-dev-17); what `cargo pgrx` needs to
# build against them (clang and libclang for bindgen, a C compiler, pkg-config,
# CA certificates for cargo); libfaketime, for a server started by hand with
# a clock of its own (pg-server.sh's PG_SERVER_ENV; the suites' servers
# preload tests/servers/shims/clock_step.c, from /tmp, which is shared); sudo
# (`cargo pgrx test` runs the server as postgres with it); git and dpkg-dev
# for `make package-17`.
PACKAGES=(postgresql-17 postgresql-server-dev-17 clang libclang-dev build-essential pkg-config
    ca-certificates faketime sudo util-linux git dpkg-dev binutils)
# Bump when the steps change, so that set-up runs them again.
STAMP_VERSION=1
stamp=$ROOT/pg17/setup-done
stamp_text="$STAMP_VERSION ${PACKAGES[*]}"

log() { echo "pg17-chroot: $*" >&2; }
die() { log "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "run me as root"

# inside CMD...: CMD in the chroot as root, with a plain environment (apt, useradd).
inside() {
    chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
}

# The mounts: each directory at its own path under $ROOT (/proc mounted
# anew: the same processes, the chroot shares the PID namespace). A
# directory already there (the same one: a bind mount of it, or one
# inside such) is left as it is.
bind() {
    local path=$1 flag=${2:---bind}
    [ -d "$path" ] || return 0
    local target=$ROOT$path
    [ "$target" -ef "$path" ] && return 0
    # A mount left there that is not this directory: an earlier checkout at
    # the same path, since deleted (CI clones to one path each run, and a
    # mount on a deleted directory refuses a new one with ENOENT). Detach it,
    # with whatever is mounted below it.
    if mountpoint -q "$target" 2>/dev/null; then
        log "replacing a stale mount at $target"
        umount -l "$target"
    fi
    mkdir -p "$target"
    mount "$flag" "$path" "$target"
    # Unmounting inside must never unmount the machine's own (/dev/pts, …).
    [ "$flag" = --bind ] || mount --make-rslave "$target"
}
mount_all() {
    [ -d "$ROOT/proc/self" ] || { mkdir -p "$ROOT/proc"; mount -t proc proc "$ROOT/proc"; }
    bind /sys --rbind
    bind /dev --rbind
    bind /tmp --rbind
    bind "${CARGO_HOME:-$HOME/.cargo}"
    bind "${RUSTUP_HOME:-$HOME/.rustup}"
    bind "$checkout"
    # A worktree's git directory is elsewhere (git log in package-deb.sh).
    local common
    common=$(git -C "$checkout" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
    case $common in "" | "$checkout"/*) ;; *) bind "$common" ;; esac
    # More directories the servers use (PG_FLAKE_TMP outside /tmp), made
    # first so that they are there to mount.
    local dir
    for dir in "$@"; do
        mkdir -p "$dir"
        bind "$(realpath "$dir")"
    done
}

mirror() {
    # The machine's own Debian archive: apt's bookworm/main (or whatever
    # this machine's release is) source, e.g. "500 http://deb.debian.org/debian bookworm/main amd64 Packages".
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    apt-cache policy | awk -v s="$codename/main" '$3 == s { print $2; exit }'
}

# The wrappers. Each runs PostgreSQL 17's program of its name: inside the
# chroot (where $ROOT is /) directly; outside, in the chroot through
# unshare(1), as the caller: root chroots, any other user (the postgres user
# that the tests' runuser makes) in a user namespace of its own that maps
# only itself, where it may chroot and stays itself. No new process: the
# program keeps the wrapper's process ID (pg_ctl's postmaster.pid, kill -9).
write_wrapper() {
    local name=$1 real=$2 file=$BIN/$1
    cat > "$file.new" <<EOF
#!/bin/sh
# PostgreSQL 17's $name, from the Debian 13 chroot $ROOT (scripts/pg17-chroot.sh).
[ / -ef "$ROOT" ] && exec "$real" "\$@"
[ -d "$ROOT/proc/self" ] || { echo "$name: the chroot $ROOT is not mounted: run scripts/pg17-chroot.sh setup" >&2; exit 1; }
wd=\$(pwd); [ "$ROOT\$wd" -ef "\$wd" ] || wd=/
[ "\$(id -u)" = 0 ] || exec unshare --user --map-current-user --root="$ROOT" --wd="\$wd" -- "$real" "\$@"
exec unshare --root="$ROOT" --wd="\$wd" -- "$real" "\$@"
EOF
    chmod 755 "$file.new"
    mv -f "$file.new" "$file"
}
# pg_config: the paths it reports are the chroot's, as seen from outside
# ($ROOT/usr/…), valid inside too; its bindir is the wrappers'.
write_pg_config() {
    local file=$BIN/pg_config dirs
    dirs="DOCDIR|HTMLDIR|INCLUDEDIR|PKGINCLUDEDIR|INCLUDEDIR-SERVER|LIBDIR|PKGLIBDIR|LOCALEDIR|MANDIR|SHAREDIR|SYSCONFDIR|PGXS"
    cat > "$file.new" <<EOF
#!/bin/sh
# PostgreSQL 17's pg_config, from the Debian 13 chroot $ROOT (scripts/pg17-chroot.sh):
# its directories as seen from outside the chroot (valid inside it too), the
# programs' directory that of these wrappers.
set -e
real() { "$BIN/.pg_config" "\$@"; }
if [ \$# -eq 0 ]; then
    real | sed -E -e 's|^BINDIR = .*|BINDIR = $BIN|' -e 's#^($dirs) = /#\\1 = $ROOT/#'
    exit
fi
for arg; do
    case \$arg in
    --bindir) echo "$BIN" ;;
    --docdir | --htmldir | --includedir | --pkgincludedir | --includedir-server | --libdir | --pkglibdir | --localedir | --mandir | --sharedir | --sysconfdir | --pgxs)
        echo "$ROOT\$(real "\$arg")" ;;
    *) real "\$arg" ;;
    esac
done
EOF
    chmod 755 "$file.new"
    mv -f "$file.new" "$file"
}
# pg_upgrade runs the programs of both versions by their paths: from 15 the
# machine's own, which do not run in the chroot. So 17's pg_upgrade runs
# outside it, on Debian 13's dynamic loader and libraries (those of the
# chroot: libc, libpq), and starts 15's programs and 17's wrappers as
# programs of the machine.
write_pg_upgrade() {
    local file=$BIN/pg_upgrade libs=$ROOT/usr/lib/x86_64-linux-gnu
    cat > "$file.new" <<EOF
#!/bin/sh
# PostgreSQL 17's pg_upgrade, from the Debian 13 chroot $ROOT (scripts/pg17-chroot.sh),
# outside the chroot on the chroot's loader and libraries: it runs the older
# version's programs, which are the machine's.
[ / -ef "$ROOT" ] && exec "$PG/bin/pg_upgrade" "\$@"
exec "$ROOT/lib64/ld-linux-x86-64.so.2" --library-path "$libs" "$ROOT$PG/bin/pg_upgrade" "\$@"
EOF
    chmod 755 "$file.new"
    mv -f "$file.new" "$file"
}
write_wrappers() {
    mkdir -p "$BIN"
    local program name
    for program in "$ROOT$PG"/bin/*; do
        name=$(basename "$program")
        case $name in
        pg_config) write_wrapper .pg_config "$PG/bin/pg_config"; write_pg_config ;;
        pg_upgrade) write_pg_upgrade ;;
        *) write_wrapper "$name" "$PG/bin/$name" ;;
        esac
    done
    # pg_regress is PGXS's, not a program of bin/.
    write_wrapper pg_regress "$PG/lib/pgxs/src/test/regress/pg_regress"
    # pg_auto_failover's pg_autoctl is Debian's /usr/bin/pg_autoctl, installed
    # in the chroot by scripts/ecosystem-prereqs.sh 17 (after set-up).
    write_wrapper pg_autoctl /usr/bin/pg_autoctl
}

setup() {
    local started=$SECONDS t installed=
    if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
        "$here/apt-install.sh" pg17-chroot debootstrap
        local url
        url=$(mirror)
        [ -n "$url" ] || die "no Debian archive in this machine's apt sources"
        # An interrupted debootstrap leaves a tree it cannot continue: start again.
        if [ -e "$ROOT" ]; then
            grep -q " $ROOT/" /proc/self/mounts && die "$ROOT is incomplete but has mounts: run $0 remove"
            rm -rf "$ROOT"
        fi
        log "debootstrap --variant=minbase $SUITE $ROOT $url"
        t=$SECONDS
        grep -q " $ROOT.new/" /proc/self/mounts && die "$ROOT.new, an interrupted debootstrap's, has mounts: unmount them"
        rm -rf "$ROOT.new"
        debootstrap --variant=minbase "$SUITE" "$ROOT.new" "$url" >/dev/null
        mv "$ROOT.new" "$ROOT"
        log "debootstrap: $((SECONDS - t)) s"
    fi
    mount_all "$@"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$stamp_text" ]; then
        # Services never start in the chroot: postgresql-common would start
        # a cluster on port 5432 (none is made, below, either).
        printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"
        chmod 755 "$ROOT/usr/sbin/policy-rc.d"
        mkdir -p "$ROOT/etc/postgresql-common/createcluster.d"
        echo "create_main_cluster = false" > "$ROOT/etc/postgresql-common/createcluster.d/pg_flake.conf"
        cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
        # The postgres user with the machine's uid and gid, before
        # postgresql-common would make one: files and processes are the
        # same user's inside and out.
        local uid gid
        uid=$(id -u postgres) gid=$(id -g postgres)
        if ! inside getent group postgres >/dev/null; then
            inside getent group "$gid" >/dev/null && die "gid $gid is taken in the chroot"
            inside groupadd --system -g "$gid" postgres
        fi
        if ! inside getent passwd postgres >/dev/null; then
            inside getent passwd "$uid" >/dev/null && die "uid $uid is taken in the chroot"
            inside useradd --system -u "$uid" -g postgres -d /var/lib/postgresql -M -s /bin/bash \
                -c "PostgreSQL administrator" postgres
        fi
        [ "$(inside id -u postgres):$(inside id -g postgres)" = "$uid:$gid" ] \
            || die "the chroot's postgres user is not $uid:$gid"
        log "apt-get install ${PACKAGES[*]}"
        t=$SECONDS
        inside apt-get update -qq
        inside apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
        inside apt-get clean
        log "apt-get install: $((SECONDS - t)) s"
        # The chroot's own path leads to its root inside it: a path of the
        # chroot as seen from outside is valid inside too.
        mkdir -p "$ROOT$(dirname "$ROOT")"
        ln -sfn "$(realpath -m --relative-to="$(dirname "$ROOT")" /)" "$ROOT$ROOT"
        [ / -ef "$ROOT$ROOT" ] && die "$ROOT$ROOT leads to the machine's root"
        mkdir -p "$BIN"
        echo "$stamp_text" > "$stamp"
        installed=yes
    fi
    # The wrappers as this script writes them (again when it changed).
    local written_by
    written_by=$(sha256sum "$0" | cut -d' ' -f1)
    if [ "$(cat "$BIN/.written-by" 2>/dev/null)" != "$written_by" ]; then
        write_wrappers
        echo "$written_by" > "$BIN/.written-by"
    fi
    if [ -n "$installed" ]; then
        log "PostgreSQL $("$BIN/pg_config" --version | cut -d' ' -f2-) ready in $((SECONDS - started)) s: PG17_CONFIG=$BIN/pg_config"
    fi
    # cargo pgrx's configuration in the chroot's own PGRX_HOME (never the
    # machine's ~/.pgrx).
    if ! grep -qs "^pg17 = \"$BIN/pg_config\"" "$ROOT/var/lib/pgrx/config.toml"; then
        command -v cargo-pgrx >/dev/null || die "cargo-pgrx is not installed (scripts/prereqs.sh installs it)"
        (run cargo pgrx init --pg17 "$BIN/pg_config")
    fi
}

# run CMD...: CMD inside, as root, with this environment and directory, and
# PGRX_HOME the chroot's.
run() {
    [ -d "$ROOT/proc/self" ] || die "$ROOT is not set up or not mounted: run $0 setup"
    local wd=$PWD
    [ "$ROOT$wd" -ef "$wd" ] || die "$wd is not mounted in the chroot: run $0 setup $wd"
    PGRX_HOME=/var/lib/pgrx exec unshare --root="$ROOT" --wd="$wd" -- "$@"
}

remove() {
    [ -e "$ROOT" ] || return 0
    local target
    # Deepest first.
    grep -o " $ROOT/[^ ]*" /proc/self/mounts | sort -r | while read -r target; do
        umount -l "$target" 2>/dev/null || true
    done
    if grep -q " $ROOT/" /proc/self/mounts; then
        die "still mounted under $ROOT: $(grep " $ROOT/" /proc/self/mounts | cut -d' ' -f2 | tr '\n' ' ')"
    fi
    rm -rf --one-file-system "$ROOT" "$ROOT.new"
    log "removed $ROOT"
}

cmd=${1:-}
shift || true
case $cmd in
setup)
    # One set-up at a time (make -j3 test-long runs the versions side by side).
    exec 9>/var/lock/pg_flake-pg17-chroot.lock
    flock 9
    setup "$@"
    ;;
run)
    [ $# -gt 0 ] || die "usage: $0 run CMD [ARG...]"
    run "$@"
    ;;
remove)
    exec 9>/var/lock/pg_flake-pg17-chroot.lock
    flock 9
    remove
    ;;
*)
    echo "usage: $0 setup [DIR...] | run CMD [ARG...] | remove" >&2
    exit 2
    ;;
esac
