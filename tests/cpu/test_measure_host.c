/* Host (KB_HOST) timing, harness/run/measure_host.c: how many runs the
 * warm-up spends before the samples. The check runs a variant just before it
 * is timed, so one warm-up run is enough; a slow host variant (seconds per
 * run) must not spend two before its first sample. */
#include "run/measure.h"
#include "kbtest.h"

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
