#!/usr/bin/env bash
# Starts or stops a dedicated PostgreSQL server for pg_flake (the programs
# in PG_BIN, default PostgreSQL 15's), owned by the `postgres` user,
# listening on 127.0.0.1 and a socket in its own directory.
#   pg-server.sh start DATADIR PORT [CONF_LINE ...]   (idempotent)
#   pg-server.sh stop DATADIR
# PG_SERVER_ENV: VAR=value words added to the server's environment when this
# script starts or restarts it, e.g. libfaketime's LD_PRELOAD and FAKETIME
# to run it with a clock of its own (no suite sets it today: the multi-server
# suites start their servers with tests/servers/harness.py). pg_ctl gets them
# too: it compares its own clock with the start time the server writes.
set -euo pipefail
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
cmd=$1 datadir=$2
as_postgres() { runuser -u postgres -- "$@"; }
read -r -a server_env <<<"${PG_SERVER_ENV:-}"
# pg_ctl for the commands that start a server.
pg_ctl_starting() { as_postgres env "${server_env[@]}" "$BIN/pg_ctl" "$@"; }

case "$cmd" in
start)
    port=$3; shift 3
    mkdir -p "$(dirname "$datadir")"
    if [ ! -s "$datadir/PG_VERSION" ]; then
        rm -rf "$datadir"
        install -d -o postgres -g postgres -m 700 "$datadir"
        as_postgres "$BIN/initdb" -D "$datadir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
        {
            echo "listen_addresses = '127.0.0.1'"
            echo "port = $port"
            echo "unix_socket_directories = '$datadir'"
            echo "max_connections = 100"
            echo "fsync = off"
        } >> "$datadir/postgresql.conf"
    fi
    # The port and the caller's settings live in their own file, rewritten on
    # every start, so an existing data directory picks up a new port and
    # settings added since initdb.
    grep -qs "^include_if_exists = 'pg_flake_server.conf'" "$datadir/postgresql.conf" \
        || echo "include_if_exists = 'pg_flake_server.conf'" >> "$datadir/postgresql.conf"
    extra=$(printf '%s\n' "port = $port" "$@")
    if [ "$extra" != "$(cat "$datadir/pg_flake_server.conf" 2>/dev/null)" ]; then
        printf '%s\n' "$extra" > "$datadir/pg_flake_server.conf"
        chown postgres:postgres "$datadir/pg_flake_server.conf"
        if as_postgres "$BIN/pg_ctl" -D "$datadir" status >/dev/null 2>&1; then
            pg_ctl_starting -D "$datadir" -m fast -w restart -l "$datadir/server.log" >/dev/null
        fi
    fi
    # A preloaded library stays loaded: restart after it was reinstalled.
    library="$("$BIN/pg_config" --pkglibdir)/pg_flake.so"
    if as_postgres "$BIN/pg_ctl" -D "$datadir" status >/dev/null 2>&1 \
        && [ "$library" -nt "$datadir/postmaster.pid" ]; then
        pg_ctl_starting -D "$datadir" -m fast -w restart -l "$datadir/server.log" >/dev/null
    fi
    # The project's ports (254xx) lie below Linux's ephemeral range
    # (32768-60999), so no client connection's local end takes them; a port
    # can still be held for a moment by a server of ours that is going away.
    # Retry while that is why the start failed, and keep each failed
    # attempt's log apart: server.log holds only the running server's lines
    # (tests count the ERROR lines in it).
    for attempt in $(seq 1 30); do
        if as_postgres "$BIN/pg_ctl" -D "$datadir" status >/dev/null 2>&1; then
            break
        fi
        if pg_ctl_starting -D "$datadir" -l "$datadir/server.log" -w -t 60 start >/dev/null; then
            break
        fi
        if [ "$attempt" -eq 30 ] || ! tail -n 5 "$datadir/server.log" | grep -q "Address already in use"; then
            echo "pg-server.sh: could not start the server in $datadir (see $datadir/server.log)" >&2
            exit 1
        fi
        mv "$datadir/server.log" "$datadir/server.log.failed-start-$attempt"
        echo "pg-server.sh: port $port is in use by another socket, retrying in 2 s" >&2
        sleep 2
    done
    ;;
stop)
    if [ -s "$datadir/PG_VERSION" ] && as_postgres "$BIN/pg_ctl" -D "$datadir" status >/dev/null 2>&1; then
        as_postgres "$BIN/pg_ctl" -D "$datadir" -m fast -w stop >/dev/null
    fi
    ;;
*)
    echo "usage: $0 start DATADIR PORT [CONF_LINE ...] | stop DATADIR" >&2
    exit 2
    ;;
esac
