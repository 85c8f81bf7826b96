# Two entry points for a newcomer (see README):
#   make demo   set up the environment and run the whole workflow on the demo campaigns
#   make test   set up the environment and run the test suite
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
BIN    := $(VENV)/bin

.PHONY: demo test setup lock report clean

$(BIN)/qacamp: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c requirements.lock -e '.[test]'
	touch $@

setup: $(BIN)/qacamp

demo: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --workflow-profile workflow/profiles/default --cores $(CORES) --configfile config/config.yaml

report: demo
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores 1 --configfile config/config.yaml --report results/report.html

test: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q $(PYTEST_ARGS)

# Refresh the pinned versions after changing dependencies in pyproject.toml.
lock: setup
	$(BIN)/pip freeze --exclude-editable | grep -v '^-e ' > requirements.lock

clean:
	rm -rf results .snakemake
