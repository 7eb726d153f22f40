/* stats.c — sample statistics and the stopping rule.
 *
 * Percentiles interpolate linearly between order statistics (the "type 7"
 * rule of R and NumPy), so p10/p90 of small samples stay meaningful. Noise is
 * the relative standard deviation, as nvbench reports it.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, int n, double p) {
    double pos = p * (n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

void kb_stats_compute(const double *samples, int n, kb_stats *st) {
    memset(st, 0, sizeof *st);
    st->n = n;
    if (n <= 0) return;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) return;
    memcpy(s, samples, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += s[i];
    st->mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (s[i] - st->mean) * (s[i] - st->mean);
    st->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
    st->min = s[0];
    st->max = s[n - 1];
    st->median = percentile(s, n, 0.5);
    st->p10 = percentile(s, n, 0.1);
    st->p90 = percentile(s, n, 0.9);
    st->noise = st->mean > 0 ? st->stddev / st->mean : 0;
    free(s);
}

int kb_should_stop(const kb_stop_rule *rule, const double *samples, int n, double elapsed_s) {
    if (n >= rule->max_samples) return 1;
    if (n >= rule->min_samples && elapsed_s >= rule->max_time_s) return 1;
    if (n < rule->min_samples) return elapsed_s >= 4 * rule->max_time_s && n >= 1;
    /* Relative standard deviation in one O(n) pass (no sort): this runs after
     * every sample, and max_samples bounds it. */
    double sum = 0, ss = 0;
    for (int i = 0; i < n; i++) sum += samples[i];
    double mean = sum / n;
    for (int i = 0; i < n; i++) ss += (samples[i] - mean) * (samples[i] - mean);
    double noise = (n > 1 && mean > 0) ? sqrt(ss / (n - 1)) / mean : 0;
    return noise <= rule->max_noise;
}
