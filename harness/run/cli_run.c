/* cli_run.c — `kbench run` (check and time) and `kbench check` (correctness
 * only, over a sweep plus --fuzz random cases). Usage errors are found
 * before the device is touched, so they read the same on a machine without one. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "out_file.h"
#include "loaded.h"
#include "py_bridge.h"
#include "runner.h"
#include "shard.h"

#include "results/params.h" /* kb_params_key */
#include "results/result.h" /* --resume reads the file back */

#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct run_args {
    const char *cmd, *opname, *variants, *sweep, *inputs, *dump, *resume;
    kb_spec specs[KB_MAX_AXES];
    const char *spec_text[KB_MAX_AXES]; /* each -a as given, for messages */
    int nspecs;
    const char *outputs[KB_MAX_OUTPUTS];
    int noutputs, quiet, overwrite;
    int timeout_given;
    kb_device_set devices; /* n 0: all */
    int mixed_devices;
    long fuzz, max_cases, first_case; /* max_cases: -1 for all */
    int dry_run;
    kb_format format;
    kb_run_opts opts;
    kb_ext_args ext;
} run_args;

/* ---- the options' setters (the table below names them) ---- */

static int set_axis(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    run_args *a = dst;
    (void)o;
    if (a->nspecs == KB_MAX_AXES)
        return kb_fail(e, "too many -a options (at most %d)", KB_MAX_AXES);
    if (kb_spec_parse(v, &a->specs[a->nspecs], e) != KB_OK) return KB_ERR;
    a->spec_text[a->nspecs] = v;
    a->nspecs++;
    /* Two -a of one axis: which one the cases take would be a guess. */
    for (int j = 0; j + 1 < a->nspecs; j++)
        if (strcmp(a->specs[j].axis, a->specs[a->nspecs - 1].axis) == 0)
            return kb_fail(e, "axis %s is given twice (-a %s before it)", a->specs[j].axis,
                           a->spec_text[j]);
    return KB_OK;
}

/* -v '' is taken here and refused by the selection, which says why. */
static int set_variants(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    (void)o;
    (void)e;
    ((run_args *)dst)->variants = v;
    return KB_OK;
}

static int set_output(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    run_args *a = dst;
    (void)o;
    if (a->noutputs == KB_MAX_OUTPUTS) return kb_fail(e, "at most %d -o files", KB_MAX_OUTPUTS);
    a->outputs[a->noutputs++] = v;
    return KB_OK;
}

static int set_format(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    (void)o;
    if (kb_format_parse(v, &((run_args *)dst)->format) != KB_OK)
        return kb_fail(e, "expected table, csv, json or md");
    return KB_OK;
}

static int set_mode(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    (void)o;
    if (kb_mode_parse(v, &((run_args *)dst)->opts.mode) != KB_OK)
        return kb_fail(e, "expected cold, hot or graph");
    return KB_OK;
}

static int set_flush(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    (void)o;
    if (kb_flush_parse(v, &((run_args *)dst)->opts.flush) != KB_OK)
        return kb_fail(e, "expected " KB_FLUSH_KINDS);
    return KB_OK;
}

static int set_max_noise(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    double pct;
    if (kb_set_double(o, &pct, v, e) != KB_OK) return KB_ERR; /* o->at is 0 */
    ((run_args *)dst)->opts.rule.max_noise = pct / 100;
    return KB_OK;
}

static int set_min_samples(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    run_args *a = dst;
    kb_opt range = *o;
    long n;
    range.at = 0;
    range.hi = a->opts.rule.max_samples;
    if (kb_set_long(&range, &n, v, e) != KB_OK) return KB_ERR;
    a->opts.rule.min_samples = (int)n;
    return KB_OK;
}

static int set_host_repeats(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    long n;
    if (kb_set_long(o, &n, v, e) != KB_OK) return KB_ERR; /* o->at is 0 */
    ((run_args *)dst)->opts.host_repeats = (int)n;
    return KB_OK;
}

static int set_seed(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    long n;
    if (kb_set_long(o, &n, v, e) != KB_OK) return KB_ERR; /* o->at is 0 */
    ((run_args *)dst)->opts.seed = (uint64_t)n;
    return KB_OK;
}

/* --devices all | N[,N...] (--device N: one ordinal). */
static int set_devices(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    kb_device_set *set = &((run_args *)dst)->devices;
    int one = strcmp(o->names, "--device") == 0;
    set->n = 0;
    if (strcmp(v, "all") == 0 && !one) return KB_OK;
    char *buf = strdup(v); /* the whole list, however long: a cut one would read other ordinals */
    if (!buf) return kb_fail(e, "out of host memory");
    char *save = NULL, *end;
    int rc = KB_OK;
    for (char *t = strtok_r(buf, ",", &save); t && rc == KB_OK; t = strtok_r(NULL, ",", &save)) {
        long n = strtol(t, &end, 10);
        if (set->n == KB_MAX_DEVICES)
            rc = kb_fail(e, "at most %d devices", KB_MAX_DEVICES);
        else if (!*t || *end || n < 0 || n > KB_MAX_DEVICES - 1)
            rc = strcmp(t, v) == 0 /* the whole value: said once */
                     ? kb_fail(e, "expected an integer in [0, %d]", KB_MAX_DEVICES - 1)
                     : kb_fail(e, "%s: expected an integer in [0, %d]", t, KB_MAX_DEVICES - 1);
        else
            set->ordinals[set->n++] = (int)n;
    }
    free(buf);
    if (rc != KB_OK) return rc;
    if (set->n == 0 || (one && set->n != 1))
        return kb_fail(e, "expected %s", one ? "one ordinal" : "all or N[,N...]");
    return KB_OK;
}

static int set_shard(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    run_args *a = dst;
    (void)o;
    return kb_shard_parse(v, &a->opts.shard_index, &a->opts.shard_count, e);
}

static int set_no_check(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    (void)o;
    (void)v;
    (void)e;
    ((run_args *)dst)->opts.check = 0;
    return KB_OK;
}

static int set_isolate(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    (void)v;
    (void)e;
    ((run_args *)dst)->opts.isolate = strcmp(o->names, "--isolate") == 0;
    return KB_OK;
}

static int set_case_timeout(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    run_args *a = dst;
    if (kb_set_double(o, &a->opts.case_timeout_s, v, e) != KB_OK) return KB_ERR; /* o->at is 0 */
    a->timeout_given = 1;
    return KB_OK;
}

#define STR_(x) #x
#define STR(x)  STR_(x)

/* ---- the tables: run's and check's rows, in --help's order ---- */

#define CASE_OPTS                                                                                  \
    KB_OPT_HEAD("cases:"),                                                                         \
        KB_OPT_CALL("-a, --axis", "AXIS=VALUES",                                                   \
                    "sweep an axis (repeatable, one -a per axis); VALUES is v,\n"                  \
                    "[a,b,c], [start:end] or [start:end:step] (inclusive);\n"                      \
                    "AXIS[pow2]=[0:5] is 1..32",                                                   \
                    set_axis),                                                                     \
        KB_OPT_STRING("--sweep", "NAME|FILE",                                                      \
                      "a named sweep of the op (kbench list OP) or a file with one\n"              \
                      "line of AXIS=VALUES tokens per case (an axis once a line);\n"               \
                      "-a replaces the axis on every line\n"                                       \
                      "(default: 'default' for run, 'smoke' for check; with only -a,\n"            \
                      "the op's defaults with the -a axes swept). A file must give\n"              \
                      "at least one case. Relative paths (image=...): in a FILE,\n"                \
                      "from the working directory, else from the FILE's folder; in\n"              \
                      "a named sweep, from the source tree; in -a, from the working\n"             \
                      "directory",                                                                 \
                      run_args, sweep),                                                            \
        KB_OPT_LONG("--max-cases", "N",                                                            \
                    "only the first N cases of each op's sweep (a quick look)", run_args,          \
                    max_cases, 0, 0x7FFFFFFF),                                                     \
        KB_OPT_LONG("--first-case", "K",                                                           \
                    "skip the first K cases of each op's sweep (with --max-cases 1:\n"             \
                    "case K alone, as scripts/sanitize.sh runs racecheck). A\n"                    \
                    "selection of no case (--max-cases 0, K past the end) or of\n"                 \
                    "no variant (-v '') is refused (exit 2)",                                      \
                    run_args, first_case, 0, 0x7FFFFFFF),                                          \
        KB_OPT_CALL("--shard", "I/N",                                                              \
                    "only shard I (0-based) of N: the sweep's (case, variant) pairs\n"             \
                    "split by the ops' cost models so that N processes or\n"                       \
                    "machines, each given its I, run the sweep once between\n"                     \
                    "them (kbench merge joins their CSVs; the header records I/N).\n"              \
                    "A shard given no pair (N over the pairs) writes files of\n"                   \
                    "no row, their header alone",                                                  \
                    set_shard),                                                                    \
        KB_OPT_SWITCH("--dry-run",                                                                 \
                      "print the (variant, case) pairs a run would do, one a line\n"               \
                      "(op, variant, params; tab-separated), and run nothing: no\n"                \
                      "device, no file written",                                                   \
                      run_args, dry_run),                                                          \
        KB_OPT_CALL("-v, --variant", "V,..",                                                       \
                    "only these variants (default: all of the op), each once;\n"                   \
                    "a pattern (fnmatch: peer:*, nhwc_*) takes every match;\n"                     \
                    "under all, as OP/VARIANT (nms/cpu_greedy,topk/cpu_select:\n"                  \
                    "the ops of none of them are left out)",                                       \
                    set_variants),                                                                 \
        {"--seed",   "N", "inputs are made from this seed (default 1)", set_seed, 0, 0,            \
         0x7FFFFFFF, NULL},                                                                        \
        KB_OPT_STRING("--inputs", "DIR",                                                           \
                      "read the op's inputs from DIR/<name>.npy instead (checked\n"                \
                      "against every case's dtype and shape before the device,\n"                  \
                      "and index values too: topk's offsets and rpn_proposals'\n"                  \
                      "level_offsets must be the case's layout, nms's class ids\n"                 \
                      "in [0, classes); a bf16 tensor from f32 values that are\n"                  \
                      "exactly bf16)",                                                             \
                      run_args, opts.inputs_dir),                                                  \
        KB_OPT_STRING("--dump", "DIR",                                                             \
                      "write inputs, reference and each variant's outputs as .npy\n"               \
                      "under DIR/case<k>/ (created up front; bf16 as f32; a write\n"               \
                      "that fails is said on stderr, rows keep their status;\n"                    \
                      "a symbolic link under DIR where a case folder or a file\n"                  \
                      "goes is never followed: that write fails, naming it)",                      \
                      run_args, opts.dump_dir),                                                    \
        KB_OPT_HEAD("devices:"),                                                                   \
        KB_OPT_CALL("--devices", "all|N,..",                                                       \
                    "one worker per listed GPU (ordinals index the\n"                              \
                    "CUDA_VISIBLE_DEVICES list), all taking pairs from one queue;\n"               \
                    "rows keep sweep order and name their GPU (device column).\n"                  \
                    "An ordinal twice: two workers on one GPU (default 0)",                        \
                    set_devices),                                                                  \
        KB_OPT_CALL("--device", "N", "the same as --devices N", set_devices),                      \
        KB_OPT_SWITCH("--mixed-devices",                                                           \
                      "allow GPUs of different models in one run (refused\n"                       \
                      "otherwise: their times are not one population)",                            \
                      run_args, mixed_devices)

#define TIMING_OPTS                                                                                \
    KB_OPT_HEAD("timing:"),                                                                        \
        KB_OPT_CALL("--mode", "M",                                                                 \
                    "cold (default: L2 flushed before each sample), hot (back to\n"                \
                    "back launches), graph (CUDA graph replay)",                                   \
                    set_mode),                                                                     \
        KB_OPT_CALL("--flush", "KIND",                                                             \
                    "how cold mode empties L2 (a buffer of twice its size):\n"                     \
                    "write (a memset: leaves dirty lines), read (a kernel reads\n"                 \
                    "it: clean lines), write-read (both), discard (the memset,\n"                  \
                    "then discard.global.L2: lines dropped unwritten; cc 8.0),\n"                  \
                    "reset (cudaCtxResetPersistingL2Cache, then the read; cc\n"                    \
                    "8.0). Default: " KB_FLUSH_DEFAULT_NAME ". The files' headers record it;\n"    \
                    "--resume of a file whose cold rows used another is refused",                  \
                    set_flush),                                                                    \
        {"--max-noise", "PCT", "stop when the relative std-dev is under PCT % (default 1)",        \
         set_max_noise, 0,     0,                                                                  \
         100,           NULL},                                                                     \
        {"--min-samples",                                                                          \
         "N",                                                                                      \
         "... with at least N samples (default 20)",                                               \
         set_min_samples,                                                                          \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
        KB_OPT_DOUBLE("--max-time", "S", "or after S seconds of sampling per row (default 2)",     \
                      run_args, opts.rule.max_time_s, 0, 3600),                                    \
        KB_OPT_CHOICE("--timer", "T",                                                              \
                      "events (default: CUDA events around each sample) or\n"                      \
                      "kernels: also CUPTI's kernel time per launch, the sum of\n"                 \
                      "the variant's kernel, memset and copy durations (kernel_us,\n"              \
                      "p10, p90) and their span (span_us), from the GPU's own\n"                   \
                      "stamps: no launch gap of the event pair. libcupti is\n"                     \
                      "loaded at run time ($KB_CUPTI_LIB, else the toolkit's);\n"                  \
                      "where it cannot be (kbench info says why) the columns\n"                    \
                      "stay empty. Host and Python rows have none",                                \
                      run_args, opts.ktime, "events|kernels"),                                     \
        {"--host-repeats",                                                                         \
         "N",                                                                                      \
         "a host row's samples, and a host-sync variant's (its time\n"                             \
         "holds work on the CPU), in N repeats of the rule, each with\n"                           \
         "1/N of --max-time; the row keeps the lowest repeat median\n"                             \
         "and the medians' spread (repeat_spread_pct; default 3)",                                 \
         set_host_repeats,                                                                         \
         0,                                                                                        \
         1,                                                                                        \
         100,                                                                                      \
         NULL},                                                                                    \
        KB_OPT_SWITCH("--interleave",                                                              \
                      "time a case's variants in turns (A B C A B C ...), each\n"                  \
                      "checked and set up first, each under its own stop rule, so\n"               \
                      "clock and thermal drift fall on every variant alike\n"                      \
                      "(interleaved column; README \"Measuring in turns\"). Built-ins\n"           \
                      "take turns together, one plugin's variants together;\n"                     \
                      "Python ones (--py, --peers) are timed alone (their note\n"                  \
                      "says so). Hot and graph samples each begin with one\n"                      \
                      "untimed launch of their own variant. A variant that\n"                      \
                      "crashes or hangs in the rounds costs its own row: the\n"                    \
                      "others run again alone, interleaved=no",                                    \
                      run_args, opts.interleave),                                                  \
        KB_OPT_CALL("--no-check", NULL, "time only: rows say UNCHECKED", set_no_check)

#define RELIABILITY_OPTS                                                                           \
    KB_OPT_HEAD("reliability:"),                                                                   \
        KB_OPT_CALL("--isolate", NULL,                                                             \
                    "(default) run the pairs in worker processes; this process\n"                  \
                    "holds no CUDA context. A sticky CUDA error (illegal address,\n"               \
                    "launch failure) is a CRASH row with the error, a pair past\n"                 \
                    "--case-timeout a TIMEOUT row (the worker is killed); a new\n"                 \
                    "worker carries on with the next pair",                                        \
                    set_isolate),                                                                  \
        KB_OPT_CALL("--no-isolate", NULL,                                                          \
                    "everything in this process: after a CRASH, later rows are\n"                  \
                    "NOT_RUN (for compute-sanitizer, debuggers)",                                  \
                    set_isolate),                                                                  \
        {"--case-timeout",                                                                         \
         "S",                                                                                      \
         "seconds one (case, variant) pair may take on the device,\n"                              \
         "check and timing included, and seconds preparing a case\n"                               \
         "(its inputs and CPU reference, once) may take: past that,\n"                             \
         "every variant of the case is a TIMEOUT row naming the\n"                                 \
         "stage (default 60; 0: no limit)",                                                        \
         set_case_timeout,                                                                         \
         0,                                                                                        \
         0,                                                                                        \
         86400,                                                                                    \
         NULL},                                                                                    \
        KB_OPT_SWITCH("--force",                                                                   \
                      "run int32-index variants on cases their supports() refuses\n"               \
                      "(isolated only): see what the limit protects against; the\n"                \
                      "row's reason starts with FORCED",                                           \
                      run_args, opts.force),                                                       \
        KB_EXT_OPTS(run_args, ext)

#define OUTPUT_OPTS                                                                                \
    KB_OPT_HEAD("output:"),                                                                        \
        KB_OPT_CALL("--format", "F", "stdout as table (default), csv, json (lines) or md",         \
                    set_format),                                                                   \
        KB_OPT_CALL("-o, --output", "FILE",                                                        \
                    "also write FILE (repeatable, at most " STR(                                   \
                        KB_MAX_OUTPUTS) "); the format "                                           \
                                        "is the\n"                                                 \
                                        "extension's: .csv .json/.jsonl .md .txt. An existing "    \
                                        "FILE is an\n"                                             \
                                        "error unless --overwrite (or --resume FILE for a CSV)",   \
                    set_output),                                                                   \
        KB_OPT_SWITCH("--overwrite",                                                               \
                      "replace existing -o files. A file is written beside FILE and\n"             \
                      "takes its place when the first row is written: a run that\n"                \
                      "makes no row (no device, a full disk) leaves FILE as it was.\n"             \
                      "A symbolic link is written through (its target replaced, the\n"             \
                      "link kept). One run writes a file at a time: it holds a lock\n"             \
                      "on FILE.kbench-lock beside it, and a second is refused with\n"              \
                      "the first's pid. A temporary that a killed run left is named\n"             \
                      "on stderr, and removed when it holds nothing FILE lacks",                   \
                      run_args, overwrite),                                                        \
        KB_OPT_STRING("--resume", "FILE.csv",                                                      \
                      "append to FILE, skipping every (variant, case, mode) row it\n"              \
                      "already holds: a killed sweep continues where it stopped.\n"                \
                      "FILE must be a kbench CSV (or not exist yet); a partial last\n"             \
                      "line and the NOT_RUN rows (the device was lost)\n"                          \
                      "are dropped, and those rows run again (quoted fields may\n"                 \
                      "hold newlines). FILE changes only when the first new row is\n"              \
                      "written",                                                                   \
                      run_args, resume),                                                           \
        KB_OPT_SWITCH("-q, --quiet", "nothing on stdout (with -o)", run_args, quiet)

const kb_opt kb_run_table[] = {CASE_OPTS, TIMING_OPTS, RELIABILITY_OPTS, OUTPUT_OPTS, KB_OPT_END};
const kb_opt kb_check_table[] = {
    CASE_OPTS,
    KB_OPT_LONG("--fuzz", "N",
                "also check N random valid cases per op (default 0; one run\n"
                "holds at most 65536 cases, sweeps included)",
                run_args, fuzz, 0, KB_MAX_CASES),
    RELIABILITY_OPTS,
    OUTPUT_OPTS,
    KB_OPT_END,
};

static void run_help(const char *cmd) {
    int check = strcmp(cmd, "check") == 0;
    printf("usage: kbench %s OP|all [options]\n\n", cmd);
    if (check)
        puts("Correctness only: every selected variant against the CPU reference over a sweep\n"
             "(default: smoke) and over N random valid cases (--fuzz N). Outputs are poisoned\n"
             "before each run, compared by precision class, and run twice for determinism.\n");
    else
        puts("Check every selected variant against the CPU reference, then time it on the GPU\n"
             "with CUDA events until the noise is under --max-noise (with at least\n"
             "--min-samples samples) or --max-time passes. Every sample starts from poisoned\n"
             "outputs, and the last timed launch must write what the checked run wrote (the\n"
             "op's check, for a nondeterministic variant): work skipped or cached on repeated\n"
             "calls FAILs the row. One row per (case, variant).\n");
    kb_opts_help(stdout, check ? kb_check_table : kb_run_table);
    puts("  -h, --help\n"
         "exit codes: 0 every row PASS/UNSUPPORTED/UNCHECKED, 1 a row\n"
         "            FAIL/ERROR/CRASH/TIMEOUT/NOT_RUN,\n"
         "            2 bad usage or input, or another run writing an output file\n"
         "            (nothing was run, no file was touched),\n"
         "            3 no CUDA device (none, no driver, or not the one --device names),\n"
         "            4 a runtime error (an output could not be written, a worker could not\n"
         "            start, out of file descriptors or memory)");
}

static int set_op(void *dst, const char *arg, kb_error *e) {
    run_args *a = dst;
    if (a->opname) return kb_fail(e, "unexpected argument '%s' (one OP, or all)", arg);
    a->opname = arg;
    return KB_OK;
}

/* KB_OK, KB_OPTS_HELP (help printed), or KB_EXIT_USAGE (said). */
static int parse_args(int argc, char **argv, run_args *a) {
    const char *cmd = a->cmd;
    for (int i = 1; !a->opts.timing && i < argc; i++)
        if (strcmp(argv[i], "--interleave") == 0)
            return kb_usage_error(cmd, "--interleave orders the timed samples, and kbench check "
                                       "times nothing (kbench run --interleave)");
    int rc =
        kb_opts_parse(cmd, a->opts.timing ? kb_run_table : kb_check_table, a, argc, argv, set_op);
    if (rc == KB_OPTS_HELP) run_help(cmd);
    if (rc != KB_EXIT_OK) return rc;
    if (!a->opname) return kb_usage_error(cmd, "which op? (kbench list shows them)");
    if (!a->opts.isolate && a->opts.force)
        return kb_usage_error(cmd, "--force needs isolation: a forced variant may fault (drop "
                                   "--no-isolate)");
    if (!a->opts.isolate && a->devices.n != 1)
        return kb_usage_error(cmd, "--devices: more than one GPU needs isolation, a worker "
                                   "process each (drop --no-isolate)");
    if (!a->opts.isolate && a->timeout_given)
        return kb_usage_error(cmd, "--case-timeout needs isolation: only a worker process can "
                                   "be killed (drop --no-isolate)");
    return KB_OK;
}

/* The first Python file that could not be listed: the variants -v names
 * that no table has may be its (their rows then say why it failed). */
static int failed_py_source(void) {
    for (int i = 0; i < kb_sources_count(); i++)
        if (kb_source_at(i)->kind == KB_SOURCE_PY && kb_source_at(i)->failed) return i;
    return -1;
}

/* A variant of op that stands for a Python file that could not be listed
 * (named after the file without -v): host-flagged, so that its ERROR rows
 * need no device. */
static const kb_variant *stand_in(const char *cmd, const kb_op *op, int src, const char *name) {
    char stem[80];
    if (!name) {
        kb_variant_name_of_file(kb_source_at(src)->path, stem, sizeof stem);
        name = stem;
    }
    kb_error e;
    kb_loaded *l = kb_loaded_new(src, op->name, name, &e);
    if (!l) {
        kb_usage_error(cmd, "%s", e.msg);
        return NULL;
    }
    l->v.flags = KB_HOST;
    snprintf(l->summary, sizeof l->summary, "(could not be listed: %.200s)",
             kb_source_at(src)->why);
    return &l->v;
}

static int add_variant(const char *cmd, const kb_variant *v, const kb_variant **out, int *n,
                       int cap) {
    if (*n + 1 >= cap) return kb_usage_error(cmd, "too many variants");
    out[(*n)++] = v;
    return KB_OK;
}

/* The variant of op named name: a built-in one, then a loaded one. */
static const kb_variant *find_any(const kb_op *op, const char *name) {
    const kb_variant *v = kb_find_variant(op->name, name);
    for (int i = 0; !v && i < kb_loaded_count(); i++)
        if (strcmp(kb_loaded_at(i)->op, op->name) == 0 && strcmp(kb_loaded_at(i)->name, name) == 0)
            v = &kb_loaded_at(i)->v;
    return v;
}

/* Every variant name of op, comma-separated, for a message. */
static void variant_names(const kb_op *op, char *all, size_t n) {
    all[0] = '\0';
    for (int i = 0; kb_variants[i].op; i++)
        if (strcmp(kb_variants[i].op, op->name) == 0) {
            strncat(all, all[0] ? ", " : "", n - strlen(all) - 1);
            strncat(all, kb_variants[i].name, n - strlen(all) - 1);
        }
    for (int i = 0; i < kb_loaded_count(); i++)
        if (strcmp(kb_loaded_at(i)->op, op->name) == 0) {
            strncat(all, all[0] ? ", " : "", n - strlen(all) - 1);
            strncat(all, kb_loaded_at(i)->name, n - strlen(all) - 1);
        }
}

/* Appends v unless it is there already: named twice, its pairs would run twice. */
static int add_once(const char *cmd, const char *list, const kb_variant *v, const kb_variant **out,
                    int first, int *n, int cap) {
    for (int j = first; j < *n; j++)
        if (out[j] == v)
            return kb_usage_error(cmd, "-v %s: %s/%s is named twice (its pairs would run twice)",
                                  list, v->op, v->name);
    return add_variant(cmd, v, out, n, cap);
}

/* The variants of op a pattern names ("peer:*", "nhwc_ws_*": fnmatch), in
 * table order; test-only ones only by their whole name. */
static int add_matching(const char *cmd, const kb_op *op, const char *list, const char *pattern,
                        const kb_variant **out, int first, int *n, int cap) {
    int found = 0;
    for (int i = 0; kb_variants[i].op; i++)
        if (strcmp(kb_variants[i].op, op->name) == 0 && !(kb_variants[i].flags & KB_TEST_ONLY) &&
            fnmatch(pattern, kb_variants[i].name, 0) == 0) {
            if (add_once(cmd, list, &kb_variants[i], out, first, n, cap) != KB_OK) return KB_ERR;
            found++;
        }
    for (int i = 0; i < kb_loaded_count(); i++)
        if (strcmp(kb_loaded_at(i)->op, op->name) == 0 &&
            fnmatch(pattern, kb_loaded_at(i)->name, 0) == 0) {
            if (add_once(cmd, list, &kb_loaded_at(i)->v, out, first, n, cap) != KB_OK)
                return KB_ERR;
            found++;
        }
    if (found) return KB_OK;
    char names[2048];
    variant_names(op, names, sizeof names);
    return kb_usage_error(cmd, "-v %s: no variant of %s matches (variants: %s)", pattern, op->name,
                          names);
}

/* One -v name: VARIANT (of op) or OP/VARIANT, or a pattern of either
 * ('*', '?', '['), appended to out. Nothing is appended for a name of
 * another op (a run of all ops takes it for that op). A name no table has
 * stands for a Python file that could not be listed, when there is one. */
static int resolve_variant(const char *cmd, const kb_op *op, int all, const char *list,
                           const char *name, const kb_variant **out, int first, int *n, int cap) {
    const char *slash = strchr(name, '/'), *vname = slash ? slash + 1 : name;
    if (slash) {
        char opname[KB_NAME];
        snprintf(opname, sizeof opname, "%.*s", (int)(slash - name), name);
        if ((size_t)(slash - name) >= sizeof opname || !kb_find_op(opname))
            return kb_usage_error(cmd, "-v %s: no op '%.*s' (kbench list --names shows them)", name,
                                  (int)(slash - name), name);
        if (strcmp(opname, op->name) != 0) {
            if (all) return KB_OK;
            return kb_usage_error(cmd, "-v %s: not a variant of %s (the run is of %s only)", name,
                                  op->name, op->name);
        }
    } else if (all) {
        return kb_usage_error(cmd,
                              "-v %s: a run of all ops names its variants as OP/VARIANT (e.g. "
                              "%s/%s; kbench list --names shows them)",
                              name, op->name, name);
    }
    if (strpbrk(vname, "*?[")) return add_matching(cmd, op, list, vname, out, first, n, cap);
    const kb_variant *v = find_any(op, vname);
    if (!v && failed_py_source() >= 0 && !(v = stand_in(cmd, op, failed_py_source(), vname)))
        return KB_ERR;
    if (!v) {
        char names[2048];
        variant_names(op, names, sizeof names);
        return kb_usage_error(cmd, "op %s has no variant '%s' (variants: %s)", op->name, vname,
                              names);
    }
    return add_once(cmd, list, v, out, first, n, cap);
}

/* The variants of op named in the comma list -v gave (all of the op when
 * list is NULL: the built-in ones, then those of plugins and Python files
 * in the order they were given; test-only variants only by name), appended
 * to out. Under `all` (all: 1) a name is OP/VARIANT, and an op none of whose
 * variants is named gets none. The list is read whole, however long; empty
 * items are skipped, but a list that names nothing, or one variant twice
 * (its pairs twice), is refused. */
static int select_variants(const char *cmd, const kb_op *op, int all, const char *list,
                           const kb_variant **out, int *n, int cap) {
    if (!list) {
        for (int i = 0; kb_variants[i].op; i++)
            if (strcmp(kb_variants[i].op, op->name) == 0 &&
                !(kb_variants[i].flags & KB_TEST_ONLY) &&
                add_variant(cmd, &kb_variants[i], out, n, cap) != KB_OK)
                return KB_ERR;
        int loaded_before = kb_loaded_count();
        for (int i = 0; i < loaded_before; i++)
            if (strcmp(kb_loaded_at(i)->op, op->name) == 0 &&
                add_variant(cmd, &kb_loaded_at(i)->v, out, n, cap) != KB_OK)
                return KB_ERR;
        for (int s = 0; s < kb_sources_count(); s++) {
            if (kb_source_at(s)->kind != KB_SOURCE_PY || !kb_source_at(s)->failed) continue;
            const kb_variant *v = stand_in(cmd, op, s, NULL);
            if (!v || add_variant(cmd, v, out, n, cap) != KB_OK) return KB_ERR;
        }
        return KB_OK;
    }
    char *buf = strdup(list);
    if (!buf) return kb_usage_error(cmd, "-v: out of host memory");
    int rc = KB_OK, named = 0, first = *n;
    char *save = NULL;
    for (char *name = strtok_r(buf, ",", &save); name && rc == KB_OK;
         name = strtok_r(NULL, ",", &save)) {
        named++;
        rc = resolve_variant(cmd, op, all, list, name, out, first, n, cap);
    }
    free(buf);
    if (rc == KB_OK && !named)
        rc = kb_usage_error(cmd,
                            "-v '%s': names no variant (a comma list of names: kbench list "
                            "--names)",
                            list);
    return rc;
}

/* n random valid cases of op appended to list (*added: how many; an op
 * whose generator finds too few valid cases gives fewer). */
static int add_fuzz_cases(const kb_op *op, long n, uint64_t seed, kb_case_list *list, int *added,
                          kb_error *e) {
    *added = 0;
    if (!op->fuzz_case || n == 0) return KB_OK;
    if (list->count + n > KB_MAX_CASES)
        return kb_fail(e,
                       "--fuzz %ld: one run holds at most %d cases, and %d come before %s's %ld "
                       "random ones (the sweeps, and the random cases of the ops before it)",
                       n, KB_MAX_CASES, list->count, op->name, n);
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + 7;
    for (long tries = 0; *added < n && tries < 100 * n; tries++) {
        kb_case c;
        kb_case_defaults(&c, op);
        op->fuzz_case(&rng, &c);
        kb_error why;
        if (kb_case_validate(&c, &why) != KB_OK) continue;
        if (list->count == list->cap) {
            int cap = list->cap ? 2 * list->cap : 16;
            void *p = realloc(list->cases, (size_t)cap * sizeof *list->cases);
            if (!p) return kb_fail(e, "out of host memory for %d cases", cap);
            list->cases = p;
            list->cap = cap;
        }
        list->cases[list->count++] = c;
        (*added)++;
    }
    return KB_OK;
}

/* 1 when the record starting on `line` of the file `rows` were read from is
 * a NOT_RUN row (results/csv_read.c reads old files' not-run rows so too). */
static int is_not_run_at(const kb_results *rows, int line) {
    for (int i = 0; i < rows->count; i++)
        if (rows->rows[i].line == line) return rows->rows[i].status == KB_ROW_NOT_RUN;
    return 0;
}

/* 1 when line is the header this kbench writes (kb_columns), newline and all. */
static int is_current_header(const char *line) {
    const char *p = line;
    for (int i = 0; i < KB_NCOLUMNS; i++) {
        size_t n = strlen(kb_columns[i].name);
        if ((i && *p++ != ',') || strncmp(p, kb_columns[i].name, n) != 0) return 0;
        p += n;
    }
    return strcmp(p, "\n") == 0 || strcmp(p, "\r\n") == 0;
}

/* The next record of f into *rec (its lines, newlines included) as
 * csv_read.c splits a file: a '#' line where a record would begin is one
 * line; a field that opens with a quote runs to its closing quote, newlines
 * and all (RFC 4180, '""' a quote inside). Its length, 0 at the end; *whole
 * is 0 when the file ended inside it (no newline, or an open quote). -1 on
 * a read error or no memory, errno set. */
static ssize_t read_record(FILE *f, char **rec, size_t *cap, int *whole) {
    size_t len = 0;
    int quoted = 0, field_start = 1;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t n;
    *whole = 0;
    while ((n = getline(&line, &lcap, f)) > 0) {
        if (len + (size_t)n + 1 > *cap) {
            size_t grown = 2 * (len + (size_t)n + 1);
            char *p = realloc(*rec, grown);
            if (!p) {
                free(line);
                return -1;
            }
            *rec = p;
            *cap = grown;
        }
        memcpy(*rec + len, line, (size_t)n + 1);
        if (len == 0 && line[0] == '#') { /* metadata: a line, whatever its quotes */
            len = (size_t)n;
            *whole = line[n - 1] == '\n';
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            char c = line[i];
            if (quoted) {
                if (c == '"' && i + 1 < n && line[i + 1] == '"')
                    i++;
                else if (c == '"')
                    quoted = 0;
            } else if (c == '"' && field_start) {
                quoted = 1;
            }
            field_start = !quoted && c == ',';
        }
        len += (size_t)n;
        if (!quoted && line[n - 1] == '\n') {
            *whole = 1;
            break;
        }
    }
    free(line);
    if (ferror(f)) return -1;
    return (ssize_t)len;
}

/* Copies the --resume file into out less what holds no result: a partial
 * last record (a run killed mid-row) and the NOT_RUN rows of rows (the file
 * as kb_results_read read it; they run again). Records, not lines: a quoted field may hold newlines
 * (the files compare reads). *old_header: the last header is not the current schema's (the file is
 * from a kbench with fewer columns). KB_ERR on an I/O error, errno set. */
static int copy_for_resume(const char *path, const kb_results *rows, FILE *out, long *cut_bytes,
                           long *not_run, int *old_header) {
    FILE *f = fopen(path, "r");
    if (!f) return KB_ERR;
    char *rec = NULL;
    size_t cap = 0;
    ssize_t n;
    int whole, bad = 0, line = 1; /* the line rec starts on, as the reader counts */
    *cut_bytes = *not_run = 0;
    *old_header = 0;
    while ((n = read_record(f, &rec, &cap, &whole)) > 0) {
        /* a header: the first record that is not '#' (a spreadsheet's may
         * open with a byte-order mark), or one repeated where files were joined */
        const char *h = strncmp(rec, "\xEF\xBB\xBF", 3) == 0 ? rec + 3 : rec;
        if (strncmp(h, "op,", 3) == 0 && whole) *old_header = !is_current_header(h);
        if (!whole)
            *cut_bytes = n;
        else if (rec[0] != '#' && is_not_run_at(rows, line))
            (*not_run)++;
        else if (fwrite(rec, 1, (size_t)n, out) != (size_t)n)
            break;
        for (ssize_t i = 0; i < n; i++) line += rec[i] == '\n';
    }
    bad = n < 0 || ferror(f) || ferror(out) || fflush(out) != 0;
    int err = errno;
    free(rec);
    fclose(f);
    errno = err;
    return bad ? KB_ERR : KB_OK;
}

/* Rows match by their params' values (kb_params_key), as compare matches
 * them: a file from before an axis existed still holds that axis's default. */
static int resume_done(void *ctx, const kb_variant *v, const char *params, kb_mode mode) {
    const kb_results *res = ctx;
    char key[sizeof res->rows[0].key];
    kb_params_key(kb_find_op(v->op), params, key, sizeof key);
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        if (strcmp(r->variant, v->name) == 0 && strcmp(r->op, v->op) == 0 &&
            strcmp(r->mode, kb_mode_name(mode)) == 0 && strcmp(r->key, key) == 0)
            return 1;
    }
    return 0;
}

/* The L2 flush kind the cold rows of f were timed with, other than want
 * (into other; kb_result_file_flushes). 0 when every one is want's. */
static int other_flush(const kb_results *f, const char *want, char *other, size_t n) {
    const char *list = kb_result_file_flushes(f, 0);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "\n");
        if (len != strlen(want) || strncmp(p, want, len) != 0) {
            snprintf(other, n, "%.*s", (int)len, p);
            return 1;
        }
        p += len;
        if (*p) p++;
    }
    return 0;
}

/* An output file that could not be opened (opt: "-o" or "--resume"): bad
 * usage (the path, another writer), or a runtime error when the system ran
 * short (file descriptors, memory, space): the same command may work later. */
static int open_failed(const char *cmd, const char *opt, kb_out_failure why, const char *msg) {
    if (why != KB_OUT_RESOURCES) return kb_usage_error(cmd, "%s %s", opt, msg);
    fprintf(stderr, "kbench %s: %s %s\n(nothing was run)\n", cmd, opt, msg);
    return KB_EXIT_RUNTIME;
}

/* kb_results_read, whose failure is the system's when errno says so (its
 * messages name the file, not the errno). */
static int read_results(kb_results *res, const char *path, kb_error *e, kb_out_failure *why) {
    errno = 0;
    int rc = kb_results_read(res, path, NULL, e);
    *why = rc == KB_OK || errno == 0 ? KB_OUT_PATH : kb_out_failure_of(errno);
    return rc;
}

/* The --resume file: locked (no other run writes it while it is read, or
 * after), validated as a kbench CSV before anything is written (and, where
 * this run flushes L2 (flush: its kind, else NULL), timed with the same
 * flush: one file is one measurement), then copied (less what holds no
 * result) to the temporary that new rows are appended to; done gets the
 * rows it keeps. A file that does not exist yet (or is empty) starts with a
 * header, like -o. */
static int open_resume(const char *cmd, const char *path, const char *flush, kb_results *done,
                       kb_out_file *o) {
    kb_format fmt;
    if (kb_format_from_path(path, &fmt) != KB_OK || fmt != KB_FMT_CSV)
        return kb_usage_error(cmd, "--resume %s: only a .csv file can be resumed", path);
    kb_error e, ce;
    if (kb_out_file_open(o, path, KB_FMT_CSV, &e) != KB_OK)
        return open_failed(cmd, "--resume", o->failure, e.msg);
    struct stat st;
    int exists = stat(path, &st) == 0 && !(S_ISREG(st.st_mode) && st.st_size == 0);
    kb_out_failure why = KB_OUT_PATH;
    kb_results check = {0};
    if (exists) {
        int rc = read_results(&check, path, &e, &why);
        char other[64] = "";
        int differs = rc == KB_OK && flush && other_flush(&check, flush, other, sizeof other);
        if (rc != KB_OK || differs) kb_results_free(&check);
        if (rc != KB_OK || differs) kb_out_file_close(o, &ce);
        if (rc != KB_OK) {
            char msg[sizeof e.msg + 1100];
            snprintf(msg, sizeof msg, "%s: %s", path, e.msg);
            return open_failed(cmd, "--resume", why, msg);
        }
        if (differs)
            return kb_usage_error(cmd,
                                  "--resume %s: its cold rows were timed with --flush %s, this "
                                  "run would flush with %s (the rows of one file are one "
                                  "measurement: add --flush %s, or write another file)",
                                  path, other, flush, other);
    }
    if (!exists) return KB_OK;
    long cut = 0, not_run = 0;
    int old_header = 0;
    int copied = copy_for_resume(path, &check, o->p.f, &cut, &not_run, &old_header);
    kb_results_free(&check);
    if (copied != KB_OK) {
        fprintf(stderr, "kbench %s: --resume %s: cannot copy it to %s: %s\n", cmd, path, o->tmp,
                strerror(errno));
        kb_out_file_close(o, &e);
        return KB_EXIT_RUNTIME;
    }
    if (cut > 0)
        fprintf(stderr,
                "kbench %s: %s: a partial last line (%ld bytes) is dropped when the first new "
                "row is written\n",
                cmd, path, cut);
    if (not_run > 0)
        fprintf(stderr,
                "kbench %s: %s: %ld 'not run' row(s) run again (their lines are dropped when the "
                "first new row is written)\n",
                cmd, path, not_run);
    if (read_results(done, o->tmp, &e, &why) != KB_OK) {
        kb_out_file_close(o, &ce);
        char msg[sizeof e.msg + 1100];
        snprintf(msg, sizeof msg, "%s: %s", path, e.msg);
        return open_failed(cmd, "--resume", why, msg);
    }
    o->p.append = 1;
    o->p.new_header = old_header;
    return KB_OK;
}

/* path's folder resolved, plus its last name: two spellings of one file
 * compare equal (a file that does not exist yet has no inode to compare). */
static void canonical(const char *path, char *out, size_t n) {
    char dir[4096], *resolved;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 2, slash ? path : "./");
    resolved = realpath(dir, NULL);
    snprintf(out, n, "%s/%s", resolved ? resolved : dir, base);
    free(resolved);
}

/* Every -o file, before any device work: a known extension, named once, and
 * an existing file replaced only when --overwrite says so. (Whether its
 * folder takes a new file is learnt by creating the temporary.) */
static int check_outputs(const run_args *a, kb_format *fmts) {
    char ci[4200], cj[4200];
    for (int i = 0; i < a->noutputs; i++) {
        const char *o = a->outputs[i];
        if (kb_format_from_path(o, &fmts[i]) != KB_OK)
            return kb_usage_error(a->cmd, "-o %s: unknown extension (expected %s)", o,
                                  KB_OUTPUT_EXTENSIONS);
        canonical(o, ci, sizeof ci);
        for (int j = 0; j <= i; j++) {
            const char *other = j < i ? a->outputs[j] : a->resume;
            if (!other) continue;
            canonical(other, cj, sizeof cj);
            if (strcmp(ci, cj) == 0)
                return kb_usage_error(a->cmd, "-o %s: the same file as %s%s", o,
                                      j < i ? "-o " : "--resume ", other);
        }
        struct stat st;
        if (!a->overwrite && stat(o, &st) == 0 && S_ISREG(st.st_mode))
            return kb_usage_error(
                a->cmd,
                "-o %s: the file exists: --overwrite replaces it (once the "
                "first row is written)%s",
                o, fmts[i] == KB_FMT_CSV ? ", --resume adds the missing rows to it" : "");
    }
    return KB_OK;
}

/* Closes every output file: those that got no row are left as they were.
 * KB_EXIT_RUNTIME when one could not be written. */
static int close_files(const char *cmd, kb_out_file *files, int n) {
    int rc = KB_OK;
    for (int i = 0; i < n; i++) {
        kb_error e;
        if (kb_out_file_close(&files[i], &e) != KB_OK) {
            fprintf(stderr, "kbench %s: %s\n", cmd, e.msg);
            rc = KB_EXIT_RUNTIME;
        }
    }
    return rc;
}

/* The printers' headers need the device: called once it is open (in this
 * process, or in the first worker when isolated). */
typedef struct begin_ctx {
    int argc;
    char **argv;
    kb_runner *r;
    int mixed; /* --mixed-devices */
    kb_device dev[KB_MAX_DEVICES];
    int ndev;
    char shard[256]; /* the meta's shard line, or "" */
    kb_meta meta;
    int begun;
} begin_ctx;

/* Every GPU of the run, once all are open: GPUs of different models are
 * refused unless --mixed-devices (their times are not one population). */
static int begin_printers(void *ctx, const kb_device *devs, int ndevs, int sm_clock_now_mhz,
                          kb_error *e) {
    begin_ctx *bc = ctx;
    for (int i = 1; i < ndevs && !bc->mixed; i++)
        if (strcmp(devs[i].name, devs[0].name) != 0)
            return kb_fail(e,
                           "--devices: GPUs of different models: device %d is %s, device %d is "
                           "%s (--mixed-devices runs them in one sweep; every row names its GPU)",
                           devs[0].ordinal, devs[0].name, devs[i].ordinal, devs[i].name);
    if (ndevs && devs != bc->dev) memcpy(bc->dev, devs, (size_t)ndevs * sizeof *devs);
    bc->ndev = ndevs;
    kb_meta_init(&bc->meta, ndevs ? bc->dev : NULL, bc->argc, bc->argv); /* none: host variants */
    bc->meta.ndev = ndevs;
    snprintf(bc->meta.run.shard, sizeof bc->meta.run.shard, "%s", bc->shard);
    const kb_run_opts *o = &bc->r->opts;
    if (ndevs && o->timing && o->mode == KB_MODE_COLD)
        snprintf(bc->meta.run.l2_flush, sizeof bc->meta.run.l2_flush, "%s",
                 kb_flush_name(o->flush));
    if (o->timing && o->interleave)
        snprintf(bc->meta.run.interleave, sizeof bc->meta.run.interleave, "%s", KB_INTERLEAVE_FACT);
    bc->meta.sm_clock_now_mhz = sm_clock_now_mhz;
    for (int i = 0; i < bc->r->nprinters; i++)
        bc->r->printers[i]->begin(bc->r->printers[i], &bc->meta);
    bc->begun = 1;
    return KB_OK;
}

/* The '#' line that says which shard a file holds, and of which sweep: what
 * `kbench merge` checks the parts against each other by. */
/* The shard line: which shard, its pairs of the sweep's, the sweep's hash,
 * and the rows the shard writes when it completes (its pairs less those a
 * variant declines as another function of the op, which write none; the
 * rows a --resume found count): merge refuses a part with fewer, a run cut
 * short. */
static int shard_rows(const kb_runner *r, const kb_case_list *cases,
                      const kb_variant *const *variants) {
    int rows = r->resumed;
    for (int p = 0; p < r->npairs; p++)
        rows += kb_pair_applicable(&cases->cases[r->pairs[p].c], variants[r->pairs[p].v]);
    return rows;
}

static void shard_text(const run_args *a, const kb_runner *r, const kb_case_list *cases,
                       const kb_variant **variants, char *buf, size_t n) {
    buf[0] = '\0';
    if (a->opts.shard_count <= 0) return;
    int rows = shard_rows(r, cases, variants);
    snprintf(buf, n, "%d/%d of %s: %d of the sweep's %d pairs, sweep %016llx, %d rows",
             a->opts.shard_index, a->opts.shard_count, a->opname, r->npairs + r->resumed,
             r->sweep_pairs, (unsigned long long)r->sweep_hash, rows);
}

/* --dry-run: the pairs the plan holds, less those a variant declines as
 * another function of the op (supports() without a device refuses nothing
 * else), in the order a run takes them. */
static int dry_run(const run_args *a, const kb_case_list *cases, const kb_variant **variants,
                   kb_runner *r) {
    kb_error e;
    if (kb_runner_plan(r, cases, variants, &e) != KB_OK) {
        fprintf(stderr, "kbench %s: %s\n", a->cmd, e.msg);
        return KB_EXIT_RUNTIME;
    }
    int shown = 0;
    for (int p = 0; p < r->npairs; p++) {
        const kb_case *c = &cases->cases[r->pairs[p].c];
        const kb_variant *v = variants[r->pairs[p].v];
        if (!kb_pair_applicable(c, v)) continue;
        char params[1024];
        kb_case_format(c, params, sizeof params);
        printf("%s\t%s\t%s\n", v->op, v->name, params);
        shown++;
    }
    char shard[256];
    shard_text(a, r, cases, variants, shard, sizeof shard);
    fprintf(stderr, "%d pair(s) of %d case(s)%s%s; nothing was run\n", shown, cases->count,
            shard[0] ? ", shard " : "", shard);
    return KB_EXIT_OK;
}

/* s as one shell word: as it is where no character is special to a shell,
 * else in single quotes (a ' as '\''). */
static void put_shell_word(FILE *f, const char *s) {
    if (*s &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
            strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* Without a device, a selection that mixes GPU and host variants runs
 * nothing (exit 3, as a GPU selection): its rows would hold only half the
 * comparison it asks for. Say which variants need no device, and the
 * command that runs them alone: this one (argv, from the command's name)
 * with its -v replaced by theirs (OP/VARIANT under all). */
static void host_hint(int all, int argc, char **argv, const kb_variant *const *variants) {
    int nhost = 0;
    for (int i = 0; variants[i]; i++) nhost += (variants[i]->flags & KB_HOST) != 0;
    if (!nhost) return;
    fprintf(stderr, "kbench %s: these run on the host, without a device:", argv[0]);
    for (int i = 0, k = 0; variants[i]; i++)
        if (variants[i]->flags & KB_HOST)
            fprintf(stderr, "%s %s/%s", k++ ? "," : "", variants[i]->op, variants[i]->name);
    fputs("; to run them alone:\n  kbench", stderr);
    for (int i = 0; i < argc; i++) {
        if ((strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--variant") == 0) && i + 1 < argc) {
            i++;
            continue;
        }
        fputc(' ', stderr);
        put_shell_word(stderr, argv[i]);
    }
    fputs(" -v ", stderr);
    for (int i = 0, k = 0; variants[i]; i++)
        if (variants[i]->flags & KB_HOST) {
            if (k++) fputc(',', stderr);
            if (all) fprintf(stderr, "%s/", variants[i]->op);
            fputs(variants[i]->name, stderr);
        }
    fputc('\n', stderr);
}

/* What run_parsed's steps share: the plan and the files it writes. */
typedef struct run_state {
    const run_args *a;
    int argc;
    char **argv;
    kb_case_list *cases;
    const kb_variant *variants[512];
    int nvar, all, fuzzed;
    kb_out_file files[KB_MAX_OUTPUTS + 1];
    int nfiles;
} run_state;

/* Step 1, before the device: the cases (sweep, --first-case, --max-cases,
 * --fuzz) and the variants of every selected op. KB_OK or an exit code. */
static int plan_run(run_state *st) {
    const run_args a = *st->a;
    kb_case_list *cp = st->cases;
    const kb_variant **variants = st->variants;
    int all = st->all, timing = a.opts.timing, nvar = 0;
    int fuzzed = 0, fuzz_ops = 0;
    for (int i = 0; kb_ops[i]; i++)
        fuzz_ops += (all || strcmp(kb_ops[i]->name, a.opname) == 0) && kb_ops[i]->fuzz_case;
    if (a.fuzz * fuzz_ops > KB_MAX_CASES)
        return kb_usage_error(a.cmd,
                              "--fuzz %ld: %d ops x %ld random cases pass the %d cases one run "
                              "holds (at most %d per op here, less the sweeps' cases)",
                              a.fuzz, fuzz_ops, a.fuzz, KB_MAX_CASES, KB_MAX_CASES / fuzz_ops);
    int sweep_cases = 0; /* the last op's sweep, before --first-case and --max-cases */
    for (int i = 0; kb_ops[i]; i++) {
        const kb_op *op = kb_ops[i];
        if (!all && strcmp(op->name, a.opname) != 0) continue;
        int before = nvar;
        if (select_variants(a.cmd, op, all, a.variants, variants, &nvar, 512) != KB_OK)
            return KB_EXIT_USAGE;
        if (nvar == before) continue; /* all -v OP/VARIANT,...: none of this op's */
        const char *sweep = a.sweep ? a.sweep : (a.nspecs ? NULL : timing ? "default" : "smoke");
        kb_error e;
        int first = cp->count;
        int erc = sweep ? kb_expand_sweep(op, sweep, a.specs, a.nspecs, cp, &e)
                        : kb_expand_line(op, "", a.specs, a.nspecs, cp, &e);
        if (erc != KB_OK) return kb_usage_error(a.cmd, "%s: %s", op->name, e.msg);
        sweep_cases = cp->count - first;
        if (a.first_case > 0) { /* drop the sweep's first K cases of this op */
            int skip = cp->count - first < a.first_case ? cp->count - first : (int)a.first_case;
            memmove(&cp->cases[first], &cp->cases[first + skip],
                    (size_t)(cp->count - first - skip) * sizeof *cp->cases);
            cp->count -= skip;
        }
        if (a.max_cases >= 0 && cp->count - first > a.max_cases)
            cp->count = first + (int)a.max_cases;
        int added = 0;
        if (add_fuzz_cases(op, a.fuzz, a.opts.seed, cp, &added, &e) != KB_OK)
            return kb_usage_error(a.cmd, "%s", e.msg);
        fuzzed += added;
    }
    variants[nvar] = NULL;
    st->nvar = nvar;
    st->fuzzed = fuzzed;
    /* A selection of nothing is a mistake in the options, not a run that
     * passed: say which option emptied it. (A shard with no pair of a
     * selection is no such mistake: its file says so, for merge.) */
    if (cp->count == 0 && a.max_cases == 0)
        return kb_usage_error(a.cmd,
                              "--max-cases 0: no case of the sweep is left (nothing to run)");
    if (cp->count == 0 && a.first_case > 0 && !all)
        return kb_usage_error(a.cmd,
                              "--first-case %ld: past the end of %s's sweep (%d cases): no case "
                              "is left",
                              a.first_case, a.opname, sweep_cases);
    if (cp->count == 0 && a.first_case > 0)
        return kb_usage_error(a.cmd,
                              "--first-case %ld: past the end of every op's sweep: no case is left",
                              a.first_case);
    return KB_OK;
}

/* Step 2, still before the device: every output named is checked, then
 * opened (--resume's file first); nothing named is touched until a row
 * exists. KB_OK or an exit code (the files opened so far closed). */
static int open_outputs(run_state *st, kb_results *dp) {
    const run_args *a = st->a;
    kb_format fmts[KB_MAX_OUTPUTS];
    if (check_outputs(a, fmts) != KB_OK) return KB_EXIT_USAGE;
    kb_out_file_cleanup_on_signal();
    st->nfiles = 0;
    if (a->resume) {
        /* GPU variants timed in cold mode: this run flushes L2 */
        int gpu = 0;
        for (int i = 0; i < st->nvar; i++) gpu |= !(st->variants[i]->flags & KB_HOST);
        const char *flush = gpu && a->opts.timing && a->opts.mode == KB_MODE_COLD
                                ? kb_flush_name(a->opts.flush)
                                : NULL;
        int rc = open_resume(a->cmd, a->resume, flush, dp, &st->files[st->nfiles]);
        if (rc != KB_OK) return rc;
        st->nfiles++;
    }
    kb_error e;
    for (int i = 0; i < a->noutputs; i++) {
        if (kb_out_file_open(&st->files[st->nfiles], a->outputs[i], fmts[i], &e) != KB_OK) {
            close_files(a->cmd, st->files, st->nfiles);
            return open_failed(a->cmd, "-o", st->files[st->nfiles].failure, e.msg);
        }
        st->nfiles++;
    }
    return KB_OK;
}

/* Step 3: the pairs on the device(s), isolated or in this process. The
 * runner's status (KB_OK, KB_REFUSED, KB_NO_DEVICE, ...), e saying why. */
static int execute(run_state *st, kb_runner *rp, begin_ctx *bc, kb_error *e) {
    const run_args *a = st->a;
    memset(bc, 0, sizeof *bc);
    bc->argc = st->argc + 1;
    bc->argv = st->argv - 1;
    bc->r = rp;
    bc->mixed = a->mixed_devices;
    shard_text(a, rp, st->cases, st->variants, bc->shard, sizeof bc->shard);
    if (a->opts.isolate) return kb_isolated_run(rp, &a->devices, begin_printers, bc, e);
    const int dev = rp->needs_device; /* a plan of host variants opens none */
    int rc = dev ? kb_device_open(a->devices.ordinals[0], &bc->dev[0], e) : KB_OK;
    if (rc == KB_OK && dev && a->opts.timing && kb_device_peaks(&bc->dev[0], 0, e) != KB_OK)
        fprintf(stderr, "kbench: peaks not measured (%s): %% columns are 0\n", e->msg);
    /* attached first: a device that cannot take the run begins no file */
    if (rc == KB_OK && dev) rc = kb_runner_attach(rp, &bc->dev[0], e);
    if (rc == KB_OK)
        begin_printers(bc, dev ? bc->dev : NULL, dev ? 1 : 0,
                       dev ? kb_device_sm_clock_now(&bc->dev[0]) : -1, e);
    if (rc == KB_OK) kb_runner_run(rp);
    return rc;
}

/* Step 4: the counts line (and --resume's), and the exit code. */
static int summarise(const run_state *st, const kb_runner *rp, int rc) {
    const run_args *a = st->a;
    const int *n = rp->counts;
    int bad = 0, total = 0;
    for (int k = 0; k < KB_NSTATUS; k++) {
        bad += kb_status_failing((kb_status)k) ? n[k] : 0;
        total += n[k];
    }
    char not_run[64] = ""; /* named only when there are some: rows a lost device left */
    if (n[KB_ROW_NOT_RUN]) snprintf(not_run, sizeof not_run, ", %d NOT_RUN", n[KB_ROW_NOT_RUN]);
    fprintf(a->quiet ? stderr : stdout,
            "\n%d case(s)%s, %d row(s): %d PASS, %d FAIL, %d UNSUPPORTED, %d ERROR, %d CRASH, "
            "%d TIMEOUT, %d UNCHECKED%s%s\n",
            st->cases->count, st->fuzzed ? " (incl. fuzzed)" : "", total, n[KB_ROW_PASS],
            n[KB_ROW_FAIL], n[KB_ROW_UNSUPPORTED], n[KB_ROW_ERROR], n[KB_ROW_CRASH],
            n[KB_ROW_TIMEOUT], n[KB_ROW_UNCHECKED], not_run,
            rp->skipped_na ? " (variant/case pairs of another function of the op skipped)" : "");
    if (a->resume)
        fprintf(a->quiet ? stderr : stdout, "%d row(s) were already in %s: not run again\n",
                rp->resumed, a->resume);
    if (rc == KB_EXIT_RUNTIME) return rc;
    return bad ? KB_EXIT_FAILED : KB_EXIT_OK;
}

/* The command after its options are parsed: plan, open outputs, execute,
 * summarise. Every path leaves the caller to free the cases, the --resume
 * rows and the runner (once initialised). */
static int run_parsed(run_args *ap, int argc, char **argv, kb_case_list *cp, kb_results *dp,
                      kb_runner *rp, int *have_runner) {
    static run_state st; /* 9 output files and 512 variants: off the stack */
    memset(&st, 0, sizeof st);
    st.a = ap;
    st.argc = argc;
    st.argv = argv;
    st.cases = cp;
    st.all = strcmp(ap->opname, "all") == 0;
    const run_args *a = ap;
    if (!st.all && !kb_find_op(a->opname)) {
        char names[512] = "";
        for (int i = 0; kb_ops[i]; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, kb_ops[i]->name, sizeof names - strlen(names) - 1);
        }
        return kb_usage_error(a->cmd, "unknown op '%s' (ops: %s, or all)", a->opname, names);
    }
    if (kb_ext_load(a->cmd, &a->ext) != KB_EXIT_OK) return KB_EXIT_USAGE;
    int rc = plan_run(&st);
    if (rc != KB_OK) return rc;
    const kb_variant **variants = st.variants;
    int nvar = st.nvar;
    kb_error de;
    /* Python pairs' files go under one folder the parent removes at the end. */
    for (int i = 0; i < nvar; i++)
        if (kb_loaded_of(variants[i]) &&
            kb_source_at(kb_loaded_of(variants[i])->source)->kind == KB_SOURCE_PY && !a->dry_run &&
            kb_py_make_root(&de) != KB_OK) {
            fprintf(stderr, "kbench %s: %s\n", a->cmd, de.msg);
            return KB_EXIT_RUNTIME;
        }
    if (kb_runner_check_dirs(&a->opts, cp, &de) != KB_OK)
        return kb_usage_error(a->cmd, "%s", de.msg);
    if (a->dry_run) {
        if (kb_runner_init(rp, &a->opts, &de) != KB_OK) {
            fprintf(stderr, "kbench %s: %s\n", a->cmd, de.msg);
            return KB_EXIT_RUNTIME;
        }
        *have_runner = 1;
        return dry_run(a, cp, variants, rp);
    }

    rc = open_outputs(&st, dp);
    if (rc != KB_OK) return rc;
    kb_out_file *files = st.files;
    int nfiles = st.nfiles;
    kb_error e;
    kb_printer out;
    kb_run_opts opts = a->opts;
    opts.progress = isatty(2);
    if (kb_runner_init(rp, &opts, &e) != KB_OK) {
        close_files(a->cmd, files, nfiles);
        fprintf(stderr, "kbench %s: %s\n", a->cmd, e.msg);
        return KB_EXIT_RUNTIME;
    }
    *have_runner = 1;
    if (a->resume) {
        rp->already_done = resume_done;
        rp->done_ctx = dp;
    }
    if (kb_runner_plan(rp, cp, variants, &e) != KB_OK) {
        close_files(a->cmd, files, nfiles);
        fprintf(stderr, "kbench %s: %s\n", a->cmd, e.msg);
        return KB_EXIT_RUNTIME;
    }
    if (!a->quiet) {
        kb_printer_init(&out, a->format, stdout);
        rp->printers[rp->nprinters++] = &out;
    }
    for (int i = 0; i < nfiles; i++) rp->printers[rp->nprinters++] = &files[i].p;

    static begin_ctx bc; /* a device's facts each: too large for the stack */
    rc = execute(&st, rp, &bc, &e);
    if (rc == KB_REFUSED) {
        close_files(a->cmd, files, nfiles);
        return kb_usage_error(a->cmd, "%s\n(nothing was run)", e.msg);
    }
    if (rc == KB_NO_DEVICE) {
        close_files(a->cmd, files, nfiles);
        fprintf(stderr, "kbench %s: %s\n(%d case(s) were valid; nothing was run)\n", a->cmd, e.msg,
                cp->count);
        host_hint(st.all, argc, argv, variants);
        return KB_EXIT_NO_DEVICE;
    }
    if (rc != KB_OK && !bc.begun) { /* no worker could start: not a usage error */
        close_files(a->cmd, files, nfiles);
        fprintf(stderr, "kbench %s: %s\n(nothing was run)\n", a->cmd, e.msg);
        return KB_EXIT_RUNTIME;
    }
    if (rc != KB_OK) fprintf(stderr, "kbench %s: %s\n", a->cmd, e.msg);
    rc = rc != KB_OK ? KB_EXIT_RUNTIME : KB_OK;
    /* A shard that writes no row (more shards than pairs) still says which
     * shard it is, for merge: its files hold the metadata and the header. A
     * resumed file holds them already, and stays as it was. */
    if (rc == KB_OK && a->opts.shard_count > 0 && shard_rows(rp, cp, variants) == 0)
        for (int i = 0; i < nfiles; i++)
            if (!files[i].p.append && kb_out_file_keep_empty(&files[i], &e) != KB_OK) {
                fprintf(stderr, "kbench %s: %s\n", a->cmd, e.msg);
                rc = KB_EXIT_RUNTIME;
            }
    if (!a->quiet) out.end(&out);
    if (close_files(a->cmd, files, nfiles) != KB_OK) rc = KB_EXIT_RUNTIME;
    return summarise(&st, rp, rc);
}

int kb_cmd_run(int argc, char **argv) {
    run_args a;
    memset(&a, 0, sizeof a);
    a.cmd = argv[0];
    int timing = strcmp(a.cmd, "run") == 0;
    a.opts = (kb_run_opts){
        .mode = KB_MODE_COLD,
        .flush = KB_FLUSH_DEFAULT,
        .rule = {.max_noise = 0.01, .min_samples = 20, .max_time_s = 2.0, .max_samples = 20000},
        .seed = 1,
        .check = 1,
        .timing = timing,
        .isolate = 1,
        .case_timeout_s = 60,
        .host_repeats = 3};
    a.format = KB_FMT_TABLE;
    a.max_cases = -1;
    a.devices.n = 1; /* device 0 */
    kb_case_list cases = {0};
    kb_results done = {0};
    kb_runner runner;
    int have_runner = 0;
    int parsed = parse_args(argc, argv, &a);
    int rc = parsed == KB_OK ? run_parsed(&a, argc, argv, &cases, &done, &runner, &have_runner)
             : parsed == KB_OPTS_HELP ? KB_EXIT_OK
                                      : KB_EXIT_USAGE;
    if (have_runner) kb_runner_free(&runner);
    kb_py_remove_root();
    kb_results_free(&done);
    kb_case_list_free(&cases);
    for (int i = 0; i < a.nspecs; i++) kb_spec_free(&a.specs[i]);
    return rc;
}
