#!/usr/bin/env bash
# ncu-split.sh — on a GPU machine: where the time of the hot cases goes.
# Per-kernel duration, occupancy and warp-stall split (Nsight Compute) of the
# cases docs/perf-nms.md, docs/perf-topk.md and docs/perf-deform_conv2d.md
# reason about, and the SASS lines of blockwalk's walk kernels with the most
# stall samples.
#
#   OUT=/tmp/prof KB_BUILD=build scripts/ncu-split.sh              # every split
#   OUT=/tmp/prof scripts/ncu-split.sh nms1000 walk1000            # these only
#
# Splits: nms1000 topk-rpn5 walk25200 walk1000 nms1000-sass rounds1000-sass yolo1-stage yolo1-fused
# yolo32-stage rpn-masks rpn-walk gs1m-hist gs1m-keys gs1m-rank coop1m coop-rpn5
# rs32-level0 (radix_select's first launch at rpn5 x 32: the level-0 class)
# dcn4-explicit dcn4-implicit
# dcn5-explicit dcn4-nhwc dcn5-nhwc im2col-nhwc fused4 fused4-tf32 fused5
# wgmma4 wgmma5 ws4 ws4-f16 ws5 (dcn4 = (2,64,200,336) tf32, dcn5 = (8,256,64,64)
# f32; explicit = NCHW im2col, nhwc = explicit_nhwc*, fused = nhwc_fused_f16's
# kernel in f16, wgmma = nhwc_wgmma_tf32's kernel, ws = nhwc_ws_tf32's main
# kernel, ws4-f16 nhwc_ws_f16's).
#
# Writes $OUT/ncu-<name>.txt per case, and for the SASS splits $OUT/<name>-sass.txt
# (stall samples by SASS line) and $OUT/<name>-cuda.txt (by CUDA source line).
# ncu locks the clocks to base (its default), so durations read ~10-20% above
# cold-mode runs.
# KB_NCU_SAMPLING sets the SASS splits' warp-sampling interval (0: every 2^5
# cycles, for kernels that run on one SM; default: ncu's choice).
# rounds1000-sass profiles the one launch of KB_ROUNDS_VARIANT (rounds, the
# default, or rounds_unranked) on KB_ROUNDS_DIST boxes (default uniform).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-results/ncu}
BUILD=${KB_BUILD:-build}
KB="$BUILD/kbench"
mkdir -p "$OUT"
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats)

split() { # name, kbench check args...
    local name=$1
    shift
    ncu "${sections[@]}" "$KB" check "$@" --no-isolate >"$OUT/ncu-$name.txt" 2>&1
    echo "== $name"
    grep -E "^  [A-Za-z_].*\(|Duration|Warp Cycles Per Issued|Achieved Occupancy|Registers Per" \
        "$OUT/ncu-$name.txt" | head -40
}


# Stall samples per SASS line: blockwalk's walk at 25200 boxes, its one launch at 1000,
# the small walk (yolo_decode's atomic_bitmask walks each image's ~600 boxes with it).
sass() { # name, kernel regex, kbench check args...
    local name=$1 kernel=$2
    shift 2
    local rate=()
    [ -n "${KB_NCU_SAMPLING:-}" ] && rate=(--warp-sampling-interval "$KB_NCU_SAMPLING")
    if ncu --set full "${rate[@]}" --import-source yes -k "regex:$kernel" -c 1 -f -o "$OUT/$name" \
        "$KB" check "$@" --no-isolate >"$OUT/$name-ncu.log" 2>&1; then
        ncu --import "$OUT/$name.ncu-rep" --page source --print-source sass --csv \
            >"$OUT/$name-sass.csv" 2>&1
        python3 scripts/sass-stalls.py "$OUT/$name-sass.csv" "$OUT/$name-sass-all.txt" >"$OUT/$name-sass.txt"
        # The same samples by CUDA source line (the build has -lineinfo; the
        # report carries the sources). ncu puts metrics on the sass and
        # cuda,sass views only: its cuda view lists every line with none.
        ncu --import "$OUT/$name.ncu-rep" --page source --print-source cuda,sass --csv \
            >"$OUT/$name-cuda.csv" 2>&1 &&
            python3 scripts/sass-stalls.py "$OUT/$name-cuda.csv" "$OUT/$name-cuda-all.txt" \
                >"$OUT/$name-cuda.txt" 2>&1
        rm -f "$OUT/$name-cuda.csv"
        ncu --import "$OUT/$name.ncu-rep" --page details >"$OUT/$name-details.txt" 2>&1
        grep -E "Duration|Throughput|Hit Rate|Occupancy|Registers Per|Issued Ipc|Mem Busy|Max Bandwidth|Eligible|Cycles Per Issued" \
            "$OUT/$name-details.txt" | head -40
        head -45 "$OUT/$name-sass.txt"
        rm -f "$OUT/$name.ncu-rep" "$OUT/$name-sass.csv" "$OUT/$name-ncu.log"
    else
        tail -5 "$OUT/$name-ncu.log"
    fi
}
dcn4=(-a n=2 -a c_in=64 -a c_out=64 -a h=200 -a w=336)
dcn5=(-a n=8 -a c_in=256 -a c_out=256 -a h=64 -a w=64)
names=("$@")
[ ${#names[@]} -eq 0 ] &&
    names=(nms1000 topk-rpn5 walk25200 walk1000 nms1000-sass dcn4-explicit dcn4-implicit
        dcn5-explicit dcn4-nhwc dcn5-nhwc)
for name in "${names[@]}"; do
    case $name in
    nms1000) split nms1000 nms -v blockwalk -a n=1000 -a iou=0.5 ;;
    topk-rpn5) split topk-rpn5 topk -v radix_select -a segments=rpn5 -a k=1000 ;;
    walk25200) sass walk25200 walk_blocks nms -v blockwalk -a n=25200 -a iou=0.5 ;;
    walk1000) sass walk1000 walk_small yolo_decode -v atomic_bitmask -a b=1 ;;
    nms1000-sass) sass "$name" fused_small nms -v blockwalk -a n=1000 -a iou=0.5 ;;
    rounds1000-sass)
        sass "$name" "rounds_(small|unranked)_kernel" nms -v "${KB_ROUNDS_VARIANT:-rounds}" \
            -a n=1000 -a iou=0.5 -a dist="${KB_ROUNDS_DIST:-uniform}"
        ;;
    yolo1-stage) sass "$name" greedy_stage yolo_decode -v atomic_greedy -a b=1 ;;
    yolo32-stage) sass "$name" greedy_stage yolo_decode -v atomic_greedy -a b=32 ;;
    yolo1-fused) sass "$name" "^fused" yolo_decode -v fused_batch -a b=1 ;;
    rpn-masks) sass "$name" level_masks rpn_proposals -v fused -a img_h=800 -a img_w=1344 ;;
    rpn-walk) sass "$name" walk_merge rpn_proposals -v fused -a img_h=800 -a img_w=1344 ;;
    gs1m-hist) sass "$name" histogram_keys topk -v grid_select -a segments=1x1048576 ;;
    gs1m-keys) sass "$name" compact_keys topk -v grid_select -a segments=1x1048576 ;;
    gs1m-rank) sass "$name" rank_write topk -v grid_select -a segments=1x1048576 ;;
    coop1m) sass "$name" coop_select_kernel topk -v coop_select -a segments=1x1048576 ;;
    coop-rpn5) sass "$name" coop_select_kernel topk -v coop_select -a segments=rpn5 ;;
    rs32-level0) sass "$name" radix_select_kernel topk -v radix_select -a segments=rpn5 -a batch=32 ;;
    dcn4-explicit) split "$name" deform_conv2d -v explicit_gemm_tf32 "${dcn4[@]}" ;;
    dcn4-implicit) split "$name" deform_conv2d -v implicit_gemm_tf32 "${dcn4[@]}" ;;
    dcn5-explicit) split "$name" deform_conv2d -v explicit_gemm_i32 "${dcn5[@]}" ;;
    dcn4-nhwc) split "$name" deform_conv2d -v explicit_nhwc_tf32 "${dcn4[@]}" ;;
    dcn5-nhwc) split "$name" deform_conv2d -v explicit_nhwc "${dcn5[@]}" ;;
    im2col-nhwc) sass "$name" dcn_im2col_nhwc deform_conv2d -v explicit_nhwc_tf32 "${dcn4[@]}" ;;
    fused4) sass "$name" dcn_nhwc_fused deform_conv2d -v nhwc_fused_f16 "${dcn4[@]}" -a dtype=f16 ;;
    fused4-tf32) sass "$name" dcn_nhwc_fused deform_conv2d -v nhwc_fused_tf32 "${dcn4[@]}" ;;
    fused5) sass "$name" dcn_nhwc_fused deform_conv2d -v nhwc_fused_f16 "${dcn5[@]}" -a dtype=f16 ;;
    wgmma4) sass "$name" dcn_nhwc_fused deform_conv2d -v nhwc_wgmma_tf32 "${dcn4[@]}" ;;
    wgmma5) sass "$name" dcn_nhwc_fused deform_conv2d -v nhwc_wgmma_tf32 "${dcn5[@]}" ;;
    ws4) sass "$name" dcn_nhwc_ws deform_conv2d -v nhwc_ws_tf32 "${dcn4[@]}" ;;
    ws4-f16) sass "$name" dcn_nhwc_ws deform_conv2d -v nhwc_ws_f16 "${dcn4[@]}" -a dtype=f16 ;;
    ws5) sass "$name" dcn_nhwc_ws deform_conv2d -v nhwc_ws_tf32 "${dcn5[@]}" ;;
    *) echo "ncu-split.sh: no split named $name" >&2 ;;
    esac
done
