#!/usr/bin/env bash
# The one test command (README "Two commands", and what CI runs):
#   1. the Rust suite exactly as `cargo test` (every SIMD level the CPU has, in one binary);
#   2. the Python package built as the wheel users install;
#   3. the C interface (capi/test.sh; its Rust tests run in 1.): its header is current, and a C
#      program built with the system cc checks it bit for bit against the library;
#   4. the wheel put into a fresh virtual environment with no Rust toolchain on PATH, and its
#      pytest suite run against it (which compares the bits of every SIMD level this CPU runs,
#      forcing each in turn).
#
#   ./scripts/test.sh              everything
#   SLABCLIP_TEST_HEAVY=1          the heavy property tests at their full count of cases (by
#                                  default an eighth: about 3 minutes less)
#   SLABCLIP_VENV=DIR              the test environment (default target/py-venv; made afresh)
#   PYTHON=python3.12              the interpreter the environments are made from
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-python3}

# Three jobs run in the background while `cargo test` compiles and runs: the build environment
# with maturin, then the wheel built with it; and a fresh test environment with the package's
# dependencies and test extras (read from python/pyproject.toml), into which the wheel goes once
# it is built. The wheel compiles into a target folder of its own (target/wheel-build): cargo
# locks a target folder for a whole build, and the release build shares nothing with the test
# profile's but a few build scripts. Side by side the two compiles fill each other's idle core,
# which gains little here: the cores are mostly busy (docs/testing.md).
mkdir -p "$root/target"
build_venv=$root/target/build-venv
venv=${SLABCLIP_VENV:-$root/target/py-venv}
wheel_target=$root/target/wheel-build
envs_log=$root/target/python-envs.log
wheel_log=$root/target/wheel-build.log
echo "== in the background: $build_venv (maturin) and the wheel (log: $wheel_log), a fresh $venv (log: $envs_log)"
rm -rf "$venv" "$root/target/wheels"

# The release builds (the wheel, the C library) carry no debug info: a shorter build, and a
# smaller wheel, as a user's `pip wheel` or `cargo build --release` for shipping would be. The
# library is compiled once for the two: the C crate declares the crates whose features numpy
# turns on (capi/Cargo.toml), and builds only its library there (its tests and example run in
# `cargo test`).
export CARGO_PROFILE_RELEASE_DEBUG=0

# The wheel: maturin from its own small environment, the extension in release. abi3: one wheel
# for CPython 3.9 and later; maturin checks the manylinux tag against the symbols the library
# links. Then the C library from the same compiled library.
(
  set -e
  if [ ! -x "$build_venv/bin/maturin" ]; then
    "$python" -m venv "$build_venv"
    "$build_venv/bin/python" -m pip install --quiet --upgrade pip
    "$build_venv/bin/python" -m pip install --quiet "maturin>=1.5,<2"
  fi
  CARGO_TARGET_DIR="$wheel_target" "$build_venv/bin/maturin" build --release --quiet \
    --manifest-path python/Cargo.toml --out "$root/target/wheels"
  CARGO_TARGET_DIR="$wheel_target" cargo build --release --quiet --manifest-path capi/Cargo.toml --lib
) > "$wheel_log" 2>&1 &
wheel_job=$!
(
  set -e
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" - python/pyproject.toml > "$root/target/python-test-deps.txt" <<'PY'
import sys
try:
    import tomllib
except ImportError:  # before Python 3.11: the wheel's install below fetches them instead
    sys.exit(0)
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["test"]))
PY
  "$venv/bin/python" -m pip install --quiet -r "$root/target/python-test-deps.txt"
) > "$envs_log" 2>&1 &
envs=$!
trap 'kill "$envs" "$wheel_job" 2>/dev/null || true' EXIT

echo "== cargo test"
cargo test

echo "== the wheel (maturin build --release, abi3), waited for"
if ! wait "$wheel_job"; then
  cat "$wheel_log" >&2
  echo "error: building the wheel or the C library failed (above)" >&2
  exit 1
fi
wheel=$(ls "$root"/target/wheels/slabclip-*-abi3-*.whl)
echo "   $(basename "$wheel")"
if ! wait "$envs"; then
  cat "$envs_log" >&2
  echo "error: making the Python environments failed (above)" >&2
  exit 1
fi

# Its Rust tests ran in `cargo test` above, which built its example `expected` too.
echo "== capi/test.sh (the C interface)"
CARGO_TARGET_DIR="$wheel_target" SLABCLIP_CAPI_EXPECTED="$root/target/debug/examples/expected" \
  ./capi/test.sh

# A fresh environment, as a user's: the wheel and the test dependencies from PyPI, nothing
# built here.
echo "== the wheel into the fresh $venv"
"$venv/bin/python" -m pip install --quiet "$wheel[test]"

# PATH without any folder holding cargo or rustc: the installed wheel must need neither.
clean_path=$venv/bin
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ]; then
    clean_path+=":$d"
  fi
done
if PATH=$clean_path command -v cargo >/dev/null || PATH=$clean_path command -v rustc >/dev/null; then
  echo "error: cargo or rustc is still on the test PATH" >&2
  exit 1
fi

# At the best SIMD level this CPU runs (or SLABCLIP_SIMD's, if set). test_clip.py's
# test_simd_levels_give_the_same_bits forces every other level the CPU has from inside this one
# run and compares the kernels' bits; the Rust suite above ran every level too.
echo "== pytest python/tests against the wheel, no cargo or rustc on PATH"
# The Python tests compare bit for bit with the command line built from the same sources, and
# the benchmark script's smoke test runs the clip_calls example: both as `cargo test` built
# them above (the optimised test profile).
PATH=$clean_path SLABCLIP_BIN="$root/target/debug/slabclip" \
  SLABCLIP_CLIP_CALLS="$root/target/debug/examples/clip_calls" \
  pytest -q -p no:cacheprovider -n 2 python/tests
