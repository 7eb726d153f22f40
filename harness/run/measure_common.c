/* measure_common.c — what the three measurement modes share: the clock,
 * warm-up, and one event pair around a region. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include "device.h" /* the SM clock */

#include <stdio.h>
#include <string.h>
#include <time.h>

double kb_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const mode_names[] = {"cold", "hot", "graph"};

const char *kb_mode_name(kb_mode m) {
    return mode_names[m];
}

int kb_mode_parse(const char *s, kb_mode *m) {
    for (int i = 0; i < 3; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (kb_mode)i;
            return KB_OK;
        }
    return KB_ERR;
}

int kb_events_create(kb_events *ev, kb_error *e) {
    KB_CUDA_TRY(cudaEventCreate(&ev->start), e);
    if (kb_cuda_check(cudaEventCreate(&ev->stop), "cudaEventCreate", e) != KB_OK) {
        cudaEventDestroy(ev->start);
        return KB_ERR;
    }
    return KB_OK;
}

void kb_events_destroy(kb_events *ev) {
    cudaEventDestroy(ev->start);
    cudaEventDestroy(ev->stop);
}

int kb_events_elapsed(kb_events *ev, double *seconds, kb_error *e) {
    float ms = 0;
    KB_CUDA_TRY(cudaEventSynchronize(ev->stop), e);
    KB_CUDA_TRY(cudaEventElapsedTime(&ms, ev->start, ev->stop), e);
    *seconds = 1e-3 * (double)ms;
    return KB_OK;
}

int kb_warmup(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, double *per_launch_s,
              kb_error *e) {
    kb_events ev;
    if (kb_events_create(&ev, e) != KB_OK) return KB_ERR;
    int rc = KB_OK, launches = 0;
    double t0 = kb_now_s(), one = 0;
    kb_nvtx_push("warm-up");
    while (rc == KB_OK && (launches < 2 || kb_now_s() - t0 < m->warmup_s) && launches < 1000) {
        rc = kb_cuda_check(cudaEventRecord(ev.start, s), "cudaEventRecord", e);
        if (rc == KB_OK) rc = fn(ctx, s, e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(ev.stop, s), "cudaEventRecord", e);
        if (rc == KB_OK) rc = kb_events_elapsed(&ev, &one, e);
        launches++;
    }
    kb_nvtx_pop();
    kb_events_destroy(&ev);
    *per_launch_s = one;
    return rc;
}

/* 1 when the SM clock read now is under the throttling bound (unknown: 0). */
static int clock_low(const kb_measure *m) {
    if (!m->dev || m->throttle_frac <= 0 || m->dev->sm_clock_mhz <= 0) return 0;
    int now = kb_device_sm_clock_now(m->dev);
    return now > 0 && now < m->throttle_frac * m->dev->sm_clock_mhz;
}

/* Each repeat is the stopping rule with its share of the time and of the
 * sample buffer (one repeat: the rule itself). */
static void repeats_begin(kb_timer *t) {
    kb_measure *m = t->m;
    m->repeats_done = 0;
    m->repeat_min_median = m->repeat_spread = 0;
    t->repeats = m->repeats > 0 ? m->repeats : 1;
    t->rule = m->rule;
    t->rule.max_time_s = m->rule.max_time_s / t->repeats;
    t->rule.max_samples =
        m->rule.max_samples / t->repeats > 0 ? m->rule.max_samples / t->repeats : 1;
    t->first = 0;
    t->hi = t->repeat_spent = 0;
}

/* After a step of step_s seconds: the current repeat closes when its rule
 * is met (its median kept) or when the whole variant's bounds are reached
 * (the sample buffer, 4 x --max-time: a run of seconds is timed once), and
 * the timer is done when its repeats are, or at those bounds. A repeat
 * whose samples were all throttled keeps no median. */
static void repeats_step(kb_timer *t, double step_s) {
    kb_measure *m = t->m;
    const double *mine = m->samples + t->first;
    int n = m->nsamples - t->first;
    t->repeat_spent += step_s;
    int bound = m->nsamples >= m->rule.max_samples || t->spent >= 4 * m->rule.max_time_s;
    if (!bound && !kb_should_stop(&t->rule, mine, n, t->repeat_spent)) return;
    if (n > 0) {
        kb_stats st;
        kb_stats_compute(mine, n, &st);
        if (m->repeats_done == 0 || st.median < m->repeat_min_median)
            m->repeat_min_median = st.median;
        if (st.median > t->hi) t->hi = st.median;
        m->repeats_done++;
    }
    t->first = m->nsamples;
    t->repeat_spent = 0;
    t->done = m->repeats_done >= t->repeats || bound;
}

int kb_timer_begin(kb_timer *t, kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, int host,
                   int alone, kb_error *e) {
    *t = (kb_timer){.m = m, .fn = fn, .ctx = ctx, .s = s, .host = host, .alone = alone, .batch = 1};
    m->nsamples = 0;
    m->throttled = 0;
    m->kn = 0;
    int rc;
    if (host)
        rc = kb_timer_host(t, e);
    else if (m->mode == KB_MODE_HOT)
        rc = kb_timer_hot(t, e);
    else if (m->mode == KB_MODE_GRAPH)
        rc = kb_timer_graph(t, e);
    else
        rc = kb_timer_cold(t, e);
    if (rc == KB_OK && !host) rc = kb_events_create(&t->ev, e);
    t->have_ev = rc == KB_OK && !host;
    if (rc != KB_OK) {
        kb_timer_graph_release(t);
        return KB_ERR;
    }
    m->klaunches = t->batch;
    repeats_begin(t);
    /* After the warm-up: its records are dropped (in turn, each begin drops
     * the earlier ones' warm-ups too, and the rounds follow every begin). */
    if (m->ktime) kb_ktime_begin();
    if (alone) kb_nvtx_push("samples");
    return KB_OK;
}

/* One device sample: outside the events the untimed launch (warm_each),
 * the poisoning and the flush; between them the body. */
static int device_step(kb_timer *t, kb_error *e) {
    kb_measure *m = t->m;
    cudaStream_t s = t->s;
    kb_kwindow win = {0, 0, 0};
    int rc = KB_OK;
    if (t->warm_each) rc = t->fn(t->ctx, s, e);
    if (rc == KB_OK && m->before_sample) rc = m->before_sample(m->before_sample_ctx, s, e);
    if (rc == KB_OK && t->before) rc = t->before(t, s, e);
    if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(t->ev.start, s), "cudaEventRecord", e);
    /* The window opens and closes on the event records' own ids: host
     * loads only, so nothing is added between the events. */
    if (m->ktime) kb_ktime_mark(&win, 0);
    if (rc == KB_OK) rc = t->body(t, s, e);
    if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(t->ev.stop, s), "cudaEventRecord", e);
    if (m->ktime) kb_ktime_mark(&win, 1);
    double sec = 0;
    if (rc == KB_OK) rc = kb_events_elapsed(&t->ev, &sec, e);
    if (rc != KB_OK) return KB_ERR;
    /* The clock is read right after the sample, while it still reflects it. */
    if (clock_low(m)) {
        m->throttled++;
    } else {
        if (m->ktime) m->kwin[m->nsamples] = win;
        m->samples[m->nsamples++] = sec / t->batch;
    }
    return KB_OK;
}

int kb_timer_step(kb_timer *t, kb_error *e) {
    if (t->done) return KB_OK;
    double t0 = kb_now_s();
    int rc = t->host ? kb_timer_host_step(t, e) : device_step(t, e);
    double step = kb_now_s() - t0;
    t->spent += step;
    if (rc != KB_OK)
        t->done = 1;
    else
        repeats_step(t, step);
    return rc;
}

int kb_timer_end(kb_timer *t, int keep_records, kb_error *e) {
    kb_measure *m = t->m;
    if (t->alone) kb_nvtx_pop();
    if (t->have_ev) kb_events_destroy(&t->ev);
    t->have_ev = 0;
    kb_timer_graph_release(t);
    if (m->repeat_min_median > 0)
        m->repeat_spread = (t->hi - m->repeat_min_median) / m->repeat_min_median;
    if (t->host) return KB_OK;
    /* After the samples, never among them: the flush takes time of its own. */
    kb_error ke;
    if (m->ktime && m->nsamples > 0) {
        if (kb_ktime_collect(m->kwin, m->nsamples, t->batch, m->ksum, m->kspan, m->kcount,
                             keep_records, &ke) == KB_OK)
            m->kn = m->nsamples;
        else
            fprintf(stderr, "kbench: no kernel time for this row: %s\n", ke.msg);
    }
    if (m->nsamples == 0)
        return kb_fail(e, "every sample (%d) ran with the SM clock under %.0f%% of its maximum",
                       m->throttled, 100 * m->throttle_frac);
    return KB_OK;
}

/* Begin, a step at a time until the rule is met, end: a variant alone. */
static int timer_run(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, int host,
                     kb_error *e) {
    kb_timer t;
    if (kb_timer_begin(&t, m, fn, ctx, s, host, 1, e) != KB_OK) return KB_ERR;
    int rc = KB_OK;
    while (rc == KB_OK && !t.done) rc = kb_timer_step(&t, e);
    kb_error ee;
    int end = kb_timer_end(&t, 0, rc == KB_OK ? e : &ee);
    return rc == KB_OK ? end : KB_ERR;
}

int kb_measure_cold(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    m->mode = KB_MODE_COLD;
    return timer_run(m, fn, ctx, s, 0, e);
}

int kb_measure_hot(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    m->mode = KB_MODE_HOT;
    return timer_run(m, fn, ctx, s, 0, e);
}

int kb_measure_graph(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    m->mode = KB_MODE_GRAPH;
    return timer_run(m, fn, ctx, s, 0, e);
}

int kb_measure_host(kb_measure *m, kb_launch_fn fn, void *ctx, kb_error *e) {
    return timer_run(m, fn, ctx, NULL, 1, e);
}

int kb_batch_size(double per_launch_s) {
    if (per_launch_s <= 0) return 100;
    double b = 200e-6 / per_launch_s;
    return b < 1 ? 1 : b > 1000 ? 1000 : (int)b;
}
