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
    KB_EXIT_FAILED = 1,    /* a row FAILed, ERRORed, CRASHed or TIMEd OUT */
    KB_EXIT_USAGE = 2,     /* bad command line, unknown op/axis/value, unreadable file */
    KB_EXIT_NO_DEVICE = 3, /* run/check with no CUDA device or driver */
    KB_EXIT_RUNTIME = 4,   /* could not write output, out of host memory, ... */
    KB_EXIT_SLOWER = 5,    /* compare: a row SLOWER, BROKEN, STILL FAILING or INVALID */
};

/* ---- sweep specs (sweep_spec.c) ----------------------------------------- */

/* One axis and its values, from `-a n=[1,8,16]`, `-a h=[32:512:32]`,
 * `-a n[pow2]=[0:5]` or a token of a sweep line. */
typedef struct kb_spec {
    char axis[64];
    int count;
    char (*values)[KB_STR];
    /* Where a relative path among the values also lies (kb_value.dir): set for
     * the specs of a sweep's lines, NULL for -a (the working directory). */
    const char *dir;
    int dir_first;
} kb_spec;

/* KB_MAX_CASES: the most cases one run holds, sweeps and --fuzz together. A
 * kb_case is ~8.7 KB (KB_MAX_AXES values of KB_STR text): 65536 cases are
 * ~570 MB of descriptions, and more than any sweep could time. */
enum { KB_SPEC_MAX_VALUES = 100000, KB_MAX_CASES = 65536 };

int kb_spec_parse(const char *text, kb_spec *spec, kb_error *e);
void kb_spec_free(kb_spec *spec);

typedef struct kb_case_list {
    int count, cap;
    kb_case *cases;
} kb_case_list;

/* Expand one line of `axis=spec` tokens (a sweep line; "" for the defaults)
 * with the overrides applied last, as a cartesian product, appending the
 * cases to list. Every case is checked by kb_case_set and kb_case_validate;
 * relative paths in it are relative to the working directory. */
int kb_expand_line(const kb_op *op, const char *line, const kb_spec *overrides, int noverrides,
                   kb_case_list *list, kb_error *e);
/* A named sweep of the op, or a file with one line per case (# comments).
 * A relative path in a built-in sweep (image=datasets/images/...) is relative
 * to the source tree; in a sweep file, to the working directory and, when
 * not found there, to the file's folder. A file that yields no case (empty,
 * only comments), a directory or a binary file is an error naming it. */
int kb_expand_sweep(const kb_op *op, const char *name_or_file, const kb_spec *overrides,
                    int noverrides, kb_case_list *list, kb_error *e);
/* op->validate, then the sizes of the tensors op->describe gives (no product
 * past INT64_MAX elements or SIZE_MAX bytes): what every case passes before
 * the device is touched. */
int kb_case_validate(const kb_case *c, kb_error *e);
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

/* KB_NO_DEVICE with a message saying which: no driver, a driver older than
 * the runtime, no device, or no device of that ordinal. */
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
    /* Throttling: samples taken while the SM clock (NVML) sat under
     * throttle_frac of its maximum are discarded and counted. */
    const struct kb_device *dev;
    double throttle_frac;
    int throttled;
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
    int forced;        /* --force ran it past supports(): reason starts KB_FORCED_PREFIX */
} kb_row;

/* What every output file records once (DESIGN.md "Output"). */
typedef struct kb_meta {
    const kb_device *dev; /* NULL without a device */
    const char *commit;
    char command[2048];
    char time[64]; /* ISO 8601 UTC */
    char host[128];
    int sm_clock_now_mhz; /* when the run began; -1 unknown (kb_meta_init) */
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
    int append;     /* resuming a file: its header is there already, */
    int new_header; /* ... but of an older schema: write the current one after it */
} kb_printer;

typedef enum kb_format { KB_FMT_TABLE, KB_FMT_CSV, KB_FMT_JSON, KB_FMT_MD } kb_format;
int kb_format_parse(const char *s, kb_format *f);
/* The extensions an output file's format is known by. */
#define KB_OUTPUT_EXTENSIONS ".csv, .json, .jsonl, .md or .txt"
/* The format of an output file from its extension; KB_ERR for any other. */
int kb_format_from_path(const char *path, kb_format *f);
void kb_printer_init(kb_printer *p, kb_format fmt, FILE *f);

/* An output file (-o, --resume) that a run ending before its first row
 * leaves as it was (out_file.c). The printer writes to a temporary beside
 * FILE (FILE.kbench-tmp-PID) that replaces FILE once the first row is
 * written and flushed; later rows go on into FILE itself, flushed one by
 * one, so a killed run keeps its rows. A path that exists but is not a
 * regular file (/dev/null, a FIFO) is written directly. */
typedef struct kb_out_file {
    kb_printer p; /* first: the runner hands rows to &p */
    void (*format_row)(kb_printer *p, const kb_row *r);
    char path[1024];
    char tmp[1100]; /* the temporary; "" once renamed onto path, or when direct */
    int failed;     /* a write or the rename failed: err says which */
    kb_error err;
} kb_out_file;

/* Creates the temporary (with FILE's permissions where FILE exists) and a
 * printer of fmt on it. The message of a failure names the file and why. */
int kb_out_file_open(kb_out_file *o, const char *path, kb_format fmt, kb_error *e);
/* Ends the printer and closes the file; a temporary that never got a row is
 * removed, so FILE is as it was. KB_ERR when a write or the rename failed. */
int kb_out_file_close(kb_out_file *o, kb_error *e);
/* On SIGINT, SIGTERM or SIGHUP before their first row, the open temporaries
 * are removed (in the process that opened them) and the signal goes on. */
void kb_out_file_cleanup_on_signal(void);
/* s as a JSON string literal, quotes and escapes included (out_json.c). */
void kb_json_put_str(FILE *f, const char *s);

/* The CSV schema (out_csv.c writes it, csv_read.c reads it back). */
extern const char *const kb_csv_columns[];

/* ---- guard bytes after device tensors (guard.c) --------------------------- */

/* The runner allocates every device tensor KB_GUARD_BYTES longer and fills
 * the tail of each output with kb_guard_fill's pattern before a check run;
 * kb_guard_changed counts the bytes that no longer hold it (0: intact). */
enum { KB_GUARD_BYTES = 256 };
void kb_guard_fill(unsigned char *g, size_t n);
size_t kb_guard_changed(const unsigned char *g, size_t n);

/* ---- the runner (runner.c) and isolation (isolate.c) ------------------------- */

typedef struct kb_run_opts {
    kb_mode mode;
    kb_stop_rule rule;
    uint64_t seed;
    int check;  /* compare with the reference */
    int timing; /* 0 for `kbench check` */
    const char *inputs_dir;
    const char *dump_dir;
    int progress;          /* a progress line on stderr (TTY) */
    int isolate;           /* run the pairs in worker processes (isolate.c) */
    double case_timeout_s; /* isolated: a pair still running after this is a TIMEOUT row */
    int force;             /* run int32-index variants on cases their supports() refuses */
} kb_run_opts;

/* Output files of one run (-o), and the printers that gives a runner: those,
 * stdout and the --resume file. */
#define KB_MAX_OUTPUTS  8
#define KB_MAX_PRINTERS (KB_MAX_OUTPUTS + 2)

/* One row's worth of work: indices into the sweep's case and variant lists. */
typedef struct kb_pair {
    int c, v;
} kb_pair;

/* Device memory that a variant's rows (or whole cases) left in use: the leak
 * check. The first may load kernels and reserve local memory once; a leak
 * grows it again and again. */
typedef struct kb_mem_watch {
    int rows;       /* rows (cases) seen */
    int grew;       /* of those after the first: how many left over 1 MiB in use */
    size_t regrown; /* how much they left in use */
} kb_mem_watch;

typedef struct kb_runner {
    kb_run_opts opts;
    const kb_case_list *cases;
    const kb_variant *const *variants; /* NULL-terminated */
    int nvariants;
    kb_pair *pairs; /* the plan: case by case, variants in list order */
    int npairs;
    kb_printer *printers[KB_MAX_PRINTERS];
    int nprinters;
    int counts[KB_ROW_UNCHECKED + 1];
    int skipped_na;   /* variant/case pairs that are another function of the op */
    int context_lost; /* a sticky CUDA error: later rows cannot run in this process */
    /* --resume: rows already in the file are not run again. */
    int (*already_done)(void *ctx, const kb_variant *v, const char *params, kb_mode mode);
    void *done_ctx;
    int resumed; /* rows skipped because the file had them */
    /* Worker processes (isolate.c): return after the row that lost the context,
     * and say when a pair starts its device work or makes no row. */
    int stop_on_lost;
    int pair; /* the pair being run (kb_runner_run) */
    void (*on_start)(struct kb_runner *r, int pair, const char *forced_limit /* or "" */);
    void (*on_skip)(struct kb_runner *r, int pair);
    void *hook_ctx;
    /* The device side (kb_runner_attach), only in the process that runs pairs. */
    kb_device *dev;
    kb_measure measure;
    cudaStream_t stream;
    kb_mem_watch *mem; /* per variant; [nvariants]: whole cases (the harness's own) */
} kb_runner;

/* No CUDA in init and plan: options and the sample buffer; then the plan,
 * every (case, variant) pair of the sweep less those already_done says the
 * --resume file holds (set already_done between the two). */
int kb_runner_init(kb_runner *r, const kb_run_opts *opts, kb_error *e);
int kb_runner_plan(kb_runner *r, const kb_case_list *cases, const kb_variant *const *variants,
                   kb_error *e);
/* No CUDA either, before the device is opened: --inputs DIR exists, is a
 * directory and holds every case's inputs as .npy files of its dtype and
 * shape (headers only: values are read with the case); --dump DIR is created
 * (parents too) and writable. KB_ERR naming the option, the path and what is
 * wrong. */
int kb_runner_check_dirs(const kb_run_opts *o, const kb_case_list *cases, kb_error *e);
/* The device side: L2 flush buffer and stream (creates the CUDA context). */
int kb_runner_attach(kb_runner *r, kb_device *dev, kb_error *e);
void kb_runner_free(kb_runner *r);
/* Run pairs [from, npairs) in this process, rows to the printers as they
 * complete. Returns the first pair not run: npairs, or with stop_on_lost the
 * one after a row that lost the CUDA context. Device memory still in use at
 * the end beyond what one-time loads explain is reported on stderr (LEAK). */
int kb_runner_run(kb_runner *r, int from);
/* Count the row and hand it to every printer. */
void kb_runner_emit(kb_runner *r, const kb_row *row);
/* The precision class a row is checked in: tf32 for a KB_TF32 variant, else
 * the case's dtype axis (f16, bf16), else f32. */
kb_precision kb_case_precision(const kb_case *c, unsigned flags);
/* How the reason of an ERROR row that holds no result begins (the context or
 * the device was lost before the pair's turn): --resume drops such rows and
 * runs their pairs again. */
#define KB_NOT_RUN "not run: "
/* A row for pair p that the runner did not make (isolate.c: CRASH, TIMEOUT);
 * forced_limit: what --force ran it past, or "". */
void kb_runner_emit_status(kb_runner *r, int p, kb_status st, const char *why,
                           const char *forced_limit);
/* The reason of a row run past its variant's limit by --force starts with this. */
#define KB_FORCED_PREFIX "FORCED"

/* Called once, with the facts of the device the first worker opened. */
typedef void (*kb_begin_fn)(void *ctx, const kb_device *dev, int sm_clock_now_mhz);
/* Run the plan in worker processes: this process holds no CUDA context. A
 * worker that loses its context, dies or overruns opts.case_timeout_s costs
 * one CRASH or TIMEOUT row; the next worker continues with the next pair.
 * KB_OK, or KB_NO_DEVICE / KB_ERR (message in e) when the first worker could
 * not open the device (nothing was run). */
int kb_isolated_run(kb_runner *r, int device, kb_begin_fn begin, void *begin_ctx, kb_error *e);

extern const char *const kb_git_commit;

/* ==== results read back: kbench plot, report, compare (CPU only) ==========
 * csv_read.c reads the CSV that out_csv.c writes (and peers/ write in the
 * same schema) and groups the rows per op; cli_plot.c draws them with
 * gnuplot; cli_compare.c judges two runs. */

/* One row of a results CSV. A number the file leaves empty, or has no column
 * for, is NAN. Times are microseconds, as in the file. */
typedef struct kb_result {
    char op[64], variant[64]; /* variant "peer:<name>" for rows that peers/ wrote */
    char params[1024];
    char key[1024]; /* params by value (kb_params_key): what rows are matched by */
    char mode[16];  /* "cold" when the file has no mode column */
    kb_status status;
    char reason[1200];
    double samples;
    double median_us, min_us, max_us, p10_us, p90_us, mean_us, stddev_us, noise_pct;
    double bytes, flops, gbps, gflops, pct_peak_bw, pct_peak_flops, workspace_bytes;
    double rel_l2, max_abs, max_rel, tolerance, throttled;
    int deterministic; /* 1 yes, 0 no, -1 not checked or not recorded */
    char note[512];
    double dropped; /* kb_accuracy.dropped; NAN where not counted (from the note where the
                       file is of the schema before the column: "... drops N ...") */
    int file;       /* index into kb_results.files */
    int line;       /* the line the record starts on, 1-based */
} kb_result;

/* What a file's '#' lines say (kb_meta_print_lines wrote them). */
typedef struct kb_result_file {
    char path[1024];
    char commit[64], time[64], host[128];
    char command[2048];
    char gpu[1024];                           /* device, driver, clocks and peaks, one line */
    double peak_copy_gbps, peak_sgemm_gflops; /* from "peaks: copy N GB/s, sgemm N GFLOP/s"; 0 */
    char other[2048];                         /* any other '#' lines, joined by newlines */
    /* Every device ("name (UUID)") and every kbench commit the file's '#' lines
     * name, each once, newline-separated: a file joined from several runs or
     * continued by --resume on another GPU or build holds more than one. */
    char devices[2048], commits[512];
    unsigned long long has_columns; /* bit i: every header of the file has known column i */
} kb_result_file;

typedef struct kb_results {
    kb_result_file *files;
    int nfiles;
    kb_result *rows;
    int count, cap;
} kb_results;

/* Append the rows and metadata of a kbench CSV to res (zeroed before the
 * first call). Columns are found by name in the header: unknown ones are
 * ignored, missing optional ones read as NAN; op, variant, params and status
 * are required. A last line cut short (a run killed mid-row) is reported on
 * warn (may be NULL) and skipped; anything else malformed is KB_ERR with
 * "FILE:LINE: ..." in e. */
int kb_results_read(kb_results *res, const char *path, FILE *warn, kb_error *e);
void kb_results_free(kb_results *res);
/* Every device and every kbench commit that res's files name, each once,
 * joined by sep ("" when no file records one). */
void kb_results_runs(const kb_results *res, const char *sep, char *devices, size_t dn,
                     char *commits, size_t cn);
/* 1 when every header row of f has the column `name` (one kbench reads). */
int kb_result_file_has_column(const kb_result_file *f, const char *name);
/* params as the key rows are matched by: each axis=value token with the
 * op's axis kind applied (INT and FLOAT by numeric value, in the shortest
 * text that reads back to the same double: "iou=0.50" and "iou=0.5" are
 * one case), tokens in the op's axis order. ENUM and STRING values, axes
 * the op does not have, and ops this build does not know stay as text. */
void kb_params_key(const kb_op *op, const char *params, char *buf, size_t n);
int kb_result_is_peer(const char *variant);
/* PASS or UNCHECKED with a median time, not --force'd: what plots and speedups use. */
int kb_result_timed(const kb_result *r);
/* The relative spread compare judges a row's median with (compare_runs.c). */
double kb_result_spread(const kb_result *r);
/* "12.34 us", "1.234 ms", "1.234 s"; "-" when not positive. */
void kb_format_us(double us, char *buf, size_t n);
/* params with only the axes whose value differs from op's default (as the
 * tables print a case); "(defaults)" when none; params as they are when op is
 * NULL (an op this build does not know). */
void kb_params_short(const kb_op *op, const char *params, char *buf, size_t n);

/* The rows of one op in one timing mode, as a grid of cases x variants. */
typedef struct kb_op_view {
    char op[64], mode[16];
    const kb_op *def; /* the registry's op; NULL for an op this build does not know */
    int mode_in_name; /* the op has rows in more than one mode: plot names carry it */
    int first_file;   /* the file its first row came from */
    int nvariants, ncases;
    const char **variants;   /* registry order, then peers, then unknown names (by name) */
    int *variant_rank;       /* position among the op's registry variants; -1 otherwise */
    const char **cases;      /* params, by bytes moved, then order of appearance */
    double *bytes;           /* per case: the op's minimum bytes moved; NAN if unknown */
    const kb_result **cells; /* [case * nvariants + variant]: the row or NULL (later wins) */
} kb_op_view;

/* Group res into views, one per (op, mode), in order of first appearance. */
int kb_views_build(const kb_results *res, kb_op_view **views, int *nviews, kb_error *e);
void kb_views_free(kb_op_view *views, int nviews);
const kb_result *kb_view_cell(const kb_op_view *v, int c, int k);
int kb_view_variant(const kb_op_view *v, const char *name); /* index, or -1 */
/* Read every file (cut-short last lines reported on stderr) and group the
 * rows: KB_EXIT_OK, KB_EXIT_USAGE (unreadable, or no rows) or KB_EXIT_RUNTIME. */
int kb_results_load(const char *const *paths, int npaths, kb_results *res, kb_op_view **views,
                    int *nviews, kb_error *e);
/* The variant a case's speedups are measured against: `forced` when given,
 * else the first name of the op's baseline list (or, with none, its first
 * registry variant) that has a timed row on the case; -1 when none ran. */
int kb_view_baseline(const kb_op_view *v, int c, const char *forced);

/* ---- plots (cli_plot.c) ---- */

typedef struct kb_plot_opts {
    const char *dir;      /* where scripts, data and images go */
    const char *baseline; /* --baseline, or NULL for the registry's rule */
    int png, svg;
} kb_plot_opts;

/* One plot: DIR/<stem>.gp and .dat, and the images gnuplot renders from them. */
typedef struct kb_plot {
    char base[512];    /* "<csvstem>.<op>[.<mode>].<kind>", no folder, no extension */
    char kind[48];     /* time, speedup, roofline, workspace, index_cost, <variant>_vs_exact */
    char caption[512]; /* what it shows, for the report */
    char note[2048];   /* what it could not show (cases with no baseline, ...); may be "" */
    int rendered;      /* gnuplot ran on it without error */
} kb_plot;

typedef struct kb_plot_list {
    kb_plot *items;
    int count, cap;
} kb_plot_list;

/* Write the scripts and data of every plot that applies to v into o->dir
 * (which must exist), appending them to out. */
int kb_plot_view(const kb_results *res, const kb_op_view *v, const kb_plot_opts *o,
                 kb_plot_list *out, kb_error *e);
/* 1 when a gnuplot executable is on PATH. */
int kb_gnuplot_available(void);
/* Run gnuplot on DIR/<base>.gp with DIR as its working directory. */
int kb_plot_render(const kb_plot_opts *o, kb_plot *p, kb_error *e);
/* mkdir -p: dir and its missing parents. */
int kb_make_dirs(const char *dir, kb_error *e);

/* ---- comparing two runs (the rule in compare_runs.c, the command in cli_compare.c) ---- */

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

/* PASS or UNCHECKED: the row claims a result, and its median is its time. */
int kb_status_passing(kb_status s);
/* FAIL, ERROR, CRASH or TIMEOUT (UNSUPPORTED is a refusal, not a failure). */
int kb_status_failing(kb_status s);
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
    KB_CHANGE_REMOVED,
    KB_CHANGE_SAME,
    KB_NCHANGES
} kb_change;

/* Judge a pair; before or after is NULL for a row in only one file. j (may
 * be NULL) receives the timing judgement (KB_VERDICT_UNTIMED when none). */
kb_change kb_compare_rows(const kb_result *before, const kb_result *after, double threshold,
                          double max_noise, kb_judgement *j);
const char *kb_change_name(kb_change c);
/* 1 for the changes that make `kbench compare` exit 5. */
int kb_change_gates(kb_change c);
/* ==== end of: results read back ============================================ */

#endif
