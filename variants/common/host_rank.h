/* host_rank.h — (value, index) pairs in the ops' order of scores: the larger
 * value first, equal values (-0 == +0, as floats compare) by the lower index.
 * The host variants' selection (topk/cpu_select, rpn_proposals/cpu_port): a
 * quickselect that puts the k best first, as std::nth_element does, and a
 * qsort comparator for the k it leaves. Plain C; static inline. */
#ifndef KB_HOST_RANK_H
#define KB_HOST_RANK_H

#include <stdint.h>

typedef struct kb_ranked {
    float v;
    int32_t i;
} kb_ranked;

static inline int kb_ranked_better(kb_ranked a, kb_ranked b) {
    return a.v > b.v || (a.v == b.v && a.i < b.i);
}

/* qsort: best first. */
static inline int kb_ranked_cmp(const void *pa, const void *pb) {
    kb_ranked a = *(const kb_ranked *)pa, b = *(const kb_ranked *)pb;
    return kb_ranked_better(a, b) ? -1 : kb_ranked_better(b, a) ? 1 : 0;
}

static inline void kb_ranked_swap(kb_ranked *a, kb_ranked *b) {
    kb_ranked t = *a;
    *a = *b;
    *b = t;
}

/* Reorder e[0..n) so that its k best are e[0..k), in no order: expected O(n). */
static inline void kb_ranked_select(kb_ranked *e, int64_t n, int64_t k) {
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        int64_t mid = lo + (hi - lo) / 2;
        /* median of three to e[mid]: sorted inputs stay O(n) */
        if (kb_ranked_better(e[mid], e[lo])) kb_ranked_swap(&e[mid], &e[lo]);
        if (kb_ranked_better(e[hi], e[lo])) kb_ranked_swap(&e[hi], &e[lo]);
        if (kb_ranked_better(e[hi], e[mid])) kb_ranked_swap(&e[hi], &e[mid]);
        kb_ranked pivot = e[mid];
        int64_t i = lo, j = hi;
        while (i <= j) { /* Hoare: [lo, j] no worse than pivot, [i, hi] no better */
            while (kb_ranked_better(e[i], pivot)) i++;
            while (kb_ranked_better(pivot, e[j])) j--;
            if (i <= j) kb_ranked_swap(&e[i++], &e[j--]);
        }
        if (k - 1 <= j)
            hi = j;
        else if (k - 1 >= i)
            lo = i;
        else
            return; /* k - 1 lies between: everything before it is better */
    }
}

#endif
