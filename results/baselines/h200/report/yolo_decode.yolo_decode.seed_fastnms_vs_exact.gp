# yolo_decode.yolo_decode.seed_fastnms_vs_exact.gp — kbench plot: seed_fastnms (other semantics by design) against the fastest exact variant per case: time saved, and results the exact op keeps that it drops (from its note)
# Render in this folder: gnuplot yolo_decode.yolo_decode.seed_fastnms_vs_exact.gp  (data: yolo_decode.yolo_decode.seed_fastnms_vs_exact.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'yolo_decode: seed_fastnms vs the fastest exact variant (cold mode) — NVIDIA H200'
set xtics ('(defaults)'."\n".'vs atomic_greedy' 0, 'b=8'."\n".'vs atomic_greedy' 1, 'b=32'."\n".'vs atomic_greedy' 2)
set xtics nomirror scale 0 font ",9"
unset mxtics
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set bmargin 3
set lmargin at screen 0.09
set rmargin at screen 0.74
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1050,760 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1050,760 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './yolo_decode.yolo_decode.seed_fastnms_vs_exact.'.fmt
    set multiplot layout 2,1
    set ylabel "median time (µs)"
    plot './yolo_decode.yolo_decode.seed_fastnms_vs_exact.dat' using 2 lc rgb "#8c8c8c" fs solid 0.9 title "fastest exact variant", \
        "" using 3 lc rgb "#edc948" fs solid 0.9 title 'seed_fastnms', \
        "" using 0:($2 > $3 ? $2 : $3):(sprintf("saved %.0f µs (%.0f%%)", $4, 100 * $4 / $2)) with labels offset 0,0.8 font ",9" notitle
    if (1) {
    unset title
    set ylabel 'kept by the exact op,'."\n".'dropped by seed_fastnms'
    plot './yolo_decode.yolo_decode.seed_fastnms_vs_exact.dat' using 5 lc rgb "#edc948" fs pattern 2 border lc rgb "#edc948" title "dropped (from the row's note)", \
        "" using 0:5:5 with labels offset 0,0.8 font ",9" notitle
    }
    unset multiplot
    unset output
}
