# Two commands do all the set-up themselves: `make run` and `make test`.
# Each creates the virtual environment in .venv and installs what is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

SEED  ?= 1
DELAY ?= 0.15

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The main job. Until the service exists, it plays a simulated Gimmel game in the terminal.
run: $(STAMP)
	$(BIN)/companion simulate gimmel --games 1 --seed $(SEED) --show --delay $(DELAY)

# The whole test suite with lint.
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/playout_throughput.py
	$(BIN)/python benchmarks/serial_link.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
