/* nms.h — non-maximum suppression: greedy (exact) and fast (pairwise) NMS.
 *
 * Inputs  boxes [n,4] f32 (x1,y1,x2,y2), scores [n] f32, classes [n] i32
 *         (all 0 when classes=1: class-agnostic). Unsorted: sorting by score
 *         (descending, equal scores lower index first) is part of the op.
 * Outputs keep [cap] i32: indices into the input boxes, in greedy (rank) order;
 *         count [1] i32: how many of keep are valid. cap = n, or max_out when
 *         0 < max_out < n; max_out caps the count (the first max_out keeps).
 * Semantics: ../shared/DESIGN.md; the IoU rule: kernels/nms_iou.h.
 * Device code to reuse (already-sorted boxes): variants/common/nms_device.cuh.
 */
#ifndef KB_NMS_H
#define KB_NMS_H

#include "kbench.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const kb_op kb_op_nms;

/* Output capacity of a case: n, or max_out when 0 < max_out < n. */
int64_t kb_nms_capacity(int64_t n, int64_t max_out);

typedef enum kb_nms_dist {
    KB_NMS_UNIFORM,
    KB_NMS_CLUSTERED,
    KB_NMS_TIES,
    KB_NMS_DEGENERATE
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

/* ---- CPU references (reference/nms.c), reusable by other ops' references ----
 * order: the n box indices by score descending, equal scores lower index
 * first (kb_nms_rank). classes may be NULL (class-agnostic). max_out <= 0:
 * no cap. keep receives box indices in rank order; returns the count, or -1
 * when host memory runs out. */
void kb_nms_rank(const float *scores, int64_t n, int64_t *order);
int64_t kb_nms_greedy_ref(const float *boxes, const int32_t *classes, const int64_t *order,
                          int64_t n, float iou, int64_t max_out, int32_t *keep);
int64_t kb_nms_fast_ref(const float *boxes, const int32_t *classes, const int64_t *order, int64_t n,
                        float iou, int64_t max_out, int32_t *keep);
int kb_nms_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);

#ifdef __cplusplus
}
#endif
#endif
