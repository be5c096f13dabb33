# Pastor Online: `make setup` once, then `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup test lint run bench clean

setup:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 não encontrado (defina PYTHON=...)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned: its CPU build (a plain `torch` pulls a multi-GB CUDA build).
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# The tests start a real PostgreSQL from the system's server binaries; install them when missing.
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || command -v postgres >/dev/null 2>&1 || \
		{ echo "instalando o PostgreSQL (servidor) com apt"; \
		  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }

# One worker per core (at most 4), each test file whole in one worker (its module fixtures built once).
XDIST := --numprocesses=auto --maxprocesses=4 --dist=loadfile

test:
	$(BIN)/python -m pytest -q $(XDIST)
	# the pipeline and channel suites again, with the bot's state in PostgreSQL instead of SQLite
	$(BIN)/python -m pytest -q --database=postgresql tests/test_telegram.py tests/test_whatsapp.py \
		tests/test_devotional.py tests/test_pastor.py

lint:
	$(BIN)/ruff check .

run:
	$(BIN)/python -m bot

bench:
	$(BIN)/python bench/corpus_bench.py
	$(BIN)/python bench/retrieval_bench.py
	$(BIN)/python bench/pipeline_bench.py

clean:
	rm -rf $(VENV) .pytest_cache
