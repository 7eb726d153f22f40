# preprocess.preprocess.workspace.gp — kbench plot: device workspace each variant allocates, per case (hatched: peers)
# Render in this folder: gnuplot preprocess.preprocess.workspace.gp  (data: preprocess.preprocess.workspace.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'preprocess: device workspace per variant (cold mode) — NVIDIA H200'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel 'workspace (MiB)'
set xtics nomirror scale 0 font ",9"
unset mxtics
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set xtics ('in_h=320'."\n".'in_w=320' 0, 'in_h=320'."\n".'in_w=320'."\n".'interp=letterbox' 1, 'in_h=720'."\n".'in_w=1280'."\n".'interp=nearest' 2, 'in_h=720'."\n".'in_w=1280' 3, 'in_h=720'."\n".'in_w=1280'."\n".'interp=letterbox' 4, 'interp=nearest' 5, '(defaults)' 6, 'interp=letterbox' 7, 'in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024' 8, 'in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'interp=letterbox' 9, 'n=8 in_h=320'."\n".'in_w=320' 10, 'n=8 in_h=320'."\n".'in_w=320'."\n".'interp=letterbox' 11, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=nearest' 12, 'n=8 in_h=720'."\n".'in_w=1280' 13, 'n=8 in_h=720'."\n".'in_w=1280'."\n".'interp=letterbox' 14, 'n=8'."\n".'interp=nearest' 15, 'n=8' 16, 'n=8'."\n".'interp=letterbox' 17, 'n=16 dtype=f16' 18, 'n=16'."\n".'interp=letterbox'."\n".'dtype=f16' 19, 'n=16'."\n".'interp=nearest' 20, 'n=16' 21, 'n=16'."\n".'interp=letterbox' 22, 'n=8 in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024' 23, 'n=8 in_h=2160'."\n".'in_w=3840'."\n".'out_h=1024'."\n".'out_w=1024'."\n".'interp=letterbox' 24)
set bmargin 8
set rmargin at screen 0.9511
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 3844,595 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 3844,595 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './preprocess.preprocess.workspace.'.fmt
    set key at screen 0.9537, screen 0.8824 left top Left reverse samplen 3
    plot \
        './preprocess.preprocess.workspace.dat' using 2 lc rgb "#ff9da7" lw 1 fs solid 0.9 border lc rgb "#333333" title 'cpu_bilinear'
    unset output
}
