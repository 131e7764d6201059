#!/usr/bin/env bash
# The one test command (README "Two commands", and what CI runs): the Rust suite exactly as
# `cargo test`, then the Python package built in release into its own virtual environment
# (created here, with everything it needs from PyPI) and its pytest suite.
#
#   ./scripts/test.sh              everything
#   SLABCLIP_VENV=DIR              where the virtual environment lives (default target/py-venv)
#   PYTHON=python3.12              the interpreter the environment is made from
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

echo "== cargo test"
cargo test

# The Python tests compare bit for bit with the command line built from the same sources.
echo "== cargo build --release (the slabclip binary the Python tests compare against, and the"
echo "   clip_calls example that the benchmark script's smoke test runs)"
cargo build --release --bin slabclip --example clip_calls

venv=${SLABCLIP_VENV:-$root/target/py-venv}
if [ ! -x "$venv/bin/python" ]; then
  echo "== creating $venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi
# The environment's tools first on PATH: maturin's build backend runs the `maturin` command.
export PATH="$venv/bin:$PATH"
echo "== pip install maturin numpy pytest hypothesis dask distributed shapely geopandas pyarrow geoarrow-pyarrow dask-geopandas"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin>=1.5,<2" "numpy>=1.22" pytest hypothesis \
  "dask[array]" distributed "shapely>=2" geopandas pyarrow geoarrow-pyarrow dask-geopandas

# The extension shares the root's target folder, so the library's compiled dependencies are
# reused; maturin builds it in release (target-cpu from .cargo/config.toml, as the library).
echo "== pip install ./python (release build of the extension)"
CARGO_TARGET_DIR="$root/target" "$venv/bin/python" -m pip install --quiet --no-build-isolation \
  --force-reinstall --no-deps ./python

echo "== pytest python/tests"
SLABCLIP_BIN="$root/target/release/slabclip" "$venv/bin/pytest" -q -p no:cacheprovider python/tests
