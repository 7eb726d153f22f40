/* topk.h — the topk op inside kbench: its table (kb_op_topk) and its CPU
 * reference (reference/topk.c). The parameters, tensors, order and the
 * layouts the reference and every variant share: kbench/ops/topk.h.
 */
#ifndef KB_TOPK_H
#define KB_TOPK_H

#include "kbench.h"
#include "kbench/ops/topk.h"

#ifdef __cplusplus
extern "C" {
#endif

int kb_topk_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);

/* Segment offsets read from a file, against the case's layout: offsets
 * (i32, one more than the n lengths len) must be 0, then the running sum of
 * len, ending at total, the length of the tensor they index. The references
 * and the variants read segment s from offsets but size their buffers by the
 * layout (its longest segment), so nothing else is safe. KB_ERR on the first
 * element that differs, named as "<offsets' name>[i] = v" with the reason: a
 * decrease, a pass of total ("the length of <values>"), or the expected value
 * with the `unit` it ends (segment, level) of `layout` (the axes that set the
 * lengths) and the `items` it holds (values, anchors). rpn_proposals' levels
 * are segments too. */
int kb_topk_check_offsets(const kb_tensor *offsets, const int64_t *len, int64_t total,
                          const char *values, const char *unit, const char *layout,
                          const char *items, kb_error *e);

extern const kb_op kb_op_topk;

#ifdef __cplusplus
}
#endif
#endif
