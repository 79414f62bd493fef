# Quick start: `make run` opens the TUI on the bundled corpus, `make test` runs the suite
# (4 workers: the TUI tests mostly wait on the event loop, so they overlap well on 2 cores).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
STAMP_BENCH := $(VENV)/.installed-bench

.PHONY: run test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(STAMP_RUN)

$(STAMP_BENCH): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	touch $@ $(STAMP_TEST) $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/ranklens $(CORPUS)

test: $(STAMP_TEST)
	$(BIN)/python -m pytest -q -n 4 $(PYTEST_ARGS)

bench: $(STAMP_BENCH)
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
