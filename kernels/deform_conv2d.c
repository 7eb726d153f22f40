/* deform_conv2d.c — the op: axes, sweeps, validation, inputs, cost (its
 * parameters: deform_conv2d_params.c).
 *
 *   kbench check deform_conv2d --sweep smoke      (the correctness matrix, seconds)
 *   kbench run   deform_conv2d --sweep default    (ResNet-50-DCN layers at 800x1344)
 *
 * Every tensor has the case's dtype (f32, f16, bf16): the variants accumulate
 * in fp32, the reference (reference/deform_conv2d.c) in double from the same
 * rounded values. Validation mirrors torchvision's checks in deform_conv2d.
 */
#include "deform_conv2d.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const kb_axis axes[] = {
    {"n", KB_AXIS_INT, "1", 0, 4096, NULL, "batch"},
    {"c_in", KB_AXIS_INT, "64", 1, 65536, NULL, "input channels"},
    {"c_out", KB_AXIS_INT, "64", 1, 65536, NULL, "output channels"},
    {"h", KB_AXIS_INT, "32", 1, 1 << 20, NULL, "input height"},
    {"w", KB_AXIS_INT, "32", 1, 1 << 20, NULL, "input width"},
    {"kh", KB_AXIS_INT, "3", 1, 7, NULL, "kernel height"},
    {"kw", KB_AXIS_INT, "3", 1, 7, NULL, "kernel width"},
    {"stride_h", KB_AXIS_INT, "1", 1, 64, NULL, ""},
    {"stride_w", KB_AXIS_INT, "1", 1, 64, NULL, ""},
    {"pad_h", KB_AXIS_INT, "1", 0, 1 << 20, NULL, ""},
    {"pad_w", KB_AXIS_INT, "1", 0, 1 << 20, NULL, ""},
    {"dil_h", KB_AXIS_INT, "1", 1, 64, NULL, ""},
    {"dil_w", KB_AXIS_INT, "1", 1, 64, NULL, ""},
    {"groups", KB_AXIS_INT, "1", 1, 65536, NULL, "weight groups (divide c_in and c_out)"},
    {"offset_groups", KB_AXIS_INT, "1", 1, 65536, NULL, "offset/mask groups (divide c_in)"},
    {"mask", KB_AXIS_INT, "1", 0, 1, NULL, "1: DCNv2 (modulated), 0: DCNv1"},
    {"mask_values", KB_AXIS_ENUM, "random", 0, 0, "random,ones,zeros",
     "random: U(-0.25, 1.25), negative values too"},
    {"bias", KB_AXIS_INT, "1", 0, 1, NULL, ""},
    {"dtype", KB_AXIS_ENUM, "f32", 0, 0, "f32,f16,bf16", "of every tensor"},
    {"offsets", KB_AXIS_ENUM, "randn", 0, 0, "randn,uniform,integer,out_of_bounds,edges,zero",
     "randn: N(0, scale); uniform/integer: +-scale; edges: samples exactly at -1, 0, H-1, H"},
    {"offset_scale", KB_AXIS_FLOAT, "2", 0, 1e4, NULL, "sigma or half-range of the offsets"},
    {"im2col", KB_AXIS_ENUM, "auto", 0, 0, "auto,window,global",
     "explicit_nhwc* only: window stages each block's input in shared memory (cp.async), "
     "global reads every corner from memory, auto picks per case"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* ---- sweeps ---- */

static const char *const smoke[] = {
    /* groups that don't nest: weight groups 2, offset groups 3 on c_in = 6; batch edges */
    "n=[0,1,2] c_in=6 c_out=4 h=7 w=9 groups=2 offset_groups=3 dtype=[f32,f16,bf16]",
    /* depthwise, stride/pad/dilation differing between h and w, 3x2 kernel */
    "n=2 c_in=8 c_out=8 h=9 w=11 kh=3 kw=2 stride_h=2 stride_w=1 pad_h=1 pad_w=0 dil_h=1 "
    "dil_w=2 groups=8 offset_groups=8 dtype=[f32,f16]",
    /* 5x5, every offset distribution, DCNv1 and v2, with and without bias */
    "n=2 c_in=16 c_out=24 h=11 w=13 kh=5 kw=5 pad_h=2 pad_w=2 mask=[0,1] bias=[0,1] "
    "offsets=[uniform,integer,out_of_bounds,edges] offset_scale=20",
    "n=1 c_in=12 c_out=10 h=10 w=12 mask_values=[ones,zeros] offsets=[zero,randn] dtype=[f32,bf16]",
    /* 1x1 stride 2; tiles that straddle images (n = 31, 33 pixels x channels not tile multiples) */
    "n=3 c_in=40 c_out=36 h=12 w=10 kh=1 kw=1 stride_h=2 stride_w=2 pad_h=0 pad_w=0",
    "n=[31,33] c_in=32 c_out=72 h=6 w=7 offset_groups=2 dtype=[f32,f16,bf16]",
    "n=2 c_in=64 c_out=128 h=20 w=24 dtype=[f32,f16,bf16]",
    /* > 128 output channels on enough pixels for nhwc_fused's 16-warp blocks;
     * c_out not a multiple of its 256-channel tiles */
    "n=2 c_in=16 c_out=136 h=96 w=96 dtype=[f32,f16]",
    /* 128 x 64 tiles (c_out/groups <= 64) on 40000 pixels: 313 tiles, 2-3 a block
     * on a 132-SM GPU, so nhwc_ws_*'s ring slots and its table builder's two
     * buffers wrap their mbarrier phases; one and two tables a tile */
    "n=2 c_in=64 c_out=64 h=100 w=200 offset_groups=[1,2] dtype=[f32,f16]",
    /* nhwc_ws_*'s pixel rectangles at 128 x 64: 8 x 16 whole (338 tiles, a block
     * looping), a last tile of 8 of its 16 columns, of 1 of its 8 rows; 9 x 24
     * takes consecutive pixels (rectangles would take more tiles) */
    "n=2 c_in=64 c_out=64 h=104 w=208 dtype=[f32,f16]",
    "n=1 c_in=64 c_out=64 h=[8,9] w=[16,24] dtype=[f32,bf16]",
    /* nhwc_ws_*'s stream split (32-bit data: 18 K tiles a tile): 68 output
     * tiles, at 128 x 64 (4 x 32 rectangles, the builder) and 128 x 128, on
     * 132 SMs: KS 1 would run 68 blocks of 18, the stream 132 runs of 9-10
     * across the tiles' ends, up to 3 blocks a tile */
    "n=1 c_in=64 c_out=[64,72] h=68 w=128 dtype=f32",
    /* kernels past the padded input (torchvision's output size): ho = (2 - 3)/2 + 1 = 1 and
     * wo = (3 + 0 - 5)/3 + 1 = 1 with dilation; the taps past the input sample zeros */
    "n=2 c_in=16 c_out=8 h=2 w=9 kh=3 kw=3 stride_h=2 stride_w=2 pad_h=0 pad_w=1 "
    "dtype=[f32,f16,bf16]",
    "n=1 c_in=16 c_out=8 h=5 w=3 kh=3 kw=3 pad_h=1 pad_w=0 dil_w=2 stride_w=3 "
    "offsets=[randn,edges]",
    NULL,
};

static const char *const default_sweep[] = {
    "n=1 c_in=128 c_out=128 h=100 w=168 dtype=[f32,f16]",
    "n=1 c_in=256 c_out=256 h=50 w=84 dtype=[f32,f16]",
    "n=1 c_in=512 c_out=512 h=25 w=42 dtype=[f32,f16]",
    "n=2 c_in=64 c_out=64 h=200 w=336 dtype=[f32,f16]",
    "n=8 c_in=256 c_out=256 h=64 w=64 dtype=[f32,f16]",
    NULL,
};

/* Largest indices straddling 2^31. 2^31-1 is prime, so no deformable layer has
 * exactly 2^31-1 column elements; 2^31-2 = 154*3*3*151*10261 is the nearest. */
static const char *const index_limits[] = {
    /* columns 2^31-2 elements: int32 still fits */
    "n=1 c_in=154 c_out=8 h=151 w=10261 pad_h=1 pad_w=1",
    /* columns exactly 2^31 elements: 128 * 4*4 * 1024*1024 */
    "n=1 c_in=128 c_out=8 h=1027 w=1027 kh=4 kw=4 pad_h=0 pad_w=0",
    /* offset_groups = c_in: offsets 2*256*9*682^2 (fits) and 2*256*9*683^2 (> INT32_MAX) */
    "n=1 c_in=256 c_out=16 h=682 w=682 offset_groups=256",
    "n=1 c_in=256 c_out=16 h=683 w=683 offset_groups=256",
    /* 1x1 stride 2 on an input block of 512*2050*2050 > 2^31 elements */
    "n=1 c_in=512 c_out=64 h=2050 w=2050 kh=1 kw=1 stride_h=2 stride_w=2 pad_h=0 pad_w=0",
    NULL,
};

static const char *const full[] = {
    "n[pow2]=[0:6] c_in=256 c_out=256 h=64 w=64",
    "n=8 c_in=[64,128,256,512] c_out=[64,256] h=64 w=64 dtype=[f32,f16]",
    "n=4 c_in=256 c_out=256 h=[32,64,128,256] w=[32,64,128,256] dtype=[f32,f16,bf16]",
    "n=64 c_in=256 c_out=256 h=128 w=128 dtype=[f32,f16]",
    NULL,
};

/* The fewest, smallest cases that reach every branch of every variant under
 * compute-sanitizer (scripts/sanitize.sh; each variant sees the cases of its
 * dtype). Block shapes depend on the SM count (kb_gpu_sms): the branches
 * named are those of a 132-SM H100. explicit_nhwc* pick the windowed im2col
 * on the last line only; -a im2col=window forces it on every line (the
 * script runs them so once more). Not reached: a columns block of fewer
 * images than n (2^27 column elements) and bias rows past 65535 (n * c_out). */
static const char *const sanitize_lines[] = {
    /* n = 0: every variant's no-pixel return */
    "n=0 c_in=16 c_out=8 h=5 w=6 dtype=[f32,f16,bf16]",
    /* NCHW variants only (c_in/groups = 3 is no 16-byte vector): 2 weight
     * groups x 3 offset groups, so K tiles straddle offset groups (weights
     * per sample, not from the table); 2 images of 63 pixels in one tile */
    "n=2 c_in=6 c_out=4 h=7 w=9 groups=2 offset_groups=3 dtype=[f32,f16,bf16]",
    /* 3x2 kernel (explicit im2col TAPS = 0), stride and dilation differing in
     * h and w; 2 weight groups with bias: explicit_nhwc fills the bias (no
     * bias column), P = 45 (the fill's scalar tail); c_out/groups = 8:
     * nhwc_fused n64, wgmma wg64, ws 128 x 64 with its table builder,
     * implicit BM 64 */
    "n=1 c_in=16 c_out=16 h=9 w=11 kh=3 kw=2 stride_h=2 stride_w=1 pad_h=1 pad_w=0 dil_h=1 "
    "dil_w=2 groups=2 offset_groups=2 dtype=[f32,f16,bf16]",
    /* one offset group: ws 128 x 64 with the builder on 8 x 16 pixel rectangles,
     * the second short of 7 of its 8 rows */
    "n=1 c_in=16 c_out=16 h=9 w=16 dtype=[f32,f16,bf16]",
    /* 5x5, every sample outside the image; DCNv1 (no mask), no bias; ws
     * 128 x 64 without the builder (two 25-tap tables exceed shared memory) */
    "n=1 c_in=16 c_out=24 h=11 w=13 kh=5 kw=5 pad_h=2 pad_w=2 mask=0 bias=0 "
    "offsets=out_of_bounds offset_scale=20 dtype=[f32,f16,bf16]",
    /* samples exactly on the borders (-1, -0.5, 0, H-1, H-0.5, H: clamped corners,
     * zero weights) and far ones (up to 20 px, past the window's 5 px margin:
     * its global loads); wo = 70: two 64-wide window tiles, the second partial */
    "n=1 c_in=16 c_out=24 h=5 w=70 offsets=[edges,uniform] offset_scale=20 "
    "dtype=[f32,f16,bf16]",
    /* c_out = 72: nhwc_fused n128, wgmma wg128; offset groups of 8 channels:
     * a K chunk spans offset groups (weights inline); 2 images of 42 pixels
     * in one tile; explicit_nhwc's bias column (groups = 1, bias) */
    "n=2 c_in=32 c_out=72 h=6 w=7 offset_groups=4 dtype=[f32,f16,bf16]",
    /* c_out = 136 on 64 pixels (< 2 x 132 x 64): nhwc_fused n256, wgmma wg128
     * in two channel tiles, implicit BM 64; c_out not a multiple of a tile */
    "n=1 c_in=16 c_out=136 h=8 w=8 dtype=[f32,f16,bf16]",
    /* the same with 128 input channels: ws 128 x 128 tiles, K split in 4
     * (16-bit data: in sanitize_large) */
    "n=1 c_in=128 c_out=136 h=8 w=8",
    /* the big-grid branches, 1x1 on 8 channels to stay cheap (18.9M MACs):
     * 17408 pixels >= 2 x 132 x 64: nhwc_fused n256w; >= 132 x 128: wgmma
     * wg256, ws 128 x 256 on 8 x 16 pixel rectangles; 136 pixel x 2 channel tiles
     * of 128 >= 2 x 132 blocks: implicit BM 128; 272 window tiles of 8x8 pixels
     * >= 2 x 132: explicit_nhwc's windowed im2col unforced; explicit im2col TAPS = 1 */
    "n=1 c_in=8 c_out=136 h=136 w=128 kh=1 kw=1 pad_h=0 pad_w=0 dtype=[f32,f16,bf16]",
    NULL,
};

/* Not under racecheck (scripts/sanitize.sh runs sanitize_large under the
 * other three tools): ws's split K on 16-bit data, where cuBLAS's sm90
 * 16-bit GEMM of this K (its nvjet kernels, which explicit_* call) shows
 * racecheck hazards inside cuBLAS's own code; ws's stream split at 128 x 64
 * with the builder and at 128 x 128 (the smoke sweep's case: 68 tiles, runs
 * across the tiles' ends), past the sanitize sweep's size. */
static const char *const sanitize_large_lines[] = {
    "n=1 c_in=128 c_out=136 h=8 w=8 dtype=[f16,bf16]",
    "n=1 c_in=64 c_out=[64,72] h=68 w=128 dtype=f32",
    NULL,
};

static const kb_sweep sweeps[] = {
    {"smoke", "tiny cases across the correctness matrix", smoke},
    {"default", "ResNet-50-DCN layers at 800x1344 (3x3, DCNv2), f32 and f16", default_sweep},
    {"index_limits", "largest indices straddling 2^31 (int32 variants UNSUPPORTED past it)",
     index_limits},
    {"full", "scaling in n, c and h*w up to (64,256,128,128)", full},
    {"sanitize", "the fewest small cases reaching every branch (scripts/sanitize.sh)",
     sanitize_lines},
    {"sanitize_large", "ws's 16-bit split K and stream split: not under racecheck (sanitize.sh)",
     sanitize_large_lines},
    {NULL, NULL, NULL},
};

/* ---- validation (the parameters: deform_conv2d_params.c) ---- */

static int validate(const kb_case *c, kb_error *e) {
    kb_dcn_params p;
    return kb_dcn_params_from_case(c, &p, e);
}

static const char *const inputs[] = {"input", "offset", "mask", "weight", "bias", NULL};
static const char *const outputs[] = {"output", NULL};

static int describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, e) != KB_OK) return KB_ERR;
    int64_t K = p.kh * p.kw;
    int64_t s_in[4] = {p.n, p.c_in, p.h, p.w};
    int64_t s_off[4] = {p.n, 2 * p.offset_groups * K, p.ho, p.wo};
    int64_t s_mask[4] = {p.n, p.offset_groups * K, p.ho, p.wo};
    int64_t s_w[4] = {p.c_out, p.c_in / p.groups, p.kh, p.kw};
    int64_t s_out[4] = {p.n, p.c_out, p.ho, p.wo};
    /* An absent mask or bias is a 0-element tensor: the tensor list stays fixed. */
    if (!p.mask) s_mask[0] = 0;
    int64_t s_b[1] = {p.bias ? p.c_out : 0};
    in->count = out->count = 0;
    kb_tensors_add(in, "input", p.dtype, 4, s_in);
    kb_tensors_add(in, "offset", p.dtype, 4, s_off);
    kb_tensors_add(in, "mask", p.dtype, 4, s_mask);
    kb_tensors_add(in, "weight", p.dtype, 4, s_w);
    kb_tensors_add(in, "bias", p.dtype, 1, s_b);
    kb_tensors_add(out, "output", p.dtype, 4, s_out);
    return KB_OK;
}

/* ---- inputs ---- */

static void store(void *data, kb_dtype t, int64_t i, double v) {
    switch (t) {
    case KB_F16:
        ((uint16_t *)data)[i] = kb_f32_to_f16((float)v);
        break;
    case KB_BF16:
        ((uint16_t *)data)[i] = kb_f32_to_bf16((float)v);
        break;
    default:
        ((float *)data)[i] = (float)v;
        break;
    }
}

typedef enum { OFF_RANDN, OFF_UNIFORM, OFF_INTEGER, OFF_OOB, OFF_EDGES, OFF_ZERO } offset_dist;

static offset_dist parse_offsets(const char *s) {
    static const char *names[] = {"randn", "uniform", "integer", "out_of_bounds", "edges", "zero"};
    for (int i = 0; i < 6; i++)
        if (strcmp(s, names[i]) == 0) return (offset_dist)i;
    return OFF_RANDN;
}

/* One offset element: dy or dx of kernel tap t (row or column index) at output
 * coordinate o, along an axis of input extent L. */
static double offset_value(offset_dist d, double scale, uint64_t *rng, int64_t o, int64_t t,
                           int64_t stride, int64_t pad, int64_t dil, int64_t L) {
    double base = (double)(o * stride - pad + t * dil);
    switch (d) {
    case OFF_RANDN:
        return scale * kb_rng_normal(rng);
    case OFF_UNIFORM:
        return scale * (2 * kb_rng_uniform(rng) - 1);
    case OFF_INTEGER:
        return (double)kb_rng_int(rng, -(int64_t)scale, (int64_t)scale);
    case OFF_OOB: { /* every sample outside: beyond -1 or past L */
        double far = (double)(L + pad + dil * 8 + 1) + 4 * kb_rng_uniform(rng);
        return kb_rng_next(rng) & 1 ? far : -far;
    }
    case OFF_EDGES: { /* exactly on the boundaries of the sampling rule */
        const double at[] = {-1, -0.5, 0, (double)L - 1, (double)L - 0.5, (double)L};
        return at[kb_rng_int(rng, 0, 5)] - base;
    }
    case OFF_ZERO:
        return 0;
    }
    return 0;
}

enum { CHUNK = 1 << 16 };

static uint64_t chunk_seed(uint64_t seed, int tensor, int64_t chunk) {
    uint64_t s = seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(tensor + 1));
    s += 0xD1B54A32D192ED03ull * (uint64_t)chunk;
    kb_rng_next(&s);
    return s;
}

/* Each chunk of 64K elements has its own stream: the same values at any thread count. */
static int make_inputs(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, e) != KB_OK) return KB_ERR;
    offset_dist dist = parse_offsets(kb_str(c, "offsets"));
    double scale = kb_float(c, "offset_scale");
    const char *mv = kb_str(c, "mask_values");
    double w_std = sqrt(2.0 / (double)((p.c_in / p.groups) * p.kh * p.kw));
    int64_t K = p.kh * p.kw, P = p.ho * p.wo;
    for (int t = 0; t < in->count; t++) {
        kb_tensor *x = &in->t[t];
        int64_t n = kb_numel(x), chunks = (n + CHUNK - 1) / CHUNK;
#pragma omp parallel for schedule(static)
        for (int64_t ch = 0; ch < chunks; ch++) {
            uint64_t rng = chunk_seed(seed, t, ch);
            int64_t end = (ch + 1) * CHUNK < n ? (ch + 1) * CHUNK : n;
            for (int64_t i = ch * CHUNK; i < end; i++) {
                double v;
                if (t == 0) { /* input: feature map */
                    v = kb_rng_normal(&rng);
                } else if (t == 1) { /* offset [n, og*2K + 2k + {0: dy, 1: dx}, ho, wo] */
                    int64_t pix = i % P, chan = (i / P) % (2 * p.offset_groups * K);
                    int64_t k = (chan / 2) % K, is_x = chan & 1;
                    v = is_x ? offset_value(dist, scale, &rng, pix % p.wo, k % p.kw, p.stride_w,
                                            p.pad_w, p.dil_w, p.w)
                             : offset_value(dist, scale, &rng, pix / p.wo, k / p.kw, p.stride_h,
                                            p.pad_h, p.dil_h, p.h);
                } else if (t == 2) { /* mask */
                    v = strcmp(mv, "ones") == 0    ? 1.0
                        : strcmp(mv, "zeros") == 0 ? 0.0
                                                   : 1.5 * kb_rng_uniform(&rng) - 0.25;
                } else if (t == 3) { /* weight: Kaiming normal */
                    v = w_std * kb_rng_normal(&rng);
                } else { /* bias */
                    v = kb_rng_uniform(&rng) - 0.5;
                }
                store(x->data, x->dtype, i, v);
            }
        }
    }
    return KB_OK;
}

/* ---- comparison, cost, fuzz ---- */

/* A KB_INEXACT variant (explicit_torchvision_half: torchvision's f16 rule) is
 * held to the reference of its own rule, under the f16 bounds; its note says
 * how far that rule lands from the exact reference (why torchvision's f16
 * output fails the op's own check). */
static int compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                   const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    const kb_tensor *exact = kb_tensors_get(ref, "output");
    if (!(chk->flags & KB_INEXACT)) {
        kb_compare_dense(exact, kb_tensors_get(got, "output"), chk->prec, acc);
        return KB_OK;
    }
    kb_tensors own = {0};
    kb_error e = {""};
    kb_tensors_add(&own, "output", exact->dtype, exact->ndim, exact->shape);
    if (kb_tensors_alloc_host(&own, &e) != KB_OK ||
        kb_deform_conv2d_reference_tv_f16(c, in, &own, &e) != KB_OK) {
        snprintf(acc->note, sizeof acc->note, "torchvision's f16 rule reference: %.200s", e.msg);
        acc->mismatches = 1;
        acc->pass = 0;
        kb_tensors_free_host(&own);
        return KB_OK;
    }
    kb_compare_dense(&own.t[0], kb_tensors_get(got, "output"), chk->prec, acc);
    if (acc->note[0] != '\0') {
        char why[sizeof acc->note];
        memcpy(why, acc->note, sizeof why);
        snprintf(acc->note, sizeof acc->note, "vs torchvision's f16 rule: %.200s", why);
    } else {
        kb_accuracy rule;
        kb_accuracy_init(&rule);
        kb_compare_dense(exact, &own.t[0], KB_PREC_F16, &rule);
        snprintf(acc->note, sizeof acc->note,
                 "torchvision's f16 rule (f16 coordinates and blend) vs the exact reference: "
                 "rel-L2 %.3g, max abs %.3g (f16 bound %.1g: %s)",
                 rule.rel_l2, rule.max_abs, kb_rel_l2_bound(KB_PREC_F16),
                 rule.pass ? "within it" : "fails it");
    }
    kb_tensors_free_host(&own);
    return KB_OK;
}

/* 2 flops per multiply-add of the GEMM, plus the sampling: per sample point two
 * coordinate adds, 4 corner weights (4 mul + 2 sub), the blend (4 mul + 3 add)
 * and the mask (1 mul) = 16 flops. */
static kb_cost cost(const kb_case *c) {
    kb_cost k = {0, 0};
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, NULL) != KB_OK) return k;
    kb_dcn_sizes s = kb_dcn_sizes_of(&p);
    double macs = (double)p.n * (double)p.c_out * (double)(p.c_in / p.groups) *
                  (double)(p.kh * p.kw) * (double)(p.ho * p.wo);
    k.flops = 2 * macs + 16.0 * (double)p.n * (double)s.columns_img;
    double elems = (double)p.n * (double)(s.input_img + s.offset_img + s.output_img) +
                   (double)s.weight + (p.mask ? (double)p.n * (double)s.mask_img : 0) +
                   (p.bias ? (double)p.c_out : 0);
    k.bytes = elems * (double)kb_dtype_size(p.dtype);
    return k;
}

static void set_int(kb_case *c, const char *axis, int64_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    kb_case_set(c, axis, buf, NULL);
}

static int64_t pick_divisor(uint64_t *rng, int64_t of) {
    int64_t d;
    do d = kb_rng_int(rng, 1, of);
    while (of % d);
    return d;
}

/* A random small valid case: groups and offset groups divide c_in, output > 0
 * (some with kernels past the padded input). */
static void fuzz_case(uint64_t *rng, kb_case *c) {
    static const char *dtypes[] = {"f32", "f16", "bf16"};
    static const char *dists[] = {"randn", "uniform", "integer", "out_of_bounds", "edges"};
    kb_case_defaults(c, &kb_op_deform_conv2d);
    int64_t groups = kb_rng_int(rng, 1, 4), c_in = groups * kb_rng_int(rng, 1, 12);
    set_int(c, "n", kb_rng_int(rng, 0, 5));
    set_int(c, "groups", groups);
    set_int(c, "c_in", c_in);
    set_int(c, "c_out", groups * kb_rng_int(rng, 1, 20));
    set_int(c, "offset_groups", pick_divisor(rng, c_in));
    set_int(c, "kh", kb_rng_int(rng, 1, 5));
    set_int(c, "kw", kb_rng_int(rng, 1, 5));
    set_int(c, "stride_h", kb_rng_int(rng, 1, 3));
    set_int(c, "stride_w", kb_rng_int(rng, 1, 3));
    set_int(c, "pad_h", kb_rng_int(rng, 0, 3));
    set_int(c, "pad_w", kb_rng_int(rng, 0, 3));
    set_int(c, "dil_h", kb_rng_int(rng, 1, 2));
    set_int(c, "dil_w", kb_rng_int(rng, 1, 2));
    /* h and w from 1 up, past the kernel where the output size still holds a row */
    const char *const ext[2][5] = {{"h", "kh", "stride_h", "pad_h", "dil_h"},
                                   {"w", "kw", "stride_w", "pad_w", "dil_w"}};
    for (int a = 0; a < 2; a++) {
        int64_t k = kb_int(c, ext[a][1]), s = kb_int(c, ext[a][2]), pad = kb_int(c, ext[a][3]);
        int64_t lo = kb_int(c, ext[a][4]) * (k - 1) + 1 - 2 * pad - s + 1; /* the least: ho 1 */
        set_int(c, ext[a][0], kb_rng_int(rng, lo > 1 ? lo : 1, 30));
    }
    set_int(c, "mask", kb_rng_int(rng, 0, 1));
    set_int(c, "bias", kb_rng_int(rng, 0, 1));
    kb_case_set(c, "dtype", dtypes[kb_rng_int(rng, 0, 2)], NULL);
    kb_case_set(c, "offsets", dists[kb_rng_int(rng, 0, 4)], NULL);
}

/* The baseline: the B rows of the op's variant list, as "name,name". */
#define X(NAME, FLAGS, SUMMARY)
#define B(NAME, FLAGS, SUMMARY) "," #NAME
static const char baselines[] =
#include "variants/deform_conv2d/variants.def"
    ;
#undef X
#undef B

const kb_op kb_op_deform_conv2d = {
    .name = "deform_conv2d",
    .summary = "deformable convolution (torchvision deform_conv2d, DCNv1/v2), NCHW",
    .axes = axes,
    .sweeps = sweeps,
    .inputs = inputs,
    .outputs = outputs,
    .baseline = baselines + 1,
    .validate = validate,
    .describe = describe,
    .make_inputs = make_inputs,
    .reference = kb_deform_conv2d_reference,
    .compare = compare,
    .cost = cost,
    .fuzz_case = fuzz_case,
};
