/* rpn_proposals.c (reference) — mmdetection's RPN proposals on the CPU.
 *
 * kb_rpn_reference: the steps of include/kbench/ops/rpn_proposals.h in order, with the
 * shared float formulas (kb_rpn_delta2bbox, kb_nms_iou via
 * kb_nms_greedy_ref) so that the GPU variants must match bit for bit.
 * Ranking reuses the nms reference's kb_nms_rank (score descending, equal
 * scores lower index first).
 * kb_rpn_port_reference: the rule of the common CUDA port (the same header,
 * "the common CUDA port"), the truth the KB_INEXACT cuda_port variant is
 * held to, built from the same pieces.
 */
#include "rpn_proposals.h"

#include "nms.h"

#include <stdlib.h>
#include <string.h>

/* What both references read and write. */
typedef struct rpn_io {
    kb_rpn_data t;
    int levels;
    int64_t pre, max_out, longest; /* longest: the most anchors of one level */
    float img_w, img_h, min_size, iou;
} rpn_io;

static rpn_io io_of(const kb_case *c, const kb_tensors *in, kb_tensors *out) {
    const kb_rpn_params p = kb_rpn_params_of(c);
    rpn_io io = {
        .t = kb_rpn_data_of(in, out),
        .levels = (int)kb_tensors_get(in, "level_offsets")->shape[0] - 1,
        .pre = p.nms_pre,
        .max_out = p.max_per_img,
        .img_w = (float)p.img_w,
        .img_h = (float)p.img_h,
        .min_size = p.min_bbox_size,
        .iou = p.iou,
    };
    for (int l = 0; l < io.levels; l++) {
        const int64_t n = io.t.level_offsets[l + 1] - io.t.level_offsets[l];
        io.longest = n > io.longest ? n : io.longest;
    }
    return io;
}

/* Scratch of both: a level's ranking then the candidates' (order), and per
 * candidate its box (4 floats), score and a keep slot. */
typedef struct rpn_scratch {
    int64_t *order;
    float *box, *score;
    int32_t *keep;
} rpn_scratch;

static void scratch_free(rpn_scratch *s) {
    free(s->order), free(s->box), free(s->score), free(s->keep);
}

static int scratch_alloc(rpn_scratch *s, int64_t longest, int64_t cap) {
    s->order = malloc(sizeof(int64_t) * (size_t)(longest + cap + 1));
    s->box = malloc(sizeof(float) * 4 * (size_t)(cap + 1));
    s->score = malloc(sizeof(float) * (size_t)(cap + 1));
    s->keep = malloc(sizeof(int32_t) * (size_t)(cap + 1));
    if (s->order && s->box && s->score && s->keep) return KB_OK;
    scratch_free(s);
    return KB_ERR;
}

/* Level l's ranking into s->order; the number of its best the rule takes. */
static int64_t rank_level(const rpn_io *io, int l, rpn_scratch *s) {
    const int64_t n = io->t.level_offsets[l + 1] - io->t.level_offsets[l];
    kb_nms_rank(io->t.scores + io->t.level_offsets[l], n, s->order);
    return n < io->pre ? n : io->pre;
}

/* Level l's j-th best: its box (delta2bbox) into box, its score returned. */
static float decode(const rpn_io *io, int l, const rpn_scratch *s, int64_t j, float *box) {
    const int64_t a = io->t.level_offsets[l] + s->order[j];
    kb_rpn_delta2bbox(io->t.anchors + 4 * a, io->t.deltas + 4 * a, io->img_w, io->img_h, box);
    return io->t.scores[a];
}

/* One NMS over the n shifted candidate boxes (s->box), ranked by score, ties
 * by candidate index; the kept candidates into s->keep; -1 out of memory. */
static int64_t nms(const rpn_io *io, rpn_scratch *s, int64_t n) {
    int64_t *rank = s->order + io->longest;
    kb_nms_rank(s->score, n, rank);
    return kb_nms_greedy_ref(s->box, NULL, rank, n, io->iou, io->max_out, s->keep);
}

int kb_rpn_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    const rpn_io io = io_of(c, in, out);
    int64_t cap = 0;
    for (int l = 0; l < io.levels; l++) {
        const int64_t n = io.t.level_offsets[l + 1] - io.t.level_offsets[l];
        cap += n < io.pre ? n : io.pre;
    }
    rpn_scratch s;
    float *raw = malloc(sizeof(float) * 4 * (size_t)(cap + 1));
    if (!raw || scratch_alloc(&s, io.longest, cap) != KB_OK) {
        free(raw);
        return kb_fail(e, "rpn reference: out of host memory for %lld candidates", (long long)cap);
    }

    /* 1-3: per level the nms_pre best, decoded, filtered; concatenated level-major. */
    int64_t nc = 0;
    for (int l = 0; l < io.levels; l++) {
        const int64_t take = rank_level(&io, l, &s);
        for (int64_t j = 0; j < take; j++) {
            float *box = raw + 4 * nc;
            const float score = decode(&io, l, &s, j, box);
            if (!kb_rpn_box_valid(box, io.min_size)) continue;
            for (int d = 0; d < 4; d++) s.box[4 * nc + d] = box[d] + (float)l * KB_RPN_LEVEL_OFFSET;
            s.score[nc++] = score;
        }
    }

    /* 4-5: one NMS over the shifted boxes, ranked by score (ties: concatenation order). */
    const int64_t kept = nms(&io, &s, nc);
    if (kept < 0) {
        free(raw);
        scratch_free(&s);
        return kb_fail(e, "rpn reference: out of host memory in NMS of %lld boxes", (long long)nc);
    }
    memset(io.t.proposals, 0, sizeof(float) * 5 * (size_t)io.max_out);
    for (int64_t r = 0; r < kept; r++) {
        memcpy(io.t.proposals + 5 * r, raw + 4 * s.keep[r], 4 * sizeof(float));
        io.t.proposals[5 * r + 4] = s.score[s.keep[r]];
    }
    *io.t.count = (int32_t)kept;
    free(raw);
    scratch_free(&s);
    return KB_OK;
}

int kb_rpn_port_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    const rpn_io io = io_of(c, in, out);
    const int64_t pre = io.pre, n = (int64_t)io.levels * pre;
    rpn_scratch s;
    if (scratch_alloc(&s, io.longest, n) != KB_OK)
        return kb_fail(e, "rpn port reference: out of host memory for %lld candidates",
                       (long long)n);

    /* 1-2: per level the nms_pre best, then zero-score pads up to nms_pre;
     * small boxes (pads among them) made 0.5 px squares, none removed. */
    float top = 0.0f; /* M, the largest coordinate: all are >= 0 (clamped to the image) */
    for (int l = 0; l < io.levels; l++) {
        const int64_t take = rank_level(&io, l, &s);
        for (int64_t j = 0; j < pre; j++) {
            const int64_t at = l * pre + j;
            float *box = s.box + 4 * at;
            if (j < take) {
                s.score[at] = decode(&io, l, &s, j, box);
            } else {
                box[0] = box[1] = box[2] = box[3] = 0.0f;
                s.score[at] = 0.0f;
            }
            kb_rpn_port_small_box(box, io.min_size);
            for (int d = 0; d < 4; d++) top = box[d] > top ? box[d] : top;
        }
    }

    /* 3: shifted by l * (M + 1) in place; one NMS over all levels. */
    for (int64_t at = 0; at < n; at++) {
        const float o = kb_rpn_port_offset((int)(at / pre), top);
        for (int d = 0; d < 4; d++) s.box[4 * at + d] = s.box[4 * at + d] + o;
    }
    const int64_t kept = nms(&io, &s, n);
    if (kept < 0) {
        scratch_free(&s);
        return kb_fail(e, "rpn port reference: out of host memory in NMS of %lld boxes",
                       (long long)n);
    }

    /* 4: the kept, unshifted by subtracting the same offset. */
    memset(io.t.proposals, 0, sizeof(float) * 5 * (size_t)io.max_out);
    for (int64_t r = 0; r < kept; r++) {
        const int64_t at = s.keep[r];
        const float o = kb_rpn_port_offset((int)(at / pre), top);
        for (int d = 0; d < 4; d++) io.t.proposals[5 * r + d] = s.box[4 * at + d] - o;
        io.t.proposals[5 * r + 4] = s.score[at];
    }
    *io.t.count = (int32_t)kept;
    scratch_free(&s);
    return KB_OK;
}
