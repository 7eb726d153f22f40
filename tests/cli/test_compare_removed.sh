#!/usr/bin/env bash
# `kbench compare` as a CI gate: NEW that lacks rows OLD had (a run cut
# short, a header alone, a file of another op) fails it, exit 5, unless
# --allow-removed; files from different GPU models are said to be so.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# nms-ok.csv: the fixture without its FAIL row (24 rows, all PASS).
grep -v ',FAIL,' $d/nms.csv >"$tmp/nms-ok.csv"
expect 0 "^[^!]*24 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/nms-ok.csv"

# ---- rows of OLD missing from NEW gate ----
grep -v '^nms,' "$tmp/nms-ok.csv" >"$tmp/header-only.csv"
expect 5 "!! 24 row\(s\) REMOVED: in OLD and not in NEW.*24 REMOVED" -- \
    compare "$tmp/nms-ok.csv" "$tmp/header-only.csv"
head -n 14 "$tmp/nms-ok.csv" >"$tmp/cut.csv" # the '#' lines, the header and 10 rows
expect 5 "14 row\(s\) REMOVED.*14 REMOVED, 10 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/cut.csv"
expect 5 "\*\*14 row\(s\) REMOVED: in OLD and not in NEW" -- \
    compare "$tmp/nms-ok.csv" "$tmp/cut.csv" --format md
# A file of another op: every OLD row REMOVED, every NEW row ADDED.
expect 5 "24 REMOVED" -- compare "$tmp/nms-ok.csv" $d/preprocess.csv
# --allow-removed: a NEW run of fewer cases on purpose passes ...
expect 0 "14 REMOVED, 10 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/cut.csv" --allow-removed
check "--allow-removed: no alarm" bash -c '! "$0" compare "$1" "$2" --allow-removed | grep -q "!!"' \
    "$k" "$tmp/nms-ok.csv" "$tmp/cut.csv"
# ... and still fails on what else gates.
expect 5 "SLOWER" -- compare "$tmp/nms-ok.csv" <(grep -v ',FAIL,' $d/nms_slower.csv | head -n 20) \
    --allow-removed
# Rows only in NEW do not gate.
expect 0 "14 ADDED, 10 SAME" -- compare "$tmp/cut.csv" "$tmp/nms-ok.csv"

# ---- different GPU models: said above the verdicts ----
sed 's/^# gpu: NVIDIA H100 80GB HBM3 (GPU-[^)]*)/# gpu: NVIDIA H200 (GPU-11111111-2222-3333-4444-555555555555)/' \
    "$tmp/nms-ok.csv" >"$tmp/h200.csv"
expect 0 "note: the files were measured on different GPU models \(NVIDIA H100 80GB HBM3, then NVIDIA H200\): a change of their times may be the GPU's" -- \
    compare "$tmp/nms-ok.csv" "$tmp/h200.csv"
expect 0 "\*\*Note:\*\* the files were measured on different GPU models" -- \
    compare "$tmp/nms-ok.csv" "$tmp/h200.csv" --format md
# Another GPU of the same model (another UUID): nothing said.
sed 's/^# gpu: NVIDIA H100 80GB HBM3 (GPU-[^)]*)/# gpu: NVIDIA H100 80GB HBM3 (GPU-11111111-2222-3333-4444-555555555555)/' \
    "$tmp/nms-ok.csv" >"$tmp/h100b.csv"
check "the same model on another GPU: no note" \
    bash -c '! "$0" compare "$1" "$2" | grep -q "GPU models"' "$k" "$tmp/nms-ok.csv" "$tmp/h100b.csv"
# A file that names no GPU (a peers/ CSV): nothing to compare, nothing said.
grep -v '^# gpu:' "$tmp/nms-ok.csv" >"$tmp/nogpu.csv"
check "a file without a GPU: no note" \
    bash -c '! "$0" compare "$1" "$2" | grep -q "GPU models"' "$k" "$tmp/nms-ok.csv" "$tmp/nogpu.csv"

expect 0 "--allow-removed.*REMOVED \*.*exit codes: 0 no row BROKEN, STILL FAILING, INVALID, SLOWER or REMOVED" -- \
    compare --help
finish compare_removed
