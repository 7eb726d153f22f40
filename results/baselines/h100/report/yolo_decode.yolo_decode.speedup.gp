# yolo_decode.yolo_decode.speedup.gp — kbench plot: speedup of each variant over the case's baseline (baseline time / variant time; above 1 is faster; hatched: peers)
# Render in this folder: gnuplot yolo_decode.yolo_decode.speedup.gp  (data: yolo_decode.yolo_decode.speedup.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title "yolo_decode: speedup over the baseline (cold mode) — NVIDIA H100 80GB HBM3"
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set ylabel "speedup over the baseline (×, higher is faster)"
set xtics nomirror scale 0 font ",9"
unset mxtics
set logscale y
set yrange [0.012202:11.0786]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#555555" front
set xtics ("(defaults)\nvs atomic_bitmask" 0, "b=8\nvs atomic_bitmask" 1, "b=32\nvs atomic_bitmask" 2)
set bmargin 5
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 992,550 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 992,550 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output "yolo_decode.yolo_decode.speedup.".fmt
    plot \
        "yolo_decode.yolo_decode.speedup.dat" using 2 lc rgb "#4e79a7" fs solid 0.9 border lc rgb "#333333" title "atomic_bitmask", \
        "yolo_decode.yolo_decode.speedup.dat" using 3 lc rgb "#f28e2b" fs solid 0.9 border lc rgb "#333333" title "atomic_fastnms", \
        "yolo_decode.yolo_decode.speedup.dat" using 4 lc rgb "#e15759" fs solid 0.9 border lc rgb "#333333" title "scan_greedy", \
        "yolo_decode.yolo_decode.speedup.dat" using 5 lc rgb "#76b7b2" fs solid 0.9 border lc rgb "#333333" title "fused_batch", \
        "yolo_decode.yolo_decode.speedup.dat" using 6 lc rgb "#222222" fs pattern 4 border lc rgb "#222222" title "peer:torch_ultralytics"
    unset output
}
