/* topk.c (reference) — the k largest of each segment, on the CPU.
 *
 * One bounded min-heap of k (value, index) pairs per segment, O(n log k),
 * segments in parallel (OpenMP); then the heap is sorted. "Better" is the
 * contract's order: larger value, then lower index; values compare as floats
 * (-0 == +0). Slots past min(k, n) get the sentinel -inf / -1.
 */
#include "topk.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    float v;
    int32_t i;
} entry;

static int better(entry a, entry b) {
    return a.v > b.v || (a.v == b.v && a.i < b.i);
}

/* Min-heap on "better": the root is the worst entry kept so far. */
static void sift_down(entry *h, int64_t n, int64_t at) {
    for (;;) {
        int64_t l = 2 * at + 1, r = l + 1, worst = at;
        if (l < n && better(h[worst], h[l])) worst = l;
        if (r < n && better(h[worst], h[r])) worst = r;
        if (worst == at) return;
        entry t = h[at];
        h[at] = h[worst];
        h[worst] = t;
        at = worst;
    }
}

static int by_order(const void *a, const void *b) {
    entry x = *(const entry *)a, y = *(const entry *)b;
    return better(x, y) ? -1 : better(y, x) ? 1 : 0;
}

int kb_topk_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    const float *v = kb_tensors_get(in, "values")->data;
    const kb_tensor *offsets = kb_tensors_get(in, "offsets");
    const int32_t *off = offsets->data;
    float *ov = kb_tensors_find(out, "topk_values")->data;
    int32_t *oi = kb_tensors_find(out, "topk_indices")->data;
    int32_t *on = kb_tensors_find(out, "counts")->data;
    int64_t segs = offsets->shape[0] - 1, k = kb_topk_params_of(c).k;
    int failed = 0;

#pragma omp parallel for schedule(dynamic, 1) reduction(| : failed)
    for (int64_t s = 0; s < segs; s++) {
        int64_t n = off[s + 1] - off[s], keep = n < k ? n : k;
        entry *h = malloc((size_t)(keep ? keep : 1) * sizeof *h);
        if (!h) {
            failed = 1;
            continue;
        }
        for (int64_t j = 0; j < n; j++) {
            entry x = {v[off[s] + j], (int32_t)j};
            if (j < keep) {
                h[j] = x;
                if (j == keep - 1)
                    for (int64_t p = keep / 2; p-- > 0;) sift_down(h, keep, p);
            } else if (keep && better(x, h[0])) {
                h[0] = x;
                sift_down(h, keep, 0);
            }
        }
        qsort(h, (size_t)keep, sizeof *h, by_order);
        for (int64_t j = 0; j < k; j++) {
            ov[s * k + j] = j < keep ? h[j].v : -INFINITY;
            oi[s * k + j] = j < keep ? h[j].i : -1;
        }
        on[s] = (int32_t)keep;
        free(h);
    }
    if (failed)
        return kb_fail(e, "topk reference: out of host memory for a heap of %lld", (long long)k);
    return KB_OK;
}
