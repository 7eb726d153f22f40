/* test_compare.c — the rule of `kbench compare` (harness/analysis/compare_runs.c) on
 * synthetic rows: a change counts only when it is beyond both the threshold
 * and the two runs' combined noise; runs noisier than the bound are UNSURE;
 * a row that fails in NEW gates whatever its time (BROKEN, STILL FAILING);
 * a passing row with no valid median cannot be judged (INVALID). */
#include "kbtest.h"

#include "analysis/compare_runs.h"

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

/* A row timed with p10/p90 is judged by the spread of its central samples:
 * 7.8 us with p10 7.7 and p90 7.95 is quiet (1.25%) even when a few
 * preempted samples make its relative std-dev 84%. */
static kb_result timed_pcts(double median_us, double p10_us, double p90_us, double noise_pct) {
    kb_result r = timed(median_us, noise_pct);
    r.p10_us = p10_us;
    r.p90_us = p90_us;
    return r;
}

KB_TEST(outliers_that_leave_the_central_samples_alone_are_not_noise) {
    kb_result a = timed_pcts(7.90, 7.80, 8.05, 3.9), b = timed_pcts(7.81, 7.70, 7.95, 84.1);
    /* spread = (p90 - p10) / (2.563 median): 0.25 / (2.563 * 7.90) = 1.23% */
    KB_EXPECT_NEAR(kb_result_spread(&a), 0.25 / (2.563 * 7.90), 1e-12);
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_SAME);
    kb_result c = timed_pcts(10.0, 9.9, 10.1, 84.1);
    KB_EXPECT(kb_judge_timing(&a, &c, threshold, max_noise).verdict == KB_VERDICT_SLOWER);
}

KB_TEST(wide_central_spread_is_unsure) {
    /* p10 6, p90 10 around 8: (10 - 6) / (2.563 * 8) = 19.5% > the 5% bound */
    kb_result a = timed_pcts(8, 6, 10, 1), b = timed_pcts(8.1, 8.0, 8.2, 1);
    KB_EXPECT_NEAR(kb_result_spread(&a), 4 / (2.563 * 8), 1e-12);
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_UNSURE);
}

KB_TEST(rows_without_percentiles_fall_back_to_noise_pct) {
    kb_result a = timed(100, 8);
    KB_EXPECT_NEAR(kb_result_spread(&a), 0.08, 1e-12);
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

static kb_result with_status(kb_status st) {
    kb_result r = timed(100, 1);
    r.status = st;
    return r;
}

static kb_change change(const kb_result *before, const kb_result *after) {
    return kb_compare_rows(before, after, threshold, max_noise, NULL);
}

KB_TEST(a_row_that_fails_in_new_and_did_not_in_old_is_broken) {
    static const kb_status failing[] = {KB_ROW_FAIL, KB_ROW_ERROR, KB_ROW_CRASH, KB_ROW_TIMEOUT,
                                        KB_ROW_NOT_RUN};
    static const kb_status not_failing[] = {KB_ROW_PASS, KB_ROW_UNCHECKED, KB_ROW_UNSUPPORTED};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++) {
            kb_result old = with_status(not_failing[a]), new = with_status(failing[b]);
            KB_EXPECT(change(&old, &new) == KB_CHANGE_BROKEN);
            KB_EXPECT(change(NULL, &new) == KB_CHANGE_BROKEN); /* a new row that fails */
        }
}

KB_TEST(a_row_that_fails_in_both_files_is_still_failing_and_gates) {
    kb_result fail = with_status(KB_ROW_FAIL), crash = with_status(KB_ROW_CRASH);
    KB_EXPECT(change(&fail, &fail) == KB_CHANGE_STILL_FAILING);
    KB_EXPECT(change(&fail, &crash) == KB_CHANGE_STILL_FAILING);
    KB_EXPECT(change(&crash, &fail) == KB_CHANGE_STILL_FAILING);
    KB_EXPECT(kb_change_gates(KB_CHANGE_STILL_FAILING, 0) && kb_change_gates(KB_CHANGE_BROKEN, 0));
}

KB_TEST(a_failing_row_that_passes_again_is_fixed_and_does_not_gate) {
    kb_result fail = with_status(KB_ROW_FAIL), pass = timed(100, 1);
    KB_EXPECT(change(&fail, &pass) == KB_CHANGE_FIXED);
    KB_EXPECT(!kb_change_gates(KB_CHANGE_FIXED, 0));
    kb_result unsupported = with_status(KB_ROW_UNSUPPORTED);
    KB_EXPECT(change(&fail, &unsupported) == KB_CHANGE_STATUS);
    KB_EXPECT(change(&unsupported, &unsupported) == KB_CHANGE_SAME);
}

KB_TEST(a_passing_row_without_a_positive_finite_median_is_invalid) {
    static const double bad[] = {0, -5, NAN, INFINITY};
    kb_result good = timed(100, 1);
    for (int i = 0; i < 4; i++) {
        kb_result row = timed(bad[i], 1);
        KB_EXPECT(!kb_result_time_valid(&row));
        KB_EXPECT(change(&good, &row) == KB_CHANGE_INVALID); /* NEW invalid */
        KB_EXPECT(change(&row, &good) == KB_CHANGE_INVALID); /* OLD invalid: no baseline */
        KB_EXPECT(change(&row, &row) == KB_CHANGE_INVALID);
        KB_EXPECT(change(NULL, &row) == KB_CHANGE_INVALID); /* not merely ADDED */
        KB_EXPECT(change(&row, NULL) == KB_CHANGE_INVALID); /* not merely REMOVED */
        row.status = KB_ROW_UNCHECKED;
        KB_EXPECT(change(&good, &row) == KB_CHANGE_INVALID);
    }
    KB_EXPECT(kb_change_gates(KB_CHANGE_INVALID, 0));
}

KB_TEST(rows_that_claim_no_result_are_judged_by_status_not_median) {
    kb_result unsupported = with_status(KB_ROW_UNSUPPORTED);
    unsupported.median_us = NAN;
    KB_EXPECT(kb_result_time_valid(&unsupported));
    KB_EXPECT(change(&unsupported, &unsupported) == KB_CHANGE_SAME);
    kb_result fail = with_status(KB_ROW_FAIL), pass = timed(100, 1);
    fail.median_us = 0;
    KB_EXPECT(change(&pass, &fail) == KB_CHANGE_BROKEN);
}

KB_TEST(timing_verdicts_and_rows_in_one_file) {
    kb_result a = timed(100, 1), slower = timed(120, 1), faster = timed(80, 1);
    kb_judgement j;
    KB_EXPECT(kb_compare_rows(&a, &slower, threshold, max_noise, &j) == KB_CHANGE_SLOWER);
    KB_EXPECT_NEAR(j.delta, 0.20, 1e-12);
    KB_EXPECT(change(&a, &faster) == KB_CHANGE_FASTER);
    KB_EXPECT(change(&a, &a) == KB_CHANGE_SAME);
    KB_EXPECT(change(NULL, &a) == KB_CHANGE_ADDED && change(&a, NULL) == KB_CHANGE_REMOVED);
    KB_EXPECT(kb_change_gates(KB_CHANGE_SLOWER, 0) && !kb_change_gates(KB_CHANGE_FASTER, 0));
    KB_EXPECT(!kb_change_gates(KB_CHANGE_ADDED, 0) && !kb_change_gates(KB_CHANGE_SAME, 0));
    kb_result unsupported = with_status(KB_ROW_UNSUPPORTED);
    KB_EXPECT(change(&a, &unsupported) == KB_CHANGE_STATUS);
}

KB_TEST(a_row_only_in_old_gates_unless_removals_are_allowed) {
    kb_result a = timed(100, 1);
    KB_EXPECT(change(&a, NULL) == KB_CHANGE_REMOVED);
    KB_EXPECT(kb_change_gates(KB_CHANGE_REMOVED, 0)); /* NEW lost a case: a cut-short run */
    KB_EXPECT(!kb_change_gates(KB_CHANGE_REMOVED, 1));
    KB_EXPECT(kb_change_gates(KB_CHANGE_SLOWER, 1) && !kb_change_gates(KB_CHANGE_ADDED, 1));
}

KB_TEST(verdict_names_are_the_words_the_report_prints) {
    KB_EXPECT(strcmp(kb_change_name(KB_CHANGE_STILL_FAILING), "STILL FAILING") == 0);
    KB_EXPECT(strcmp(kb_change_name(KB_CHANGE_INVALID), "INVALID") == 0);
    KB_EXPECT(strcmp(kb_change_name(KB_CHANGE_SAME), "SAME") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_FASTER), "FASTER") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_SLOWER), "SLOWER") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_SAME), "SAME") == 0);
    KB_EXPECT(strcmp(kb_verdict_name(KB_VERDICT_UNSURE), "UNSURE") == 0);
}

KB_TEST(a_host_rows_repeat_spread_is_its_noise_when_larger) {
    /* 30% slower with quiet samples: SLOWER, unless the repeats' medians of
     * either run spread 20% (a shared host's drift): then too noisy to tell */
    kb_result a = timed(100, 1), b = timed(130, 1);
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_SLOWER);
    a.repeat_spread_pct = b.repeat_spread_pct = 20;
    KB_EXPECT_NEAR(kb_result_spread(&a), 0.10, 1e-12);
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_UNSURE);
}

KB_TEST(timer_kernels_judges_kernel_time_when_both_rows_have_it) {
    kb_result a = timed(100, 1), b = timed(100, 1);
    a.kernel_us = 50, a.kernel_p10_us = 49.5, a.kernel_p90_us = 50.5;
    b.kernel_us = 60, b.kernel_p10_us = 59.5, b.kernel_p90_us = 60.5;
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_SAME);
    KB_EXPECT(kb_use_kernel_time(&a, &b) == 1);
    KB_EXPECT_NEAR(a.median_us, 50, 0);
    KB_EXPECT_NEAR(b.p90_us, 60.5, 0);
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_SLOWER);
}

/* A report ranked by kernel time draws its GB/s and roofline from the same
 * time: the rates scale with it, and a row without kernel time keeps its own. */
KB_TEST(a_rows_rates_follow_its_kernel_time) {
    kb_result r = timed(100, 1), old = timed(100, 1);
    r.gbps = 10, r.gflops = 4, r.pct_peak_bw = 5, r.pct_peak_flops = NAN;
    r.kernel_us = 50, r.kernel_p10_us = 49, r.kernel_p90_us = 51;
    KB_EXPECT(kb_result_use_kernel_time(&r) == 1);
    KB_EXPECT_NEAR(r.median_us, 50, 0);
    KB_EXPECT_NEAR(r.gbps, 20, 1e-12);
    KB_EXPECT_NEAR(r.gflops, 8, 1e-12);
    KB_EXPECT_NEAR(r.pct_peak_bw, 10, 1e-12);
    KB_EXPECT(isnan(r.pct_peak_flops));
    old.gbps = 10, old.kernel_us = NAN;
    KB_EXPECT(kb_result_use_kernel_time(&old) == 0);
    KB_EXPECT_NEAR(old.gbps, 10, 0);
}

KB_TEST(timer_kernels_keeps_event_time_when_a_row_lacks_kernel_time) {
    kb_result a = timed(100, 1), b = timed(120, 1);
    a.kernel_us = 50;
    b.kernel_us = NAN; /* an older file, or no CUPTI where NEW ran */
    KB_EXPECT(kb_use_kernel_time(&a, &b) == 0);
    KB_EXPECT_NEAR(a.median_us, 100, 0);
    KB_EXPECT(kb_judge_timing(&a, &b, threshold, max_noise).verdict == KB_VERDICT_SLOWER);
}
