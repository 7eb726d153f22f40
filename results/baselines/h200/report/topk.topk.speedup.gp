# topk.topk.speedup.gp — kbench plot: speedup of each variant over the case's baseline (baseline time / variant time; above 1 is faster; hatched: peers)
# Render in this folder: gnuplot topk.topk.speedup.gp  (data: topk.topk.speedup.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'topk: speedup over the baseline (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'speedup over the baseline (×, higher is faster)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [0.000837663:136.226]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#555555" front
set xtics ('segments=32x4096'."\n".'k=100'."\n".'vs radix_sort' 0, 'segments=32x4096'."\n".'vs radix_sort' 1, '(defaults)'."\n".'vs radix_sort' 2, 'segments=1x1048576'."\n".'k=100'."\n".'vs radix_sort' 3, 'segments=1x1048576'."\n".'vs radix_sort' 4, 'batch=32'."\n".'vs radix_sort' 5, 'segments=1x16777216'."\n".'k=100'."\n".'vs radix_sort' 6, 'segments=1x16777216'."\n".'vs radix_sort' 7)
set bmargin 6
set rmargin at screen 0.8882
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 2567,565 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 2567,565 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './topk.topk.speedup.'.fmt
    set key at screen 0.8921, screen 0.8761 left top Left reverse samplen 3
    plot \
        './topk.topk.speedup.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'radix_sort', \
        './topk.topk.speedup.dat' using 3 lc rgb "#f28e2b" lw 3 fs solid 0.9 border lc rgb "#000000" title 'segmented_sort', \
        './topk.topk.speedup.dat' using 4 lc rgb "#e15759" lw 3 fs solid 0.9 border lc rgb "#000000" title 'radix_select', \
        './topk.topk.speedup.dat' using 5 lc rgb "#76b7b2" lw 3 fs solid 0.9 border lc rgb "#000000" title 'grid_select', \
        './topk.topk.speedup.dat' using 6 lc rgb "#59a14f" lw 3 fs solid 0.9 border lc rgb "#000000" title 'coop_select', \
        './topk.topk.speedup.dat' using 7 lc rgb "#edc948" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cub_topk', \
        './topk.topk.speedup.dat' using 8 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_select', \
        './topk.topk.speedup.dat' using 9 lc rgb "#7f3b08" fs pattern 4 border lc rgb "#7f3b08" title 'peer:torch_compile_topk', \
        './topk.topk.speedup.dat' using 10 lc rgb "#2d004b" fs pattern 4 border lc rgb "#2d004b" title 'peer:torch_sort', \
        './topk.topk.speedup.dat' using 11 lc rgb "#1b7837" fs pattern 4 border lc rgb "#1b7837" title 'peer:torch_topk'
    unset output
}
