/* preprocess.c — the preprocess op: axes, sweeps, validation, inputs, cost.
 *
 *   kbench list preprocess
 *   kbench run preprocess --sweep default
 *
 * Input `image` u8 [n, in_h, in_w, 3] (BGR, as OpenCV decodes); output `out`
 * [n, 3, out_h, out_w] f32 or f16 (RGB planes, (v/255 - mean)/std). The
 * reference is reference/preprocess.c; variants are in variants/preprocess/.
 */
#include "preprocess.h"
#include "image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kb_axis axes[] = {
    {"n", KB_AXIS_INT, "1", 1, 256, NULL, "images in the batch"},
    {"in_h", KB_AXIS_INT, "1080", 1, 8192, NULL, "input height"},
    {"in_w", KB_AXIS_INT, "1920", 1, 8192, NULL, "input width"},
    {"out_h", KB_AXIS_INT, "640", 1, 8192, NULL, "output height"},
    {"out_w", KB_AXIS_INT, "640", 1, 8192, NULL, "output width"},
    {"interp", KB_AXIS_ENUM, "bilinear", 0, 0, "nearest,bilinear,letterbox",
     "resize rule (OpenCV nearest / half-pixel bilinear; YOLOv5 letterbox warp-affine)"},
    {"dtype", KB_AXIS_ENUM, "f32", 0, 0, "f32,f16", "output element type"},
    {"norm", KB_AXIS_ENUM, "imagenet", 0, 0, "imagenet,unit",
     "imagenet mean/std, or unit (v/255: mean 0, std 1, as YOLOv5)"},
    {"image", KB_AXIS_STRING, "synthetic", 0, 0, NULL,
     "synthetic, or a JPEG/PNG path whose content is cropped/mirrored to in_h x in_w (in a "
     "sweep file, relative to the working directory, else to the file's folder)"},
    {NULL},
};

static const char *const smoke[] = {
    "n=[1,2] in_h=37 in_w=53 out_h=17 out_w=29 interp=[nearest,bilinear,letterbox] dtype=[f32,f16]",
    "in_h=4 in_w=4 out_h=2 out_w=2 interp=[nearest,bilinear,letterbox]",
    "in_h=2 in_w=2 out_h=3 out_w=5 interp=[nearest,bilinear,letterbox]",
    "n=3 in_h=500 in_w=500 out_h=480 out_w=480 interp=[nearest,bilinear,letterbox] norm=unit",
    "in_h=128 in_w=128 out_h=160 out_w=160 interp=[nearest,bilinear,letterbox]",
    "in_h=1 in_w=7 out_h=3 out_w=2 interp=[nearest,bilinear,letterbox]",
    "in_h=333 in_w=517 out_h=256 out_w=252 interp=[nearest,bilinear,letterbox] "
    "image=datasets/images/astronaut.jpg",
    /* an upscale where OpenCV's double scale and the exact rational differ:
     * rows 161 and 322 (of 644), column 152 (of 304) */
    "in_h=128 in_w=226 out_h=644 out_w=304 interp=nearest dtype=[f32,f16]",
    NULL,
};

static const char *const dflt[] = {
    "n=[1,8,16] in_h=1080 in_w=1920 out_h=640 out_w=640 interp=[nearest,bilinear,letterbox]",
    "n=16 in_h=1080 in_w=1920 out_h=640 out_w=640 interp=[bilinear,letterbox] dtype=f16",
    "n=[1,8] in_h=720 in_w=1280 out_h=640 out_w=640 interp=[nearest,bilinear,letterbox]",
    "n=[1,8] in_h=2160 in_w=3840 out_h=1024 out_w=1024 interp=[bilinear,letterbox]",
    "n=[1,8] in_h=320 in_w=320 out_h=640 out_w=640 interp=[bilinear,letterbox]",
    NULL,
};

static const char *const full[] = {
    "n[pow2]=[0:5] in_h=1080 in_w=1920 out_h=640 out_w=640 interp=[nearest,bilinear,letterbox] "
    "dtype=[f32,f16]",
    "n=[1,8] in_h=[240:2160:240] in_w=1920 out_h=640 out_w=640 interp=[bilinear,letterbox]",
    "n=8 in_h=1080 in_w=1920 out_h=[128:1024:128] out_w=[128:1024:128] interp=bilinear",
    NULL,
};

/* The fewest cases reaching every branch of every variant under
 * compute-sanitizer (scripts/sanitize.sh): each rule and dtype, the vec
 * kernels' 16-byte stores (out_w % 4 == 0) and their scalar tail. */
static const char *const sanitize_lines[] = {
    /* downscale, a batch, out_w = 29: the vec kernels' 1-pixel tail */
    "n=2 in_h=37 in_w=53 out_h=17 out_w=29 interp=[nearest,bilinear,letterbox] dtype=[f32,f16]",
    /* upscale, out_w = 8: whole 4-pixel groups, vector stores */
    "in_h=2 in_w=3 out_h=5 out_w=8 interp=[nearest,bilinear,letterbox] dtype=[f32,f16]",
    /* one input row; letterbox borders above and below */
    "in_h=1 in_w=7 out_h=3 out_w=2 interp=[nearest,bilinear,letterbox]",
    /* one input column: letterbox borders left and right */
    "in_h=7 in_w=1 out_h=4 out_w=4 interp=letterbox",
    NULL,
};

static const kb_sweep sweeps[] = {
    {"smoke", "tiny and odd sizes, every rule and dtype (seconds)", smoke},
    {"default", "camera frames to network inputs: 1080p/720p/4K -> 640/1024, 320 -> 640", dflt},
    {"full", "batch, input height and output size scaling", full},
    {"sanitize", "the fewest tiny cases reaching every rule, dtype and store (sanitize.sh)",
     sanitize_lines},
    {NULL, NULL, NULL},
};

static const char *const inputs[] = {"image", NULL};
static const char *const outputs[] = {"out", NULL};

static int validate(const kb_case *c, kb_error *e) {
    kb_pp_params p = kb_pp_params_of(c);
    double in_bytes = (double)p.n * p.in_h * p.in_w * 3;
    double out_bytes = (double)p.n * 3 * p.out_h * p.out_w * kb_dtype_size(p.out_dtype);
    if (in_bytes + out_bytes > 64.0 * (1u << 30))
        return kb_fail(e, "n=%d in %dx%d out %dx%d: %.1f GiB of tensors (limit 64 GiB)", p.n,
                       p.in_h, p.in_w, p.out_h, p.out_w, (in_bytes + out_bytes) / (1u << 30));
    const char *img = kb_str(c, "image");
    if (strcmp(img, "synthetic") != 0) {
        char path[2 * KB_STR + 2];
        kb_error why;
        if (kb_case_path(c, "image", path, sizeof path, e) != KB_OK) return KB_ERR;
        /* why starts with the file's path: once when it is the value itself */
        if (kb_image_probe(path, &why) != KB_OK)
            return strcmp(path, img) == 0 ? kb_fail(e, "image=%s", why.msg)
                                          : kb_fail(e, "image=%s: %s", img, why.msg);
    }
    return KB_OK;
}

static int describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    kb_pp_params p = kb_pp_params_of(c);
    int64_t ishape[4] = {p.n, p.in_h, p.in_w, 3};
    int64_t oshape[4] = {p.n, 3, p.out_h, p.out_w};
    kb_tensors_add(in, "image", KB_U8, 4, ishape);
    kb_tensors_add(out, "out", p.out_dtype, 4, oshape);
    (void)e;
    return KB_OK;
}

/* A camera-like frame: smooth illumination gradients, a few flat objects
 * with hard edges (where interpolation rules differ most), sensor noise. */
static void synthetic_image(uint8_t *img, int h, int w, uint64_t *rng) {
    double gx[3], gy[3], base[3];
    for (int ch = 0; ch < 3; ch++) {
        base[ch] = 40 + 120 * kb_rng_uniform(rng);
        gx[ch] = (kb_rng_uniform(rng) - 0.5) * 120 / (w > 1 ? w : 1);
        gy[ch] = (kb_rng_uniform(rng) - 0.5) * 120 / (h > 1 ? h : 1);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < 3; ch++) {
                double v = base[ch] + gx[ch] * x + gy[ch] * y + 6 * kb_rng_normal(rng);
                img[((size_t)y * w + x) * 3 + ch] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    int objects = 3 + (int)kb_rng_int(rng, 0, 5);
    for (int o = 0; o < objects; o++) {
        int x0 = (int)kb_rng_int(rng, 0, w - 1), y0 = (int)kb_rng_int(rng, 0, h - 1);
        int x1 = x0 + 1 + (int)kb_rng_int(rng, 0, w / 3),
            y1 = y0 + 1 + (int)kb_rng_int(rng, 0, h / 3);
        uint8_t col[3];
        for (int ch = 0; ch < 3; ch++) col[ch] = (uint8_t)kb_rng_int(rng, 0, 255);
        for (int y = y0; y < y1 && y < h; y++)
            for (int x = x0; x < x1 && x < w; x++) memcpy(&img[((size_t)y * w + x) * 3], col, 3);
    }
}

static int make_inputs(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e) {
    kb_pp_params p = kb_pp_params_of(c);
    uint8_t *img = kb_tensors_find(in, "image")->data;
    size_t one = (size_t)p.in_h * p.in_w * 3;
    const char *path = kb_str(c, "image");
    if (strcmp(path, "synthetic") == 0) {
        uint64_t rng = seed;
        for (int i = 0; i < p.n; i++) synthetic_image(img + i * one, p.in_h, p.in_w, &rng);
        return KB_OK;
    }
    int h, w;
    uint8_t *photo = NULL;
    char file[2 * KB_STR + 2];
    if (kb_case_path(c, "image", file, sizeof file, e) != KB_OK ||
        kb_image_load(file, &h, &w, &photo, e) != KB_OK)
        return KB_ERR;
    /* Every image of the batch is the photo, shifted by a seeded offset so
     * that the images differ. */
    uint64_t rng = seed;
    for (int i = 0; i < p.n; i++) {
        kb_image_fit(photo, h, w, img + i * one, p.in_h, p.in_w);
        if (i > 0) {
            size_t shift = (size_t)kb_rng_int(&rng, 1, (int64_t)(one / 3)) * 3;
            uint8_t *tmp = malloc(one);
            if (!tmp) {
                free(photo);
                return kb_fail(e, "out of host memory");
            }
            memcpy(tmp, img + i * one + shift, one - shift);
            memcpy(tmp + one - shift, img + i * one, shift);
            memcpy(img + i * one, tmp, one);
            free(tmp);
        }
    }
    free(photo);
    return KB_OK;
}

int kb_preprocess_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);

/* Output pixels of one image that read another source pixel under the
 * float-scale nearest rule than under OpenCV's: whole rows and columns. */
static int64_t nn_rule_differences(const kb_pp_params *p) {
    float sy = kb_pp_nearest_scale_f32(p->in_h, p->out_h);
    float sx = kb_pp_nearest_scale_f32(p->in_w, p->out_w);
    int64_t rows = 0, cols = 0;
    for (int y = 0; y < p->out_h; y++)
        rows += kb_pp_nearest_src(y, p->in_h, p->out_h) != kb_pp_nearest_src_f32(y, sy, p->in_h);
    for (int x = 0; x < p->out_w; x++)
        cols += kb_pp_nearest_src(x, p->in_w, p->out_w) != kb_pp_nearest_src_f32(x, sx, p->in_w);
    return rows * p->out_w + cols * p->out_h - rows * cols;
}

/* A KB_INEXACT nearest variant (the float-scale rule of the CUDA ports) is
 * held to the reference of its own rule; its note counts the pixels where
 * that rule departs from OpenCV's. */
static int compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                   const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    const kb_precision prec = chk->prec;
    const kb_tensor *want = kb_tensors_get(ref, "out");
    kb_pp_params p = kb_pp_params_of(c);
    if (!(chk->flags & KB_INEXACT) || p.interp != KB_PP_NEAREST) {
        kb_compare_dense(want, kb_tensors_get(got, "out"), prec, acc);
        return KB_OK;
    }
    kb_tensor own = *want;
    own.data = malloc(kb_nbytes(want));
    if (!own.data) {
        snprintf(acc->note, sizeof acc->note, "float-scale nearest reference: out of host memory");
        acc->mismatches = 1;
        acc->pass = 0;
        return KB_OK;
    }
    p.nn_rule = KB_PP_NN_FLOAT_SCALE;
    kb_pp_reference_params(&p, kb_tensors_get(in, "image")->data, &own);
    kb_compare_dense(&own, kb_tensors_get(got, "out"), prec, acc);
    free(own.data);
    if (acc->note[0] == '\0')
        snprintf(acc->note, sizeof acc->note,
                 "float-scale nearest: %lld of %lld output pixels read another source pixel "
                 "than OpenCV's rule",
                 (long long)(p.n * nn_rule_differences(&p)), (long long)p.n * p.out_h * p.out_w);
    return KB_OK;
}

/* Fewest bytes: each input byte read once, each output element written once.
 * Flops: the bilinear blend (~11 per channel value) and the normalisation (2). */
static kb_cost cost(const kb_case *c) {
    kb_pp_params p = kb_pp_params_of(c);
    double outs = (double)p.n * 3 * p.out_h * p.out_w;
    kb_cost k;
    k.bytes = (double)p.n * p.in_h * p.in_w * 3 + outs * (double)kb_dtype_size(p.out_dtype);
    k.flops = outs * (p.interp == KB_PP_NEAREST ? 2 : 13);
    return k;
}

static void fuzz_case(uint64_t *rng, kb_case *c) {
    static const char *const interps[] = {"nearest", "bilinear", "letterbox"};
    char v[32];
    const char *ax[5] = {"n", "in_h", "in_w", "out_h", "out_w"};
    const int64_t hi[5] = {4, 700, 700, 700, 700};
    for (int i = 0; i < 5; i++) {
        snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 1, hi[i]));
        kb_case_set(c, ax[i], v, NULL);
    }
    kb_case_set(c, "interp", interps[kb_rng_int(rng, 0, 2)], NULL);
    kb_case_set(c, "dtype", kb_rng_int(rng, 0, 1) ? "f16" : "f32", NULL);
    kb_case_set(c, "norm", kb_rng_int(rng, 0, 1) ? "unit" : "imagenet", NULL);
}

/* The baseline: the B rows of the op's variant list, as "name,name". */
#define X(NAME, FLAGS, SUMMARY)
#define B(NAME, FLAGS, SUMMARY) "," #NAME
static const char baselines[] =
#include "variants/preprocess/variants.def"
    ;
#undef X
#undef B

const kb_op kb_op_preprocess = {
    .name = "preprocess",
    .summary = "u8 BGR HWC -> normalised RGB CHW: nearest, bilinear, YOLOv5 letterbox",
    .axes = axes,
    .sweeps = sweeps,
    .inputs = inputs,
    .outputs = outputs,
    .baseline = baselines + 1,
    .validate = validate,
    .describe = describe,
    .make_inputs = make_inputs,
    .reference = kb_preprocess_reference,
    .compare = compare,
    .cost = cost,
    .fuzz_case = fuzz_case,
};
