/* row.h — the runner's record of one pair (kb_row: status, statistics in
 * seconds, the samples, accuracy), the kb_result it becomes in a file
 * (kb_row_result), and what every output file records once (kb_meta); row.c
 * writes the metadata lines. Printers (printer.h) turn rows into files. */
#ifndef KB_ROW_H
#define KB_ROW_H

#include "kbench.h"
#include "device.h"
#include "measure.h" /* kb_mode */
#include "stats.h"
#include "results/result.h" /* kb_status, kb_result */

#include <stdio.h>

typedef struct kb_row {
    char op[64], variant[64];
    char params[1024]; /* kb_case_format */
    kb_mode mode;
    kb_status status;
    char reason[1200]; /* why UNSUPPORTED / ERROR / FAIL */
    kb_stats stats;    /* seconds */
    const double *samples;
    kb_cost cost;
    double gbps, gflops, pct_peak_bw, pct_peak_flops;
    size_t workspace_bytes;
    kb_accuracy acc;
    int checked;
    int deterministic; /* 1 yes, 0 no (flagged), -1 not checked */
    unsigned flags;    /* the variant's */
    int throttled;     /* samples discarded for a low SM clock */
    int forced;        /* --force ran it past supports() (the `forced` column) */
    char device[64];   /* the UUID of the GPU that measured it */
    int pair;          /* its place among every pair of the sweep (kb_pair.index) */
    int peer;          /* 1: a peer's row (kb_loaded.peer), the peer column */
    char source[128];  /* where the variant comes from: builtin, plugin:<file>, py:<file> */
    /* --timer kernels (ktime.h), seconds per launch over the kn samples that
     * have them (0: none, the columns stay empty): the median, p10 and p90 of
     * each sample's sum of kernel, memset and copy durations, the median of
     * its span (first start to last end), and its records per launch. */
    int kn;
    double ksum_median, ksum_p10, ksum_p90, kspan_median, krecords;
    /* A host row (measure_host.c): the repeats its samples were taken in,
     * and the spread of their medians, (max - min) / min; 0 repeats: not one. */
    int repeats;
    double repeat_spread;
    int interleaved; /* timed in turns with its case's other variants (--interleave) */
} kb_row;

/* What every output file records once (DESIGN.md "Output"). */
typedef struct kb_meta {
    /* commit, time, host, command (kb_meta_init); shard (--shard); the CPU
     * and omp_get_max_threads() that host rows and references ran on; the
     * L2 flush of a cold `run` on a device (results/header.h) */
    kb_run_header run;
    const kb_device *dev; /* NULL without a device; else ndev of them */
    int ndev;
    int sm_clock_now_mhz; /* when the run began; -1 unknown (kb_meta_init) */
} kb_meta;

/* r as the row of a results file: times in microseconds, accuracy NAN
 * unless checked, dropped NAN unless counted (result.h's columns). */
void kb_row_result(const kb_row *r, kb_result *out);

void kb_meta_init(kb_meta *meta, const kb_device *dev, int argc, char **argv);

/* The metadata as lines, each starting with prefix ("# " in a CSV). */
void kb_meta_print_lines(FILE *f, const kb_meta *m, const char *prefix);

/* How the reason of a NOT_RUN row begins (the context or the device was lost
 * before the pair's turn), for a reader of the file; --resume drops NOT_RUN
 * rows and runs their pairs again. */
#define KB_NOT_RUN "not run: "
/* The reason of a row run past its variant's limit by --force starts with
 * this, for a reader of the file; the fact itself is the `forced` column. */
#define KB_FORCED_PREFIX "FORCED"

#endif
