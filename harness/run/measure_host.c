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
 * (--host-repeats, default 3), each under the stopping rule with its share
 * of --max-time, and the row keeps the lowest repeat median (the run the
 * other load disturbed least) and the spread of the medians, which
 * `compare` and `report` take as the row's noise when it is the larger. */
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
    m->repeats_done = 0;
    m->repeat_min_median = m->repeat_spread = 0;
    /* Each repeat is the stopping rule with its share of the time and of the
     * sample buffer; a further repeat begins only while the row is inside
     * the rule's 4 x --max-time bound, so a run of seconds is timed once. */
    t->repeats = m->repeats > 0 ? m->repeats : 1;
    t->rule = m->rule;
    t->rule.max_time_s = m->rule.max_time_s / t->repeats;
    t->rule.max_samples =
        m->rule.max_samples / t->repeats > 0 ? m->rule.max_samples / t->repeats : 1;
    t->n = 0;
    t->hi = t->repeat_spent = 0;
    return KB_OK;
}

/* One sample of the current repeat; a repeat that meets its rule is closed
 * (its median kept), and the next one begins while the bounds allow. */
int kb_timer_host_step(kb_timer *t, kb_error *e) {
    kb_measure *m = t->m;
    double *mine = m->samples + m->nsamples, t0 = kb_now_s();
    int rc = KB_OK;
    if (t->warm_each) rc = host_sample(t->fn, t->ctx, 1, &mine[t->n], e);
    if (rc == KB_OK && m->before_sample) rc = m->before_sample(m->before_sample_ctx, NULL, e);
    if (rc == KB_OK) rc = host_sample(t->fn, t->ctx, t->batch, &mine[t->n], e);
    if (rc != KB_OK) return KB_ERR;
    t->n++;
    t->repeat_spent += kb_now_s() - t0;
    if (!kb_should_stop(&t->rule, mine, t->n, t->repeat_spent) &&
        m->nsamples + t->n < m->rule.max_samples)
        return KB_OK;
    kb_stats st;
    kb_stats_compute(mine, t->n, &st);
    if (m->repeats_done == 0 || st.median < m->repeat_min_median) m->repeat_min_median = st.median;
    if (st.median > t->hi) t->hi = st.median;
    m->nsamples += t->n;
    m->repeats_done++;
    t->n = 0;
    t->repeat_spent = 0;
    /* t->spent holds this step's time only once kb_timer_step adds it */
    double spent = t->spent + (kb_now_s() - t0);
    t->done = m->repeats_done >= t->repeats || m->nsamples >= m->rule.max_samples ||
              spent >= 4 * m->rule.max_time_s;
    return KB_OK;
}

void kb_timer_host_end(kb_timer *t) {
    kb_measure *m = t->m;
    if (m->repeat_min_median > 0)
        m->repeat_spread = (t->hi - m->repeat_min_median) / m->repeat_min_median;
}
