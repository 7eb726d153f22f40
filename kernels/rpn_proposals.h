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

extern const kb_op kb_op_rpn_proposals;

#ifdef __cplusplus
}
#endif
#endif
