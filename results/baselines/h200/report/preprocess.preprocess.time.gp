# preprocess.preprocess.time.gp — kbench plot: median time per launch of each variant, per case (the cases are scenarios that share sizes, not one sweep: a line through them would join unlike cases; hatched: peers)
# Render in this folder: gnuplot preprocess.preprocess.time.gp  (data: preprocess.preprocess.time.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'preprocess: median time per case (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'median time per launch (µs)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [2.72:964204]
set xtics ('in_h=320'."\n".'in_w=320' 0, 'in_h=320'."\n".'in_w=320'."\n".'interp=letterbox' 1, 'in_h=720'."\n".'in_w=1280'."\n".'interp=nearest' 2, 'in_h=720'."\n".'in_w=1280' 3, 'in_h=720'."\n".'in_w=1280'."\n".'interp=letterbox' 4, 'interp=nearest' 5, '(defaults)' 6, 'interp=letterbox' 7, 'in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024' 8, 'in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'interp=letterbox' 9, 'n=8 in_h=320'."\n".'in_w=320' 10, 'n=8 in_h=320'."\n".'in_w=320'."\n".'interp=letterbox' 11, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=nearest' 12, 'n=8 in_h=720'."\n".'in_w=1280' 13, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=letterbox' 14, 'n=8'."\n".'interp=nearest' 15, 'n=8' 16, 'n=8'."\n".'interp=letterbox' 17, 'n=16 dtype=f16' 18, 'n=16'."\n".'interp=letterbox'."\n".'dtype=f16' 19, 'n=16'."\n".'interp=nearest' 20, 'n=16' 21, 'n=16'."\n".'interp=letterbox' 22, 'n=8 in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024' 23, 'n=8 in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'interp=letterbox' 24)
set bmargin 8
set rmargin at screen 0.9343
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 3960,595 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 3960,595 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './preprocess.preprocess.time.'.fmt
    set key at screen 0.9369, screen 0.8824 left top Left reverse samplen 3
    plot \
        './preprocess.preprocess.time.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nearest_naive', \
        './preprocess.preprocess.time.dat' using 3 lc rgb "#f28e2b" lw 3 fs solid 0.9 border lc rgb "#000000" title 'bilinear_naive', \
        './preprocess.preprocess.time.dat' using 4 lc rgb "#e15759" lw 3 fs solid 0.9 border lc rgb "#000000" title 'nearest_vec', \
        './preprocess.preprocess.time.dat' using 5 lc rgb "#76b7b2" lw 3 fs solid 0.9 border lc rgb "#000000" title 'bilinear_vec', \
        './preprocess.preprocess.time.dat' using 6 lc rgb "#59a14f" lw 3 fs solid 0.9 border lc rgb "#000000" title 'letterbox_warpaffine', \
        './preprocess.preprocess.time.dat' using 7 lc rgb "#edc948" lw 3 fs solid 0.9 border lc rgb "#000000" title 'letterbox_vec', \
        './preprocess.preprocess.time.dat' using 8 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nearest_seed', \
        './preprocess.preprocess.time.dat' using 9 lc rgb "#ff9da7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_bilinear', \
        './preprocess.preprocess.time.dat' using 10 lc rgb "#222222" fs pattern 4 border lc rgb "#222222" title 'peer:copy_floor', \
        './preprocess.preprocess.time.dat' using 11 lc rgb "#2d004b" fs pattern 4 border lc rgb "#2d004b" title 'peer:kornia', \
        './preprocess.preprocess.time.dat' using 12 lc rgb "#1b7837" fs pattern 4 border lc rgb "#1b7837" title 'peer:opencv_cpu', \
        './preprocess.preprocess.time.dat' using 13 lc rgb "#666666" fs pattern 4 border lc rgb "#666666" title 'peer:torch', \
        './preprocess.preprocess.time.dat' using 14 lc rgb "#b2182b" fs pattern 4 border lc rgb "#b2182b" title 'peer:torch_compile'
    unset output
}
