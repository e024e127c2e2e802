# 952 Arena developer tasks. Run `make` (or `make help`) to list them.
#
# Everything runs from the project virtual environment $(VENV), which `make venv`
# creates with $(PYTHON) and refreshes only when pyproject.toml changes. `make demo` installs
# only what the demo runs (the arena, and the compiler of its engine); `make venv` (and every
# target that needs it, such as `make test`) installs the development extras too.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The stamps live inside the venv, so deleting the venv also invalidates them: one per install
# level, so that `make demo` (the arena alone) and then `make test` (everything) each install
# what they need in the same checkout.
STAMP := $(VENV)/.install.stamp
CORE_STAMP := $(VENV)/.install-core.stamp
# What `make demo` installs: the arena, and mypy and setuptools to compile its engine.
CORE_EXTRAS := engine
# What `make venv` installs: everything the tests, benchmarks and examples use.
DEV_EXTRAS := dev,bench,pettingzoo,ray
# The compiled engine (`make engine`, below), which making the venv builds.
ENGINE_SOURCES := $(addprefix arena/game/,state.py dealing.py exchange.py ending.py _native.py _build.py)
ENGINE_BUILD := arena/game/_compiled/SOURCES.json
# Extra arguments for pytest, e.g. `make test PYTEST_ARGS="-m 'not slow' -x"`.
PYTEST_ARGS ?=
# pytest-xdist workers for `make test` (the suite mostly waits on bot processes, so two
# workers on two cores take it from about 8 to about 5.5 minutes); 0 runs in one process.
# Work stealing keeps both busy to the end: a few tests take half a minute each, and
# handed out in fixed chunks they used to finish alone (668 s against 612 s here).
PYTEST_WORKERS ?= 2
# The fast tier: the tests that start no process, browser, PostgreSQL server or Ray cluster
# (tests/conftest.py marks each test by what it starts and fails an unmarked one that does),
# less the long random-playout tests marked slow.
FAST_TIER := not processes and not browser and not postgres and not ray and not slow
# pytest with the workers above; exit code 5 (no tests collected) is a failure here.
# PYTHONDONTWRITEBYTECODE is cleared for pytest itself (set, as in some CI images and
# containers, it stops pytest caching its assertion rewrites, and every worker rewrites
# every test module again: 7 s of collection each instead of 2). Bots never inherit it
# from here: the arena sets their environment (docs/protocol.md).
define run_pytest
	@status=0; PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(PYTEST_WORKERS) $(if $(filter 0,$(PYTEST_WORKERS)),,--dist worksteal) $(1) $(PYTEST_ARGS) || status=$$?; \
	if [ "$$status" -eq 5 ]; then \
		echo "error: pytest collected no tests (exit code 5). 'make $@' must run tests; check tests/ and PYTEST_ARGS." >&2; \
		exit 1; \
	fi; \
	exit "$$status"
endef

.PHONY: help venv venv-core bytecode demo demo-port demo-clean shell check test lint format bench \
	engine clean distclean check-python

help: ## List the targets
	@echo "952 Arena. Usage: make <target>   (PYTHON=$(PYTHON), VENV=$(VENV))"
	@echo
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-13s %s\n", $$1, $$2}' \
		$(MAKEFILE_LIST)

check-python: ## Check that PYTHON (default python3) is Python >= 3.11
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
		echo "error: '$(PYTHON)' not found. Install Python >= 3.11 or run: make PYTHON=/path/to/python3.11 venv" >&2; \
		exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "error: 952 Arena needs Python >= 3.11, but '$(PYTHON)' is $$($(PYTHON) -c 'import platform; print(platform.python_version())')." >&2; \
		echo "       Run: make PYTHON=python3.11 venv   (or any newer python3.x)" >&2; \
		exit 1; }

venv: $(STAMP) $(ENGINE_BUILD) ## Create .venv with the dev, bench, pettingzoo and ray extras; build the engine

venv-core: $(CORE_STAMP) $(ENGINE_BUILD) ## Create .venv with only what `make demo` runs; build the engine

# Creates $(VENV) if it has no python yet.
define make_venv
	@[ -x "$(BIN)/python" ] || { \
		echo "Creating $(VENV) with $$($(PYTHON) -c 'import sys; print(sys.executable, sys.version.split()[0])')"; \
		$(PYTHON) -m venv $(VENV); }
endef

$(STAMP): pyproject.toml | check-python
	$(make_venv)
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -e '.[$(DEV_EXTRAS)]'
	@touch $@

# A current full install holds the core one: nothing to install then.
$(CORE_STAMP): pyproject.toml | check-python
	$(make_venv)
	@if [ -f "$(STAMP)" ] && [ "$(STAMP)" -nt pyproject.toml ]; then \
		echo "$(VENV) already has the full install (make venv)"; \
	else \
		echo "$(BIN)/python -m pip install -e '.[$(CORE_EXTRAS)]'"; \
		$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -e '.[$(CORE_EXTRAS)]'; \
	fi
	@touch $@

# Bot processes run with PYTHONDONTWRITEBYTECODE (a bot must not write into the code it
# shares), so without this each one would compile arena's SDK from source at every start:
# ~15% of a bot's start-up instructions (docs/performance.md). compileall skips what is current.
bytecode: $(CORE_STAMP) ## Compile arena's and the sample bots' Python to bytecode (faster bot start-up)
	@$(BIN)/python -m compileall -q -j 0 arena sample_bots

# The demo's data (SQLite database and submitted bots) lives in runs/demo and is kept between
# runs: a second `make demo` reuses its bots, games and the password of `local`.
# `make demo FRESH=1` (or `make demo-clean`) starts anew. PORT is the dashboard's port.
DEMO_DATA ?= runs/demo
PORT ?= 8501
FRESH ?=
DEMO_BOTS := random_bot heuristic_bot greedy_bot
DEMO_ARENA := ARENA_DATA=$(DEMO_DATA) ARENA_DB= $(BIN)/arena
# Marks a demo data directory whose password of `local` was shown once: not reset again.
DEMO_PASSWORD_SHOWN := $(DEMO_DATA)/.local-password-shown
DEMO_EXPORT := export ARENA_DATA=$(abspath $(DEMO_DATA)) ARENA_DB=

# The port is checked first, with the system's python, before anything is installed or run.
demo: demo-port $(CORE_STAMP) $(ENGINE_BUILD) bytecode ## Demo tournament of the sample bots, then the dashboard (runs/demo; PORT=8501, FRESH=1)
	@if [ "$(FRESH)" = 1 ]; then echo "FRESH=1: starting anew (removing $(DEMO_DATA))"; rm -rf $(DEMO_DATA); \
	elif [ -e $(DEMO_DATA)/arena.db ]; then \
		echo "Reusing the demo's data in $(DEMO_DATA) (bots, games, the password of 'local');" \
			"start anew with: make demo FRESH=1 (or make demo-clean)"; fi
	for bot in $(DEMO_BOTS); do $(DEMO_ARENA) bot submit sample_bots/$$bot; done
	@$(DEMO_ARENA) tournament status demo >/dev/null 2>&1 || { \
		echo "$(DEMO_ARENA) tournament create demo ..."; \
		$(DEMO_ARENA) tournament create demo --ruleset classic --boards 8 --seed 1 \
			--bots $$(echo $(DEMO_BOTS) | tr ' ' ','); }
	$(DEMO_ARENA) tournament run demo
	@if [ -e $(DEMO_PASSWORD_SHOWN) ]; then \
		echo "Log in to the dashboard as 'local' with the password the first demo printed" \
			"(a new one: $(DEMO_ARENA) user reset local)"; \
	else \
		echo "Log in to the dashboard as 'local' (the host's organiser) to upload bots or run tournaments:"; \
		$(DEMO_ARENA) user reset local && touch $(DEMO_PASSWORD_SHOWN); \
	fi
	@echo "The demo's database and bots are in $(DEMO_DATA). To use them with the arena command:"
	@echo "    . $(BIN)/activate && $(DEMO_EXPORT)"
	@echo "or open a shell set up so: make shell"
	$(DEMO_ARENA) dashboard --port $(PORT)

demo-port: | check-python ## Check that the demo's dashboard port (PORT=8501) is free
	@$(PYTHON) scripts/port_free.py "$(PORT)"

demo-clean: ## Remove the demo's data (runs/demo): the next `make demo` starts anew
	rm -rf $(DEMO_DATA)

shell: $(CORE_STAMP) ## A shell with .venv active and ARENA_DATA set to the demo's data (runs/demo)
	@echo "arena commands in this shell use $(DEMO_DATA) ($(DEMO_EXPORT)); exit to leave"
	@$(DEMO_EXPORT) VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH && exec $${SHELL:-bash} -i

lint: venv ## Static checks: ruff check, ruff format --check, mypy --strict arena dashboard
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict arena dashboard

# The fast tier needs neither the compiled engine nor bytecode: it starts no bot process.
check: lint ## Static checks, then the fast tests (no processes, browser, PostgreSQL, Ray, slow)
	$(call run_pytest,-q -m "$(FAST_TIER)")

test: lint engine bytecode ## Static checks, then the whole test suite (pytest)
	$(call run_pytest,)

format: venv ## Rewrite files: ruff format, then ruff check --fix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: venv engine bytecode ## Engine benchmark (random playouts, compared with OpenSpiel's oh_hell)
	$(BIN)/python benchmarks/engine.py

# The compiled engine (arena/game/_native.py): mypyc compiles the hot modules again whenever
# their source changes; making the venv builds it. Without a C compiler ($(CC)) it is not
# built, one line says so, and everything runs as pure Python (same results, slower);
# arena.game never uses a build older than its source.
CC ?= cc

engine: $(ENGINE_BUILD) ## Compile the engine's hot modules with mypyc (optional, ~1.5x faster)

$(ENGINE_BUILD): $(ENGINE_SOURCES) | $(CORE_STAMP)
	@if ! command -v $(firstword $(CC)) >/dev/null 2>&1; then \
		echo "note: no C compiler ($(CC)) here: the engine runs as pure Python (same results, slower)" >&2; \
	elif $(BIN)/python -m arena.game._build > $(VENV)/engine-build.log 2>&1; then \
		echo "Compiled engine built (arena/game/_compiled)"; \
	else \
		echo "warning: compiled engine not built (see $(VENV)/engine-build.log); pure Python runs" >&2; \
	fi

clean: ## Remove generated files (runs/, caches, builds); keeps .venv
	rm -rf runs/ build/ dist/ .mypy_cache/ .ruff_cache/ .pytest_cache/ .hypothesis/ arena/game/_compiled/
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -print0 \
		| xargs -0 rm -rf

distclean: clean ## clean, and also remove .venv
	rm -rf $(VENV)
