# nms.nms.time.gp — kbench plot: median time per launch of each variant, per case (the cases are scenarios that share sizes, not one sweep: a line through them would join unlike cases; hatched: peers)
# Render in this folder: gnuplot nms.nms.time.gp  (data: nms.nms.time.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'nms: median time per case (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'median time per launch (µs)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [6.288:2.33613e+07]
set xtics ('(defaults)' 0, 'n=4096'."\n".'dist=pixels' 1, 'n=25200' 2, 'n=25200'."\n".'iou=0.7' 3, 'n=25200'."\n".'dist=clustered' 4, 'n=25200'."\n".'classes=80'."\n".'dist=clustered' 5, 'n=25200'."\n".'dist=pixels' 6, 'n=100000' 7)
set bmargin 6
set rmargin at screen 0.8729
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 2612,565 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 2612,565 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './nms.nms.time.'.fmt
    set key at screen 0.8767, screen 0.8761 left top Left reverse samplen 3
    plot \
        './nms.nms.time.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'bitmask_host', \
        './nms.nms.time.dat' using 3 lc rgb "#f28e2b" lw 1 fs solid 0.9 border lc rgb "#333333" title 'bitmask_gpu', \
        './nms.nms.time.dat' using 4 lc rgb "#e15759" lw 1 fs solid 0.9 border lc rgb "#333333" title 'blockwalk', \
        './nms.nms.time.dat' using 5 lc rgb "#76b7b2" lw 3 fs solid 0.9 border lc rgb "#000000" title 'rounds', \
        './nms.nms.time.dat' using 6 lc rgb "#59a14f" lw 3 fs solid 0.9 border lc rgb "#000000" title 'rounds_unranked', \
        './nms.nms.time.dat' using 7 lc rgb "#edc948" lw 1 fs solid 0.9 border lc rgb "#333333" title 'pairwise_fast', \
        './nms.nms.time.dat' using 8 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_greedy', \
        './nms.nms.time.dat' using 9 lc rgb "#ff9da7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_bitmask', \
        './nms.nms.time.dat' using 10 lc rgb "#7f3b08" fs pattern 4 border lc rgb "#7f3b08" title 'peer:torchvision_batched_nms', \
        './nms.nms.time.dat' using 11 lc rgb "#2d004b" fs pattern 4 border lc rgb "#2d004b" title 'peer:torchvision_nms'
    unset output
}
