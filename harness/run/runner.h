/* runner.h — the runner: every (case, variant) pair of a sweep checked and
 * timed, one row each to the printers (runner.c), in this process or in
 * worker processes that a crash cannot take down (isolate.c).
 *
 *   kb_runner_init(&r, &opts, &e); kb_runner_plan(&r, &cases, variants, &e);
 *   kb_runner_attach(&r, &dev, &e); kb_runner_run(&r, 0); kb_runner_free(&r);
 */
#ifndef KB_RUNNER_H
#define KB_RUNNER_H

#include "device.h"
#include "measure.h"
#include "printer.h"
#include "row.h"
#include "sweep.h"

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
    int needs_device; /* a pair of the plan is a GPU variant's (not KB_HOST) */
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
 * --resume file holds (set already_done between the two). A plan of KB_HOST
 * variants only needs no device (needs_device 0): the runner then runs
 * without kb_runner_attach and touches no CUDA. */
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
/* A row for pair p that the runner did not make (isolate.c: CRASH, TIMEOUT);
 * forced_limit: what --force ran it past, or "". */
void kb_runner_emit_status(kb_runner *r, int p, kb_status st, const char *why,
                           const char *forced_limit);

/* Called once, with the facts of the device the first worker opened (NULL
 * for a plan of host variants, which opens none). */
typedef void (*kb_begin_fn)(void *ctx, const kb_device *dev, int sm_clock_now_mhz);
/* Run the plan in worker processes: this process holds no CUDA context. A
 * worker that loses its context, dies or overruns opts.case_timeout_s costs
 * one CRASH or TIMEOUT row; the next worker continues with the next pair.
 * KB_OK, or KB_NO_DEVICE / KB_ERR (message in e) when the first worker could
 * not open the device (nothing was run). */
int kb_isolated_run(kb_runner *r, int device, kb_begin_fn begin, void *begin_ctx, kb_error *e);

#endif
