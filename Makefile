# Two set-up commands (README.md): `make demo` and `make test`. Both create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

DEMO_SOLVERS := --solvers=cfr_plus,dcfr,openspiel_cpp_cfr_plus,openspiel_py_cfr_plus

.PHONY: demo test test-fast results-check check bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip > $(VENV)/pip.log 2>&1 || (cat $(VENV)/pip.log; exit 1)

# The dask extra too, so that the Dask path of ospiel_ext.runtime.sweeps is tested, not skipped.
$(VENV)/.installed-test: $(BIN)/python setup.cfg pyproject.toml constraints.txt
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test,dask]' > $(VENV)/pip.log 2>&1 || (cat $(VENV)/pip.log; exit 1)
	touch $@

$(VENV)/.installed-check: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[check]' > $(VENV)/pip.log 2>&1 || (cat $(VENV)/pip.log; exit 1)
	touch $@

$(VENV)/.installed-demo: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[plot]' > $(VENV)/pip.log 2>&1 || (cat $(VENV)/pip.log; exit 1)
	touch $@

# The main job for a newcomer: two comparison tables, a plot, the next commands to try.
demo: $(VENV)/.installed-demo
	@echo "ospiel_ext demo: our CFR+ and DCFR (on numpy arrays compiled once) against OpenSpiel's"
	@echo "CFR+ in C++ and in Python, same iterations, on Kuhn poker and Leduc poker."
	@echo
	@$(BIN)/ospiel-ext compare --quiet --game=kuhn_poker --iterations=1000 $(DEMO_SOLVERS)
	@echo
	@$(BIN)/ospiel-ext compare --quiet --game=leduc_poker --iterations=100 $(DEMO_SOLVERS) --plot=demo_leduc.png --nolegend
	@echo
	@echo "next: $(BIN)/ospiel-ext --help                                      (every command)"
	@echo "      $(BIN)/ospiel-ext solve --game=leduc_poker --solver=lp --policy_out=leduc.json"
	@echo "      $(BIN)/ospiel-ext evaluate --game=leduc_poker --policy=leduc.json"
	@echo "      $(BIN)/ospiel-ext play --game=leduc_poker --policy=leduc.json --opponent=human --num_games=2"
	@echo "      docs/tutorial.md                                           (the library from Python)"

# The tests run on every core (pytest-xdist; at most 8 workers, each holds its compiled games;
# an idle worker takes tests queued for a busy one, so long tests do not end the run alone):
# `make test PYTEST_WORKERS=0` runs them in this process. pytest exits 5 when no test is
# collected; that is not a failure of the suite. Each worker's BLAS runs on one thread: the
# workers already fill the cores, and OpenBLAS threads that wait spinning beside another worker
# made the suite 8% slower (384 s against 355 s on 2 cores; the figures are the same).
PYTEST_WORKERS ?= auto
PYTEST := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --maxprocesses=8 --dist=worksteal

test: $(VENV)/.installed-test
	$(PYTEST) --durations=15; rc=$$?; [ $$rc -eq 5 ] && exit 0 || exit $$rc

# The tests not marked slow (setup.cfg declares the marker): a quick check while editing.
test-fast: $(VENV)/.installed-test
	$(PYTEST) -m "not slow"; rc=$$?; [ $$rc -eq 5 ] && exit 0 || exit $$rc

# A quick slice of every benchmark a doc cites, rerun and compared with its committed JSON, and
# every results JSON's provenance (tests/results; part of make test too).
results-check: $(VENV)/.installed-test
	$(PYTEST) tests/results

# Lint (docstrings, argument counts, complexity: ruff.toml), format and type checks (setup.cfg's
# [mypy]), and the layers of the package (no library module imports the command line, no import
# cycle, no game registered on import: tests/test_layers.py). Run by .ci/run before the tests.
check: $(VENV)/.installed-check
	$(BIN)/ruff check ospiel_ext scripts benchmarks tests
	$(BIN)/ruff format --check ospiel_ext scripts benchmarks tests
	$(BIN)/mypy ospiel_ext
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_layers.py

$(VENV)/.installed-docs: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[docs]' > $(VENV)/pip.log 2>&1 || (cat $(VENV)/pip.log; exit 1)
	touch $@

# The API reference from the docstrings (pdoc, Google style) into docs/api/. Warnings are
# errors, so an annotation or docstring pdoc cannot read fails the build (CI runs this). The
# commands are left out: each defines its absl flags on import (ospiel-ext <command> --help).
docs: $(VENV)/.installed-docs
	rm -rf docs/api
	$(BIN)/python -W error -m pdoc --docformat google -o docs/api ospiel_ext '!ospiel_ext.cli.commands' '!ospiel_ext.__main__'
	@echo "API reference: docs/api/index.html"

bench: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[bench]' > $(VENV)/pip.log 2>&1 || (cat $(VENV)/pip.log; exit 1)
	$(BIN)/python benchmarks/perf/speed.py

clean:
	rm -rf $(VENV) *.egg-info
