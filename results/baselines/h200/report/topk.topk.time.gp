# topk.topk.time.gp — kbench plot: median time per launch against the minimum bytes the op must move, per variant (log-log; error bars p10-p90; dashed: peers)
# Render in this folder: gnuplot topk.topk.time.gp  (data: topk.topk.time.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'topk: median time vs bytes moved (cold mode) — NVIDIA H200'
set logscale x
set format x "%.0s %cB"
set xlabel "minimum bytes moved per launch (the op's cost model)"
set logscale y
set ylabel "median time per launch (µs)"
set rmargin at screen 0.7407
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1107,650 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1107,650 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './topk.topk.time.'.fmt
    set key at screen 0.7498, screen 0.8923 left top Left reverse samplen 3
    plot \
        './topk.topk.time.dat' index 0 using 1:2:3:4 with yerrorlines lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'radix_sort', \
        './topk.topk.time.dat' index 1 using 1:2:3:4 with yerrorlines lc rgb "#f28e2b" lw 4 pt 5 ps 1.5 dt 1 title 'segmented_sort', \
        './topk.topk.time.dat' index 2 using 1:2:3:4 with yerrorlines lc rgb "#e15759" lw 4 pt 9 ps 1.5 dt 1 title 'radix_select', \
        './topk.topk.time.dat' index 3 using 1:2:3:4 with yerrorlines lc rgb "#76b7b2" lw 4 pt 11 ps 1.5 dt 1 title 'grid_select', \
        './topk.topk.time.dat' index 4 using 1:2:3:4 with yerrorlines lc rgb "#59a14f" lw 4 pt 13 ps 1.5 dt 1 title 'coop_select', \
        './topk.topk.time.dat' index 5 using 1:2:3:4 with yerrorlines lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'cub_topk', \
        './topk.topk.time.dat' index 6 using 1:2:3:4 with yerrorlines lc rgb "#b07aa1" lw 2 pt 4 ps 1.1 dt 1 title 'cpu_select', \
        './topk.topk.time.dat' index 7 using 1:2:3:4 with yerrorlines lc rgb "#7f3b08" lw 2 pt 4 ps 1.1 dt 2 title 'peer:torch_compile_topk', \
        './topk.topk.time.dat' index 8 using 1:2:3:4 with yerrorlines lc rgb "#2d004b" lw 2 pt 8 ps 1.1 dt 2 title 'peer:torch_sort', \
        './topk.topk.time.dat' index 9 using 1:2:3:4 with yerrorlines lc rgb "#1b7837" lw 2 pt 10 ps 1.1 dt 2 title 'peer:torch_topk'
    unset output
}
