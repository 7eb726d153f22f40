/* cli_compare.c — `kbench compare OLD.csv NEW.csv`: did a change make any
 * case faster or slower, judged with both runs' noise rather than the
 * medians alone, does any row fail or carry no valid time, and did NEW lose
 * any case OLD had? Exit 5 gates CI on a GPU runner. The rule is kb_compare_rows (compare_runs.c,
 * so that tests reach it); the help text states it exactly. Rows are matched by their params'
 * values (kb_params_key), not their text.
 */
#include "cli.h"
#include "cli_opts.h"
#include "compare_runs.h"
#include "page_text.h"

#include "core/format.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct compare_args {
    const char *paths[2];
    int npaths;
    double threshold, max_noise;
    int md, all, allow_removed, kernels;
} compare_args;

const kb_opt kb_compare_opts[] = {
    KB_OPT_DOUBLE("--threshold", "PCT", "changes smaller than PCT % are SAME (default 5)",
                  compare_args, threshold, 0, 1000),
    KB_OPT_DOUBLE("--max-noise", "PCT",
                  "rows noisier than PCT % are UNSURE (default: the threshold)", compare_args,
                  max_noise, 0, 1000),
    KB_OPT_CHOICE("--format", "F", "table (default) or md (Markdown, for a pull request)",
                  compare_args, md, "table|md"),
    KB_OPT_SWITCH("--all", "also list the SAME rows (default: only counted)", compare_args, all),
    KB_OPT_SWITCH("--allow-removed",
                  "rows of OLD that NEW lacks do not fail the gate (NEW ran\n"
                  "fewer cases on purpose); they are still listed",
                  compare_args, allow_removed),
    KB_OPT_CHOICE("--timer", "T",
                  "events (default): judge median_us, p10_us, p90_us; kernels:\n"
                  "judge kernel_us, kernel_p10_us, kernel_p90_us (CUPTI's kernel\n"
                  "time, `run --timer kernels`) where both rows have them; a pair\n"
                  "where either lacks them (an older file, no CUPTI, a host or\n"
                  "Python row) falls back to event time, and a note counts them",
                  compare_args, kernels, "events|kernels"),
    KB_OPT_END,
};

static int compare_path(void *dst, const char *arg, kb_error *e) {
    compare_args *a = dst;
    if (a->npaths == 2) return kb_fail(e, "unexpected argument '%s' (two files: OLD NEW)", arg);
    a->paths[a->npaths++] = arg;
    return KB_OK;
}

static void compare_help(void) {
    fputs("usage: kbench compare OLD.csv NEW.csv [--threshold PCT] [--max-noise PCT]\n"
          "                      [--format table|md] [--all] [--allow-removed]\n"
          "                      [--timer events|kernels]\n\n"
          "Match the rows of two kbench CSVs by (op, variant, params, mode) and judge each.\n"
          "params match by value: each axis=value as the op's axis reads it (iou=0.50 is\n"
          "iou=0.5; order does not matter); an op or axis this build does not know, as text.\n"
          "Verdicts, listed in this order (those marked * make the exit code 5):\n"
          "  BROKEN *        FAIL, ERROR, CRASH, TIMEOUT or NOT_RUN in NEW; PASS,\n"
          "                  UNCHECKED or UNSUPPORTED in OLD, or no row there\n"
          "  STILL FAILING * FAIL, ERROR, CRASH, TIMEOUT or NOT_RUN in both files\n"
          "  INVALID *       a PASS or UNCHECKED row, in either file, whose median_us is\n"
          "                  not a positive finite time (0, negative, nan, inf, empty)\n"
          "  SLOWER *, FASTER, UNSURE, SAME   timing, for rows PASS or UNCHECKED in both\n"
          "  FIXED           FAIL/ERROR/CRASH/TIMEOUT in OLD, PASS or UNCHECKED in NEW\n"
          "  STATUS          any other change of status (e.g. PASS -> UNSUPPORTED)\n"
          "  ADDED           a row in only NEW (that is not one of the above)\n"
          "  REMOVED *       a row in only OLD (that is not one of the above): a NEW run\n"
          "                  cut short, a header alone, a file of another op; not * with\n"
          "                  --allow-removed\n"
          "Timing, from the medians and each row's noise: the spread of its central 80%\n"
          "of samples, (p90 - p10) / (2.563 median), a standard deviation for normal\n"
          "samples that a few outliers do not move (noise_pct, the relative std-dev,\n"
          "where a file has no p10/p90; 0 where it has neither):\n"
          "  delta = new/old - 1     band = 2 * sqrt(noise_old^2 + noise_new^2)\n"
          "  UNSURE   either noise > --max-noise: too noisy to tell a change of that size\n"
          "  SAME     else |delta| <= threshold, or |delta| <= band (inside the noise)\n"
          "  FASTER   else delta < 0\n"
          "  SLOWER   else (delta > 0: beyond both the threshold and the noise)\n"
          "Files whose cold rows were timed with different L2 flushes (--flush; a file\n"
          "without the '# l2 flush:' line flushed by write) get a note above the verdicts:\n"
          "their times differ by the flush as well. Files whose '# gpu:' lines name\n"
          "different GPU models (an H100 and an H200; another UUID of the same model is\n"
          "the same model) get one too, and so do files of which one was timed in turns\n"
          "(run --interleave: its '# interleave:' line) and the other not: their rows pair.\n"
          "A row of a plugin or Python file (its source column) whose file's sha256 in the\n"
          "two headers differs says so in its line: the code behind it changed.\n"
          "A row --force ran past its variant's limit has no time that counts: SAME unless\n"
          "its status changed. Both files need a median_us column.\n\n",
          stdout);
    kb_opts_help(stdout, kb_compare_opts);
    puts("  -h, --help\n"
         "exit codes: 0 no row BROKEN, STILL FAILING, INVALID, SLOWER or REMOVED (REMOVED\n"
         "            rows allowed by --allow-removed); 5 at least one;\n"
         "            2 bad usage, or a file that cannot be read as a kbench CSV or has no\n"
         "            median_us column\n"
         "example:\n"
         "  kbench compare results/baselines/h100/nms.csv results/nms.csv --format md");
}

/* ---- matching and listing ---- */

typedef struct pairing {
    const kb_result *before, *after;
    kb_judgement j;
    kb_change change;
    char code_changed[200]; /* the plugin or Python file behind both rows differs: how */
} pairing;

/* The sha256 file f's header records for source label ("plugin:x.so"); "" if none. */
static void source_hash(const kb_result_file *f, const char *label, char *hex, size_t n) {
    hex[0] = '\0';
    size_t len = strlen(label);
    for (const char *p = f->sources; *p;) {
        size_t line = strcspn(p, "\n");
        if (line > len && strncmp(p, label, len) == 0 && p[len] == ' ')
            snprintf(hex, n, "%.*s", (int)(line - len - 1), p + len + 1);
        p += line;
        if (*p) p++;
    }
}

/* Rows of one plugin or Python file whose code changed between the runs. */
static void note_code_change(const kb_results *res, pairing *p) {
    if (!p->before || !p->after || strcmp(p->before->source, p->after->source) != 0) return;
    const char *label = p->after->source;
    if (strncmp(label, "plugin:", 7) != 0 && strncmp(label, "py:", 3) != 0) return;
    char a[80], b[80];
    source_hash(&res->files[p->before->file], label, a, sizeof a);
    source_hash(&res->files[p->after->file], label, b, sizeof b);
    if (a[0] && b[0] && strcmp(a, b) != 0)
        snprintf(p->code_changed, sizeof p->code_changed, "%s changed (sha256 %.12s -> %.12s)",
                 label, a, b);
}

static int same_key(const kb_result *a, const kb_result *b) {
    return strcmp(a->op, b->op) == 0 && strcmp(a->variant, b->variant) == 0 &&
           strcmp(a->key, b->key) == 0 && strcmp(a->mode, b->mode) == 0;
}

/* The last row of file with r's key (a re-run appended later wins), warning
 * about the earlier ones once. */
static const kb_result *find_key(const kb_results *res, int file, const kb_result *r) {
    const kb_result *found = NULL;
    for (int i = 0; i < res->count; i++) {
        const kb_result *x = &res->rows[i];
        if (x->file != file || !same_key(x, r)) continue;
        found = x;
    }
    return found;
}

static void warn_duplicates(const kb_results *res) {
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        const kb_result *last = find_key(res, r->file, r);
        if (last != r)
            fprintf(stderr,
                    "%s:%d: the same op/variant/params/mode again on line %d: line %d is "
                    "compared\n",
                    res->files[r->file].path, r->line, last->line, last->line);
    }
}

static void fmt_noise(const kb_result *r, char *buf, size_t n) {
    if (r && kb_result_timed(r))
        snprintf(buf, n, "%.1f%%", 100 * kb_result_spread(r));
    else
        snprintf(buf, n, "-");
}

/* A row's time; an invalid one as it was read, so that the listing shows it. */
static void time_cell(const kb_result *r, char *buf, size_t n) {
    if (r && !kb_result_time_valid(r))
        snprintf(buf, n, "%g us", r->median_us);
    else
        kb_format_us(r && kb_result_timed(r) ? r->median_us : 0, buf, n);
}

enum { NCOLS = 8 };

static void print_line(FILE *f, int md, char cells[NCOLS][1200]) {
    static const int widths[NCOLS] = {13, 14, 22, 34, 10, 10, 8, 0};
    for (int i = 0; i < NCOLS; i++) {
        if (md) {
            fputs("| ", f);
            kb_md_text(f, cells[i], 1);
            fputc(' ', f);
        } else {
            fprintf(f, "%-*s ", widths[i], cells[i]);
        }
    }
    fputs(md ? "|\n" : "\n", f);
}

static void print_pairing(FILE *f, int md, const pairing *p) {
    const kb_result *any = p->after ? p->after : p->before;
    char cells[NCOLS][1200], nold[16], nnew[16];
    snprintf(cells[0], sizeof cells[0], "%s", kb_change_name(p->change));
    snprintf(cells[1], sizeof cells[1], "%s", any->op);
    snprintf(cells[2], sizeof cells[2], "%s", any->variant);
    kb_params_short(kb_find_op(any->op), any->params, cells[3], sizeof cells[3]);
    time_cell(p->before, cells[4], sizeof cells[4]);
    time_cell(p->after, cells[5], sizeof cells[5]);
    if (p->j.verdict != KB_VERDICT_UNTIMED)
        snprintf(cells[6], sizeof cells[6], "%+.1f%%", p->j.delta * 100);
    else
        snprintf(cells[6], sizeof cells[6], "-");
    fmt_noise(p->before, nold, sizeof nold);
    fmt_noise(p->after, nnew, sizeof nnew);
    size_t used = (size_t)snprintf(cells[7], sizeof cells[7], "noise %s/%s", nold, nnew);
    if (p->before && p->after && p->before->status != p->after->status)
        used +=
            (size_t)snprintf(cells[7] + used, sizeof cells[7] - used, "; %s -> %s",
                             kb_status_name(p->before->status), kb_status_name(p->after->status));
    else if (p->before && p->after)
        used += (size_t)snprintf(cells[7] + used, sizeof cells[7] - used, "; %s",
                                 kb_status_name(any->status));
    else
        used += (size_t)snprintf(cells[7] + used, sizeof cells[7] - used, "; %s only in %s",
                                 kb_status_name(any->status), p->after ? "NEW" : "OLD");
    for (int side = 0; side < 2; side++) {
        const kb_result *r = side ? p->after : p->before;
        if (r && !kb_result_time_valid(r))
            used += (size_t)snprintf(cells[7] + used, sizeof cells[7] - used,
                                     "; %s median_us %g is not a time", side ? "NEW" : "OLD",
                                     r->median_us);
    }
    if (p->code_changed[0])
        used += (size_t)snprintf(cells[7] + used, sizeof cells[7] - used, "; %s", p->code_changed);
    if (p->after && p->after->reason[0] && !kb_result_timed(p->after))
        snprintf(cells[7] + used, sizeof cells[7] - used, ": %s", p->after->reason);
    print_line(f, md, cells);
}

/* The changes that gate, each said loudly above the table. */
static void print_alarms(FILE *f, int md, const int *counts, int allow_removed) {
    static const struct {
        kb_change change;
        const char *what;
    } alarms[] = {
        {KB_CHANGE_BROKEN, "fail (FAIL/ERROR/CRASH/TIMEOUT) in NEW and did not in OLD"},
        {KB_CHANGE_STILL_FAILING, "fail in both files"},
        {KB_CHANGE_INVALID, "PASS or UNCHECKED without a positive finite median_us"},
        {KB_CHANGE_REMOVED, "in OLD and not in NEW (--allow-removed if NEW ran fewer cases on "
                            "purpose)"},
    };
    int any = 0;
    for (size_t i = 0; i < sizeof alarms / sizeof alarms[0]; i++) {
        int n = counts[alarms[i].change];
        if (!n || !kb_change_gates(alarms[i].change, allow_removed)) continue;
        fprintf(f, "%s%d row(s) %s: %s%s\n", md ? "**" : "!! ", n, kb_change_name(alarms[i].change),
                alarms[i].what, md ? "**  " : " !!");
        any = 1;
    }
    if (any) fputc('\n', f);
}

static void print_report(FILE *f, int md, const pairing *ps, int n, const int *counts,
                         const char *old_path, const char *new_path, double threshold,
                         double max_noise, int all, int allow_removed, const char *flush_old,
                         const char *flush_new, const char *gpus_old, const char *gpus_new,
                         const int *turns) {
    if (md)
        fprintf(f, "### kbench compare\n\n`%s` → `%s` (threshold %.1f%%, max noise %.1f%%)\n\n",
                old_path, new_path, threshold * 100, max_noise * 100);
    else
        fprintf(f, "kbench compare: %s -> %s (threshold %.1f%%, max noise %.1f%%)\n", old_path,
                new_path, threshold * 100, max_noise * 100);
    /* Cold times under two flush kinds differ by the flush (up to 14% on a
     * bandwidth-bound kernel, README "Timing"), not by the code. */
    if (flush_old[0] && flush_new[0] && strcmp(flush_old, flush_new) != 0)
        fprintf(f,
                "%sthe files' cold rows were timed with different L2 flushes (--flush %s, then "
                "%s): a change of their times may be the flush's\n\n",
                md ? "**Note:** " : "note: ", flush_old, flush_new);
    /* Times in turns and one variant at a time are the same measure: the rows
     * pair; only where clock or thermal drift falls differs. */
    if (turns[0] != turns[1])
        fprintf(f,
                "%sinterleave: OLD timed %s, NEW %s (--interleave): the rows compare; a change "
                "may be drift that timing one variant at a time put on one of them\n\n",
                md ? "**Note:** " : "note: ", turns[0] ? "in turns" : "one variant at a time",
                turns[1] ? "in turns" : "one variant at a time");
    /* Another model is another memory system and clock: every time moves. */
    if (gpus_old[0] && gpus_new[0] && strcmp(gpus_old, gpus_new) != 0) {
        fputs(md ? "**Note:** " : "note: ", f);
        fputs("the files were measured on different GPU models (", f);
        if (md) {
            kb_md_text(f, gpus_old, 0);
            fputs(", then ", f);
            kb_md_text(f, gpus_new, 0);
        } else {
            fprintf(f, "%s, then %s", gpus_old, gpus_new);
        }
        fputs("): a change of their times may be the GPU's\n\n", f);
    }
    print_alarms(f, md, counts, allow_removed);
    for (int c = 0, first = 1; c < KB_NCHANGES; c++) {
        if (!counts[c]) continue;
        fprintf(f, "%s%d %s", first ? "" : ", ", counts[c], kb_change_name((kb_change)c));
        first = 0;
    }
    fputs("\n\n", f);
    int shown = 0;
    for (int i = 0; i < n; i++) shown += all || ps[i].change != KB_CHANGE_SAME;
    if (shown) {
        char head[NCOLS][1200] = {"verdict", "op",  "variant", "case",
                                  "old",     "new", "change",  "noise old/new; status"};
        print_line(f, md, head);
        if (md) fputs("|---|---|---|---|---:|---:|---:|---|\n", f);
        for (int c = 0; c < KB_NCHANGES; c++)
            for (int i = 0; i < n; i++)
                if (ps[i].change == (kb_change)c && (all || c != KB_CHANGE_SAME))
                    print_pairing(f, md, &ps[i]);
    }
    if (!all && counts[KB_CHANGE_SAME])
        fprintf(f, "%s%d SAME row(s) not listed (--all lists them)\n", md ? "\n" : "",
                counts[KB_CHANGE_SAME]);
}

static int cmp_model(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* The GPU models a file's '# gpu:' lines name ("NAME (UUID)": the name),
 * each once, sorted and joined by "; ": "" when it names none. Sorted, so
 * that two files of the same models compare equal whatever their order. */
static void file_models(const kb_result_file *file, char *buf, size_t n) {
    char models[16][256];
    int count = 0;
    for (const char *p = file->devices; *p && count < 16;) {
        size_t len = strcspn(p, "\n");
        char m[256];
        snprintf(m, sizeof m, "%.*s", (int)len, p);
        char *uuid = strrchr(m, '(');
        if (uuid && uuid > m && uuid[-1] == ' ') uuid[-1] = '\0';
        int seen = 0;
        for (int i = 0; i < count; i++) seen |= strcmp(models[i], m) == 0;
        if (!seen && m[0]) snprintf(models[count++], sizeof models[0], "%s", m);
        p += len;
        if (*p) p++;
    }
    qsort(models, (size_t)count, sizeof models[0], cmp_model);
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", i ? "; " : "", models[i]);
    }
}

int kb_cmd_compare(int argc, char **argv) {
    compare_args args = {.threshold = 5, .max_noise = -1};
    int rc = kb_opts_parse("compare", kb_compare_opts, &args, argc, argv, compare_path);
    if (rc == KB_OPTS_HELP) {
        compare_help();
        return KB_EXIT_OK;
    }
    if (rc != KB_EXIT_OK) return rc;
    const char **paths = args.paths;
    int npaths = args.npaths, md = args.md, all = args.all, allow_removed = args.allow_removed;
    int kernels = args.kernels;
    double threshold = args.threshold, max_noise = args.max_noise;
    if (npaths < 2) return kb_usage_error("compare", "needs two files: OLD.csv NEW.csv");
    threshold /= 100;
    max_noise = max_noise < 0 ? threshold : max_noise / 100;

    kb_results res = {0};
    kb_error e;
    for (int f = 0; f < 2; f++)
        if (kb_results_read(&res, paths[f], stderr, &e) != KB_OK) {
            kb_results_free(&res);
            fprintf(stderr, "kbench compare: error: %s\n", e.msg);
            return KB_EXIT_USAGE;
        }
    for (int f = 0; f < 2; f++)
        if (!kb_result_file_has_column(&res.files[f], "median_us")) {
            fprintf(stderr,
                    "kbench compare: error: %s: no 'median_us' column: compare judges the "
                    "times of rows, and this file has none\n",
                    paths[f]);
            kb_results_free(&res);
            return KB_EXIT_USAGE;
        }
    warn_duplicates(&res);

    pairing *ps = calloc((size_t)res.count + 1, sizeof *ps);
    if (!ps) {
        kb_results_free(&res);
        fprintf(stderr, "kbench compare: out of host memory\n");
        return KB_EXIT_RUNTIME;
    }
    int n = 0, counts[KB_NCHANGES] = {0}, gates = 0, by_kernels = 0, by_events = 0;
    for (int i = 0; i < res.count; i++) {
        const kb_result *r = &res.rows[i];
        if (find_key(&res, r->file, r) != r) continue; /* an earlier duplicate */
        pairing *p = &ps[n];
        if (r->file == 0) {
            p->before = r;
            p->after = find_key(&res, 1, r);
        } else {
            if (find_key(&res, 0, r)) continue; /* paired from the OLD side */
            p->after = r;
        }
        /* The rows are res's own, each in one pairing: the judged time may replace theirs. */
        if (kernels && p->before && p->after && kb_result_timed(p->before) &&
            kb_result_timed(p->after)) {
            if (kb_use_kernel_time(&res.rows[p->before - res.rows], &res.rows[p->after - res.rows]))
                by_kernels++;
            else
                by_events++;
        }
        p->change = kb_compare_rows(p->before, p->after, threshold, max_noise, &p->j);
        note_code_change(&res, p);
        counts[p->change]++;
        gates += kb_change_gates(p->change, allow_removed);
        n++;
    }
    char gpus[2][1024];
    for (int f = 0; f < 2; f++) file_models(&res.files[f], gpus[f], sizeof gpus[f]);
    int turns[2] = {res.files[0].run.interleave[0] != 0, res.files[1].run.interleave[0] != 0};
    print_report(stdout, md, ps, n, counts, paths[0], paths[1], threshold, max_noise, all,
                 allow_removed, kb_result_file_flushes(&res, 0), kb_result_file_flushes(&res, 1),
                 gpus[0], gpus[1], turns);
    if (kernels)
        printf("%stimer kernels: %d pair(s) judged by kernel time (kernel_us), %d by event time "
               "(median_us: a row without kernel time, from an older file, a run without CUPTI, "
               "a host or a Python variant)\n",
               md ? "\n" : "", by_kernels, by_events);
    free(ps);
    kb_results_free(&res);
    return gates ? KB_EXIT_SLOWER : KB_EXIT_OK;
}
