/* rpn_proposals.c (reference) — mmdetection's RPN proposals on the CPU.
 *
 * The steps of kernels/rpn_proposals.h in order, with the shared float
 * formulas (kb_rpn_delta2bbox, kb_nms_iou via kb_nms_greedy_ref) so that the
 * GPU variants must match bit for bit. Ranking reuses the nms reference's
 * kb_nms_rank (score descending, equal scores lower index first).
 */
#include "rpn_proposals.h"

#include "nms.h"

#include <stdlib.h>
#include <string.h>

int kb_rpn_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    const float *scores = kb_tensors_get(in, "scores")->data;
    const float *deltas = kb_tensors_get(in, "deltas")->data;
    const float *anchors = kb_tensors_get(in, "anchors")->data;
    const kb_tensor *lo = kb_tensors_get(in, "level_offsets");
    const int32_t *off = lo->data;
    const int levels = (int)lo->shape[0] - 1;
    const kb_rpn_params p = kb_rpn_params_of(c);
    const int64_t pre = p.nms_pre, max_out = p.max_per_img;
    const float img_w = (float)p.img_w, img_h = (float)p.img_h;
    const float min_size = p.min_bbox_size, iou = p.iou;
    float *proposals = kb_tensors_find(out, "proposals")->data;
    int32_t *count = kb_tensors_find(out, "count")->data;

    int64_t longest = 0, cap = 0;
    for (int l = 0; l < levels; l++) {
        int64_t n = off[l + 1] - off[l];
        longest = n > longest ? n : longest;
        cap += n < pre ? n : pre;
    }
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(longest + cap + 1));
    float *shifted = malloc(sizeof(float) * 4 * (size_t)(cap + 1));
    float *raw = malloc(sizeof(float) * 4 * (size_t)(cap + 1));
    float *kept_score = malloc(sizeof(float) * (size_t)(cap + 1));
    int32_t *keep = malloc(sizeof(int32_t) * (size_t)(cap + 1));
    if (!order || !shifted || !raw || !kept_score || !keep) {
        free(order), free(shifted), free(raw), free(kept_score), free(keep);
        return kb_fail(e, "rpn reference: out of host memory for %lld candidates", (long long)cap);
    }

    /* 1-3: per level the nms_pre best, decoded, filtered; concatenated level-major. */
    int64_t nc = 0;
    for (int l = 0; l < levels; l++) {
        const int64_t base = off[l], n = off[l + 1] - off[l], take = n < pre ? n : pre;
        kb_nms_rank(scores + base, n, order);
        for (int64_t j = 0; j < take; j++) {
            const int64_t a = base + order[j];
            float box[4];
            kb_rpn_delta2bbox(anchors + 4 * a, deltas + 4 * a, img_w, img_h, box);
            if (!kb_rpn_box_valid(box, min_size)) continue;
            for (int d = 0; d < 4; d++) {
                raw[4 * nc + d] = box[d];
                shifted[4 * nc + d] = box[d] + (float)l * KB_RPN_LEVEL_OFFSET;
            }
            kept_score[nc++] = scores[a];
        }
    }

    /* 4-5: one NMS over the shifted boxes, ranked by score (ties: concatenation order). */
    int64_t *rank = order + longest;
    kb_nms_rank(kept_score, nc, rank);
    int64_t kept = kb_nms_greedy_ref(shifted, NULL, rank, nc, iou, max_out, keep);
    if (kept < 0) {
        free(order), free(shifted), free(raw), free(kept_score), free(keep);
        return kb_fail(e, "rpn reference: out of host memory in NMS of %lld boxes", (long long)nc);
    }
    memset(proposals, 0, sizeof(float) * 5 * (size_t)max_out);
    for (int64_t r = 0; r < kept; r++) {
        memcpy(proposals + 5 * r, raw + 4 * keep[r], 4 * sizeof(float));
        proposals[5 * r + 4] = kept_score[keep[r]];
    }
    *count = (int32_t)kept;
    free(order), free(shifted), free(raw), free(kept_score), free(keep);
    return KB_OK;
}
