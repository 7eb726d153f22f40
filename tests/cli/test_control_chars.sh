#!/usr/bin/env bash
# test_control_chars.sh — a param that holds control characters (an image
# file whose name has a CR and a tab) on a host variant: every file kbench
# writes stays one row a line (CSV: the field quoted; JSON: escaped;
# Markdown and the '#'/'>' metadata lines: escapes you can read), and what
# reads the CSV back (compare, --resume, merge, report) finds the row by its
# params. A line break (LF) in a value is refused (exit 2): no line-based
# file could keep that row on one line.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" || exit 2

img=$tmp/$'cat\r\tx.png'
cp "$src/datasets/images/chelsea.png" "$img"
run=(run preprocess -v cpu_bilinear -a image="$img" -a n=1 -a in_h=8 -a in_w=8 -a out_h=4
    -a out_w=4 -a interp=bilinear --max-time 0.05 --min-samples 3)
r=$tmp/r
expect 0 "1 row\(s\): 1 PASS" -- "${run[@]}" -o "$r.csv" -o "$r.jsonl" -o "$r.md" -o "$r.txt"

# one record a line, the params field quoted with its CR and tab as they are
check "CSV: a header and one row" test "$(grep -vc '^#' "$r.csv")" -eq 2
check "CSV: the params field is quoted, CR and tab kept" \
    grep -qF " image=$img\"," "$r.csv"
check "CSV: no '#' line holds a CR" bash -c '! grep "^#" "$1" | grep -q $'"'"'\r'"'"'' _ "$r.csv"
expect_file "$r.csv" '^# command: .*image=.*cat\\r\\tx\.png'
check "JSON lines: no raw control character" bash -c '! LC_ALL=C grep -q "[[:cntrl:]]" "$1"' _ "$r.jsonl"
expect_file "$r.jsonl" 'cat\\u000d\\u0009x\.png'
for f in "$r.md" "$r.txt"; do
    check "$(basename "$f"): no CR nor tab" bash -c '! LC_ALL=C grep -q $'"'"'[\r\t]'"'"' "$1"' _ "$f"
done
check "Markdown: one table row" test "$(grep -c '^| cpu_bilinear ' "$r.md")" -eq 1
expect_file "$r.md" 'cat\\r\\tx\.png'

# read back: the row is found by its params
expect 0 "SAME|UNSURE|FASTER|SLOWER" -- compare "$r.csv" "$r.csv" --all
expect 0 "1 row\(s\) were already in .*r.csv: not run again" -- "${run[@]}" --resume "$r.csv"
check "--resume ran nothing again: still one row" test "$(grep -vc '^#' "$r.csv")" -eq 2
expect 0 "1 row\(s\): 1 PASS" -- "${run[@]}" --shard 0/1 -o "$tmp/part.csv"
expect 0 "1 rows of 1 shards of preprocess" -- merge "$tmp/part.csv" -o "$tmp/merged.csv"
check "merge: the row as the part holds it" \
    test "$(grep -v '^#' "$tmp/part.csv")" = "$(grep -v '^#' "$tmp/merged.csv")"
check "merge: no '#' line holds a CR" bash -c '! grep "^#" "$1" | grep -q $'"'"'\r'"'"'' _ "$tmp/merged.csv"
prefix=(env PATH=/nonexistent) # report's text, without gnuplot (exit 4: no plots)
expect 4 "" -- report "$r.csv" -o "$tmp/report"
prefix=()
expect_file "$tmp/report/report.md" "cpu_bilinear"
for f in report.md summary.md; do
    check "report's $f: no CR nor tab" bash -c '! LC_ALL=C grep -q $'"'"'[\r\t]'"'"' "$1"' _ "$tmp/report/$f"
done

# a line break in a value: refused, naming the axis
expect 2 "axis image: a value holds a line break" -- run preprocess -a image=$'a\nb.png'

finish control_chars
