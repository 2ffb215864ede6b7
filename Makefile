# Two commands do all the set-up themselves: `make run` and `make test`.
# Each creates the virtual environment in .venv and installs what is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed


.PHONY: run test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The main job: the demo tables (bots, emulated die and Regie sensors) at
# http://127.0.0.1:8000/ ; PORT=8080 make run to change the port.
PORT ?= 8000
run: $(STAMP)
	$(BIN)/companion serve --demo --port $(PORT)

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
