/* cli_run.c — `kbench run` (check and time) and `kbench check` (correctness
 * only, over a sweep plus --fuzz random cases). Usage errors are found
 * before the device is touched, so they read the same on a machine without one. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
             "--min-samples samples) or --max-time passes. One row per (case, variant).\n");
    puts("cases:\n"
         "  -a AXIS=VALUES      sweep an axis (repeatable); VALUES is v, [a,b,c], [start:end]\n"
         "                      or [start:end:step] (inclusive); AXIS[pow2]=[0:5] is 1..32\n"
         "  --sweep NAME|FILE   a named sweep of the op (kbench list OP) or a file with one\n"
         "                      line of AXIS=VALUES tokens per case; -a overrides its axes\n"
         "                      (default: 'default' for run, 'smoke' for check; with only -a,\n"
         "                      the op's defaults with the -a axes swept). A file must give\n"
         "                      at least one case. Relative paths (image=...): in a FILE,\n"
         "                      from the working directory, else from the FILE's folder; in\n"
         "                      a named sweep, from the source tree; in -a, from the working\n"
         "                      directory\n"
         "  --max-cases N       only the first N cases of each op's sweep (a quick look;\n"
         "                      compute-sanitizer's racecheck)\n"
         "  -v, --variant V,..  only these variants (default: all of the op)\n"
         "  --seed N            inputs are made from this seed (default 1)\n"
         "  --inputs DIR        read the op's inputs from DIR/<name>.npy instead (checked\n"
         "                      against every case's dtype and shape before the device;\n"
         "                      a bf16 tensor from f32 values that are exactly bf16)\n"
         "  --dump DIR          write inputs, reference and each variant's outputs as .npy\n"
         "                      under DIR/case<k>/ (created up front; bf16 as f32; a write\n"
         "                      that fails is said on stderr, rows keep their status)\n"
         "  --device N          CUDA device ordinal (default 0)");
    if (check)
        printf("  --fuzz N            also check N random valid cases per op (default 0; one run\n"
               "                      holds at most %d cases, sweeps included)\n",
               KB_MAX_CASES);
    else
        puts("timing:\n"
             "  --mode M            cold (default: L2 flushed before each sample), hot (back to\n"
             "                      back launches), graph (CUDA graph replay)\n"
             "  --max-noise PCT     stop when the relative std-dev is under PCT %% (default 1)\n"
             "  --min-samples N     ... with at least N samples (default 20)\n"
             "  --max-time S        or after S seconds of sampling per row (default 2)\n"
             "  --no-check          time only: rows say UNCHECKED");
    puts("reliability:\n"
         "  --isolate           (default) run the pairs in worker processes; this process\n"
         "                      holds no CUDA context. A sticky CUDA error (illegal address,\n"
         "                      launch failure) is a CRASH row with the error, a pair past\n"
         "                      --case-timeout a TIMEOUT row (the worker is killed); a new\n"
         "                      worker carries on with the next pair\n"
         "  --no-isolate        everything in this process: after a CRASH, later rows say\n"
         "                      'not run' (for compute-sanitizer, debuggers)\n"
         "  --case-timeout S    seconds one (case, variant) pair may take on the device,\n"
         "                      check and timing included (default 60; 0: no limit)\n"
         "  --force             run int32-index variants on cases their supports() refuses\n"
         "                      (isolated only): see what the limit protects against; the\n"
         "                      row's reason starts with FORCED");
    puts("output:\n"
         "  --format F          stdout as table (default), csv, json (lines) or md\n"
         "  -o FILE             also write FILE (repeatable); format from the extension:\n"
         "                      .csv .json/.jsonl .md .txt\n"
         "  --resume FILE.csv   append to FILE, skipping every (variant, case, mode) row it\n"
         "                      already holds: a killed sweep continues where it stopped\n"
         "                      (a partial last line is cut off first, and said so; rows\n"
         "                      that say 'not run' - the device was lost - are dropped\n"
         "                      and run again)\n"
         "  -q, --quiet         nothing on stdout (with -o)\n"
         "exit codes: 0 every row PASS/UNSUPPORTED/UNCHECKED, 1 a row FAIL/ERROR/CRASH/TIMEOUT,\n"
         "            2 bad usage, 3 no CUDA device, 4 an output could not be written");
}

typedef struct run_args {
    const char *cmd, *opname, *variants, *sweep, *inputs, *dump, *resume;
    kb_spec specs[KB_MAX_AXES];
    int nspecs;
    const char *outputs[8];
    int noutputs, quiet;
    int timeout_given;
    long device, fuzz, max_cases; /* max_cases: -1 for all */
    kb_format format;
    kb_run_opts opts;
} run_args;

static int parse_args(int argc, char **argv, run_args *a) {
    const char *cmd = a->cmd;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        long n;
        double x;
        kb_error e;
        if (kb_is_help(o)) {
            run_help(cmd);
            exit(KB_EXIT_OK);
        } else if (strcmp(o, "-a") == 0 || strcmp(o, "--axis") == 0) {
            if (!v) return kb_usage_error(cmd, "%s needs AXIS=VALUES", o);
            if (a->nspecs == KB_MAX_AXES) return kb_usage_error(cmd, "too many -a options");
            if (kb_spec_parse(v, &a->specs[a->nspecs], &e) != KB_OK)
                return kb_usage_error(cmd, "-a %s: %s", v, e.msg);
            a->nspecs++;
        } else if (strcmp(o, "-v") == 0 || strcmp(o, "--variant") == 0) {
            a->variants = v;
        } else if (strcmp(o, "--sweep") == 0) {
            a->sweep = v;
        } else if (strcmp(o, "--inputs") == 0) {
            a->opts.inputs_dir = v;
        } else if (strcmp(o, "--dump") == 0) {
            a->opts.dump_dir = v;
        } else if (strcmp(o, "-o") == 0 || strcmp(o, "--output") == 0) {
            if (a->noutputs == 8) return kb_usage_error(cmd, "at most 8 -o files");
            a->outputs[a->noutputs++] = v;
        } else if (strcmp(o, "--resume") == 0) {
            a->resume = v;
        } else if (strcmp(o, "--format") == 0) {
            if (!v || kb_format_parse(v, &a->format) != KB_OK)
                return kb_usage_error(cmd, "--format %s: expected table, csv, json or md",
                                      v ? v : "(missing)");
        } else if (strcmp(o, "--mode") == 0 && a->opts.timing) {
            if (!v || kb_mode_parse(v, &a->opts.mode) != KB_OK)
                return kb_usage_error(cmd, "--mode %s: expected cold, hot or graph",
                                      v ? v : "(missing)");
        } else if (strcmp(o, "--max-noise") == 0 && a->opts.timing) {
            if (kb_opt_double(cmd, o, v, 0, 100, &x) != KB_OK) return KB_EXIT_USAGE;
            a->opts.rule.max_noise = x / 100;
        } else if (strcmp(o, "--min-samples") == 0 && a->opts.timing) {
            if (kb_opt_int(cmd, o, v, 1, a->opts.rule.max_samples, &n) != KB_OK)
                return KB_EXIT_USAGE;
            a->opts.rule.min_samples = (int)n;
        } else if (strcmp(o, "--max-time") == 0 && a->opts.timing) {
            if (kb_opt_double(cmd, o, v, 0, 3600, &x) != KB_OK) return KB_EXIT_USAGE;
            a->opts.rule.max_time_s = x;
        } else if (strcmp(o, "--seed") == 0) {
            if (kb_opt_int(cmd, o, v, 0, 0x7FFFFFFFL, &n) != KB_OK) return KB_EXIT_USAGE;
            a->opts.seed = (uint64_t)n;
        } else if (strcmp(o, "--device") == 0) {
            if (kb_opt_int(cmd, o, v, 0, 1023, &a->device) != KB_OK) return KB_EXIT_USAGE;
        } else if (strcmp(o, "--max-cases") == 0) {
            if (kb_opt_int(cmd, o, v, 0, 0x7FFFFFFFL, &a->max_cases) != KB_OK) return KB_EXIT_USAGE;
        } else if (strcmp(o, "--fuzz") == 0 && !a->opts.timing) {
            if (kb_opt_int(cmd, o, v, 0, KB_MAX_CASES, &a->fuzz) != KB_OK) return KB_EXIT_USAGE;
        } else if (strcmp(o, "--no-check") == 0 && a->opts.timing) {
            a->opts.check = 0;
            takes = 0;
        } else if (strcmp(o, "--isolate") == 0 || strcmp(o, "--no-isolate") == 0) {
            a->opts.isolate = strcmp(o, "--isolate") == 0;
            takes = 0;
        } else if (strcmp(o, "--case-timeout") == 0) {
            if (kb_opt_double(cmd, o, v, 0, 86400, &x) != KB_OK) return KB_EXIT_USAGE;
            a->opts.case_timeout_s = x;
            a->timeout_given = 1;
        } else if (strcmp(o, "--force") == 0) {
            a->opts.force = 1;
            takes = 0;
        } else if (strcmp(o, "-q") == 0 || strcmp(o, "--quiet") == 0) {
            a->quiet = 1;
            takes = 0;
        } else if (o[0] == '-') {
            return kb_usage_error(cmd, "unknown option '%s'", o);
        } else if (a->opname) {
            return kb_usage_error(cmd, "unexpected argument '%s' (one OP, or all)", o);
        } else {
            a->opname = o;
            takes = 0;
        }
        if (takes) {
            if (!v) return kb_usage_error(cmd, "%s needs a value", o);
            i++;
        }
    }
    if (!a->opname) return kb_usage_error(cmd, "which op? (kbench list shows them)");
    if (!a->opts.isolate && a->opts.force)
        return kb_usage_error(cmd, "--force needs isolation: a forced variant may fault (drop "
                                   "--no-isolate)");
    if (!a->opts.isolate && a->timeout_given)
        return kb_usage_error(cmd, "--case-timeout needs isolation: only a worker process can "
                                   "be killed (drop --no-isolate)");
    return KB_OK;
}

/* The variants of op named in a comma list (all of the op when list is NULL;
 * test-only variants only by name). */
static int select_variants(const char *cmd, const kb_op *op, const char *list,
                           const kb_variant **out, int *n, int cap) {
    if (!list) {
        for (int i = 0; kb_variants[i].op; i++)
            if (strcmp(kb_variants[i].op, op->name) == 0 &&
                !(kb_variants[i].flags & KB_TEST_ONLY)) {
                if (*n + 1 >= cap) return kb_usage_error(cmd, "too many variants");
                out[(*n)++] = &kb_variants[i];
            }
        return KB_OK;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const kb_variant *v = kb_find_variant(op->name, name);
        if (!v) {
            char all[512] = "";
            for (int i = 0; kb_variants[i].op; i++)
                if (strcmp(kb_variants[i].op, op->name) == 0) {
                    strncat(all, all[0] ? ", " : "", sizeof all - strlen(all) - 1);
                    strncat(all, kb_variants[i].name, sizeof all - strlen(all) - 1);
                }
            return kb_usage_error(cmd, "op %s has no variant '%s' (variants: %s)", op->name, name,
                                  all);
        }
        if (*n + 1 >= cap) return kb_usage_error(cmd, "too many variants");
        out[(*n)++] = v;
    }
    return KB_OK;
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

/* A run killed mid-row leaves a partial last line: cut the file back to its
 * last complete line. Returns the bytes dropped, or -1 on an I/O error. */
static long repair_last_line(const char *path) {
    FILE *f = fopen(path, "r+");
    if (!f) return -1;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1, keep = size;
    int c = 0;
    while (keep > 0 && fseek(f, keep - 1, SEEK_SET) == 0 && (c = fgetc(f)) != '\n') keep--;
    fclose(f);
    if (size < 0) return -1;
    if (keep == size) return 0;
    return truncate(path, keep) == 0 ? size - keep : -1;
}

/* A row that holds no result: ERROR, its reason beginning KB_NOT_RUN (bare
 * or quoted in the CSV). */
static int is_not_run_line(const char *line) {
    return strstr(line, ",ERROR," KB_NOT_RUN) || strstr(line, ",ERROR,\"" KB_NOT_RUN);
}

/* Drops the data lines of rows that were not run, so that --resume runs them
 * again instead of keeping a placeholder. Returns the lines dropped, -1 on an
 * I/O error (the file is left as it was). */
static long drop_not_run(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.resume-tmp", path);
    FILE *out = NULL;
    long dropped = 0, pass = 0;
    char *line = NULL;
    size_t cap = 0;
    /* Pass 0 counts; pass 1 (only when something is dropped) writes the rest. */
    for (pass = 0; pass < 2; pass++) {
        rewind(f);
        while (getline(&line, &cap, f) > 0) {
            int drop = line[0] != '#' && is_not_run_line(line);
            if (pass == 0)
                dropped += drop;
            else if (!drop && fputs(line, out) == EOF)
                break;
        }
        if (pass == 0 && dropped == 0) break;
        if (pass == 0 && !(out = fopen(tmp, "w"))) break;
    }
    free(line);
    fclose(f);
    if (dropped == 0) return 0;
    int ok = out && !ferror(out);
    if (out && fclose(out) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return dropped;
}

static int resume_done(void *ctx, const kb_variant *v, const char *params, kb_mode mode) {
    const kb_results *res = ctx;
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        if (strcmp(r->variant, v->name) == 0 && strcmp(r->op, v->op) == 0 &&
            strcmp(r->mode, kb_mode_name(mode)) == 0 && strcmp(r->params, params) == 0)
            return 1;
    }
    return 0;
}

/* Opens the --resume file for appending (creating it when new) and reads the
 * rows it holds. */
static int open_resume(const char *cmd, const char *path, kb_results *res, kb_printer *p) {
    int exists = access(path, F_OK) == 0;
    if (exists) {
        long cut = repair_last_line(path);
        if (cut < 0)
            return kb_usage_error(cmd, "--resume %s: cannot repair: %s", path, strerror(errno));
        if (cut > 0)
            fprintf(stderr, "kbench %s: %s: dropped a partial last line (%ld bytes)\n", cmd, path,
                    cut);
        long not_run = drop_not_run(path);
        if (not_run < 0)
            return kb_usage_error(cmd, "--resume %s: cannot drop 'not run' rows: %s", path,
                                  strerror(errno));
        if (not_run > 0)
            fprintf(stderr, "kbench %s: %s: dropped %ld 'not run' row(s): they run again\n", cmd,
                    path, not_run);
        kb_error e;
        if (kb_results_read(res, path, stderr, &e) != KB_OK)
            return kb_usage_error(cmd, "--resume %s: %s", path, e.msg);
    }
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "kbench %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        return KB_EXIT_RUNTIME;
    }
    kb_printer_init(p, KB_FMT_CSV, f);
    p->own_file = 1;
    p->append = exists;
    return KB_OK;
}

/* The printers' headers need the device: called once it is open (in this
 * process, or in the first worker when isolated). */
typedef struct begin_ctx {
    int argc;
    char **argv;
    kb_runner *r;
    kb_device dev;
    kb_meta meta;
    int begun;
} begin_ctx;

static void begin_printers(void *ctx, const kb_device *dev, int sm_clock_now_mhz) {
    begin_ctx *bc = ctx;
    if (dev != &bc->dev) bc->dev = *dev;
    kb_meta_init(&bc->meta, &bc->dev, bc->argc, bc->argv);
    bc->meta.sm_clock_now_mhz = sm_clock_now_mhz;
    for (int i = 0; i < bc->r->nprinters; i++)
        bc->r->printers[i]->begin(bc->r->printers[i], &bc->meta);
    bc->begun = 1;
}

int kb_cmd_run(int argc, char **argv) {
    run_args a;
    memset(&a, 0, sizeof a);
    a.cmd = argv[0];
    int timing = strcmp(a.cmd, "run") == 0;
    a.opts = (kb_run_opts){
        .mode = KB_MODE_COLD,
        .rule = {.max_noise = 0.01, .min_samples = 20, .max_time_s = 2.0, .max_samples = 20000},
        .seed = 1,
        .check = 1,
        .timing = timing,
        .isolate = 1,
        .case_timeout_s = 60};
    a.format = KB_FMT_TABLE;
    a.max_cases = -1;
    int rc = parse_args(argc, argv, &a);
    if (rc != KB_OK) return KB_EXIT_USAGE;

    /* Cases and variants, all before the device is touched. */
    kb_case_list cases = {0};
    const kb_variant *variants[512];
    int nvar = 0;
    int all = strcmp(a.opname, "all") == 0;
    if (!all && !kb_find_op(a.opname)) {
        char names[512] = "";
        for (int i = 0; kb_ops[i]; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, kb_ops[i]->name, sizeof names - strlen(names) - 1);
        }
        return kb_usage_error(a.cmd, "unknown op '%s' (ops: %s, or all)", a.opname, names);
    }
    int fuzzed = 0, fuzz_ops = 0;
    for (int i = 0; kb_ops[i]; i++)
        fuzz_ops += (all || strcmp(kb_ops[i]->name, a.opname) == 0) && kb_ops[i]->fuzz_case;
    if (a.fuzz * fuzz_ops > KB_MAX_CASES)
        return kb_usage_error(a.cmd,
                              "--fuzz %ld: %d ops x %ld random cases pass the %d cases one run "
                              "holds (at most %d per op here, less the sweeps' cases)",
                              a.fuzz, fuzz_ops, a.fuzz, KB_MAX_CASES, KB_MAX_CASES / fuzz_ops);
    for (int i = 0; kb_ops[i]; i++) {
        const kb_op *op = kb_ops[i];
        if (!all && strcmp(op->name, a.opname) != 0) continue;
        if (select_variants(a.cmd, op, a.variants, variants, &nvar, 512) != KB_OK)
            return KB_EXIT_USAGE;
        const char *sweep = a.sweep ? a.sweep : (a.nspecs ? NULL : timing ? "default" : "smoke");
        kb_error e;
        int first = cases.count;
        int erc = sweep ? kb_expand_sweep(op, sweep, a.specs, a.nspecs, &cases, &e)
                        : kb_expand_line(op, "", a.specs, a.nspecs, &cases, &e);
        if (erc != KB_OK) return kb_usage_error(a.cmd, "%s: %s", op->name, e.msg);
        if (a.max_cases >= 0 && cases.count - first > a.max_cases)
            cases.count = first + (int)a.max_cases;
        int added = 0;
        if (add_fuzz_cases(op, a.fuzz, a.opts.seed, &cases, &added, &e) != KB_OK)
            return kb_usage_error(a.cmd, "%s", e.msg);
        fuzzed += added;
    }
    variants[nvar] = NULL;
    kb_error de;
    if (kb_runner_check_dirs(&a.opts, &cases, &de) != KB_OK)
        return kb_usage_error(a.cmd, "%s", de.msg);

    /* Printers: stdout, each -o file and the --resume file. */
    kb_printer printers[10];
    int np = 0;
    kb_results done = {0};
    if (a.resume) {
        int orc = open_resume(a.cmd, a.resume, &done, &printers[np]);
        if (orc != KB_OK) return orc;
        np++;
    }
    if (!a.quiet) kb_printer_init(&printers[np++], a.format, stdout);
    for (int i = 0; i < a.noutputs; i++) {
        FILE *f = fopen(a.outputs[i], "w");
        if (!f) {
            fprintf(stderr, "kbench %s: cannot write %s: ", a.cmd, a.outputs[i]);
            perror(NULL);
            return KB_EXIT_RUNTIME;
        }
        kb_printer_init(&printers[np], kb_format_from_path(a.outputs[i], KB_FMT_CSV), f);
        printers[np++].own_file = 1;
    }

    kb_runner runner;
    kb_error e;
    a.opts.progress = isatty(2);
    if (kb_runner_init(&runner, &a.opts, &e) != KB_OK) {
        fprintf(stderr, "kbench %s: %s\n", a.cmd, e.msg);
        return KB_EXIT_RUNTIME;
    }
    if (a.resume) {
        runner.already_done = resume_done;
        runner.done_ctx = &done;
    }
    if (kb_runner_plan(&runner, &cases, variants, &e) != KB_OK) {
        fprintf(stderr, "kbench %s: %s\n", a.cmd, e.msg);
        return KB_EXIT_RUNTIME;
    }
    for (int i = 0; i < np; i++) runner.printers[runner.nprinters++] = &printers[i];

    begin_ctx bc = {.argc = argc + 1, .argv = argv - 1, .r = &runner};
    if (a.opts.isolate) {
        rc = kb_isolated_run(&runner, (int)a.device, begin_printers, &bc, &e);
    } else {
        rc = kb_device_open((int)a.device, &bc.dev, &e);
        if (rc == KB_OK && timing && kb_device_peaks(&bc.dev, 0, &e) != KB_OK)
            fprintf(stderr, "kbench: peaks not measured (%s): %% columns are 0\n", e.msg);
        if (rc == KB_OK) {
            begin_printers(&bc, &bc.dev, kb_device_sm_clock_now(&bc.dev));
            rc = kb_runner_attach(&runner, &bc.dev, &e);
        }
        if (rc == KB_OK) kb_runner_run(&runner, 0);
    }
    if (rc == KB_NO_DEVICE) {
        fprintf(stderr, "kbench %s: %s\n(%d case(s) were valid; nothing was run)\n", a.cmd, e.msg,
                cases.count);
        return KB_EXIT_NO_DEVICE;
    }
    if (rc != KB_OK && !bc.begun) return kb_usage_error(a.cmd, "%s", e.msg); /* --device N */
    if (rc != KB_OK) fprintf(stderr, "kbench %s: %s\n", a.cmd, e.msg);
    rc = rc != KB_OK ? KB_EXIT_RUNTIME : KB_OK;
    for (int i = 0; i < np; i++) {
        printers[i].end(&printers[i]);
        if (printers[i].own_file && fclose(printers[i].f) != 0) rc = KB_EXIT_RUNTIME;
    }
    const int *n = runner.counts;
    int bad = n[KB_ROW_FAIL] + n[KB_ROW_ERROR] + n[KB_ROW_CRASH] + n[KB_ROW_TIMEOUT];
    fprintf(a.quiet ? stderr : stdout,
            "\n%d case(s)%s, %d row(s): %d PASS, %d FAIL, %d UNSUPPORTED, %d ERROR, %d CRASH, "
            "%d TIMEOUT, %d UNCHECKED%s\n",
            cases.count, fuzzed ? " (incl. fuzzed)" : "",
            n[KB_ROW_PASS] + n[KB_ROW_FAIL] + n[KB_ROW_UNSUPPORTED] + n[KB_ROW_ERROR] +
                n[KB_ROW_CRASH] + n[KB_ROW_TIMEOUT] + n[KB_ROW_UNCHECKED],
            n[KB_ROW_PASS], n[KB_ROW_FAIL], n[KB_ROW_UNSUPPORTED], n[KB_ROW_ERROR], n[KB_ROW_CRASH],
            n[KB_ROW_TIMEOUT], n[KB_ROW_UNCHECKED],
            runner.skipped_na ? " (variant/case pairs of another function of the op skipped)" : "");
    if (a.resume)
        fprintf(a.quiet ? stderr : stdout, "%d row(s) were already in %s: not run again\n",
                runner.resumed, a.resume);
    kb_results_free(&done);
    kb_runner_free(&runner);
    kb_case_list_free(&cases);
    for (int i = 0; i < a.nspecs; i++) kb_spec_free(&a.specs[i]);
    if (rc == KB_EXIT_RUNTIME) return rc;
    return bad ? KB_EXIT_FAILED : KB_EXIT_OK;
}
