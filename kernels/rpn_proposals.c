/* rpn_proposals.c — the RPN proposal op: axes, sweeps, inputs, comparison.
 *
 *   kbench run rpn_proposals --sweep default     800x1344, 5 levels, 1000/1000
 *   kbench check rpn_proposals --sweep smoke
 *
 * Semantics and the float contract: include/kbench/ops/rpn_proposals.h; the CPU truth:
 * reference/rpn_proposals.c. Inputs are a detector's: mmdet anchors (scales
 * 8, ratios 0.5/1/2, base size = stride), deltas dx,dy ~ N(0, 0.2) and dw,dh
 * ~ N(0, 0.5), scores = sigmoid(logit) with logit ~ N(-4, 1.5) raised by
 * 10 * IoU(anchor, object) around `objects` random objects (clusters of high,
 * heavily overlapping proposals that NMS must thin out).
 * A KB_INEXACT variant (cuda_port, the common CUDA port) is held to the
 * reference of the port's rule (include/kbench/ops/rpn_proposals.h), its note counting
 * the proposals where that rule departs from the exact op's.
 */
#include "rpn_proposals.h"
#include "topk.h" /* kb_topk_check_offsets: levels are segments */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kb_axis rpn_axes[] = {
    {"img_h", KB_AXIS_INT, "800", 32, 2048, NULL, "image height (px); <= 2048: the level offset"},
    {"img_w", KB_AXIS_INT, "1344", 32, 2048, NULL, "image width (px)"},
    {"levels", KB_AXIS_INT, "5", 1, KB_RPN_MAX_LEVELS, NULL, "FPN levels, strides 4 * 2^l"},
    {"nms_pre", KB_AXIS_INT, "1000", 1, 4096, NULL, "best scores kept per level before NMS"},
    {"max_per_img", KB_AXIS_INT, "1000", 1, 24576, NULL, "proposals kept after NMS"},
    {"iou", KB_AXIS_FLOAT, "0.7", 0, 1, NULL, "NMS threshold: suppress when IoU > iou"},
    {"min_bbox_size", KB_AXIS_FLOAT, "0", 0, 1024, NULL, "keep boxes with w and h > this"},
    {"objects", KB_AXIS_INT, "20", 0, 1000, NULL, "objects around which scores cluster"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* Small cases first, so that --max-cases N takes a quick look (racecheck
 * could not finish one 800x1344 case in 170 s; sanitize.sh runs "sanitize"). */
static const char *const smoke_lines[] = {
    "img_h=128 img_w=160 levels=3 nms_pre=300 max_per_img=300 objects=5",
    "img_h=[64,333] img_w=[96,517] levels=[1,3] nms_pre=[5,300] max_per_img=[7,1000] "
    "objects=[0,5]",
    "img_h=800 img_w=1344",
    "img_h=800 img_w=1344 min_bbox_size=16 iou=0.5 objects=60",
    NULL,
};
static const char *const default_lines[] = {
    "img_h=800 img_w=1344",
    "img_h=800 img_w=1344 objects=[0,100]",
    "img_h=[512,1024] img_w=[512,1024]",
    NULL,
};
/* The fewest cases reaching every branch of every variant under
 * compute-sanitizer (scripts/sanitize.sh), on small images: level sizes
 * ceil(img_h / stride) x ceil(img_w / stride) x 3 anchors, strides 4..128; slots = sum of
 * min(nms_pre, level size) go through the nms op's sort (one block up to
 * 1024, 1024 threads up to 4096, chunks beyond) and box walk; the top-k
 * cluster takes 1..16 blocks (k = nms_pre); fused keeps a level's masks in
 * shared memory while nms_pre x 8 words_of(nms_pre) + 40 nms_pre bytes fit
 * (H100: nms_pre <= 1088), else reads them from global memory. */
static const char *const sanitize_lines[] = {
    /* one level (a cluster of one block), 5 slots, 7 rows > the kept: zero rows */
    "img_h=64 img_w=96 levels=1 nms_pre=5 max_per_img=7 objects=0",
    /* 6 levels (a cluster of 6), levels smaller than nms_pre: 37 and 687
     * slots; top-k clusters of 1 and 2 blocks */
    "img_h=64 img_w=96 levels=6 nms_pre=[7,300] max_per_img=1000 objects=5",
    /* boxes under min_bbox_size: filtered slots (score -inf) */
    "img_h=64 img_w=96 levels=5 nms_pre=300 max_per_img=1000 min_bbox_size=16 iou=0.5 objects=5",
    NULL,
};
/* nms_pre of 1000 and more, too slow for racecheck: sanitize.sh runs them
 * under the other three tools. */
static const char *const sanitize_large_lines[] = {
    /* 2200 slots (the 1024-thread sort), top-k clusters of 4; max_per_img
     * 50 ends the walk early */
    "img_h=128 img_w=160 levels=3 nms_pre=1000 max_per_img=[50,300] objects=5",
    /* nms_pre = 1200: fused reads the masks from global memory (360 slots) */
    "img_h=32 img_w=48 levels=2 nms_pre=1200 max_per_img=100 objects=3",
    /* nms_pre = 4096: 64 mask words, top-k clusters of 16, 5296 slots (chunk
     * sort + merge) */
    "img_h=160 img_w=160 levels=2 nms_pre=4096 max_per_img=50 objects=3",
    NULL,
};
static const kb_sweep rpn_sweeps[] = {
    {"smoke", "tiny images and level counts, the default case, a size filter", smoke_lines},
    {"default", "800x1344 with 5 levels (the goal case); other object counts and images",
     default_lines},
    {"sanitize", "the fewest small cases reaching every sort, walk and shared-memory branch",
     sanitize_lines},
    {"sanitize_large", "sanitize's cases of nms_pre >= 1000: not under racecheck (sanitize.sh)",
     sanitize_large_lines},
    {NULL, NULL, NULL},
};

static const char *const rpn_inputs[] = {"scores", "deltas", "anchors", "level_offsets", NULL};
static const char *const rpn_outputs[] = {"proposals", "count", NULL};

static int rpn_validate(const kb_case *c, kb_error *e) {
    (void)c;
    (void)e;
    return KB_OK; /* every limit is an axis range */
}

static int rpn_describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    const kb_rpn_params p = kb_rpn_params_of(c);
    int64_t n = 0;
    for (int l = 0; l < p.levels; l++) n += p.level_size[l];
    int64_t n4[2] = {n, 4}, offs = p.levels + 1, rows[2] = {p.max_per_img, 5}, one = 1;
    kb_tensors_add(in, "scores", KB_F32, 1, &n);
    kb_tensors_add(in, "deltas", KB_F32, 2, n4);
    kb_tensors_add(in, "anchors", KB_F32, 2, n4);
    kb_tensors_add(in, "level_offsets", KB_I32, 1, &offs);
    kb_tensors_add(out, "proposals", KB_F32, 2, rows);
    kb_tensors_add(out, "count", KB_I32, 1, &one);
    (void)e;
    return KB_OK;
}

static double iou_d(const double *a, const double *b) {
    double iw = fmin(a[2], b[2]) - fmax(a[0], b[0]), ih = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    if (iw <= 0 || ih <= 0) return 0;
    double inter = iw * ih;
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

static int rpn_make_inputs(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e) {
    const kb_rpn_params p = kb_rpn_params_of(c);
    const int64_t *count = p.level_size;
    const int levels = p.levels;
    const double img_h = (double)p.img_h, img_w = (double)p.img_w;
    float *scores = kb_tensors_find(in, "scores")->data;
    float *deltas = kb_tensors_find(in, "deltas")->data;
    float *anchors = kb_tensors_find(in, "anchors")->data;
    int32_t *offsets = kb_tensors_find(in, "level_offsets")->data;
    uint64_t rng = seed;

    int objects = p.objects;
    double *obj = malloc(sizeof(double) * 4 * (size_t)(objects ? objects : 1));
    if (!obj) return kb_fail(e, "out of host memory for %d objects", objects);
    for (int o = 0; o < objects; o++) { /* sizes log-uniform in [16, 512], aspect 1/2..2 */
        double s = exp(log(16.0) + kb_rng_uniform(&rng) * log(32.0));
        double ar = exp((kb_rng_uniform(&rng) - 0.5) * 2 * log(2.0));
        double w = s * sqrt(ar), h = s / sqrt(ar);
        double cx = kb_rng_uniform(&rng) * img_w, cy = kb_rng_uniform(&rng) * img_h;
        double *b = obj + 4 * o;
        b[0] = cx - w / 2, b[1] = cy - h / 2, b[2] = cx + w / 2, b[3] = cy + h / 2;
    }

    static const double ratios[KB_RPN_ANCHORS] = {0.5, 1.0, 2.0};
    int64_t i = 0;
    offsets[0] = 0;
    for (int l = 0; l < levels; l++) {
        int64_t stride = kb_rpn_stride(l), fh = kb_rpn_grid(p.img_h, l),
                fw = kb_rpn_grid(p.img_w, l);
        offsets[l + 1] = offsets[l] + (int32_t)count[l];
        for (int64_t y = 0; y < fh; y++)
            for (int64_t x = 0; x < fw; x++)
                for (int a = 0; a < KB_RPN_ANCHORS; a++, i++) {
                    /* mmdet AnchorGenerator: base size = stride, scale 8, h_ratio = sqrt(r). */
                    double hr = sqrt(ratios[a]), ws = (double)stride / hr * 8,
                           hs = (double)stride * hr * 8;
                    double box[4] = {
                        (double)(x * stride) - 0.5 * ws, (double)(y * stride) - 0.5 * hs,
                        (double)(x * stride) + 0.5 * ws, (double)(y * stride) + 0.5 * hs};
                    double logit = -4.0 + 1.5 * kb_rng_normal(&rng);
                    for (int o = 0; o < objects; o++) logit += 10.0 * iou_d(box, obj + 4 * o);
                    for (int d = 0; d < 4; d++) anchors[4 * i + d] = (float)box[d];
                    deltas[4 * i + 0] = (float)(0.2 * kb_rng_normal(&rng));
                    deltas[4 * i + 1] = (float)(0.2 * kb_rng_normal(&rng));
                    deltas[4 * i + 2] = (float)(0.5 * kb_rng_normal(&rng));
                    deltas[4 * i + 3] = (float)(0.5 * kb_rng_normal(&rng));
                    scores[i] = (float)(1.0 / (1.0 + exp(-logit)));
                }
    }
    free(obj);
    return KB_OK;
}

/* Coordinates match within this (host and device share the float formulas,
 * so any difference at all means a changed formula). */
static const float coord_tol = 1e-3f;

static int rows_match(const float *a, const float *b) {
    int ok = 1;
    for (int d = 0; d < 4; d++) ok &= fabs((double)a[d] - (double)b[d]) <= coord_tol;
    return ok;
}

/* got's rows against want's: the keep list and its order exactly; scores
 * bitwise (they are input values); box coordinates within coord_tol. The
 * note names the first difference; returns how many rows differ (+1 for the
 * count). */
static int64_t judge(int64_t rows, const kb_tensors *want, const kb_tensors *got,
                     kb_accuracy *acc) {
    const int32_t rn = *(const int32_t *)kb_tensors_get(want, "count")->data;
    const int32_t gn = *(const int32_t *)kb_tensors_get(got, "count")->data;
    const float *rp = kb_tensors_get(want, "proposals")->data;
    const float *gp = kb_tensors_get(got, "proposals")->data;
    int64_t bad = 0;
    if (rn != gn) {
        snprintf(acc->note, sizeof acc->note, "count %d, reference %d", gn, rn);
        bad++;
    }
    for (int64_t r = 0; r < rows; r++) {
        const float *g = gp + 5 * r, *w = rp + 5 * r;
        const int row_bad = g[4] != w[4] || !rows_match(g, w);
        for (int d = 0; d < 4; d++) {
            const double diff = fabs((double)g[d] - (double)w[d]);
            if (isnan(g[d])) acc->unwritten++;
            if (diff > acc->max_abs) acc->max_abs = diff;
        }
        if (row_bad && !bad)
            snprintf(acc->note, sizeof acc->note,
                     "row %lld: (%.3f %.3f %.3f %.3f) score %.9g, reference (%.3f %.3f %.3f %.3f) "
                     "%.9g",
                     (long long)r, g[0], g[1], g[2], g[3], g[4], w[0], w[1], w[2], w[3], w[4]);
        bad += row_bad;
    }
    return bad;
}

/* How the port's proposals differ from the exact op's, into the note; both
 * lists are ranked by score. An exact proposal is among the port's when a
 * port row of the same score matches it within coord_tol; "moved" counts
 * those whose coordinates are not the same bits (the offset's rounding).
 * acc->dropped: the exact proposals the port lacks. */
static void port_vs_exact(const kb_tensors *exact, const kb_tensors *port, kb_accuracy *acc) {
    const int32_t en = *(const int32_t *)kb_tensors_get(exact, "count")->data;
    const int32_t pn = *(const int32_t *)kb_tensors_get(port, "count")->data;
    const float *ep = kb_tensors_get(exact, "proposals")->data;
    const float *pp = kb_tensors_get(port, "proposals")->data;
    unsigned char *taken = calloc((size_t)pn + 1, 1);
    if (!taken) {
        snprintf(acc->note, sizeof acc->note, "port rule: out of host memory to count differences");
        return;
    }
    int64_t lost = 0, moved = 0, pads = 0, from = 0;
    for (int64_t r = 0; r < en; r++) {
        const float *want = ep + 5 * r;
        while (from < pn && pp[5 * from + 4] > want[4]) from++;
        int64_t hit = -1;
        for (int64_t k = from; k < pn && pp[5 * k + 4] == want[4] && hit < 0; k++)
            if (!taken[k] && rows_match(pp + 5 * k, want)) hit = k;
        if (hit < 0) {
            lost++;
            continue;
        }
        taken[hit] = 1;
        moved += memcmp(pp + 5 * hit, want, 4 * sizeof(float)) != 0;
    }
    for (int64_t k = 0; k < pn; k++) pads += !taken[k] && pp[5 * k + 4] == 0.0f;
    free(taken);
    snprintf(acc->note, sizeof acc->note,
             "port rule, %d proposals; vs the exact op's %d: drops %lld, adds %lld (%lld "
             "zero-score pads), %lld moved by the offset's rounding",
             pn, en, (long long)lost, (long long)(pn - (en - lost)), (long long)pads,
             (long long)moved);
    acc->dropped = lost;
}

/* The exact op's rows, or for a KB_INEXACT variant (the common CUDA port)
 * the rows of the port's rule (kb_rpn_port_reference), judged alike; the
 * inexact row's note then counts how the port differs from the exact op. */
static int rpn_compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                       const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    const int64_t rows = kb_rpn_params_of(c).max_per_img;
    const int inexact = (chk->flags & KB_INEXACT) != 0;
    kb_tensors own = *ref; /* the same shapes, buffers of its own */
    for (int i = 0; i < own.count; i++) own.t[i].data = NULL;
    kb_error e = {{0}};
    if (inexact && (kb_tensors_alloc_host(&own, &e) != KB_OK ||
                    kb_rpn_port_reference(c, in, &own, &e) != KB_OK)) {
        snprintf(acc->note, sizeof acc->note, "port rule reference: %.200s", e.msg);
        acc->mismatches++;
        acc->pass = 0;
        kb_tensors_free_host(&own);
        return KB_OK;
    }
    const int64_t bad = judge(rows, inexact ? &own : ref, got, acc);
    acc->mismatches += bad;
    if (bad)
        acc->pass = 0;
    else if (inexact)
        port_vs_exact(ref, &own, acc);
    else if (!acc->note[0])
        snprintf(acc->note, sizeof acc->note, "%d proposals",
                 *(const int32_t *)kb_tensors_get(ref, "count")->data);
    if (inexact) kb_tensors_free_host(&own);
    return KB_OK;
}

/* level_offsets as the levels' anchor counts lay them out (the references
 * and the variants read a level from level_offsets but size their buffers
 * from the counts), and the reference's count within its rows. */
static int rpn_check_indices(const kb_case *c, const kb_tensors *in, const kb_tensors *ref,
                             kb_error *e) {
    const kb_rpn_params p = kb_rpn_params_of(c);
    int64_t total = 0;
    for (int l = 0; l < p.levels; l++) total += p.level_size[l];
    char layout[96];
    snprintf(layout, sizeof layout, "img_h=%lld img_w=%lld", (long long)p.img_h,
             (long long)p.img_w);
    if (kb_topk_check_offsets(kb_tensors_get(in, "level_offsets"), p.level_size, total, "scores",
                              "level", layout, "anchors", e) != KB_OK)
        return KB_ERR;
    if (!ref) return KB_OK;
    const int32_t n = *(const int32_t *)kb_tensors_get(ref, "count")->data;
    if (n < 0 || n > p.max_per_img)
        return kb_fail(e, "count[0] = %d outside [0, %lld] (max_per_img=%lld)", n,
                       (long long)p.max_per_img, (long long)p.max_per_img);
    return KB_OK;
}

static kb_cost rpn_cost(const kb_case *c) {
    const kb_rpn_params p = kb_rpn_params_of(c);
    const int64_t *count = p.level_size;
    int64_t n = 0;
    for (int l = 0; l < p.levels; l++) n += count[l];
    /* Every score once; deltas and anchors of the nms_pre per level; the output. */
    int64_t pre = 0;
    for (int l = 0; l < p.levels; l++) pre += count[l] < p.nms_pre ? count[l] : p.nms_pre;
    double bytes = 4.0 * (double)n + 32.0 * (double)pre + 20.0 * (double)p.max_per_img;
    /* delta2bbox ~ 30 flops a box; NMS ~ 15 flops per pair within a level. */
    double flops = 30.0 * (double)pre;
    for (int l = 0; l < p.levels; l++) {
        double kept = (double)(count[l] < p.nms_pre ? count[l] : p.nms_pre);
        flops += 15.0 * kept * kept / 2;
    }
    return (kb_cost){.flops = flops, .bytes = bytes};
}

static void rpn_fuzz_case(uint64_t *rng, kb_case *c) {
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 32, 700));
    kb_case_set(c, "img_h", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 32, 900));
    kb_case_set(c, "img_w", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 1, 5));
    kb_case_set(c, "levels", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 1, 1200));
    kb_case_set(c, "nms_pre", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 1, 1500));
    kb_case_set(c, "max_per_img", v, NULL);
    snprintf(v, sizeof v, "%.2f", 0.3 + 0.6 * kb_rng_uniform(rng));
    kb_case_set(c, "iou", v, NULL);
    snprintf(v, sizeof v, "%lld", (long long)kb_rng_int(rng, 0, 40));
    kb_case_set(c, "objects", v, NULL);
}

/* The baseline: the B rows of the op's variant list, as "name,name". */
#define X(NAME, FLAGS, SUMMARY)
#define B(NAME, FLAGS, SUMMARY) "," #NAME
static const char baselines[] =
#include "variants/rpn_proposals/variants.def"
    ;
#undef X
#undef B

const kb_op kb_op_rpn_proposals = {
    .name = "rpn_proposals",
    .summary = "mmdetection RPN proposals: per-level top-k, delta2bbox, filter, NMS, top-k",
    .axes = rpn_axes,
    .sweeps = rpn_sweeps,
    .inputs = rpn_inputs,
    .outputs = rpn_outputs,
    .baseline = baselines + 1,
    .validate = rpn_validate,
    .describe = rpn_describe,
    .make_inputs = rpn_make_inputs,
    .reference = kb_rpn_reference,
    .compare = rpn_compare,
    .cost = rpn_cost,
    .check_indices = rpn_check_indices,
    .fuzz_case = rpn_fuzz_case,
};
