/* cpu_select.c — topk/cpu_select: the k largest per segment on the CPU, as
 * a C++ port would write it with std::nth_element + std::sort (KB_HOST:
 * host tensors, wall-clock timing).
 *
 *   kbench check topk -v cpu_select --sweep smoke      no GPU needed
 *
 * Per segment: copy (value, index) pairs, quickselect so that the k best
 * come first (median-of-three pivot, Hoare partition, O(n) expected), then
 * sort those k: O(n + k log k). "Better" is the op's order: larger value,
 * then lower index (-0 == +0, as floats compare). Segments in parallel
 * (OpenMP), each thread with its own scratch. The reference
 * (reference/topk.c) is another design: a bounded heap, O(n log k).
 */
#include "kbench/variant.h"
#include "kbench/ops/topk.h"
#include "../common/host_rank.h"
#include "../common/variant_def.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

typedef struct select_state {
    int64_t longest;
    int threads;
    kb_ranked *scratch; /* [threads, longest] */
} select_state;

static int select_supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK;
}

static size_t select_bytes(const kb_case *c) {
    return (size_t)omp_get_max_threads() * (size_t)kb_topk_max_segment(c) * sizeof(kb_ranked);
}

static void select_teardown(void *p) {
    select_state *st = p;
    free(st->scratch);
    free(st);
}

static int select_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    select_state *st = calloc(1, sizeof *st);
    if (!st) {
        kb_fail(e, "cpu_select: out of host memory");
        return KB_OUT_OF_MEMORY;
    }
    *state = st;
    st->longest = kb_topk_max_segment(c);
    st->threads = omp_get_max_threads();
    st->scratch =
        malloc((size_t)st->threads * (size_t)(st->longest ? st->longest : 1) * sizeof *st->scratch);
    if (!st->scratch) {
        kb_fail(e, "cpu_select: out of host memory for %d x %lld entries", st->threads,
                (long long)st->longest);
        return KB_OUT_OF_MEMORY;
    }
    return KB_OK;
}

static int select_run(void *p, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    (void)s;
    (void)e;
    select_state *st = p;
    const float *v = kb_tensors_get(in, "values")->data;
    const kb_tensor *offsets = kb_tensors_get(in, "offsets");
    const int32_t *off = offsets->data;
    const kb_tensor *tv = kb_tensors_find(out, "topk_values");
    float *ov = tv->data;
    int32_t *oi = kb_tensors_find(out, "topk_indices")->data;
    int32_t *on = kb_tensors_find(out, "counts")->data;
    const int64_t segs = offsets->shape[0] - 1, k = tv->shape[1];
#pragma omp parallel for schedule(dynamic, 1) num_threads(st->threads)
    for (int64_t seg = 0; seg < segs; seg++) {
        kb_ranked *e_ = st->scratch + (size_t)omp_get_thread_num() * (size_t)st->longest;
        const int64_t n = off[seg + 1] - off[seg], keep = n < k ? n : k;
        for (int64_t j = 0; j < n; j++) e_[j] = (kb_ranked){v[off[seg] + j], (int32_t)j};
        if (keep > 0 && keep < n) kb_ranked_select(e_, n, keep);
        qsort(e_, (size_t)keep, sizeof *e_, kb_ranked_cmp);
        for (int64_t j = 0; j < k; j++) {
            ov[seg * k + j] = j < keep ? e_[j].v : -INFINITY;
            oi[seg * k + j] = j < keep ? e_[j].i : -1;
        }
        on[seg] = (int32_t)keep;
    }
    return KB_OK;
}

KB_DEFINE_VARIANT(topk, cpu_select) = {select_supports, select_bytes, select_setup, select_run,
                                       select_teardown};
