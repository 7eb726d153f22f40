/* example_select.c — topk/example_select: the k largest values of each
 * segment on the CPU, the plainest way: copy a segment's (value, index)
 * pairs, sort them in the op's order, keep the first k. A host variant
 * (KB_HOST in plugin.c): its tensors are in host memory, its stream is NULL.
 * The op's contract is in kbench/ops/topk.h: descending, equal values by
 * lower index (-0 == +0, as floats compare), slots past the count -inf / -1.
 */
#include "kbench/kbench.h"

#include <math.h>
#include <stdlib.h>

typedef struct pair {
    float v;
    int32_t i;
} pair;

/* The op's order: the larger value first, then the lower index. */
static int better_first(const void *pa, const void *pb) {
    const pair *a = pa, *b = pb;
    if (a->v != b->v) return a->v > b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int select_supports(const kb_case *c, kb_error *why) {
    (void)c, (void)why;
    return KB_OK; /* any layout, any k */
}

/* The state: one scratch array, as long as the longest segment. */
static size_t select_bytes(const kb_case *c) {
    return (size_t)kb_topk_max_segment(c) * sizeof(pair);
}

static int select_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    if ((*state = malloc(select_bytes(c) + sizeof(pair)))) return KB_OK;
    kb_fail(e, "example_select: out of host memory for %zu bytes", select_bytes(c));
    return KB_OUT_OF_MEMORY;
}

static int select_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t stream,
                      kb_error *e) {
    (void)stream, (void)e; /* a host variant: no stream, and nothing here fails */
    pair *p = state;
    const float *values = kb_tensors_get(in, "values")->data;
    const kb_tensor *offsets = kb_tensors_get(in, "offsets");
    const int32_t *off = offsets->data;
    kb_tensor *top = kb_tensors_find(out, "topk_values");
    float *top_v = top->data;
    int32_t *top_i = kb_tensors_find(out, "topk_indices")->data;
    int32_t *counts = kb_tensors_find(out, "counts")->data;
    const int64_t segments = offsets->shape[0] - 1, k = top->shape[1]; /* [segments, k] */
    for (int64_t s = 0; s < segments; s++) {
        const int64_t n = off[s + 1] - off[s], kept = n < k ? n : k;
        for (int64_t j = 0; j < n; j++) p[j] = (pair){values[off[s] + j], (int32_t)j};
        qsort(p, (size_t)n, sizeof *p, better_first);
        for (int64_t j = 0; j < k; j++) { /* the value itself, bitwise: -0 stays -0 */
            top_v[s * k + j] = j < kept ? p[j].v : -INFINITY;
            top_i[s * k + j] = j < kept ? p[j].i : -1;
        }
        counts[s] = (int32_t)kept;
    }
    return KB_OK;
}

/* The state is the scratch array alone: free releases it. Not kb_-prefixed:
 * that prefix is kbench's, the functions a plugin calls. */
const kb_variant_impl example_select = {select_supports, select_bytes, select_setup, select_run,
                                        free};
