#!/usr/bin/env bash
# The test command: set up the toolchain, build the default preset (optimised, debug checks on)
# and run every test: host protocol, stress (plus ThreadSanitizer), compile-fail, checker, CUDA
# build, GPU (skipped without a GPU) and the downstream-package test.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake_bin=$(scripts/setup.sh)
ctest_bin="$(dirname "$cmake_bin")/ctest"

"$cmake_bin" --preset default
"$cmake_bin" --build --preset default
# Tests side by side, one per core: tests that build in the main tree hold a resource lock.
"$ctest_bin" --preset default --timeout 1200 --parallel "$(nproc)" "$@"
