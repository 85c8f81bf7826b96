# Entry points (see README):
#   make demo                 set up the environment, run the whole workflow on the demo campaigns
#   make run CONFIG=my.yaml   run the workflow on your own campaigns (after `make setup`)
#   make test                 set up the environment and run the test suite
#   make docs                 regenerate the generated references (config keys, measures, presets)
# `make demo` and `make run` are also the commands to resume a run that was
# killed: type the same command again (workflow/run.py clears a stale lock only
# when no other run is active in the folder).
#
# Paths are relative to this Makefile, so `make -f /path/to/qacamp/Makefile run
# CONFIG=...` works from any folder (the workflow runs in the current folder).
ROOT    := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
PYTHON  ?= python3
VENV    ?= $(ROOT)/.venv
CORES   ?= 2
CONFIG  ?= config/config.yaml
PROFILE ?= $(ROOT)/workflow/profiles/default
ARGS    ?=
BIN     := $(VENV)/bin
# Values reach the recipes as environment variables, expanded by the shell
# inside double quotes, so a file name is never parsed as shell code.
export QACAMP_ROOT := $(ROOT)
export QACAMP_BIN := $(BIN)
# (REPORT is given its default before the export: `export` of an undefined
# variable defines it as empty, and a later `?=` would then never apply)
REPORT  ?= results-demo/report.html
export CONFIG PROFILE CORES ARGS REPORT
RUN      = PATH="$$QACAMP_BIN:$$PATH" "$$QACAMP_BIN/python" "$$QACAMP_ROOT/workflow/run.py" --workflow-profile "$$PROFILE" --cores "$$CORES"
# qacamp's bytecode, compiled ahead (a few hundredths of a second when it is up
# to date): every workflow step is a new Python process, and where
# PYTHONDONTWRITEBYTECODE is set (CI, containers) each step would otherwise
# compile the package's sources again, ~0.1 s of CPU per step.  A syntax error
# is left for the command that imports the module to report.
BYTECODE = "$$QACAMP_BIN/python" -m compileall -q "$$QACAMP_ROOT/src" > /dev/null 2>&1 || true

.PHONY: demo run test setup lock report clean docs

$(BIN)/qacamp: $(ROOT)/pyproject.toml $(ROOT)/requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c $(ROOT)/requirements.lock -e '$(ROOT)[test]'
	touch $@

setup: $(BIN)/qacamp
	@$(BYTECODE)

# The demo config writes under results-demo/.
demo: setup
	@$(MAKE) --no-print-directory -f "$$QACAMP_ROOT/Makefile" run CONFIG=config/config.yaml

# Your own campaigns: make run CONFIG=my.yaml [PROFILE=workflow/profiles/slurm] [ARGS="..."]
run:
	@test -x "$$QACAMP_BIN/snakemake" || { echo "make run: no $$QACAMP_BIN/snakemake; run 'make setup' first" >&2; exit 2; }
	@$(BYTECODE)
	$(RUN) --configfile "$$CONFIG" $$ARGS

# Self-contained HTML report of a finished run: after `make demo`, `make report`
# writes results-demo/report.html; for your own campaigns
# `make report CONFIG=my.yaml REPORT=results/report.html`.
report:
	@test -x "$$QACAMP_BIN/snakemake" || { echo "make report: no $$QACAMP_BIN/snakemake; run 'make setup' first" >&2; exit 2; }
	$(RUN) --configfile "$$CONFIG" --report "$$REPORT"

# The tests run in one process per core and one more (pytest-xdist): the
# workflow tests wait on the processes they start (Snakemake's job polling,
# the SLURM queue), and the extra process keeps every core busy meanwhile.  A
# file at a time per process; the files reading the session's demo run go as
# one unit, so that run is made once (tests/conftest.py).
# `make test PYTEST_ARGS='-m "not slow"'` is the quick loop.  Bytecode may be
# written during the tests (PYTHONDONTWRITEBYTECODE emptied): pytest keeps the
# test modules it rewrites for its assertions in tests/__pycache__ only then,
# and each test process would otherwise rewrite all of them (~4 s of CPU).
TEST_PROCESSES ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")
test: setup
	PYTHONDONTWRITEBYTECODE= PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q -n $(TEST_PROCESSES) --dist loadscope --no-loadscope-reorder $(PYTEST_ARGS)

# The references generated from the code: config/README.md (the config schema),
# docs/measures.md (the measure registry), docs/presets.md (the presets); a test
# compares each committed file with what its generator writes.
docs: setup
	"$$QACAMP_BIN/qacamp" schema --markdown > "$$QACAMP_ROOT/config/README.md"
	"$$QACAMP_BIN/qacamp" measures --markdown > "$$QACAMP_ROOT/docs/measures.md"
	"$$QACAMP_BIN/qacamp" presets --markdown > "$$QACAMP_ROOT/docs/presets.md"

# Refresh the pinned versions after changing dependencies in pyproject.toml.
lock: setup
	$(BIN)/pip freeze --exclude-editable | grep -v '^-e ' > $(ROOT)/requirements.lock

clean:
	rm -rf results results-demo .snakemake
