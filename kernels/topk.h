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

extern const kb_op kb_op_topk;

#ifdef __cplusplus
}
#endif
#endif
