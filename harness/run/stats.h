/* stats.h — the statistics of a row's samples and the stopping rule that
 * ends sampling (stats.c). Plain arithmetic: no CUDA. */
#ifndef KB_STATS_H
#define KB_STATS_H

typedef struct kb_stats {
    int n;
    double median, min, max, p10, p90, mean, stddev;
    double noise; /* stddev / mean: the relative spread */
} kb_stats;

void kb_stats_compute(const double *samples, int n, kb_stats *st);

typedef struct kb_stop_rule {
    double max_noise;  /* stop once the relative spread is under this ... */
    int min_samples;   /* ... with at least this many samples, */
    double max_time_s; /* or once this much time went into sampling */
    int max_samples;   /* hard cap (memory) */
} kb_stop_rule;

/* 1 when sampling may stop; elapsed_s is the wall time spent sampling. */
int kb_should_stop(const kb_stop_rule *rule, const double *samples, int n, double elapsed_s);

#endif
