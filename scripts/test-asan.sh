#!/usr/bin/env bash
# test-asan.sh — the host code under AddressSanitizer + UndefinedBehaviorSanitizer:
# builds the `asan` preset (C compiled with -fsanitize=address,undefined in
# build-asan; nvcc's device code as in the default build) and runs the CPU
# tests (`ctest -L cpu`) there. Any sanitizer report stops the test and fails
# it (ASAN_OPTIONS / UBSAN_OPTIONS halt_on_error=1, set by the test preset).
# .ci/run calls this before scripts/test.sh.
#
#   scripts/test-asan.sh [ctest options]      e.g. -R test_npy
#
# Only what the CPU tests need is built (target kb_cpu_tests: kbench and the
# tests/cpu executables, and the libraries under them).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j "$(nproc)" "$@"
