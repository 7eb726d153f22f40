# yolo_decode.yolo_decode.roofline.gp — kbench plot: achieved bandwidth (by the op's minimum-bytes model) against problem size, under the measured copy peak
# Render in this folder: gnuplot yolo_decode.yolo_decode.roofline.gp  (data: yolo_decode.yolo_decode.roofline.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title "yolo_decode: achieved bandwidth vs copy peak (cold mode) — NVIDIA H100 80GB HBM3"
set logscale x
set format x "%.0s %cB"
set xlabel "minimum bytes moved per launch (the op's cost model)"
set logscale y
set ylabel "achieved bandwidth (GB/s, by the cost model)"
set yrange [4.308:5996]
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1100,650 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1100,650 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output "yolo_decode.yolo_decode.roofline.".fmt
    plot 2998 lc rgb "#000000" lw 2 dt 2 title "copy peak 2998 GB/s", \
        "yolo_decode.yolo_decode.roofline.dat" index 0 using 1:2 with linespoints lc rgb "#4e79a7" lw 2 pt 7 ps 1.1 dt 1 title "atomic_bitmask", \
        "yolo_decode.yolo_decode.roofline.dat" index 1 using 1:2 with linespoints lc rgb "#f28e2b" lw 2 pt 5 ps 1.1 dt 1 title "atomic_fastnms", \
        "yolo_decode.yolo_decode.roofline.dat" index 2 using 1:2 with linespoints lc rgb "#e15759" lw 2 pt 9 ps 1.1 dt 1 title "scan_greedy", \
        "yolo_decode.yolo_decode.roofline.dat" index 3 using 1:2 with linespoints lc rgb "#76b7b2" lw 2 pt 11 ps 1.1 dt 1 title "fused_batch", \
        "yolo_decode.yolo_decode.roofline.dat" index 4 using 1:2 with linespoints lc rgb "#222222" lw 2 pt 6 ps 1.1 dt 2 title "peer:torch_ultralytics"
    unset output
}
