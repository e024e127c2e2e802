# 952 Arena developer tasks. Run `make` (or `make help`) to list them.
#
# Everything runs from the project virtual environment $(VENV), which `make venv`
# creates with $(PYTHON) and refreshes only when pyproject.toml changes.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The stamp lives inside the venv, so deleting the venv also invalidates it.
STAMP := $(VENV)/.install.stamp
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

.PHONY: help venv bytecode demo check test lint format bench engine clean distclean check-python

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

venv: $(STAMP) ## Create .venv and install the project with its dev, bench, pettingzoo and ray extras

$(STAMP): pyproject.toml | check-python
	@if [ -x "$(BIN)/python" ]; then \
		echo "Reusing $(VENV) (pyproject.toml changed or never installed)"; \
	else \
		echo "Creating $(VENV) with $$($(PYTHON) -c 'import sys; print(sys.executable, sys.version.split()[0])')"; \
		$(PYTHON) -m venv $(VENV); \
	fi
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -e '.[dev,bench,pettingzoo,ray]'
	@touch $@

# Bot processes run with PYTHONDONTWRITEBYTECODE (a bot must not write into the code it
# shares), so without this each one would compile arena's SDK from source at every start:
# ~15% of a bot's start-up instructions (docs/performance.md). compileall skips what is current.
bytecode: venv ## Compile arena's and the sample bots' Python to bytecode (faster bot start-up)
	@$(BIN)/python -m compileall -q -j 0 arena sample_bots

# The demo's data (SQLite database and submitted bots) lives in runs/demo, made anew each run.
DEMO_DATA ?= runs/demo
DEMO_BOTS := random_bot heuristic_bot greedy_bot
DEMO_ARENA := ARENA_DATA=$(DEMO_DATA) ARENA_DB= $(BIN)/arena

demo: venv bytecode ## Demo tournament of the sample bots with standings, then the dashboard (runs/demo)
	rm -rf $(DEMO_DATA)
	for bot in $(DEMO_BOTS); do $(DEMO_ARENA) bot submit sample_bots/$$bot; done
	$(DEMO_ARENA) tournament create demo --ruleset classic --boards 8 --seed 1 \
		--bots $$(echo $(DEMO_BOTS) | tr ' ' ',')
	$(DEMO_ARENA) tournament run demo
	@echo "Log in to the dashboard as 'local' (the host's organiser) to upload bots or run tournaments:"
	$(DEMO_ARENA) user reset local
	$(DEMO_ARENA) dashboard

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

bench: engine bytecode ## Engine benchmark (random playouts, compared with OpenSpiel's oh_hell)
	$(BIN)/python benchmarks/engine.py

# The compiled engine (arena/game/_native.py): mypyc compiles the hot modules again whenever
# their source changes. Without a C compiler the build fails, and everything runs as pure
# Python (same results, slower); arena.game never uses a build older than its source.
ENGINE_SOURCES := $(addprefix arena/game/,state.py dealing.py exchange.py ending.py _native.py _build.py)
ENGINE_BUILD := arena/game/_compiled/SOURCES.json

engine: $(ENGINE_BUILD) ## Compile the engine's hot modules with mypyc (optional, ~1.5x faster)

$(ENGINE_BUILD): $(ENGINE_SOURCES) | venv
	@$(BIN)/python -m arena.game._build > $(VENV)/engine-build.log 2>&1 \
		&& echo "Compiled engine built (arena/game/_compiled)" \
		|| echo "warning: compiled engine not built (see $(VENV)/engine-build.log); pure Python runs" >&2

clean: ## Remove generated files (runs/, caches, builds); keeps .venv
	rm -rf runs/ build/ dist/ .mypy_cache/ .ruff_cache/ .pytest_cache/ .hypothesis/ arena/game/_compiled/
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -print0 \
		| xargs -0 rm -rf

distclean: clean ## clean, and also remove .venv
	rm -rf $(VENV)
