# rpn_proposals.rpn_proposals.time.gp — kbench plot: median time per launch of each variant, per case (the cases are scenarios that share sizes, not one sweep: a line through them would join unlike cases; hatched: peers)
# Render in this folder: gnuplot rpn_proposals.rpn_proposals.time.gp  (data: rpn_proposals.rpn_proposals.time.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'rpn_proposals: median time per case (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'median time per launch (µs)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [33.736:29524.2]
set xtics ('img_h=512'."\n".'img_w=512' 0, 'img_h=512'."\n".'img_w=1024' 1, 'img_h=1024'."\n".'img_w=512' 2, 'img_h=1024'."\n".'img_w=1024' 3, '(defaults)' 4, 'objects=0' 5, 'objects=100' 6)
set bmargin 5
set rmargin at screen 0.8318
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1760,550 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1760,550 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './rpn_proposals.rpn_proposals.time.'.fmt
    set key at screen 0.8375, screen 0.8727 left top Left reverse samplen 3
    plot \
        './rpn_proposals.rpn_proposals.time.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'sort_bitmask', \
        './rpn_proposals.rpn_proposals.time.dat' using 3 lc rgb "#f28e2b" lw 1 fs solid 0.9 border lc rgb "#333333" title 'select_bitmask_gpu', \
        './rpn_proposals.rpn_proposals.time.dat' using 4 lc rgb "#e15759" lw 3 fs solid 0.9 border lc rgb "#000000" title 'fused', \
        './rpn_proposals.rpn_proposals.time.dat' using 5 lc rgb "#76b7b2" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_port', \
        './rpn_proposals.rpn_proposals.time.dat' using 6 lc rgb "#59a14f" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cuda_port', \
        './rpn_proposals.rpn_proposals.time.dat' using 7 lc rgb "#222222" fs pattern 4 border lc rgb "#222222" title 'peer:torch_compile_mmdet', \
        './rpn_proposals.rpn_proposals.time.dat' using 8 lc rgb "#7f3b08" fs pattern 4 border lc rgb "#7f3b08" title 'peer:torch_mmdet'
    unset output
}
