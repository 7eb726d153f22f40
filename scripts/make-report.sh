#!/usr/bin/env bash
# make-report.sh — the committed report from a baseline folder, and the
# README's "Results" section from that report. One command:
#
#   scripts/make-report.sh                          # results/baselines/h100, build/kbench
#   scripts/make-report.sh results/baselines/h100 build-x/kbench
#
# Runs `kbench report DIR/*.csv -o DIR/report` (kbench's rows and the peers'
# *-peers.csv together: report.md, report.html, PNG + SVG plots and their
# gnuplot scripts; gnuplot must be on PATH), then replaces what README.md
# holds between "<!-- results:begin -->" and "<!-- results:end -->" with
# DIR/report/summary.md, its image links made relative to the README.
# The CSVs are the GPU script's output, never edited: copy <op>.csv and
# <op>-peers.csv from scripts/gpu-check.sh's tarball into DIR first.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-results/baselines/h100}
kbench=${2:-build/kbench}
readme=${README:-README.md}
[ -x "$kbench" ] || { echo "make-report: no kbench at $kbench (build it, or pass its path)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "make-report: gnuplot is not on PATH (apt-get install gnuplot-nox)" >&2; exit 4; }
shopt -s nullglob
# kbench's own CSVs first, then the peers': kbench report names its plots
# after the first CSV of an op (<op>.<op>.<plot>, not <op>-peers.<op>.<plot>).
csvs=()
for f in "$dir"/*.csv; do [[ $f == *-peers.csv ]] || csvs+=("$f"); done
for f in "$dir"/*-peers.csv; do csvs+=("$f"); done
[ ${#csvs[@]} -gt 0 ] || { echo "make-report: no CSV in $dir" >&2; exit 2; }
rm -rf "$dir/report"
"$kbench" report "${csvs[@]}" -o "$dir/report"

grep -q '^<!-- results:begin -->$' "$readme" && grep -q '^<!-- results:end -->$' "$readme" ||
    { echo "make-report: $readme lacks the results:begin/end markers" >&2; exit 2; }
# Image links of summary.md are relative to the report folder.
sed -E "s#\]\(([^)/]+\.(svg|png))\)#](${dir}/report/\1)#g" "$dir/report/summary.md" >"$dir/report/.readme-part"
awk -v part="$dir/report/.readme-part" '
    /^<!-- results:end -->$/ { while ((getline line < part) > 0) print line; skip = 0 }
    !skip { print }
    /^<!-- results:begin -->$/ { skip = 1 }
' "$readme" >"$readme.tmp"
mv "$readme.tmp" "$readme"
rm -f "$dir/report/.readme-part"
echo "$readme: results section from $dir/report/summary.md"
