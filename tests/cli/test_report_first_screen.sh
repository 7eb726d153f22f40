#!/usr/bin/env bash
# What a reader of `kbench report` sees first, in report.html, report.md and
# the README's summary.md: one table across ops (per op and case the variant
# to ship, its time, its ratio to the fastest peer that PASSed, and to the
# fastest that ran, with why it failed), then where the rows come from: one
# line when every file names one device and one commit, else the runs table,
# folded (HTML) right under it; and the script that screenshots that first
# screen (scripts/report-screenshot.sh). The pages are written without
# gnuplot (exit 4, no plots): this needs none.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
base=$src/results/baselines/h200
prefix=(env PATH=/nonexistent) # no gnuplot: the pages alone

# ---- one device, one commit: the committed baselines of one machine and tree ----
# (the four ops measured on one of the baseline's two H200s)
one=("$base"/{deform_conv2d,nms,topk,yolo_decode}.csv)
expect 4 "gnuplot is not on PATH" -- report "${one[@]}" -o "$tmp/one"
md=$tmp/one/report.md html=$tmp/one/report.html
line_of() { grep -nm1 -- "$2" "$1" | cut -d: -f1; }
check "report.md opens on the decision table" test "$(grep -m1 '^## ' "$md")" == "## Which variant to ship"
expect_file "$md" "^\| op \| case \| ship \| median \| vs the fastest peer that PASSed \| vs the fastest peer that ran \|$"
expect_file "$html" '^<table class="decision">$'
check "report.html: the first table is the decision" test \
    "$(grep -m1 '^<table' "$html")" == '<table class="decision">'
# summary.md (the README's Results) opens on the same table, before any op's plots.
sum=$tmp/one/summary.md
check "summary.md opens on the decision table" test \
    "$(grep -m1 '^|' "$sum")" == "$(grep -m1 '^| op | case | ship |' "$md")"
check "summary.md: the decision table before the first op's plots" test \
    "$(line_of "$sum" '^| op | case | ship |')" -lt "$(line_of "$sum" '^\*\*deform_conv2d\*\*')"
check "summary.md: the decision rows are the report's" \
    cmp <(awk '/^\| op \| case \| ship/ { on = 1 } on && !/^\|/ { exit } on' "$md") \
    <(awk '/^\| op \| case \| ship/ { on = 1 } on && !/^\|/ { exit } on' "$sum")
# One row per case of every op: the cases of the files (op and params, once each).
cases=$(cat "${one[@]}" | awk -F, '!/^#/ && $1 != "op" { print $1 "," $3 }' | sort -u | wc -l)
rows=$(awk '/^\| op \| case \| ship/ { on = 1; next } on && /^\|---/ { next } on && /^\|/ { n++ } on && !/^\|/ { exit } END { print n }' "$md")
check "the decision table has one row per case ($rows rows, $cases cases)" test "$rows" -eq "$cases"
# f16: torchvision FAILs its check, so no peer PASSed; the one that ran is named with why.
expect_file "$md" '^\| deform_conv2d \| c_in=256 c_out=256 h=50 w=84 dtype=f16 \| nhwc_ws_f16 \| 35\.07 us \| \(no peer PASSed\) \| 2\.63× peer:torchvision \(FAILs its check: rel-L2 0\.019, bound 0\.002\) \|$'
# f32: torchvision PASSes: the fastest peer that ran is the same one.
expect_file "$md" '^\|  \| c_in=256 c_out=256 h=50 w=84 \| nhwc_ws_tf32 \(tf32 precision\) \| 51\.14 us \| 3\.59× peer:torchvision \| \(the same\) \|$'
# A peer that ran unchecked, where none was checked: named as such.
expect_file "$md" '^\| yolo_decode \| \(defaults\) \| atomic_greedy \| .* \| \(no peer PASSed\) \| [0-9.]+× peer:torch_ultralytics \(was not checked\) \|$'
# Provenance: one line after the table, before the first op; the runs table at the end.
expect_file "$md" '^Made by kbench [^ ]+ from 4 file\(s\) and [0-9]+ rows, measured on NVIDIA H200 \(GPU-a202f2b4-b307-34da-1511-28a54e330bf0\) by kbench 65cff95[0-9a-f]*, from 2026-12-04T04:31:21Z to 2026-12-04T04:35:19Z\.'
check "report.html: the table, the provenance line, the ops, then the runs (folded)" test \
    "$(line_of "$html" '<table class="decision">')" -lt "$(line_of "$html" '<p>Made by kbench')" -a \
    "$(line_of "$html" '<p>Made by kbench')" -lt "$(line_of "$html" '<h2>deform_conv2d')" -a \
    "$(line_of "$html" '<h2>yolo_decode')" -lt "$(line_of "$html" '<h2>Runs</h2>')" -a \
    "$(line_of "$html" '<h2>Runs</h2>')" -lt "$(line_of "$html" '<details><summary>Runs: 4 file')"
check "report.html: one paragraph names the device (not a row per file before the decision)" test \
    "$(head -n "$(line_of "$html" '<h2>deform_conv2d')" "$html" | grep -c 'NVIDIA H200')" -eq 1

# ---- two devices and two commits: said before the table, the runs folded under it ----
expect 4 "gnuplot is not on PATH" -- report "$d/nms.csv" "$base/deform_conv2d.csv" -o "$tmp/mixed"
html=$tmp/mixed/report.html md=$tmp/mixed/report.md
expect_file "$html" '^<p>Made by kbench .* measured on device\(s\): NVIDIA H100 80GB HBM3 .*; NVIDIA H200 .*; by kbench commit\(s\): 3623961; 65cff95[0-9a-f]*\. The rows come from more than one device or build'
check "mixed: the warning, the table, the runs folded, then the ops" test \
    "$(line_of "$html" '<p>Made by kbench')" -lt "$(line_of "$html" '<table class="decision">')" -a \
    "$(line_of "$html" '<table class="decision">')" -lt "$(line_of "$html" '<details><summary>Runs: 2 file')" -a \
    "$(line_of "$html" '<details><summary>Runs: 2 file')" -lt "$(line_of "$html" '<h2>nms')"
check "mixed: no one-line provenance" bash -c '! grep -q "^<p>Made by .* Runs, at the end" "$1"' _ "$html"
check "mixed: report.md has the runs table under the decision, unfolded" test \
    "$(line_of "$md" '^### Runs$')" -lt "$(line_of "$md" '^## nms')"
prefix=()

# ---- scripts/report-screenshot.sh ----
shot=$src/scripts/report-screenshot.sh
# No Chromium on PATH: a message, exit 0, no file.
mkdir -p "$tmp/bin"
for tool in dirname mktemp rm cat; do ln -s "$(command -v $tool)" "$tmp/bin/$tool"; done
out=$(env -u CHROMIUM PATH="$tmp/bin" "$BASH" "$shot" "$tmp/one" 2>&1)
rc=$?
check "report-screenshot.sh without Chromium: exit 0 ($rc) and says so ($out)" \
    test $rc -eq 0 -a -n "$(grep 'no Chromium' <<<"$out")" -a ! -e "$tmp/one/first-screen.png"
out=$("$BASH" "$shot" "$tmp/nothing" 2>&1)
rc=$?
check "report-screenshot.sh without a report: exit 2 ($rc), naming it ($out)" \
    test $rc -eq 2 -a -n "$(grep "$tmp/nothing/report.html" <<<"$out")"
# Where Chromium is: the first screen, a PNG next to the report.
for name in chromium chromium-browser google-chrome google-chrome-stable headless_shell; do
    command -v $name >/dev/null || continue
    out=$("$BASH" "$shot" "$tmp/one" 2>&1)
    rc=$?
    check "report-screenshot.sh with $name: exit 0 ($rc: $out)" test $rc -eq 0
    check "report-screenshot.sh with $name: first-screen.png is a PNG" \
        test "$(head -c 8 "$tmp/one/first-screen.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a
    break
done

finish report_first_screen
