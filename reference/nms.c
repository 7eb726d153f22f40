/* nms.c (reference) — greedy and fast NMS on the CPU, the truth every variant
 * is checked against. Plain loops, OpenMP; the IoU is kbench/ops/nms_iou.h, the
 * same fp32 rule the GPU kernels use (this file is built -ffp-contract=off).
 *
 * Greedy walks boxes in rank order and keeps a box unless a kept box of its
 * class overlaps it above the threshold. It runs in chunks of candidates:
 * each candidate is first tested in parallel against the boxes kept before the
 * chunk, then the survivors are resolved serially against the chunk's own
 * keeps — the same decisions as the serial walk, O(n * kept) tests.
 * Fast NMS drops a box when any higher-ranked box of its class overlaps it
 * above the threshold, kept or not.
 */
#include "nms.h"
#include "kbench/ops/nms_iou.h"

#include <stdlib.h>

typedef struct {
    float score;
    int64_t index;
} ranked;

/* The rank rule: score descending, equal scores (-0 == +0 included) lower
 * index first. Negative: box a ranks before box b. */
static int rank_cmp(float sa, int64_t a, float sb, int64_t b) {
    if (sa != sb) return sa > sb ? -1 : 1;
    return (a > b) - (a < b);
}

static int by_rank(const void *pa, const void *pb) {
    const ranked *a = pa, *b = pb;
    return rank_cmp(a->score, a->index, b->score, b->index);
}

static int ranks_before(const float *scores, int64_t a, int64_t b) {
    return rank_cmp(scores[a], a, scores[b], b) < 0;
}

/* Heap sort of order[0, n) by rank: the heap's root is the box ranked last. */
static void sift_down(const float *scores, int64_t *order, int64_t root, int64_t n) {
    for (int64_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && ranks_before(scores, order[child], order[child + 1])) child++;
        if (!ranks_before(scores, order[root], order[child])) return;
        int64_t t = order[root];
        order[root] = order[child];
        order[child] = t;
    }
}

void kb_nms_rank_in_place(const float *scores, int64_t n, int64_t *order) {
    for (int64_t i = 0; i < n; i++) order[i] = i;
    for (int64_t i = n / 2 - 1; i >= 0; i--) sift_down(scores, order, i, n);
    for (int64_t end = n - 1; end > 0; end--) {
        int64_t t = order[0];
        order[0] = order[end];
        order[end] = t;
        sift_down(scores, order, 0, end);
    }
}

/* The rank sorts (score, index) pairs, contiguous for the sort; where that
 * buffer cannot be had it ranks in order itself, so order is always the
 * rank, never left as it was. */
void kb_nms_rank(const float *scores, int64_t n, int64_t *order) {
    ranked *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    if (!r) {
        kb_nms_rank_in_place(scores, n, order);
        return;
    }
    for (int64_t i = 0; i < n; i++) r[i] = (ranked){scores[i], i};
    qsort(r, (size_t)n, sizeof *r, by_rank);
    for (int64_t i = 0; i < n; i++) order[i] = r[i].index;
    free(r);
}

/* Does kept box j suppress candidate i? */
static int suppresses(const float *boxes, const int32_t *classes, int64_t j, int64_t i, float iou) {
    if (classes && classes[j] != classes[i]) return 0;
    return kb_nms_suppresses(boxes + 4 * j, boxes + 4 * i, iou);
}

enum { CHUNK = 512 };

int64_t kb_nms_greedy_ref(const float *boxes, const int32_t *classes, const int64_t *order,
                          int64_t n, float iou, int64_t max_out, int32_t *keep) {
    int64_t cap = max_out > 0 && max_out < n ? max_out : n;
    int64_t *kept = malloc((size_t)(n > 0 ? n : 1) * sizeof *kept);
    if (!kept) return -1;
    int64_t nk = 0;
    for (int64_t start = 0; start < n && nk < cap; start += CHUNK) {
        int64_t end = start + CHUNK < n ? start + CHUNK : n, before = nk;
        unsigned char alive[CHUNK];
#pragma omp parallel for schedule(dynamic, 8)
        for (int64_t r = start; r < end; r++) {
            int64_t i = order[r];
            unsigned char a = 1;
            for (int64_t k = 0; k < before && a; k++)
                if (suppresses(boxes, classes, kept[k], i, iou)) a = 0;
            alive[r - start] = a;
        }
        for (int64_t r = start; r < end && nk < cap; r++) {
            if (!alive[r - start]) continue;
            int64_t i = order[r];
            int a = 1;
            for (int64_t k = before; k < nk && a; k++)
                if (suppresses(boxes, classes, kept[k], i, iou)) a = 0;
            if (a) kept[nk++] = i;
        }
    }
    for (int64_t k = 0; k < nk; k++) keep[k] = (int32_t)kept[k];
    free(kept);
    return nk;
}

int64_t kb_nms_fast_ref(const float *boxes, const int32_t *classes, const int64_t *order, int64_t n,
                        float iou, int64_t max_out, int32_t *keep) {
    int64_t cap = max_out > 0 && max_out < n ? max_out : n;
    unsigned char *dropped = malloc((size_t)(n > 0 ? n : 1));
    if (!dropped) return -1;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t r = 0; r < n; r++) {
        int64_t i = order[r];
        unsigned char d = 0;
        for (int64_t q = 0; q < r && !d; q++)
            if (suppresses(boxes, classes, order[q], i, iou)) d = 1;
        dropped[r] = d;
    }
    int64_t nk = 0;
    for (int64_t r = 0; r < n && nk < cap; r++)
        if (!dropped[r]) keep[nk++] = (int32_t)order[r];
    free(dropped);
    return nk;
}

int kb_nms_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    const kb_tensor *boxes = kb_tensors_get(in, "boxes"), *scores = kb_tensors_get(in, "scores"),
                    *classes = kb_tensors_get(in, "classes");
    kb_tensor *keep = kb_tensors_find(out, "keep"), *count = kb_tensors_find(out, "count");
    const kb_nms_params p = kb_nms_params_of(c);
    int64_t n = p.n;
    int64_t *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order) return kb_fail(e, "nms reference: out of host memory for n=%lld", (long long)n);
    kb_nms_rank(scores->data, n, order);
    int64_t nk = kb_nms_greedy_ref(boxes->data, p.classes > 1 ? classes->data : NULL, order, n,
                                   p.iou, p.max_out, keep->data);
    free(order);
    if (nk < 0) return kb_fail(e, "nms reference: out of host memory for n=%lld", (long long)n);
    ((int32_t *)count->data)[0] = (int32_t)nk;
    return KB_OK;
}
