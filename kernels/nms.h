/* nms.h — the nms op inside kbench: its table (kb_op_nms) and its CPU
 * references (reference/nms.c), which other ops' references reuse. The
 * parameters, tensors, rank order and the IoU rule the references and every
 * variant share: kbench/ops/nms.h and kbench/ops/nms_iou.h.
 * Device code to reuse (already-sorted boxes): variants/common/nms_device.cuh.
 */
#ifndef KB_NMS_H
#define KB_NMS_H

#include "kbench.h"
#include "kbench/ops/nms.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const kb_op kb_op_nms;

/* ---- CPU references (reference/nms.c), reusable by other ops' references ----
 * order: the n box indices in rank order (kb_nms_rank). classes may be NULL
 * (class-agnostic). max_out <= 0: no cap. keep receives box indices in rank
 * order; returns the count, or -1 when host memory runs out. */
int64_t kb_nms_greedy_ref(const float *boxes, const int32_t *classes, const int64_t *order,
                          int64_t n, float iou, int64_t max_out, int32_t *keep);
int64_t kb_nms_fast_ref(const float *boxes, const int32_t *classes, const int64_t *order, int64_t n,
                        float iou, int64_t max_out, int32_t *keep);
int kb_nms_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);
/* The rank of kb_nms_rank with no memory of its own (a heap sort of order):
 * what kb_nms_rank does where its sort buffer cannot be allocated. */
void kb_nms_rank_in_place(const float *scores, int64_t n, int64_t *order);

#ifdef __cplusplus
}
#endif
#endif
