/* nms.c — the nms op: axes, sweeps, input generators, comparison, cost.
 *
 *   kbench check nms --sweep smoke        every variant against the CPU reference
 *   kbench run nms --sweep default        the peer cases (torchvision)
 *
 * Greedy variants must reproduce the greedy keep list exactly (same boxes,
 * same order, same count). A KB_INEXACT variant (fast NMS) is held to the
 * fast-NMS reference instead, and its note says how many boxes greedy keeps
 * that it drops; its keep set must be a subset of greedy's.
 */
#include "nms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kb_axis nms_axes[] = {
    {"n", KB_AXIS_INT, "1000", 0, 4000000, NULL, "number of boxes"},
    {"iou", KB_AXIS_FLOAT, "0.5", 0, 1, NULL, "suppress when IoU > iou"},
    {"classes", KB_AXIS_INT, "1", 1, 100000, NULL,
     "class ids drawn from [0, classes); 1 = class-agnostic NMS"},
    {"max_out", KB_AXIS_INT, "0", 0, 4000000, NULL, "keep at most this many; 0 = no cap"},
    {"dist", KB_AXIS_ENUM, "uniform", 0, 0, "uniform,clustered,ties,degenerate,pixels",
     "uniform: the peer figures' boxes; clustered: a detector's jittered copies around "
     "objects; ties: scores on 8 levels; degenerate: a quarter zero-width/height; pixels: "
     "uniform's boxes on whole pixels (int16), no two scores equal"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static const char *const smoke_lines[] = {
    "n=[0,1,63,64,65,1000,4097] iou=0.5",
    "n=2000 dist=[clustered,ties,degenerate] classes=[1,7]",
    "n=3000 iou=[0.3,0.7] max_out=[100,0] dist=clustered",
    /* the threshold's edge: at iou=0 a pair with IoU exactly 0 (disjoint,
     * touching or zero-area boxes) must not suppress; ">=" for ">" would */
    "n=300 iou=0 classes=3 dist=degenerate",
    /* one image of CV-CUDA's own benchmark: boxes it takes as they are */
    "n=4096 dist=pixels",
    NULL,
};
static const char *const default_lines[] = {
    "n=[1000,25200] iou=0.5",
    "n=25200 iou=0.7",
    "n=100000 iou=0.5",
    "n=25200 iou=0.5 dist=clustered classes=[1,80]",
    /* int16 pixel boxes, distinct scores: the cases CV-CUDA's nms takes as
     * they are (one image of its benchmark's 32 x 4096; the op has no image
     * axis), and 25200 beside the float case of that size */
    "n=[4096,25200] iou=0.5 dist=pixels",
    NULL,
};
static const char *const full_lines[] = {
    "n=[1000,4000,16000,25200,64000,100000] iou=[0.3,0.5,0.7] "
    "dist=[uniform,clustered,ties,degenerate]",
    "n=[25200,100000] iou=0.5 dist=clustered classes=[80,1000]",
    "n=[25200,100000] iou=0.5 max_out=[100,1000]",
    NULL,
};
/* The fewest cases reaching every branch of every variant under
 * compute-sanitizer (scripts/sanitize.sh). The sort: one block of 64..1024
 * threads (n <= 1024, each size its own kernel), 1024 threads over <= 4096,
 * chunks + merge <= 32768, CUB beyond; the masks: 4 threads a row under 64
 * words (n / 64 rounded up), 4 tiles a block from 256 words; blockwalk's walk:
 * the small walk up to 16 words, the block walk unpruned under 64, x-pruned
 * with far lists of 30 slots up to 512 words, 60 beyond; rounds: one launch
 * up to 16 words, then the cooperative kernel on the same masks with far
 * lists of 128 slots (rows past them read densely: 32769 boxes at IoU 0). */
static const char *const sanitize_lines[] = {
    /* n = 0 (no launch); n = 1, 64, 65, 200, 500, 1024: each one-block sort
     * size; 1024 = 16 words, the small walk's largest */
    "n=[0,1,64,65,200,500,1024] iou=0.5",
    /* 17 words: the 1024-thread sort, the unpruned block walk; zero-area boxes */
    "n=1025 dist=degenerate",
    /* class-aware masks of 4 threads a row; scores on 8 levels (rank ties) */
    "n=2000 dist=ties classes=7",
    /* max_out = 100 of ~800 / ~2000 keeps: the cap in the small walk, the
     * block walk, the box walk and fast NMS's compaction */
    "n=[1000,3000] max_out=100",
    NULL,
};
/* The sizes the remaining branches need (past 64 and 512 words), too slow
 * for racecheck: sanitize.sh runs them under the other three tools. */
static const char *const sanitize_large_lines[] = {
    /* 65 words: chunk sort + merge, x-sorted tiles, 1 thread a row, class-
     * agnostic and aware; clusters at 0.3: ~20 kept rows with more than 30
     * far words, which the block walk reads densely */
    "n=4097 iou=0.3 dist=clustered classes=[1,7]",
    /* 513 words: CUB's radix sort, 4 mask tiles a block, far lists of 60
     * slots; at IoU 0 any overlap suppresses: ~340 keeps, ~300 of them rows
     * with more than 60 far words (read densely), and fast NMS drops every
     * box in its first tile (the cheapest 32769 boxes for every variant) */
    "n=32769 iou=0",
    NULL,
};
static const kb_sweep nms_sweeps[] = {
    {"smoke", "edge sizes around the 64-box block, every distribution, class-aware, capped, iou=0",
     smoke_lines},
    {"default",
     "the peer cases: uniform 1000/25200/100000 boxes, IoU 0.5/0.7; clustered; int16 pixels",
     default_lines},
    {"full", "sizes x IoU x distribution; many classes; capped outputs", full_lines},
    {"sanitize", "the fewest cases reaching every sort, mask and walk branch (sanitize.sh)",
     sanitize_lines},
    {"sanitize_large", "sanitize's cases past 64 words: not under racecheck (sanitize.sh)",
     sanitize_large_lines},
    {NULL, NULL, NULL},
};

static const char *const nms_inputs[] = {"boxes", "scores", "classes", NULL};
static const char *const nms_outputs[] = {"keep", "count", NULL};

static int nms_validate(const kb_case *c, kb_error *e) {
    double iou = kb_float(c, "iou");
    if (!(iou >= 0 && iou <= 1)) return kb_fail(e, "nms: iou=%g must lie in [0, 1]", iou);
    return KB_OK;
}

static int nms_describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    const kb_nms_params p = kb_nms_params_of(c);
    int64_t n = p.n, cap = p.cap, one = 1;
    int64_t box_shape[2] = {n, 4};
    kb_tensors_add(in, "boxes", KB_F32, 2, box_shape);
    kb_tensors_add(in, "scores", KB_F32, 1, &n);
    kb_tensors_add(in, "classes", KB_I32, 1, &n);
    kb_tensors_add(out, "keep", KB_I32, 1, &cap);
    kb_tensors_add(out, "count", KB_I32, 1, &one);
    (void)e;
    return KB_OK;
}

/* ---- input generators ---- */

enum { IMAGE = 1024 };

/* The peer figures' box: centre uniform in the image, w and h in [4, 4 + 0.2 * 1024]. */
static void uniform_box(uint64_t *rng, double *cx, double *cy, double *w, double *h) {
    *cx = IMAGE * kb_rng_uniform(rng);
    *cy = IMAGE * kb_rng_uniform(rng);
    *w = 4 + 0.2 * IMAGE * kb_rng_uniform(rng);
    *h = 4 + 0.2 * IMAGE * kb_rng_uniform(rng);
}

static void put_box(float *b, double cx, double cy, double w, double h) {
    b[0] = (float)(cx - w / 2);
    b[1] = (float)(cy - h / 2);
    b[2] = (float)(cx + w / 2);
    b[3] = (float)(cy + h / 2);
}

/* Scores in (0, 1]: never zero. */
static float unit_score(uint64_t *rng) {
    return (float)(1.0 - kb_rng_uniform(rng));
}

/* A detector's output: each box a jittered copy of one of n/40 objects, its
 * score the object's confidence decaying with the jitter, its class the object's. */
static void make_clustered(int64_t n, int64_t classes, uint64_t *rng, float *boxes, float *scores,
                           int32_t *cls) {
    int64_t m = n / 40 > 0 ? n / 40 : 1;
    for (int64_t k = 0; k < n; k++) {
        uint64_t obj = (uint64_t)kb_rng_int(rng, 0, m - 1) * 0x9E3779B97F4A7C15ull + 1;
        double cx, cy, w, h;
        uniform_box(&obj, &cx, &cy, &w, &h);
        double conf = 0.3 + 0.7 * kb_rng_uniform(&obj);
        int32_t klass = (int32_t)kb_rng_int(&obj, 0, classes - 1);
        double jx = 0.1 * kb_rng_normal(rng), jy = 0.1 * kb_rng_normal(rng);
        double jw = 0.15 * kb_rng_normal(rng), jh = 0.15 * kb_rng_normal(rng);
        put_box(boxes + 4 * k, cx + jx * w, cy + jy * h, w * exp(jw), h * exp(jh));
        double s = conf * exp(-(jx * jx + jy * jy + jw * jw + jh * jh) * 8);
        scores[k] = (float)(s > 1e-6 ? s : 1e-6);
        cls[k] = klass;
    }
}

/* Corners rounded to whole pixels: they lie in [-105, 1129] (a centre in the
 * image, half a side of at most 105), well inside int16, and sides of at
 * least 4 stay at least 3 (no empty box). */
static void round_box(float *b) {
    for (int j = 0; j < 4; j++) b[j] = floorf(b[j] + 0.5f);
}

/* The scores k / n, k = 1..n, shuffled: no two equal (n <= 4M < 2^24, so
 * k / n rounds to n distinct floats), so that no tie rule decides a keep. */
static void distinct_scores(int64_t n, uint64_t *rng, float *scores) {
    for (int64_t k = 0; k < n; k++) scores[k] = (float)((double)(k + 1) / (double)n);
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t j = kb_rng_int(rng, 0, k);
        float t = scores[k];
        scores[k] = scores[j];
        scores[j] = t;
    }
}

static int nms_make_inputs(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e) {
    const kb_nms_params p = kb_nms_params_of(c);
    int64_t n = p.n, classes = p.classes;
    float *boxes = kb_tensors_find(in, "boxes")->data;
    float *scores = kb_tensors_find(in, "scores")->data;
    int32_t *cls = kb_tensors_find(in, "classes")->data;
    uint64_t rng = seed;
    if (p.dist == KB_NMS_CLUSTERED) {
        make_clustered(n, classes, &rng, boxes, scores, cls);
        return KB_OK;
    }
    int ties = p.dist == KB_NMS_TIES, degenerate = p.dist == KB_NMS_DEGENERATE;
    int pixels = p.dist == KB_NMS_PIXELS;
    for (int64_t k = 0; k < n; k++) {
        double cx, cy, w, h;
        uniform_box(&rng, &cx, &cy, &w, &h);
        if (degenerate) {
            double u = kb_rng_uniform(&rng);
            if (u < 0.10 || (u >= 0.20 && u < 0.25)) w = 0;
            if (u >= 0.10 && u < 0.25) h = 0;
        }
        put_box(boxes + 4 * k, cx, cy, w, h);
        if (pixels) round_box(boxes + 4 * k);
        scores[k] = ties ? (float)kb_rng_int(&rng, 1, 8) / 8.0f : unit_score(&rng);
        cls[k] = (int32_t)kb_rng_int(&rng, 0, classes - 1);
    }
    if (pixels) distinct_scores(n, &rng, scores);
    (void)e;
    return KB_OK;
}

/* ---- comparison ---- */

/* Compare got's ordered keep list with the expected one; returns mismatches. */
static int64_t compare_lists(const int32_t *want, int64_t want_n, const int32_t *got, int64_t got_n,
                             int64_t cap, kb_accuracy *acc) {
    if (got_n < 0 || got_n > cap) {
        snprintf(acc->note, sizeof acc->note, "count %lld outside [0, %lld] (expected %lld)",
                 (long long)got_n, (long long)cap, (long long)want_n);
        acc->unwritten += got_n == -1;
        return want_n > 0 ? want_n : 1;
    }
    int64_t bad = 0, first = -1, common = got_n < want_n ? got_n : want_n;
    for (int64_t k = 0; k < got_n; k++) acc->unwritten += got[k] == -1;
    for (int64_t k = 0; k < common; k++)
        if (got[k] != want[k]) {
            if (first < 0) first = k;
            bad++;
        }
    bad += llabs(got_n - want_n);
    if (bad && first >= 0)
        snprintf(acc->note, sizeof acc->note,
                 "count %lld vs %lld expected; first difference at position %lld: box %d, "
                 "expected %d",
                 (long long)got_n, (long long)want_n, (long long)first, got[first], want[first]);
    else if (bad)
        snprintf(acc->note, sizeof acc->note,
                 "count %lld vs %lld expected, the common prefix equal", (long long)got_n,
                 (long long)want_n);
    return bad;
}

/* Fast NMS vs greedy, both uncapped: is fast's keep set inside greedy's, and
 * how many of greedy's does it drop? Writes the row's note; 0 when a subset. */
static int64_t fast_vs_greedy(const int32_t *fast, int64_t nf, const int32_t *greedy, int64_t ng,
                              int64_t n, kb_accuracy *acc) {
    unsigned char *in_greedy = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!in_greedy) {
        snprintf(acc->note, sizeof acc->note, "fast NMS: out of host memory for the subset check");
        return 1;
    }
    for (int64_t k = 0; k < ng; k++) in_greedy[greedy[k]] = 1;
    int64_t outside = 0;
    for (int64_t k = 0; k < nf; k++) outside += !in_greedy[fast[k]];
    free(in_greedy);
    if (outside)
        snprintf(acc->note, sizeof acc->note,
                 "fast NMS keeps %lld boxes greedy suppresses: not a subset of greedy",
                 (long long)outside);
    else
        snprintf(acc->note, sizeof acc->note, "fast NMS: %lld kept, drops %lld greedy keeps",
                 (long long)nf, (long long)(ng - nf));
    return outside;
}

static int nms_compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                       const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    const kb_nms_params p = kb_nms_params_of(c);
    int64_t n = p.n, cap = p.cap;
    const int32_t *ref_keep = kb_tensors_get(ref, "keep")->data;
    int64_t ref_n = ((const int32_t *)kb_tensors_get(ref, "count")->data)[0];
    const int32_t *got_keep = kb_tensors_get(got, "keep")->data;
    int64_t got_n = ((const int32_t *)kb_tensors_get(got, "count")->data)[0];
    acc->tolerance = 0;
    if (!(chk->flags & KB_INEXACT)) {
        acc->mismatches = compare_lists(ref_keep, ref_n, got_keep, got_n, cap, acc);
        if (acc->mismatches) acc->pass = 0;
        return KB_OK;
    }
    /* Fast NMS: its own reference, uncapped (a capped list is a prefix). */
    const float *boxes = kb_tensors_get(in, "boxes")->data;
    const int32_t *cls = p.classes > 1 ? kb_tensors_get(in, "classes")->data : NULL;
    float iou = p.iou;
    int64_t *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    int32_t *fast = malloc((size_t)(n > 0 ? n : 1) * sizeof *fast);
    int32_t *greedy = malloc((size_t)(n > 0 ? n : 1) * sizeof *greedy);
    int64_t nf = -1, ng = -1;
    if (order && fast && greedy) {
        kb_nms_rank(kb_tensors_get(in, "scores")->data, n, order);
        nf = kb_nms_fast_ref(boxes, cls, order, n, iou, 0, fast);
        ng = cap < n ? kb_nms_greedy_ref(boxes, cls, order, n, iou, 0, greedy) : ref_n;
        if (ng >= 0 && cap >= n) memcpy(greedy, ref_keep, (size_t)ng * sizeof *greedy);
    }
    if (nf < 0 || ng < 0) {
        snprintf(acc->note, sizeof acc->note, "fast NMS reference: out of host memory, n=%lld",
                 (long long)n);
        acc->mismatches = 1;
    } else {
        int64_t outside = fast_vs_greedy(fast, nf, greedy, ng, n, acc);
        char subset_note[sizeof acc->note];
        memcpy(subset_note, acc->note, sizeof subset_note);
        acc->mismatches = compare_lists(fast, nf < cap ? nf : cap, got_keep, got_n, cap, acc);
        if (!acc->mismatches || outside) memcpy(acc->note, subset_note, sizeof subset_note);
        if (!acc->mismatches && !outside) acc->dropped = ng - nf; /* the note's "drops N" */
        acc->mismatches += outside;
    }
    if (acc->mismatches) acc->pass = 0;
    free(order);
    free(fast);
    free(greedy);
    return KB_OK;
}

/* Class ids in [0, classes) where classes > 1 (with 1 nothing reads them);
 * the reference's count within its capacity and its keeps within the boxes. */
static int nms_check_indices(const kb_case *c, const kb_tensors *in, const kb_tensors *ref,
                             kb_error *e) {
    const kb_nms_params p = kb_nms_params_of(c);
    const int32_t *cls = kb_tensors_get(in, "classes")->data;
    for (int64_t i = 0; p.classes > 1 && i < p.n; i++)
        if (cls[i] < 0 || cls[i] >= p.classes)
            return kb_fail(e, "classes[%lld] = %d outside [0, %lld) (classes=%lld)", (long long)i,
                           cls[i], (long long)p.classes, (long long)p.classes);
    if (!ref) return KB_OK;
    const int32_t n = *(const int32_t *)kb_tensors_get(ref, "count")->data;
    const int32_t *keep = kb_tensors_get(ref, "keep")->data;
    if (n < 0 || n > p.cap)
        return kb_fail(e, "count[0] = %d outside [0, %lld] (n=%lld max_out=%lld)", n,
                       (long long)p.cap, (long long)p.n, (long long)p.max_out);
    for (int32_t k = 0; k < n; k++)
        if (keep[k] < 0 || keep[k] >= p.n)
            return kb_fail(e, "keep[%d] = %d outside [0, %lld) (n=%lld boxes)", k, keep[k],
                           (long long)p.n, (long long)p.n);
    return KB_OK;
}

/* The fewest bytes: read boxes, scores and classes once, write the keeps.
 * No flop model: the IoU count is what the designs differ in. */
static kb_cost nms_cost(const kb_case *c) {
    const kb_nms_params p = kb_nms_params_of(c);
    kb_cost k = {0, (double)p.n * (16 + 4 + 4) + (double)p.cap * 4 + 4};
    return k;
}

static void nms_fuzz_case(uint64_t *rng, kb_case *c) {
    static const char *const dists[] = {"uniform", "clustered", "ties", "degenerate", "pixels"};
    char buf[64];
    int64_t n = kb_rng_int(rng, 0, 3000);
    snprintf(buf, sizeof buf, "%lld", (long long)n);
    kb_case_set(c, "n", buf, NULL);
    snprintf(buf, sizeof buf, "%.3f", 0.1 + 0.8 * kb_rng_uniform(rng));
    kb_case_set(c, "iou", buf, NULL);
    snprintf(buf, sizeof buf, "%lld", (long long)kb_rng_int(rng, 1, 10));
    kb_case_set(c, "classes", buf, NULL);
    snprintf(buf, sizeof buf, "%lld",
             (long long)(kb_rng_int(rng, 0, 1) ? kb_rng_int(rng, 0, n) : 0));
    kb_case_set(c, "max_out", buf, NULL);
    kb_case_set(c, "dist", dists[kb_rng_int(rng, 0, 4)], NULL);
}

/* The baseline: the B rows of the op's variant list, as "name,name". */
#define X(NAME, FLAGS, SUMMARY)
#define B(NAME, FLAGS, SUMMARY) "," #NAME
static const char baselines[] =
#include "variants/nms/variants.def"
    ;
#undef X
#undef B

const kb_op kb_op_nms = {
    .name = "nms",
    .summary = "non-maximum suppression: greedy (exact) and fast (pairwise), class-aware",
    .axes = nms_axes,
    .sweeps = nms_sweeps,
    .inputs = nms_inputs,
    .outputs = nms_outputs,
    .baseline = baselines + 1,
    .validate = nms_validate,
    .describe = nms_describe,
    .make_inputs = nms_make_inputs,
    .reference = kb_nms_reference,
    .compare = nms_compare,
    .cost = nms_cost,
    .check_indices = nms_check_indices,
    .fuzz_case = nms_fuzz_case,
};
