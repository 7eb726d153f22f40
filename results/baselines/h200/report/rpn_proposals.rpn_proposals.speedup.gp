# rpn_proposals.rpn_proposals.speedup.gp — kbench plot: speedup of each variant over the case's baseline (baseline time / variant time; above 1 is faster; hatched: peers)
# Render in this folder: gnuplot rpn_proposals.rpn_proposals.speedup.gp  (data: rpn_proposals.rpn_proposals.speedup.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'rpn_proposals: speedup over the baseline (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'speedup over the baseline (×, higher is faster)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [0.0290939:24.5976]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#555555" front
set xtics ('img_h=512'."\n".'img_w=512'."\n".'vs sort_bitmask' 0, 'img_h=512'."\n".'img_w=1024'."\n".'vs sort_bitmask' 1, 'img_h=1024'."\n".'img_w=512'."\n".'vs sort_bitmask' 2, 'img_h=1024'."\n".'img_w=1024'."\n".'vs sort_bitmask' 3, '(defaults)'."\n".'vs sort_bitmask' 4, 'objects=0'."\n".'vs sort_bitmask' 5, 'objects=100'."\n".'vs sort_bitmask' 6)
set bmargin 6
set rmargin at screen 0.8318
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1760,565 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1760,565 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './rpn_proposals.rpn_proposals.speedup.'.fmt
    set key at screen 0.8375, screen 0.8761 left top Left reverse samplen 3
    plot \
        './rpn_proposals.rpn_proposals.speedup.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'sort_bitmask', \
        './rpn_proposals.rpn_proposals.speedup.dat' using 3 lc rgb "#f28e2b" lw 1 fs solid 0.9 border lc rgb "#333333" title 'select_bitmask_gpu', \
        './rpn_proposals.rpn_proposals.speedup.dat' using 4 lc rgb "#e15759" lw 3 fs solid 0.9 border lc rgb "#000000" title 'fused', \
        './rpn_proposals.rpn_proposals.speedup.dat' using 5 lc rgb "#76b7b2" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_port', \
        './rpn_proposals.rpn_proposals.speedup.dat' using 6 lc rgb "#59a14f" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cuda_port', \
        './rpn_proposals.rpn_proposals.speedup.dat' using 7 lc rgb "#222222" fs pattern 4 border lc rgb "#222222" title 'peer:torch_compile_mmdet', \
        './rpn_proposals.rpn_proposals.speedup.dat' using 8 lc rgb "#7f3b08" fs pattern 4 border lc rgb "#7f3b08" title 'peer:torch_mmdet'
    unset output
}
