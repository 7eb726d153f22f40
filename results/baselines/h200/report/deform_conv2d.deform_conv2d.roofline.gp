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
set xrange [4.04064:3276.02]
set yrange [2609.1:687952]
set rmargin at screen 0.6602
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1242,650 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1242,650 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './deform_conv2d.deform_conv2d.roofline.'.fmt
    set key at screen 0.6683, screen 0.8923 left top Left reverse samplen 3
    set label 1 'explicit_torchvision, explicit_torchvision_half,'."\n".'explicit_gemm_i64, explicit_gemm_i32, implicit_gemm,'."\n".'implicit_gemm_tf32, implicit_gemm_f16, nhwc_gemm,'."\n".'nhwc_fused_tf32, nhwc_fused_f16' at screen 0.6779, screen 0.4800 left front font ",9" tc rgb "#666666"
    plot \
        './deform_conv2d.deform_conv2d.roofline.dat' index 0 using 1:2 with lines lc rgb "#000000" lw 2 dt 1 title 'copy 4227 GB/s (measured ceiling)', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 1 using 1:2 with lines lc rgb "#000000" lw 2 dt 4 title 'SGEMM 51243 GFLOP/s (measured ceiling)', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 2 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 3 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 4 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 5 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 6 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 7 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 8 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 9 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 10 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 11 using 1:2 with points lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.roofline.dat' index 12 using 1:2 with points lc rgb "#59a14f" lw 2 pt 13 ps 1.1 dt 1 title 'explicit_gemm_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 13 using 1:2 with points lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'explicit_nhwc', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 14 using 1:2 with points lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title 'explicit_nhwc_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 15 using 1:2 with points lc rgb "#edc948" lw 2 pt 4 ps 1.1 dt 1 title 'nhwc_wgmma_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 16 using 1:2 with points lc rgb "#b07aa1" lw 2 pt 6 ps 1.1 dt 1 title 'nhwc_wgmma_f16', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 17 using 1:2 with points lc rgb "#9c755f" lw 4 pt 10 ps 1.5 dt 1 title 'nhwc_ws_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 18 using 1:2 with points lc rgb "#bcbd22" lw 4 pt 7 ps 1.5 dt 1 title 'nhwc_ws_f16', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 19 using 1:2 with points lc rgb "#f28e2b" lw 2 pt 11 ps 1.1 dt 1 title 'nhwc_ws_3xtf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 20 using 1:2 with points lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title 'peer:cudnn_conv2d', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 21 using 1:2 with points lc rgb "#7f3b08" lw 2 pt 4 ps 1.1 dt 2 title 'peer:cudnn_conv2d_tf32', \
        './deform_conv2d.deform_conv2d.roofline.dat' index 22 using 1:2 with points lc rgb "#2d004b" lw 2 pt 8 ps 1.1 dt 2 title 'peer:torchvision', \
        NaN with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 title 'others (10 of ours), named below:'
    unset output
}
