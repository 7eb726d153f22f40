/* yolo_decode.c — the yolo_decode op: axes, sweeps, input generators,
 * comparison, cost. Semantics: include/kbench/ops/yolo_decode.h.
 *
 *   kbench check yolo_decode --sweep smoke     every variant against the CPU reference
 *   kbench run yolo_decode --sweep default     b in {1, 8, 32} x 25200 x 80, realistic
 *
 * Exact variants must reproduce count and dets (boxes within 1e-4 px, scores
 * within 1e-6, equal classes, equal order). A KB_NONDETERMINISTIC variant is
 * exact on images where at most max_det predictions qualify; on the others
 * (atomic compaction keeps an arbitrary max_det) the difference goes to the
 * note. A KB_INEXACT variant (fast NMS) is held to the fast-NMS rule, equal
 * scores ordered as the variant orders them (fast_check_image); its note
 * counts the boxes greedy keeps that it drops and those it keeps that greedy
 * drops.
 */
#include "yolo_decode.h"
#include "nms.h"        /* kb_nms_greedy_ref */
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
/* The fewest cases reaching every branch of every variant under
 * compute-sanitizer (scripts/sanitize.sh): every stage with no, few and more
 * than max_det candidates; atomic_bitmask's nms blockwalk over max_det boxes
 * (the small walk up to 1024, the block walk, x-pruned from 4033). */
static const char *const sanitize_lines[] = {
    /* one prediction; 80 classes: up to 3 per lane in the warp's class scan */
    "b=2 n=[1,777] c=80",
    /* no candidate in any image */
    "b=2 n=2000 conf=0.999",
    /* more candidates than max_det (atomic slots dropped, fused's select),
     * max_out ends greedy NMS; 1 and 7 classes */
    "b=2 n=3000 c=[1,7] dist=dense max_det=64 max_out=10",
    /* 9000 > 8192 predictions: fused loads twice; over max_det = 1100 (the
     * block walk, 18 words) */
    "n=9000 dist=dense max_det=1100",
    /* realistic scores, 3 images, max_det 1024: the small walk */
    "b=3 n=6300 iou=0.3",
    NULL,
};
/* max_det = 4096, too slow for racecheck: sanitize.sh runs it under the other
 * three tools. */
static const char *const sanitize_large_lines[] = {
    /* over max_det = 4096: x-pruned, 64 words; 136 KB stage */
    "n=9000 dist=dense max_det=4096",
    NULL,
};
static const kb_sweep yolo_sweeps[] = {
    {"smoke", "tiny cases: ties, zero candidates, more than max_det, clipping", smoke_lines},
    {"default", "the peer cases: b in {1, 8, 32} x 25200 x 80, realistic", default_lines},
    {"dense", "more than max_det qualify: the compaction's cap and ties", dense_lines},
    {"sizes", "320 / 640 / 1280 px networks: n in {6300, 25200, 102000}", sizes_lines},
    {"sanitize", "the fewest cases reaching every stage and walk branch (sanitize.sh)",
     sanitize_lines},
    {"sanitize_large", "sanitize's max_det = 4096: not under racecheck (sanitize.sh)",
     sanitize_large_lines},
    {NULL, NULL, NULL},
};

static const char *const yolo_inputs[] = {"pred", "d2i", NULL};
static const char *const yolo_outputs[] = {"count", "dets", NULL};

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

/* ---- fast NMS (KB_INEXACT) ----
 *
 * A candidate is dropped when a same-class candidate of higher score
 * overlaps it above iou (suppressed or not); between equal scores the
 * variant's own order decides: the rank for atomic_fastnms, the atomic slot
 * for seed_fastnms (a run's arrival order). So a variant's keeps are judged
 * as fast NMS under SOME order of the tied candidates. Over the candidates
 * whose status the output shows (all, or those scoring above the last det
 * when max_out cut the list), with "strict" = dropped by a higher score and
 * the tie graph = equal score, same class, IoU > iou:
 *   a kept candidate is not strict;  no two kept candidates are tied neighbours;
 *   every tie component holding a dropped non-strict candidate holds a kept
 *   or strict one (a candidate to be dropped by: with the kept ones first,
 *   then the strict ones, then the rest in breadth-first order from them,
 *   each dropped candidate has a tied neighbour ahead of it).
 * The rank order is one such order: the fast-NMS reference passes. */

typedef struct fast_image {
    int64_t m;
    uint64_t *keys;
    float *boxes;
    int32_t *cls, *parent, *greedy;
    int64_t *order;
    unsigned char *kept, *strict, *source;
} fast_image;

static void fast_image_free(fast_image *f) {
    free(f->keys);
    free(f->boxes);
    free(f->cls);
    free(f->parent);
    free(f->greedy);
    free(f->order);
    free(f->kept);
    free(f->strict);
    free(f->source);
}

static int32_t find_root(int32_t *parent, int32_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
}

static int overlaps(const fast_image *f, int64_t a, int64_t b, float iou) {
    return f->cls[a] == f->cls[b] &&
           kb_nms_iou(f->boxes[4 * a], f->boxes[4 * a + 1], f->boxes[4 * a + 2],
                      f->boxes[4 * a + 3], f->boxes[4 * b], f->boxes[4 * b + 1],
                      f->boxes[4 * b + 2], f->boxes[4 * b + 3]) > iou;
}

/* The candidate a det row is (same class, score and box to the exact
 * compare's tolerance), not yet taken; -1 if none. */
static int64_t det_candidate(const fast_image *f, const float *d) {
    for (int64_t r = 0; r < f->m; r++) {
        if (f->kept[r] || (float)f->cls[r] != d[5]) continue;
        if (fabsf(kb_yolo_key_score(f->keys[r]) - d[4]) > 1e-6f) continue;
        int ok = 1;
        for (int j = 0; j < 4 && ok; j++)
            ok = fabsf(f->boxes[4 * r + j] - d[j]) <= 1e-4f + 2e-7f * fabsf(f->boxes[4 * r + j]);
        if (ok) return r;
    }
    return -1;
}

/* One image of a fast-NMS variant (gn dets at gd): violations of the rule
 * above; adds to *lost the candidates greedy keeps that it drops, to *extra
 * those it keeps that greedy drops (over the candidates the output shows).
 * -1: out of host memory. */
static int64_t fast_check_image(const kb_yolo_params *p, const float *pred, const float *d2i,
                                int32_t gn, const float *gd, int64_t *unwritten, int64_t *lost,
                                int64_t *extra, char *why, size_t why_size) {
    if (gn < 0 || gn > p->max_out) {
        *unwritten += gn == -1;
        snprintf(why, why_size, "count %d outside [0, %d]", gn, p->max_out);
        return 1;
    }
    size_t n = (size_t)p->n, cap = (size_t)(p->max_det < p->n ? p->max_det : p->n) + 1;
    fast_image f = {0};
    f.keys = malloc(n * sizeof *f.keys);
    f.boxes = malloc(cap * 4 * sizeof *f.boxes);
    f.cls = malloc(cap * sizeof *f.cls);
    f.parent = malloc(cap * sizeof *f.parent);
    f.greedy = malloc(cap * sizeof *f.greedy);
    f.order = malloc(cap * sizeof *f.order);
    f.kept = calloc(cap, 1);
    f.strict = calloc(cap, 1);
    f.source = calloc(cap, 1);
    if (!f.keys || !f.boxes || !f.cls || !f.parent || !f.greedy || !f.order || !f.kept ||
        !f.strict || !f.source) {
        fast_image_free(&f);
        return -1;
    }
    f.m = kb_yolo_candidates(p, pred, d2i, f.keys, f.boxes, f.cls);
    int64_t bad = 0;
    for (int32_t k = 0; k < gn; k++) {
        const float *d = gd + 6 * k;
        for (int j = 0; j < 6; j++) *unwritten += isnan(d[j]) != 0;
        int64_t r = det_candidate(&f, d);
        if (r < 0 || (k > 0 && d[4] > gd[6 * (k - 1) + 4])) {
            if (!bad)
                snprintf(why, why_size, "det %d (score %.7g class %g) %s", k, d[4], d[5],
                         r < 0 ? "is no candidate, or one listed twice" : "out of score order");
            bad++;
        }
        if (r >= 0) f.kept[r] = 1;
    }
    /* the output shows the status of the candidates scoring above its last det
     * when max_out cut it, of all of them otherwise */
    float s_last = gn == p->max_out && gn > 0 ? gd[6 * (gn - 1) + 4] : -1.0f;
    int64_t shown = 0;
    while (shown < f.m && kb_yolo_key_score(f.keys[shown]) > s_last) shown++;
    for (int64_t r = 0; r < f.m; r++) f.parent[r] = (int32_t)r;
    for (int64_t r = 0, first = 0; r < f.m; r++) { /* first: r's equal-score group */
        float sr = kb_yolo_key_score(f.keys[r]);
        if (sr != kb_yolo_key_score(f.keys[first])) first = r;
        for (int64_t j = 0; j < first && !f.strict[r]; j++)
            f.strict[r] = overlaps(&f, j, r, p->iou);
        for (int64_t j = first; j < r; j++)
            if (overlaps(&f, j, r, p->iou)) {
                if (f.kept[j] && f.kept[r]) {
                    if (!bad)
                        snprintf(why, why_size, "keeps tied candidates %lld and %lld that overlap",
                                 (long long)j, (long long)r);
                    bad++;
                }
                f.parent[find_root(f.parent, (int32_t)j)] = find_root(f.parent, (int32_t)r);
            }
        if (f.kept[r] && f.strict[r]) {
            if (!bad)
                snprintf(why, why_size, "keeps candidate %lld, which a higher score suppresses",
                         (long long)r);
            bad++;
        }
    }
    for (int64_t r = 0; r < f.m; r++)
        if (f.kept[r] || f.strict[r]) f.source[find_root(f.parent, (int32_t)r)] = 1;
    for (int64_t r = 0; r < shown; r++)
        if (!f.kept[r] && !f.strict[r] && !f.source[find_root(f.parent, (int32_t)r)]) {
            if (!bad)
                snprintf(why, why_size, "drops candidate %lld, which nothing suppresses",
                         (long long)r);
            bad++;
            f.source[find_root(f.parent, (int32_t)r)] = 1; /* one count per component */
        }
    for (int64_t r = 0; r < f.m; r++) f.order[r] = r;
    int64_t ng = kb_nms_greedy_ref(f.boxes, f.cls, f.order, f.m, p->iou, 0, f.greedy);
    if (f.m > 0) memset(f.strict, 0, (size_t)f.m); /* reused: greedy keeps */
    for (int64_t k = 0; k < ng; k++) f.strict[f.greedy[k]] = 1;
    for (int64_t r = 0; r < shown; r++) {
        *lost += f.strict[r] && !f.kept[r];
        *extra += f.kept[r] && !f.strict[r];
    }
    fast_image_free(&f);
    return ng < 0 ? -1 : bad;
}

static int yolo_compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                        const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    kb_yolo_params p = kb_yolo_params_of(c);
    const int32_t *rc = kb_tensors_get(ref, "count")->data;
    const float *rd = kb_tensors_get(ref, "dets")->data;
    const int32_t *gc = kb_tensors_get(got, "count")->data;
    const float *gd = kb_tensors_get(got, "dets")->data;
    const float *pred = kb_tensors_get(in, "pred")->data, *d2i = kb_tensors_get(in, "d2i")->data;
    int inexact = (chk->flags & KB_INEXACT) != 0;
    int nondet = (chk->flags & KB_NONDETERMINISTIC) != 0;
    int64_t lost = 0, extra = 0, bad = 0, excused = 0, over = 0;
    char why[200] = "";
    acc->tolerance = 0;
    for (int img = 0; img < p.b; img++) {
        char w[200] = "";
        size_t off = (size_t)img * (size_t)p.max_out * 6;
        int above = nondet && kb_yolo_qualifying(c, in, img) > p.max_det;
        int64_t m;
        if (inexact && !above) {
            m = fast_check_image(&p, pred + (size_t)img * (size_t)p.n * (size_t)(5 + p.c),
                                 d2i + 6 * img, gc[img], gd + off, &acc->unwritten, &lost, &extra,
                                 w, sizeof w);
            if (m < 0) {
                snprintf(acc->note, sizeof acc->note, "fast-NMS check: out of host memory");
                acc->pass = 0;
                acc->mismatches = 1;
                return KB_OK;
            }
        } else {
            m = compare_image(rc[img], rd + off, gc[img], gd + off, p.max_out, &acc->unwritten, w,
                              sizeof w);
        }
        if (!m) continue;
        if (above) { /* atomic compaction kept an arbitrary max_det */
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
                 (long long)excused, (long long)over, p.max_det,
                 inexact ? "; fast NMS, unjudged there" : "");
    else if (inexact) {
        snprintf(acc->note, sizeof acc->note,
                 "fast NMS drops %lld boxes greedy keeps, keeps %lld greedy drops", (long long)lost,
                 (long long)extra);
        acc->dropped = lost;
    }
    return KB_OK;
}

/* No input holds an index (a class is the argmax's position). The
 * reference's counts within max_out and the class ids of its dets
 * (integers in [0, c)), which compare takes as the truth. */
static int yolo_check_indices(const kb_case *c, const kb_tensors *in, const kb_tensors *ref,
                              kb_error *e) {
    (void)in;
    if (!ref) return KB_OK;
    const kb_yolo_params p = kb_yolo_params_of(c);
    const int32_t *count = kb_tensors_get(ref, "count")->data;
    const float *dets = kb_tensors_get(ref, "dets")->data;
    for (int img = 0; img < p.b; img++) {
        if (count[img] < 0 || count[img] > p.max_out)
            return kb_fail(e, "count[%d] = %d outside [0, %d] (max_out=%d)", img, count[img],
                           p.max_out, p.max_out);
        for (int k = 0; k < count[img]; k++) {
            const float cls = dets[((size_t)img * (size_t)p.max_out + (size_t)k) * 6 + 5];
            if (!(cls >= 0 && cls < (float)p.c && cls == floorf(cls)))
                return kb_fail(e,
                               "dets[%d][%d][5] = %g: a class id is an integer in [0, %d) (c=%d)",
                               img, k, (double)cls, p.c, p.c);
        }
    }
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

/* The baseline: the B rows of the op's variant list, as "name,name". */
#define X(NAME, FLAGS, SUMMARY)
#define B(NAME, FLAGS, SUMMARY) "," #NAME
static const char baselines[] =
#include "variants/yolo_decode/variants.def"
    ;
#undef X
#undef B

const kb_op kb_op_yolo_decode = {
    .name = "yolo_decode",
    .summary = "YOLOv5 post-processing: filter, argmax, inverse letterbox, max_det, class NMS",
    .axes = yolo_axes,
    .sweeps = yolo_sweeps,
    .inputs = yolo_inputs,
    .outputs = yolo_outputs,
    .baseline = baselines + 1,
    .validate = yolo_validate,
    .describe = yolo_describe,
    .make_inputs = yolo_make_inputs,
    .reference = kb_yolo_decode_reference,
    .compare = yolo_compare,
    .cost = yolo_cost,
    .check_indices = yolo_check_indices,
    .fuzz_case = yolo_fuzz_case,
};
