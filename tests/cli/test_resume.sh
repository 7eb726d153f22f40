#!/usr/bin/env bash
# A sweep killed with SIGKILL and resumed with --resume yields the same set of
# rows as an uninterrupted one, and nothing is run twice. GPU: exits 77
# (skipped) without a device.
set -u
k=$(realpath "${KBENCH:-build/kbench}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(check preprocess --sweep smoke --quiet)
"$k" "${args[@]}" -o "$dir/full.csv" >"$dir/log0" 2>&1
rc=$?
[ $rc -eq 3 ] && { echo "no CUDA device: skipped"; exit 77; }
fail=0
keys() { grep -v '^#' "$1" | tail -n +2 | cut -d, -f1-4 | sort; }
# Kill the run once it has written some rows, but not all.
"$k" "${args[@]}" --resume "$dir/part.csv" >"$dir/log1" 2>&1 &
pid=$!
for _ in $(seq 200); do
    n=$(grep -vc '^#' "$dir/part.csv" 2>/dev/null)
    [ "${n:-0}" -gt 5 ] && break
    sleep 0.05
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
before=$(keys "$dir/part.csv" | wc -l)
printf 'preprocess,nearest_naive,n=1 partial' >>"$dir/part.csv" # a row cut mid-write
"$k" "${args[@]}" --resume "$dir/part.csv" >"$dir/log2" 2>&1 ||
    { echo "FAIL: the resumed run failed"; cat "$dir/log2"; fail=1; }
grep -q "a partial last line (.* bytes) is dropped" "$dir/log2" ||
    { echo "FAIL: the partial last line was not reported"; fail=1; }
grep -q "$before row(s) were already in" "$dir/log2" ||
    { echo "FAIL: expected $before rows skipped"; cat "$dir/log2"; fail=1; }
if ! diff <(keys "$dir/full.csv") <(keys "$dir/part.csv") >"$dir/diff"; then
    echo "FAIL: resumed rows differ from an uninterrupted run"
    head "$dir/diff"
    fail=1
fi
[ -z "$(keys "$dir/part.csv" | uniq -d)" ] || { echo "FAIL: a row was run twice"; fail=1; }
echo "resume: $((1 - fail)) passed, $fail failed ($before rows before the kill)"
exit $fail
