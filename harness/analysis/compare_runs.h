/* compare_runs.h — the rule `kbench compare` judges two runs by
 * (compare_runs.c): a timing verdict per matched pair of rows, and what
 * changed between them. */
#ifndef KB_COMPARE_RUNS_H
#define KB_COMPARE_RUNS_H

#include "results.h"

typedef enum kb_verdict {
    KB_VERDICT_SAME,
    KB_VERDICT_FASTER,
    KB_VERDICT_SLOWER,
    KB_VERDICT_UNSURE,
    KB_VERDICT_UNTIMED, /* one of the rows has no time (not PASS/UNCHECKED) */
} kb_verdict;

typedef struct kb_judgement {
    kb_verdict verdict;
    double delta; /* new/old - 1 of the medians */
    double band;  /* 2 * sqrt(noise_old^2 + noise_new^2), as a fraction */
} kb_judgement;

/* The timing rule of `kbench compare --help`; threshold and max_noise are
 * fractions. Both rows must have valid times (kb_result_time_valid). */
kb_judgement kb_judge_timing(const kb_result *before, const kb_result *after, double threshold,
                             double max_noise);
const char *kb_verdict_name(kb_verdict v);

/* The relative spread compare judges a row's median with. */
double kb_result_spread(const kb_result *r);
/* `--timer kernels`: when both rows carry CUPTI's kernel time (kernel_us),
 * their median, p10 and p90 become the kernel time's, so that the rule
 * judges it; 1 then, else 0 with both rows as they were (event time: a
 * kernel time is never judged against an event time). */
int kb_use_kernel_time(kb_result *before, kb_result *after);
/* One row alone (a report's table of one run): its kernel time in place of
 * the event time when it has one, its rates (gbps, gflops, % of peak) scaled
 * to that time; 1 then, else 0 and the row as it was. */
int kb_result_use_kernel_time(kb_result *r);
/* 0 when the row claims a result (PASS/UNCHECKED) but its median_us is not a
 * positive finite time (0, negative, NaN, inf, or no median_us column). */
int kb_result_time_valid(const kb_result *r);

/* What `kbench compare` says of one matched pair, in listing order: what
 * gates (exit 5) first, what is the same last. */
typedef enum kb_change {
    KB_CHANGE_BROKEN,        /* fails in NEW; passed, was unsupported or absent in OLD */
    KB_CHANGE_STILL_FAILING, /* fails in both */
    KB_CHANGE_INVALID,       /* a passing row in either file with no valid median */
    KB_CHANGE_SLOWER,
    KB_CHANGE_FASTER,
    KB_CHANGE_UNSURE,
    KB_CHANGE_FIXED,  /* failed in OLD, passes in NEW */
    KB_CHANGE_STATUS, /* any other change of status (PASS <-> UNSUPPORTED, FAIL -> UNSUPPORTED) */
    KB_CHANGE_ADDED,
    KB_CHANGE_REMOVED, /* in OLD only: gates unless removals are allowed */
    KB_CHANGE_SAME,
    KB_NCHANGES
} kb_change;

/* Judge a pair; before or after is NULL for a row in only one file. j (may
 * be NULL) receives the timing judgement (KB_VERDICT_UNTIMED when none). */
kb_change kb_compare_rows(const kb_result *before, const kb_result *after, double threshold,
                          double max_noise, kb_judgement *j);
const char *kb_change_name(kb_change c);
/* 1 for the changes that make `kbench compare` exit 5: BROKEN, STILL
 * FAILING, INVALID, SLOWER, and REMOVED unless allow_removed (a NEW run of
 * fewer cases on purpose, `--allow-removed`). */
int kb_change_gates(kb_change c, int allow_removed);

#endif
