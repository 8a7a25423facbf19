#!/usr/bin/env bash
# Builds the npm package pg-flake (clients/typescript) when its sources
# changed: npm ci from package-lock.json (the npm registry only, once per
# lock), then ESM, CommonJS, declarations and the tests (./scripts/build.mjs, in clients/typescript);
# with --pack also the tarball clients/typescript/pg-flake-<version>.tgz
# (npm pack). Idempotent and quick when nothing changed; one build at a time
# (the versions' suites may run side by side). Prints the package directory.
# Used by scripts/test-clients.sh, make test-conformance, the nemesis's
# TypeScript holders and make bench.
set -euo pipefail
cd "$(dirname "$0")/../clients/typescript"
missing=()
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    ../../scripts/apt-install.sh build-typescript "${missing[@]}" >&2
fi
exec 7>.build.lock
flock 7
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
# npm writes node_modules/.package-lock.json last: older than the lock file
# (or absent) means the installed packages are not the locked ones.
if [ ! node_modules/.package-lock.json -nt package-lock.json ]; then
    echo "build-typescript: npm ci (clients/typescript)" >&2
    npm ci --ignore-scripts --loglevel=error >&2
fi
stamp=$(cat package.json package-lock.json tsconfig*.json ./scripts/build.mjs $(find src test -type f | sort) | sha256sum | cut -d' ' -f1)
if [ "$stamp" != "$(cat dist/.built 2>/dev/null)" ] || [ ! -d dist-test ]; then
    echo "build-typescript: tsc (clients/typescript)" >&2
    node ./scripts/build.mjs >&2
    echo "$stamp" > dist/.built
fi
if [ "${1:-}" = "--pack" ]; then
    version=$(node -p "require('./package.json').version")
    if [ "$stamp" != "$(cat .packed 2>/dev/null)" ] || [ ! -f "pg-flake-$version.tgz" ]; then
        npm pack --silent --ignore-scripts >/dev/null
        echo "$stamp" > .packed
    fi
fi
pwd
