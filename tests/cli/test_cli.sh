#!/usr/bin/env bash
# CLI behaviour without a GPU: every error names the offending thing and
# exits with its documented code. Run by CTest with KBENCH set to the binary.
set -u
k=${KBENCH:-build/kbench}
pass=0 fail=0

# expect CODE PATTERN -- ARGS...: exit code CODE and output matching PATTERN.
expect() {
    local code=$1 pattern=$2
    shift 3
    local out
    out=$("$k" "$@" 2>&1)
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
for cmd in list run check info plot; do
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
fi

echo "cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
