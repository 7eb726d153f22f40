#!/usr/bin/env bash
# The plots as a reader reads them: every plot kind rendered from the
# committed baselines (results/baselines/h200: deform_conv2d has 18 variants
# and 3 peers, preprocess 5 peers and host rows; every op's peers in its own
# CSV), then read back from the SVG's text (plot_text.py states the rule:
# extents estimated from font size and character count):
#   - every text inside the canvas, no two texts overlapping (the key's among
#     them), every titled series of a plot its own marker and colour;
#   - every variant deform_conv2d's time, speedup, roofline and workspace
#     plots draw is named inside the canvas (in the key, or in the list of
#     the others under it), in a key of 14 entries at most, the variants to
#     ship heavier;
#   - nothing in the PNGs cut by the left or top edge (an axis label).
# The older baselines (results/baselines/h100: peers in *-peers.csv) render
# under the same rules. Needs gnuplot and python3 (exit 77 without: skipped).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
for tool in gnuplot python3; do
    if ! command -v $tool >/dev/null; then
        echo "$tool not found: skipped"
        exit 77
    fi
done
read_text() { python3 "$src/tests/cli/plot_text.py" "$@"; }

for gpu in h200 h100; do
    expect 0 "report.html" -- report "$src/results/baselines/$gpu"/*.csv -o "$tmp/$gpu"
    for svg in "$tmp/$gpu"/*.svg; do
        check "$gpu $(basename "$svg"): its text inside the canvas, apart, each series its own look" \
            read_text "$svg"
    done
    check "$gpu: no PNG has something cut by its left or top edge" read_text --png "$tmp/$gpu"/*.png
done

# Every plot kind is among them.
for kind in time speedup roofline workspace index_cost gbps cpu_vs_gpu \
    explicit_torchvision_half_vs_exact; do
    check "h200: a $kind plot was rendered" test -n "$(compgen -G "$tmp/h200/*.$kind.svg")"
done

# deform_conv2d: 18 variants and 3 peers. A key of at most 14 entries (the
# roofline's two ceilings among them), the rest under "others" (the caption
# says so), and the variants to ship (nhwc_ws_tf32 on f32, nhwc_ws_f16 on
# f16: the decision table's) drawn heavier than every other series.
csv=$src/results/baselines/h200/deform_conv2d.csv
for kind in time speedup roofline workspace; do
    svg=$tmp/h200/deform_conv2d.deform_conv2d.$kind.svg
    check "deform_conv2d $kind: every variant drawn is named inside the canvas" \
        read_text --names "$csv" $kind "$svg"
    check "deform_conv2d $kind: 14 key entries at most, the variants to ship heavier" \
        read_text --key 14 "$svg" nhwc_ws_tf32 nhwc_ws_f16
done
expect_file "$tmp/h200/report.md" "^median time per launch against h .* the other 10 are drawn thin and light grey under 'others' and named under the key; heavy: the variant to ship on some case"

finish plot_legends
