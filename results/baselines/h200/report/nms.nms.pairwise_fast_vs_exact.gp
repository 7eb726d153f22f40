# nms.nms.pairwise_fast_vs_exact.gp — kbench plot: pairwise_fast (other semantics by design) against the fastest exact variant per case: time saved, and results the exact op keeps that it drops (from its note)
# Render in this folder: gnuplot nms.nms.pairwise_fast_vs_exact.gp  (data: nms.nms.pairwise_fast_vs_exact.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'nms: pairwise_fast vs the fastest exact variant (cold mode) — NVIDIA H200'
set xtics ('(defaults)'."\n".'vs rounds_unranked' 0, 'n=4096'."\n".'dist=pixels'."\n".'vs rounds' 1, 'n=25200'."\n".'vs rounds' 2, 'n=25200'."\n".'iou=0.7'."\n".'vs rounds' 3, 'n=25200'."\n".'dist=clustered'."\n".'vs rounds' 4, 'n=25200'."\n".'classes=80'."\n".'dist=clustered'."\n".'vs rounds' 5, 'n=25200'."\n".'dist=pixels'."\n".'vs rounds' 6, 'n=100000'."\n".'vs rounds' 7)
set xtics nomirror scale 0 font ",9"
unset mxtics
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set bmargin 5
set lmargin at screen 0.09
set rmargin at screen 0.74
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 2100,820 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 2100,820 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './nms.nms.pairwise_fast_vs_exact.'.fmt
    set multiplot layout 2,1
    set ylabel "median time (µs)"
    plot './nms.nms.pairwise_fast_vs_exact.dat' using 2 lc rgb "#8c8c8c" fs solid 0.9 title "fastest exact variant", \
        "" using 3 lc rgb "#edc948" fs solid 0.9 title 'pairwise_fast', \
        "" using 0:($2 > $3 ? $2 : $3):(sprintf("saved %.0f µs (%.0f%%)", $4, 100 * $4 / $2)) with labels offset 0,0.8 font ",9" notitle
    if (1) {
    unset title
    set ylabel 'kept by the exact op,'."\n".'dropped by pairwise_fast'
    plot './nms.nms.pairwise_fast_vs_exact.dat' using 5 lc rgb "#edc948" fs pattern 2 border lc rgb "#edc948" title "dropped (from the row's note)", \
        "" using 0:5:5 with labels offset 0,0.8 font ",9" notitle
    }
    unset multiplot
    unset output
}
