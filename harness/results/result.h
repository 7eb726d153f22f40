/* result.h — the results file contract: one row (kb_result), one column
 * table that the writers (run/out_csv.c, run/out_json.c), the reader
 * (csv_read.c) and `kbench list --columns` all use (columns.c), and what a
 * file's '#' lines say (kb_result_file). CPU only.
 *
 * The runner keeps its working record (run/row.h: seconds, the samples) and
 * turns it into a kb_result at the seam (kb_row_result); everything that
 * crosses into a file, or back out of one, is a kb_result field named as its
 * column. A new column is one KB_COLUMNS line and one field of the same name.
 */
#ifndef KB_RESULT_H
#define KB_RESULT_H

#include "header.h"
#include "status.h"

#include "kbench.h" /* kb_error */

#include <stddef.h>
#include <stdio.h>

/* One row of a results file. A number the file leaves empty, or has no column
 * for, is NAN. Times are microseconds, as in the file. */
typedef struct kb_result {
    char op[64], variant[64]; /* variant "peer:<name>" for a peer's rows */
    char params[1024];
    char mode[16]; /* "cold" when the file has no mode column */
    kb_status status;
    char reason[1200];
    double samples;
    double median_us, min_us, max_us, p10_us, p90_us, mean_us, stddev_us, noise_pct;
    double bytes, flops, gbps, gflops, pct_peak_bw, pct_peak_flops, workspace_bytes;
    double rel_l2, max_abs, max_rel, tolerance;
    int deterministic; /* 1 yes, 0 no, -1 not checked or not recorded */
    double throttled;
    char note[512];
    double dropped;   /* kb_accuracy.dropped; NAN where not counted */
    char device[64];  /* the UUID of the GPU that measured it; "" in files before the column */
    double pair;      /* its place among every pair of the sweep; NAN before the column */
    char where[8];    /* "device" or "host" (a KB_HOST variant); "" in a file from before the
                         column, whose rows all ran on the device */
    char source[128]; /* builtin, plugin:<file> or py:<file>; "" in a file from before the
                         column (built-in variants, and peers named "peer:...") */
    int forced;       /* 1: --force ran it past its variant's supports(); 0 not */
    int peer;         /* 1: a peer's row (a library, peers/); 0 a variant's */
    /* CUPTI's kernel time per launch (`run --timer kernels`): the sum of a
     * sample's kernel, memset and copy durations (median, p10, p90), its
     * span, its records; a host row's repeats and the spread of their
     * medians (%). NAN where the file leaves them empty or has no column. */
    double kernel_us, kernel_p10_us, kernel_p90_us, span_us, kernels;
    double repeats, repeat_spread_pct;
    int interleaved; /* 1: its samples were taken in turn with its case's other variants'
                        (--interleave); 0 not, and in a file from before the column */
    /* Not columns: what the reader adds. */
    char key[1024]; /* params by value (kb_params_key): what rows are matched by */
    int file;       /* index into kb_results.files */
    int line;       /* the line the record starts on, 1-based */
} kb_result;

/* The columns, in file order: X(name, type, required, format, meaning).
 * type: TEXT, NUMBER (printed with format; empty for NAN), STATUS, YESNO
 * ("yes", "no", or empty for -1). A reader requires the required ones and
 * reads every other one it finds, by name, so that files with fewer or more
 * columns read too. Append new columns at the end. */
#define KB_COLUMNS(X)                                                                              \
    X(op, TEXT, 1, "", "the op (kbench list)")                                                     \
    X(variant, TEXT, 1, "", "the variant; peer:NAME for a peer's")                                 \
    X(params, TEXT, 1, "", "the case: axis=value tokens, space-separated")                         \
    X(mode, TEXT, 0, "", "timing mode: cold, hot, graph")                                          \
    X(status, STATUS, 1, "", "PASS, FAIL, UNSUPPORTED, ERROR, CRASH, TIMEOUT or UNCHECKED")        \
    X(reason, TEXT, 0, "", "why it is UNSUPPORTED, ERROR or FAIL")                                 \
    X(samples, NUMBER, 0, "%.0f", "timed samples kept")                                            \
    X(median_us, NUMBER, 0, "%.4f", "median time, microseconds")                                   \
    X(min_us, NUMBER, 0, "%.4f", "fastest sample, microseconds")                                   \
    X(max_us, NUMBER, 0, "%.4f", "slowest sample, microseconds")                                   \
    X(p10_us, NUMBER, 0, "%.4f", "10th percentile, microseconds")                                  \
    X(p90_us, NUMBER, 0, "%.4f", "90th percentile, microseconds")                                  \
    X(mean_us, NUMBER, 0, "%.4f", "mean time, microseconds")                                       \
    X(stddev_us, NUMBER, 0, "%.4f", "standard deviation, microseconds")                            \
    X(noise_pct, NUMBER, 0, "%.3f", "relative spread (p90-p10)/median, percent")                   \
    X(bytes, NUMBER, 0, "%.0f", "the fewest bytes the op must move (cost model)")                  \
    X(flops, NUMBER, 0, "%.0f", "floating-point operations (cost model)")                          \
    X(gbps, NUMBER, 0, "%.3f", "bytes / median, GB/s")                                             \
    X(gflops, NUMBER, 0, "%.3f", "flops / median, GFLOP/s")                                        \
    X(pct_peak_bw, NUMBER, 0, "%.2f", "gbps as a percentage of the measured copy peak")            \
    X(pct_peak_flops, NUMBER, 0, "%.2f", "gflops as a percentage of the measured sgemm peak")      \
    X(workspace_bytes, NUMBER, 0, "%.0f", "device memory the variant allocates")                   \
    X(rel_l2, NUMBER, 0, "%.3e", "relative L2 error against the reference; empty unchecked")       \
    X(max_abs, NUMBER, 0, "%.3e", "largest absolute error")                                        \
    X(max_rel, NUMBER, 0, "%.3e", "largest relative error")                                        \
    X(tolerance, NUMBER, 0, "%.1e", "the threshold rel_l2 is judged by")                           \
    X(deterministic, YESNO, 0, "", "a second run was bitwise equal; empty when not checked")       \
    X(throttled, NUMBER, 0, "%.0f", "samples discarded for a low SM clock")                        \
    X(note, TEXT, 0, "", "the op's finding (e.g. boxes fast NMS drops)")                           \
    X(dropped, NUMBER, 0, "%.0f", "outputs the reference keeps that the variant drops")            \
    X(device, TEXT, 0, "", "UUID of the GPU that measured it")                                     \
    X(pair, NUMBER, 0, "%.0f", "its place among every pair of the sweep")                          \
    X(where, TEXT, 0, "", "device, or host for a KB_HOST variant")                                 \
    X(source, TEXT, 0, "", "builtin, plugin:FILE or py:FILE")                                      \
    X(forced, YESNO, 0, "", "--force ran it past its variant's limit")                             \
    X(peer, YESNO, 0, "", "a peer's row: a library's implementation (peers/), not a variant")      \
    X(kernel_us, NUMBER, 0, "%.4f", "CUPTI kernel time per launch, median (--timer kernels)")      \
    X(kernel_p10_us, NUMBER, 0, "%.4f", "CUPTI kernel time per launch, 10th percentile")           \
    X(kernel_p90_us, NUMBER, 0, "%.4f", "CUPTI kernel time per launch, 90th percentile")           \
    X(span_us, NUMBER, 0, "%.4f", "first kernel start to last end per launch, median (CUPTI)")     \
    X(kernels, NUMBER, 0, "%.2f", "CUPTI records (kernels, memsets, copies) per launch")           \
    X(repeats, NUMBER, 0, "%.0f", "a host row's repeats of the stop rule")                         \
    X(repeat_spread_pct, NUMBER, 0, "%.2f", "spread of a host row's repeat medians, percent")      \
    X(interleaved, YESNO, 0, "", "timed in turns with its case's other variants (--interleave)")

typedef enum kb_column_type {
    KB_COL_TEXT,
    KB_COL_NUMBER,
    KB_COL_STATUS,
    KB_COL_YESNO
} kb_column_type;

typedef struct kb_column {
    const char *name;
    kb_column_type type;
    int required;
    const char *format; /* printf format of a NUMBER */
    const char *meaning;
    size_t offset, size; /* the kb_result field */
} kb_column;

#define KB_COLUMN_ENUM(name, type, req, fmt, meaning) KB_COLUMN_##name,
enum { KB_COLUMNS(KB_COLUMN_ENUM) KB_NCOLUMNS };
#undef KB_COLUMN_ENUM
_Static_assert(KB_NCOLUMNS <= 64, "kb_result_file.has_columns holds a bit per column");

extern const kb_column kb_columns[KB_NCOLUMNS];
const char *kb_column_type_name(kb_column_type t); /* "text", "number", "status", "yes/no" */
/* Index of the column `name`, or -1. */
int kb_column_find(const char *name);
/* r's field of column c as the file spells it: "" for a NAN number or an
 * unknown yes/no. */
void kb_result_field(const kb_result *r, int c, char *buf, size_t n);
/* A row with every number NAN, deterministic unknown, mode "cold". */
void kb_result_init(kb_result *r);

/* The git commit this kbench was built from (kb_version.c, made by the
 * build): what the "kbench COMMIT" line of every file it writes names. */
extern const char *const kb_git_commit;
/* The SHA-256 (hex) of the sources this kbench was built from, by
 * scripts/source-digest.sh at build time (kb_version.c; "" where it could not
 * run): the "sources: sha256 ..." line of every file it writes, which names
 * the code without trusting the commit. */
extern const char *const kb_source_sha256;

/* The measured peaks of the GPU `uuid` as one '#' line of fields that the
 * reader takes by name ("peaks: uuid=U copy_gbps=N sgemm_gflops=N"), after
 * prefix ("# "). A file from before the line has the peaks in its "gpu:"
 * line's text only: the reader takes them from there (csv_read.c). */
void kb_header_print_peaks(FILE *f, const char *prefix, const char *uuid, double copy_gbps,
                           double sgemm_gflops);

/* What a file's '#' lines say (kb_meta_print_lines wrote them). */
typedef struct kb_result_file {
    char path[1024];
    kb_run_header run; /* the first run's facts (header.h); a --resume's are in other */
    char gpu[1024];    /* device, driver, clocks and peaks, one line */
    double peak_copy_gbps, peak_sgemm_gflops; /* the measured peaks; 0 where not recorded */
    int peaks_line;   /* 1: the peaks came from a "peaks:" line (kb_header_print_peaks) */
    char other[2048]; /* any other '#' lines, joined by newlines */
    /* Every device ("name (UUID)") and every kbench commit the file's '#' lines
     * name, each once, newline-separated: a file joined from several runs or
     * continued by --resume on another GPU or build holds more than one. */
    char devices[2048], commits[512];
    /* Every L2 flush kind ("l2 flush: KIND" lines: cold-mode runs) the file
     * names, each once, newline-separated; "" in a file from before the line. */
    char l2_flushes[128];
    /* Every plugin and Python file whose variants made rows ("plugin: FILE sha256
     * HEX ..." lines), as "plugin:FILE HEX", each once, newline-separated. */
    char sources[2048];
    unsigned long long has_columns; /* bit i: every header of the file has column i */
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
 * "FILE:LINE: ..." in e. A file that cannot be opened is KB_ERR with errno
 * that of the open (a missing file is not too few file descriptors). */
int kb_results_read(kb_results *res, const char *path, FILE *warn, kb_error *e);
void kb_results_free(kb_results *res);
/* Every device and every kbench commit that res's files name, each once,
 * joined by sep ("" when no file records one). */
void kb_results_runs(const kb_results *res, const char *sep, char *devices, size_t dn,
                     char *commits, size_t cn);
/* The model of the GPU that measured r ("NVIDIA H100 80GB HBM3"), from its
 * file's '#' lines; "" when they do not say. */
void kb_result_gpu_model(const kb_results *res, const kb_result *r, char *buf, size_t n);
/* 1 when every header row of f has the column `name` (one kbench reads). */
int kb_result_file_has_column(const kb_result_file *f, const char *name);
/* The L2 flush kinds the cold device rows of file `file` were timed with,
 * newline-separated: its "l2 flush:" lines, or "write" for a file from
 * before them that holds timed cold device rows (kbench flushed by a memset
 * then); "" when it has none. */
const char *kb_result_file_flushes(const kb_results *res, int file);

#endif
