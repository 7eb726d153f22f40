/* Host (KB_HOST) timing, harness/run/measure_host.c: how many runs the
 * warm-up spends before the samples. The check runs a variant just before it
 * is timed, so one warm-up run is enough; a slow host variant (seconds per
 * run) must not spend two before its first sample. */
#include "run/measure.h"
#include "kbtest.h"

#include <string.h>
#include <time.h>

static int calls;

static int slow_run(void *ctx, cudaStream_t s, kb_error *e) {
    (void)ctx, (void)s, (void)e;
    calls++;
    struct timespec ts = {0, 20 * 1000 * 1000}; /* 20 ms: longer than the warm-up */
    nanosleep(&ts, NULL);
    return KB_OK;
}

KB_TEST(a_run_longer_than_the_warm_up_is_warmed_once) {
    double samples[8];
    kb_measure m = {.mode = KB_MODE_COLD,
                    .rule = {.max_noise = 1, .min_samples = 1, .max_time_s = 0, .max_samples = 8},
                    .samples = samples,
                    .warmup_s = 0.005};
    kb_error e = {0};
    calls = 0;
    KB_EXPECT(kb_measure_host(&m, slow_run, NULL, &e) == KB_OK);
    KB_EXPECT(m.nsamples >= 1);
    KB_EXPECT(calls == 1 + m.nsamples); /* one warm-up run, then the samples */
    KB_EXPECT(samples[0] >= 0.019);
}

/* A run whose time drifts up with each call: 10 ms for the first repeat's
 * runs, then 20 ms, then 30 ms (a host whose other load comes and goes). It
 * sleeps, so other load on the test machine does not stretch it; the steps
 * are tens of milliseconds so that a host whose sleeps overshoot by a timer
 * tick (a few ms) keeps them apart. */
static int drifting_run(void *ctx, cudaStream_t s, kb_error *e) {
    (void)s, (void)e;
    int per_repeat = *(int *)ctx;
    int phase = calls++ / per_repeat; /* the warm-up run is call 0 */
    struct timespec ts = {0, (long)(phase > 2 ? 3 : phase + 1) * 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return KB_OK;
}

KB_TEST(host_rows_take_repeats_and_keep_the_lowest_median_with_the_spread) {
    double samples[64];
    int per_repeat = 4; /* min_samples 4, any noise: each repeat stops at 4 samples */
    kb_measure m = {.mode = KB_MODE_COLD,
                    .rule = {.max_noise = 1, .min_samples = 4, .max_time_s = 1, .max_samples = 64},
                    .samples = samples,
                    .warmup_s = 0,
                    .repeats = 3};
    kb_error e = {0};
    calls = 0;
    KB_EXPECT(kb_measure_host(&m, drifting_run, &per_repeat, &e) == KB_OK);
    KB_EXPECT(m.repeats_done == 3);
    KB_EXPECT(m.nsamples == 12);
    /* repeat medians ~10, ~20, ~30 ms (the warm-up run shifts one call) */
    KB_EXPECT(m.repeat_min_median >= 0.009 && m.repeat_min_median < 0.018);
    KB_EXPECT(m.repeat_spread > 0.8);
}

KB_TEST(a_host_run_past_the_time_bound_takes_one_repeat) {
    double samples[8];
    kb_measure m = {
        .mode = KB_MODE_COLD,
        .rule = {.max_noise = 1, .min_samples = 20, .max_time_s = 0.001, .max_samples = 8},
        .samples = samples,
        .warmup_s = 0,
        .repeats = 3};
    kb_error e = {0};
    calls = 0;
    KB_EXPECT(kb_measure_host(&m, slow_run, NULL, &e) == KB_OK);
    KB_EXPECT(m.repeats_done == 1); /* 20 ms > 4 x 1 ms: no second repeat */
    KB_EXPECT(m.nsamples == 1);
    KB_EXPECT(m.repeat_spread == 0);
}

/* Two variants timed in turns (kb_timer, as `run --interleave` takes them):
 * the samples alternate, and each variant's --max-time is its own time in
 * its steps, so each gets about the samples it gets alone, not half. */
static char order[256];
static int norder;

static int traced_run(void *ctx, cudaStream_t s, kb_error *e) {
    (void)s, (void)e;
    if (norder < (int)sizeof order - 1) order[norder++] = *(const char *)ctx;
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return KB_OK;
}

KB_TEST(in_turns_samples_alternate_and_each_variant_keeps_its_own_time) {
    double sa[64], sb[64];
    const kb_stop_rule rule = {
        .max_noise = 0, .min_samples = 2, .max_time_s = 0.04, .max_samples = 64};
    kb_measure ma = {.mode = KB_MODE_COLD, .rule = rule, .samples = sa, .repeats = 1}, mb = ma;
    mb.samples = sb;
    kb_timer ta, tb;
    kb_error e = {0};
    char a = 'a', b = 'b';
    KB_EXPECT(kb_timer_begin(&ta, &ma, traced_run, &a, NULL, 1, 0, &e) == KB_OK);
    KB_EXPECT(kb_timer_begin(&tb, &mb, traced_run, &b, NULL, 1, 0, &e) == KB_OK);
    norder = 0;
    while (!ta.done || !tb.done) {
        if (!ta.done) KB_EXPECT(kb_timer_step(&ta, &e) == KB_OK);
        if (!tb.done) KB_EXPECT(kb_timer_step(&tb, &e) == KB_OK);
    }
    KB_EXPECT(kb_timer_end(&ta, 1, &e) == KB_OK && kb_timer_end(&tb, 0, &e) == KB_OK);
    order[norder] = '\0';
    KB_EXPECT(strncmp(order, "ababababab", 10) == 0);
    /* each sampled for 40 ms of its own (about 20 samples of 2 ms), not until
     * 40 ms had passed on the wall clock that both share (about 10 each) */
    KB_EXPECT(ta.spent >= 0.04 && tb.spent >= 0.04);
    KB_EXPECT(ma.nsamples >= 5 && mb.nsamples >= 5);
    KB_EXPECT(ma.nsamples + mb.nsamples == norder);
}
