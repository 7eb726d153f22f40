/* rpn_proposals.h — the rpn_proposals op inside kbench: its table
 * (kb_op_rpn_proposals) and its CPU references (reference/rpn_proposals.c).
 * The parameters, tensors, steps and the formulas the references and every
 * variant share: kbench/ops/rpn_proposals.h.
 */
#ifndef KB_RPN_PROPOSALS_H
#define KB_RPN_PROPOSALS_H

#include "kbench.h"
#include "kbench/ops/rpn_proposals.h"

#ifdef __cplusplus
extern "C" {
#endif

int kb_rpn_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);
/* The port's rule (above), into outputs shaped as the op's: the reference a
 * KB_INEXACT variant is checked against. */
int kb_rpn_port_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);

/* Level l's anchor stride (4 * 2^l) and its grid side over an image side,
 * ceil(side / stride), as mmdet's AnchorGenerator lays the anchors out. */
static inline int64_t kb_rpn_stride(int l) {
    return 4ll << l;
}
static inline int64_t kb_rpn_grid(int64_t side, int l) {
    return (side + kb_rpn_stride(l) - 1) / kb_rpn_stride(l);
}

extern const kb_op kb_op_rpn_proposals;

#ifdef __cplusplus
}
#endif
#endif
