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

int kb_sample_loop(kb_measure *m, const kb_sampler *sp, cudaStream_t s, kb_error *e) {
    kb_events ev;
    if (kb_events_create(&ev, e) != KB_OK) return KB_ERR;
    int rc = KB_OK, done = 0;
    double t0 = kb_now_s();
    m->nsamples = 0;
    m->throttled = 0;
    m->kn = 0;
    m->klaunches = sp->launches;
    if (m->ktime) kb_ktime_begin();
    kb_nvtx_push("samples");
    while (rc == KB_OK && !done) {
        kb_kwindow win = {0, 0, 0};
        if (m->before_sample) rc = m->before_sample(m->before_sample_ctx, s, e);
        if (rc == KB_OK && sp->before) rc = sp->before(sp->ctx, s, e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(ev.start, s), "cudaEventRecord", e);
        /* The window opens and closes on the event records' own ids: host
         * loads only, so nothing is added between the events. */
        if (m->ktime) kb_ktime_mark(&win, 0);
        if (rc == KB_OK) rc = sp->body(sp->ctx, s, e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(ev.stop, s), "cudaEventRecord", e);
        if (m->ktime) kb_ktime_mark(&win, 1);
        double t = 0;
        if (rc == KB_OK) rc = kb_events_elapsed(&ev, &t, e);
        if (rc != KB_OK) break;
        /* The clock is read right after the sample, while it still reflects it. */
        if (clock_low(m)) {
            m->throttled++;
        } else {
            if (m->ktime) m->kwin[m->nsamples] = win;
            m->samples[m->nsamples++] = t / sp->launches;
        }
        double elapsed = kb_now_s() - t0;
        done = kb_should_stop(&m->rule, m->samples, m->nsamples, elapsed) ||
               (m->nsamples == 0 && elapsed >= 4 * m->rule.max_time_s);
    }
    kb_nvtx_pop();
    kb_events_destroy(&ev);
    /* After the samples, never among them: the flush takes time of its own. */
    kb_error ke;
    if (rc == KB_OK && m->ktime && m->nsamples > 0) {
        if (kb_ktime_collect(m->kwin, m->nsamples, sp->launches, m->ksum, m->kspan, m->kcount,
                             &ke) == KB_OK)
            m->kn = m->nsamples;
        else
            fprintf(stderr, "kbench: no kernel time for this row: %s\n", ke.msg);
    }
    if (rc == KB_OK && m->nsamples == 0)
        rc = kb_fail(e, "every sample (%d) ran with the SM clock under %.0f%% of its maximum",
                     m->throttled, 100 * m->throttle_frac);
    return rc;
}

int kb_batch_size(double per_launch_s) {
    if (per_launch_s <= 0) return 100;
    double b = 200e-6 / per_launch_s;
    return b < 1 ? 1 : b > 1000 ? 1000 : (int)b;
}
