/* shard.c — the split of a sweep into N shards, balanced by the ops' cost
 * models (README "When one machine is not enough").
 *
 * Pair times differ by orders of magnitude (a 1000-box NMS against a
 * 16-million-element top-k), so a split by count would leave one shard
 * running long after the others. Greedy longest-processing-time assignment
 * on estimated times keeps every shard within one pair of the mean (Graham:
 * the last pair placed on the fullest shard went to the least loaded one).
 */
#include "shard.h"

#include <stdio.h>
#include <stdlib.h>

int kb_pair_applicable(const kb_case *c, const kb_variant *v) {
    kb_error why;
    /* a plugin's or Python file's variant: its code runs only in workers */
    if (!v->impl) return 1;
    return v->impl->supports(c, &why) != KB_NOT_APPLICABLE;
}

double kb_shard_estimate(const kb_case *c, const kb_variant *v) {
    if (!kb_pair_applicable(c, v)) return 0;
    kb_cost cost = c->op->cost(c);
    double tf = cost.flops / KB_SHARD_PEAK_FLOPS, tb = cost.bytes / KB_SHARD_PEAK_BYTES;
    return (tf > tb ? tf : tb) + KB_SHARD_PAIR_S;
}

static const double *sort_est; /* qsort has no context argument in C11 */

static int longest_first(const void *a, const void *b) {
    int i = *(const int *)a, j = *(const int *)b;
    if (sort_est[i] != sort_est[j]) return sort_est[i] > sort_est[j] ? -1 : 1;
    return (i > j) - (i < j);
}

void kb_shard_assign(const double *est, int n, int nshards, int *shard_of) {
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    double *load = calloc((size_t)nshards, sizeof *load);
    if (!order || !load) { /* no memory to balance: round robin is still a partition */
        for (int i = 0; i < n; i++) shard_of[i] = i % nshards;
        free(order);
        free(load);
        return;
    }
    for (int i = 0; i < n; i++) order[i] = i;
    sort_est = est;
    qsort(order, (size_t)n, sizeof *order, longest_first);
    for (int k = 0; k < n; k++) {
        int best = 0;
        for (int s = 1; s < nshards; s++)
            if (load[s] < load[best]) best = s;
        shard_of[order[k]] = best;
        load[best] += est[order[k]];
    }
    free(order);
    free(load);
}

int kb_shard_parse(const char *text, int *index, int *count, kb_error *e) {
    int i = -1, n = -1, used = 0;
    if (!text || sscanf(text, "%d/%d%n", &i, &n, &used) != 2 || text[used] != '\0' || n < 1 ||
        n > KB_MAX_SHARDS || i < 0 || i >= n)
        return kb_fail(e, "--shard %s: expected I/N with 0 <= I < N <= %d (e.g. 0/4)",
                       text ? text : "(missing)", KB_MAX_SHARDS);
    *index = i;
    *count = n;
    return KB_OK;
}
