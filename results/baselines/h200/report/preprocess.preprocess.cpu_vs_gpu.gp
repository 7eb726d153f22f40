# preprocess.preprocess.cpu_vs_gpu.gp — kbench plot: CPU or GPU: per case the fastest host (CPU) variant and the fastest device (GPU) variant that PASSed, against n, a panel per combination of the other axes that vary (log scale; error bars p10-p90)
# Render in this folder: gnuplot preprocess.preprocess.cpu_vs_gpu.gp  (data: preprocess.preprocess.cpu_vs_gpu.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'preprocess: CPU or GPU (cold mode) — NVIDIA H200'
set xlabel 'n'
set xtics nomirror font ",9"
unset mxtics
set xtics ('1' 1, '8' 8, '16' 16)
set xlabel offset 0,0
set xrange [0.1:16.9]
set logscale y
set yrange [4.11733:19753.8]
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 2003,842 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 2003,842 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './preprocess.preprocess.cpu_vs_gpu.'.fmt
    set multiplot title 'preprocess: CPU or GPU (cold mode) — NVIDIA H200'
    set lmargin at screen 0.0574
    set rmargin at screen 0.2696
    set tmargin at screen 0.9050
    set bmargin at screen 0.5784
    set ylabel 'median time per launch (µs)'
    set title 'in_h=320 in_w=320 out_h=640 out_w=640 dtype=f32'
    set key at screen 0.8437, screen 0.9050 left top Left reverse samplen 3
    plot \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    set lmargin at screen 0.3370
    set rmargin at screen 0.5492
    set tmargin at screen 0.9050
    set bmargin at screen 0.5784
    unset ylabel
    set title 'in_h=720 in_w=1280 out_h=640 out_w=640 dtype=f32'
    unset key
    unset label 1
    plot \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    set lmargin at screen 0.6166
    set rmargin at screen 0.8288
    set tmargin at screen 0.9050
    set bmargin at screen 0.5784
    unset ylabel
    set title 'in_h=1080 in_w=1920 out_h=640 out_w=640 dtype=f32'
    unset key
    unset label 1
    plot \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    set lmargin at screen 0.0574
    set rmargin at screen 0.2696
    set tmargin at screen 0.4347
    set bmargin at screen 0.1081
    set ylabel 'median time per launch (µs)'
    set title 'in_h=1080 in_w=1920 out_h=640 out_w=640 dtype=f16'
    unset key
    unset label 1
    plot \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    set lmargin at screen 0.3370
    set rmargin at screen 0.5492
    set tmargin at screen 0.4347
    set bmargin at screen 0.1081
    unset ylabel
    set title 'in_h=2160 in_w=3840 out_h=1024 out_w=1024 dtype=f32'
    unset key
    unset label 1
    plot \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './preprocess.preprocess.cpu_vs_gpu.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    unset multiplot
    unset output
}
