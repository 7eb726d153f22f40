/* kbench/ops/rpn_proposals.h — the rpn_proposals op: mmdetection 2.28's RPN
 * proposal step (RPNHead._get_bboxes_single + _bbox_post_process, mmcv
 * batched_nms), end to end.
 *
 * Inputs  scores f32 [N] (already sigmoid'ed), deltas f32 [N, 4] (dx, dy, dw,
 *         dh), anchors f32 [N, 4] (x1, y1, x2, y2), level_offsets i32 [L + 1];
 *         N = sum of H_l * W_l * 3, index (y * W_l + x) * 3 + a within a level
 *         (mmdet's permute(1, 2, 0)).
 * Outputs proposals f32 [max_per_img, 5] (x1, y1, x2, y2, score, unshifted),
 *         rows past the count all zero; count i32 [1].
 * The steps: below. Why the level offset is exact: above KB_RPN_LEVEL_OFFSET;
 * why host and device agree bitwise: kb_rpn_expf.
 * Semantics: DESIGN.md "Semantics", rpn_proposals.
 */
#ifndef KBENCH_OPS_RPN_PROPOSALS_H
#define KBENCH_OPS_RPN_PROPOSALS_H

#include "kbench/case.h"
#include "kbench/ops/nms_iou.h"
#include "kbench/tensor.h"
#include "kbench/util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The steps, as mmdetection's RPNHead with DeltaXYWHBBoxCoder (means 0,
 * stds 1, wh_ratio_clip 16/1000, clip_border) and mmcv batched_nms (the
 * coordinate-offset trick):
 *   1. per level, the nms_pre best scores (already sigmoid'ed), descending,
 *      equal scores by lower anchor index (the topk order, kbench/ops/topk.h);
 *   2. delta2bbox on those anchors (kb_rpn_delta2bbox below);
 *   3. boxes with w <= min_bbox_size or h <= min_bbox_size removed;
 *   4. greedy NMS at `iou` within each level: every box of level l is shifted
 *      by l * KB_RPN_LEVEL_OFFSET on x and y and ONE NMS runs over all
 *      levels, ranked by score descending, equal scores by lower index in the
 *      concatenation of the per-level lists (level-major);
 *   5. the first max_per_img kept, in that rank order.
 */

/* The offset trick, and why it is exact here. KB_RPN_LEVEL_OFFSET = 2^11 >=
 * every image side (validate: img_h, img_w <= 2048), so box coordinates c lie
 * in [0, 2^11] after the clamp. (a) Separation, exact for any float c: fl is
 * monotone and l * 2^11 and (l + 1) * 2^11 are representable, so a shifted
 * box of level l lies in [l * 2^11, (l + 1) * 2^11]; two levels overlap in at
 * most a line, inter = 0, IoU = 0: levels never suppress each other.
 * (b) Within a level, IoU is computed on fl(c + l * 2^11). That sum is exact
 * when c is a multiple of ulp(c + l * 2^11) (2^-10 for sums below 2^14, i.e.
 * up to 6 levels); level 0 is always exact; otherwise it rounds by at most
 * 2^-11 px, exactly as mmcv's own offset (max coordinate + 1) does. The CPU
 * reference applies the SAME shifted coordinates and the same IoU formula
 * (kbench/ops/nms_iou.h), so reference and GPU agree bit for bit; against NMS on
 * unshifted boxes a keep can only differ when an IoU lies within ~1e-6 of the
 * threshold. (Passing the level as a class would avoid even that; the offset
 * is the design mmdetection ships.)
 */
#define KB_RPN_LEVEL_OFFSET 2048.0f
/* |log(wh_ratio_clip)| = |log(16 / 1000)|: mmdet's max_ratio clamp of dw, dh. */
#define KB_RPN_MAX_RATIO 4.135166556742356f
enum { KB_RPN_ANCHORS = 3, KB_RPN_MAX_LEVELS = 6 };

/* Float formulas: every step of delta2bbox is written once below with
 * explicitly rounded operations (no fma contraction on the device, and the C
 * reference is built with -ffp-contract=off), and exp is kb_rpn_expf, a
 * range-reduced polynomial within ~2 ulp of exp (as close as torch's exp on
 * CUDA): host and device compute identical bits, so the comparison is exact
 * up to a 1e-3 px guard that only a changed formula would exceed.
 */
/* exp(x) for |x| <= 4.2 (dw, dh after the clamp): x = n ln2 + r, |r| <= ln2/2,
 * e^r by its degree-7 Taylor polynomial (truncation 5e-9 relative), 2^n
 * built exactly. Every operation rounded on its own: the same bits on host
 * and device. */
KB_HD float kb_rpn_expf(float x) {
    const float n = rintf(KB_NMS_MUL(x, 1.44269504088896341f));
    const float r = KB_NMS_SUB(KB_NMS_SUB(x, KB_NMS_MUL(n, 0.693145751953125f)),
                               KB_NMS_MUL(n, 1.428606765330187e-06f));
    float p = 1.0f / 5040.0f;
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 1.0f / 720.0f);
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 1.0f / 120.0f);
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 1.0f / 24.0f);
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 1.0f / 6.0f);
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 0.5f);
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 1.0f);
    p = KB_NMS_ADD(KB_NMS_MUL(p, r), 1.0f);
    const int e = (int)n + 127;
    uint32_t bits = (uint32_t)e << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return KB_NMS_MUL(p, scale);
}

/* mmdet delta2bbox, means 0 and stds 1 (deltas * 1 + 0 is the identity):
 * centre + size of the anchor, dw/dh clamped to +-max_ratio, the box from
 * centre -+ size/2 (no +1), clamped to [0, img_w] x [0, img_h]. */
KB_HD void kb_rpn_delta2bbox(const float *anchor, const float *delta, float img_w, float img_h,
                             float *box) {
    const float px = KB_NMS_MUL(KB_NMS_ADD(anchor[0], anchor[2]), 0.5f);
    const float py = KB_NMS_MUL(KB_NMS_ADD(anchor[1], anchor[3]), 0.5f);
    const float pw = KB_NMS_SUB(anchor[2], anchor[0]);
    const float ph = KB_NMS_SUB(anchor[3], anchor[1]);
    const float dw = fminf(fmaxf(delta[2], -KB_RPN_MAX_RATIO), KB_RPN_MAX_RATIO);
    const float dh = fminf(fmaxf(delta[3], -KB_RPN_MAX_RATIO), KB_RPN_MAX_RATIO);
    const float gx = KB_NMS_ADD(px, KB_NMS_MUL(pw, delta[0]));
    const float gy = KB_NMS_ADD(py, KB_NMS_MUL(ph, delta[1]));
    const float half_w = KB_NMS_MUL(KB_NMS_MUL(pw, kb_rpn_expf(dw)), 0.5f);
    const float half_h = KB_NMS_MUL(KB_NMS_MUL(ph, kb_rpn_expf(dh)), 0.5f);
    box[0] = fminf(fmaxf(KB_NMS_SUB(gx, half_w), 0.0f), img_w);
    box[1] = fminf(fmaxf(KB_NMS_SUB(gy, half_h), 0.0f), img_h);
    box[2] = fminf(fmaxf(KB_NMS_ADD(gx, half_w), 0.0f), img_w);
    box[3] = fminf(fmaxf(KB_NMS_ADD(gy, half_h), 0.0f), img_h);
}

/* mmdet's filter: kept when w > min_size and h > min_size. */
KB_HD int kb_rpn_box_valid(const float *box, float min_size) {
    return KB_NMS_SUB(box[2], box[0]) > min_size && KB_NMS_SUB(box[3], box[1]) > min_size;
}

/* ---- the common CUDA port (rpn_proposals/cuda_port, KB_INEXACT) ----
 * The design the CUDA ports of this op ship, and its rule as
 * kb_rpn_port_reference computes it:
 *   1. per level the nms_pre best (ranked as in step 1 above); a level of
 *      fewer anchors is padded up to nms_pre with slots of score 0 and the
 *      zero box: levels * nms_pre candidates, level l's from l * nms_pre;
 *   2. delta2bbox as above; a box mmdet's filter would remove (w or h <=
 *      min_bbox_size, the padded zero boxes among them) is NOT removed but
 *      made a 0.5 px square at its top-left corner (kb_rpn_port_small_box);
 *   3. every candidate of level l shifted by off_l = l * (M + 1) in fp32, M
 *      the largest coordinate of all candidates (mmcv batched_nms's
 *      boxes.max()), and ONE greedy NMS over them, ranked by score
 *      descending, equal scores by lower candidate index;
 *   4. the first max_per_img kept, unshifted by subtraction: fl(fl(c + off_l)
 *      - off_l), within half an ulp of c + off_l of c (2^-11 px while sums
 *      stay below 2^14: levels <= 6, M <= 2048.5).
 * Where it leaves the op's semantics: zero-score pads and 0.5 px boxes take
 * part in NMS and can be kept (they reach the output when fewer real
 * proposals survive); coordinates move by the offset's rounding; IoUs of
 * levels >= 1 are computed on other shifted coordinates than the exact op's,
 * so a decision within rounding of the threshold may differ. */
KB_HD void kb_rpn_port_small_box(float *box, float min_size) {
    if (kb_rpn_box_valid(box, min_size)) return;
    box[2] = KB_NMS_ADD(box[0], 0.5f);
    box[3] = KB_NMS_ADD(box[1], 0.5f);
}

/* off_l = l * (M + 1), rounded as mmcv's fp32 tensors round it. */
KB_HD float kb_rpn_port_offset(int level, float max_coordinate) {
    return KB_NMS_MUL((float)level, KB_NMS_ADD(max_coordinate, 1.0f));
}

/* The case's axes, decoded once for the op, the reference and the variants. */
typedef struct kb_rpn_params {
    int64_t img_h, img_w;
    int levels;
    /* anchors of level l: H_l * W_l * 3, H_l = ceil(img_h / stride), stride = 4 * 2^l */
    int64_t level_size[KB_RPN_MAX_LEVELS];
    int64_t nms_pre;     /* best scores kept per level before NMS */
    int64_t max_per_img; /* proposals kept after NMS: the output's rows */
    float iou;           /* suppress when IoU > iou */
    float min_bbox_size; /* keep boxes with w and h > this */
    int objects;         /* the input generator's: objects the scores cluster around */
} kb_rpn_params;
kb_rpn_params kb_rpn_params_of(const kb_case *c);

/* The op's tensors by name, host or device pointers alike (the reference's
 * host tensors, a variant's dev_in and dev_out). */
typedef struct kb_rpn_data {
    const float *scores, *deltas, *anchors; /* [N], [N, 4], [N, 4] */
    const int32_t *level_offsets;           /* [levels + 1] */
    float *proposals;                       /* [max_per_img, 5] */
    int32_t *count;                         /* [1] */
} kb_rpn_data;
static inline kb_rpn_data kb_rpn_data_of(const kb_tensors *in, kb_tensors *out) {
    kb_rpn_data d = {(const float *)kb_tensors_get(in, "scores")->data,
                     (const float *)kb_tensors_get(in, "deltas")->data,
                     (const float *)kb_tensors_get(in, "anchors")->data,
                     (const int32_t *)kb_tensors_get(in, "level_offsets")->data,
                     (float *)kb_tensors_find(out, "proposals")->data,
                     (int32_t *)kb_tensors_find(out, "count")->data};
    return d;
}

#ifdef __cplusplus
}
#endif
#endif
