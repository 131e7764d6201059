#!/usr/bin/env bash
# The C interface's tests: the crate's own Rust tests (the header is current, panics are caught),
# then the C test program built with the system cc against libslabclip.a and run on the
# library's answers written by the example `expected`, then the C example of docs/guide/c.md
# compiled from the page and linked against libslabclip.so. Exits non-zero on any failure.
#
#   capi/test.sh                 from anywhere
#   CARGO_TARGET_DIR=DIR         where cargo builds (default: the repository's target/, shared
#                                with the library's own builds)
#   CC=clang                     the C compiler (default cc)
#   SLABCLIP_CAPI_EXPECTED=FILE  the example `expected`, already built, and the crate's Rust tests
#                                already run: scripts/test.sh's `cargo test` does both (the crate
#                                is a default member of the workspace)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
release=$CARGO_TARGET_DIR/release
work=$CARGO_TARGET_DIR/tmp/capi-test
cc=${CC:-cc}
cflags=(-O2 -Wall -Wextra -Werror -Icapi/include)
# What libslabclip.a needs from the system (rustc --print native-static-libs).
libs=(-lpthread -ldl -lm -lrt -lutil)

expected=${SLABCLIP_CAPI_EXPECTED:-}
if [ -z "$expected" ]; then
  echo "== cargo test (capi: include/slabclip.h is current, panics become a status)"
  cargo test --manifest-path capi/Cargo.toml --lib --test header
  # The test profile, as the tests: the dev-dependencies' features stay out of the release
  # build below.
  cargo build --profile test --manifest-path capi/Cargo.toml --example expected
  expected=$CARGO_TARGET_DIR/debug/examples/expected
fi

# The library alone (no example, no dev-dependencies): the library compiled for the Python
# wheel is reused when it was built first (Cargo.toml says how).
echo "== cargo build --release --lib (libslabclip.a, libslabclip.so)"
cargo build --release --manifest-path capi/Cargo.toml --lib

echo "== the library's answers on the shared workloads"
rm -rf "$work"
mkdir -p "$work"
"$expected" "$work/expected"

echo "== $cc -std=c11 capi/tests/test_capi.c (static) and the header alone as C99 and C++"
"$cc" -std=c11 -pthread "${cflags[@]}" capi/tests/test_capi.c "$release/libslabclip.a" \
  "${libs[@]}" -o "$work/test_capi"
echo '#include "slabclip.h"' > "$work/header.c"
"$cc" -std=c99 -pedantic "${cflags[@]}" -fsyntax-only "$work/header.c"
if command -v c++ >/dev/null; then
  c++ -std=c++11 -Wall -Wextra -Werror -Icapi/include -fsyntax-only -x c++ "$work/header.c"
fi

echo "== test_capi"
"$work/test_capi" "$work/expected"

# The example of docs/guide/c.md, exactly as the page shows it: the first ```c block after the
# line `<!-- example -->`, and its output, the ```text block after it.
echo "== the example of docs/guide/c.md (C99, linked against libslabclip.so)"
block() { # $1: the fence's language; prints the first such block after the marker
  awk -v lang="$1" '/<!-- example -->/ { on = 1 } on && $0 == "```" lang { inside = 1; next }
    inside && $0 == "```" { exit } inside { print }' docs/guide/c.md
}
block c > "$work/example.c"
block text > "$work/example.expected"
test -s "$work/example.c" && test -s "$work/example.expected"
"$cc" -std=c99 "${cflags[@]}" "$work/example.c" -L"$release" -lslabclip -Wl,-rpath,"$release" \
  -o "$work/example"
"$work/example" > "$work/example.out"
if diff -u "$work/example.expected" "$work/example.out"; then
  echo "ok   the example prints what the page says"
else
  echo "FAIL the example's output differs from the page's (diff above)"
  exit 1
fi
# README.md shows the same example: its first ```c block must be the page's.
awk '$0 == "```c" { inside = 1; next } inside && $0 == "```" { exit } inside { print }' README.md \
  > "$work/readme.c"
if diff -u "$work/example.c" "$work/readme.c"; then
  echo "ok   README.md's C example is the page's"
else
  echo "FAIL README.md's C example differs from docs/guide/c.md's (diff above)"
  exit 1
fi
echo "capi: all checks passed"
