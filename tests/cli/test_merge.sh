#!/usr/bin/env bash
# test_merge.sh — `kbench merge` (README "When one machine is not enough") on
# part files made here from tests/data/nms.csv's rows: the merged rows come
# in sweep order whatever order the parts and their rows are in; each
# refusal (another build, op, split, sweep, GPU model, a pair twice, a shard
# twice or missing, a part that is no shard) exits 2 naming the files and
# leaves -o byte-identical with no temporary beside it; -o needs --overwrite.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" || exit 2
report_rc=0
command -v gnuplot >/dev/null || report_rc=4

header=$(grep -v '^#' "$d/nms.csv" | head -1)
mapfile -t rows < <(grep -v '^#' "$d/nms.csv" | sed -n 2,13p) # the sweep: pairs 0..11
hash=00000000deadbeef
h100="NVIDIA H100 80GB HBM3"
gpu_line() { # gpu_line MODEL UUID
    echo "# gpu: $1 ($2) cc 9.0, 132 SMs, L2 50 MiB | driver 12.4 runtime 12.4 | clocks max SM 1980 MHz mem 2619 MHz, SM now 1980 MHz | peaks: copy 2950 GB/s, sgemm 51000 GFLOP/s"
}
uuid() { printf 'GPU-00000000-0000-0000-0000-%012d' "$1"; }

# part FILE I N PAIRS... : shard I of N of the 12-pair sweep with the rows of
# PAIRS in that order; COMMIT, SOURCES, OP, HASH, TOTAL, MODEL and SHARD_LINE
# (set to "" for none) change its '#' lines.
part() {
    local f=$1 i=$2 n=$3 q
    shift 3
    local shard="# shard: $i/$n of ${OP:-nms}: $# of the sweep's ${TOTAL:-12} pairs, sweep ${HASH:-$hash}${ROWS:+, $ROWS rows}"
    {
        echo "# kbench ${COMMIT:-3623961} | 2025-05-12T09:14:03Z | host node$i"
        echo "# command: kbench run nms --shard $i/$n -o $f"
        [[ -n ${SOURCES:-} ]] && echo "# sources: sha256 $SOURCES"
        [[ -n ${SHARD_LINE-x} ]] && echo "$shard"
        gpu_line "${MODEL:-$h100}" "$(uuid "$i")"
        echo "$header,device,pair"
        for q in "$@"; do echo "${rows[$q]},$(uuid "$i"),$q"; done
    } >"$f"
}

p=$tmp/parts
mkdir -p "$p"
part "$p/p0.csv" 0 3 9 0 3 6
part "$p/p1.csv" 1 3 1 4 7 10
part "$p/p2.csv" 2 3 11 8 5 2
all=$tmp/all.csv

# ---- a part cut short: fewer rows than its shard line says it writes ----
ROWS=4 part "$p/short1.csv" 1 3 1 4 7
ROWS=4 part "$p/full0.csv" 0 3 9 0 3 6
expect 2 "short1.csv holds 3 of the 4 rows of shard 1/3: its run was cut short .*--resume" -- \
    merge "$p/full0.csv" "$p/short1.csv" "$p/p2.csv" -o "$tmp/short.csv"
check "a refused merge writes nothing" test ! -e "$tmp/short.csv"
ROWS=4 part "$p/full1.csv" 1 3 1 4 7 10
expect 0 "12 rows of 3 shards" -- merge "$p/full0.csv" "$p/full1.csv" "$p/p2.csv" -o "$tmp/full.csv"
printf '%s\n' "# shard: 2/3 of nms: 4 of the sweep's 12 pairs, sweep $hash, many rows" >"$tmp/badline"
sed "s|^# shard: .*|$(cat "$tmp/badline")|" "$p/p2.csv" >"$p/bad2.csv"
expect 2 "a shard line kbench did not write" -- merge "$p/full0.csv" "$p/full1.csv" "$p/bad2.csv" -o "$tmp/bad.csv"

# ---- a good merge: rows in sweep order, every part's lines kept ----
expect 0 "12 rows of 3 shards of nms" -- merge "$p/p2.csv" "$p/p0.csv" "$p/p1.csv" -o "$all"
for ((i = 0; i < 12; i++)); do echo "${rows[$i]},$(uuid $((i % 3))),$i"; done >"$tmp/want"
grep -v '^#' "$all" | tail -n +2 >"$tmp/got"
check "merged rows are in pair order" cmp -s "$tmp/want" "$tmp/got"
check "one column header" test "$(grep -c '^op,' "$all")" = 1
check "every GPU listed" test "$(grep -c '^# gpu: ' "$all")" = 3
check "the shard lines become part lines" test "$(grep -c '^# part: [0-2]/3 of nms' "$all")" = 3
check "no shard line left" test "$(grep -c '^# shard:' "$all")" = 0
expect_file "$all" "^# merged: 3 shards of nms, the sweep's 12 pairs, sweep $hash"
# Without gnuplot the pages are still written (exit 4: no plots).
expect "$report_rc" "" -- report "$all" -o "$tmp/report"
expect_file "$tmp/report/report.md" "GPU-00000000-0000-0000-0000-000000000002"
# A merged file is no shard: merging it again is refused.
expect 2 "all.csv: no '# shard:' line" -- merge "$all" -o "$tmp/again.csv"

# ---- -o: an existing file needs --overwrite ----
echo "precious" >"$all"
expect 2 "the file exists: --overwrite replaces it" -- merge "$p"/p*.csv -o "$all"
check "-o without --overwrite: the file as it was" test "$(cat "$all")" = precious
expect 0 "12 rows" -- merge "$p"/p*.csv -o "$all" --overwrite
grep -v '^#' "$all" | tail -n +2 >"$tmp/got"
check "--overwrite: the merged rows replace the file" cmp -s "$tmp/want" "$tmp/got"
expect 2 "-o .*p1.csv: the same file as the part" -- merge "$p"/p*.csv -o "$p/p1.csv" --overwrite
expect 2 "expected .csv" -- merge "$p"/p*.csv -o "$tmp/all.txt"
expect 2 "-o ALL.csv is required" -- merge "$p"/p*.csv
expect 2 "no parts" -- merge -o "$all"
expect 2 "unknown option '--bogus'" -- merge "$p"/p*.csv -o "$all" --bogus
expect 0 "--mixed-devices" -- merge --help
expect 4 "cannot create a file in its folder" -- merge "$p"/p*.csv -o "$tmp/no/such/all.csv"

# ---- refusals: exit 2, the message, -o byte-identical, no temporary left ----
# refused PATTERN PARTS...: merging PARTS over an existing -o is refused.
refused() {
    local pattern=$1
    shift
    echo "precious rows" >"$all"
    cp "$all" "$tmp/before"
    expect 2 "$pattern" -- merge "$@" -o "$all" --overwrite
    check "refused ($pattern): -o byte-identical" cmp -s "$tmp/before" "$all"
    check "refused ($pattern): no temporary left" \
        test -z "$(find "$tmp" -maxdepth 1 -name '*kbench-tmp*')"
}
b=$tmp/bad
mkdir -p "$b"
SHARD_LINE="" part "$b/noshard.csv" 1 3 1 4 7 10
refused "noshard.csv: no '# shard:' line: not a part" "$p/p0.csv" "$b/noshard.csv" "$p/p2.csv"
COMMIT=abcdef0 part "$b/commit.csv" 1 3 1 4 7 10
refused "different kbench builds: .*p0.csv is kbench 3623961, .*commit.csv is kbench abcdef0" \
    "$p/p0.csv" "$b/commit.csv" "$p/p2.csv"
# One commit label, two builds' sources (a label set by hand, a stale .git).
SOURCES=$(printf 'a%.0s' {1..64}) part "$b/src0.csv" 0 3 9 0 3 6
SOURCES=$(printf 'b%.0s' {1..64}) part "$b/src1.csv" 1 3 1 4 7 10
refused "different sources under one commit label \(3623961\): .*src0.csv has sources sha256 a{64}, .*src1.csv has sources sha256 b{64}" \
    "$b/src0.csv" "$b/src1.csv" "$p/p2.csv"
SOURCES=$(printf 'b%.0s' {1..64}) part "$b/src0b.csv" 0 3 9 0 3 6
SOURCES=$(printf 'b%.0s' {1..64}) part "$b/src2b.csv" 2 3 11 8 5 2
expect 0 "12 rows of 3 shards of nms" -- \
    merge "$b/src0b.csv" "$b/src1.csv" "$b/src2b.csv" -o "$tmp/src.csv"
expect_file "$tmp/src.csv" "^# sources: sha256 b{64}\$"
OP=topk part "$b/op.csv" 1 3 1 4 7 10
refused "different ops: .*p0.csv is a shard of nms, .*op.csv of topk" \
    "$p/p0.csv" "$b/op.csv" "$p/p2.csv"
part "$b/split.csv" 1 4 1 4 7 10
refused "different splits: .*p0.csv is shard 0/3, .*split.csv is shard 1/4" \
    "$p/p0.csv" "$b/split.csv" "$p/p2.csv"
HASH=00000000feedf00d part "$b/hash.csv" 1 3 1 4 7 10
refused "different sweeps: .*p0.csv is of 12 pairs, sweep $hash; .*hash.csv of 12 pairs, sweep 00000000feedf00d" \
    "$p/p0.csv" "$b/hash.csv" "$p/p2.csv"
TOTAL=13 part "$b/total.csv" 1 3 1 4 7 10
refused "different sweeps: .*total.csv of 13 pairs" "$p/p0.csv" "$b/total.csv" "$p/p2.csv"
MODEL="NVIDIA A100-SXM4-80GB" part "$b/a100.csv" 1 3 1 4 7 10
refused "GPUs of different models: .*p0.csv ran on $h100, .*a100.csv on NVIDIA A100-SXM4-80GB \(--mixed-devices" \
    "$p/p0.csv" "$b/a100.csv" "$p/p2.csv"
expect 0 "12 rows" -- merge "$p/p0.csv" "$b/a100.csv" "$p/p2.csv" -o "$all" --overwrite --mixed-devices
part "$b/dup.csv" 1 3 1 4 7 10 3
refused "pair 3 is in two rows: .*p0.csv:[0-9]+ and .*dup.csv:[0-9]+" \
    "$p/p0.csv" "$b/dup.csv" "$p/p2.csv"
part "$b/range.csv" 1 3 1 4 7 10
sed -i '$ s/,10$/,12/' "$b/range.csv"
refused "range.csv:[0-9]+: pair '12' is not one of the sweep's 12 pairs" \
    "$p/p0.csv" "$b/range.csv" "$p/p2.csv"
refused "1 of the 3 shards of nms missing: 1/3 \(a task that failed" "$p/p0.csv" "$p/p2.csv"
refused "2 of the 3 shards of nms missing: 0/3, 2/3" "$p/p1.csv"
cp "$p/p0.csv" "$b/p0-again.csv"
refused ".*p0.csv and .*p0-again.csv are both shard 0/3" \
    "$p/p0.csv" "$b/p0-again.csv" "$p/p1.csv" "$p/p2.csv"
expect 2 "pair 9 is in two rows: .*p0.csv:6 and .*p0-again.csv:6" -- \
    merge "$p/p0.csv" "$b/p0-again.csv" "$p/p1.csv" "$p/p2.csv" -o "$all" --overwrite
for ((i = 0; i < 7; i++)); do
    part "$b/many$i.csv" "$i" 7 0 1 2 3 4 5 6 7 8 9 10 11
done
expect 2 "pair 4 is in 7 rows: .*many0.csv:10, .*many1.csv:10, .*, .*many5.csv:10 and .*many6.csv:10.*\.\.\. and 7 more pairs in more than one row" -- \
    merge "$b"/many*.csv -o "$all" --overwrite
refused "nosuch.csv: cannot open" "$p/p0.csv" "$b/nosuch.csv"

# ---- an empty shard (more shards than pairs): its file has no row, and counts ----
part "$p/q0.csv" 0 4 9 0 3 6
part "$p/q1.csv" 1 4 1 4 7 10
part "$p/q2.csv" 2 4 11 8 5 2
ROWS=0 part "$p/q3.csv" 3 4
expect 0 "12 rows of 4 shards of nms" -- merge "$p/q3.csv" "$p/q0.csv" "$p/q1.csv" "$p/q2.csv" \
    -o "$tmp/q.csv"
check "an empty shard's lines are kept" test "$(grep -c '^# part: 3/4 of nms: 0 of' "$tmp/q.csv")" = 1
refused "1 of the 4 shards of nms missing: 3/4" "$p/q0.csv" "$p/q1.csv" "$p/q2.csv"
rm -f "$p"/q*.csv

finish merge
