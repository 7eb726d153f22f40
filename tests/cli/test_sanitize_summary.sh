#!/usr/bin/env bash
# scripts/sanitize.sh's runs and summary, with a stub compute-sanitizer and a
# stub kbench (no GPU needed): each variant is checked on the sanitize sweep
# under every tool, racecheck on all its cases; explicit_nhwc* once more with
# -a im2col=window; the summary's table says clean, N reports, TIMEOUT or
# kbench's exit code per run, and its last line counts them.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # check WHAT COMMAND...: the command succeeds
    local what=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $what"
    fi
}

mkdir -p "$tmp/bin" "$tmp/build"
# kbench: two ops; `check` logs its arguments, writes a CSV of 2 rows.
cat >"$tmp/build/kbench" <<'STUB'
#!/usr/bin/env bash
if [ "$1" = list ] && [ "${2:-}" = opa ]; then # opa has cases too large for racecheck
    printf '    sanitize_large   sanitize past what racecheck can do\n'
    sleep 0.2 # more output after the line sanitize.sh looks for: it must read on
    printf '    onhost                   CPU: a host variant [host]\n'
    exit 0
fi
if [ "$1" = list ] && [ "${3:-}" = --host ]; then
    echo opa/onhost
    exit 0
fi
if [ "$1" = list ]; then
    printf '%s\n' opa opa/good opa/bad opa/slow opa/fails opa/onhost deform_conv2d \
        deform_conv2d/explicit_nhwc deform_conv2d/implicit_gemm
    exit 0
fi
# --dry-run: two cases of the sweep (one pair a line), nothing logged
if [[ " $* " == *" --dry-run "* ]]; then printf 'op\tv\tn=1\nop\tv\tn=2\n'; exit 0; fi
echo "$*" >>"$STUB_LOG"
while [ $# -gt 0 ]; do [ "$1" = -o ] && printf '# kbench\nop,variant\nx,y\nx,y\n' >"$2"; shift; done
STUB
# compute-sanitizer: runs kbench; by variant: reports (bad), hangs (slow), kbench fails (fails).
cat >"$tmp/bin/compute-sanitizer" <<'STUB'
#!/usr/bin/env bash
[ "$1" = --version ] && { echo "stub compute-sanitizer"; exit 0; }
while [ "${1#--}" != "$1" ]; do
    [ "$1" = --log-file ] && log=$2
    shift 2
done
"$@"
case " $* " in
*" -v bad "*)
    printf '========= Invalid __global__ read of size 4 bytes\n%.0s' 1 2 >"$log"
    echo "========= ERROR SUMMARY: 2 errors" >>"$log"
    exit 99 ;;
*" -v slow "*) sleep "${STUB_SLOW:-30}" ;;
*" -v fails "*) echo "========= ERROR SUMMARY: 0 errors" >"$log"; exit 1 ;;
esac
echo "========= ERROR SUMMARY: 0 errors" >"$log"
STUB
chmod +x "$tmp/build/kbench" "$tmp/bin/compute-sanitizer"

out=$(PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/calls" OUT="$tmp/out" KB_BUILD="$tmp/build" \
    KB_SAN_TOOLS="racecheck memcheck" KB_SAN_JOBS=4 KB_SAN_TIMEOUT=3 \
    bash "$repo/scripts/sanitize.sh" 2>&1)
rc=$?
sum="$tmp/out/summary.md"
check "exit 1 when a run is not clean (got $rc)" [ $rc -eq 1 ]
# 7 runs a tool; racecheck's each in a process per case (the stub's 2)
check "a host variant is not run (no device code)" [ "$(grep -c onhost "$tmp/calls")" -eq 0 ]
check "every check runs the sanitize sweep" \
    [ "$(grep -c -- '--sweep sanitize ' "$tmp/calls")" -eq 21 ]
check "racecheck runs each case alone" \
    [ "$(grep -c -- '--first-case 0 --max-cases 1 ' "$tmp/calls")/$(grep -c -- \
        '--first-case 1 --max-cases 1 ' "$tmp/calls")" = 7/7 ]
check "memcheck runs the sweep whole" [ "$(grep -c -- "--max-cases" "$tmp/calls")" -eq 14 ]
check "opa's sanitize_large runs under memcheck alone" \
    [ "$(grep -c -- '--sweep sanitize_large ' "$tmp/calls")" -eq 4 ]
check "explicit_nhwc runs once more per tool with im2col=window" \
    [ "$(grep -c "explicit_nhwc .*-a im2col=window" "$tmp/calls")" -eq 3 ]
check "only explicit_nhwc* get the im2col axis" [ "$(grep -c "im2col=window" "$tmp/calls")" -eq 3 ]
row() { grep -qE "^\| $1 \| [0-9]+ \| ${2:-2} \|$" "$sum"; }
check "table: clean, racecheck's cases joined" row "opa \| good \| racecheck \| clean" 4
check "table: reports counted" row "opa \| bad \| memcheck \| 2 reports"
check "table: kbench's failure" row "opa \| fails \| racecheck \| kbench exit 1" 4
check "table: racecheck's reports added up" row "opa \| bad \| racecheck \| 4 reports" 4
check "table: the window run" \
    row "deform_conv2d \| explicit_nhwc \[im2col=window\] \| memcheck \| clean"
check "table: a timeout" row "opa \| slow \| memcheck \| TIMEOUT"
check "table: the large sweep's row" row "opa \| good \[sanitize_large\] \| memcheck \| clean"
check "the first reports of a run that is not clean" \
    grep -q "Invalid __global__ read of size 4 bytes" "$sum"
check "last line counts the runs" \
    grep -qE "^18 runs, 9 clean, 3 with reports, 3 timeouts, 3 failed, wall [0-9]+ s$" \
    <(tail -1 "$sum")
check "stdout ends with the same count" grep -qE "18 runs, 9 clean, .* see " <<<"$out"
check "the logs are kept" tar -xzf "$tmp/out/sanitize.tar.gz" -C "$tmp" ./opa.bad.memcheck.san.log

# KB_SAN_RACE_CASES limits racecheck alone.
: >"$tmp/calls"
PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/calls" OUT="$tmp/out2" KB_BUILD="$tmp/build" \
    KB_SAN_TOOLS="racecheck memcheck" KB_SAN_RACE_CASES=2 bash "$repo/scripts/sanitize.sh" \
    deform_conv2d >/dev/null 2>&1
check "KB_SAN_RACE_CASES=2: racecheck's runs take --max-cases 2, memcheck's all" \
    [ "$(grep -c -- "--max-cases 2 " "$tmp/calls")" -eq 3 ]
check "a list of ops narrows the runs" [ "$(wc -l <"$tmp/calls")" -eq 6 ]

# Stopped from outside (here an outer timeout, which signals the script's
# process group), it stops its runs: no hung tool is left on the GPU.
PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/calls" STUB_SLOW=47.25 OUT="$tmp/out3" KB_BUILD="$tmp/build" \
    KB_SAN_TOOLS="memcheck" KB_SAN_TIMEOUT=60 timeout 2 bash "$repo/scripts/sanitize.sh" opa \
    >/dev/null 2>&1
rc=$?
for _ in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "sleep 47.25" >/dev/null || break; sleep 0.2; done
check "stopped, it exits as stopped (got $rc)" [ $rc -eq 124 ]
left=$(pgrep -fc "sleep 47.25")
check "stopped, it leaves no run behind ($left left)" [ "$left" -eq 0 ]
pkill -f "sleep 47.25"

echo "sanitize.sh summary: $pass passed, $fail failed"
[ $fail -eq 0 ]
