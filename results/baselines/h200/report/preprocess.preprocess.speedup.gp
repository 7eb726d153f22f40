# preprocess.preprocess.speedup.gp — kbench plot: speedup of each variant over the case's baseline (baseline time / variant time; above 1 is faster; hatched: peers)
# Render in this folder: gnuplot preprocess.preprocess.speedup.gp  (data: preprocess.preprocess.speedup.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'preprocess: speedup over the baseline (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'speedup over the baseline (×, higher is faster)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [8.28041e-05:4.57662]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#555555" front
set xtics ('in_h=320'."\n".'in_w=320'."\n".'vs bilinear_naive' 0, 'in_h=320'."\n".'in_w=320'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 1, 'in_h=720'."\n".'in_w=1280'."\n".'interp=nearest'."\n".'vs nearest_naive' 2, 'in_h=720'."\n".'in_w=1280'."\n".'vs bilinear_naive' 3, 'in_h=720'."\n".'in_w=1280'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 4, 'interp=nearest'."\n".'vs nearest_naive' 5, '(defaults)'."\n".'vs bilinear_naive' 6, 'interp=letterbox'."\n".'vs letterbox_warpaffine' 7, 'in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'vs bilinear_naive' 8, 'in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 9, 'n=8 in_h=320'."\n".'in_w=320'."\n".'vs bilinear_naive' 10, 'n=8 in_h=320'."\n".'in_w=320'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 11, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=nearest'."\n".'vs nearest_naive' 12, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'vs bilinear_naive' 13, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 14, 'n=8'."\n".'interp=nearest'."\n".'vs nearest_naive' 15, 'n=8'."\n".'vs bilinear_naive' 16, 'n=8'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 17, 'n=16 dtype=f16'."\n".'vs bilinear_naive' 18, 'n=16'."\n".'interp=letterbox'."\n".'dtype=f16'."\n".'vs letterbox_warpaffine' 19, 'n=16'."\n".'interp=nearest'."\n".'vs nearest_naive' 20, 'n=16'."\n".'vs bilinear_naive' 21, 'n=16'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 22, 'n=8 in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'vs bilinear_naive' 23, 'n=8 in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'interp=letterbox'."\n".'vs letterbox_warpaffine' 24)
set bmargin 9
set rmargin at screen 0.9343
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 3960,610 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 3960,610 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './preprocess.preprocess.speedup.'.fmt
    set key at screen 0.9369, screen 0.8852 left top Left reverse samplen 3
    plot \
        './preprocess.preprocess.speedup.dat' using 2 lc rgb "#4e79a7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nearest_naive', \
        './preprocess.preprocess.speedup.dat' using 3 lc rgb "#f28e2b" lw 3 fs solid 0.9 border lc rgb "#000000" title 'bilinear_naive', \
        './preprocess.preprocess.speedup.dat' using 4 lc rgb "#e15759" lw 3 fs solid 0.9 border lc rgb "#000000" title 'nearest_vec', \
        './preprocess.preprocess.speedup.dat' using 5 lc rgb "#76b7b2" lw 3 fs solid 0.9 border lc rgb "#000000" title 'bilinear_vec', \
        './preprocess.preprocess.speedup.dat' using 6 lc rgb "#59a14f" lw 3 fs solid 0.9 border lc rgb "#000000" title 'letterbox_warpaffine', \
        './preprocess.preprocess.speedup.dat' using 7 lc rgb "#edc948" lw 3 fs solid 0.9 border lc rgb "#000000" title 'letterbox_vec', \
        './preprocess.preprocess.speedup.dat' using 8 lc rgb "#b07aa1" lw 1 fs solid 0.9 border lc rgb "#333333" title 'nearest_seed', \
        './preprocess.preprocess.speedup.dat' using 9 lc rgb "#ff9da7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_bilinear', \
        './preprocess.preprocess.speedup.dat' using 10 lc rgb "#222222" fs pattern 4 border lc rgb "#222222" title 'peer:copy_floor', \
        './preprocess.preprocess.speedup.dat' using 11 lc rgb "#2d004b" fs pattern 4 border lc rgb "#2d004b" title 'peer:kornia', \
        './preprocess.preprocess.speedup.dat' using 12 lc rgb "#1b7837" fs pattern 4 border lc rgb "#1b7837" title 'peer:opencv_cpu', \
        './preprocess.preprocess.speedup.dat' using 13 lc rgb "#666666" fs pattern 4 border lc rgb "#666666" title 'peer:torch', \
        './preprocess.preprocess.speedup.dat' using 14 lc rgb "#b2182b" fs pattern 4 border lc rgb "#b2182b" title 'peer:torch_compile'
    unset output
}
