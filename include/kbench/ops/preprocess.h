/* kbench/ops/preprocess.h — the preprocess op: uint8 BGR HWC images -> float
 * RGB CHW, (v/255 - mean)/std, resized by nearest, bilinear or the YOLOv5
 * letterbox (the case's interp axis).
 *
 * Inputs  image u8 [n, in_h, in_w, 3] (BGR, HWC).
 * Outputs out f32 or f16 (the dtype axis) [n, 3, out_h, out_w] (RGB, CHW).
 * The sampling rules are written once below as KB_HD functions that the CPU
 * reference and the kernels both call, with every float rounding spelled out
 * (kb_pp_mul/kb_pp_add never contract into an fma), so that a variant and
 * the reference agree bit for bit up to the normalisation. kb_pp_sample is
 * the whole rule of one output pixel.
 * Semantics: README "What is in it" and DESIGN.md "Semantics", preprocess.
 */
#ifndef KBENCH_OPS_PREPROCESS_H
#define KBENCH_OPS_PREPROCESS_H

#include "kbench/case.h"
#include "kbench/tensor.h"
#include "kbench/util.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_pp_interp { KB_PP_NEAREST, KB_PP_BILINEAR, KB_PP_LETTERBOX } kb_pp_interp;

/* Which nearest index rule: OpenCV's (the op's semantics), or the float
 * scale of the common CUDA ports (the nearest_seed variant, KB_INEXACT). */
typedef enum kb_pp_nn_rule { KB_PP_NN_OPENCV, KB_PP_NN_FLOAT_SCALE } kb_pp_nn_rule;

enum { KB_PP_BORDER = 114 }; /* YOLOv5's letterbox grey */

typedef struct kb_pp_params {
    int n, in_h, in_w, out_h, out_w;
    kb_pp_interp interp;
    kb_pp_nn_rule nn_rule;     /* KB_PP_NN_OPENCV unless a variant says otherwise */
    kb_dtype out_dtype;        /* KB_F32 or KB_F16 */
    float mean[3], inv_std[3]; /* in output (RGB) channel order */
    float d2i[6];              /* letterbox: network -> source affine, [2x3] row-major */
} kb_pp_params;

/* Everything a variant or the reference needs, derived once from the case. */
kb_pp_params kb_pp_params_of(const kb_case *c);

#ifdef __cplusplus
}
#endif

/* ---- the sampling rules, shared by host and device ---- */

/* One rounding each: nvcc would otherwise fuse a*b+c into an fma. */
#ifdef __CUDA_ARCH__
#define kb_pp_mul(a, b) __fmul_rn((a), (b))
#define kb_pp_add(a, b) __fadd_rn((a), (b))
#else
#define kb_pp_mul(a, b) ((float)(a) * (float)(b))
#define kb_pp_add(a, b) ((float)(a) + (float)(b))
#endif

/* OpenCV INTER_NEAREST, as resizeNN computes it: fx = (double)out / in,
 * ifx = 1./fx, src = min(cvFloor(dst * ifx), in - 1), all in double. Not the
 * rational floor(dst * in / out): where dst * in / out is an integer, ifx
 * rounded below in/out puts the product just under it, e.g. in 128 -> out
 * 644: 161 * ifx = 31.999... gives 31, not 32. */
KB_HD int kb_pp_nearest_src(int dst, int in, int out) {
    double ifx = 1.0 / ((double)out / (double)in);
    int s = (int)floor((double)dst * ifx);
    return s < in - 1 ? s : in - 1;
}

/* The common CUDA ports' nearest: a float scale in/out computed once, src =
 * (int)(dst * scale), clamped to the last pixel (the float product can
 * reach `in` for large sizes). Differs from OpenCV's rule on some pixels,
 * e.g. 500 -> 480: 120 * 1.0416666f = 124.99999 gives 124, OpenCV 125. */
KB_HD float kb_pp_nearest_scale_f32(int in, int out) {
    return (float)in / (float)out;
}
KB_HD int kb_pp_nearest_src_f32(int dst, float scale, int in) {
    int s = (int)floorf(kb_pp_mul((float)dst, scale));
    return s < in - 1 ? s : in - 1;
}

/* OpenCV INTER_LINEAR along one axis: half-pixel centres, computed in float,
 * fx = (dst + 0.5)·in/out − 0.5; below 0 or at/after the last pixel the
 * edge is replicated (weight 0 on the outer neighbour). */
KB_HD void kb_pp_linear_src(int dst, float scale, int in, int *i0, int *i1, float *frac) {
    float f = kb_pp_add(kb_pp_mul(kb_pp_add((float)dst, 0.5f), scale), -0.5f);
    int s = (int)floorf(f);
    f = kb_pp_add(f, -(float)s);
    if (s < 0) {
        s = 0;
        f = 0.0f;
    }
    if (s >= in - 1) {
        s = in - 1;
        f = 0.0f;
    }
    *i0 = s;
    *i1 = s + 1 < in ? s + 1 : in - 1;
    *frac = f;
}

/* (1-fy)·((1-fx)·p00 + fx·p01) + fy·((1-fx)·p10 + fx·p11), rounding as written. */
KB_HD float kb_pp_bilinear(float p00, float p01, float p10, float p11, float fx, float fy) {
    float gx = kb_pp_add(1.0f, -fx), gy = kb_pp_add(1.0f, -fy);
    float top = kb_pp_add(kb_pp_mul(gx, p00), kb_pp_mul(fx, p01));
    float bot = kb_pp_add(kb_pp_mul(gx, p10), kb_pp_mul(fx, p11));
    return kb_pp_add(kb_pp_mul(gy, top), kb_pp_mul(fy, bot));
}

/* The YOLOv5 GPU letterbox: s = min(out_w/in_w, out_h/in_h), source->network
 * x' = s·x + (out_w − s·in_w + s − 1)/2 (pixel centres aligned), likewise y;
 * d2i is its inverse, all in float. */
KB_HD void kb_pp_letterbox_d2i(int in_w, int in_h, int out_w, int out_h, float d2i[6]) {
    float sx = (float)out_w / (float)in_w, sy = (float)out_h / (float)in_h;
    float s = sx < sy ? sx : sy;
    float tx =
        kb_pp_mul(kb_pp_add(kb_pp_add(kb_pp_mul(-s, (float)in_w), (float)out_w), s - 1.0f), 0.5f);
    float ty =
        kb_pp_mul(kb_pp_add(kb_pp_add(kb_pp_mul(-s, (float)in_h), (float)out_h), s - 1.0f), 0.5f);
    float inv = 1.0f / s;
    d2i[0] = inv;
    d2i[1] = 0.0f;
    d2i[2] = -tx * inv;
    d2i[3] = 0.0f;
    d2i[4] = inv;
    d2i[5] = -ty * inv;
}

/* One letterbox output pixel: bilinear at the inverse map, neighbours
 * outside the image read 114, the blend rounded to the nearest integer
 * (DESIGN.md). img is one BGR HWC image; rgb receives R, G, B as 0..255. */
KB_HD void kb_pp_letterbox_pixel(const unsigned char *img, int in_h, int in_w, const float *d2i,
                                 int dx, int dy, float rgb[3]) {
    float x = kb_pp_add(kb_pp_mul(d2i[0], (float)dx), d2i[2]);
    float y = kb_pp_add(kb_pp_mul(d2i[4], (float)dy), d2i[5]);
    if (x <= -1.0f || x >= (float)in_w || y <= -1.0f || y >= (float)in_h) {
        rgb[0] = rgb[1] = rgb[2] = (float)KB_PP_BORDER;
        return;
    }
    int x0 = (int)floorf(x), y0 = (int)floorf(y), x1 = x0 + 1, y1 = y0 + 1;
    float lx = kb_pp_add(x, -(float)x0), ly = kb_pp_add(y, -(float)y0);
    float hx = kb_pp_add(1.0f, -lx), hy = kb_pp_add(1.0f, -ly);
    float w[4] = {kb_pp_mul(hy, hx), kb_pp_mul(hy, lx), kb_pp_mul(ly, hx), kb_pp_mul(ly, lx)};
    int in00 = y0 >= 0 && x0 >= 0, in01 = y0 >= 0 && x1 < in_w;
    int in10 = y1 < in_h && x0 >= 0, in11 = y1 < in_h && x1 < in_w;
    const unsigned char *p00 = img + ((long long)y0 * in_w + x0) * 3;
    const unsigned char *p01 = p00 + 3;
    const unsigned char *p10 = p00 + (long long)in_w * 3;
    const unsigned char *p11 = p10 + 3;
    for (int c = 0; c < 3; c++) {
        float v00 = in00 ? (float)p00[2 - c] : (float)KB_PP_BORDER;
        float v01 = in01 ? (float)p01[2 - c] : (float)KB_PP_BORDER;
        float v10 = in10 ? (float)p10[2 - c] : (float)KB_PP_BORDER;
        float v11 = in11 ? (float)p11[2 - c] : (float)KB_PP_BORDER;
        float b = kb_pp_add(
            kb_pp_add(kb_pp_add(kb_pp_mul(w[0], v00), kb_pp_mul(w[1], v01)), kb_pp_mul(w[2], v10)),
            kb_pp_mul(w[3], v11));
        rgb[c] = floorf(kb_pp_add(b, 0.5f));
    }
}

/* The R, G, B values (0..255, before normalisation) of output pixel
 * (dx, dy) of one image: the whole rule, for the reference and the
 * one-thread-per-pixel kernels. */
KB_HD void kb_pp_sample(const kb_pp_params *p, const unsigned char *img, int dx, int dy,
                        float rgb[3]) {
    if (p->interp == KB_PP_LETTERBOX) {
        kb_pp_letterbox_pixel(img, p->in_h, p->in_w, p->d2i, dx, dy, rgb);
        return;
    }
    if (p->interp == KB_PP_NEAREST) {
        int sx, sy;
        if (p->nn_rule == KB_PP_NN_FLOAT_SCALE) {
            sx = kb_pp_nearest_src_f32(dx, kb_pp_nearest_scale_f32(p->in_w, p->out_w), p->in_w);
            sy = kb_pp_nearest_src_f32(dy, kb_pp_nearest_scale_f32(p->in_h, p->out_h), p->in_h);
        } else {
            sx = kb_pp_nearest_src(dx, p->in_w, p->out_w);
            sy = kb_pp_nearest_src(dy, p->in_h, p->out_h);
        }
        const unsigned char *px = img + ((long long)sy * p->in_w + sx) * 3;
        for (int c = 0; c < 3; c++) rgb[c] = px[2 - c];
        return;
    }
    int x0, x1, y0, y1;
    float fx, fy;
    kb_pp_linear_src(dx, (float)p->in_w / (float)p->out_w, p->in_w, &x0, &x1, &fx);
    kb_pp_linear_src(dy, (float)p->in_h / (float)p->out_h, p->in_h, &y0, &y1, &fy);
    const unsigned char *r0 = img + (long long)y0 * p->in_w * 3;
    const unsigned char *r1 = img + (long long)y1 * p->in_w * 3;
    for (int c = 0; c < 3; c++)
        rgb[c] = kb_pp_bilinear(r0[x0 * 3 + 2 - c], r0[x1 * 3 + 2 - c], r1[x0 * 3 + 2 - c],
                                r1[x1 * 3 + 2 - c], fx, fy);
}

#endif
