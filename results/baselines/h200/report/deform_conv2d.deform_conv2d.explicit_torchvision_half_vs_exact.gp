# deform_conv2d.deform_conv2d.explicit_torchvision_half_vs_exact.gp — kbench plot: explicit_torchvision_half (other semantics by design) against the fastest exact variant per case: time saved, and results the exact op keeps that it drops (from its note)
# Render in this folder: gnuplot deform_conv2d.deform_conv2d.explicit_torchvision_half_vs_exact.gp  (data: deform_conv2d.deform_conv2d.explicit_torchvision_half_vs_exact.dat)
reset
set encoding utf8
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#e4e4e4"
set border lc rgb "#444444"
set key outside right top Left reverse samplen 3
set title 'deform_conv2d: explicit_torchvision_half vs the fastest exact variant (cold mode) — NVIDIA H200'
set xtics ('c_in=256'."\n".'c_out=256'."\n".'h=50 w=84'."\n".'dtype=f16'."\n".'vs nhwc_ws_f16' 0, 'c_in=512'."\n".'c_out=512'."\n".'h=25 w=42'."\n".'dtype=f16'."\n".'vs nhwc_ws_f16' 1, 'c_in=128'."\n".'c_out=128'."\n".'h=100 w=168'."\n".'dtype=f16'."\n".'vs nhwc_ws_f16' 2, 'n=8 c_in=256'."\n".'c_out=256'."\n".'h=64 w=64'."\n".'dtype=f16'."\n".'vs nhwc_ws_f16' 3, 'n=2 h=200'."\n".'w=336'."\n".'dtype=f16'."\n".'vs nhwc_ws_f16' 4)
set xtics nomirror scale 0 font ",9"
unset mxtics
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set bmargin 6
set lmargin at screen 0.09
set rmargin at screen 0.74
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1470,850 font "DejaVu Sans,11" noenhanced
    } else {
        set terminal svg size 1470,850 font "DejaVu Sans,11" noenhanced background "white"
    }
    set output './deform_conv2d.deform_conv2d.explicit_torchvision_half_vs_exact.'.fmt
    set multiplot layout 1,1
    set ylabel "median time (µs)"
    plot './deform_conv2d.deform_conv2d.explicit_torchvision_half_vs_exact.dat' using 2 lc rgb "#8c8c8c" fs solid 0.9 title "fastest exact variant", \
        "" using 3 lc rgb "#f28e2b" fs solid 0.9 title 'explicit_torchvision_half', \
        "" using 0:($2 > $3 ? $2 : $3):(sprintf("saved %.0f µs (%.0f%%)", $4, 100 * $4 / $2)) with labels offset 0,0.8 font ",9" notitle
    if (0) {
    unset title
    set ylabel 'kept by the exact op,'."\n".'dropped by explicit_torchvision_half'
    plot './deform_conv2d.deform_conv2d.explicit_torchvision_half_vs_exact.dat' using 5 lc rgb "#f28e2b" fs pattern 2 border lc rgb "#f28e2b" title "dropped (from the row's note)", \
        "" using 0:5:5 with labels offset 0,0.8 font ",9" notitle
    }
    unset multiplot
    unset output
}
