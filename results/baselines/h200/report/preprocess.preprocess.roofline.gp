# preprocess.preprocess.roofline.gp — kbench plot: roofline: achieved GFLOP/s against arithmetic intensity, under the measured copy-bandwidth and SGEMM ceilings
# Render in this folder: gnuplot preprocess.preprocess.roofline.gp  (data: preprocess.preprocess.roofline.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'preprocess: roofline (cold mode) — NVIDIA H200'
set logscale xy
set xlabel "arithmetic intensity (FLOP per byte moved)"
set ylabel "achieved GFLOP/s"
set xrange [0.0735632:36.6088]
set yrange [0.091:102034]
set rmargin at screen 0.6602
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1242,650 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1242,650 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './preprocess.preprocess.roofline.'.fmt
    set key at screen 0.6683, screen 0.8923 left top Left reverse samplen 3
    plot \
        './preprocess.preprocess.roofline.dat' index 0 using 1:2 with lines lc rgb "#000000" lw 2 dt 1 title 'copy 4181 GB/s (measured ceiling)', \
        './preprocess.preprocess.roofline.dat' index 1 using 1:2 with lines lc rgb "#000000" lw 2 dt 4 title 'SGEMM 51017 GFLOP/s (measured ceiling)', \
        './preprocess.preprocess.roofline.dat' index 2 using 1:2 with points lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'nearest_naive', \
        './preprocess.preprocess.roofline.dat' index 3 using 1:2 with points lc rgb "#f28e2b" lw 4 pt 5 ps 1.5 dt 1 title 'bilinear_naive', \
        './preprocess.preprocess.roofline.dat' index 4 using 1:2 with points lc rgb "#e15759" lw 4 pt 9 ps 1.5 dt 1 title 'nearest_vec', \
        './preprocess.preprocess.roofline.dat' index 5 using 1:2 with points lc rgb "#76b7b2" lw 4 pt 11 ps 1.5 dt 1 title 'bilinear_vec', \
        './preprocess.preprocess.roofline.dat' index 6 using 1:2 with points lc rgb "#59a14f" lw 4 pt 13 ps 1.5 dt 1 title 'letterbox_warpaffine', \
        './preprocess.preprocess.roofline.dat' index 7 using 1:2 with points lc rgb "#edc948" lw 4 pt 15 ps 1.5 dt 1 title 'letterbox_vec', \
        './preprocess.preprocess.roofline.dat' index 8 using 1:2 with points lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title 'nearest_seed', \
        './preprocess.preprocess.roofline.dat' index 9 using 1:2 with points lc rgb "#ff9da7" lw 2 pt 6 ps 1.1 dt 1 title 'cpu_bilinear', \
        './preprocess.preprocess.roofline.dat' index 10 using 1:2 with points lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title 'peer:copy_floor', \
        './preprocess.preprocess.roofline.dat' index 11 using 1:2 with points lc rgb "#2d004b" lw 2 pt 8 ps 1.1 dt 2 title 'peer:kornia', \
        './preprocess.preprocess.roofline.dat' index 12 using 1:2 with points lc rgb "#1b7837" lw 2 pt 10 ps 1.1 dt 2 title 'peer:opencv_cpu', \
        './preprocess.preprocess.roofline.dat' index 13 using 1:2 with points lc rgb "#666666" lw 2 pt 12 ps 1.1 dt 2 title 'peer:torch', \
        './preprocess.preprocess.roofline.dat' index 14 using 1:2 with points lc rgb "#b2182b" lw 2 pt 14 ps 1.1 dt 2 title 'peer:torch_compile'
    unset output
}
