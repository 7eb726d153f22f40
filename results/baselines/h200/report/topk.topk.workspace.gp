# topk.topk.workspace.gp — kbench plot: device workspace each variant allocates, per case (hatched: peers)
# Render in this folder: gnuplot topk.topk.workspace.gp  (data: topk.topk.workspace.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'topk: device workspace per variant (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'workspace (MiB)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [0.0369873:4096]
set xtics ('segments=32x4096'."\n".'k=100' 0, 'segments=32x4096' 1, '(defaults)' 2, 'segments=1x1048576'."\n".'k=100' 3, 'segments=1x1048576' 4, 'batch=32' 5, 'segments=1x16777216'."\n".'k=100' 6, 'segments=1x16777216' 7)
set bmargin 5
set rmargin at screen 0.8815
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1739,550 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1739,550 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './topk.topk.workspace.'.fmt
    set key at screen 0.8873, screen 0.8727 left top Left reverse samplen 3
    plot \
        './topk.topk.workspace.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'radix_sort', \
        './topk.topk.workspace.dat' using 3 lc rgb "#f28e2b" lw 3 fs solid 0.9 border lc rgb "#000000" title 'segmented_sort', \
        './topk.topk.workspace.dat' using 4 lc rgb "#76b7b2" lw 3 fs solid 0.9 border lc rgb "#000000" title 'grid_select', \
        './topk.topk.workspace.dat' using 5 lc rgb "#59a14f" lw 3 fs solid 0.9 border lc rgb "#000000" title 'coop_select', \
        './topk.topk.workspace.dat' using 6 lc rgb "#edc948" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cub_topk', \
        './topk.topk.workspace.dat' using 7 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_select'
    unset output
}
