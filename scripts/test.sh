#!/usr/bin/env bash
# test.sh — build everything and run the whole test suite (CPU suites run
# everywhere; GPU suites run where there is a device and are reported as
# skipped where there is none). This is the README's test command and what
# .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset default
cmake --build --preset default
ctest --preset default -j "$(nproc)"
