# yolo_decode.yolo_decode.workspace.gp — kbench plot: device workspace each variant allocates, per case (hatched: peers)
# Render in this folder: gnuplot yolo_decode.yolo_decode.workspace.gp  (data: yolo_decode.yolo_decode.workspace.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'yolo_decode: device workspace per variant (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'workspace (MiB)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [0.0136738:57.2212]
set xtics ('(defaults)' 0, 'b=8' 1, 'b=32' 2)
set bmargin 4
set rmargin at screen 0.7716
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 902,535 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 902,535 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './yolo_decode.yolo_decode.workspace.'.fmt
    set key at screen 0.7827, screen 0.8692 left top Left reverse samplen 3
    plot \
        './yolo_decode.yolo_decode.workspace.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'atomic_bitmask', \
        './yolo_decode.yolo_decode.workspace.dat' using 3 lc rgb "#f28e2b" lw 1 fs solid 0.9 border lc rgb "#333333" title 'atomic_fastnms', \
        './yolo_decode.yolo_decode.workspace.dat' using 4 lc rgb "#e15759" lw 3 fs solid 0.9 border lc rgb "#000000" title 'atomic_greedy', \
        './yolo_decode.yolo_decode.workspace.dat' using 5 lc rgb "#76b7b2" lw 1 fs solid 0.9 border lc rgb "#333333" title 'scan_greedy', \
        './yolo_decode.yolo_decode.workspace.dat' using 6 lc rgb "#59a14f" lw 1 fs solid 0.9 border lc rgb "#333333" title 'fused_batch', \
        './yolo_decode.yolo_decode.workspace.dat' using 7 lc rgb "#edc948" lw 1 fs solid 0.9 border lc rgb "#333333" title 'seed_fastnms'
    unset output
}
