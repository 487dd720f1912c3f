#!/usr/bin/env bash
# The C++ test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (gcc, option C2T_SANITIZE) in build/asan, for CI. Any sanitizer report makes
# the test that triggered it fail: C2T_SANITIZE builds with
# -fno-sanitize-recover=all, so UBSan aborts instead of printing and going on.
#
#   scripts/test-sanitizers.sh        env: JOBS (build parallelism, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."

# Stacks for UBSan findings (off by default); leaks are errors as well.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

cmake -S . -B build/asan -G Ninja -DC2T_BUILD_TESTS=ON -DC2T_BUILD_PYTHON=OFF -DC2T_SANITIZE=ON
cmake --build build/asan -j "${JOBS:-2}"
ctest --test-dir build/asan --output-on-failure
