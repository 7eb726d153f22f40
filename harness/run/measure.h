/* measure.h — the timing modes (cold, hot, graph: one measure_<mode>.c each)
 * and the pieces they share (measure_common.c): events, warm-up, the
 * sampling loop under the stopping rule; measure_host.c times the variants
 * that run on the CPU by the wall clock.
 *
 *   kb_measure m = {.mode = KB_MODE_COLD, .rule = rule, ...};
 *   kb_measure_cold(&m, launch, ctx, stream, &e);   // m.samples[0..m.nsamples)
 *   kb_timer_begin(&t, &m, ...); while (!t.done) kb_timer_step(&t, &e); kb_timer_end(&t, 0, &e);
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
    /* Repeats: the samples are taken in `repeats` runs of the stopping
     * rule, each with its share of --max-time (the runner asks for them for
     * host rows and for variants that synchronise with the host mid-op,
     * whose time the host's other load moves); after them, how many ran, the
     * lowest of their medians and the spread of the medians, (max - min) /
     * min. One repeat is the rule as it stands. */
    int repeats, repeats_done;
    double repeat_min_median, repeat_spread;
} kb_measure;

int kb_measure_cold(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
int kb_measure_hot(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
int kb_measure_graph(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
/* A KB_HOST variant: wall clock, fn called with a NULL stream; m->mode cold
 * or hot; the samples in m->repeats repeats (measure_host.c). */
int kb_measure_host(kb_measure *m, kb_launch_fn fn, void *ctx, kb_error *e);

typedef struct kb_events {
    cudaEvent_t start, stop;
} kb_events;

/* One variant's timing a sample at a time, so that the samples of several
 * variants can be taken in turn (`run --interleave`): begin warms up (and
 * captures graph mode's graph), each step takes one sample and says when
 * the stopping rule is met, end attributes the kernel time and releases.
 * The kb_measure_* functions above are begin, steps until done, end: one
 * sampling code path whether a variant is timed alone or in turn. The rule's
 * time is the variant's own time in its steps (flush, poison and sample),
 * so a variant timed in turn gets the time and the samples it gets alone. */
typedef struct kb_timer {
    kb_measure *m;
    kb_launch_fn fn;
    void *ctx;
    cudaStream_t s;
    int host;      /* a KB_HOST variant: the wall clock, repeats (measure_host.c) */
    int alone;     /* timed alone: its own NVTX "samples" range and CUPTI records */
    int warm_each; /* one untimed launch before each sample: in turn, hot and graph mode's
                      samples then start from the variant's own L2 and caches, not another's */
    int batch;     /* launches per sample */
    int (*before)(void *ctx, cudaStream_t s, kb_error *e); /* the L2 flush, or NULL */
    int (*body)(void *ctx, cudaStream_t s, kb_error *e);   /* between the events */
    kb_events ev;                                          /* device timers */
    int have_ev;
    cudaGraphExec_t exec; /* graph mode's */
    int have_exec;
    double spent; /* seconds in its steps so far: the rule's elapsed time */
    int done;     /* the rule is met: no more steps */
    /* repeats: one repeat's rule, the first sample of the current repeat,
     * the highest repeat median and the current repeat's time */
    kb_stop_rule rule;
    int repeats, first;
    double hi, repeat_spent;
} kb_timer;
/* alone 0: the caller brackets the rounds (kb_ktime_begin before them, one
 * NVTX range around them) and ends every timer but the last with keep_records. */
int kb_timer_begin(kb_timer *t, kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, int host,
                   int alone, kb_error *e);
int kb_timer_step(kb_timer *t, kb_error *e);
/* keep_records: leave CUPTI's records for the timers of the same rounds
 * still to end. Returns the outcome of the timing (KB_ERR when no sample). */
int kb_timer_end(kb_timer *t, int keep_records, kb_error *e);
/* The per-mode halves of kb_timer_begin (measure_<mode>.c, measure_host.c). */
int kb_timer_cold(kb_timer *t, kb_error *e);
int kb_timer_hot(kb_timer *t, kb_error *e);
int kb_timer_graph(kb_timer *t, kb_error *e);
void kb_timer_graph_release(kb_timer *t);
int kb_timer_host(kb_timer *t, kb_error *e);
int kb_timer_host_step(kb_timer *t, kb_error *e);

/* Warm-up shared by the modes: at least 2 launches and ~warmup_s seconds.
 * Returns the time of one launch (seconds), for batch sizing. */
int kb_warmup(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, double *per_launch_s,
              kb_error *e);
double kb_now_s(void);

/* ---- shared by the modes (measure_common.c) ---- */

int kb_events_create(kb_events *ev, kb_error *e);
void kb_events_destroy(kb_events *ev);
/* Waits for stop; the time between the two records. */
int kb_events_elapsed(kb_events *ev, double *seconds, kb_error *e);
/* Launches per sample for hot and graph modes: enough that one sample spans
 * ~200 us, so event resolution (~0.5 us) and the gap before the first launch
 * stay under 1% of it. */
int kb_batch_size(double per_launch_s);

#endif
