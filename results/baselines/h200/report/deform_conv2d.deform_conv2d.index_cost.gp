# deform_conv2d.deform_conv2d.index_cost.gp — kbench plot: extra time of int64 indexing over the int32 twin, across sizes (the price of never overflowing)
# Render in this folder: gnuplot deform_conv2d.deform_conv2d.index_cost.gp  (data: deform_conv2d.deform_conv2d.index_cost.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'deform_conv2d: cost of int64 over int32 indices (cold mode) — NVIDIA H200'
set logscale x
set format x "%.0s %cB"
set xlabel "minimum bytes moved per launch (the op's cost model)"
set ylabel "time of *_i64 / time of *_i32 − 1 (%)"
set arrow from graph 0, first 0 to graph 1, first 0 nohead dt 2 lc rgb "#555555"
set yrange [*<0:0<*]
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1100,600 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1100,600 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './deform_conv2d.deform_conv2d.index_cost.'.fmt
    plot \
        './deform_conv2d.deform_conv2d.index_cost.dat' index 0 using 1:2 with linespoints lc rgb "#e15759" lw 2 pt 9 title 'explicit_gemm_i64 vs explicit_gemm_i32'
    unset output
}
