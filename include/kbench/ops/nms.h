/* kbench/ops/nms.h — the nms op: greedy (exact) and fast (pairwise) NMS.
 *
 * Inputs  boxes f32 [n, 4] (x1, y1, x2, y2), scores f32 [n], classes i32 [n]
 *         (ignored when the case's classes axis is 1: class-agnostic).
 *         Unsorted: sorting by score (descending, equal scores lower index
 *         first, -0 == +0) is part of the op: kb_nms_rank.
 * Outputs keep i32 [cap]: indices into the input boxes, in greedy (rank)
 *         order; count i32 [1]: how many of keep are valid. cap = n, or
 *         max_out when 0 < max_out < n (the first max_out keeps).
 * Greedy: walk the boxes in rank order, keep a box no kept box of its class
 * suppresses; suppression is IoU > iou by kb_nms_iou (kbench/ops/nms_iou.h).
 * Fast NMS (a KB_INEXACT variant): a box is dropped if any higher-ranked box
 * of its class suppresses it, kept or not.
 * Semantics: README "What is in it" and DESIGN.md "Semantics", nms.
 */
#ifndef KBENCH_OPS_NMS_H
#define KBENCH_OPS_NMS_H

#include "kbench/case.h"
#include "kbench/ops/nms_iou.h"
#include "kbench/tensor.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output capacity of a case: n, or max_out when 0 < max_out < n. */
int64_t kb_nms_capacity(int64_t n, int64_t max_out);

typedef enum kb_nms_dist {
    KB_NMS_UNIFORM,
    KB_NMS_CLUSTERED,
    KB_NMS_TIES,
    KB_NMS_DEGENERATE,
    KB_NMS_PIXELS /* uniform's boxes on whole pixels, distinct scores */
} kb_nms_dist;

/* The case's axes, decoded once for the op, the reference and the variants. */
typedef struct kb_nms_params {
    int64_t n;
    float iou;       /* suppress when IoU > iou */
    int64_t classes; /* 1: class-agnostic (the classes input is ignored) */
    int64_t max_out; /* 0: no cap */
    int64_t cap;     /* the keep list's length: kb_nms_capacity(n, max_out) */
    kb_nms_dist dist;
} kb_nms_params;
kb_nms_params kb_nms_params_of(const kb_case *c);

/* The op's tensors by name, host or device pointers alike. */
typedef struct kb_nms_data {
    const float *boxes, *scores; /* [n, 4], [n] */
    const int32_t *classes;      /* [n] */
    int32_t *keep, *count;       /* [cap], [1] */
} kb_nms_data;
static inline kb_nms_data kb_nms_data_of(const kb_tensors *in, kb_tensors *out) {
    kb_nms_data d = {(const float *)kb_tensors_get(in, "boxes")->data,
                     (const float *)kb_tensors_get(in, "scores")->data,
                     (const int32_t *)kb_tensors_get(in, "classes")->data,
                     (int32_t *)kb_tensors_find(out, "keep")->data,
                     (int32_t *)kb_tensors_find(out, "count")->data};
    return d;
}

/* The rank order on the host: order receives the n box indices by score
 * descending, equal scores lower index first. */
void kb_nms_rank(const float *scores, int64_t n, int64_t *order);

#ifdef __cplusplus
}
#endif
#endif
