/* measure_host.c — a KB_HOST variant (one that runs on the CPU) timed by the
 * wall clock (CLOCK_MONOTONIC) around each run, under the same warm-up and
 * stopping rule as the GPU modes. Cold takes one run per sample, hot a batch
 * of back-to-back runs (sized as the GPU's hot mode) over its size. Nothing
 * is flushed in either: CPU caches hold whatever the previous run left, so a
 * host row's cold is the GPU's hot as far as caches go (README "Timing"). No
 * graph mode: there is nothing to capture.
 *
 * A host row's time on a shared host drifts with the other load (5-40%
 * between runs of a 16-vCPU machine): its samples are taken in repeats
 * (--host-repeats, default 3; kb_timer_step keeps them, measure_common.c),
 * and the row keeps the lowest repeat median (the run the other load
 * disturbed least) and the spread of the medians, which `compare` and
 * `report` take as the row's noise when it is the larger. */
#include "measure.h"

/* One sample: `batch` runs between two clock reads, seconds per run. */
static int host_sample(kb_launch_fn fn, void *ctx, int batch, double *per_run_s, kb_error *e) {
    double t0 = kb_now_s();
    for (int i = 0; i < batch; i++)
        if (fn(ctx, NULL, e) != KB_OK) return KB_ERR;
    *per_run_s = (kb_now_s() - t0) / batch;
    return KB_OK;
}

int kb_timer_host(kb_timer *t, kb_error *e) {
    kb_measure *m = t->m;
    int rc = KB_OK, launches = 0;
    double t0 = kb_now_s(), one = 0;
    kb_nvtx_push("warm-up");
    /* One run at least: the check ran the variant just before, so the first
     * touch of its buffers is behind it (a GPU launch needs two: the first
     * loads the module); a host run of 11 s (nms cpu_greedy on 100000 boxes)
     * is not spent twice before its one sample. */
    while (rc == KB_OK && (launches < 1 || kb_now_s() - t0 < m->warmup_s) && launches < 1000) {
        rc = host_sample(t->fn, t->ctx, 1, &one, e);
        launches++;
    }
    kb_nvtx_pop();
    if (rc != KB_OK) return KB_ERR;
    t->batch = m->mode == KB_MODE_HOT ? kb_batch_size(one) : 1;
    return KB_OK;
}

/* One sample, after the untimed run in turns (warm_each) and the poisoning;
 * kb_timer_step closes the repeats. */
int kb_timer_host_step(kb_timer *t, kb_error *e) {
    kb_measure *m = t->m;
    double *mine = m->samples + m->nsamples;
    int rc = KB_OK;
    if (t->warm_each) rc = host_sample(t->fn, t->ctx, 1, mine, e);
    if (rc == KB_OK && m->before_sample) rc = m->before_sample(m->before_sample_ctx, NULL, e);
    if (rc == KB_OK) rc = host_sample(t->fn, t->ctx, t->batch, mine, e);
    if (rc != KB_OK) return KB_ERR;
    m->nsamples++;
    return KB_OK;
}
