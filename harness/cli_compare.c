/* cli_compare.c — `kbench compare OLD.csv NEW.csv`: did a change make any
 * case faster or slower, judged with both runs' noise rather than the
 * medians alone, and did any row stop passing? Exit 5 gates CI on a GPU
 * runner. The rule is kb_judge_timing (csv_read.c, so that tests reach it);
 * the help text states it exactly. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void compare_help(void) {
    puts("usage: kbench compare OLD.csv NEW.csv [--threshold PCT] [--max-noise PCT]\n"
         "                      [--format table|md] [--all]\n\n"
         "Match the rows of two kbench CSVs by (op, variant, params, mode) and judge each.\n"
         "Timing, for rows PASS or UNCHECKED in both files, from the medians and the noise\n"
         "(relative std-dev of the samples, the noise_pct column; 0 where a file has none):\n"
         "  delta = new/old - 1     band = 2 * sqrt(noise_old^2 + noise_new^2)\n"
         "  UNSURE   either noise > --max-noise: too noisy to tell a change of that size\n"
         "  SAME     else |delta| <= threshold, or |delta| <= band (inside the noise)\n"
         "  FASTER   else delta < 0\n"
         "  SLOWER   else (delta > 0: beyond both the threshold and the noise)\n"
         "Status: a row PASS (or UNCHECKED) in OLD that is FAIL, ERROR, CRASH or TIMEOUT in\n"
         "NEW is reported first and loudly; other status changes are listed. Rows in only\n"
         "one file are ADDED or REMOVED.\n\n"
         "  --threshold PCT   changes smaller than PCT % are SAME (default 5)\n"
         "  --max-noise PCT   rows noisier than PCT % are UNSURE (default: the threshold)\n"
         "  --format F        table (default) or md (Markdown, for a pull request)\n"
         "  --all             also list the SAME rows (default: only counted)\n"
         "  -h, --help\n"
         "exit codes: 0 nothing slower, nothing broken; 5 a row SLOWER, or a row that\n"
         "            passed now FAILs/ERRORs/CRASHes/TIMEOUTs; 2 bad usage or a file that\n"
         "            cannot be read as a kbench CSV\n"
         "example:\n"
         "  kbench compare results/baselines/h100/nms.csv results/nms.csv --format md");
}

/* ---- matching and listing ---- */

/* Listing order: what gates first, what is the same last. */
typedef enum category {
    CAT_BROKEN,
    CAT_SLOWER,
    CAT_FASTER,
    CAT_UNSURE,
    CAT_STATUS,
    CAT_ADDED,
    CAT_REMOVED,
    CAT_SAME,
    NCATEGORIES
} category;

static const char *const category_names[NCATEGORIES] = {"BROKEN", "SLOWER", "FASTER",  "UNSURE",
                                                        "STATUS", "ADDED",  "REMOVED", "SAME"};

typedef struct pairing {
    const kb_result *before, *after;
    kb_judgement j;
    category cat;
} pairing;

static int same_key(const kb_result *a, const kb_result *b) {
    return strcmp(a->op, b->op) == 0 && strcmp(a->variant, b->variant) == 0 &&
           strcmp(a->params, b->params) == 0 && strcmp(a->mode, b->mode) == 0;
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

static category categorise(const kb_result *before, const kb_result *after, kb_judgement *j,
                           double threshold, double max_noise) {
    if (!before) return CAT_ADDED;
    if (!after) return CAT_REMOVED;
    *j = kb_judge_timing(before, after, threshold, max_noise);
    if (kb_status_regressed(before->status, after->status)) return CAT_BROKEN;
    if (j->verdict == KB_VERDICT_SLOWER) return CAT_SLOWER;
    if (j->verdict == KB_VERDICT_FASTER) return CAT_FASTER;
    if (j->verdict == KB_VERDICT_UNSURE) return CAT_UNSURE;
    if (before->status != after->status) return CAT_STATUS;
    return CAT_SAME;
}

static void fmt_noise(const kb_result *r, char *buf, size_t n) {
    if (r && kb_result_timed(r) && r->noise_pct >= 0)
        snprintf(buf, n, "%.1f%%", r->noise_pct);
    else
        snprintf(buf, n, "-");
}

enum { NCOLS = 8 };

static void print_line(FILE *f, int md, char cells[NCOLS][1200]) {
    static const int widths[NCOLS] = {8, 14, 22, 34, 10, 10, 8, 0};
    for (int i = 0; i < NCOLS; i++) {
        if (md) {
            for (char *c = cells[i]; *c; c++)
                if (*c == '|') *c = '/';
            fprintf(f, "| %s ", cells[i]);
        } else {
            fprintf(f, "%-*s ", widths[i], cells[i]);
        }
    }
    fputs(md ? "|\n" : "\n", f);
}

static void print_pairing(FILE *f, int md, const pairing *p) {
    const kb_result *any = p->after ? p->after : p->before;
    char cells[NCOLS][1200], told[32], tnew[32], nold[16], nnew[16];
    snprintf(cells[0], sizeof cells[0], "%s", category_names[p->cat]);
    snprintf(cells[1], sizeof cells[1], "%s", any->op);
    snprintf(cells[2], sizeof cells[2], "%s", any->variant);
    kb_params_short(kb_find_op(any->op), any->params, cells[3], sizeof cells[3]);
    kb_format_us(p->before && kb_result_timed(p->before) ? p->before->median_us : 0, told,
                 sizeof told);
    kb_format_us(p->after && kb_result_timed(p->after) ? p->after->median_us : 0, tnew,
                 sizeof tnew);
    snprintf(cells[4], sizeof cells[4], "%s", told);
    snprintf(cells[5], sizeof cells[5], "%s", tnew);
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
    else if (!p->after || !p->before)
        used += (size_t)snprintf(cells[7] + used, sizeof cells[7] - used, "; %s",
                                 kb_status_name(any->status));
    if (p->after && p->after->reason[0] && !kb_result_timed(p->after))
        snprintf(cells[7] + used, sizeof cells[7] - used, ": %s", p->after->reason);
    print_line(f, md, cells);
}

static void print_report(FILE *f, int md, const pairing *ps, int n, const int *counts,
                         const char *old_path, const char *new_path, double threshold,
                         double max_noise, int all) {
    if (md)
        fprintf(f, "### kbench compare\n\n`%s` → `%s` (threshold %.1f%%, max noise %.1f%%)\n\n",
                old_path, new_path, threshold * 100, max_noise * 100);
    else
        fprintf(f, "kbench compare: %s -> %s (threshold %.1f%%, max noise %.1f%%)\n", old_path,
                new_path, threshold * 100, max_noise * 100);
    if (counts[CAT_BROKEN])
        fprintf(f, "%s%d row(s) went from PASS to FAIL/ERROR/CRASH/TIMEOUT%s\n\n",
                md ? "**" : "!! ", counts[CAT_BROKEN], md ? "**" : " !!");
    for (int c = 0, first = 1; c < NCATEGORIES; c++) {
        if (!counts[c]) continue;
        fprintf(f, "%s%d %s", first ? "" : ", ", counts[c], category_names[c]);
        first = 0;
    }
    fputs("\n\n", f);
    int shown = 0;
    for (int i = 0; i < n; i++) shown += all || ps[i].cat != CAT_SAME;
    if (shown) {
        char head[NCOLS][1200] = {"verdict", "op",  "variant", "case",
                                  "old",     "new", "change",  "noise old/new; status"};
        print_line(f, md, head);
        if (md) fputs("|---|---|---|---|---:|---:|---:|---|\n", f);
        for (int c = 0; c < NCATEGORIES; c++)
            for (int i = 0; i < n; i++)
                if (ps[i].cat == (category)c && (all || c != CAT_SAME))
                    print_pairing(f, md, &ps[i]);
    }
    if (!all && counts[CAT_SAME])
        fprintf(f, "%s%d SAME row(s) not listed (--all lists them)\n", md ? "\n" : "",
                counts[CAT_SAME]);
}

int kb_cmd_compare(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL};
    double threshold = 5, max_noise = -1;
    int md = 0, all = 0, npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (kb_is_help(o)) {
            compare_help();
            return KB_EXIT_OK;
        } else if (strcmp(o, "--threshold") == 0) {
            if (kb_opt_double("compare", o, v, 0, 1000, &threshold) != KB_OK) return KB_EXIT_USAGE;
            i++;
        } else if (strcmp(o, "--max-noise") == 0) {
            if (kb_opt_double("compare", o, v, 0, 1000, &max_noise) != KB_OK) return KB_EXIT_USAGE;
            i++;
        } else if (strcmp(o, "--format") == 0) {
            if (!v || (strcmp(v, "table") != 0 && strcmp(v, "md") != 0))
                return kb_usage_error("compare", "--format %s: expected table or md",
                                      v ? v : "(missing)");
            md = strcmp(v, "md") == 0;
            i++;
        } else if (strcmp(o, "--all") == 0) {
            all = 1;
        } else if (o[0] == '-' && o[1]) {
            return kb_usage_error("compare", "unknown option '%s'", o);
        } else if (npaths == 2) {
            return kb_usage_error("compare", "unexpected argument '%s' (two files: OLD NEW)", o);
        } else {
            paths[npaths++] = o;
        }
    }
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
    warn_duplicates(&res);

    pairing *ps = calloc((size_t)res.count + 1, sizeof *ps);
    if (!ps) {
        kb_results_free(&res);
        fprintf(stderr, "kbench compare: out of host memory\n");
        return KB_EXIT_RUNTIME;
    }
    int n = 0, counts[NCATEGORIES] = {0};
    for (int i = 0; i < res.count; i++) {
        const kb_result *r = &res.rows[i];
        if (find_key(&res, r->file, r) != r) continue; /* an earlier duplicate */
        pairing *p = &ps[n];
        p->j = (kb_judgement){KB_VERDICT_UNTIMED, NAN, NAN};
        if (r->file == 0) {
            p->before = r;
            p->after = find_key(&res, 1, r);
        } else {
            if (find_key(&res, 0, r)) continue; /* paired from the OLD side */
            p->after = r;
        }
        p->cat = categorise(p->before, p->after, &p->j, threshold, max_noise);
        counts[p->cat]++;
        n++;
    }
    print_report(stdout, md, ps, n, counts, paths[0], paths[1], threshold, max_noise, all);
    free(ps);
    kb_results_free(&res);
    return counts[CAT_BROKEN] || counts[CAT_SLOWER] ? KB_EXIT_SLOWER : KB_EXIT_OK;
}
