# deform_conv2d.deform_conv2d.workspace.gp — kbench plot: device workspace each variant allocates, per case (hatched: peers)
# Render in this folder: gnuplot deform_conv2d.deform_conv2d.workspace.gp  (data: deform_conv2d.deform_conv2d.workspace.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'deform_conv2d: device workspace per variant (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'workspace (MiB)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [1.02539:724.635]
set xtics ('c_in=256'."\n".'c_out=256 h=50'."\n".'w=84 dtype=f16' 0, 'c_in=512'."\n".'c_out=512 h=25'."\n".'w=42 dtype=f16' 1, 'c_in=128'."\n".'c_out=128'."\n".'h=100 w=168'."\n".'dtype=f16' 2, 'c_in=256'."\n".'c_out=256 h=50'."\n".'w=84' 3, 'c_in=512'."\n".'c_out=512 h=25'."\n".'w=42' 4, 'c_in=128'."\n".'c_out=128'."\n".'h=100 w=168' 5, 'n=8 c_in=256'."\n".'c_out=256 h=64'."\n".'w=64 dtype=f16' 6, 'n=2 h=200'."\n".'w=336'."\n".'dtype=f16' 7, 'n=8 c_in=256'."\n".'c_out=256 h=64'."\n".'w=64' 8, 'n=2 h=200'."\n".'w=336' 9)
set bmargin 7
set rmargin at screen 0.9095
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 4068,580 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 4068,580 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './deform_conv2d.deform_conv2d.workspace.'.fmt
    set key at screen 0.9120, screen 0.8793 left top Left reverse samplen 3
    set label 1 'explicit_torchvision, explicit_torchvision_half,'."\n".'explicit_gemm_i64, explicit_gemm_i32, nhwc_gemm,'."\n".'nhwc_fused_tf32, nhwc_fused_f16' at screen 0.9149, screen 0.5724 left front font ",9" tc rgb "#666666"
    plot \
        './deform_conv2d.deform_conv2d.workspace.dat' using 2 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 3 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 4 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 5 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 6 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 7 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 8 lc rgb "#cccccc" fs solid 0.9 border lc rgb "#cccccc" notitle, \
        './deform_conv2d.deform_conv2d.workspace.dat' using 9 lc rgb "#59a14f" lw 1 fs solid 0.9 border lc rgb "#333333" title 'explicit_gemm_tf32', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 10 lc rgb "#edc948" lw 1 fs solid 0.9 border lc rgb "#333333" title 'explicit_nhwc', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 11 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'explicit_nhwc_tf32', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 12 lc rgb "#edc948" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nhwc_wgmma_tf32', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 13 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nhwc_wgmma_f16', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 14 lc rgb "#9c755f" lw 3 fs solid 0.9 border lc rgb "#000000" title 'nhwc_ws_tf32', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 15 lc rgb "#bcbd22" lw 3 fs solid 0.9 border lc rgb "#000000" title 'nhwc_ws_f16', \
        './deform_conv2d.deform_conv2d.workspace.dat' using 16 lc rgb "#f28e2b" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nhwc_ws_3xtf32', \
        NaN with boxes lc rgb "#cccccc" fs solid 0.9 title 'others (7 of ours), named below:'
    unset output
}
