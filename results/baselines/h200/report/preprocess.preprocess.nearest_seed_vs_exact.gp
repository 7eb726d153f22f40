# preprocess.preprocess.nearest_seed_vs_exact.gp — kbench plot: nearest_seed (other semantics by design) against the fastest exact variant per case: time saved, and results the exact op keeps that it drops (from its note)
# Render in this folder: gnuplot preprocess.preprocess.nearest_seed_vs_exact.gp  (data: preprocess.preprocess.nearest_seed_vs_exact.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'preprocess: nearest_seed vs the fastest exact variant (cold mode) — NVIDIA H200'
set xtics ('in_h=720'."\n".'in_w=1280'."\n".'interp=nearest'."\n".'vs nearest_vec' 0, 'interp=nearest'."\n".'vs nearest_vec' 1, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=nearest'."\n".'vs nearest_vec' 2, 'n=8'."\n".'interp=nearest'."\n".'vs nearest_vec' 3, 'n=16'."\n".'interp=nearest'."\n".'vs nearest_vec' 4)
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
        set terminal pngcairo size 1470,820 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1470,820 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './preprocess.preprocess.nearest_seed_vs_exact.'.fmt
    set multiplot layout 1,1
    set ylabel "median time (µs)"
    plot './preprocess.preprocess.nearest_seed_vs_exact.dat' using 2 lc rgb "#8c8c8c" fs solid 0.9 title "fastest exact variant", \
        "" using 3 lc rgb "#b07aa1" fs solid 0.9 title 'nearest_seed', \
        "" using 0:($2 > $3 ? $2 : $3):(sprintf("saved %.0f µs (%.0f%%)", $4, 100 * $4 / $2)) with labels offset 0,0.8 font ",9" notitle
    if (0) {
    unset title
    set ylabel 'kept by the exact op,'."\n".'dropped by nearest_seed'
    plot './preprocess.preprocess.nearest_seed_vs_exact.dat' using 5 lc rgb "#b07aa1" fs pattern 2 border lc rgb "#b07aa1" title "dropped (from the row's note)", \
        "" using 0:5:5 with labels offset 0,0.8 font ",9" notitle
    }
    unset multiplot
    unset output
}
