# Two commands on a fresh machine: `make demo` and `make test`. Everything else they need is built here.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m service.demo

test: $(STAMP)
	scripts/llm-deps.sh $(BIN)/python
	$(BIN)/python -m pytest -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/pipeline.py
	$(BIN)/python bench/variety.py
	$(BIN)/python bench/fallback_compose.py
	$(BIN)/python bench/materialize.py
	$(BIN)/python bench/checklist.py
	$(BIN)/python bench/llm.py

clean:
	rm -rf $(VENV)
