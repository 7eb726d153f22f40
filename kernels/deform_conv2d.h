/* deform_conv2d.h — the deform_conv2d op inside kbench: its table
 * (kb_op_deform_conv2d) and its CPU references (reference/deform_conv2d.c).
 * The parameters, tensors, output size and the sampling rule the reference
 * and every variant share: kbench/ops/deform_conv2d.h.
 */
#ifndef KB_DEFORM_CONV2D_H
#define KB_DEFORM_CONV2D_H

#include "kbench.h"
#include "kbench/ops/deform_conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* reference/deform_conv2d.c: full in double, or a sample of exact points (the
 * rest NaN) when the work exceeds 2e9 multiply-adds. */
int kb_deform_conv2d_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                               kb_error *e);
/* Exactly `points` random output points (seeded by the output size), the rest NaN. */
int kb_deform_conv2d_reference_points(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                      int64_t points, kb_error *e);
/* The reference of torchvision's f16 rule (above; KB_INEXACT
 * explicit_torchvision_half): columns of f16 samples by kb_dcn_*_f16, summed
 * in double, the sum rounded to f16 (cuBLAS's f16 out_buf), then + bias in
 * float rounded again (PyTorch's add). Full or sampled at the same points as
 * kb_deform_conv2d_reference. KB_ERR for a case whose dtype is not f16. */
int kb_deform_conv2d_reference_tv_f16(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                      kb_error *e);

extern const kb_op kb_op_deform_conv2d;

#ifdef __cplusplus
}
#endif
#endif
