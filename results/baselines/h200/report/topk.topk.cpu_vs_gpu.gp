# topk.topk.cpu_vs_gpu.gp — kbench plot: CPU or GPU: per case the fastest host (CPU) variant and the fastest device (GPU) variant that PASSed, against segments, a panel per combination of the other axes that vary (log scale; error bars p10-p90)
# Render in this folder: gnuplot topk.topk.cpu_vs_gpu.gp  (data: topk.topk.cpu_vs_gpu.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'topk: CPU or GPU (cold mode) — NVIDIA H200'
set xlabel 'segments'
set xtics nomirror font ",9"
unset mxtics
set xtics ('32x4096' 0, 'rpn5' 1, '1x1048576' 2, '1x16777216' 3)
set xlabel offset 0,0
set xrange [-0.4:3.4]
set logscale y
set yrange [10.9013:412502]
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 2003,446 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 2003,446 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './topk.topk.cpu_vs_gpu.'.fmt
    set multiplot title 'topk: CPU or GPU (cold mode) — NVIDIA H200'
    set lmargin at screen 0.0574
    set rmargin at screen 0.2696
    set tmargin at screen 0.8206
    set bmargin at screen 0.2040
    set ylabel 'median time per launch (µs)'
    set title 'k=100 batch=1'
    set key at screen 0.8437, screen 0.8206 left top Left reverse samplen 3
    plot \
        './topk.topk.cpu_vs_gpu.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './topk.topk.cpu_vs_gpu.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    set lmargin at screen 0.3370
    set rmargin at screen 0.5492
    set tmargin at screen 0.8206
    set bmargin at screen 0.2040
    unset ylabel
    set title 'k=1000 batch=1'
    unset key
    unset label 1
    plot \
        './topk.topk.cpu_vs_gpu.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './topk.topk.cpu_vs_gpu.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    set lmargin at screen 0.6166
    set rmargin at screen 0.8288
    set tmargin at screen 0.8206
    set bmargin at screen 0.2040
    unset ylabel
    set title 'k=1000 batch=32'
    unset key
    unset label 1
    plot \
        './topk.topk.cpu_vs_gpu.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'CPU: fastest host variant', \
        './topk.topk.cpu_vs_gpu.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'GPU: fastest device variant'
    unset multiplot
    unset output
}
