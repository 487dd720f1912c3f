#!/usr/bin/env bash
# Sets up a fresh machine and runs ALL tests: the C++ unit tests (GoogleTest
# via CTest) and the end-to-end tests (pytest, Triton's CPU interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build/tests -G Ninja -DC2T_BUILD_TESTS=ON -DC2T_BUILD_PYTHON=OFF >/dev/null
cmake --build build/tests -j2
ctest --test-dir build/tests --output-on-failure -j2
python3 -m pytest -q -rs -p no:cacheprovider tests  # -rs: why each skipped test skipped
