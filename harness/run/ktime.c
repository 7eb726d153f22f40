/* ktime.c — CUPTI's activity records attributed to samples (ktime.h): by the
 * correlation id of the API call that enqueued each, never by time stamps,
 * because a cold sample's L2 flush is enqueued before its start event and
 * may still run on the GPU after the host has moved on to the sample. */
#include "run/ktime.h"

#include <stdlib.h>

/* The window holding correlation id c, or -1: windows are in sample order
 * and their ids increase, so a bisection finds it. */
static int window_of(const kb_kwindow *w, int n, uint32_t c) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w[mid].hi < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && c > w[lo].lo && c <= w[lo].hi ? lo : -1;
}

int kb_ktime_attribute(const kb_krec *recs, size_t nrecs, const kb_kwindow *wins, int nsamples,
                       int launches, double *sum_s, double *span_s, int *count) {
    /* Stamps are nanoseconds since the epoch (~2^61): kept as integers, a
     * double would round them to 256 ns. */
    uint64_t *first = malloc(2 * ((size_t)nsamples + 1) * sizeof *first);
    if (!first) return KB_ERR;
    uint64_t *last = first + nsamples + 1;
    for (int i = 0; i < nsamples; i++) {
        first[i] = UINT64_MAX;
        last[i] = 0;
        sum_s[i] = 0;
        count[i] = 0;
    }
    const double per = launches > 0 ? 1e-9 / launches : 1e-9;
    for (size_t k = 0; k < nrecs; k++) {
        const kb_krec *r = &recs[k];
        int i = window_of(wins, nsamples, r->correlation);
        if (i < 0 || r->context != wins[i].context || r->end < r->start) continue;
        if (r->start < first[i]) first[i] = r->start;
        if (r->end > last[i]) last[i] = r->end;
        sum_s[i] += (double)(r->end - r->start) * per;
        count[i]++;
    }
    for (int i = 0; i < nsamples; i++)
        span_s[i] = count[i] ? (double)(last[i] - first[i]) * per : 0;
    free(first);
    return KB_OK;
}
