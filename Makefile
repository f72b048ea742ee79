# Everything runs from a fresh clone: the first target that needs Python creates .venv.
# `make build` compiles the Rust extension (release) into the venv with maturin, for the
# baseline x86-64 level; `make build NATIVE=1` for this machine's CPU (a few per cent
# faster, identical results; .cargo/config.toml). `make wheel` builds a portable wheel
# into $(DIST).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DIST ?= dist
NATIVE ?= 0
# RUSTFLAGS set by the caller wins; NATIVE=1 adds target-cpu=native.
CPU_FLAGS := $(if $(filter 1,$(NATIVE)),RUSTFLAGS="$(RUSTFLAGS) -C target-cpu=native",)
PY_DEPS := maturin pytest numpy pandas pyarrow matplotlib plotly distributed websocket-client nbclient nbformat ipykernel dpkt mkdocs

.PHONY: build run test bench wheel

# Stamp file: redone when this Makefile (and so the dependency list) changes.
$(VENV)/.deps: Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(PY_DEPS)
	touch $@

build: $(VENV)/.deps
	$(CPU_FLAGS) VIRTUAL_ENV="$(abspath $(VENV))" PATH="$(abspath $(BIN)):$$PATH" $(BIN)/maturin develop --release

# A wheel for any x86-64 Linux machine with Python >= 3.9 (abi3); never NATIVE.
wheel: $(VENV)/.deps
	VIRTUAL_ENV="$(abspath $(VENV))" PATH="$(abspath $(BIN)):$$PATH" $(BIN)/maturin build --release --out "$(DIST)"

run: build
	$(BIN)/dcnsim run examples/quickstart.toml --out results/quickstart

# `invariants`: the simulator checks its own bookkeeping after every event (issue 10);
# release builds without the feature compile the checks out.
# `scripts/arch_check.py`: no import cycle between the core's modules, no file over its
# line budget (docs/architecture.md, "Rules").
test: build
	$(BIN)/python scripts/arch_check.py
	cargo test --release -p dcnsim --features invariants
	$(BIN)/pytest -q tests

bench: build
	$(BIN)/dcnsim bench
