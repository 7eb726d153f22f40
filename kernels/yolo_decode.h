/* yolo_decode.h — the yolo_decode op inside kbench: its table
 * (kb_op_yolo_decode) and its CPU reference (reference/yolo_decode.c). The
 * parameters, tensors, semantics and the formulas the reference and every
 * variant share: kbench/ops/yolo_decode.h.
 */
#ifndef KB_YOLO_DECODE_H
#define KB_YOLO_DECODE_H

#include "kbench.h"
#include "kbench/ops/yolo_decode.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const kb_op kb_op_yolo_decode;

/* ---- CPU reference (reference/yolo_decode.c) ----
 * fast = 0: greedy NMS (the op's truth); 1: fast NMS (pairwise) on the same
 * candidates, the reference of KB_INEXACT variants. out holds count and dets. */
int kb_yolo_decode_run_ref(const kb_case *c, const kb_tensors *in, kb_tensors *out, int fast,
                           kb_error *e);
int kb_yolo_decode_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);
/* The candidates of one image (pred: its [n, 5+c] rows, d2i: its affine):
 * the qualifying predictions ranked by kb_yolo_key, the first max_det, with
 * their boxes [m][4] and classes. keys has room for n, boxes and classes for
 * min(n, max_det). Returns m. */
int64_t kb_yolo_candidates(const kb_yolo_params *p, const float *pred, const float *d2i,
                           uint64_t *keys, float *boxes, int32_t *cls);
/* How many predictions of image img qualify (before the max_det cap). */
int64_t kb_yolo_qualifying(const kb_case *c, const kb_tensors *in, int64_t img);

#ifdef __cplusplus
}
#endif
#endif
