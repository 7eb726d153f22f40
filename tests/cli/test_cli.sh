#!/usr/bin/env bash
# CLI behaviour without a GPU: every error names the offending thing and
# exits with its documented code. Run by CTest with KBENCH set to the binary.
set -u
k=${KBENCH:-build/kbench}
pass=0 fail=0

# expect CODE PATTERN -- ARGS...: exit code CODE and output matching PATTERN
# (run under the command in the array `prefix`, when set).
prefix=()
expect() {
    local code=$1 pattern=$2
    shift 3
    local out
    out=$(${prefix[@]+"${prefix[@]}"} "$k" "$@" 2>&1)
    local rc=$?
    if [[ $rc -eq $code && $out =~ $pattern ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: kbench $* -> exit $rc (want $code), output:"
        echo "$out" | head -5 | sed 's/^/    /'
        echo "    (wanted /$pattern/)"
    fi
}

expect 0 "usage: kbench COMMAND" -- --help
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 "preprocess" -- list
expect 0 "interp" -- list preprocess
expect 0 "bilinear_vec" -- list preprocess
expect 2 "unknown op 'nope'" -- list nope
expect 0 "^preprocess" -- list --names
for cmd in list run check info plot report compare; do
    expect 0 "usage: kbench $cmd" -- $cmd --help
done
expect 2 "unknown op 'nope'.*preprocess" -- run nope
expect 2 "has no axis 'bogus'" -- run preprocess -a bogus=3
expect 2 "n=0: out of range \(expected an integer in \[1, 256\]\)" -- run preprocess -a n=0
expect 2 "n=1.5: not an integer" -- run preprocess -a n=1.5
expect 2 "interp=cubic: unknown value \(expected one of nearest,bilinear,letterbox\)" -- \
    run preprocess -a interp=cubic
expect 2 "bad range" -- run preprocess -a n=[1:x]
expect 2 "never reaches its end" -- run preprocess -a n=[8:1]
expect 2 "has no variant 'fast'" -- run preprocess -v fast
expect 2 "neither a sweep of preprocess" -- run preprocess --sweep nosuch
expect 2 "--mode warm: expected cold, hot or graph" -- run preprocess --mode warm
expect 2 "--max-noise abc" -- run preprocess --max-noise abc
expect 2 "unknown option '--bogus'" -- run preprocess --bogus
expect 2 "image=/no/such.jpg: cannot open" -- run preprocess -a image=/no/such.jpg
expect 2 "which op" -- run
if ! nvidia-smi >/dev/null 2>&1; then
    # No device: run and check say so with exit 3, after validating the cases.
    expect 3 "no CUDA device" -- run preprocess --sweep smoke
    expect 3 "no CUDA device" -- check preprocess
    expect 0 "no CUDA device" -- info
    # --resume repairs a partial last line before it learns there is no device
    resume_file=$(mktemp)
    printf '# kbench x\nop,variant,params,mode,status\npreprocess,nearest_naive,n=1,cold,PASS\npreproc' \
        >"$resume_file"
    expect 3 "dropped a partial last line \(7 bytes\)" -- run preprocess --resume "$resume_file"
    if [[ $(tail -c 1 "$resume_file" | od -An -c | tr -d ' ') == '\n' ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: --resume left the partial line"
    fi
    printf 'not,a,kbench\n"unterminated\n' >"$resume_file"
    expect 2 "--resume .*: " -- run preprocess --resume "$resume_file"
    rm -f "$resume_file"
fi

# ---- results read back: plot, report, compare (fixtures in tests/data) ----
d=tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect_file FILE PATTERN: FILE exists and has a line matching PATTERN.
expect_file() {
    if grep -Eq -- "$2" "$1" 2>/dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1 missing or without /$2/"
    fi
}
expect 2 "needs two files" -- compare $d/nms.csv
expect 2 "no_such.csv: cannot open" -- compare $d/nms.csv $d/no_such.csv
expect 2 "--format html: expected table or md" -- compare $d/nms.csv $d/nms.csv --format html
expect 2 "--threshold abc" -- compare $d/nms.csv $d/nms.csv --threshold abc
expect 0 "25 SAME" -- compare $d/nms.csv $d/nms.csv
expect 0 "1 FASTER, 1 ADDED, 1 REMOVED" -- compare $d/nms.csv $d/nms_rerun.csv
expect 5 "SLOWER +nms +bitmask_gpu +n=25200 .*\+18\.0%" -- compare $d/nms.csv $d/nms_slower.csv
expect 0 "threshold 20.0%.*25 SAME" -- compare $d/nms.csv $d/nms_slower.csv --threshold 20
expect 5 "went from PASS to FAIL.*BROKEN +nms +bitmask_gpu" -- compare $d/nms.csv $d/nms_broken.csv
expect 5 "\| SLOWER \| nms \| bitmask_gpu \|" -- compare $d/nms.csv $d/nms_slower.csv --format md
expect 2 "which results" -- plot
expect 2 "no_such.csv: cannot open" -- plot $d/no_such.csv
expect 2 "partial_last_line.csv:7: last line cut short.*--baseline nope: no row" -- \
    plot $d/partial_last_line.csv --baseline nope -o "$tmp/p0"
expect 2 "--format jpg: expected png, svg or png,svg" -- plot $d/nms.csv --format jpg
prefix=(env PATH=/nonexistent)
expect 4 "gnuplot is not on PATH" -- plot $d/nms.csv -o "$tmp/scripts"
prefix=()
expect_file "$tmp/scripts/nms.nms.time.gp" "nms.nms.time.dat"
if command -v gnuplot >/dev/null; then
    expect 0 "nms.nms.speedup.png .svg.*No baseline ran on: n=100000" -- \
        plot $d/nms.csv -o "$tmp/plots"
    for f in nms.nms.time.png nms.nms.time.svg nms.nms.pairwise_fast_vs_exact.png; do
        expect_file "$tmp/plots/$f" "."
    done
    code=0
else
    code=4
fi
expect $code "report.html" -- report $d/preprocess.csv $d/preprocess_peers.csv $d/nms.csv \
    $d/deform_conv2d.csv -o "$tmp/report"
for f in report.md report.html; do
    for op in preprocess nms deform_conv2d; do expect_file "$tmp/report/$f" "$op \(cold mode\)"; done
    expect_file "$tmp/report/$f" "IoU mask of 1250400000 bytes" # an UNSUPPORTED row, listed
done
expect_file "$tmp/report/report.md" "^\| n=16 \| bilinear_vec \| 72.40 us ± 0.3% \| 2.37× over bilinear_naive"
[[ $code -eq 0 ]] && expect_file "$tmp/report/report.html" "src=\"data:image/svg\+xml;base64,"

echo "cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
