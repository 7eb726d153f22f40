/* kbench/ops/deform_conv2d.h — the deform_conv2d op: deformable convolution,
 * torchvision's deform_conv2d (DCNv1, and DCNv2 with the mask).
 *
 * Inputs  input [n, c_in, h, w]; offset [n, 2*offset_groups*kh*kw, ho, wo]
 *         ((dy, dx) pairs per kernel point); mask [n, offset_groups*kh*kw,
 *         ho, wo] (0 elements when the mask axis is 0); weight [c_out,
 *         c_in/groups, kh, kw]; bias [c_out] (0 elements when bias=0).
 * Outputs output [n, c_out, ho, wo]. Every tensor in the dtype axis's type.
 *   out[n, co, p] = bias[co] + sum_{ci in group(co), k} W[co, ci, k] *
 *                   mask[n, og(ci), k, p] * bilinear(in[n, ci], y(k, p), x(k, p))
 *   y = ho*stride_h - pad_h + i*dil_h + offset[n, og*2*K + 2k, p]   (k = i*kw + j)
 *   ho = (h + 2*pad_h - (dil_h*(kh - 1) + 1)) / stride_h + 1, C integer
 *   division (torchvision's); x and wo likewise. Valid when ho, wo >= 1.
 * Sampling (kb_dcn_corners_*): below. Semantics: DESIGN.md "Semantics".
 */
#ifndef KBENCH_OPS_DEFORM_CONV2D_H
#define KBENCH_OPS_DEFORM_CONV2D_H

#include "kbench/case.h"
#include "kbench/tensor.h"
#include "kbench/util.h"

#include <math.h>

#ifdef __CUDACC__
#include <cuda_fp16.h> /* kb_dcn_round_f16 on the device */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Which im2col explicit_nhwc* run (the `im2col` axis): auto picks per case,
 * the other two force one kernel; every other variant takes auto only. */
typedef enum kb_dcn_im2col {
    KB_DCN_IM2COL_AUTO,
    KB_DCN_IM2COL_WINDOW,
    KB_DCN_IM2COL_GLOBAL
} kb_dcn_im2col;

typedef struct kb_dcn_params {
    int64_t n, c_in, c_out, h, w, kh, kw;
    int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
    int64_t groups, offset_groups; /* weight groups; offset (and mask) groups */
    /* Output size, derived by the rule above. A kernel wider than the padded
     * input by less than the stride still gives one row: h=2, kh=3, pad 0,
     * stride 2 -> (-1)/2 + 1 = 1, its taps past the input sampling zeros. */
    int64_t ho, wo;
    int mask, bias; /* DCNv2 mask present; bias present */
    kb_dtype dtype; /* of every tensor: input, offset, mask, weight, bias, output */
    kb_dcn_im2col im2col;
} kb_dcn_params;

/* Reads the case's axes; KB_ERR (message names the parameters) if inconsistent. */
int kb_dcn_params_from_case(const kb_case *c, kb_dcn_params *p, kb_error *e);

/* Element counts, the numbers every supports() bounds. */
typedef struct kb_dcn_sizes {
    int64_t input_img, offset_img, mask_img, output_img; /* one image */
    int64_t columns_img;                                 /* c_in*kh*kw*ho*wo */
    int64_t weight, pixels;                              /* c_out*c_in/groups*kh*kw; n*ho*wo */
} kb_dcn_sizes;
kb_dcn_sizes kb_dcn_sizes_of(const kb_dcn_params *p);

/* Whether a corner of the sample point (y, x) can lie inside an H x W image:
 * torchvision's bilinear_interpolate test, false for a NaN coordinate. Shared
 * by kb_dcn_corners below and the samplers that blend in-line. */
#define KB_DCN_INSIDE(REAL, y, x, H, W)                                                            \
    ((y) > (REAL)-1 && (y) < (REAL)(H) && (x) > (REAL)-1 && (x) < (REAL)(W))

/* Bilinear corner weights of one sample point, torchvision's
 * bilinear_interpolate: zero when y <= -1, y >= H, x <= -1 or x >= W; each of
 * the 4 neighbours only if inside. Writes the plane index of the top-left
 * corner and 4 weights (already zero for outside corners) and returns 0 when
 * the whole sample is outside. Coordinates in the caller's precision (the
 * reference: double; the variants: float, as torchvision's fp32 kernels).
 * The test is written so that a NaN coordinate is outside too (a half-precision
 * sum of infinities), where torchvision's would go on to index with it.
 * ROUND wraps every weight operation: nothing for the exact rule, a rounding
 * to f16 for torchvision's half path (kb_dcn_corners_f16 below). */
#define KB_DCN_CORNERS_ROUNDED(REAL, IDX, NAME, ROUND)                                             \
    KB_HD int NAME(REAL y, REAL x, IDX H, IDX W, IDX *base, REAL wt[4]) {                          \
        wt[0] = wt[1] = wt[2] = wt[3] = 0;                                                         \
        *base = 0;                                                                                 \
        if (!KB_DCN_INSIDE(REAL, y, x, H, W)) return 0;                                            \
        REAL yf = floor(y), xf = floor(x);                                                         \
        IDX y0 = (IDX)yf, x0 = (IDX)xf;                                                            \
        REAL ly = ROUND(y - yf), lx = ROUND(x - xf), hy = ROUND(1 - ly), hx = ROUND(1 - lx);       \
        int top = y0 >= 0, bottom = y0 + 1 <= H - 1, left = x0 >= 0, right = x0 + 1 <= W - 1;      \
        if (top && left) wt[0] = ROUND(hy * hx);                                                   \
        if (top && right) wt[1] = ROUND(hy * lx);                                                  \
        if (bottom && left) wt[2] = ROUND(ly * hx);                                                \
        if (bottom && right) wt[3] = ROUND(ly * lx);                                               \
        *base = y0 * W + x0;                                                                       \
        return 1;                                                                                  \
    }
/* The exact rule: ROUND empty, each weight in REAL arithmetic. */
#define KB_DCN_CORNERS(REAL, IDX, NAME) KB_DCN_CORNERS_ROUNDED(REAL, IDX, NAME, )
KB_DCN_CORNERS(double, int64_t, kb_dcn_corners_f64)

/* ---- torchvision's f16 rule (variant explicit_torchvision_half, KB_INEXACT) ----
 *
 * torchvision's im2col is templated on scalar_t, so for f16 tensors the
 * coordinate y = (oy*stride_h - pad_h + i*dil_h) + offset, the bilinear
 * weights, the blend and the mask product are at::Half arithmetic: each
 * operation computes in float and rounds its result to f16
 * (c10/util/Half-inl.h; an int operand is converted to Half first). At y ~ 168
 * an f16 has a resolution of 0.125 px, so its samples move by up to 1/16 px
 * from the exact rule's (float coordinates): the row's note says how far its
 * output lands from the exact reference. The three functions below are that
 * arithmetic, shared by the variant and its CPU reference. */

/* float -> f16 -> float, round to nearest even: the rounding of every at::Half operation. */
KB_HD float kb_dcn_round_f16(float v) {
#ifdef __CUDA_ARCH__
    return __half2float(__float2half_rn(v));
#else
    return kb_f16_to_f32(kb_f32_to_f16(v));
#endif
}

KB_DCN_CORNERS_ROUNDED(float, int64_t, kb_dcn_corners_f16, kb_dcn_round_f16)

/* Half(int part) + offset: the int part (oy*stride_h - pad_h + i*dil_h) goes
 * int -> float -> Half, as static_cast<Half>(int64_t) does, then the sum rounds. */
KB_HD float kb_dcn_coord_f16(int64_t whole, float offset) {
    return kb_dcn_round_f16(kb_dcn_round_f16((float)whole) + offset);
}

/* mask * (w1*v1 + w2*v2 + w3*v3 + w4*v4) in at::Half, left to right, each
 * product and each sum rounded (v of a zero weight: 0, as torchvision's
 * corners outside the image). */
KB_HD float kb_dcn_blend_f16(const float wt[4], const float v[4], float mask) {
    float s = kb_dcn_round_f16(kb_dcn_round_f16(wt[0] * v[0]) + kb_dcn_round_f16(wt[1] * v[1]));
    s = kb_dcn_round_f16(s + kb_dcn_round_f16(wt[2] * v[2]));
    s = kb_dcn_round_f16(s + kb_dcn_round_f16(wt[3] * v[3]));
    return kb_dcn_round_f16(mask * s);
}

#ifdef __cplusplus
}
#endif
#endif
