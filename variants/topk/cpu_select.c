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
#include "kbench.h"
#include "topk.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

typedef struct entry {
    float v;
    int32_t i;
} entry;

typedef struct select_state {
    int64_t longest;
    int threads;
    entry *scratch; /* [threads, longest] */
} select_state;

static int better(entry a, entry b) {
    return a.v > b.v || (a.v == b.v && a.i < b.i);
}

static void swap(entry *a, entry *b) {
    entry t = *a;
    *a = *b;
    *b = t;
}

/* Reorder e[0..n) so that its k best are e[0..k) (in no order), as
 * std::nth_element(e, e + k, e + n, better) leaves them. */
static void select_best(entry *e, int64_t n, int64_t k) {
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        int64_t mid = lo + (hi - lo) / 2;
        /* median of three to e[mid]: sorted inputs stay O(n) */
        if (better(e[mid], e[lo])) swap(&e[mid], &e[lo]);
        if (better(e[hi], e[lo])) swap(&e[hi], &e[lo]);
        if (better(e[hi], e[mid])) swap(&e[hi], &e[mid]);
        entry pivot = e[mid];
        int64_t i = lo, j = hi;
        while (i <= j) { /* Hoare: [lo, j] no worse than pivot, [i, hi] no better */
            while (better(e[i], pivot)) i++;
            while (better(pivot, e[j])) j--;
            if (i <= j) swap(&e[i++], &e[j--]);
        }
        if (k - 1 <= j)
            hi = j;
        else if (k - 1 >= i)
            lo = i;
        else
            return; /* k - 1 lies between: everything before it is better */
    }
}

static int by_order(const void *pa, const void *pb) {
    entry a = *(const entry *)pa, b = *(const entry *)pb;
    return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

static int select_supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK;
}

static size_t select_bytes(const kb_case *c) {
    return (size_t)omp_get_max_threads() * (size_t)kb_topk_max_segment(c) * sizeof(entry);
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
        entry *e_ = st->scratch + (size_t)omp_get_thread_num() * (size_t)st->longest;
        const int64_t n = off[seg + 1] - off[seg], keep = n < k ? n : k;
        for (int64_t j = 0; j < n; j++) e_[j] = (entry){v[off[seg] + j], (int32_t)j};
        if (keep > 0 && keep < n) select_best(e_, n, keep);
        qsort(e_, (size_t)keep, sizeof *e_, by_order);
        for (int64_t j = 0; j < k; j++) {
            ov[seg * k + j] = j < keep ? e_[j].v : -INFINITY;
            oi[seg * k + j] = j < keep ? e_[j].i : -1;
        }
        on[seg] = (int32_t)keep;
    }
    return KB_OK;
}

const kb_variant_impl kb_topk_cpu_select = {select_supports, select_bytes, select_setup, select_run,
                                            select_teardown};
