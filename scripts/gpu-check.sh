#!/usr/bin/env bash
# gpu-check.sh — on a GPU machine: build, run the whole test suite, check every
# op's smoke sweep with fuzzed cases, and time the default sweeps.
#
#   scripts/gpu-check.sh                 # every op
#   scripts/gpu-check.sh preprocess nms  # only these ops (tests: all)
#   KB_SWEEP=smoke KB_MAX_TIME=0.5 scripts/gpu-check.sh topk
#   KB_STAGES="check run" scripts/gpu-check.sh deform_conv2d
#   KB_STAGES="ctest check run" KB_CTEST=deform KB_VARIANTS=nhwc_fused_f16 \
#       scripts/gpu-check.sh deform_conv2d    # one family while developing it
#
# The stages and the other KB_* knobs: beside their code below.
# One device call is at most 10 minutes: split a full check over calls by stage.
# Everything lands in $OUT (default results/gpu-check): summary.md (the tables),
# ctest.log, and gpu-check.tar.gz with every CSV, JSON-lines file and log.
# The device tool brings back at most 8 files from $OUT: keep it that way.
# Exits 1 when a stage failed: a test, a check, a built-in row of a run that
# did not PASS, a sanitizer report. A run whose only failed rows are peers'
# (a library's FAIL is a finding about it) says so in the summary and passes.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
source scripts/gpu-lib.sh
OUT=${OUT:-results/gpu-check}
SWEEP=${KB_SWEEP:-default}
MAX_TIME=${KB_MAX_TIME:-1}
# KB_TIMER=kernels adds CUPTI's kernel time to the run stage's rows (kernel_us,
# span_us, ...; `kbench run --timer`); events alone by default.
TIMER=${KB_TIMER:-events}
BUILD=${KB_BUILD:-build}
# KB_STAGES picks what runs after the build (default: all but sanitize):
#   ctest     the whole test suite
#   check     `kbench check OP --sweep smoke --fuzz 30`, and OP's index_limits
#             sweep where it has one
#   run       `kbench run OP --sweep $KB_SWEEP` (default sweep), CSV + JSON-lines;
#             with the peers stage, `--peers` too: the library files of peers/
#             (torchvision, PyTorch, torch.compile, OpenCV, CV-CUDA, kornia,
#             RAFT) in the same run and the same file, rows peer:NAME
#   peers     (with run) the peers' rows; KB_NO_PEERS=1 drops them. KB_WHEELS
#             (folders, space-separated) holds the peers' libraries carried
#             as wheels (whole, or NAME.whl.part00... with a SHA256SUMS):
#             installed offline into KB_SITE (default /tmp/kb-site, outside
#             the tarball) before the first op, on PYTHONPATH for the worker;
#             the summary says what got in. A library left out is an
#             UNSUPPORTED row that says so
#   byok      the plugin example (libkb_example_plugin.so) and the Python
#             examples (examples/python/) beside the built-ins, smoke sweeps
#   modes     cold / hot / graph on one preprocess case
#   ncu       the README's Nsight Compute line (also KB_NCU=1)
#   sanitize  scripts/sanitize.sh over OP (compute-sanitizer; ~6 min for all ops)
# KB_VARIANTS (comma list) narrows check and run to those variants; KB_CTEST
# (a ctest -R regex) narrows the test suite. KB_ARCHS picks the CUDA
# architectures: unset, this machine's GPU; "fat", every architecture kbench
# supports (cmake/KbArchitectures.cmake); else a CMake list such as "80;90".
# Name a separate KB_BUILD folder per choice (the choice is cached).
STAGES=" ${KB_STAGES:-ctest check run peers byok modes} ${KB_NCU:+ncu} "
vsel=()
[ -n "${KB_VARIANTS:-}" ] && vsel=(-v "$KB_VARIANTS")
tsel=()
[ -n "${KB_CTEST:-}" ] && tsel=(-R "$KB_CTEST")
want() { [[ "$STAGES" == *" $1 "* ]]; }
peers=()
want peers && [ -z "${KB_NO_PEERS:-}" ] && peers=(--peers --python "${PYTHON:-python3}")
# Every CSV and log goes into one tarball, packed again after each op.
outputs summary.md gpu-check.tar.gz
if want peers && [ -n "${KB_WHEELS:-}" ]; then
    # shellcheck disable=SC2086 # a list of folders
    install_wheels "${KB_SITE:-/tmp/kb-site}" $KB_WHEELS
fi

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$work/nvidia-smi.csv" 2>&1
archs=()
case "${KB_ARCHS:-}" in
    "") ;;
    fat) archs=(-DKB_FAT_BUILD=ON) ;;
    *) archs=("-DCMAKE_CUDA_ARCHITECTURES=$KB_ARCHS") ;;
esac
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${archs[@]}" \
    >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; exit 1; }
start=$(date +%s)
if ! ninja -C "$BUILD" >"$work/build.log" 2>&1; then
    grep -E "error|FAILED" "$work/build.log" | head -40
    pack
    exit 1
fi
say "build: $(( $(date +%s) - start )) s, $(grep -c warning "$work/build.log") warning line(s)"
"$BUILD/kbench" info | tee "$work/info.txt" | tee -a "$summary"

ops=("$@")
[ ${#ops[@]} -eq 0 ] && mapfile -t ops < <("$BUILD/kbench" list --names | grep -v /)

start=$(date +%s)
want ctest && ctest --test-dir "$BUILD" "${tsel[@]}" -j 8 --output-on-failure --timeout 600 >"$OUT/ctest.log" 2>&1
if want ctest; then
    say "ctest: $(( $(date +%s) - start )) s: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
    grep -E "\*\*\*Failed|\*\*\*Skipped|Not Run|Timeout" "$OUT/ctest.log" | tee -a "$summary"
fi

status=0
for op in "${ops[@]}"; do
    say ""
    say "## $op"
    if want check; then
        "$BUILD/kbench" check "$op" "${vsel[@]}" --sweep smoke --fuzz 30 --format md -o "$work/check-$op.csv" \
            >"$work/check-$op.md" 2>&1 || status=1
        tail -2 "$work/check-$op.md" | tee -a "$summary"
        grep -E "\| (FAIL|ERROR|CRASH|TIMEOUT) \|" "$work/check-$op.md" | head -20 | tee -a "$summary"
        if "$BUILD/kbench" list "$op" | grep -E "^    index_limits " >/dev/null; then
            "$BUILD/kbench" check "$op" "${vsel[@]}" --sweep index_limits --format md \
                -o "$work/index_limits-$op.csv" >"$work/index_limits-$op.md" 2>&1 || status=1
            say "index_limits: $(tail -1 "$work/index_limits-$op.md")"
            grep -E "\| (FAIL|ERROR|CRASH|TIMEOUT) \|" "$work/index_limits-$op.md" | head -20 |
                tee -a "$summary"
        fi
    fi
    if want run; then
        "$BUILD/kbench" run "$op" "${vsel[@]}" "${peers[@]}" --sweep "$SWEEP" --max-time "$MAX_TIME" \
            --timer "$TIMER" --format md -o "$work/$op.csv" -o "$work/$op.jsonl" 2>&1 | grep -v "^> " | tee -a "$summary"
        rc=${PIPESTATUS[0]}
        # Exit 1 with only peers' rows failed: their findings, not this run's failure.
        read -r ours theirs < <(failed_rows "$work/$op.csv" 2>/dev/null || echo "0 0")
        if [ "$rc" -eq 1 ] && [ "${ours:-0}" -eq 0 ] && [ "${theirs:-0}" -gt 0 ]; then
            say "run $op: $theirs peer row(s) FAILed their check (findings about them); every built-in row passed"
        elif [ "$rc" -ne 0 ]; then
            status=1
            say "run $op: kbench exit $rc, ${ours:-?} built-in row(s) not PASS"
        fi
    fi
    pack
done
# ---- a user's kernels beside the built-ins: the plugin and Python examples ----
if want byok; then
    say ""
    say "## plugin and Python examples beside the built-ins (smoke)"
    for op in topk nms; do
        py=()
        for f in examples/python/*.py; do py+=(--py "$f"); done
        "$BUILD/kbench" run "$op" --plugin "$BUILD/libkb_example_plugin.so" "${py[@]}" \
            --python "${PYTHON:-python3}" --sweep smoke --max-time "$MAX_TIME" --format md \
            -o "$work/byok-$op.csv" 2>&1 | grep -v "^> " | tee -a "$summary"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
    pack
fi
# The three measurement modes on one case, side by side.
if want modes; then
    say ""
    say "## modes: preprocess n=16 1080p -> 640 bilinear"
    for mode in cold hot graph; do
        "$BUILD/kbench" run preprocess -a n=16 -a interp=bilinear --mode "$mode" \
            --max-time "$MAX_TIME" --format md -o "$work/modes-$mode.csv" 2>&1 |
            grep -E "^\| bilinear" | tee -a "$summary"
    done
fi

# The README's Nsight Compute line, to prove the NVTX filter isolates one variant.
if want ncu && command -v ncu >/dev/null; then
    ncu --nvtx --nvtx-include "regex:.*bilinear_vec.*/" --clock-control none -c 3 \
        "$BUILD/kbench" run preprocess -v bilinear_vec -a n=16 --no-check --min-samples 1 \
        --max-time 0 >"$work/ncu.log" 2>&1
    say "ncu (README line): $(grep -cE '^  void pp_vec' "$work/ncu.log") pp_vec kernel(s) profiled," \
        "$(grep -cE '^  [a-z_]+.*\(' "$work/ncu.log") kernel(s) in all"
    grep -E "^  [a-zA-Z_].*\(|==ERROR|==WARNING" "$work/ncu.log" | head -8 | tee -a "$summary"
fi
if want sanitize; then
    say ""
    say "## compute-sanitizer"
    OUT="$work/sanitize" KB_BUILD="$BUILD" scripts/sanitize.sh "${ops[@]}" >"$work/sanitize.log" 2>&1 || status=1
    # the runs that are not clean, then the counts
    { grep -E "^\| .* \| (TIMEOUT|[0-9]+ reports|kbench exit [0-9]+) \|" "$work/sanitize/summary.md"
        tail -1 "$work/sanitize/summary.md"; } 2>/dev/null | tee -a "$summary"
fi
pack
exit $status
