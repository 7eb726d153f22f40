/* measure.h — the timing modes (cold, hot, graph: one measure_<mode>.c each)
 * and the pieces they share (measure_common.c): events, warm-up, the
 * sampling loop under the stopping rule; measure_host.c times the variants
 * that run on the CPU by the wall clock.
 *
 *   kb_measure m = {.mode = KB_MODE_COLD, .rule = rule, ...};
 *   kb_measure_cold(&m, launch, ctx, stream, &e);   // m.samples[0..m.nsamples)
 */
#ifndef KB_MEASURE_H
#define KB_MEASURE_H

#include "kbench.h"
#include "ktime.h"
#include "l2_flush.h"
#include "stats.h"

typedef enum kb_mode { KB_MODE_COLD, KB_MODE_HOT, KB_MODE_GRAPH } kb_mode;
const char *kb_mode_name(kb_mode m);
int kb_mode_parse(const char *s, kb_mode *m);

/* What is timed: one whole op, enqueued on s. */
typedef int (*kb_launch_fn)(void *ctx, cudaStream_t s, kb_error *e);

typedef struct kb_measure {
    kb_mode mode;
    kb_stop_rule rule;
    kb_flush flush; /* how cold mode empties L2 */
    void *l2_flush; /* device buffer, cold mode */
    size_t l2_flush_bytes;
    /* Called before every sample, outside the timed region (in cold mode
     * before the flush, which then evicts what it wrote): the runner poisons
     * the outputs there, so that each sample's first launch must write them
     * all and the outputs after the last sample are a timed launch's. NULL:
     * nothing. The host modes call it with a NULL stream. */
    int (*before_sample)(void *ctx, cudaStream_t s, kb_error *e);
    void *before_sample_ctx;
    double *samples; /* seconds per launch; rule.max_samples long */
    int nsamples;
    double warmup_s;
    /* Throttling: samples taken while the SM clock (NVML) sat under
     * throttle_frac of its maximum are discarded and counted. */
    const struct kb_device *dev;
    double throttle_frac;
    int throttled;
    /* --timer kernels (ktime.h): each kept sample's API window (kwin), and
     * after the loop its kernel time per launch, the sum (ksum) and the span
     * (kspan), and its records (kcount) over klaunches launches; kn the
     * samples that have them, 0 when none do (CUPTI off or refused: the
     * kernel columns stay empty). The arrays are rule.max_samples long. */
    int ktime;
    kb_kwindow *kwin;
    double *ksum, *kspan;
    int *kcount;
    int kn, klaunches;
    /* Host rows (measure_host.c): the samples are taken in `repeats` runs
     * of the stopping rule, each with its share of --max-time; after them,
     * how many ran, the lowest of their medians and the spread of the
     * medians, (max - min) / min. */
    int repeats, repeats_done;
    double repeat_min_median, repeat_spread;
} kb_measure;

int kb_measure_cold(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
int kb_measure_hot(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
int kb_measure_graph(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
/* A KB_HOST variant: wall clock, fn called with a NULL stream; m->mode cold
 * or hot; the samples in m->repeats repeats (measure_host.c). */
int kb_measure_host(kb_measure *m, kb_launch_fn fn, void *ctx, kb_error *e);
/* Warm-up shared by the modes: at least 2 launches and ~warmup_s seconds.
 * Returns the time of one launch (seconds), for batch sizing. */
int kb_warmup(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, double *per_launch_s,
              kb_error *e);
double kb_now_s(void);

/* ---- shared by the modes (measure_common.c) ---- */

typedef struct kb_events {
    cudaEvent_t start, stop;
} kb_events;

int kb_events_create(kb_events *ev, kb_error *e);
void kb_events_destroy(kb_events *ev);
/* Waits for stop; the time between the two records. */
int kb_events_elapsed(kb_events *ev, double *seconds, kb_error *e);
/* What one sample times. before (may be NULL) runs outside the events (the
 * L2 flush); body runs between them and counts as `launches` launches. */
typedef struct kb_sampler {
    int (*before)(void *ctx, cudaStream_t s, kb_error *e);
    int (*body)(void *ctx, cudaStream_t s, kb_error *e);
    void *ctx;
    int launches;
} kb_sampler;

/* The loop every mode shares: sample until the stopping rule says enough,
 * recording seconds per launch in m->samples, inside an NVTX "samples" range. */
int kb_sample_loop(kb_measure *m, const kb_sampler *sp, cudaStream_t s, kb_error *e);
/* Launches per sample for hot and graph modes: enough that one sample spans
 * ~200 us, so event resolution (~0.5 us) and the gap before the first launch
 * stay under 1% of it. */
int kb_batch_size(double per_launch_s);

#endif
