#!/usr/bin/env bash
# What needs gnuplot: kbench plot and report draw PNG + SVG, the HTML report
# embeds its plots, scripts/make-report.sh rewrites a README's results
# section. Without gnuplot this exits 77 (CTest: skipped; test_cli.sh covers
# the paths without it). Run by CTest with KBENCH and KB_SOURCE_DIR set.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
if ! command -v gnuplot >/dev/null; then
    echo "gnuplot not found: skipped"
    exit 77
fi

expect 0 "nms.nms.speedup.png .svg.*No baseline ran on: n=100000" -- plot $d/nms.csv -o "$tmp/plots"
for f in nms.nms.time.png nms.nms.time.svg nms.nms.pairwise_fast_vs_exact.png; do
    expect_file "$tmp/plots/$f" "."
done

expect 0 "report.html" -- report $d/preprocess.csv $d/preprocess_peers.csv $d/nms.csv \
    $d/deform_conv2d.csv -o "$tmp/report"
expect_file "$tmp/report/report.html" "src=\"data:image/svg\+xml;base64,"
expect_file "$tmp/report/summary.md" "!\[nms speedup\]\(nms.nms.speedup.svg\)"
expect_file "$tmp/report/nms.nms.speedup.svg" "<svg"

# ---- scripts/make-report.sh: report of a baseline folder + the README's section ----
mkdir -p "$tmp/base"
cp $d/nms.csv "$tmp/base/"
printf '# r\n<!-- results:begin -->\nstale\n<!-- results:end -->\nkept\n' >"$tmp/README.md"
rc=0
README="$tmp/README.md" bash "$src/scripts/make-report.sh" "$tmp/base" "$k" >"$tmp/mr.log" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || cat "$tmp/mr.log"
check "make-report.sh exited $rc (its log above)" test $rc -eq 0
expect_file "$tmp/README.md" "^\| n=100000 \| blockwalk \| 2.890 ms \|"
expect_file "$tmp/README.md" "\]\($tmp/base/report/nms.nms.time.svg\)"
expect_file "$tmp/README.md" "^kept$"
expect_file "$tmp/base/report/nms.nms.speedup.png" "."
check "make-report.sh kept the stale section" bash -c '! grep -q stale "$1"' _ "$tmp/README.md"

finish plot
