# pep671: CPython 3.13.5 + the PEP 671 patch series. A thin table of
# targets; the work is done by the Python modules of tools/ and bench/, run
# from this directory as `python3 -m tools.ROLE.NAME` (each has --help; the roles are
# tools/build, tools/check and tools/docs, beside tools/ecosystem and tools/dogfood).

PYTHON3            ?= python3
CONFIGURE_FLAGS    ?=
JOBS               ?= $(shell nproc 2>/dev/null || echo 2)
TESTS              ?=
V                  ?=
# The regression tests that exercise late-bound defaults: run with -R 3:3 by
# `make refleak`, and as they are by `make asan` and `make freethreaded`.
LATE_DEFAULT_TESTS ?= test_late_bound_defaults test_grammar test_syntax test_code \
                      test_opcache test_compile test_funcattrs test_symtable
FUZZ_SEED          ?= 671
FUZZ_SECONDS       ?= 60
# make libfuzzer: seconds per harness; make tsan: seconds of the threads' workload
LIBFUZZER_SECONDS  ?= 600
TSAN_SECONDS       ?= 300
# the interpreter `make oracles` tests (its venv, which has cloudpickle); e.g.
# build/asan/python or build/tier2/python
ORACLE_PYTHON      ?= $(VENV_PYTHON)
# where `make install` puts the interpreter: a directory no system Python uses, that
# the user can write without root
PREFIX             ?= $(HOME)/.local/pep671
# make dogfood: the lbdefaults verdicts whose rewrites of Lib/ are tested
DOGFOOD            ?= safe

# The build's paths, as in tools/paths.py (the tools default to those; these are the
# ones a recipe names itself).
PYTHON          := ./python
BUILD           := build
TREE            := $(BUILD)/cpython
BASELINE_PYTHON := $(BUILD)/baseline/python
VENV_PYTHON     := $(BUILD)/venv/bin/python
BENCH_PYTHON    := $(BUILD)/bench-venv/bin/python

TOOL            := $(PYTHON3) -m tools
BUILD_TREE      := $(TOOL).build.cpython --jobs $(JOBS) $(if $(V),--verbose,)
# what the patched interpreters call themselves in sys.version: pep671-<patches>-<digest>
BUILD_TAG       := --build-tag "$$($(TOOL).build.pq version)"
# the environment of CPython's tests: no PYTHON* variable (tools/common.py says why)
SCRUBBED        := $(TOOL).check.scrubbed
NEED_BASELINE   := test -x $(BASELINE_PYTHON) || $(MAKE) baseline CONFIGURE_FLAGS="$(CONFIGURE_FLAGS)"
PYTEST          := $(TOOL).check.run_pytest --python $(PYTHON)
BENCH           := $(PYTHON3) -m bench.run --python $(PYTHON) --baseline-python $(BASELINE_PYTHON)

# $(call late_tests,PYTHON,REGRTEST OPTIONS,SCRUBBED OPTIONS)
late_tests = $(SCRUBBED) $(3) -- $(1) -m test $(2) $(LATE_DEFAULT_TESTS)

# $(call clone_build,NAME,CONFIGURE FLAGS,ENVIRONMENT): $(BUILD)/NAME, a clone of
# $(TREE) kept in sync with it, configured with its own flags and built.
define clone_build
	@$(3) $(BUILD_TREE) --clone-of $(TREE) --tree $(BUILD)/$(1) --name $(1) --regen \
		--configure-flags="$(2)" $(BUILD_TAG)
endef

.DEFAULT_GOAL := all
.NOTPARALLEL:
.PHONY: all build deps deps-check fetch tree baseline noperf test regrtest pytest ecosystem \
	ecosystem-cargo-test ecosystem-jest-test docs docs-check \
	debug refleak asan freethreaded tier2 series-check fuzz oracles fuzz-grammar libfuzzer tsan bench bench-quick \
	bench-pyperformance bench-report dogfood migrate-check demo install dist wasm playground \
	playground-test status clean help

all: build ## fetch, patch, regenerate, configure, build -> ./python

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t22

deps: ## install the missing Debian build dependencies (as root; the first step of make)
	@$(TOOL).build.deps install

deps-check: ## check the Debian build dependencies; one message names the missing ones
	@$(TOOL).build.deps check

fetch: deps ## get the pinned, verified upstream tarball
	@$(TOOL).build.fetch_cpython

tree: fetch ## build/cpython = pristine upstream + patches/ (rebuilt when patches/ changed)
	@$(TOOL).build.pq prepare

build: tree ## regenerate, configure (when the flags changed) and build build/cpython -> ./python
	@$(BUILD_TREE) --tree $(TREE) --name cpython --regen \
		--configure-flags="$(CONFIGURE_FLAGS)" --link $(PYTHON) $(BUILD_TAG)

baseline: fetch ## unpatched upstream, same configure flags -> build/baseline/python
	@$(BUILD_TREE) --baseline --configure-flags="$(CONFIGURE_FLAGS)"

noperf: fetch ## the semantics part of the series alone (patches/semantics/, no performance follow-up), same configure flags -> build/noperf/python
	@$(BUILD_TREE) --series-prefix semantics --tree $(BUILD)/noperf --name noperf \
		--configure-flags="$(CONFIGURE_FLAGS)"

test: regrtest docs-check pytest ## build, then the regression suite in parity mode, the docs check, then pytest

regrtest: build ## CPython's regression suite in parity mode (TESTS="..." narrows it)
	@$(TOOL).check.regrtest_parity --python $(PYTHON) --baseline-python $(BASELINE_PYTHON) \
		--jobs $(JOBS) --tests "$(TESTS)" --configure-flags="$(CONFIGURE_FLAGS)"

pytest: build ## tests/ with pytest, from a venv made by ./python -m venv (builds build/baseline first: the oracle and opcode-number tests compare with it)
	@$(NEED_BASELINE)
	@$(PYTEST)

ecosystem: build ## ecosystem/patched/ tools stock and patched, in venvs of ./python, on =>: build/ecosystem/report.md
	@$(TOOL).ecosystem --python $(PYTHON)

ecosystem-cargo-test: build ## the cargo tests of the patched Rust tools (ruff, ty, ast_serialize, pyrefly): tens of minutes cold, not in make test
	@$(TOOL).ecosystem --python $(PYTHON) --no-stock --cargo-tests

ecosystem-jest-test: build ## the jest tests of the patched TypeScript tools (basedpyright): minutes, not in make test
	@$(TOOL).ecosystem --python $(PYTHON) --no-stock --jest-tests

debug: tree ## a --with-pydebug build of the patched tree -> build/debug/python
	$(call clone_build,debug,--with-pydebug)

refleak: debug ## -R 3:3 on LATE_DEFAULT_TESTS (and inspect's late-default tests), debug build
	@$(call late_tests,$(BUILD)/debug/python,-R 3:3)
	@$(SCRUBBED) -- $(BUILD)/debug/python -m test -R 3:3 test_inspect -m '*LateBound*'

asan: tree ## an AddressSanitizer build -> build/asan/python, running LATE_DEFAULT_TESTS
	$(call clone_build,asan,--with-address-sanitizer --without-pymalloc,ASAN_OPTIONS=detect_leaks=0)
	@ASAN_OPTIONS=detect_leaks=0 $(call late_tests,$(BUILD)/asan/python)

freethreaded: tree ## a --disable-gil build -> build/freethreaded/python (GIL off), running LATE_DEFAULT_TESTS
	$(call clone_build,freethreaded,--disable-gil)
	@$(call late_tests,$(BUILD)/freethreaded/python,,--set PYTHON_GIL=0)

tier2: tree ## a tier-2 build (--enable-experimental-jit=interpreter) -> build/tier2/python: LATE_DEFAULT_TESTS, test_capi.test_opt
	$(call clone_build,tier2,--enable-experimental-jit=interpreter)
	@$(call late_tests,$(BUILD)/tier2/python)
	@$(SCRUBBED) -- $(BUILD)/tier2/python -m test test_capi.test_opt

series-check: tree ## build each prefix of patches/series, the semantics then the performance follow-up, in build/series-check, check that regeneration reproduces its patch's generated files and run its patch's tests (slow: one build per patch)
	@$(TOOL).check.series_check --jobs $(JOBS)

fuzz: build ## the differential fuzzer for FUZZ_SECONDS (prints the seed of a mismatch)
	@$(PYTHON) -m tools.check.fuzz_late_defaults --seed $(FUZZ_SEED) --cases 0 --seconds $(FUZZ_SECONDS)

oracles: build ## the specialization, code-object and introspection oracles, FUZZ_SECONDS each (ORACLE_PYTHON: another build under test)
	@test -x $(VENV_PYTHON) || $(PYTEST) -- --version >/dev/null
	@$(NEED_BASELINE)
	@status=0; for oracle in specialization code-objects introspection; do \
		$(PYTHON3) -m tools.check.oracles $$oracle --python $(ORACLE_PYTHON) \
			--baseline-python $(BASELINE_PYTHON) --seed $(FUZZ_SEED) \
			--seconds $(FUZZ_SECONDS) --keep-going || status=1; done; exit $$status

fuzz-grammar: build ## grammar fuzzing, FUZZ_SECONDS per mode: => injected into Lib/, hypothesmith
	@test -x $(VENV_PYTHON) || $(PYTEST) -- --version >/dev/null
	@status=0; for mode in stdlib hypothesmith; do \
		$(VENV_PYTHON) -m tools.check.fuzz_grammar $$mode --seed $(FUZZ_SEED) --cases 0 \
			--seconds $(FUZZ_SECONDS) || status=1; done; exit $$status

libfuzzer: tree baseline ## CPython's fuzz_pycompile and our fuzz_marshal_code under libFuzzer + ASan + UBSan (clang), LIBFUZZER_SECONDS each -> build/libfuzzer-out/
	@$(TOOL).check.libfuzzer --jobs $(JOBS) --seconds $(LIBFUZZER_SECONDS) --seed $(FUZZ_SEED)

tsan: tree ## free-threaded ThreadSanitizer builds (clang) of the tree and of the baseline: test_late_bound_defaults, then TSAN_SECONDS of threads calling late defaults while others reassign them, beside the baseline's None-idiom twin
	@$(NEED_BASELINE)
	@$(TOOL).check.tsan --jobs $(JOBS) --seconds $(TSAN_SECONDS) --seed $(FUZZ_SEED)

bench: build ## callgrind + pyperf micro pairs + pyperformance subset vs build/baseline -> build/bench/
	@$(NEED_BASELINE)
	@$(BENCH)

bench-quick: build ## callgrind micro pairs + a short pyperf run (no pyperformance), a few minutes
	@$(NEED_BASELINE)
	@$(BENCH) --quick

bench-pyperformance: build ## the whole pyperformance suite, patched vs baseline
	@$(NEED_BASELINE)
	@$(BENCH) --pyperformance all --no-callgrind --no-pyperf

bench-report: ## render build/bench/report.md and report.png again from build/bench/results.json
	@test -x $(BENCH_PYTHON) || { echo "error: $(BENCH_PYTHON) is missing: measure first" \
		"(make bench-quick or make bench)" >&2; exit 1; }
	@$(BENCH_PYTHON) -m bench.report

dogfood: build ## Lib/ rewritten with => (DOGFOOD=safe or safe,needs-review): regrtest parity, bisection, pyperformance counts vs ./python -> build/dogfood/report.md
	@$(TOOL).dogfood --verdicts $(DOGFOOD) --python $(PYTHON) --jobs $(JOBS) --tests "$(TESTS)"

migrate-check: build ## lbdefaults' safe rewrites on 6 pinned PyPI releases, their suites before/after, a None probe each (minutes) -> build/migrate/report.md
	@./python -m tools.lbdefaults.migrate_check

docs: build ## the PEP, the CPython docs (no new warnings), the autodoc and mkdocs pages of examples/
	@status=0; $(TOOL).docs.build_docs cpython || status=1; \
		$(TOOL).docs.build_docs autodoc --python $(PYTHON) || status=1; \
		$(TOOL).docs.build_mkdocs --python $(PYTHON) || status=1; exit $$status

docs-check: tree ## fast docs check (part of make test): the PEP with -W, sphinx-lint, the Markdown's links and anchors
	@$(TOOL).docs.build_docs check

demo: build ## run the short tour with ./python
	@$(PYTHON) examples/tour.py

install: build ## install the interpreter into PREFIX (default ~/.local/pep671) like make altinstall
	@$(TOOL).build.install install --prefix "$(PREFIX)"

dist: build ## a relocatable build/dist/pep671-VERSION-PLATFORM.tar.xz and its SHA256SUMS; the playground's archive too when make wasm has run
	@$(TOOL).build.install dist
	@$(TOOL).docs.playground dist --only-if-built

wasm: build ## the patched interpreter cross-compiled to wasm32-wasi -> build/wasm/python.wasm + lib/python313.zip (cached)
	@$(TOOL).build.wasm build --jobs $(JOBS) $(BUILD_TAG)

playground: wasm ## a static page running python.wasm in the browser -> build/playground/
	@$(TOOL).docs.playground build

playground-test: playground ## python.wasm under Node.js's WASI, then the page in headless chromium
	@$(TOOL).docs.playground test --python $(PYTHON)

status: ## does build/cpython have work that is not in patches/?
	@$(TOOL).build.pq status

clean: ## remove build/ and ./python (refused while build/cpython has unexported work)
	@$(TOOL).build.pq status >/dev/null || { $(TOOL).build.pq status; \
		echo "refusing to delete build/cpython: export or discard that work first" >&2; exit 1; }
	rm -rf $(BUILD) $(PYTHON)
