/* Statistics and the stopping rule. */
#include "run/stats.h"
#include "kbtest.h"

KB_TEST(median_and_percentiles_interpolate) {
    double s[] = {5, 1, 4, 2, 3};
    kb_stats st;
    kb_stats_compute(s, 5, &st);
    KB_EXPECT_NEAR(st.median, 3, 1e-12);
    KB_EXPECT_NEAR(st.min, 1, 1e-12);
    KB_EXPECT_NEAR(st.max, 5, 1e-12);
    KB_EXPECT_NEAR(st.p10, 1.4, 1e-12); /* 1 + 0.4 * (2 - 1) */
    KB_EXPECT_NEAR(st.p90, 4.6, 1e-12);
    KB_EXPECT_NEAR(st.mean, 3, 1e-12);
    KB_EXPECT_NEAR(st.stddev, sqrt(2.5), 1e-12);
    KB_EXPECT_NEAR(st.noise, sqrt(2.5) / 3, 1e-12);
}

KB_TEST(even_count_median_is_midpoint) {
    double s[] = {10, 20, 30, 40};
    kb_stats st;
    kb_stats_compute(s, 4, &st);
    KB_EXPECT_NEAR(st.median, 25, 1e-12);
}

KB_TEST(one_sample_has_zero_noise) {
    double s[] = {7};
    kb_stats st;
    kb_stats_compute(s, 1, &st);
    KB_EXPECT(st.median == 7 && st.stddev == 0 && st.noise == 0);
}

KB_TEST(stop_waits_for_min_samples_even_when_quiet) {
    kb_stop_rule r = {.max_noise = 0.01, .min_samples = 10, .max_time_s = 1, .max_samples = 100};
    double s[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    KB_EXPECT(!kb_should_stop(&r, s, 9, 0.1));
    KB_EXPECT(kb_should_stop(&r, s, 10, 0.1));
}

KB_TEST(stop_keeps_sampling_while_noisy_until_time_limit) {
    kb_stop_rule r = {.max_noise = 0.01, .min_samples = 4, .max_time_s = 1, .max_samples = 100};
    double s[] = {1, 2, 1, 2, 1, 2};
    KB_EXPECT(!kb_should_stop(&r, s, 6, 0.5));
    KB_EXPECT(kb_should_stop(&r, s, 6, 1.0));
}

KB_TEST(stop_at_max_samples) {
    kb_stop_rule r = {.max_noise = 0, .min_samples = 2, .max_time_s = 100, .max_samples = 6};
    double s[] = {1, 2, 1, 2, 1, 2};
    KB_EXPECT(kb_should_stop(&r, s, 6, 0.0));
}

KB_TEST(stop_below_min_samples_only_after_long_overrun) {
    /* a very slow kernel: never stuck forever below min_samples */
    kb_stop_rule r = {.max_noise = 0.01, .min_samples = 20, .max_time_s = 1, .max_samples = 100};
    double s[] = {3, 3};
    KB_EXPECT(!kb_should_stop(&r, s, 2, 3.0));
    KB_EXPECT(kb_should_stop(&r, s, 2, 4.0));
}
