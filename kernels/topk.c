/* topk.c — the top-k op: axes, sweeps, inputs, comparison, cost.
 *
 *   kbench run topk --sweep default        the 5 RPN levels, 1M/16M, batch 32
 *   kbench run topk -a segments=32x4096 -a k=100
 *
 * Semantics in include/kbench/ops/topk.h; the CPU truth in reference/topk.c.
 */
#include "topk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The RPN levels of an 800x1344 image, strides 4..64, 3 anchors per location. */
static const int64_t rpn5_lengths[] = {201600, 50400, 12600, 3150, 819};

static const kb_axis topk_axes[] = {
    {"segments", KB_AXIS_STRING, "rpn5", 0, 0, NULL,
     "segment layout: rpn5 | CxL (C segments of L) | L1+L2+... (lengths, 0 allowed)"},
    {"k", KB_AXIS_INT, "1000", 0, 65536, NULL, "values kept per segment"},
    {"batch", KB_AXIS_INT, "1", 1, 4096, NULL, "the layout repeated (images)"},
    {"dist", KB_AXIS_ENUM, "uniform", 0, 0, "uniform,ties,normal",
     "uniform: scores in [0,1); ties: 9 values incl. -0/+0; normal: N(0,1)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static const char *const smoke_lines[] = {
    "segments=rpn5 k=[0,1,1000] dist=[uniform,ties]",
    "segments=[5+0+3+2000,1x4096,3x1500] k=[7,1024,4096] dist=[ties,normal]",
    "segments=rpn5 batch=2 k=100 dist=normal",
    /* a few long segments (grid_select's cases), one start not 16-byte aligned */
    "segments=[1x70000,65537+70001] k=[1000,5000] dist=[uniform,ties]",
    NULL,
};
static const char *const default_lines[] = {
    "segments=rpn5 k=1000",
    "segments=[1x1048576,1x16777216] k=[100,1000]",
    "segments=rpn5 batch=32 k=1000",
    "segments=32x4096 k=[100,1000]",
    NULL,
};
static const char *const ties_lines[] = {
    "segments=rpn5 k=1000 dist=[ties,normal]",
    NULL,
};
/* The fewest cases reaching every branch of every variant under
 * compute-sanitizer (scripts/sanitize.sh). radix_select's cluster takes 1..16
 * blocks of 1024 threads, enough for <= 4096 keys and <= 256 candidates a
 * block (k + 256 candidates), halved while that makes fewer waves; each
 * block's keys stay in shared memory unless they and the candidates pass
 * 200 KB. CUB: single-tile and multi-pass radix sorts, segmented sort's
 * small, medium and large segments. coop_select: 8 segments at once with
 * empty ones and k > length (segments ending at level 0), k = 0 (no
 * select), the segment split and its candidates' slack on the long cases
 * below (ties through all six levels; 5.3K keys a block with k = 4096). */
static const char *const sanitize_lines[] = {
    /* k = 0; an empty segment; k > a segment's length (the sentinel tail,
     * the select done after one pass); batch = 2 */
    "segments=5+0+3+2000 batch=2 k=[0,7] dist=ties",
    /* clusters of 2, 4, 8 blocks, sized by k alone */
    "segments=1x4096 k=[257,513,1025] dist=normal",
    /* a mixed batch, 140 segments: one launch would take two waves, so
     * radix_select splits it into two length classes launched side by side
     * (segments by table); in each, k = 300 > 256 wants 2 or 4 blocks a
     * cluster, which would take more waves than 1 (66 against 132 clusters at
     * once on 132 SMs): halved to 1 */
    "segments=16384+300 batch=70 k=300 dist=normal",
    /* coop_select: uniform keys whose level-0 fine counts end the select;
     * ~8 and ~29 candidates a block to rank (a warp per candidate, and a
     * thread per candidate and 16th of the list) */
    "segments=3x20000 k=[100,1000]",
    NULL,
};
/* Long segments, too slow for racecheck: sanitize.sh runs them under the
 * other three tools. */
static const char *const sanitize_large_lines[] = {
    /* a cluster of 16 blocks, sized by k alone (racecheck: over 240 s) */
    "segments=1x4096 k=2049 dist=normal",
    /* ~3640 copies of each value: all three passes, ties ranked by index
     * across blocks and over several 1024-key tiles of a block; 8 and 16 blocks */
    "segments=1x32768 k=[100,3000] dist=ties",
    /* 43750 keys a block of 16 + 4352 candidates > 200 KB: keys re-read from
     * global memory; uniform: the select ends after the second pass */
    "segments=1x700000 k=4096",
    /* the RPN levels: coop_select's fine counts and both rank forms at once */
    "segments=rpn5 k=1000",
    /* grid_select's sampled path: its candidates finish the select (uniform)
     * or pass the cap and the levels run (ties) */
    "segments=1x300000 k=1000 dist=[uniform,ties]",
    NULL,
};
static const kb_sweep topk_sweeps[] = {
    {"smoke", "small layouts, k = 0 / k > length / empty segments, ties and -0/+0; 2 long",
     smoke_lines},
    {"default", "5 RPN levels k=1000; 1M and 16M k=100/1000; 32 images; 32x4096", default_lines},
    {"ties", "the RPN levels with many equal values, and normal values", ties_lines},
    {"sanitize", "the fewest cases reaching every cluster size and select branch (sanitize.sh)",
     sanitize_lines},
    {"sanitize_large", "sanitize's long segments: not under racecheck (sanitize.sh)",
     sanitize_large_lines},
    {NULL, NULL, NULL},
};

static const char *const topk_inputs[] = {"values", "offsets", NULL};
static const char *const topk_outputs[] = {"topk_values", "topk_indices", "counts", NULL};

/* Lengths of one image's layout; returns the number of segments, -1 on a
 * malformed spec (message in e). */
static int64_t layout_lengths(const char *spec, int64_t *len, int64_t max, kb_error *e) {
    if (strcmp(spec, "rpn5") == 0) {
        for (int64_t i = 0; i < 5 && len && i < max; i++) len[i] = rpn5_lengths[i];
        return 5;
    }
    char *end;
    const char *x = strchr(spec, 'x');
    if (x) {
        long long count = strtoll(spec, &end, 10), length;
        if (end != x || count < 1) goto bad;
        length = strtoll(x + 1, &end, 10);
        if (*end != '\0' || x[1] == '\0' || length < 0) goto bad;
        if (count > KB_TOPK_MAX_SEGMENTS) {
            kb_fail(e, "segments=%s: %lld segments > %d", spec, count, KB_TOPK_MAX_SEGMENTS);
            return -1;
        }
        if (length > (1ll << 30)) goto too_long;
        for (int64_t i = 0; i < count && len && i < max; i++) len[i] = length;
        return count;
    }
    int64_t n = 0;
    for (const char *p = spec;;) {
        long long length = strtoll(p, &end, 10);
        if (end == p || length < 0 || (*end != '+' && *end != '\0')) goto bad;
        if (length > (1ll << 30)) goto too_long;
        if (len && n < max) len[n] = length;
        n++;
        if (*end == '\0') return n;
        p = end + 1;
    }
too_long: /* bounded before any sum, so totals never overflow */
    kb_fail(e, "segments=%s: a segment longer than 2^30 values", spec);
    return -1;
bad:
    kb_fail(e, "segments=%s: expected rpn5, CxL (e.g. 32x4096) or L1+L2+... (e.g. 5+0+3)", spec);
    return -1;
}

int64_t *kb_topk_lengths(const kb_case *c, int64_t *count, int64_t *total, kb_error *e) {
    const kb_topk_params p = kb_topk_params_of(c);
    const char *spec = p.segments;
    int64_t per = layout_lengths(spec, NULL, 0, e), batch = p.batch;
    if (per < 0) return NULL;
    if (per * batch > KB_TOPK_MAX_SEGMENTS) {
        kb_fail(e, "segments=%s batch=%lld: %lld segments > %d", spec, (long long)batch,
                (long long)(per * batch), KB_TOPK_MAX_SEGMENTS);
        return NULL;
    }
    int64_t *len = malloc((size_t)(per * batch) * sizeof *len + 1);
    if (!len) {
        kb_fail(e, "out of host memory for %lld segment lengths", (long long)(per * batch));
        return NULL;
    }
    *total = 0;
    for (int64_t b = 0; b < batch; b++) layout_lengths(spec, len + b * per, per, e);
    for (int64_t i = 0; i < per * batch; i++) *total += len[i];
    *count = per * batch;
    return len;
}

int64_t kb_topk_max_segment(const kb_case *c) {
    int64_t n = 0, total = 0, longest = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, NULL);
    for (int64_t i = 0; len && i < n; i++)
        if (len[i] > longest) longest = len[i];
    free(len);
    return longest;
}

static int topk_validate(const kb_case *c, kb_error *e) {
    const kb_topk_params p = kb_topk_params_of(c);
    int64_t n = 0, total = 0, k = p.k;
    int64_t *len = kb_topk_lengths(c, &n, &total, e);
    if (!len) return KB_ERR;
    free(len);
    if (total > (1ll << 30))
        return kb_fail(e, "segments=%s batch=%lld: %lld values > 2^30 (offsets are int32)",
                       p.segments, (long long)p.batch, (long long)total);
    if (n * k > (1ll << 28))
        return kb_fail(e, "segments=%s batch=%lld k=%lld: %lld output slots > 2^28", p.segments,
                       (long long)p.batch, (long long)k, (long long)(n * k));
    return KB_OK;
}

static int topk_describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, e);
    if (!len) return KB_ERR;
    free(len);
    int64_t k = kb_topk_params_of(c).k, offs = n + 1, sk[2] = {n, k};
    kb_tensors_add(in, "values", KB_F32, 1, &total);
    kb_tensors_add(in, "offsets", KB_I32, 1, &offs);
    kb_tensors_add(out, "topk_values", KB_F32, 2, sk);
    kb_tensors_add(out, "topk_indices", KB_I32, 2, sk);
    kb_tensors_add(out, "counts", KB_I32, 1, &n);
    return KB_OK;
}

static int topk_make_inputs(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e) {
    kb_tensor *values = kb_tensors_find(in, "values"), *offsets = kb_tensors_find(in, "offsets");
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, e);
    if (!len) return KB_ERR;
    int32_t *off = offsets->data;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) off[i + 1] = off[i] + (int32_t)len[i];
    free(len);

    const kb_topk_dist dist = kb_topk_params_of(c).dist;
    float *v = values->data;
    uint64_t rng = seed;
    for (int64_t i = 0; i < total; i++) {
        if (dist == KB_TOPK_TIES) {
            /* 9 levels: -1, -0.75, .., +1; a zero is -0 or +0 at random. */
            int64_t q = kb_rng_int(&rng, -4, 4);
            v[i] = q ? 0.25f * (float)q : (kb_rng_next(&rng) & 1 ? -0.0f : 0.0f);
        } else if (dist == KB_TOPK_NORMAL) {
            v[i] = (float)kb_rng_normal(&rng);
        } else {
            v[i] = (float)kb_rng_uniform(&rng);
        }
    }
    return KB_OK;
}

int kb_topk_check_offsets(const kb_tensor *offsets, const int64_t *len, int64_t total,
                          const char *values, const char *unit, const char *layout,
                          const char *items, kb_error *e) {
    const int32_t *off = offsets->data;
    const char *name = offsets->name;
    if (off[0] != 0) return kb_fail(e, "%s[0] = %d, expected 0", name, off[0]);
    int64_t want = 0;
    for (int64_t i = 1; i < offsets->shape[0]; i++) {
        want += len[i - 1];
        if (off[i] < off[i - 1])
            return kb_fail(e, "%s[%lld] = %d < %s[%lld] = %d: offsets never decrease", name,
                           (long long)i, off[i], name, (long long)(i - 1), off[i - 1]);
        if (off[i] > total)
            return kb_fail(e, "%s[%lld] = %d > %lld, the length of %s", name, (long long)i, off[i],
                           (long long)total, values);
        if (off[i] != want)
            return kb_fail(e, "%s[%lld] = %d, expected %lld: %s %lld of %s holds %lld %s", name,
                           (long long)i, off[i], (long long)want, unit, (long long)(i - 1), layout,
                           (long long)len[i - 1], items);
    }
    return KB_OK;
}

/* The reference's counts (min(k, length) at most) and the indices they
 * cover (within the segment); compare trusts a reference read from a file. */
static int check_topk_ref(const kb_tensors *ref, const int64_t *len, int64_t n, int64_t k,
                          kb_error *e) {
    const int32_t *cnt = kb_tensors_get(ref, "counts")->data;
    const int32_t *idx = kb_tensors_get(ref, "topk_indices")->data;
    for (int64_t s = 0; s < n; s++) {
        const int64_t most = len[s] < k ? len[s] : k;
        if (cnt[s] < 0 || cnt[s] > most)
            return kb_fail(e,
                           "counts[%lld] = %d outside [0, %lld]: min(k=%lld, the %lld values "
                           "of segment %lld)",
                           (long long)s, cnt[s], (long long)most, (long long)k, (long long)len[s],
                           (long long)s);
        for (int64_t j = 0; j < cnt[s]; j++) {
            const int32_t i = idx[s * k + j];
            if (i < 0 || i >= len[s])
                return kb_fail(e,
                               "topk_indices[%lld][%lld] = %d outside [0, %lld): segment %lld "
                               "holds %lld values",
                               (long long)s, (long long)j, i, (long long)len[s], (long long)s,
                               (long long)len[s]);
        }
    }
    return KB_OK;
}

static int topk_check_indices(const kb_case *c, const kb_tensors *in, const kb_tensors *ref,
                              kb_error *e) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, e);
    if (!len) return KB_ERR;
    const kb_topk_params p = kb_topk_params_of(c);
    char layout[KB_STR + 40];
    if (p.batch > 1)
        snprintf(layout, sizeof layout, "segments=%s batch=%lld", p.segments, (long long)p.batch);
    else
        snprintf(layout, sizeof layout, "segments=%s", p.segments);
    int rc = kb_topk_check_offsets(kb_tensors_get(in, "offsets"), len, total, "values", "segment",
                                   layout, "values", e);
    if (rc == KB_OK && ref) rc = check_topk_ref(ref, len, n, p.k, e);
    free(len);
    return rc;
}

/* Exact: every index must equal the reference's; a value must equal it as a
 * float (so -0 for +0 would pass, but both are the same element anyway). */
static int topk_compare(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                        const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc) {
    const kb_tensor *rc = kb_tensors_get(ref, "counts");
    const int32_t *rn = rc->data, *gn = kb_tensors_get(got, "counts")->data;
    const int32_t *ri = kb_tensors_get(ref, "topk_indices")->data;
    const int32_t *gi = kb_tensors_get(got, "topk_indices")->data;
    const float *rv = kb_tensors_get(ref, "topk_values")->data;
    const float *gv = kb_tensors_get(got, "topk_values")->data;
    int64_t segs = rc->shape[0], k = kb_topk_params_of(c).k, bad = 0, unwritten = 0;
    for (int64_t s = 0; s < segs; s++) {
        if (gn[s] != rn[s]) {
            if (!bad)
                snprintf(acc->note, sizeof acc->note, "segment %lld: count %d, reference %d",
                         (long long)s, gn[s], rn[s]);
            bad++;
        }
        for (int64_t j = 0; j < k; j++) {
            int64_t o = s * k + j;
            if (isnan(gv[o])) unwritten++;
            if (gi[o] == ri[o] && gv[o] == rv[o]) continue;
            if (!bad)
                snprintf(acc->note, sizeof acc->note,
                         "segment %lld slot %lld: index %d value %.9g, reference %d %.9g",
                         (long long)s, (long long)j, gi[o], gv[o], ri[o], rv[o]);
            bad++;
        }
    }
    acc->mismatches += bad;
    acc->unwritten += unwritten;
    if (bad) acc->pass = 0;
    return KB_OK;
}

static kb_cost topk_cost(const kb_case *c) {
    int64_t n = 0, total = 0;
    free(kb_topk_lengths(c, &n, &total, NULL));
    /* Read every value once, write k (value, index) pairs and a count per segment. */
    double bytes = 4.0 * (double)total + 4.0 * (double)(n + 1) +
                   (double)n * (8.0 * (double)kb_topk_params_of(c).k + 4.0);
    return (kb_cost){.flops = 0, .bytes = bytes};
}

static void topk_fuzz_case(uint64_t *rng, kb_case *c) {
    static const char *const dists[] = {"uniform", "ties", "normal"};
    char spec[KB_STR] = "";
    int64_t segs = kb_rng_int(rng, 1, 6);
    for (int64_t i = 0; i < segs; i++) {
        char part[32];
        int64_t length =
            kb_rng_int(rng, 0, 3) == 0 ? kb_rng_int(rng, 0, 3) : kb_rng_int(rng, 1, 20000);
        snprintf(part, sizeof part, "%s%lld", i ? "+" : "", (long long)length);
        strncat(spec, part, sizeof spec - strlen(spec) - 1);
    }
    char k[32];
    snprintf(k, sizeof k, "%lld", (long long)kb_rng_int(rng, 0, 1500));
    kb_case_set(c, "segments", spec, NULL);
    kb_case_set(c, "k", k, NULL);
    kb_case_set(c, "batch", kb_rng_int(rng, 0, 3) == 0 ? "2" : "1", NULL);
    kb_case_set(c, "dist", dists[kb_rng_int(rng, 0, 2)], NULL);
}

/* The baseline: the B rows of the op's variant list, as "name,name". */
#define X(NAME, FLAGS, SUMMARY)
#define B(NAME, FLAGS, SUMMARY) "," #NAME
static const char baselines[] =
#include "variants/topk/variants.def"
    ;
#undef X
#undef B

const kb_op kb_op_topk = {
    .name = "topk",
    .summary = "k largest of each segment (RPN levels), descending, ties by lower index",
    .axes = topk_axes,
    .sweeps = topk_sweeps,
    .inputs = topk_inputs,
    .outputs = topk_outputs,
    .baseline = baselines + 1,
    .validate = topk_validate,
    .describe = topk_describe,
    .make_inputs = topk_make_inputs,
    .reference = kb_topk_reference,
    .compare = topk_compare,
    .cost = topk_cost,
    .check_indices = topk_check_indices,
    .fuzz_case = topk_fuzz_case,
};
