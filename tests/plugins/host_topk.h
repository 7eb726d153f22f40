/* host_topk.h — the test plugins' right host topk (test_plugin.c,
 * turns_plugin.c): a full sort of each segment, value descending, equal
 * values by lower index, -0 == +0; reversed (ascending within the k) makes
 * the wrong one the loader's tests catch. */
#ifndef KB_TEST_HOST_TOPK_H
#define KB_TEST_HOST_TOPK_H

#include "kbench/variant.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    float v;
    int32_t i;
} kbt_entry;

static int kbt_order(const void *a, const void *b) {
    const kbt_entry *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int kbt_sort_topk(const kb_tensors *in, kb_tensors *out, int reversed) {
    const float *v = kb_tensors_get(in, "values")->data;
    const kb_tensor *offs = kb_tensors_get(in, "offsets");
    const int32_t *off = offs->data;
    int64_t segs = offs->shape[0] - 1, k = kb_tensors_find(out, "topk_values")->shape[1];
    float *ov = kb_tensors_find(out, "topk_values")->data;
    int32_t *oi = kb_tensors_find(out, "topk_indices")->data,
            *on = kb_tensors_find(out, "counts")->data;
    for (int64_t s = 0; s < segs; s++) {
        int64_t n = off[s + 1] - off[s], keep = n < k ? n : k;
        kbt_entry *t = malloc((size_t)(n ? n : 1) * sizeof *t);
        if (!t) return KB_ERR;
        for (int64_t j = 0; j < n; j++)
            t[j] = (kbt_entry){v[off[s] + j] == 0 ? 0.0f : v[off[s] + j], (int32_t)j};
        qsort(t, (size_t)n, sizeof *t, kbt_order);
        for (int64_t j = 0; j < k; j++) {
            int64_t from = reversed ? keep - 1 - j : j;
            ov[s * k + j] = j < keep ? v[off[s] + t[from].i] : -INFINITY;
            oi[s * k + j] = j < keep ? t[from].i : -1;
        }
        on[s] = (int32_t)keep;
        free(t);
    }
    return KB_OK;
}

#endif
