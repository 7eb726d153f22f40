/* reference/deform_conv2d.c — CPU truth for deform_conv2d: plain loops, double.
 *
 * Sample coordinates in float (the contract: torchvision computes them so, and
 * at large x their rounding is larger than the f32 bound); bilinear weights and
 * sums in double from the stored (rounded) values, with the sampling rule of
 * deform_conv2d.h. Two paths:
 *  - full: per image, the deformable columns [c_in*kh*kw][ho*wo] in double,
 *    then each output row as a sum of weighted column rows (OpenMP over rows);
 *  - sampled, when the work exceeds KB_DCN_FULL_MACS: KB_DCN_SAMPLE_POINTS
 *    random output points computed exactly; every other element is NaN, which
 *    kb_compare_dense reads as "not computed". Each output is independent, so a
 *    sampled point is as exact as a full one.
 * The same paths give the reference of torchvision's f16 rule (below).
 */
#include "deform_conv2d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { KB_DCN_SAMPLE_POINTS = 20000 };
static const double KB_DCN_FULL_MACS = 2e9;         /* ~1 s on 16 cores */
static const double KB_DCN_FULL_COLUMN_BYTES = 1e9; /* one image's columns in double */

typedef struct {
    kb_dcn_params p;
    const kb_tensor *in, *off, *mask, *w, *b;
    int tv_f16; /* torchvision's f16 rule (deform_conv2d.h) instead of the exact one */
} dcn_ref;

static double ld(const kb_tensor *t, int64_t i) {
    return kb_load_as_double(t->data, t->dtype, i);
}

static void st(kb_tensor *t, int64_t i, double v) {
    switch (t->dtype) {
    case KB_F16:
        ((uint16_t *)t->data)[i] = kb_f32_to_f16((float)v);
        break;
    case KB_BF16:
        ((uint16_t *)t->data)[i] = kb_f32_to_bf16((float)v);
        break;
    default:
        ((float *)t->data)[i] = (float)v;
        break;
    }
}

/* The exact rule: the coordinate is a float sum, as in torchvision's f32
 * kernel and every variant (at x ~ 1e4 its ulp, 2^-10, moves the sample by up
 * to 5e-4 px); weights and blend in double. */
static double sample_exact(const kb_tensor *in, int64_t plane, int64_t H, int64_t W, int64_t y0,
                           int64_t x0, double dy, double dx, double m) {
    double y = (float)y0 + (float)dy, x = (float)x0 + (float)dx;
    int64_t base;
    double wt[4];
    if (!kb_dcn_corners_f64(y, x, H, W, &base, wt)) return 0;
    const int64_t corner[4] = {0, 1, W, W + 1};
    double v = 0;
    for (int c = 0; c < 4; c++)
        if (wt[c] != 0) v += wt[c] * ld(in, plane + base + corner[c]);
    return v * m;
}

/* torchvision's f16 rule: every operation rounded to f16 (deform_conv2d.h). */
static double sample_tv_f16(const kb_tensor *in, int64_t plane, int64_t H, int64_t W, int64_t y0,
                            int64_t x0, double dy, double dx, double m) {
    float y = kb_dcn_coord_f16(y0, (float)dy), x = kb_dcn_coord_f16(x0, (float)dx);
    int64_t base;
    float wt[4], v[4] = {0, 0, 0, 0};
    kb_dcn_corners_f16(y, x, H, W, &base, wt);
    const int64_t corner[4] = {0, 1, W, W + 1};
    for (int c = 0; c < 4; c++)
        if (wt[c] != 0) v[c] = (float)ld(in, plane + base + corner[c]);
    return kb_dcn_blend_f16(wt, v, (float)m);
}

/* mask * bilinear sample of channel ci of image n at tap k of output pixel pix. */
static double column(const dcn_ref *r, int64_t n, int64_t ci, int64_t k, int64_t pix) {
    const kb_dcn_params *p = &r->p;
    int64_t K = p->kh * p->kw, P = p->ho * p->wo, G = p->offset_groups;
    int64_t og = ci / (p->c_in / G);
    int64_t oy = pix / p->wo, ox = pix % p->wo, i = k / p->kw, j = k % p->kw;
    int64_t o = ((n * G + og) * 2 * K + 2 * k) * P + pix;
    int64_t y0 = oy * p->stride_h - p->pad_h + i * p->dil_h;
    int64_t x0 = ox * p->stride_w - p->pad_w + j * p->dil_w;
    double m = p->mask ? ld(r->mask, ((n * G + og) * K + k) * P + pix) : 1;
    int64_t plane = (n * p->c_in + ci) * p->h * p->w;
    return (r->tv_f16 ? sample_tv_f16 : sample_exact)(r->in, plane, p->h, p->w, y0, x0,
                                                      ld(r->off, o), ld(r->off, o + P), m);
}

/* One output from its weighted sum: + bias; the f16 rule rounds the sum to
 * f16 first (cuBLAS writes the f16 out_buf) and the bias sum again (PyTorch's
 * add, in float). torchvision adds a zero bias when there is none. */
static double output_of(const dcn_ref *r, double acc, int64_t co) {
    double bias = r->p.bias ? ld(r->b, co) : 0;
    if (!r->tv_f16) return acc + bias;
    return kb_dcn_round_f16(kb_dcn_round_f16((float)acc) + (float)bias);
}

static void reference_full(const dcn_ref *r, kb_tensor *out) {
    const kb_dcn_params *p = &r->p;
    int64_t K = p->kh * p->kw, P = p->ho * p->wo, Kd = p->c_in / p->groups * K;
    int64_t rows = p->c_in * K, cout_g = p->c_out / p->groups;
    double *cols = malloc((size_t)(rows * P) * sizeof(double));
    double *wd = malloc((size_t)(p->c_out * Kd) * sizeof(double));
    for (int64_t i = 0; i < p->c_out * Kd; i++) wd[i] = ld(r->w, i);
    for (int64_t n = 0; n < p->n; n++) {
#pragma omp parallel for schedule(static)
        for (int64_t row = 0; row < rows; row++)
            for (int64_t pix = 0; pix < P; pix++)
                cols[row * P + pix] = column(r, n, row / K, row % K, pix);
#pragma omp parallel
        {
            double *acc = malloc((size_t)P * sizeof(double));
#pragma omp for schedule(dynamic, 1)
            for (int64_t co = 0; co < p->c_out; co++) {
                const double *g_cols = cols + (co / cout_g) * Kd * P;
                for (int64_t pix = 0; pix < P; pix++) acc[pix] = 0;
                for (int64_t kd = 0; kd < Kd; kd++) {
                    double wv = wd[co * Kd + kd];
                    const double *c = g_cols + kd * P;
                    for (int64_t pix = 0; pix < P; pix++) acc[pix] += wv * c[pix];
                }
                for (int64_t pix = 0; pix < P; pix++)
                    st(out, (n * p->c_out + co) * P + pix, output_of(r, acc[pix], co));
            }
            free(acc);
        }
    }
    free(wd);
    free(cols);
}

static void reference_points(const dcn_ref *r, kb_tensor *out, int64_t points, uint64_t seed) {
    const kb_dcn_params *p = &r->p;
    int64_t K = p->kh * p->kw, P = p->ho * p->wo, total = kb_numel(out);
    int64_t cin_g = p->c_in / p->groups, cout_g = p->c_out / p->groups;
    for (int64_t i = 0; i < total; i++) st(out, i, NAN);
    int64_t *at = malloc((size_t)points * sizeof(int64_t));
    for (int64_t s = 0; s < points; s++) at[s] = kb_rng_int(&seed, 0, total - 1);
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t s = 0; s < points; s++) {
        int64_t pix = at[s] % P, co = (at[s] / P) % p->c_out, n = at[s] / P / p->c_out;
        int64_t ci0 = (co / cout_g) * cin_g;
        double acc = 0;
        for (int64_t cl = 0; cl < cin_g; cl++)
            for (int64_t k = 0; k < K; k++)
                acc += ld(r->w, (co * cin_g + cl) * K + k) * column(r, n, ci0 + cl, k, pix);
        st(out, at[s], output_of(r, acc, co));
    }
    free(at);
}

static int bind(const kb_case *c, const kb_tensors *in, int tv_f16, dcn_ref *r, kb_error *e) {
    if (kb_dcn_params_from_case(c, &r->p, e) != KB_OK) return KB_ERR;
    r->in = kb_tensors_get(in, "input");
    r->off = kb_tensors_get(in, "offset");
    r->mask = kb_tensors_get(in, "mask");
    r->w = kb_tensors_get(in, "weight");
    r->b = kb_tensors_get(in, "bias");
    r->tv_f16 = tv_f16;
    if (!r->in || !r->off || !r->mask || !r->w || !r->b)
        return kb_fail(e, "deform_conv2d reference: an input tensor is missing");
    if (tv_f16 && r->p.dtype != KB_F16)
        return kb_fail(e, "dtype=%s: torchvision's f16 rule is a reference of f16 cases only",
                       kb_dtype_name(r->p.dtype));
    return KB_OK;
}

static void run_points(const dcn_ref *r, kb_tensors *out, int64_t points) {
    kb_tensor *o = kb_tensors_find(out, "output");
    if (kb_numel(o) > 0) reference_points(r, o, points, 0x5EEDull + (uint64_t)kb_numel(o));
}

/* Full, or sampled where the work or one image's columns are too large. */
static int run_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, int tv_f16,
                         kb_error *e) {
    dcn_ref r;
    if (bind(c, in, tv_f16, &r, e) != KB_OK) return KB_ERR;
    kb_dcn_sizes s = kb_dcn_sizes_of(&r.p);
    double macs = (double)s.pixels * (double)r.p.c_out * (double)s.weight / (double)r.p.c_out;
    if (macs > KB_DCN_FULL_MACS || (double)s.columns_img * 8 > KB_DCN_FULL_COLUMN_BYTES)
        run_points(&r, out, KB_DCN_SAMPLE_POINTS);
    else if (s.pixels > 0)
        reference_full(&r, kb_tensors_find(out, "output"));
    return KB_OK;
}

int kb_deform_conv2d_reference_points(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                      int64_t points, kb_error *e) {
    dcn_ref r;
    if (bind(c, in, 0, &r, e) != KB_OK) return KB_ERR;
    run_points(&r, out, points);
    return KB_OK;
}

int kb_deform_conv2d_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                               kb_error *e) {
    return run_reference(c, in, out, 0, e);
}

/* The reference of torchvision's f16 rule (explicit_torchvision_half's
 * semantics), by the same paths: its samples by deform_conv2d.h's at::Half
 * arithmetic, f16 roundings of the sum and of the bias add. */
int kb_deform_conv2d_reference_tv_f16(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                      kb_error *e) {
    return run_reference(c, in, out, 1, e);
}
