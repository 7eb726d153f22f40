#!/usr/bin/env bash
# fuzz.sh — build the libFuzzer targets (tests/fuzz/) with clang in build-fuzz
# and run each for a bounded time; fails on any crash, sanitizer report,
# timeout or out-of-memory. Needs clang and its libFuzzer runtime
# (Debian/Ubuntu: apt-get install clang libclang-rt-14-dev) and the CUDA
# headers (nothing is compiled by nvcc).
#
#   FUZZ_SECONDS=60 scripts/fuzz.sh [TARGET...]     (default: every target, 60 s each)
#
# Each target starts from tests/fuzz/corpus/<target> plus what earlier runs
# found (build-fuzz/corpus/<target>); a crashing input is left in
# build-fuzz/artifacts/ and its path printed: replay it with
# build-fuzz/<target> FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_npy fuzz_sweep_spec fuzz_sweep_file)
cc=${FUZZ_CC:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$cc" ]; then
    echo "fuzz.sh: clang not found (apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S tests/fuzz -B "$build" "${generator[@]}" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$build" -j "$(nproc)"

status=0
for t in "${targets[@]}"; do
    corpus="$build/corpus/$t"
    artifacts="$build/artifacts/$t"
    mkdir -p "$corpus" "$artifacts"
    log="$build/$t.log"
    echo "== $t: ${seconds}s"
    start=$(date +%s)
    if "$build/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
        echo "   ok: ${runs:-?} runs, $cov, corpus $(ls "$corpus" | wc -l) files," \
            "$(($(date +%s) - start))s"
    else
        status=1
        echo "   FAILED (log: $log):" >&2
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written|==[0-9]+==' "$log" | head -20 >&2 || true
    fi
done
exit $status
