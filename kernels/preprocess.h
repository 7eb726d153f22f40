/* preprocess.h — the preprocess op inside kbench: its table (kb_op_preprocess)
 * and the CPU truth of its rules (reference/preprocess.c). The parameters,
 * tensors and the sampling rules every variant shares: kbench/ops/preprocess.h.
 */
#ifndef KB_PREPROCESS_H
#define KB_PREPROCESS_H

#include "kbench.h"
#include "kbench/ops/preprocess.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU truth of the rule p states (reference/preprocess.c) into an
 * allocated `out`: the op's reference with p = kb_pp_params_of(case), the
 * float-scale nearest rule's with p.nn_rule = KB_PP_NN_FLOAT_SCALE. */
void kb_pp_reference_params(const kb_pp_params *p, const uint8_t *images, kb_tensor *out);

extern const kb_op kb_op_preprocess;

#ifdef __cplusplus
}
#endif
#endif
