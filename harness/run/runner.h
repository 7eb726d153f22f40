/* runner.h — the runner: every (case, variant) pair of a sweep checked and
 * timed, one row each to the printers (runner.c), in this process or in
 * worker processes that a crash cannot take down (isolate.c).
 *
 *   kb_runner_init(&r, &opts, &e); kb_runner_plan(&r, &cases, variants, &e);
 *   kb_runner_attach(&r, &dev, &e); kb_runner_run(&r); kb_runner_free(&r);
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
    kb_flush flush; /* how cold mode empties L2 (l2_flush.h) */
    kb_stop_rule rule;
    uint64_t seed;
    int check;  /* compare with the reference */
    int timing; /* 0 for `kbench check` */
    const char *inputs_dir;
    const char *dump_dir;
    int progress;                 /* a progress line on stderr (TTY) */
    int isolate;                  /* run the pairs in worker processes (isolate.c) */
    double case_timeout_s;        /* isolated: a pair still running after this is a TIMEOUT row,
                                     and so is every pair of a case still being prepared */
    int force;                    /* run int32-index variants on cases their supports() refuses */
    int shard_index, shard_count; /* --shard I/N (shard.h); count 0: the whole sweep */
    int ktime;                    /* --timer kernels: CUPTI's kernel time beside the events */
    int host_repeats;             /* a host or host-sync row's samples in this many repeats */
    int interleave; /* --interleave: a case's variants timed in turns (kb_runner_run_group) */
} kb_run_opts;

/* One row's worth of work: indices into the sweep's case and variant lists,
 * and its place among every pair of the sweep (the CSV's `pair` column:
 * what `kbench merge` orders the rows of shards by). */
typedef struct kb_pair {
    int c, v, index;
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
    int sweep_pairs;     /* every pair of the sweep, before --shard and --resume */
    uint64_t sweep_hash; /* FNV-1a of every pair's "op\tvariant\tparams\n": which sweep */
    int needs_device;    /* a pair of the plan is a GPU variant's (not KB_HOST) */
    kb_printer *printers[KB_MAX_PRINTERS];
    int nprinters;
    int counts[KB_NSTATUS];
    int skipped_na;   /* variant/case pairs that are another function of the op */
    int context_lost; /* a sticky CUDA error: later rows cannot run in this process */
    int retire;       /* a CRASH row that did not lose the context (a Python worker died):
                         an isolated worker ends after it, as after any CRASH row */
    /* --resume: rows already in the file are not run again. */
    int (*already_done)(void *ctx, const kb_variant *v, const char *params, kb_mode mode);
    void *done_ctx;
    int resumed; /* rows skipped because the file had them */
    /* Worker processes (isolate.c): say when a pair starts its device work or
     * makes no row, and when preparing the pair's case (once, before its
     * first pair in this process) enters a stage: "making the case's inputs",
     * "the case's CPU reference", ...; "" once the case is prepared. Both are
     * what --case-timeout bounds. */
    int pair;    /* the pair being run (kb_runner_run_one) */
    int started; /* 1 + the pair whose START was sent last (runner.c start_pair) */
    void (*on_start)(struct kb_runner *r, int pair, const char *forced_limit /* or "" */);
    void (*on_skip)(struct kb_runner *r, int pair);
    void (*on_stage)(struct kb_runner *r, int pair, const char *stage);
    /* A case's variants in turns (kb_runner_run_group): pair's check, its
     * warm-up or one of its samples begins; called often, so it is cheap
     * (isolate.c: a store to memory the parent shares). */
    void (*on_turn)(struct kb_runner *r, int pair);
    void *hook_ctx;
    /* Appended to the note of every row while set (a row timed alone after
     * its case's turns: why). */
    const char *row_note;
    /* Rows held back while a case's turns run in this process, so that they
     * reach the printers in plan order (a worker's parent orders them). */
    kb_row *held_rows;
    double *held_samples;
    int nheld, holding;
    /* The device side (kb_runner_attach), only in the process that runs pairs. */
    kb_device *dev;
    int reset_persisting; /* persisting L2 lines reset before each pair (attach) */
    kb_measure measure;
    cudaStream_t stream;
    kb_mem_watch *mem;         /* per variant; [nvariants]: whole cases (the harness's own) */
    struct kb_held_case *held; /* the case kb_runner_run_one prepared last (runner.c) */
} kb_runner;

/* No CUDA in init and plan: options and the sample buffer; then the plan,
 * every (case, variant) pair of the sweep in opts' shard (all without one),
 * less those already_done says the --resume file holds (set already_done
 * between the two). A plan of KB_HOST
 * variants only needs no device (needs_device 0): the runner then runs
 * without kb_runner_attach and touches no CUDA. */
int kb_runner_init(kb_runner *r, const kb_run_opts *opts, kb_error *e);
int kb_runner_plan(kb_runner *r, const kb_case_list *cases, const kb_variant *const *variants,
                   kb_error *e);
/* No CUDA either, before the device is opened: --inputs DIR exists, is a
 * directory and holds every case's inputs as .npy files of its dtype and
 * shape (headers only, except for an op with index-like inputs: its files
 * are read and their offsets or class ids checked against each case, by
 * op->check_indices); --dump DIR is created (parents too) and writable.
 * KB_ERR naming the option, the path and what is wrong. */
int kb_runner_check_dirs(const kb_run_opts *o, const kb_case_list *cases, kb_error *e);
/* The device side: L2 flush buffer and stream (creates the CUDA context).
 * KB_ERR when the device lacks what opts.flush needs (timing, cold mode). */
int kb_runner_attach(kb_runner *r, kb_device *dev, kb_error *e);
void kb_runner_free(kb_runner *r);
/* Run pair p in this process, its row to the printers. The case stays
 * prepared for the next pair of the same case (pairs in any order: workers
 * take them from a queue). After a row that lost the CUDA context
 * (r->context_lost) later rows of this process say `not run`. */
void kb_runner_run_one(kb_runner *r, int p);
/* --interleave: may pair p's variant be timed in turns with others (it runs
 * in this process: a built-in or a plugin's, not a Python one)? And may p
 * and q be timed in the same turns: one case, variants of one source. */
int kb_runner_interleavable(const kb_runner *r, int p);
int kb_runner_same_turns(const kb_runner *r, int p, int q);
/* Pairs first .. first+n-1 (one case, kb_runner_same_turns; n = 1, or a
 * case that cannot be prepared: each as kb_runner_run_one) checked one by
 * one as kb_runner_run_one checks them, each with its own outputs and state
 * set up beside the others', then timed in rounds: one sample of each in
 * turn, each under its own stopping rule, the rounds going on while any is
 * still sampling. Their rows say interleaved=yes. A variant whose setup
 * finds no memory beside the others is run alone afterwards (its note says
 * so); a sticky CUDA error in the rounds is the CRASH row of the variant
 * whose sample it was, the others are NOT_RUN (in a worker: no row, the
 * parent runs them again alone). */
void kb_runner_run_group(kb_runner *r, int first, int n);
/* Release the held case; device memory still in use beyond what one-time
 * loads explain is reported on stderr (LEAK). */
void kb_runner_finish(kb_runner *r);
/* Every pair in order in this process, then kb_runner_finish. */
void kb_runner_run(kb_runner *r);
/* Count the row and hand it to every printer. */
void kb_runner_emit(kb_runner *r, const kb_row *row);
/* A row for pair p that the runner did not make (isolate.c: CRASH, TIMEOUT);
 * forced_limit: what --force ran it past, or "". status_row fills it only. */
void kb_runner_status_row(const kb_runner *r, int p, kb_status st, const char *why,
                          const char *forced_limit, kb_row *row);
void kb_runner_emit_status(kb_runner *r, int p, kb_status st, const char *why,
                           const char *forced_limit);

/* Isolated runs: which devices, one worker each (an ordinal twice: two
 * workers on one device). ndevices 0: every device the first worker sees. */
#define KB_MAX_DEVICES 64
typedef struct kb_device_set {
    int ordinals[KB_MAX_DEVICES];
    int n;
} kb_device_set;
/* Called once, when every worker has opened its device, with each distinct
 * device (by UUID) in the order of the set (none, NULL and 0, for a plan of
 * host variants, which opens no device); any other value than KB_OK
 * refuses them (nothing is run, kb_isolated_run returns KB_REFUSED). */
typedef int (*kb_begin_fn)(void *ctx, const kb_device *devs, int ndevs, int sm_clock_now_mhz,
                           kb_error *e);
enum { KB_REFUSED = 5 };
/* Run the plan in worker processes, one per device of the set, all taking
 * pairs from one queue in this process (the next pair goes to whichever
 * worker is free; a worker keeps to its case while the case has pairs
 * left). This process holds no CUDA context. A worker that loses its
 * context, dies or overruns opts.case_timeout_s costs one CRASH or TIMEOUT
 * row; one whose preparing of a case (inputs, reference) overruns it costs a
 * TIMEOUT row for every pair of the case that has none yet. A new worker on
 * the same device carries on. Rows reach the printers
 * in plan order, whatever order they complete in. KB_OK; KB_NO_DEVICE /
 * KB_ERR (message in e) when a worker could not open its device before the
 * first pair (nothing was run); KB_REFUSED when begin refused. */
int kb_isolated_run(kb_runner *r, const kb_device_set *devices, kb_begin_fn begin, void *begin_ctx,
                    kb_error *e);

#endif
