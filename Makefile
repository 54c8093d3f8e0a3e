# Every target bootstraps what it needs: .venv from a found CPython 3.12+, pinned by
# constraints.txt, and the few Debian packages that Slint and the screenshots need.
SHELL := /bin/bash
PYTHON_FOUND := $(shell tools/find-python 2>/dev/null)
VENV := .venv
PY := $(VENV)/bin/python
CACHE := $(CURDIR)/.cache
export PIP_CACHE_DIR := $(CACHE)/pip
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Bytecode is kept under .cache, never in the tree nor in .venv, even where
# PYTHONDONTWRITEBYTECODE is set: every process of the demo, the benches and the suite (each test
# worker, each process a test starts) compiles what it imports once, not on every run. So pip
# compiles nothing at install (--no-compile): Python would not read it from here.
export PYTHONPYCACHEPREFIX := $(CACHE)/pycache
unexport PYTHONDONTWRITEBYTECODE
STAMP := $(VENV)/.installed
SYSSTAMP := $(CACHE)/sysdeps.stamp
SYSPKGS := libinput10 xvfb xauth x11-apps imagemagick fonts-noto-cjk fonts-noto-color-emoji \
  fonts-dejavu-core

.PHONY: demo test test-busy test-fast fuzz lint bench chaos screenshots bundle venv sysdeps lock clean

venv: $(STAMP)

# A machine may configure local file:// package indexes (pip config list) that hold only some
# packages; pip then warns once per package that its folder there is missing. That says nothing
# about this project, so those lines are dropped; pip's exit status and other output are kept.
PIP_LOCAL_INDEX_NOISE := 2> >(grep -v "^WARNING: Location 'file:.*' is ignored: it is neither a file nor a directory" >&2)

# debconf says once that it has no interactive frontend (apt-utils is absent on slim images);
# nothing is asked during this install, so the line is dropped.
APT_NOISE := 2> >(grep -v "^debconf: delaying package configuration" >&2)

$(STAMP): pyproject.toml constraints.txt
	@if [ -z "$(PYTHON_FOUND)" ]; then tools/find-python; exit 1; fi
	@test -x $(PY) || $(PYTHON_FOUND) -m venv $(VENV)
	@echo "$(PY) -m pip install -q --no-compile --upgrade pip"
	@$(PY) -m pip install -q --no-compile --upgrade pip $(PIP_LOCAL_INDEX_NOISE)
	@echo "$(PY) -m pip install -q --no-compile -c constraints.txt -e '.[media,host,preview,dev]'"
	@$(PY) -m pip install -q --no-compile -c constraints.txt -e '.[media,host,preview,dev]' $(PIP_LOCAL_INDEX_NOISE)
	@touch $@

# Debian packages for Slint (libinput10), headless windows (Xvfb), and CJK text and colour
# emoji in screenshots.
sysdeps: $(SYSSTAMP)

# The list above can grow: the stamp is older than the Makefile then, and the check runs again.
$(SYSSTAMP): Makefile
	@mkdir -p $(CACHE)
	@missing=$$(for p in $(SYSPKGS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null \
	    $(APT_NOISE) \
	    || { echo "could not install: $$missing (need root or sudo)"; exit 1; }; \
	fi
	@touch $@

demo: venv sysdeps
	$(PY) -m cueboard_demo

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pyright -p pyproject.toml
	$(VENV)/bin/lint-imports --no-logo

# The suite on pytest-xdist workers, two a core: the end-to-end tests spend much of their time
# waiting for the processes they start (one a core leaves the cores idle then; one more worker
# only adds its start and collection to a suite that keeps both cores busy). A file's tests stay
# on one worker, so a module's fixture is built once. `make lint` runs beside the suite, in the
# time its workers wait, and its output is shown when both are done. Then the leak sweep, as a
# run of its own over every worker's share: both runs get the same ledger folder
# (tests/leaks.py). The sweep runs even when the suite failed; the run's folders are removed
# when everything passed, and kept (and named) otherwise.
# The first run after an install compiles what the suite imports in one process, beside the
# lint, before the workers start: each worker, and each process the tests start, would otherwise
# compile the same modules at the same moment (the bytecode folder starts empty in a new clone).
PYCSTAMP := $(CACHE)/pycache.stamp
WORKERS := $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 1) )))
PYTEST_SUITE := -q -n $(WORKERS) --dist loadfile --durations=15
test: venv sysdeps
	@run=$$(mktemp -d "$${TMPDIR:-/tmp}/cueboard-test.XXXXXX"); \
	echo "make lint   # ruff, format, pyright, import contracts: beside the suite, shown after it"; \
	$(MAKE) --no-print-directory lint > "$$run/lint.txt" 2>&1 & linter=$$!; \
	if [ ! $(PYCSTAMP) -nt $(STAMP) ]; then \
	  echo "$(PY) -m pytest --collect-only -q tests   # bytecode, once, in one process"; \
	  $(PY) -m pytest --collect-only -q -p no:cacheprovider tests > /dev/null 2>&1; \
	  $(PY) -m compileall -q extension > /dev/null 2>&1; touch $(PYCSTAMP); \
	fi; \
	echo "$(PY) -m pytest $(PYTEST_SUITE) --ignore=tests/zz_sweep tests"; \
	$(PY) -m pytest $(PYTEST_SUITE) --basetemp="$$run/suite" --leak-ledger="$$run/ledger" \
	  --ignore=tests/zz_sweep tests; suite=$$?; \
	wait $$linter; lint=$$?; \
	echo "== make lint"; cat "$$run/lint.txt"; \
	echo "$(PY) -m pytest -q tests/zz_sweep   # the leak sweep over every worker's share"; \
	$(PY) -m pytest -q --basetemp="$$run/sweep" --leak-ledger="$$run/ledger" \
	  tests/zz_sweep; sweep=$$?; \
	if [ $$lint = 0 ] && [ $$suite = 0 ] && [ $$sweep = 0 ]; then rm -rf "$$run"; \
	else echo "kept: $$run"; [ $$lint = 0 ] || echo "make lint failed (above)"; exit 1; fi

# The end-to-end tests three times in a row with both cores kept busy by two spinning processes
# (tools/burn-cpu): nothing in them may depend on how quickly the machine answers.
test-busy: venv sysdeps
	@$(PY) tools/burn-cpu 2 -- bash -c 'for i in 1 2 3; do echo "== run $$i of 3, both cores busy"; \
	  $(PY) -m pytest -q tests/e2e || exit 1; done'

test-fast: venv
	$(PY) -m pytest -q -m "not slow and not display" tests

# The property tests with fresh random examples (make test always tries the same ones).
fuzz: venv
	HYPOTHESIS_PROFILE=explore $(PY) -m pytest -q -m "not slow and not display" tests

# The whole fault matrix (every request kind x code x mode) and 200 --chaos seeds, two at a time.
chaos: venv sysdeps
	$(PY) -m tests.e2e.fault_matrix --seeds 200 --jobs 2

screenshots: venv sysdeps
	$(PY) -m cueboard_demo --screenshots docs/screenshots

# Every bench whole, one after another (minutes); a bench that fails is named at the
# end and the others still run. `make bench BENCH_ARGS=--quick`: each in its quick mode, as
# tests/bench/test_benches_quick.py runs them (seconds each; the figures mean little).
bench: venv sysdeps
	@failed=""; for b in bench/bench_*.py; do echo "== $$b $(BENCH_ARGS)"; \
	  $(PY) $$b $(BENCH_ARGS) || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "failed:$$failed"; exit 1; fi

BUNDLE_PLATFORMS := linux_x86_64 win_amd64

bundle: venv sysdeps
	@for p in $(BUNDLE_PLATFORMS); do $(PY) packaging/build.py --platform $$p --out dist || exit 1; done

# Regenerate the pins after changing pyproject.toml's dependencies.
lock:
	rm -rf $(CACHE)/lockvenv && $(PYTHON_FOUND) -m venv $(CACHE)/lockvenv
	$(CACHE)/lockvenv/bin/pip install -q -e '.[media,host,preview,dev]' $(PIP_LOCAL_INDEX_NOISE)
	$(CACHE)/lockvenv/bin/pip freeze --exclude-editable | grep -v '^-e' > constraints.txt

clean:
	rm -rf $(VENV) demo-out dist .pytest_cache .ruff_cache
