# Quick start: `make run` opens the TUI on the bundled corpus, `make test` runs the suite, `make test-fast` the
# engine's and the command line's tests alone (the edit-run loop). 3 workers on 2 cores: a third fills the time the
# others wait (on a subprocess, on the event loop); a fourth finished no sooner (236 s both) for 40 s more of CPU,
# its own start and imports. loadgroup: a file whose tests share a costly module fixture names an
# xdist_group, and its tests run in one worker; tests/conftest.py hands out the longest work first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
STAMP_BENCH := $(VENV)/.installed-bench
STAMP_NEURAL := $(VENV)/.installed-neural
STAMP_QDRANT := $(VENV)/.installed-qdrant
# The CPU build: sentence-transformers asks for any torch, and an unpinned one is a CUDA build of several GB.
TORCH_VERSION ?= 2.13.0
# Installs say nothing unless they fail: --quiet for pip, and no warnings from the build backend (setuptools
# warns about every editable install, which would push `make run`'s and `make test`'s output off screen).
PIP_INSTALL := PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet
# uv installs the same versions as pip (the same resolution of pyproject's ranges) in a fraction of the time: a
# fresh clone's test install took 52 s with pip, 21 s with uv, its bytecode compiled (which the suite's workers
# would otherwise each do again). Where uv cannot be had or cannot reach the index, pip installs instead.
UV_INSTALL := $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python
INSTALL := sh -c '$(UV_INSTALL) "$$@" || $(PIP_INSTALL) "$$@"' install
# Every process of a run (each xdist worker) rewrites the test modules' asserts and compiles the project: with
# PYTHONDONTWRITEBYTECODE set in the environment nothing of that is kept, and each worker pays it again on every
# run (collection: about 10 s of CPU cold, 4.4 s with the cache kept). LangSmith's pytest plugin (installed with
# a test dependency, used by no test) costs each process about 1 s to import.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -rs --dist loadgroup -p no:langsmith_plugin

.PHONY: run test test-fast test-neural test-qdrant bench mutants clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) uv || true

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(INSTALL) -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(INSTALL) -e ".[test]"
	touch $@ $(STAMP_RUN)

$(STAMP_BENCH): pyproject.toml | $(BIN)/python
	$(INSTALL) -e ".[test,bench]"
	touch $@ $(STAMP_TEST) $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/ranklens $(CORPUS)

# Lint: ruff over the tree first (a second), then mypy over the engine, the command line, the TUI and the
# benchmarks (pyproject configures both) beside the tests, on the share of the two cores the test workers leave
# idle (their start, their waits, the last tests); its report follows the tests', and either failing fails the run.
test: $(STAMP_TEST)
	$(BIN)/ruff check --quiet .
	$(BIN)/mypy > $(VENV)/mypy.log 2>&1 & typing=$$!; \
	$(PYTEST) -n 3 $(PYTEST_ARGS); tests=$$?; \
	wait $$typing; typed=$$?; cat $(VENV)/mypy.log; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# The lanes tests/conftest.py marks engine and cli: not the TUI, not the benchmark script; ruff, not mypy. The
# property tests draw a third of their examples (tests/support/examples.py); `make test` draws them all.
test-fast: $(STAMP_TEST)
	$(BIN)/ruff check --quiet .
	$(PYTEST) -n 2 -m "engine or cli" --hypothesis-profile=fast $(PYTEST_ARGS)

# pip, not uv: pip's own configuration says where torch's CPU build is found, and uv would take a CUDA build.
$(STAMP_NEURAL): pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) "torch==$(TORCH_VERSION)"
	$(PIP_INSTALL) -e ".[test,neural]"
	touch $@ $(STAMP_TEST) $(STAMP_RUN)

# Beside each extra's own files, the files with a test that skips without it (tests/test_extras_lanes.py keeps
# these lists whole): `make test` runs before CI installs the extras.
NEURAL_TESTS := $(wildcard tests/test_neural_*.py) tests/test_cli_rerank_unloadable.py tests/test_fusion_sweep_fast.py \
	tests/test_token_chunker.py tests/test_lab.py
QDRANT_TESTS := $(wildcard tests/test_qdrant_*.py) tests/test_ranking_rule.py

# The neural extra's tests (tiny models built in the tests, never a download); `make test` skips them
# without the extra. One torch thread per worker: two workers on two cores, each spinning two threads,
# run several times slower.
test-neural: $(STAMP_NEURAL)
	HF_HUB_OFFLINE=1 OMP_NUM_THREADS=1 $(PYTEST) -n 2 $(NEURAL_TESTS) $(PYTEST_ARGS)

$(STAMP_QDRANT): pyproject.toml | $(BIN)/python
	$(INSTALL) -e ".[test,qdrant]"
	touch $@ $(STAMP_TEST) $(STAMP_RUN)

# The qdrant extra's tests: Qdrant Edge shards, and the server path against qdrant-client's in-process local
# mode (the client's stand-in for a server; no server runs); `make test` skips them, saying why, without the extra.
test-qdrant: $(STAMP_QDRANT)
	$(PYTEST) -n 2 $(QDRANT_TESTS) $(PYTEST_ARGS)

bench: $(STAMP_BENCH)
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)

# Curated one-line mutations of engine/, each against the tests that should catch it, on a
# temporary copy of the tree (never the tree itself); lists the survivors. Before a release, not in CI.
mutants: $(STAMP_TEST)
	$(BIN)/python tools/mutants.py $(MUTANTS_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
