# yolo_decode.yolo_decode.speedup.gp — kbench plot: speedup of each variant over the case's baseline against b (baseline time / variant time; above 1 is faster; dashed: peers)
# Render in this folder: gnuplot yolo_decode.yolo_decode.speedup.gp  (data: yolo_decode.yolo_decode.speedup.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'yolo_decode: speedup over the baseline (cold mode) — NVIDIA H200'
set xlabel 'b'
set xtics nomirror font ",9"
unset mxtics
set xtics ('1' 1, '8' 8, '32' 32)
set xlabel offset 0,0
set logscale x
set xrange [0.714286:44.8]
set logscale y
set yrange [0.00685734:14.4838]
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1150,446 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1150,446 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './yolo_decode.yolo_decode.speedup.'.fmt
    set lmargin at screen 0.1000
    set rmargin at screen 0.6783
    set tmargin at screen 0.8206
    set bmargin at screen 0.2040
    set ylabel 'speedup over atomic_bitmask (×, higher is faster)'
    set key at screen 0.7043, screen 0.8206 left top Left reverse samplen 3
    plot 1 with lines lc rgb "#555555" dt 2 notitle, \
        './yolo_decode.yolo_decode.speedup.dat' index 0 using 1:2 with linespoints lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title 'atomic_bitmask', \
        './yolo_decode.yolo_decode.speedup.dat' index 1 using 1:2 with linespoints lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title 'atomic_fastnms', \
        './yolo_decode.yolo_decode.speedup.dat' index 2 using 1:2 with linespoints lc rgb "#e15759" lw 4 pt 9 ps 1.5 dt 1 title 'atomic_greedy', \
        './yolo_decode.yolo_decode.speedup.dat' index 3 using 1:2 with linespoints lc rgb "#76b7b2" lw 2 pt 11 ps 1.1 dt 1 title 'scan_greedy', \
        './yolo_decode.yolo_decode.speedup.dat' index 4 using 1:2 with linespoints lc rgb "#59a14f" lw 2 pt 13 ps 1.1 dt 1 title 'fused_batch', \
        './yolo_decode.yolo_decode.speedup.dat' index 5 using 1:2 with linespoints lc rgb "#edc948" lw 2 pt 15 ps 1.1 dt 1 title 'seed_fastnms', \
        './yolo_decode.yolo_decode.speedup.dat' index 6 using 1:2 with linespoints lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title 'peer:torch_compile_ultralytics', \
        './yolo_decode.yolo_decode.speedup.dat' index 7 using 1:2 with linespoints lc rgb "#7f3b08" lw 2 pt 4 ps 1.1 dt 2 title 'peer:torch_ultralytics'
    unset output
}
