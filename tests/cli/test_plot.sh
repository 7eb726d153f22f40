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

# A variant of other semantics whose rows count no dropped results (deform's
# half-precision path): its vs_exact plot is the time panel alone, and draws.
sed 's/,nhwc_wgmma_f16,/,explicit_torchvision_half,/' $d/deform_conv2d_dtypes.csv >"$tmp/half.csv"
expect 0 "half.deform_conv2d.explicit_torchvision_half_vs_exact.png" -- plot "$tmp/half.csv" -o "$tmp/half"
expect_file "$tmp/half/half.deform_conv2d.explicit_torchvision_half_vs_exact.png" "."
expect_file "$tmp/half/half.deform_conv2d.explicit_torchvision_half_vs_exact.gp" "multiplot layout 1,1"

# ---- along an axis: one line per variant, x in the axis's order, a panel per dtype ----
# The fixture: 3 layers (c_in with c_out, h, w) x f32/f16; torchvision FAILs f16.
expect 0 "deform_conv2d_dtypes.deform_conv2d.time.png .svg" -- \
    plot $d/deform_conv2d_dtypes.csv -o "$tmp/along"
a=$tmp/along/deform_conv2d_dtypes.deform_conv2d
for f in time.png time.svg speedup.svg; do expect_file "$a.$f" "."; done
blocks() { grep '^# panel' "$1" | tr '\n' ';'; }
check "time.dat: one block per variant and panel, f32 panel first" test "$(blocks "$a.time.dat")" == \
    "# panel dtype=f32 | explicit_gemm_i64;# panel dtype=f32 | explicit_gemm_i32;# panel dtype=f32 | nhwc_wgmma_tf32;# panel dtype=f32 | peer:torchvision;# panel dtype=f16 | explicit_gemm_i64;# panel dtype=f16 | explicit_gemm_i32;# panel dtype=f16 | nhwc_wgmma_f16;"
# Each block: x 0 1 2 = c_in 128, 256, 512 (the default axis: the first that
# makes complete sweeps), the case in its comment.
check "time.dat: every block runs c_in=128, 256, 512 in order" test \
    "$(awk '/^# panel/ { if (s) print s; s = "" } /^[0-9]/ { match($0, /c_in=[0-9]+/); s = s $1 ":" substr($0, RSTART, RLENGTH) " " } END { print s }' "$a.time.dat" | sort -u)" == \
    "0:c_in=128 1:c_in=256 2:c_in=512 "
expect_file "$a.time.gp" "^set xtics \('c_in=128'\.\"\\\\n\"\.'c_out=128'\.\"\\\\n\"\.'h=100 w=168' 0, 'c_in=256.*' 1, 'c_in=512.*' 2\)$"
expect_file "$a.time.gp" "^set xlabel 'c_in \(with c_out, h, w\)'$"
expect_file "$a.time.gp" "^    set multiplot title 'deform_conv2d: median time"
expect_file "$a.time.gp" "^    set title 'dtype=f32'$"
expect_file "$a.time.gp" "^    set title 'dtype=f16'$"
# The f32 panel's key lists nhwc_wgmma_f16, drawn only in the f16 panel.
expect_file "$a.time.gp" "NaN with linespoints .* title 'nhwc_wgmma_f16'"
expect_file "$a.speedup.gp" "^    set ylabel 'speedup over explicit_gemm_i64"
check "speedup.dat: the baseline is 1 on every case" test \
    "$(awk '/^# panel/ { b = /explicit_gemm_i64$/ } b && /^[0-9]/ { print $2 }' "$a.speedup.dat" | sort -u)" == 1
# --along h: the layers in h's order (25, 50, 100), numbers sorted as numbers.
expect 0 "time.png" -- plot $d/deform_conv2d_dtypes.csv --along h -o "$tmp/along_h"
expect_file "$tmp/along_h/deform_conv2d_dtypes.deform_conv2d.time.gp" \
    "^set xtics \('h=25.*' 0, 'h=50.*' 1, 'h=100.*' 2\)$"
# A numeric axis nothing moves with: x at its values, log-scaled over 30x.
expect 0 "nms.nms.time.png" -- plot $d/nms.csv --along n -o "$tmp/along_n"
expect_file "$tmp/along_n/nms.nms.time.gp" "^set logscale x$"
check "nms --along n: the uniform sweep's bitmask_gpu at n=1000, 25200, 100000" test \
    "$(awk '/^# panel/ { b = ($0 == "# panel iou=0.5 classes=1 dist=uniform | bitmask_gpu") } b && /^[0-9]/ { printf "%s ", $1 }' "$tmp/along_n/nms.nms.time.dat")" == \
    "1000 25200 100000 "

# ---- the plot set per op: plots that decide something ----
# nms: scenarios that share n=25200, so time is bars per case, not a line
# through them; latency-bound (no row near a ceiling): no roofline, no GB/s.
expect_file "$tmp/plots/nms.nms.time.gp" "^set style data histogram$"
check "nms: no roofline or GB/s plot" test ! -e "$tmp/plots/nms.nms.roofline.gp" -a ! -e "$tmp/plots/nms.nms.gbps.gp"
# deform_conv2d reaches the SGEMM ceiling: the FLOP roofline stays; its GB/s does not.
expect_file "$a.roofline.gp" "arithmetic intensity"
check "deform_conv2d: no GB/s plot" test ! -e "$a.gbps.gp"
# preprocess reaches the copy peak: GB/s along n, under the peak, and the roofline.
expect 0 "preprocess.preprocess.gbps.png" -- plot $d/preprocess.csv --along n -o "$tmp/pre"
expect_file "$tmp/pre/preprocess.preprocess.gbps.gp" "title 'copy peak [0-9]+ GB/s'"
expect_file "$tmp/pre/preprocess.preprocess.roofline.gp" "arithmetic intensity"

expect 0 "report.html" -- report $d/preprocess.csv $d/preprocess_peers.csv $d/nms.csv \
    $d/deform_conv2d.csv -o "$tmp/report"
expect_file "$tmp/report/report.html" "src=\"data:image/svg\+xml;base64,"
expect_file "$tmp/report/summary.md" "!\[nms speedup\]\(nms.nms.speedup.svg\)"
expect_file "$tmp/report/nms.nms.speedup.svg" "<svg"
# host rows: the CPU against the GPU along n, drawn and embedded
expect 0 "report.html" -- report $d/nms_host.csv -o "$tmp/report-host"
expect_file "$tmp/report-host/nms_host.nms.cpu_vs_gpu.svg" "<svg"
expect_file "$tmp/report-host/report.md" "^!\[cpu_vs_gpu\]\(nms_host.nms.cpu_vs_gpu.png\)$"

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
