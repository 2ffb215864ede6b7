# Two commands do all the set-up themselves: `make run` and `make test`.
# Each creates the virtual environment in .venv and installs what is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed


.PHONY: run test bench clean chromium

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The main job: the demo tables (bots, emulated die and Regie sensors) at
# http://127.0.0.1:8000/ ; PORT=8080 make run to change the port.
PORT ?= 8000
run: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(BIN)/companion serve --demo --port $(PORT)

# The browser test drives Debian's Chromium through its chromedriver: installed here
# when missing and run as root (as CI does); otherwise one line says how.
CHROMIUM     := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver
chromium:
	@if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "installing Debian's chromium and chromium-driver for the browser test"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y --no-install-recommends chromium chromium-driver; \
	else \
	  echo "the browser test needs $(CHROMIUM) and $(CHROMEDRIVER): sudo apt-get install -y --no-install-recommends chromium chromium-driver" >&2; \
	fi

# The whole test suite with lint.
test: $(STAMP) chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/playout_throughput.py
	$(BIN)/python benchmarks/serial_link.py
	$(BIN)/python benchmarks/live_latency.py
	$(BIN)/python benchmarks/registration.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
