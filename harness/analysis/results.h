/* results.h — results CSVs read back for `kbench plot`, `report` and
 * `compare` (csv_read.c): the rows of out_csv.c's schema (and of peers/,
 * which write it too), grouped per (op, mode) as a grid of cases x variants.
 * CPU only.
 *
 *   kb_results res = {0}; kb_op_view *views; int n;
 *   kb_results_load(paths, npaths, &res, &views, &n, &e);
 */
#ifndef KB_RESULTS_H
#define KB_RESULTS_H

#include "run/row.h" /* kb_status */

#include <stdio.h>

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
    double dropped;   /* kb_accuracy.dropped; NAN where not counted (from the note where the
                         file is of the schema before the column: "... drops N ...") */
    char device[64];  /* the UUID of the GPU that measured it; "" in files before the column */
    double pair;      /* its place among every pair of the sweep; NAN before the column */
    char where[8];    /* "device" or "host" (a KB_HOST variant); "" in a file from before the
                         column, whose rows all ran on the device */
    char source[128]; /* builtin, plugin:<file> or py:<file>; "" in a file from before the
                         column (built-in variants, and peers named "peer:...") */
    /* CUPTI's kernel time per launch (`run --timer kernels`): the sum of a
     * sample's kernel, memset and copy durations (median, p10, p90), its
     * span, its records; a host row's repeats and the spread of their
     * medians (%). NAN where the file leaves them empty or has no column. */
    double kernel_us, kernel_p10_us, kernel_p90_us, span_us, kernels;
    double repeats, repeat_spread_pct;
    int file; /* index into kb_results.files */
    int line; /* the line the record starts on, 1-based */
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
    /* Every L2 flush kind ("l2 flush: KIND" lines: cold-mode runs) the file
     * names, each once, newline-separated; "" in a file from before the line. */
    char l2_flushes[128];
    /* Every plugin and Python file whose variants made rows ("plugin: FILE sha256
     * HEX ..." lines), as "plugin:FILE HEX", each once, newline-separated. */
    char sources[2048];
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
/* params as the key rows are matched by: each axis=value token with the
 * op's axis kind applied (INT and FLOAT by numeric value, in the shortest
 * text that reads back to the same double: "iou=0.50" and "iou=0.5" are
 * one case), tokens in the op's axis order. ENUM and STRING values, axes
 * the op does not have, and ops this build does not know stay as text. */
void kb_params_key(const kb_op *op, const char *params, char *buf, size_t n);
int kb_result_is_peer(const char *variant);
/* The L2 flush kinds the cold device rows of file `file` were timed with,
 * newline-separated: its "l2 flush:" lines, or "write" for a file from
 * before them that holds timed cold device rows (kbench flushed by a memset
 * then); "" when it has none. */
const char *kb_result_file_flushes(const kb_results *res, int file);
/* PASS or UNCHECKED with a median time, not --force'd: what plots and speedups use. */
int kb_result_timed(const kb_result *r);
/* The relative spread compare judges a row's median with (compare_runs.c). */
double kb_result_spread(const kb_result *r);
/* params with only the axes whose value differs from op's default (as the
 * tables print a case); "(defaults)" when none; params as they are when op is
 * NULL (an op this build does not know). Control characters as escapes
 * (kb_format_visible): a label, never a key. */
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
 * rows: KB_EXIT_OK, KB_EXIT_USAGE (unreadable, or no rows) or KB_EXIT_RUNTIME.
 * Rows of GPUs of different models get the model in their case (gpu=...),
 * so that no table or plot puts them side by side. */
int kb_results_load(const char *const *paths, int npaths, kb_results *res, kb_op_view **views,
                    int *nviews, kb_error *e);
/* The variant a case's speedups are measured against: `forced` when given,
 * else the first name of the op's baseline list (or, with none, its first
 * registry variant) that has a timed row on the case; -1 when none ran. */
int kb_view_baseline(const kb_op_view *v, int c, const char *forced);

/* A view's cases laid out along one axis (`kbench plot --along AXIS`): x is
 * the axis's distinct values, in order; one panel per combination of the
 * other axes that vary, except the axes the along-axis determines (a layer
 * sweep's c_in, c_out and w move with its h: they name the x positions
 * instead of splitting panels). */
enum { KB_ALONG_MAX_PANELS = 16, KB_ALONG_LABEL = 256 };
typedef struct kb_along {
    char axis[KB_NAME];
    char with[512];                 /* the axes that move with it, ", "-separated; "" when none */
    int numeric;                    /* x is the value (an INT or FLOAT axis nothing moves with);
                                       else the position 0, 1, ... (categorical) */
    int log_x;                      /* numeric, every value > 0, spanning more than 30x */
    int nx, npanels;                /* x positions; panels (1 when nothing else varies) */
    double *x;                      /* per position: where it is drawn */
    char (*xlabel)[KB_ALONG_LABEL]; /* per position: "32", or "h=25 w=42 c_in=512" */
    char (*panel)[KB_ALONG_LABEL];  /* per panel: "dtype=f16"; "" when one panel */
    int *case_x, *case_panel;       /* per case of the view */
    int min_points;                 /* fewest x positions a panel holds */
} kb_along;

/* Lay v's cases out along `axis`. KB_ERR, naming the op's axes, when it has
 * no such axis; naming the axes that do vary, when this one takes one value
 * only; or when the other axes make more than KB_ALONG_MAX_PANELS panels. */
int kb_along_build(const kb_op_view *v, const char *axis, kb_along *a, kb_error *e);
/* 1 when v has the axis (the registry's, or a params token of an op this
 * build does not know). */
int kb_view_has_axis(const kb_op_view *v, const char *axis);
/* The axis a view's time plot is drawn along by default: the varying axis
 * whose layout has at most 4 panels, each with 2 x positions or more (the
 * fewest panels, then the most positions, then the op's axis order); 0 when
 * none qualifies (a set of scenarios, not a sweep), 1 and *a built. */
int kb_along_pick(const kb_op_view *v, kb_along *a);
/* The varying axis along which the most cases share a panel with another
 * position (a line joins them; up to KB_ALONG_MAX_PANELS panels, some of one
 * case), then the fewest panels, the most positions, the op's axis order: for
 * reading a trend off cases that are not one sweep. 0 when no axis joins two
 * cases. */
int kb_along_pick_joined(const kb_op_view *v, kb_along *a);
void kb_along_free(kb_along *a);

#endif
