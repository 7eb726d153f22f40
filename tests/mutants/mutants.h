/* mutants.h — deliberately wrong variants of every op, for the mutation test
 * only (tests/cli/test_mutants.sh): each models one bug that real kernels
 * have (a border off by one, the wrong tie order, an element lost or
 * repeated, a rounding or parameter slip, a racy counter, a store past the
 * end), and `kbench check OP --sweep smoke` must FAIL or CRASH every one; a
 * mut_timed_* mutant goes wrong only after the check's calls (a result
 * cache), and `kbench run` (check, then timing) must FAIL it.
 * They exist in the kbench_mutants test binary, never in a user's kbench:
 * harness/registry.c adds KB_MUTANT_VARIANTS to its table only when built
 * with KB_WITH_MUTANTS. How they are made: mutants_common.cuh.
 */
#ifndef KB_MUTANTS_H
#define KB_MUTANTS_H

#include "kbench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KB_MUTANT_IMPL(op, pre, name, summary) extern const kb_variant_impl kb_mut_##pre##_##name;
#define KB_MUTANT_ROW(op, pre, name, summary)                                                      \
    {#op,          "mut_" #name,           summary,                                                \
     KB_TEST_ONLY, &kb_mut_##pre##_##name, "tests/mutants/mutants_" #op ".cu"},

/* X(op, symbol prefix, name, summary): op/mut_<name>, implemented by
 * kb_mut_<prefix>_<name> in tests/mutants/mutants_<op>.cu. */
#define KB_MUTANT_LIST(X)                                                                          \
    X(preprocess, pp, clamp_w2, "bilinear: the right neighbour clamped to column in_w - 2")        \
    X(preprocess, pp, nearest_half, "nearest: half-pixel source (nearest-exact), not OpenCV's")    \
    X(preprocess, pp, no_centre, "letterbox: the affine without its (s - 1) / 2 centre term")      \
    X(preprocess, pp, mean_bgr, "mean/std indexed by the BGR input channel")                       \
    X(preprocess, pp, vec_tail, "vec: the last out_w % 4 pixels of each row never written")        \
    X(preprocess, pp, overrun, "vec: the last 4-pixel store runs 3 elements past the output")      \
    X(preprocess, pp, timed_cache, "vec, computing for its first 2 calls only: a result cache")    \
    X(deform_conv2d, dcn, offset_xy, "offsets read as (dx, dy), not (dy, dx)")                     \
    X(deform_conv2d, dcn, mask_unused, "the DCNv2 mask never applied")                             \
    X(deform_conv2d, dcn, tail_tile, "the last partial 64-pixel tile of each plane not computed")  \
    X(deform_conv2d, dcn, border_w2, "bilinear far neighbour only up to row H-2 / column W-2")     \
    X(deform_conv2d, dcn, overrun, "one element stored past the output")                           \
    X(nms, nms, iou_ge, "suppresses at IoU >= threshold, not >")                                   \
    X(nms, nms, ties_high, "equal scores ranked by higher index first")                            \
    X(nms, nms, class_blind, "class ids ignored: class-aware NMS run class-agnostic")              \
    X(nms, nms, last_lost, "the last kept box lost (count one short)")                             \
    X(nms, nms, racy_count, "the keep count bumped without an atomic")                             \
    X(nms, nms, overrun, "one index stored past the keep list")                                    \
    X(topk, topk, ties_high, "equal values ranked by higher index first")                          \
    X(topk, topk, signed_zero, "-0 ranked below +0 (radix key without the zero fold)")             \
    X(topk, topk, repeated, "the last slot of each segment repeats the one before")                \
    X(topk, topk, tail_warp, "the last k % 32 slots of each segment never written")                \
    X(topk, topk, overrun, "one index stored past topk_indices")                                   \
    X(rpn_proposals, rpn, pre_short, "nms_pre - 1 candidates per level")                           \
    X(rpn_proposals, rpn, clamp_w1, "boxes clamped to img_w - 1, img_h - 1")                       \
    X(rpn_proposals, rpn, last_lost, "the last proposal lost (count one short)")                   \
    X(rpn_proposals, rpn, racy_count, "the proposal count bumped without an atomic")               \
    X(rpn_proposals, rpn, overrun, "one row stored past the proposals")                            \
    X(yolo_decode, yolo, ties_high, "equal scores ranked by higher prediction index first")        \
    X(yolo_decode, yolo, argmax_high, "class argmax ties to the highest class index")              \
    X(yolo_decode, yolo, clip_net, "boxes clipped to the network input, not the source image")     \
    X(yolo_decode, yolo, last_lost, "the last detection of each image lost")                       \
    X(yolo_decode, yolo, racy_count, "the per-image count bumped without an atomic")               \
    X(yolo_decode, yolo, overrun, "one detection row stored past dets")

KB_MUTANT_LIST(KB_MUTANT_IMPL)

#ifdef __cplusplus
}
#endif

#define KB_MUTANT_VARIANTS KB_MUTANT_LIST(KB_MUTANT_ROW)

#endif
