/* cpu_port.c — rpn_proposals/cpu_port: the RPN proposal step as the common
 * CPU ports of mmdetection's RPNHead write it (KB_HOST: host tensors,
 * wall-clock timing).
 *
 *   kbench check rpn_proposals -v cpu_port --sweep smoke      no GPU needed
 *
 * A thread per level (OpenMP over levels): the level's nms_pre best scores
 * by a partial sort (quickselect, then a sort of those nms_pre; score
 * descending, equal scores lower anchor index), delta2bbox on them, the
 * min-size filter. Then one greedy NMS over the levels' candidates
 * concatenated level-major, shifted by level * KB_RPN_LEVEL_OFFSET (mmcv's
 * batched_nms), ranked by score (ties: concatenation order), each candidate
 * tested against the boxes kept so far, stopping at max_per_img. The float
 * formulas are the op's (kb_rpn_delta2bbox, kb_nms_iou_above): the port
 * meets the op's semantics exactly, so it is held to the op's reference
 * (reference/rpn_proposals.c: full sorts and reference/nms.c's greedy).
 */
#include "kbench/variant.h"
#include "kbench/ops/nms_iou.h"
#include "kbench/ops/rpn_proposals.h"
#include "../common/host_rank.h"
#include "../common/variant_def.h"

#include <stdlib.h>
#include <string.h>

/* ranked.i: the anchor within its level; then the candidate's place */
typedef kb_ranked ranked;

typedef struct port_state {
    int levels;
    int64_t pre, max_out, total_cap;
    float img_w, img_h, min_size, iou;
    ranked *scratch; /* [sum of level sizes]: each level's slice */
    float *boxes;    /* [total_cap, 4]: candidates, each level from l * pre */
    float *scores;   /* [total_cap] */
    int64_t nlevel[KB_RPN_MAX_LEVELS];
    ranked *order;       /* [total_cap]: the concatenated candidates by score */
    int32_t *kept_from;  /* [max_out]: the kept candidates */
    float (*cand)[4];    /* [total_cap]: the concatenation, unshifted */
    float (*shifted)[4]; /* [total_cap]: shifted by level * KB_RPN_LEVEL_OFFSET */
    float *cand_score;   /* [total_cap] */
} port_state;

static int port_supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK;
}

static int64_t total_anchors(const kb_rpn_params *p) {
    int64_t t = 0;
    for (int l = 0; l < p->levels; l++) t += p->level_size[l];
    return t;
}

static int64_t candidate_cap(const kb_rpn_params *p) {
    int64_t t = 0;
    for (int l = 0; l < p->levels; l++)
        t += p->level_size[l] < p->nms_pre ? p->level_size[l] : p->nms_pre;
    return t;
}

static size_t port_bytes(const kb_case *c) {
    const kb_rpn_params p = kb_rpn_params_of(c);
    const size_t cap = (size_t)candidate_cap(&p), out = (size_t)p.max_per_img;
    return (size_t)total_anchors(&p) * sizeof(ranked) +
           (size_t)p.levels * (size_t)p.nms_pre * 5 * sizeof(float) +
           cap * (sizeof(ranked) + 9 * sizeof(float)) + out * sizeof(int32_t);
}

static void port_teardown(void *p) {
    port_state *st = p;
    free(st->scratch);
    free(st->boxes);
    free(st->scores);
    free(st->order);
    free(st->kept_from);
    free(st->cand);
    free(st->shifted);
    free(st->cand_score);
    free(st);
}

static int port_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    port_state *st = calloc(1, sizeof *st);
    if (!st) {
        kb_fail(e, "cpu_port: out of host memory");
        return KB_OUT_OF_MEMORY;
    }
    *state = st;
    const kb_rpn_params p = kb_rpn_params_of(c);
    st->levels = p.levels;
    st->pre = p.nms_pre;
    st->max_out = p.max_per_img;
    st->img_w = (float)p.img_w;
    st->img_h = (float)p.img_h;
    st->min_size = p.min_bbox_size;
    st->iou = p.iou;
    st->total_cap = candidate_cap(&p);
    const size_t per_level = (size_t)p.levels * (size_t)p.nms_pre + 1,
                 cap = (size_t)st->total_cap + 1;
    st->scratch = malloc(((size_t)total_anchors(&p) + 1) * sizeof *st->scratch);
    st->boxes = malloc(per_level * 4 * sizeof *st->boxes);
    st->scores = malloc(per_level * sizeof *st->scores);
    st->order = malloc(cap * sizeof *st->order);
    st->kept_from = malloc(((size_t)p.max_per_img + 1) * sizeof *st->kept_from);
    st->cand = malloc(cap * sizeof *st->cand);
    st->shifted = malloc(cap * sizeof *st->shifted);
    st->cand_score = malloc(cap * sizeof *st->cand_score);
    if (!st->scratch || !st->boxes || !st->scores || !st->order || !st->kept_from || !st->cand ||
        !st->shifted || !st->cand_score) {
        kb_fail(e, "cpu_port: out of host memory for %lld candidates", (long long)st->total_cap);
        return KB_OUT_OF_MEMORY;
    }
    return KB_OK;
}

/* Level l: its nms_pre best, decoded and filtered into boxes/scores from
 * l * pre, in rank order; their number in nlevel[l]. */
static void one_level(port_state *st, int l, const int32_t *off, const float *scores,
                      const float *deltas, const float *anchors) {
    const int64_t base = off[l], n = off[l + 1] - off[l], take = n < st->pre ? n : st->pre;
    ranked *e = st->scratch + base;
    for (int64_t j = 0; j < n; j++) e[j] = (ranked){scores[base + j], (int32_t)j};
    if (take > 0 && take < n) kb_ranked_select(e, n, take);
    qsort(e, (size_t)take, sizeof *e, kb_ranked_cmp);
    float *boxes = st->boxes + 4 * (size_t)l * (size_t)st->pre;
    float *sc = st->scores + (size_t)l * (size_t)st->pre;
    int64_t m = 0;
    for (int64_t j = 0; j < take; j++) {
        const int64_t a = base + e[j].i;
        kb_rpn_delta2bbox(anchors + 4 * a, deltas + 4 * a, st->img_w, st->img_h, boxes + 4 * m);
        if (!kb_rpn_box_valid(boxes + 4 * m, st->min_size)) continue;
        sc[m++] = e[j].v;
    }
    st->nlevel[l] = m;
}

static int port_run(void *p, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    (void)s;
    (void)e;
    port_state *st = p;
    const kb_rpn_data io = kb_rpn_data_of(in, out);
    const float *scores = io.scores, *deltas = io.deltas, *anchors = io.anchors;
    const int32_t *off = io.level_offsets;
    float *proposals = io.proposals;
    int32_t *count = io.count;

#pragma omp parallel for schedule(dynamic, 1)
    for (int l = 0; l < st->levels; l++) one_level(st, l, off, scores, deltas, anchors);

    /* The concatenation, level-major, and its order by score. */
    int64_t nc = 0;
    for (int l = 0; l < st->levels; l++)
        for (int64_t j = 0; j < st->nlevel[l]; j++) {
            const size_t at = (size_t)l * (size_t)st->pre + (size_t)j;
            memcpy(st->cand[nc], st->boxes + 4 * at, sizeof st->cand[nc]);
            for (int d = 0; d < 4; d++)
                st->shifted[nc][d] = st->cand[nc][d] + (float)l * KB_RPN_LEVEL_OFFSET;
            st->cand_score[nc] = st->scores[at];
            st->order[nc] = (ranked){st->scores[at], (int32_t)nc};
            nc++;
        }
    qsort(st->order, (size_t)nc, sizeof *st->order, kb_ranked_cmp);

    /* Greedy over the shifted boxes: levels lie 2^11 apart, so a box only
     * ever overlaps keeps of its own level (kbench/ops/rpn_proposals.h). */
    int64_t nk = 0;
    for (int64_t r = 0; r < nc && nk < st->max_out; r++) {
        const int32_t ci = st->order[r].i;
        const float *b = st->shifted[ci];
        int suppressed = 0;
        for (int64_t k = 0; k < nk && !suppressed; k++) {
            const float *a = st->shifted[st->kept_from[k]];
            suppressed = kb_nms_iou_above(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], st->iou);
        }
        if (!suppressed) st->kept_from[nk++] = ci;
    }
    memset(proposals, 0, sizeof(float) * 5 * (size_t)st->max_out);
    for (int64_t k = 0; k < nk; k++) {
        memcpy(proposals + 5 * k, st->cand[st->kept_from[k]], 4 * sizeof(float));
        proposals[5 * k + 4] = st->cand_score[st->kept_from[k]];
    }
    *count = (int32_t)nk;
    return KB_OK;
}

KB_DEFINE_VARIANT(rpn_proposals, cpu_port) = {port_supports, port_bytes, port_setup, port_run,
                                              port_teardown};
