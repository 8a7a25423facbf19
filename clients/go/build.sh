#!/usr/bin/env bash
# build.sh NAME...: builds cmd/NAME into clients/go/bin/NAME when a source
# is newer than the binary (offline: vendor.sh, GOPROXY=off, the build cache
# clients/go/.cache), and prints each binary's path. For the programs other
# suites run: pgflake-conformance (tests/conformance), pgflake-lease-writer
# (the nemesis's Go holder), pgflake-bench (make bench).
set -euo pipefail
cd "$(dirname "$0")"
./vendor.sh
export GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on
export GOCACHE=${GOCACHE:-$PWD/.cache}
mkdir -p bin
exec 6>bin/.build.lock
flock 6
for name in "$@"; do
    bin=bin/$name
    if [ ! -x "$bin" ] || [ go.mod -nt "$bin" ] \
        || [ -n "$(find . -name '*.go' -newer "$bin" -not -path './vendor/*' | head -n 1)" ]; then
        go build -o "$bin.new" "./cmd/$name" >&2
        mv -f "$bin.new" "$bin"
    fi
    echo "$PWD/$bin"
done
