/* kbench/ops/yolo_decode.h — the yolo_decode op: YOLOv5 post-processing:
 * confidence filter, class argmax, inverse letterbox, at most max_det
 * candidates, class-aware greedy NMS.
 *
 * Inputs  pred f32 [b, n, 5+c]: cx, cy, w, h (network pixels), objectness,
 *         c class scores, all already sigmoid'ed and grid-decoded;
 *         d2i f32 [b, 6]: the network -> source affine of each image
 *         (kb_pp_letterbox_d2i of src_w x src_h into net x net).
 * Outputs count i32 [b]; dets f32 [b, max_out, 6]: x1, y1, x2, y2 (source
 *         pixels), score, class; the first count rows valid, by score.
 * The semantics every variant and the reference meet, and the formulas they
 * share (kb_yolo_score, kb_yolo_box, kb_yolo_key): below.
 */
#ifndef KBENCH_OPS_YOLO_DECODE_H
#define KBENCH_OPS_YOLO_DECODE_H

#include "kbench/case.h"
#include "kbench/ops/nms_iou.h" /* KB_NMS_ADD/SUB/MUL: one rounding per operation */
#include "kbench/util.h"

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Semantics (DESIGN.md "Semantics", decided here where it is silent):
 *   keep i when obj >= conf and obj * max_cls >= conf (float product);
 *   class = argmax, lowest index on ties; score = obj * max_cls;
 *   box = (cx - w/2, cy - h/2, cx + w/2, cy + h/2) mapped by d2i and CLIPPED
 *   to [0, src_w] x [0, src_h] BEFORE NMS, which runs on the clipped
 *   source-pixel boxes (kbench/ops/nms_iou.h) — kbench's choice: ultralytics
 *   runs NMS on network-pixel boxes and clips after (scale_boxes), so boxes
 *   cut by the image border can suppress differently;
 *   rank = score descending, equal scores lower prediction index first; when
 *   more than max_det qualify the max_det first by rank are kept; greedy NMS
 *   per class (suppress when IoU > iou); the first max_out keeps.
 * Every rounding is spelled out (the _rn intrinsics on the device), so the
 * reference and the kernels compute bit-equal boxes and scores.
 */

/* Everything a kernel needs, derived once from the case. */
typedef struct kb_yolo_params {
    int b, n, c, max_det, max_out;
    float conf, iou, src_w, src_h;
} kb_yolo_params;
kb_yolo_params kb_yolo_params_of(const kb_case *c);

/* Does prediction row (5 + c floats) qualify? Then its score and class. */
KB_HD int kb_yolo_score(const float *row, int c, float conf, float *score, int *cls) {
    float obj = row[4];
    if (!(obj >= conf)) return 0;
    float best = row[5];
    int arg = 0;
    for (int k = 1; k < c; k++)
        if (row[5 + k] > best) { /* strict: the lowest index wins ties */
            best = row[5 + k];
            arg = k;
        }
    float s = KB_NMS_MUL(obj, best);
    if (!(s >= conf)) return 0;
    *score = s;
    *cls = arg;
    return 1;
}

KB_HD float kb_yolo_clip(float v, float hi) {
    return fminf(fmaxf(v, 0.0f), hi);
}

/* The box of a row in source pixels, clipped to the source image. */
KB_HD void kb_yolo_box(const float *row, const float *d2i, float src_w, float src_h, float box[4]) {
    float hw = KB_NMS_MUL(row[2], 0.5f), hh = KB_NMS_MUL(row[3], 0.5f);
    float xs[2] = {KB_NMS_SUB(row[0], hw), KB_NMS_ADD(row[0], hw)};
    float ys[2] = {KB_NMS_SUB(row[1], hh), KB_NMS_ADD(row[1], hh)};
    for (int k = 0; k < 2; k++) {
        float x =
            KB_NMS_ADD(KB_NMS_ADD(KB_NMS_MUL(d2i[0], xs[k]), KB_NMS_MUL(d2i[1], ys[k])), d2i[2]);
        float y =
            KB_NMS_ADD(KB_NMS_ADD(KB_NMS_MUL(d2i[3], xs[k]), KB_NMS_MUL(d2i[4], ys[k])), d2i[5]);
        box[2 * k] = kb_yolo_clip(x, src_w);
        box[2 * k + 1] = kb_yolo_clip(y, src_h);
    }
}

/* The rank as one unsigned key: ascending key = score descending, then lower
 * index (scores are >= 0; -0 counts as +0). */
KB_HD uint64_t kb_yolo_key(float score, uint32_t index) {
    union {
        float f;
        uint32_t u;
    } v;
    v.f = score + 0.0f;
    return ((uint64_t)(0xFFFFFFFFu - v.u) << 32) | index;
}
KB_HD float kb_yolo_key_score(uint64_t key) {
    union {
        float f;
        uint32_t u;
    } v;
    v.u = 0xFFFFFFFFu - (uint32_t)(key >> 32);
    return v.f;
}

#ifdef __cplusplus
}
#endif
#endif
