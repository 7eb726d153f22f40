#!/usr/bin/env bash
# test.sh — build everything and run the whole test suite (CPU suites run
# everywhere; GPU suites run where there is a device and are reported as
# skipped where there is none). This is the README's test command and what
# .ci/run calls. Plain CMake, no preset: the path a user takes is the one
# tested. The CUDA architectures are cmake/KbArchitectures.cmake's choice
# (this machine's GPU, else a fat build); CUDAARCHS=90 (say) builds one.
#
#   scripts/test.sh            # build/ in the source tree
#   KB_BUILD=DIR scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
build=${KB_BUILD:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$(nproc)"
