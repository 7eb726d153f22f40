/* compare_runs.c — the rule by which `kbench compare` judges a row of OLD
 * against the same case's row of NEW (cli_compare.c prints it; its --help
 * states it). Here, apart from the CLI, so that tests reach it.
 *
 * Status first: a row that fails (FAIL, ERROR, CRASH, TIMEOUT) in NEW gates,
 * whether it is newly BROKEN or STILL FAILING. Then the times: a row that
 * claims a result (PASS, UNCHECKED) must carry a positive finite median, or
 * nothing can be said of it (INVALID, which gates too). Only then are the
 * medians judged, with both runs' noise. A row of OLD that NEW lacks gates
 * too, unless the caller allows removals.
 */
#include "compare_runs.h"

#include <math.h>

/* The spread a median is judged with: the central 80% of the samples
 * (p90 - p10, over the median), scaled to a standard deviation as for a
 * normal distribution (p90 - p10 = 2.563 sigma). A few outliers — a
 * preempted sample, one cold page — move neither the median nor this, where
 * they can push the relative standard deviation (noise_pct) past 50% and
 * make every such row UNSURE. Files without p10/p90 fall back to noise_pct.
 * A host row taken in repeats (kb_timer, measure_common.c) is as noisy as its repeats'
 * medians disagree when that is the larger: half their range, (max - min) /
 * 2 min, the drift of a shared host that the samples of one repeat miss. */
static double sample_spread(const kb_result *r) {
    if (isfinite(r->p10_us) && isfinite(r->p90_us) && r->p10_us > 0 && r->p90_us >= r->p10_us &&
        r->median_us > 0)
        return (r->p90_us - r->p10_us) / (2.563 * r->median_us);
    return r->noise_pct >= 0 ? r->noise_pct / 100 : 0; /* NAN (no column) reads as 0 */
}

double kb_result_spread(const kb_result *r) {
    double s = sample_spread(r);
    double rep = r->repeat_spread_pct >= 0 ? r->repeat_spread_pct / 200 : 0; /* NAN: 0 */
    return rep > s ? rep : s;
}

kb_judgement kb_judge_timing(const kb_result *before, const kb_result *after, double threshold,
                             double max_noise) {
    kb_judgement j = {KB_VERDICT_UNTIMED, NAN, NAN};
    if (!kb_result_timed(before) || !kb_result_timed(after)) return j;
    double n0 = kb_result_spread(before), n1 = kb_result_spread(after);
    j.delta = after->median_us / before->median_us - 1;
    j.band = 2 * sqrt(n0 * n0 + n1 * n1);
    if (n0 > max_noise || n1 > max_noise)
        j.verdict = KB_VERDICT_UNSURE;
    else if (fabs(j.delta) <= threshold || fabs(j.delta) <= j.band)
        j.verdict = KB_VERDICT_SAME;
    else
        j.verdict = j.delta < 0 ? KB_VERDICT_FASTER : KB_VERDICT_SLOWER;
    return j;
}

const char *kb_verdict_name(kb_verdict v) {
    static const char *const names[] = {"SAME", "FASTER", "SLOWER", "UNSURE", "UNTIMED"};
    return names[v];
}

int kb_result_time_valid(const kb_result *r) {
    return !kb_status_passing(r->status) || (isfinite(r->median_us) && r->median_us > 0);
}

kb_change kb_compare_rows(const kb_result *before, const kb_result *after, double threshold,
                          double max_noise, kb_judgement *j) {
    kb_judgement untimed = {KB_VERDICT_UNTIMED, NAN, NAN};
    if (j) *j = untimed;
    if (!after) return kb_result_time_valid(before) ? KB_CHANGE_REMOVED : KB_CHANGE_INVALID;
    if (kb_status_failing(after->status))
        return before && kb_status_failing(before->status) ? KB_CHANGE_STILL_FAILING
                                                           : KB_CHANGE_BROKEN;
    if (!kb_result_time_valid(after)) return KB_CHANGE_INVALID;
    if (!before) return KB_CHANGE_ADDED;
    if (!kb_result_time_valid(before)) return KB_CHANGE_INVALID;
    if (kb_status_failing(before->status))
        return kb_status_passing(after->status) ? KB_CHANGE_FIXED : KB_CHANGE_STATUS;
    kb_judgement t = kb_judge_timing(before, after, threshold, max_noise);
    if (j) *j = t;
    if (t.verdict == KB_VERDICT_SLOWER) return KB_CHANGE_SLOWER;
    if (t.verdict == KB_VERDICT_FASTER) return KB_CHANGE_FASTER;
    if (t.verdict == KB_VERDICT_UNSURE) return KB_CHANGE_UNSURE;
    return before->status == after->status ? KB_CHANGE_SAME : KB_CHANGE_STATUS;
}

const char *kb_change_name(kb_change c) {
    static const char *const names[KB_NCHANGES] = {"BROKEN", "STILL FAILING", "INVALID", "SLOWER",
                                                   "FASTER", "UNSURE",        "FIXED",   "STATUS",
                                                   "ADDED",  "REMOVED",       "SAME"};
    return names[c];
}

/* A row that NEW lacks is a case no longer measured: a run killed or cut
 * short, a header alone, the file of another op. As a gate that must fail,
 * or a change that loses every row would pass as "nothing got slower". */
int kb_change_gates(kb_change c, int allow_removed) {
    return c == KB_CHANGE_BROKEN || c == KB_CHANGE_STILL_FAILING || c == KB_CHANGE_INVALID ||
           c == KB_CHANGE_SLOWER || (c == KB_CHANGE_REMOVED && !allow_removed);
}

static int has_kernel_time(const kb_result *r) {
    return isfinite(r->kernel_us) && r->kernel_us > 0;
}

int kb_result_use_kernel_time(kb_result *r) {
    if (!has_kernel_time(r)) return 0;
    /* The rates are the cost model over the time: over the kernel time now,
     * so that the GB/s and roofline plots say what the tables rank by. */
    if (isfinite(r->median_us) && r->median_us > 0) {
        double scale = r->median_us / r->kernel_us;
        r->gbps *= scale;
        r->gflops *= scale;
        r->pct_peak_bw *= scale;
        r->pct_peak_flops *= scale;
    }
    r->median_us = r->kernel_us;
    r->p10_us = r->kernel_p10_us;
    r->p90_us = r->kernel_p90_us;
    r->noise_pct = NAN; /* the events' spread: the percentiles speak for the kernels */
    return 1;
}

int kb_use_kernel_time(kb_result *before, kb_result *after) {
    if (!before || !after || !has_kernel_time(before) || !has_kernel_time(after)) return 0;
    kb_result_use_kernel_time(before);
    kb_result_use_kernel_time(after);
    return 1;
}
