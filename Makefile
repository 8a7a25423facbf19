# pg_flake — two commands: `make run` and `make test` (see README.md).
# Both install what they need on a fresh Debian 12 machine (as root) and are
# safe to run again.

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
PG_BIN    := $(shell $(PG_CONFIG) --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
RUN_DATA  ?= $(CURDIR)/.run/data
RUN_PORT  ?= 25429
PSQL_RUN  := psql -X -h 127.0.0.1 -p $(RUN_PORT) -U postgres
export PG_CONFIG PG_BIN

.PHONY: all prereqs install run stop test lint test-core test-pgrx test-sql test-long test-clock bench package clean

all: install

prereqs:
	@scripts/prereqs.sh

# Installing writes pg_flake.so in place, and a server that has the old file
# mapped (every preloading one) crashes when its pages change under it. So
# first give the installed library a fresh inode with the same contents:
# running servers keep the old, now unlinked, file.
RELINK_LIBRARY := lib="$$($(PG_CONFIG) --pkglibdir)/pg_flake.so"; \
	if [ -f "$$lib" ]; then cp -p "$$lib" "$$lib.new" && mv -f "$$lib.new" "$$lib"; fi

# The install script of 0.1.0 as it landed goes along, so that a database
# can be made at 0.1.0 and updated (the regression test upgrade).
install: prereqs
	@$(RELINK_LIBRARY)
	cargo pgrx install --release --pg-config $(PG_CONFIG)
	install -m 644 sql/pg_flake--0.1.0.sql "$$($(PG_CONFIG) --sharedir)/extension/"

## run: build, install, start a dedicated server with an example database, open psql.
run: install
	scripts/pg-server.sh start $(RUN_DATA) $(RUN_PORT) "shared_preload_libraries = 'pg_flake'"
	@$(PSQL_RUN) -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'flake'" | grep -q 1 \
		|| $(PSQL_RUN) -q -d postgres -c "CREATE DATABASE flake"
	@$(PSQL_RUN) -q -d flake -v ON_ERROR_STOP=1 -f sql/example.sql
	@if [ -t 0 ] && [ -t 1 ]; then \
		exec $(PSQL_RUN) -d flake; \
	else \
		echo "pg_flake is running. Connect with:  $(PSQL_RUN) -d flake"; \
		echo "Stop it with:                      make stop"; \
	fi

stop:
	scripts/pg-server.sh stop $(RUN_DATA)

## test: every suite; fails on the first failure.
test: prereqs lint test-core test-pgrx test-sql
	@echo "make test: all suites passed"

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p flake-core --all-targets --all-features -- -D warnings

test-core:
	cargo test -p flake-core --all-features

test-pgrx:
	@$(RELINK_LIBRARY)
	CARGO_PGRX_TEST_RUNAS=postgres CARGO_PGRX_TEST_PGDATA=/tmp/pg_flake-pgrx-test-data \
		cargo pgrx test pg15

test-sql: install
	scripts/test-sql.sh

## test-long: the long-running tests (2-3 minutes), not part of `make test`: pgbench
## load (32 clients x 60 s, every generator) on 127.0.0.1:25460, and node settings across
## servers with logical replication on 127.0.0.1:25461-25466 (scripts/test-long.sh).
test-long: install
	scripts/test-long.sh

## test-clock: durable marks, logical time and node identity against servers whose clocks
## libfaketime moves (about 2 minutes), not part of `make test`: restarts and a crash with the
## clock behind, two databases, failover to a standby 10 s behind (asynchronous and
## synchronous), the bound pg_flake.max_clock_lag, and live steps of the clock while 6
## sessions generate; each preloaded and not, on 127.0.0.1:25490-25491
## (scripts/test-clock.sh; PG_CONFIG chooses the PostgreSQL).
test-clock: install
	scripts/test-clock.sh

## bench: the benchmark suite (about 20 minutes): its own server on 127.0.0.1:25440,
## results into docs/BENCHMARKS.md and docs/bench-insert.png. Not part of `make test`.
bench: install
	scripts/bench.sh

## package: the Debian package target/debian/postgresql-15-pg-flake_<version>_amd64.deb
## (release build by cargo pgrx package, then dpkg-deb; scripts/package-deb.sh). Another
## PG_CONFIG builds postgresql-<major>-pg-flake for that PostgreSQL.
package: prereqs
	scripts/package-deb.sh

clean: stop
	cargo clean
	rm -rf .run
