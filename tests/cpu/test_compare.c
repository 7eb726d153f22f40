/* test_compare.c — the rule of `kbench compare` (harness/cli_compare.c) on
 * synthetic rows: a change counts only when it is beyond both the threshold
 * and the two runs' combined noise; runs noisier than the bound are UNSURE;
 * a row that stops passing is a regression whatever its time. */
#include "kbtest.h"

#include "harness.h"

#include <math.h>

static const double threshold = 0.05, max_noise = 0.05;

static kb_result timed(double median_us, double noise_pct) {
    kb_result r;
    memset(&r, 0, sizeof r);
    r.status = KB_ROW_PASS;
    r.median_us = median_us;
    r.noise_pct = noise_pct;
    return r;
}

static kb_verdict verdict(double old_us, double old_noise, double new_us, double new_noise) {
    kb_result a = timed(old_us, old_noise), b = timed(new_us, new_noise);
    return kb_judge_timing(&a, &b, threshold, max_noise).verdict;
}

KB_TEST(twenty_percent_less_time_with_quiet_runs_is_faster) {
    kb_result a = timed(100, 1), b = timed(80, 1);
    kb_judgement j = kb_judge_timing(&a, &b, threshold, max_noise);
    KB_EXPECT(j.verdict == KB_VERDICT_FASTER);
    KB_EXPECT_NEAR(j.delta, -0.20, 1e-12);
    KB_EXPECT_NEAR(j.band, 2 * sqrt(2) * 0.01, 1e-12);
}

KB_TEST(twenty_percent_more_time_with_quiet_runs_is_slower) {
    KB_EXPECT(verdict(100, 1, 120, 1) == KB_VERDICT_SLOWER);
}

KB_TEST(change_beyond_threshold_but_inside_combined_noise_is_same) {
    /* 4% noise each: band = 2 * sqrt(0.04^2 + 0.04^2) = 11.3% > the 9% change. */
    KB_EXPECT(verdict(100, 4, 109, 4) == KB_VERDICT_SAME);
    KB_EXPECT(verdict(100, 4, 113, 4) == KB_VERDICT_SLOWER);
}

KB_TEST(change_under_threshold_is_same_however_quiet) {
    KB_EXPECT(verdict(100, 0.1, 104, 0.1) == KB_VERDICT_SAME);
    KB_EXPECT(verdict(100, 0.1, 96, 0.1) == KB_VERDICT_SAME);
}

KB_TEST(either_run_noisier_than_the_bound_is_unsure) {
    KB_EXPECT(verdict(100, 8, 150, 1) == KB_VERDICT_UNSURE);
    KB_EXPECT(verdict(100, 1, 60, 8) == KB_VERDICT_UNSURE);
    KB_EXPECT(verdict(100, 8, 100, 8) == KB_VERDICT_UNSURE);
}

KB_TEST(threshold_moves_the_line_between_same_and_slower) {
    kb_result a = timed(100, 0.5), b = timed(108, 0.5);
    KB_EXPECT(kb_judge_timing(&a, &b, 0.05, 0.05).verdict == KB_VERDICT_SLOWER);
    KB_EXPECT(kb_judge_timing(&a, &b, 0.10, 0.10).verdict == KB_VERDICT_SAME);
}

KB_TEST(missing_noise_reads_as_zero_so_the_threshold_alone_decides) {
    KB_EXPECT(verdict(100, NAN, 107, NAN) == KB_VERDICT_SLOWER);
    KB_EXPECT(verdict(100, NAN, 103, NAN) == KB_VERDICT_SAME);
}

KB_TEST(rows_without_a_time_are_untimed) {
    kb_result a = timed(100, 1), b = timed(0, 0);
    b.status = KB_ROW_UNSUPPORTED;
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_UNTIMED);
    b = timed(90, 1);
    b.status = KB_ROW_FAIL; /* a FAIL row has a time, but it is not a result */
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_UNTIMED);
}

KB_TEST(pass_to_fail_error_crash_or_timeout_is_a_regression) {
    KB_EXPECT(kb_status_regressed(KB_ROW_PASS, KB_ROW_FAIL));
    KB_EXPECT(kb_status_regressed(KB_ROW_PASS, KB_ROW_ERROR));
    KB_EXPECT(kb_status_regressed(KB_ROW_PASS, KB_ROW_CRASH));
    KB_EXPECT(kb_status_regressed(KB_ROW_UNCHECKED, KB_ROW_TIMEOUT));
    KB_EXPECT(!kb_status_regressed(KB_ROW_PASS, KB_ROW_UNSUPPORTED));
    KB_EXPECT(!kb_status_regressed(KB_ROW_FAIL, KB_ROW_PASS));
    KB_EXPECT(!kb_status_regressed(KB_ROW_FAIL, KB_ROW_CRASH));
}

KB_TEST(verdict_names_are_the_words_the_report_prints) {
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_FASTER), "FASTER") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_SLOWER), "SLOWER") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_SAME), "SAME") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_UNSURE), "UNSURE") == 0);
}
