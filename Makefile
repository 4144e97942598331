# pep671: CPython 3.13.5 + the PEP 671 patch series. A thin table of
# targets; the work is done by the programs in tools/ (each has --help).

PYTHON3         ?= python3
CONFIGURE_FLAGS ?=
JOBS            ?= $(shell nproc 2>/dev/null || echo 2)
TESTS           ?=
V               ?=

TARBALL  := build/Python-3.13.5.tar.xz
BASELINE_SERIES := build/baseline-series
VERBOSE  := $(if $(V),--verbose,)

.DEFAULT_GOAL := all
.NOTPARALLEL:
.PHONY: all build deps deps-check fetch tree baseline test regrtest pytest docs docs-check debug refleak asan freethreaded fuzz fuzz-grammar bench bench-quick bench-pyperformance demo status clean help

all: build ## fetch, patch, regenerate, configure, build -> ./python

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t14

deps: ## install the Debian build dependencies (as root)
	@$(PYTHON3) tools/deps install

deps-check:
	@$(PYTHON3) tools/deps check

fetch: deps-check ## get the pinned, verified upstream tarball
	@$(PYTHON3) tools/fetch_cpython --out $(TARBALL) --apt-dir build/apt

tree: fetch ## build/cpython = pristine upstream + patches/ (rebuilt when patches/ changed)
	@$(PYTHON3) tools/pq prepare --tarball $(TARBALL)

build: tree
	@$(PYTHON3) tools/build --tree build/cpython --name cpython --regen --jobs $(JOBS) \
		--configure-flags="$(CONFIGURE_FLAGS)" --link python $(VERBOSE)

baseline: fetch ## unpatched upstream, same configure flags -> build/baseline/python
	@mkdir -p $(BASELINE_SERIES) && touch $(BASELINE_SERIES)/series
	@$(PYTHON3) tools/pq prepare --tarball $(TARBALL) --tree build/baseline --patches $(BASELINE_SERIES)
	@$(PYTHON3) tools/build --tree build/baseline --name baseline --jobs $(JOBS) \
		--configure-flags="$(CONFIGURE_FLAGS)" $(VERBOSE)

test: build ## build, then the regression suite in parity mode, the docs check, then pytest
	@$(PYTHON3) tools/regrtest_parity --python ./python --baseline-python build/baseline/python \
		--build-baseline '$(MAKE) baseline CONFIGURE_FLAGS="$(CONFIGURE_FLAGS)"' \
		--jobs $(JOBS) --tests "$(TESTS)" --configure-flags="$(CONFIGURE_FLAGS)"
	@$(PYTHON3) tools/build_docs check
	@$(PYTHON3) tools/run_pytest --python ./python

regrtest: build ## CPython's regression suite in parity mode (TESTS="..." narrows it)
	@$(PYTHON3) tools/regrtest_parity --python ./python --baseline-python build/baseline/python \
		--build-baseline '$(MAKE) baseline CONFIGURE_FLAGS="$(CONFIGURE_FLAGS)"' \
		--jobs $(JOBS) --tests "$(TESTS)" --configure-flags="$(CONFIGURE_FLAGS)"

pytest: build ## tests/ with pytest, from a venv made by ./python -m venv
	@$(PYTHON3) tools/run_pytest --python ./python

# Reliability (issue 6): debug and sanitizer builds are clones of build/cpython, kept
# in sync with it (tools/pq may rewrite its history, hence fetch + reset).
REFLEAK_TESTS ?= test_late_bound_defaults test_late_bound_hostile test_grammar test_syntax test_opcache \
                 test_compile test_funcattrs test_symtable
FUZZ_SEED     ?= 671
FUZZ_SECONDS  ?= 60

define sync_clone
	@test -d $(1)/.git || git clone -q build/cpython $(1)
	@git -C $(1) fetch -q origin && git -C $(1) reset -q --hard FETCH_HEAD
endef

debug: tree ## a --with-pydebug build of the patched tree -> build/debug/python
	$(call sync_clone,build/debug)
	@$(PYTHON3) tools/build --tree build/debug --name debug --regen --jobs $(JOBS) \
		--configure-flags=--with-pydebug $(VERBOSE)

refleak: debug ## -R 3:3 on the late-default tests, on the debug build
	@env -u PYTHONUNBUFFERED -u PYTHONDONTWRITEBYTECODE build/debug/python -m test -R 3:3 $(REFLEAK_TESTS)
	@env -u PYTHONUNBUFFERED -u PYTHONDONTWRITEBYTECODE build/debug/python -m test -R 3:3 test_inspect -m '*LateBound*'

asan: tree ## an AddressSanitizer build -> build/asan/python, running the same tests
	$(call sync_clone,build/asan)
	@ASAN_OPTIONS=detect_leaks=0 $(PYTHON3) tools/build --tree build/asan --name asan --regen \
		--jobs $(JOBS) --configure-flags="--with-address-sanitizer --without-pymalloc" $(VERBOSE)
	@env -u PYTHONUNBUFFERED -u PYTHONDONTWRITEBYTECODE ASAN_OPTIONS=detect_leaks=0 \
		build/asan/python -m test $(REFLEAK_TESTS)

freethreaded: tree ## a --disable-gil build -> build/freethreaded/python, running the same tests
	$(call sync_clone,build/freethreaded)
	@$(PYTHON3) tools/build --tree build/freethreaded --name freethreaded --regen \
		--jobs $(JOBS) --configure-flags=--disable-gil $(VERBOSE)
	@env -u PYTHONUNBUFFERED -u PYTHONDONTWRITEBYTECODE PYTHON_GIL=0 \
		build/freethreaded/python -m test $(REFLEAK_TESTS)

fuzz: build ## the differential fuzzer for FUZZ_SECONDS (prints the seed of a mismatch)
	@./python tools/fuzz_late_defaults --seed $(FUZZ_SEED) --cases 0 --seconds $(FUZZ_SECONDS)

fuzz-grammar: build ## grammar fuzzing, FUZZ_SECONDS per mode: => injected into Lib/, hypothesmith
	@test -x build/venv/bin/python || $(PYTHON3) tools/run_pytest --python ./python -- --version >/dev/null
	@status=0; for mode in stdlib hypothesmith; do \
		build/venv/bin/python -m tools.fuzz_grammar $$mode --seed $(FUZZ_SEED) --cases 0 \
			--seconds $(FUZZ_SECONDS) || status=1; done; exit $$status

bench: build ## callgrind + pyperf micro pairs + pyperformance subset vs build/baseline -> build/bench/report.md
	@test -x build/baseline/python || $(MAKE) baseline CONFIGURE_FLAGS="$(CONFIGURE_FLAGS)"
	@$(PYTHON3) bench/run_bench --python ./python --baseline-python build/baseline/python

bench-quick: build ## callgrind micro pairs + a short pyperf run (no pyperformance), a few minutes
	@test -x build/baseline/python || $(MAKE) baseline CONFIGURE_FLAGS="$(CONFIGURE_FLAGS)"
	@$(PYTHON3) bench/run_bench --quick --python ./python --baseline-python build/baseline/python

bench-pyperformance: build ## the whole pyperformance suite, patched vs baseline
	@test -x build/baseline/python || $(MAKE) baseline CONFIGURE_FLAGS="$(CONFIGURE_FLAGS)"
	@$(PYTHON3) bench/run_bench --pyperformance all --no-callgrind --no-pyperf \
		--python ./python --baseline-python build/baseline/python

docs: tree ## the PEP (build/docs/pep/) and the CPython docs (build/docs/html/), no new warnings
	@$(PYTHON3) tools/build_docs cpython

docs-check: tree ## fast docs check (part of make test): the PEP with -W, sphinx-lint
	@$(PYTHON3) tools/build_docs check

demo: build ## run the short tour with ./python
	@./python examples/tour.py

status: ## does build/cpython have work that is not in patches/?
	@$(PYTHON3) tools/pq status

clean: ## remove build/ and ./python (refused while build/cpython has unexported work)
	@$(PYTHON3) tools/pq status >/dev/null || { $(PYTHON3) tools/pq status; \
		echo "refusing to delete build/cpython: export or discard that work first" >&2; exit 1; }
	rm -rf build python
