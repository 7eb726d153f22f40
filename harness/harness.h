/* harness.h — the harness's own pieces (not for ops or variants): sweep
 * specs, statistics, stopping rule, measurement modes, device facts, result
 * rows and their printers, the runner. One .c file per concern. */
#ifndef KB_HARNESS_H
#define KB_HARNESS_H

#include "kbench.h"

#include <stdio.h>

/* Exit codes of the kbench program (README "Exit codes"). */
enum {
    KB_EXIT_OK = 0,        /* every row PASS (or UNSUPPORTED) */
    KB_EXIT_FAILED = 1,    /* a row FAILed, ERRORed or CRASHed */
    KB_EXIT_USAGE = 2,     /* bad command line, unknown op/axis/value, unreadable file */
    KB_EXIT_NO_DEVICE = 3, /* run/check with no CUDA device or driver */
    KB_EXIT_RUNTIME = 4,   /* could not write output, out of host memory, ... */
};

/* ---- sweep specs (sweep_spec.c) ----------------------------------------- */

/* One axis and its values, from `-a n=[1,8,16]`, `-a h=[32:512:32]`,
 * `-a n[pow2]=[0:5]` or a token of a sweep line. */
typedef struct kb_spec {
    char axis[64];
    int count;
    char (*values)[KB_STR];
} kb_spec;

enum { KB_SPEC_MAX_VALUES = 100000 };

int kb_spec_parse(const char *text, kb_spec *spec, kb_error *e);
void kb_spec_free(kb_spec *spec);

typedef struct kb_case_list {
    int count, cap;
    kb_case *cases;
} kb_case_list;

/* Expand one line of `axis=spec` tokens (a sweep line; "" for the defaults)
 * with the overrides applied last, as a cartesian product, appending the
 * cases to list. Every case is checked by kb_case_set and op->validate. */
int kb_expand_line(const kb_op *op, const char *line, const kb_spec *overrides, int noverrides,
                   kb_case_list *list, kb_error *e);
/* A named sweep of the op, or a file with one line per case (# comments). */
int kb_expand_sweep(const kb_op *op, const char *name_or_file, const kb_spec *overrides,
                    int noverrides, kb_case_list *list, kb_error *e);
void kb_case_list_free(kb_case_list *list);
const kb_sweep *kb_find_sweep(const kb_op *op, const char *name);

/* ---- statistics and the stopping rule (stats.c) --------------------------- */

typedef struct kb_stats {
    int n;
    double median, min, max, p10, p90, mean, stddev;
    double noise; /* stddev / mean: the relative spread */
} kb_stats;

void kb_stats_compute(const double *samples, int n, kb_stats *st);

typedef struct kb_stop_rule {
    double max_noise;  /* stop once the relative spread is under this ... */
    int min_samples;   /* ... with at least this many samples, */
    double max_time_s; /* or once this much time went into sampling */
    int max_samples;   /* hard cap (memory) */
} kb_stop_rule;

/* 1 when sampling may stop; elapsed_s is the wall time spent sampling. */
int kb_should_stop(const kb_stop_rule *rule, const double *samples, int n, double elapsed_s);

/* ---- device facts (device.c) --------------------------------------------- */

typedef struct kb_device {
    int ordinal;
    char name[256];
    char uuid[64];
    int cc_major, cc_minor, sm_count;
    size_t l2_bytes, mem_bytes;
    int sm_clock_mhz, mem_clock_mhz, bus_width_bits; /* maxima the device reports */
    int driver_version, runtime_version;
    double peak_copy_gbps;    /* measured: device-to-device copy, read + write bytes */
    double peak_sgemm_gflops; /* measured: cuBLAS SGEMM 8192^3, fp32 FMA units */
} kb_device;

/* KB_NO_DEVICE with a message when there is no device or no driver. */
int kb_device_open(int ordinal, kb_device *d, kb_error *e);
/* Measured peaks, cached per device UUID under $XDG_CACHE_HOME/kbench
 * (or ~/.cache/kbench); force re-measures. */
int kb_device_peaks(kb_device *d, int force, kb_error *e);
/* Current SM clock in MHz through NVML (loaded at run time); -1 if unknown. */
int kb_device_sm_clock_now(const kb_device *d);
void kb_device_describe(const kb_device *d, FILE *f);

/* ---- measurement (measure_*.c) -------------------------------------------- */

typedef enum kb_mode { KB_MODE_COLD, KB_MODE_HOT, KB_MODE_GRAPH } kb_mode;
const char *kb_mode_name(kb_mode m);
int kb_mode_parse(const char *s, kb_mode *m);

/* What is timed: one whole op, enqueued on s. */
typedef int (*kb_launch_fn)(void *ctx, cudaStream_t s, kb_error *e);

typedef struct kb_measure {
    kb_mode mode;
    kb_stop_rule rule;
    void *l2_flush; /* device buffer, cold mode */
    size_t l2_flush_bytes;
    double *samples; /* seconds per launch; rule.max_samples long */
    int nsamples;
    double warmup_s;
} kb_measure;

int kb_measure_cold(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
int kb_measure_hot(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
int kb_measure_graph(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e);
/* Warm-up shared by the modes: at least 2 launches and ~warmup_s seconds.
 * Returns the time of one launch (seconds), for batch sizing. */
int kb_warmup(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, double *per_launch_s,
              kb_error *e);
double kb_now_s(void);

/* ---- rows and printers (row.c, out_*.c) ------------------------------------ */

typedef enum kb_status {
    KB_ROW_PASS,
    KB_ROW_FAIL,
    KB_ROW_UNSUPPORTED,
    KB_ROW_ERROR,
    KB_ROW_CRASH,
    KB_ROW_TIMEOUT,
    KB_ROW_UNCHECKED, /* --no-check: timed, not judged */
} kb_status;

const char *kb_status_name(kb_status s);
int kb_status_parse(const char *s, kb_status *st);

typedef struct kb_row {
    char op[64], variant[64];
    char params[1024]; /* kb_case_format */
    const kb_case *kcase;
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
} kb_row;

/* What every output file records once (DESIGN.md "Output"). */
typedef struct kb_meta {
    const kb_device *dev; /* NULL without a device */
    const char *commit;
    char command[2048];
    char time[64]; /* ISO 8601 UTC */
    char host[128];
} kb_meta;

void kb_meta_init(kb_meta *meta, const kb_device *dev, int argc, char **argv);

typedef struct kb_printer {
    FILE *f;
    int own_file;
    void (*begin)(struct kb_printer *p, const kb_meta *meta);
    void (*row)(struct kb_printer *p, const kb_row *r);
    void (*end)(struct kb_printer *p);
    int rows;
    char last_op[64];
} kb_printer;

typedef enum kb_format { KB_FMT_TABLE, KB_FMT_CSV, KB_FMT_JSON, KB_FMT_MD } kb_format;
int kb_format_parse(const char *s, kb_format *f);
kb_format kb_format_from_path(const char *path, kb_format fallback);
void kb_printer_init(kb_printer *p, kb_format fmt, FILE *f);

/* The CSV schema (out_csv.c writes it, csv_read.c reads it back). */
extern const char *const kb_csv_columns[];

/* ---- the runner (runner.c) ---------------------------------------------------- */

typedef struct kb_run_opts {
    kb_mode mode;
    kb_stop_rule rule;
    uint64_t seed;
    int check;  /* compare with the reference */
    int timing; /* 0 for `kbench check` */
    const char *inputs_dir;
    const char *dump_dir;
    int progress; /* a progress line on stderr (TTY) */
} kb_run_opts;

typedef struct kb_runner {
    kb_device *dev;
    kb_run_opts opts;
    kb_printer *printers[8];
    int nprinters;
    int counts[KB_ROW_UNCHECKED + 1];
    int skipped_na;   /* variant/case pairs that are another function of the op */
    int context_lost; /* a sticky CUDA error: later rows cannot run in this process */
    kb_measure measure;
    cudaStream_t stream;
} kb_runner;

int kb_runner_init(kb_runner *r, kb_device *dev, const kb_run_opts *opts, kb_error *e);
void kb_runner_free(kb_runner *r);
/* Run every selected variant (NULL-terminated list) over every case; rows go
 * to the printers as they complete. */
int kb_runner_sweep(kb_runner *r, const kb_case_list *cases, const kb_variant *const *variants,
                    kb_error *e);

extern const char *const kb_git_commit;

#endif
