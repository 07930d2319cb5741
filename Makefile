# Two set-up commands (README.md): `make demo` and `make test`. Both create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

DEMO_SOLVERS := --solvers=cfr_plus,dcfr,openspiel_cpp_cfr_plus,openspiel_py_cfr_plus

.PHONY: demo test test-fast check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The dask extra too, so that the Dask path of ospiel_ext.sweeps is tested, not skipped.
$(VENV)/.installed-test: $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,dask]'
	touch $@

$(VENV)/.installed-check: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[check]'
	touch $@

demo: $(VENV)/.installed-test
	$(BIN)/python scripts/compare.py --game=kuhn_poker --iterations=1000 $(DEMO_SOLVERS)
	$(BIN)/python scripts/compare.py --game=leduc_poker --iterations=100 $(DEMO_SOLVERS)

# pytest exits 5 when no test is collected; that is not a failure of the suite.
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -p no:cacheprovider; rc=$$?; [ $$rc -eq 5 ] && exit 0 || exit $$rc

# The tests not marked slow (setup.cfg declares the marker): a quick check while editing.
test-fast: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow"; rc=$$?; [ $$rc -eq 5 ] && exit 0 || exit $$rc

# Lint, format and type checks of the library (run by .ci/run before the tests).
check: $(VENV)/.installed-check
	$(BIN)/ruff check ospiel_ext scripts benchmarks tests
	$(BIN)/ruff format --check ospiel_ext scripts benchmarks tests
	$(BIN)/mypy ospiel_ext

bench: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/speed.py

clean:
	rm -rf $(VENV) *.egg-info
