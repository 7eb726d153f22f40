/* yolo_decode.c — the yolo_decode op: axes, sweeps, input generators,
 * comparison, cost. Semantics: kernels/yolo_decode.h.
 *
 *   kbench check yolo_decode --sweep smoke     every variant against the CPU reference
 *   kbench run yolo_decode --sweep default     b in {1, 8, 32} x 25200 x 80, realistic
 *
 * Exact variants must reproduce count and dets (boxes within 1e-4 px, scores
 * within 1e-6, equal classes, equal order). A KB_NONDETERMINISTIC variant is
 * exact on images where at most max_det predictions qualify; on the others
 * (atomic compaction keeps an arbitrary max_det) the difference goes to the
 * note. A KB_INEXACT variant (fast NMS) is held to the fast-NMS reference;
 * its note says how many boxes greedy keeps that it drops.
 */
#include "yolo_decode.h"
#include "preprocess.h" /* kb_pp_letterbox_d2i */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kb_axis yolo_axes[] = {
    {"b", KB_AXIS_INT, "1", 1, 32, NULL, "images"},
    {"n", KB_AXIS_INT, "25200", 1, 1000000, NULL,
     "predictions per image (6300: 320 px, 25200: 640 px, 102000: 1280 px)"},
    {"c", KB_AXIS_INT, "80", 1, 1000, NULL, "classes"},
    {"conf", KB_AXIS_FLOAT, "0.25", 0, 1, NULL, "keep obj >= conf and obj * max_cls >= conf"},
    {"iou", KB_AXIS_FLOAT, "0.45", 0, 1, NULL, "suppress when IoU > iou (same class)"},
    {"max_det", KB_AXIS_INT, "1024", 1, 4096, NULL, "candidates kept before NMS, best first"},
    {"max_out", KB_AXIS_INT, "300", 1, 4096, NULL, "detections kept after NMS"},
    {"src_h", KB_AXIS_INT, "1080", 1, 16384, NULL, "source image height (letterbox)"},
    {"src_w", KB_AXIS_INT, "1920", 1, 16384, NULL, "source image width (letterbox)"},
    {"net", KB_AXIS_INT, "640", 32, 4096, NULL, "network input size (square)"},
    {"dist", KB_AXIS_ENUM, "realistic", 0, 0, "realistic,dense",
     "realistic: objectness sigmoid(N(-6,2)), 5-30 objects of 5-40 neighbours; dense: most "
     "predictions qualify (more than max_det), scores on few levels (ties)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static const char *const smoke_lines[] = {
    "b=[1,3] n=[1,777,6300] c=80",
    "b=2 n=3000 c=[1,7] dist=dense max_det=[64,1024] max_out=[10,300]",
    "b=2 n=2000 conf=0.999",
    "b=4 n=6300 iou=[0.3,0.7] src_h=[480,1280] src_w=640",
    NULL,
};
static const char *const default_lines[] = {
    "b=[1,8,32] n=25200 c=80",
    NULL,
};
static const char *const dense_lines[] = {
    "b=[1,8] n=25200 dist=dense",
    NULL,
};
static const char *const sizes_lines[] = {
    "b=[1,8] n=[6300,25200,102000]",
    NULL,
};
static const kb_sweep yolo_sweeps[] = {
    {"smoke", "tiny cases: ties, zero candidates, more than max_det, clipping", smoke_lines},
    {"default", "the peer cases: b in {1, 8, 32} x 25200 x 80, realistic", default_lines},
    {"dense", "more than max_det qualify: the compaction's cap and ties", dense_lines},
    {"sizes", "320 / 640 / 1280 px networks: n in {6300, 25200, 102000}", sizes_lines},
    {NULL, NULL, NULL},
};

static const char *const yolo_inputs[] = {"pred", "d2i", NULL};
static const char *const yolo_outputs[] = {"count", "dets", NULL};

kb_yolo_params kb_yolo_params_of(const kb_case *c) {
    kb_yolo_params p;
    p.b = (int)kb_int(c, "b");
    p.n = (int)kb_int(c, "n");
    p.c = (int)kb_int(c, "c");
    p.max_det = (int)kb_int(c, "max_det");
    p.max_out = (int)kb_int(c, "max_out");
    p.conf = (float)kb_float(c, "conf");
    p.iou = (float)kb_float(c, "iou");
    p.src_w = (float)kb_int(c, "src_w");
    p.src_h = (float)kb_int(c, "src_h");
    return p;
}

static int yolo_validate(const kb_case *c, kb_error *e) {
    int64_t b = kb_int(c, "b"), n = kb_int(c, "n"), ch = kb_int(c, "c");
    if ((double)b * (double)n * (double)(5 + ch) > 2147483647.0)
        return kb_fail(e, "yolo_decode: b=%lld x n=%lld x (5+c=%lld) exceeds INT32_MAX floats",
                       (long long)b, (long long)n, (long long)(5 + ch));
    return KB_OK;
}

static int yolo_describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    int64_t b = kb_int(c, "b"), n = kb_int(c, "n"), ch = kb_int(c, "c");
    int64_t pred_shape[3] = {b, n, 5 + ch}, d2i_shape[2] = {b, 6};
    int64_t dets_shape[3] = {b, kb_int(c, "max_out"), 6};
    kb_tensors_add(in, "pred", KB_F32, 3, pred_shape);
    kb_tensors_add(in, "d2i", KB_F32, 2, d2i_shape);
    kb_tensors_add(out, "count", KB_I32, 1, &b);
    kb_tensors_add(out, "dets", KB_F32, 3, dets_shape);
    (void)e;
    return KB_OK;
}

/* ---- input generators ---- */

static double sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

/* A background prediction: a random box, tiny objectness, low class scores. */
static void background(uint64_t *rng, int c, double net, float *row) {
    row[0] = (float)(net * kb_rng_uniform(rng));
    row[1] = (float)(net * kb_rng_uniform(rng));
    row[2] = (float)(4 + net / 4 * kb_rng_uniform(rng));
    row[3] = (float)(4 + net / 4 * kb_rng_uniform(rng));
    row[4] = (float)sigmoid(-6 + 2 * kb_rng_normal(rng));
    for (int k = 0; k < c; k++) row[5 + k] = (float)sigmoid(-6 + 1.5 * kb_rng_normal(rng));
}

/* 5-30 objects, each a cluster of 5-40 predictions at random places in the
 * tensor with jittered boxes, high objectness and the object's class ahead;
 * a quarter of a cluster's members copy another member's scores (score ties)
 * and some rows tie two classes (argmax ties). */
static void realistic(uint64_t *rng, int n, int c, double net, double src_w, double src_h,
                      float *pred) {
    size_t stride = (size_t)(5 + c);
    for (int i = 0; i < n; i++) background(rng, c, net, pred + (size_t)i * stride);
    /* Objects centred in the letterboxed image, not in its padding (their
     * boxes may still straddle it: clipped when mapped back). */
    double s = fmin(net / src_w, net / src_h), cw = src_w * s, ch = src_h * s;
    int objects = (int)kb_rng_int(rng, 5, 30);
    for (int o = 0; o < objects; o++) {
        double cx = (net - cw) / 2 + cw * kb_rng_uniform(rng);
        double cy = (net - ch) / 2 + ch * kb_rng_uniform(rng);
        double w = 8 + net / 3 * kb_rng_uniform(rng), h = 8 + net / 3 * kb_rng_uniform(rng);
        double conf = 0.5 + 0.45 * kb_rng_uniform(rng);
        int klass = (int)kb_rng_int(rng, 0, c - 1), members = (int)kb_rng_int(rng, 5, 40);
        int64_t first = -1;
        for (int m = 0; m < members; m++) {
            int64_t i = kb_rng_int(rng, 0, n - 1);
            float *row = pred + (size_t)i * stride;
            double jx = 0.08 * kb_rng_normal(rng), jy = 0.08 * kb_rng_normal(rng);
            double jw = 0.12 * kb_rng_normal(rng), jh = 0.12 * kb_rng_normal(rng);
            row[0] = (float)(cx + jx * w);
            row[1] = (float)(cy + jy * h);
            row[2] = (float)(w * exp(jw));
            row[3] = (float)(h * exp(jh));
            double d = exp(-(jx * jx + jy * jy + jw * jw + jh * jh) * 6);
            row[4] = (float)(conf * d + 0.05 * kb_rng_uniform(rng));
            row[5 + klass] = (float)(0.6 + 0.39 * kb_rng_uniform(rng));
            if (c > 1 && kb_rng_uniform(rng) < 0.15) /* an argmax tie */
                row[5 + (klass + 1 + kb_rng_int(rng, 0, c - 2)) % c] = row[5 + klass];
            if (first >= 0 && kb_rng_uniform(rng) < 0.25) { /* a score tie */
                const float *f = pred + (size_t)first * stride;
                memcpy(row + 4, f + 4, (size_t)(c + 1) * sizeof *row);
            }
            if (first < 0) first = i;
        }
    }
}

/* Most predictions qualify: objectness and class scores on 8 levels. */
static void dense(uint64_t *rng, int n, int c, double net, float *pred) {
    size_t stride = (size_t)(5 + c);
    for (int i = 0; i < n; i++) {
        float *row = pred + (size_t)i * stride;
        background(rng, c, net, row);
        row[4] = (float)kb_rng_int(rng, 5, 12) / 12.0f;
        row[5 + kb_rng_int(rng, 0, c - 1)] = (float)kb_rng_int(rng, 4, 12) / 12.0f;
    }
}

static int yolo_make_inputs(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e) {
    kb_yolo_params p = kb_yolo_params_of(c);
    int net = (int)kb_int(c, "net");
    float *pred = kb_tensors_find(in, "pred")->data, *d2i = kb_tensors_find(in, "d2i")->data;
    int is_dense = strcmp(kb_str(c, "dist"), "dense") == 0;
    uint64_t rng = seed;
    for (int img = 0; img < p.b; img++) {
        float *im = pred + (size_t)img * (size_t)p.n * (size_t)(5 + p.c);
        if (is_dense)
            dense(&rng, p.n, p.c, net, im);
        else
            realistic(&rng, p.n, p.c, net, p.src_w, p.src_h, im);
        kb_pp_letterbox_d2i((int)p.src_w, (int)p.src_h, net, net, d2i + 6 * img);
    }
    (void)e;
    return KB_OK;
}

/* ---- comparison ---- */

/* Mismatching rows of one image (count difference included). */
static int64_t compare_image(const int32_t rn, const float *rd, int32_t gn, const float *gd,
                             int max_out, int64_t *unwritten, char *why, size_t why_size) {
    if (gn < 0 || gn > max_out) {
        *unwritten += gn == -1;
        snprintf(why, why_size, "count %d outside [0, %d] (expected %d)", gn, max_out, rn);
        return rn > 0 ? rn : 1;
    }
    int64_t bad = llabs((long long)gn - rn);
    int common = gn < rn ? gn : rn, first = -1;
    for (int k = 0; k < common; k++) {
        const float *a = rd + 6 * k, *g = gd + 6 * k;
        int ok = 1;
        for (int j = 0; j < 4; j++) {
            if (isnan(g[j])) ++*unwritten;
            ok &= fabsf(a[j] - g[j]) <= 1e-4f + 2e-7f * fabsf(a[j]);
        }
        ok &= fabsf(a[4] - g[4]) <= 1e-6f && a[5] == g[5];
        if (!ok) {
            bad++;
            if (first < 0) first = k;
        }
    }
    if (first >= 0)
        snprintf(why, why_size,
                 "count %d vs %d; first difference at det %d: score %.7g class %g, expected "
                 "score %.7g class %g",
                 gn, rn, first, gd[6 * first + 4], gd[6 * first + 5], rd[6 * first + 4],
                 rd[6 * first + 5]);
    else if (bad)
        snprintf(why, why_size, "count %d vs %d expected, the common prefix equal", gn, rn);
    return bad;
}

static int yolo_compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                        const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    kb_yolo_params p = kb_yolo_params_of(c);
    const int32_t *rc = kb_tensors_get(ref, "count")->data;
    const float *rd = kb_tensors_get(ref, "dets")->data;
    const int32_t *gc = kb_tensors_get(got, "count")->data;
    const float *gd = kb_tensors_get(got, "dets")->data;
    int inexact = (chk->flags & KB_INEXACT) != 0;
    int nondet = (chk->flags & KB_NONDETERMINISTIC) != 0;
    kb_tensors fast = {0};
    int64_t lost = 0;
    acc->tolerance = 0;
    if (inexact) { /* the fast-NMS reference on the same candidates */
        kb_tensors tmp_in = {0};
        yolo_describe(c, &tmp_in, &fast, NULL);
        if (kb_tensors_alloc_host(&fast, NULL) != KB_OK ||
            kb_yolo_decode_run_ref(c, in, &fast, 1, NULL) != KB_OK) {
            snprintf(acc->note, sizeof acc->note, "fast-NMS reference: out of host memory");
            acc->pass = 0;
            acc->mismatches = 1;
            kb_tensors_free_host(&fast);
            return KB_OK;
        }
        const int32_t *fc = kb_tensors_get(&fast, "count")->data;
        for (int img = 0; img < p.b; img++) lost += rc[img] - fc[img];
        rc = fc;
        rd = kb_tensors_get(&fast, "dets")->data;
    }
    int64_t bad = 0, excused = 0, over = 0;
    char why[200] = "";
    for (int img = 0; img < p.b; img++) {
        char w[200] = "";
        size_t off = (size_t)img * (size_t)p.max_out * 6;
        int64_t m = compare_image(rc[img], rd + off, gc[img], gd + off, p.max_out, &acc->unwritten,
                                  w, sizeof w);
        if (!m) continue;
        if (nondet && kb_yolo_qualifying(c, in, img) > p.max_det) {
            excused += m;
            over++;
            continue;
        }
        if (!bad) snprintf(why, sizeof why, "image %d: %s", img, w);
        bad += m;
    }
    acc->mismatches = bad;
    if (bad) {
        acc->pass = 0;
        snprintf(acc->note, sizeof acc->note, "%s", why);
    } else if (excused)
        snprintf(acc->note, sizeof acc->note,
                 "%lld dets differ on %lld images with > max_det=%d candidates (atomic "
                 "compaction keeps an arbitrary max_det)%s",
                 (long long)excused, (long long)over, p.max_det, inexact ? "; fast NMS" : "");
    else if (inexact) {
        snprintf(acc->note, sizeof acc->note, "fast NMS drops %lld boxes greedy keeps",
                 (long long)lost);
        acc->dropped = lost;
    }
    if (inexact) kb_tensors_free_host(&fast);
    return KB_OK;
}

/* The fewest bytes: the prediction tensor and d2i once, the outputs once. */
static kb_cost yolo_cost(const kb_case *c) {
    double b = (double)kb_int(c, "b"), n = (double)kb_int(c, "n"), ch = (double)kb_int(c, "c");
    kb_cost k = {0, b * n * (5 + ch) * 4 + b * 24 + b * 4 + b * (double)kb_int(c, "max_out") * 24};
    return k;
}

static void yolo_fuzz_case(uint64_t *rng, kb_case *c) {
    char buf[64];
#define SET_INT(axis, lo, hi)                                                                      \
    snprintf(buf, sizeof buf, "%lld", (long long)kb_rng_int(rng, lo, hi));                         \
    kb_case_set(c, axis, buf, NULL)
    SET_INT("b", 1, 4);
    SET_INT("n", 1, 4000);
    SET_INT("c", 1, 20);
    SET_INT("max_det", 1, 1500);
    SET_INT("max_out", 1, 400);
    SET_INT("src_h", 100, 2000);
    SET_INT("src_w", 100, 2000);
#undef SET_INT
    snprintf(buf, sizeof buf, "%.3f", 0.05 + 0.6 * kb_rng_uniform(rng));
    kb_case_set(c, "conf", buf, NULL);
    snprintf(buf, sizeof buf, "%.3f", 0.1 + 0.8 * kb_rng_uniform(rng));
    kb_case_set(c, "iou", buf, NULL);
    kb_case_set(c, "dist", kb_rng_int(rng, 0, 3) ? "realistic" : "dense", NULL);
}

const kb_op kb_op_yolo_decode = {
    .name = "yolo_decode",
    .summary = "YOLOv5 post-processing: filter, argmax, inverse letterbox, max_det, class NMS",
    .axes = yolo_axes,
    .sweeps = yolo_sweeps,
    .inputs = yolo_inputs,
    .outputs = yolo_outputs,
    .baseline = "atomic_bitmask",
    .validate = yolo_validate,
    .describe = yolo_describe,
    .make_inputs = yolo_make_inputs,
    .reference = kb_yolo_decode_reference,
    .compare = yolo_compare,
    .cost = yolo_cost,
    .fuzz_case = yolo_fuzz_case,
};
