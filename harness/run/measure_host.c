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

int kb_measure_host(kb_measure *m, kb_launch_fn fn, void *ctx, kb_error *e) {
    int rc = KB_OK, launches = 0;
    double t0 = kb_now_s(), one = 0;
    kb_nvtx_push("warm-up");
    /* One run at least: the check ran the variant just before, so the first
     * touch of its buffers is behind it (a GPU launch needs two: the first
     * loads the module); a host run of 11 s (nms cpu_greedy on 100000 boxes)
     * is not spent twice before its one sample. */
    while (rc == KB_OK && (launches < 1 || kb_now_s() - t0 < m->warmup_s) && launches < 1000) {
        rc = host_sample(fn, ctx, 1, &one, e);
        launches++;
    }
    kb_nvtx_pop();
    if (rc != KB_OK) return KB_ERR;
    int batch = m->mode == KB_MODE_HOT ? kb_batch_size(one) : 1;
    m->nsamples = 0;
    m->throttled = 0;
    m->repeats_done = 0;
    m->repeat_min_median = m->repeat_spread = 0;
    int repeats = m->repeats > 0 ? m->repeats : 1;
    /* Each repeat is the stopping rule with its share of the time and of the
     * sample buffer; a further repeat begins only while the row is inside
     * the rule's 4 x --max-time bound, so a run of seconds is timed once. */
    kb_stop_rule rule = m->rule;
    rule.max_time_s = m->rule.max_time_s / repeats;
    rule.max_samples = m->rule.max_samples / repeats > 0 ? m->rule.max_samples / repeats : 1;
    double hi = 0, start = kb_now_s();
    kb_nvtx_push("samples");
    while (rc == KB_OK && m->repeats_done < repeats && m->nsamples < m->rule.max_samples &&
           (m->repeats_done == 0 || kb_now_s() - start < 4 * m->rule.max_time_s)) {
        double *mine = m->samples + m->nsamples;
        int n = 0;
        t0 = kb_now_s();
        for (int done = 0; rc == KB_OK && !done;) {
            if (m->before_sample) rc = m->before_sample(m->before_sample_ctx, NULL, e);
            if (rc == KB_OK) rc = host_sample(fn, ctx, batch, &mine[n], e);
            if (rc != KB_OK) break;
            n++;
            done = kb_should_stop(&rule, mine, n, kb_now_s() - t0) ||
                   m->nsamples + n >= m->rule.max_samples;
        }
        if (rc != KB_OK) break;
        kb_stats st;
        kb_stats_compute(mine, n, &st);
        if (m->repeats_done == 0 || st.median < m->repeat_min_median)
            m->repeat_min_median = st.median;
        if (st.median > hi) hi = st.median;
        m->nsamples += n;
        m->repeats_done++;
    }
    kb_nvtx_pop();
    if (m->repeat_min_median > 0)
        m->repeat_spread = (hi - m->repeat_min_median) / m->repeat_min_median;
    return rc;
}
