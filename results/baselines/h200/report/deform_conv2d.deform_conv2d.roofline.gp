# deform_conv2d.deform_conv2d.roofline.gp — kbench plot: roofline: achieved GFLOP/s against arithmetic intensity, under the measured copy-bandwidth and SGEMM ceilings
# Render in this folder: gnuplot deform_conv2d.deform_conv2d.roofline.gp  (data: deform_conv2d.deform_conv2d.roofline.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'deform_conv2d: roofline (cold mode) — NVIDIA H200'
set logscale xy
set xlabel "arithmetic intensity (FLOP per byte moved)"
set ylabel "achieved GFLOP/s"
set xrange [4.02729:3276.02]
set yrange [2585.72:676464]
peak_bw = 4202
peak_flops = 50768
roof(x) = x * peak_bw < peak_flops ? x * peak_bw : peak_flops
set samples 400
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1100,650 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1100,650 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './deform_conv2d.deform_conv2d.roofline.'.fmt
    plot roof(x) lc rgb "#000000" lw 2 dt 1 title "measured ceilings:\ncopy 4202 GB/s\nSGEMM 50768 GFLOP/s", \
        './deform_conv2d.deform_conv2d.roofline.dat' index 0 using 1:2 with points lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'explicit_torchvision', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 1 using 1:2 with points lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'explicit_torchvision_half', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 2 using 1:2 with points lc rgb "#e15759" lw 2 pt 9 ps 1.1 dt 1 title 'explicit_gemm_i64', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 3 using 1:2 with points lc rgb "#76b7b2" lw 2 pt 11 ps 1.1 dt 1 title 'explicit_gemm_i32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 4 using 1:2 with points lc rgb "#59a14f" lw 2 pt 13 ps 1.1 dt 1 title 'explicit_gemm_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 5 using 1:2 with points lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'explicit_nhwc', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 6 using 1:2 with points lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title 'explicit_nhwc_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 7 using 1:2 with points lc rgb "#ff9da7" lw 2 pt 6 ps 1.1 dt 1 title 'implicit_gemm', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 8 using 1:2 with points lc rgb "#9c755f" lw 2 pt 8 ps 1.1 dt 1 title 'implicit_gemm_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 9 using 1:2 with points lc rgb "#bab0ac" lw 2 pt 10 ps 1.1 dt 1 title 'implicit_gemm_f16', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 10 using 1:2 with points lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'nhwc_gemm', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 11 using 1:2 with points lc rgb "#e15759" lw 2 pt 9 ps 1.1 dt 1 title 'nhwc_fused_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 12 using 1:2 with points lc rgb "#76b7b2" lw 2 pt 11 ps 1.1 dt 1 title 'nhwc_fused_f16', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 13 using 1:2 with points lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'nhwc_wgmma_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 14 using 1:2 with points lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title 'nhwc_wgmma_f16', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 15 using 1:2 with points lc rgb "#9c755f" lw 2 pt 8 ps 1.1 dt 1 title 'nhwc_ws_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 16 using 1:2 with points lc rgb "#bab0ac" lw 2 pt 10 ps 1.1 dt 1 title 'nhwc_ws_f16', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 17 using 1:2 with points lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'nhwc_ws_3xtf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 18 using 1:2 with points lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title 'peer:cudnn_conv2d', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 19 using 1:2 with points lc rgb "#666666" lw 2 pt 6 ps 1.1 dt 2 title 'peer:cudnn_conv2d_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 20 using 1:2 with points lc rgb "#b2182b" lw 2 pt 6 ps 1.1 dt 2 title 'peer:torchvision'
    unset output
}
