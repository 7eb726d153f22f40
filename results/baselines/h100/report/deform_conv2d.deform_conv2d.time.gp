# deform_conv2d.deform_conv2d.time.gp — kbench plot: median time per launch against the minimum bytes the op must move, per variant (log-log; error bars p10-p90; dashed: peers)
# Render in this folder: gnuplot deform_conv2d.deform_conv2d.time.gp  (data: deform_conv2d.deform_conv2d.time.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title "deform_conv2d: median time vs bytes moved (cold mode) — NVIDIA H100 80GB HBM3"
set logscale x
set format x "%.0s %cB"
set xlabel "minimum bytes moved per launch (the op's cost model)"
set logscale y
set ylabel "median time per launch (µs)"
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1100,650 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1100,650 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output "deform_conv2d.deform_conv2d.time.".fmt
    plot \
        "deform_conv2d.deform_conv2d.time.dat" index 0 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title "explicit_gemm_i64", \
        "deform_conv2d.deform_conv2d.time.dat" index 1 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title "explicit_gemm_i32", \
        "deform_conv2d.deform_conv2d.time.dat" index 2 using 1:2:3:4 with yerrorlines lc rgb "#e15759" lw 2 pt 9 ps 1.1 dt 1 title "explicit_gemm_tf32", \
        "deform_conv2d.deform_conv2d.time.dat" index 3 using 1:2:3:4 with yerrorlines lc rgb "#76b7b2" lw 2 pt 11 ps 1.1 dt 1 title "explicit_nhwc", \
        "deform_conv2d.deform_conv2d.time.dat" index 4 using 1:2:3:4 with yerrorlines lc rgb "#59a14f" lw 2 pt 13 ps 1.1 dt 1 title "explicit_nhwc_tf32", \
        "deform_conv2d.deform_conv2d.time.dat" index 5 using 1:2:3:4 with yerrorlines lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title "implicit_gemm", \
        "deform_conv2d.deform_conv2d.time.dat" index 6 using 1:2:3:4 with yerrorlines lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title "implicit_gemm_tf32", \
        "deform_conv2d.deform_conv2d.time.dat" index 7 using 1:2:3:4 with yerrorlines lc rgb "#ff9da7" lw 2 pt 6 ps 1.1 dt 1 title "implicit_gemm_f16", \
        "deform_conv2d.deform_conv2d.time.dat" index 8 using 1:2:3:4 with yerrorlines lc rgb "#bab0ac" lw 2 pt 10 ps 1.1 dt 1 title "nhwc_gemm", \
        "deform_conv2d.deform_conv2d.time.dat" index 9 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title "nhwc_fused_tf32", \
        "deform_conv2d.deform_conv2d.time.dat" index 10 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title "nhwc_fused_f16", \
        "deform_conv2d.deform_conv2d.time.dat" index 11 using 1:2:3:4 with yerrorlines lc rgb "#76b7b2" lw 2 pt 11 ps 1.1 dt 1 title "nhwc_wgmma_tf32", \
        "deform_conv2d.deform_conv2d.time.dat" index 12 using 1:2:3:4 with yerrorlines lc rgb "#59a14f" lw 2 pt 13 ps 1.1 dt 1 title "nhwc_wgmma_f16", \
        "deform_conv2d.deform_conv2d.time.dat" index 13 using 1:2:3:4 with yerrorlines lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title "peer:cudnn_conv2d", \
        "deform_conv2d.deform_conv2d.time.dat" index 14 using 1:2:3:4 with yerrorlines lc rgb "#666666" lw 2 pt 6 ps 1.1 dt 2 title "peer:cudnn_conv2d_tf32", \
        "deform_conv2d.deform_conv2d.time.dat" index 15 using 1:2:3:4 with yerrorlines lc rgb "#b2182b" lw 2 pt 6 ps 1.1 dt 2 title "peer:torchvision"
    unset output
}
