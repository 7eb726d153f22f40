# deform_conv2d.deform_conv2d.speedup.gp — kbench plot: speedup of each variant over the case's baseline against h (with n, c_in, c_out, w), a panel per combination of the other axes that vary (baseline time / variant time; above 1 is faster; dashed: peers)
# Render in this folder: gnuplot deform_conv2d.deform_conv2d.speedup.gp  (data: deform_conv2d.deform_conv2d.speedup.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'deform_conv2d: speedup over the baseline (cold mode) — NVIDIA H200'
set xlabel 'h (with n, c_in, c_out, w)'
set xtics nomirror font ",9"
unset mxtics
set xtics ('h=25 n=1'."\n".'c_in=512'."\n".'c_out=512'."\n".'w=42' 0, 'h=50 n=1'."\n".'c_in=256'."\n".'c_out=256'."\n".'w=84' 1, 'h=64 n=8'."\n".'c_in=256'."\n".'c_out=256'."\n".'w=64' 2, 'h=100 n=1'."\n".'c_in=128'."\n".'c_out=128'."\n".'w=168' 3, 'h=200 n=2'."\n".'c_in=64'."\n".'c_out=64'."\n".'w=336' 4)
set xlabel offset 0,-3
set xrange [-0.4:4.4]
set logscale y
set yrange [0.0450425:8.22834]
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1497,494 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1497,494 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './deform_conv2d.deform_conv2d.speedup.'.fmt
    set multiplot title 'deform_conv2d: speedup over the baseline (cold mode) — NVIDIA H200'
    set lmargin at screen 0.0768
    set rmargin at screen 0.3607
    set tmargin at screen 0.8381
    set bmargin at screen 0.2814
    set ylabel 'speedup over explicit_gemm_i64 (×, higher is faster)'
    set title 'dtype=f32'
    set key at screen 0.7548, screen 0.8381 left top Left reverse samplen 3
    set label 1 'explicit_torchvision, explicit_torchvision_half,'."\n".'explicit_gemm_i64, explicit_gemm_i32,'."\n".'implicit_gemm, implicit_gemm_tf32,'."\n".'implicit_gemm_f16, nhwc_gemm, nhwc_fused_tf32,'."\n".'nhwc_fused_f16' at screen 0.7629, screen 0.3684 left front font ",9" tc rgb "#666666"
    plot 1 with lines lc rgb "#555555" dt 2 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 0 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 1 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 2 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 6 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 7 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 8 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 9 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 3 using 1:2 with linespoints lc rgb "#59a14f" lw 2 pt 13 ps 1.1 dt 1 title 'explicit_gemm_tf32', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 4 using 1:2 with linespoints lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'explicit_nhwc', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 5 using 1:2 with linespoints lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title 'explicit_nhwc_tf32', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 10 using 1:2 with linespoints lc rgb "#edc948" lw 2 pt 4 ps 1.1 dt 1 title 'nhwc_wgmma_tf32', \
        NaN with linespoints lc rgb "#b07aa1" lw 2 pt 6 ps 1.1 dt 1 title 'nhwc_wgmma_f16', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 11 using 1:2 with linespoints lc rgb "#9c755f" lw 4 pt 10 ps 1.5 dt 1 title 'nhwc_ws_tf32', \
        NaN with linespoints lc rgb "#bcbd22" lw 4 pt 7 ps 1.5 dt 1 title 'nhwc_ws_f16', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 12 using 1:2 with linespoints lc rgb "#f28e2b" lw 2 pt 11 ps 1.1 dt 1 title 'nhwc_ws_3xtf32', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 13 using 1:2 with linespoints lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title 'peer:cudnn_conv2d', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 14 using 1:2 with linespoints lc rgb "#7f3b08" lw 2 pt 4 ps 1.1 dt 2 title 'peer:cudnn_conv2d_tf32', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 15 using 1:2 with linespoints lc rgb "#2d004b" lw 2 pt 8 ps 1.1 dt 2 title 'peer:torchvision', \
        NaN with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 title 'others (10 of ours), named below:'
    set lmargin at screen 0.4509
    set rmargin at screen 0.7348
    set tmargin at screen 0.8381
    set bmargin at screen 0.2814
    unset ylabel
    set title 'dtype=f16'
    unset key
    unset label 1
    plot 1 with lines lc rgb "#555555" dt 2 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 16 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 17 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 18 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 20 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 21 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 22 using 1:2 with linespoints lc rgb "#cccccc" lw 1 pt 7 ps 0.4 dt 1 notitle, \
        './deform_conv2d.deform_conv2d.speedup.dat' index 19 using 1:2 with linespoints lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'explicit_nhwc', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 23 using 1:2 with linespoints lc rgb "#b07aa1" lw 2 pt 6 ps 1.1 dt 1 title 'nhwc_wgmma_f16', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 24 using 1:2 with linespoints lc rgb "#bcbd22" lw 4 pt 7 ps 1.5 dt 1 title 'nhwc_ws_f16', \
        './deform_conv2d.deform_conv2d.speedup.dat' index 25 using 1:2 with linespoints lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title 'peer:cudnn_conv2d'
    unset multiplot
    unset output
}
