/* cli_report.c — `kbench report RESULTS.csv... [-o DIR]`: DIR/report.md and
 * DIR/report.html (self-contained: plots inline as base64 SVG/PNG, no
 * network) that settle the design decision per op: the fastest correct
 * variant per case with its noise, its speedup over the op's baseline and
 * over each peer, the runner-up and the workspace it costs; the plots of
 * `kbench plot`; int64-vs-int32 and other-semantics (fast NMS) tables where
 * the op has such variants; where host rows ran, CPU or GPU per case and
 * the size where the winner changes (host_device.h); the runs the rows came
 * from; and every row that did not pass, with its reason. The page opens on
 * the decision across ops (write_decision), so that the answer is on the
 * first screen and the detail below it. Both pages are written by one set
 * of doc_* calls, so they say the same; DIR/summary.md is the excerpt a
 * README shows (write_summary).
 */
#include "cli.h"
#include "cli_opts.h"
#include "compare_runs.h"
#include "host_device.h"
#include "page_text.h"
#include "plot.h"

#include "core/format.h"
#include "core/files.h" /* kb_make_dirs */

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* plot's arguments first: kb_plot_args_add_file is handed the whole struct. */
typedef struct report_args {
    kb_plot_args p;
    int kernels; /* --timer kernels */
} report_args;

const kb_opt kb_report_opts[] = {
    KB_OPT_STRING("-o, --output", "DIR", "where the pages and plots go (default report/; created)",
                  report_args, p.o.dir),
    KB_OPT_CHOICE("--timer", "T",
                  "events (default): rank by median_us, the CUDA events' time;\n"
                  "kernels: by kernel_us (CUPTI's kernel time, `run --timer\n"
                  "kernels`) where a row has it, else by its event time; the\n"
                  "page says which, and how many rows had none",
                  report_args, kernels, "events|kernels"),
    KB_OPT_END,
};

static void report_help(void) {
    fputs("usage: kbench report RESULTS.csv... [-o DIR] [--timer events|kernels]\n\n"
          "Write DIR/report.md and DIR/report.html (one page, plots embedded, viewable\n"
          "offline) from kbench CSVs and peers' CSVs (peer:* rows). The page opens on the\n"
          "decision, one table across ops: per op and case the variant to ship (the fastest\n"
          "of ours that PASSed), its median, and its time ratio to the fastest peer that\n"
          "PASSed the same check and to the fastest peer that ran (one that did not PASS\n"
          "named with why; an unchecked one only where no checked one ran). Then where the\n"
          "rows come from: one line when every file names one device and one commit, else\n"
          "a warning before the table and each file's device, commit and command under it\n"
          "(folded in the HTML page). Then per op and timing mode:\n"
          "  - where the variants come from, when a row came from outside the tree: the\n"
          "    built-in table, each plugin, each Python file (the source column);\n"
          "  - which variant to ship: per case the fastest variant that PASSed its check\n"
          "    (a plugin's or Python file's named with its source),\n"
          "    its median time +- noise, its speedup over the op's baseline and over each\n"
          "    peer on the same case, its workspace, and the runner-up;\n"
          "  - int64 against int32 indexing (*_i64 vs *_i32 twins) and variants of other\n"
          "    semantics (nms pairwise_fast: time saved, boxes lost) where the op has them;\n"
          "  - CPU or GPU, where host rows ran (KB_HOST variants, `where` host): per case\n"
          "    the fastest host and the fastest device variant that PASSed and which wins\n"
          "    by how much; along the axis that joins the most cases, the size where the\n"
          "    winner changes (or that one wins at every size); the cpu_vs_gpu plot;\n"
          "  - the plots of `kbench plot` (time, speedup, roofline, workspace, ...);\n"
          "  - every row that did not PASS, with its status and reason.\n"
          "Last, when the files share one device and commit: the runs, each file's device,\n"
          "driver, clocks, peaks, commit, command and time.\n"
          "DIR/summary.md is the short form for a README: it opens on the same decision\n"
          "table, then per op its time and speedup plots and one line per case (the variant\n"
          "to ship, its time, its speedup over the baseline and over the fastest peer that\n"
          "ran (one that FAILed its check named with why), its workspace), and for ops with\n"
          "host rows one CPU-or-GPU line.\n\n",
          stdout);
    kb_opts_help(stdout, kb_report_opts);
    puts("  -h, --help\n"
         "exit codes: 0 written; 2 bad usage or an unreadable CSV; 4 a file could not be\n"
         "            written, gnuplot failed, or gnuplot is not on PATH (the pages are\n"
         "            written without plots; the scripts are in DIR)\n"
         "example:\n"
         "  kbench report results/baselines/h200/*.csv -o results/baselines/h200/report\n"
         "  scripts/report-screenshot.sh results/baselines/h200/report   # its first screen");
}

/* ---- one document, two pages ---- */

typedef struct doc {
    FILE *md, *html;
} doc;

enum { CELL = 1400 };

static void doc_heading(doc *d, int level, const char *text) {
    fprintf(d->md, "\n%.*s ", level, "######");
    kb_md_text(d->md, text, 0);
    fputs("\n\n", d->md);
    fprintf(d->html, "<h%d>", level);
    kb_html_text(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

static void doc_para(doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void doc_para(doc *d, const char *fmt, ...) {
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    kb_md_text(d->md, text, 0);
    fputs("\n\n", d->md);
    fputs("<p>", d->html);
    kb_html_text(d->html, text);
    fputs("</p>\n", d->html);
}

static void doc_row(doc *d, int n, char cells[][CELL], int header) {
    fputs("|", d->md);
    for (int i = 0; i < n; i++) {
        fputc(' ', d->md);
        kb_md_text(d->md, cells[i], 1);
        fputs(" |", d->md);
    }
    fputs("\n", d->md);
    if (header) {
        fputs("|", d->md);
        for (int i = 0; i < n; i++) fputs("---|", d->md);
        fputs("\n", d->md);
    }
    if (!d->html) return;
    fputs("<tr>", d->html);
    for (int i = 0; i < n; i++) {
        fputs(header ? "<th>" : "<td>", d->html);
        kb_html_text(d->html, cells[i]);
        fputs(header ? "</th>" : "</td>", d->html);
    }
    fputs("</tr>\n", d->html);
}

/* A table whose HTML element has class `cls` (one of the page's style's;
 * NULL for none). The table calls take a doc without an HTML page too
 * (html NULL): summary.md's tables are the report's. */
static void doc_table_begin_as(doc *d, int n, const char *const *head, const char *cls) {
    char cells[16][CELL];
    for (int i = 0; i < n; i++) snprintf(cells[i], CELL, "%s", head[i]);
    if (d->html)
        fprintf(d->html, "<table%s%s%s>\n", cls ? " class=\"" : "", cls ? cls : "",
                cls ? "\"" : "");
    doc_row(d, n, cells, 1);
}

static void doc_table_begin(doc *d, int n, const char *const *head) {
    doc_table_begin_as(d, n, head, NULL);
}

static void doc_table_end(doc *d) {
    fputs("\n", d->md);
    if (d->html) fputs("</table>\n", d->html);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The file as base64, straight into the page. */
static int put_base64(FILE *out, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return KB_ERR;
    unsigned char in[3];
    size_t n;
    while ((n = fread(in, 1, 3, f)) > 0) {
        unsigned v =
            (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0) | (n > 2 ? in[2] : 0);
        fputc(b64[v >> 18 & 63], out);
        fputc(b64[v >> 12 & 63], out);
        fputc(n > 1 ? b64[v >> 6 & 63] : '=', out);
        fputc(n > 2 ? b64[v & 63] : '=', out);
        if (n < 3) break;
    }
    fclose(f);
    return KB_OK;
}

static void doc_plot(doc *d, const kb_plot_opts *o, const kb_plot *p) {
    doc_para(d, "%s%s%s", p->caption, p->note[0] ? ". " : ".", p->note);
    if (!p->rendered) {
        doc_para(d, "(not rendered: gnuplot was not on PATH; render with: cd %s && gnuplot %s.gp)",
                 o->dir, p->base);
        return;
    }
    const char *ext = o->png ? "png" : "svg";
    /* The file name is plot_name's (cli_plot.c): plain characters, a link as it is. */
    fputs("![", d->md);
    kb_md_text(d->md, p->kind, 0);
    fprintf(d->md, "](%s.%s)\n\n", p->base, ext);
    /* SVG when there is one: sharp at any zoom, and small. */
    char path[1200];
    const char *embed = o->svg ? "svg" : "png";
    snprintf(path, sizeof path, "%s/%s.%s", o->dir, p->base, embed);
    fputs("<figure><img alt=\"", d->html);
    kb_html_text(d->html, p->kind);
    fprintf(d->html, "\" src=\"data:image/%s;base64,", o->svg ? "svg+xml" : "png");
    put_base64(d->html, path);
    fputs("\"></figure>\n", d->html);
}

/* ---- the runs ---- */

/* Every file's device, driver, clocks, peaks, commit, time, host and command.
 * In the HTML page folded under `summary` (a long table that repeats the
 * device of each file); in the Markdown page a table (Markdown folds nothing). */
static void write_runs(doc *d, const kb_results *res, const char *summary) {
    static const char *const head[] = {"file", "kbench", "time (UTC)", "host", "device", "command"};
    fputs("<details><summary>", d->html);
    kb_html_text(d->html, summary);
    fputs("</summary>\n", d->html);
    doc_table_begin(d, 6, head);
    for (int f = 0; f < res->nfiles; f++) {
        const kb_result_file *m = &res->files[f];
        char cells[6][CELL];
        snprintf(cells[0], CELL, "%s", m->path);
        /* The sources' digest beside the commit (its first 12 digits, as a
         * short commit): the code measured, where the commit could be wrong. */
        const int src = m->run.sources[0] != 0;
        snprintf(cells[1], CELL, "%s%s%.12s%s", m->run.commit[0] ? m->run.commit : "-",
                 src ? " (sources " : "", m->run.sources, src ? ")" : "");
        snprintf(cells[2], CELL, "%s", m->run.time[0] ? m->run.time : "-");
        snprintf(cells[3], CELL, "%s", m->run.host[0] ? m->run.host : "-");
        snprintf(cells[4], CELL, "%.700s%s%.600s", m->gpu[0] ? m->gpu : "(not recorded)",
                 m->other[0] ? "\n" : "", m->other);
        snprintf(cells[5], CELL, "%.1300s", m->run.command[0] ? m->run.command : "-");
        doc_row(d, 6, cells, 0);
    }
    doc_table_end(d);
    fputs("</details>\n", d->html);
}

/* ---- which variant to ship ---- */

/* Where variant k's rows come from: the source column of its first row
 * ("builtin" where the file has none). */
static const char *source_of(const kb_op_view *v, int k) {
    for (int c = 0; c < v->ncases; c++) {
        const kb_result *r = kb_view_cell(v, c, k);
        if (r && r->source[0]) return r->source;
    }
    return "builtin";
}

static void fmt_ratio(double base_us, double us, char *buf, size_t n) {
    if (base_us > 0 && us > 0)
        snprintf(buf, n, "%.2f×", base_us / us);
    else
        snprintf(buf, n, "-");
}

/* Why a peer's time does not count as a correct answer: "" for PASS, else
 * e.g. "FAILs its check: rel-L2 0.037, bound 0.002", "was not checked". */
static void peer_standing(const kb_result *p, char *buf, size_t n) {
    if (p->status == KB_ROW_PASS)
        snprintf(buf, n, "%s", "");
    else if (p->status == KB_ROW_FAIL && isfinite(p->rel_l2) && isfinite(p->tolerance))
        snprintf(buf, n, "FAILs its check: rel-L2 %.2g, bound %.2g", p->rel_l2, p->tolerance);
    else if (p->status == KB_ROW_FAIL && isfinite(p->rel_l2))
        snprintf(buf, n, "FAILs its check: rel-L2 %.2g", p->rel_l2);
    else if (p->status == KB_ROW_FAIL)
        snprintf(buf, n, "FAILs its check: %.200s", p->reason[0] ? p->reason : p->note);
    else if (p->status == KB_ROW_UNCHECKED)
        snprintf(buf, n, "%s", "was not checked");
    else
        snprintf(buf, n, "is %s", kb_status_name(p->status));
}

/* A peer's row that has a time: PASS, a FAIL that was timed, UNCHECKED. */
static int peer_ran(const kb_result *r) {
    return r && isfinite(r->median_us) && r->median_us > 0 &&
           (r->status == KB_ROW_PASS || r->status == KB_ROW_FAIL || r->status == KB_ROW_UNCHECKED);
}

/* "1.25×", or "4.63× (FAILs its check: rel-L2 0.037, bound 0.002)". */
static void fmt_peer(const kb_result *p, double us, char *buf, size_t n) {
    char ratio[32], why[300];
    fmt_ratio(p->median_us, us, ratio, sizeof ratio);
    peer_standing(p, why, sizeof why);
    snprintf(buf, n, "%s%s%s%s", ratio, why[0] ? " (" : "", why, why[0] ? ")" : "");
}

/* "nhwc_ws_tf32 (tf32 precision)", "mine (plugin:libmine.so)": the variant
 * to ship as the tables name it. */
static void fmt_ship(const kb_op_view *v, int k, char *buf, size_t n) {
    const kb_variant *var = kb_find_variant(v->op, v->variants[k]);
    const char *from = source_of(v, k);
    int outside = strcmp(from, "builtin") != 0;
    snprintf(buf, n, "%s%s%s%s%s", v->variants[k],
             var && (var->flags & KB_TF32) ? " (tf32 precision)" : "", outside ? " (" : "",
             outside ? from : "", outside ? ")" : "");
}

static void write_ship_table(doc *d, const kb_op_view *v) {
    int peers[16], npeers = 0;
    for (int k = 0; k < v->nvariants && npeers < 10; k++)
        if (v->variant_peer[k]) peers[npeers++] = k;
    const char *head[16] = {"case", "fastest correct", "median ± noise", "vs baseline"};
    char peer_heads[10][96];
    int ncols = 4;
    for (int i = 0; i < npeers; i++) {
        snprintf(peer_heads[i], sizeof peer_heads[i], "vs %s", v->variants[peers[i]]);
        head[ncols++] = peer_heads[i];
    }
    head[ncols++] = "workspace";
    head[ncols++] = "runner-up";
    doc_heading(d, 3, "Which variant to ship");
    doc_para(d,
             "Per case, the fastest variant of ours that PASSed its check (peers and variants "
             "of other semantics are not ranked). Speedups are time ratios on the same case: "
             "over the op's baseline (%s: the first of these that ran on the case) and over "
             "each peer; above 1× the winner is faster. A peer that ran but did not PASS "
             "keeps its ratio, with its status and why.",
             v->def && v->def->baseline ? v->def->baseline : "its first registry variant");
    if (v->def) {
        kb_case defaults;
        char text[2048];
        kb_case_defaults(&defaults, v->def);
        kb_case_format(&defaults, text, sizeof text);
        doc_para(d, "Cases name only the axes that differ from the op's defaults: %s.", text);
    }
    doc_table_begin(d, ncols, head);
    for (int c = 0; c < v->ncases; c++) {
        char cells[16][CELL], t[32];
        int best, second, col = 0;
        best = kb_view_ship(v, c, &second);
        kb_params_short(v->def, v->cases[c], cells[col++], CELL);
        const kb_result *w = best >= 0 ? kb_view_cell(v, c, best) : NULL;
        if (!w) {
            snprintf(cells[col++], CELL, "(no variant passed)");
            while (col < ncols) snprintf(cells[col++], CELL, "-");
            doc_row(d, ncols, cells, 0);
            continue;
        }
        fmt_ship(v, best, cells[col++], CELL);
        kb_format_us(w->median_us, t, sizeof t);
        if (w->noise_pct >= 0)
            snprintf(cells[col++], CELL, "%s ± %.1f%%", t, w->noise_pct);
        else
            snprintf(cells[col++], CELL, "%s", t);
        int base = kb_view_baseline(v, c, NULL);
        if (base < 0)
            snprintf(cells[col++], CELL, "(no baseline ran)");
        else if (base == best)
            snprintf(cells[col++], CELL, "1.00× (is the baseline)");
        else {
            fmt_ratio(kb_view_cell(v, c, base)->median_us, w->median_us, t, sizeof t);
            snprintf(cells[col++], CELL, "%s over %s", t, v->variants[base]);
        }
        for (int i = 0; i < npeers; i++) {
            const kb_result *p = kb_view_cell(v, c, peers[i]);
            if (peer_ran(p))
                fmt_peer(p, w->median_us, cells[col++], CELL);
            else
                snprintf(cells[col++], CELL, "%s", p ? kb_status_name(p->status) : "-");
        }
        kb_format_bytes(w->workspace_bytes, 0, cells[col++], CELL);
        if (second >= 0) {
            double ts = kb_view_cell(v, c, second)->median_us;
            kb_format_us(ts, t, sizeof t);
            snprintf(cells[col++], CELL, "%s %s (+%.0f%%)", v->variants[second], t,
                     (ts / w->median_us - 1) * 100);
        } else {
            snprintf(cells[col++], CELL, "-");
        }
        doc_row(d, ncols, cells, 0);
    }
    doc_table_end(d);
}

/* *_i64 against its *_i32 twin, per case. */
static void write_index_table(doc *d, const kb_op_view *v) {
    static const char *const head[] = {"case", "int64 variant", "int64", "int32", "int64 costs"};
    int any = 0;
    for (int k = 0; k < v->nvariants; k++) {
        const char *name = v->variants[k];
        size_t n = strlen(name);
        if (n < 4 || strcmp(name + n - 4, "_i64") != 0) continue;
        char twin_name[80];
        snprintf(twin_name, sizeof twin_name, "%.*s_i32", (int)(n - 4), name);
        int twin = kb_view_variant(v, twin_name);
        if (twin < 0) continue;
        if (!any++) {
            doc_heading(d, 3, "int64 against int32 indexing");
            doc_para(d, "Extra time of each int64-index variant over its int32 twin on the same "
                        "case; where the int32 variant cannot run, its reason.");
            doc_table_begin(d, 5, head);
        }
        for (int c = 0; c < v->ncases; c++) {
            const kb_result *a = kb_view_cell(v, c, k), *b = kb_view_cell(v, c, twin);
            if (!a && !b) continue;
            char cells[5][CELL];
            kb_params_short(v->def, v->cases[c], cells[0], CELL);
            snprintf(cells[1], CELL, "%s", name);
            kb_format_us(a && kb_result_timed(a) ? a->median_us : 0, cells[2], CELL);
            kb_format_us(b && kb_result_timed(b) ? b->median_us : 0, cells[3], CELL);
            if (a && b && kb_result_timed(a) && kb_result_timed(b))
                snprintf(cells[4], CELL, "%+.1f%%", (a->median_us / b->median_us - 1) * 100);
            else if (b && !kb_result_timed(b))
                snprintf(cells[4], CELL, "int32 %s: %s", kb_status_name(b->status), b->reason);
            else
                snprintf(cells[4], CELL, "-");
            doc_row(d, 5, cells, 0);
        }
    }
    if (any) doc_table_end(d);
}

/* Variants of other semantics (KB_INEXACT) against the fastest exact one. */
static void write_inexact_table(doc *d, const kb_op_view *v) {
    static const char *const head[] = {"case",  "variant", "time",           "fastest exact",
                                       "saved", "dropped", "note of the row"};
    for (int k = 0; k < v->nvariants; k++) {
        const kb_variant *var = kb_find_variant(v->op, v->variants[k]);
        if (!var || !(var->flags & KB_INEXACT)) continue;
        char title[160];
        snprintf(title, sizeof title, "%s (other semantics) against the fastest exact variant",
                 v->variants[k]);
        doc_heading(d, 3, title);
        doc_para(d,
                 "%s: %s. It is checked against a reference of its own semantics; the "
                 "'dropped' column counts results the exact op keeps that it does not.",
                 v->variants[k], var->summary);
        doc_table_begin(d, 7, head);
        for (int c = 0; c < v->ncases; c++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!r) continue;
            int best, second;
            best = kb_view_ship(v, c, &second);
            char cells[7][CELL], t[32];
            kb_params_short(v->def, v->cases[c], cells[0], CELL);
            snprintf(cells[1], CELL, "%s", v->variants[k]);
            kb_format_us(kb_result_timed(r) ? r->median_us : 0, cells[2], CELL);
            double tb = best >= 0 ? kb_view_cell(v, c, best)->median_us : 0;
            kb_format_us(tb, t, sizeof t);
            snprintf(cells[3], CELL, "%s%s%s", best >= 0 ? v->variants[best] : "-",
                     best >= 0 ? " " : "", best >= 0 ? t : "");
            if (tb > 0 && kb_result_timed(r))
                snprintf(cells[4], CELL, "%.1f us (%.0f%%)", tb - r->median_us,
                         (1 - r->median_us / tb) * 100);
            else
                snprintf(cells[4], CELL, "-");
            if (r->dropped >= 0)
                snprintf(cells[5], CELL, "%.0f", r->dropped);
            else
                snprintf(cells[5], CELL, "-");
            snprintf(cells[6], CELL, "%s", r->note);
            doc_row(d, 7, cells, 0);
        }
        doc_table_end(d);
    }
}

/* ---- CPU or GPU ---- */

/* "cpu_greedy 12.50 us", or why there is no time. */
static void fmt_side(const kb_op_view *v, int c, int k, char *buf, size_t n) {
    char t[32];
    if (k < 0) {
        snprintf(buf, n, "(none PASSed)");
        return;
    }
    kb_format_us(kb_view_cell(v, c, k)->median_us, t, sizeof t);
    snprintf(buf, n, "%s %s", v->variants[k], t);
}

/* "along n", "along n at iou=0.7": where a crossover statement is read. */
static void fmt_along(const kb_along *a, int p, const char *word, char *buf, size_t n) {
    snprintf(buf, n, "%s %s%s%s%s%s%s", word, a->axis, a->with[0] ? " (with " : "", a->with,
             a->with[0] ? ")" : "", a->panel[p][0] ? " at " : "", a->panel[p]);
}

static void write_cpu_gpu(doc *d, const kb_plot_opts *o, const kb_op_view *v,
                          const kb_host_device *hd, const kb_plot *plot) {
    static const char *const head[] = {"case", "fastest on the CPU (host)",
                                       "fastest on the GPU (device)", "faster"};
    doc_heading(d, 3, "CPU or GPU");
    doc_para(d, "Per case where a variant ran on the CPU (a host row): the fastest host variant "
                "that PASSed against the fastest device variant that PASSed (ours, of the op's "
                "semantics), and by how much the faster wins (the slower median over the "
                "faster).");
    doc_table_begin(d, 4, head);
    int both = 0;
    for (int c = 0; c < v->ncases; c++) {
        if (!hd->has_host[c]) continue;
        char cells[4][CELL];
        kb_params_short(v->def, v->cases[c], cells[0], CELL);
        fmt_side(v, c, hd->host[c], cells[1], CELL);
        fmt_side(v, c, hd->device[c], cells[2], CELL);
        if (hd->host[c] >= 0 && hd->device[c] >= 0)
            kb_host_device_verdict(kb_host_device_ratio(hd, both++), cells[3], CELL);
        else
            snprintf(cells[3], CELL, "-");
        doc_row(d, 4, cells, 0);
    }
    doc_table_end(d);
    if (!hd->has_along) {
        doc_para(d, "No axis varies among the cases measured on both with two of them in one "
                    "sweep: no crossover to read.");
        return;
    }
    for (int p = 0; p < hd->along.npanels; p++) {
        char where[KB_ALONG_LABEL + 700], text[2048];
        if (kb_host_device_along(hd, p, text, sizeof text) < 0) continue;
        fmt_along(&hd->along, p, "Along", where, sizeof where);
        doc_para(d, "%s: %s.", where, text);
    }
    if (plot) doc_plot(d, o, plot);
}

/* The rows timed in --host-repeats repeats (host variants, and device
 * variants that end in a host walk): their median is the lowest repeat's,
 * and the spread of the repeats' medians is the host's drift between them,
 * which one repeat's samples cannot show. Said only where such rows are. */
static void write_repeats(doc *d, const kb_op_view *v) {
    static const char *const head[] = {"variant", "case", "median", "repeats", "spread"};
    int n = 0;
    for (int c = 0; c < v->ncases; c++)
        for (int k = 0; k < v->nvariants; k++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!r || !(r->repeats >= 1)) continue; /* NAN: not taken in repeats */
            if (!n++) {
                doc_heading(d, 3, "Rows timed in repeats");
                doc_para(d, "Rows whose time is the host's (host variants, and device variants "
                            "that end in a host walk) are timed in --host-repeats repeats, each "
                            "under the stop rule. The median is the lowest repeat's; the spread "
                            "is the highest repeat median over the lowest, less one: how far the "
                            "host drifted between repeats. compare counts half the "
                            "spread as the row's noise where that is more than its samples'.");
                doc_table_begin(d, 5, head);
            }
            char cells[5][CELL];
            snprintf(cells[0], CELL, "%s", r->variant);
            kb_params_short(v->def, r->params, cells[1], CELL);
            kb_format_us(r->median_us, cells[2], CELL);
            snprintf(cells[3], CELL, "%.0f", r->repeats);
            if (r->repeat_spread_pct >= 0)
                snprintf(cells[4], CELL, "%.1f%%", r->repeat_spread_pct);
            else
                snprintf(cells[4], CELL, "-");
            doc_row(d, 5, cells, 0);
        }
    if (n) doc_table_end(d);
}

static void write_not_passed(doc *d, const kb_op_view *v) {
    static const char *const head[] = {"variant", "case", "status", "median", "reason", "note"};
    int n = 0;
    doc_heading(d, 3, "Rows that did not pass");
    for (int c = 0; c < v->ncases; c++)
        for (int k = 0; k < v->nvariants; k++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!r || r->status == KB_ROW_PASS) continue;
            if (!n++) doc_table_begin(d, 6, head);
            char cells[6][CELL];
            snprintf(cells[0], CELL, "%s", r->variant);
            kb_params_short(v->def, r->params, cells[1], CELL);
            snprintf(cells[2], CELL, "%s", kb_status_name(r->status));
            /* A FAIL keeps its time: how fast a wrong answer came is part of the choice. */
            if (isfinite(r->median_us) && r->median_us > 0)
                kb_format_us(r->median_us, cells[3], CELL);
            else
                snprintf(cells[3], CELL, "-");
            snprintf(cells[4], CELL, "%s",
                     r->reason[0]                    ? r->reason
                     : r->status == KB_ROW_UNCHECKED ? "timed with --no-check"
                                                     : "-");
            snprintf(cells[5], CELL, "%s", r->note);
            doc_row(d, 6, cells, 0);
        }
    if (n)
        doc_table_end(d);
    else
        doc_para(d, "Every row PASSed.");
}

/* The op's variants grouped by where they come from: the built-in table,
 * each plugin, each Python file (peers included), once each. Said only
 * where a row came from outside the tree. */
static void write_sources(doc *d, const kb_op_view *v) {
    int outside = 0;
    for (int k = 0; k < v->nvariants; k++) outside |= strcmp(source_of(v, k), "builtin") != 0;
    if (!outside) return;
    doc_heading(d, 3, "Where the variants come from");
    static const char *const head[] = {"source", "variants"};
    doc_table_begin(d, 2, head);
    for (int k = 0; k < v->nvariants; k++) {
        int first = 1;
        for (int j = 0; j < k && first; j++) first = strcmp(source_of(v, j), source_of(v, k)) != 0;
        if (!first) continue;
        char cells[2][CELL];
        snprintf(cells[0], CELL, "%s", source_of(v, k));
        size_t used = 0;
        cells[1][0] = '\0';
        for (int j = k; j < v->nvariants; j++)
            if (strcmp(source_of(v, j), source_of(v, k)) == 0 && used + 2 < CELL)
                used += (size_t)snprintf(cells[1] + used, CELL - used, "%s%s", used ? ", " : "",
                                         v->variants[j]);
        doc_row(d, 2, cells, 0);
    }
    doc_table_end(d);
}

static int write_view(doc *d, const kb_plot_opts *o, const kb_op_view *v, const kb_plot *plots,
                      int nplots, kb_error *e) {
    kb_host_device hd;
    if (kb_host_device_build(v, o->along, &hd, e) != KB_OK) return KB_ERR;
    const kb_plot *cpu_gpu = NULL;
    for (int i = 0; i < nplots; i++)
        if (strcmp(plots[i].kind, "cpu_vs_gpu") == 0) cpu_gpu = &plots[i];
    char title[400];
    snprintf(title, sizeof title, "%s (%s mode)%s%s", v->op, v->mode, v->def ? ": " : "",
             v->def ? v->def->summary : "");
    doc_heading(d, 2, title);
    write_sources(d, v);
    write_ship_table(d, v);
    write_index_table(d, v);
    write_inexact_table(d, v);
    if (hd.any) write_cpu_gpu(d, o, v, &hd, cpu_gpu);
    write_repeats(d, v);
    doc_heading(d, 3, "Plots");
    for (int i = 0; i < nplots; i++)
        if (&plots[i] != cpu_gpu) doc_plot(d, o, &plots[i]);
    write_not_passed(d, v);
    kb_host_device_free(&hd);
    return KB_OK;
}

/* ---- the README's excerpt ---- */

/* The fastest peer that ran on case c, or -1: among those checked (PASS or
 * FAIL: they compute the op), else among the unchecked (a dense conv2d is
 * a floor for reference, not the op, and would hide the one that is). */
static int best_peer(const kb_op_view *v, int c) {
    int best = -1, best_checked = 0;
    for (int k = 0; k < v->nvariants; k++) {
        const kb_result *r = kb_view_cell(v, c, k);
        if (!v->variant_peer[k] || !peer_ran(r)) continue;
        int checked = r->status != KB_ROW_UNCHECKED;
        if (best < 0 || checked > best_checked ||
            (checked == best_checked && r->median_us < kb_view_cell(v, c, best)->median_us)) {
            best = k;
            best_checked = checked;
        }
    }
    return best;
}

static const kb_plot *find_plot(const kb_plot *plots, int n, const char *kind) {
    for (int i = 0; i < n; i++)
        if (strcmp(plots[i].kind, kind) == 0 && plots[i].rendered) return &plots[i];
    return NULL;
}

/* "1.36-6.41×", "212×": how much faster, over the cases of one winner. */
static void fmt_factors(double lo, double hi, char *buf, size_t n) {
    char a[32], b[32];
    snprintf(a, sizeof a, lo < 10 ? "%.2f" : "%.0f", lo);
    snprintf(b, sizeof b, hi < 10 ? "%.2f" : "%.0f", hi);
    if (strcmp(a, b) == 0)
        snprintf(buf, n, "%s×", a);
    else
        snprintf(buf, n, "%s-%s×", a, b);
}

/* One line: who wins on the cases both ran, by how much, and where the
 * winner changes along the axis. */
static void summary_cpu_gpu(FILE *f, const kb_host_device *hd) {
    const kb_op_view *b = &hd->both;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0}; /* [0] CPU wins, [1] GPU wins */
    int wins[2] = {0, 0};
    for (int c = 0; c < b->ncases; c++) {
        double r = kb_host_device_ratio(hd, c), x = r < 1 ? 1 / r : r;
        int g = r >= 1;
        wins[g]++;
        lo[g] = fmin(lo[g], x);
        hi[g] = fmax(hi[g], x);
    }
    char text[4096], range[2][80];
    for (int g = 0; g < 2; g++) fmt_factors(lo[g], hi[g], range[g], sizeof range[g]);
    if (!b->ncases)
        snprintf(text, sizeof text, "no case has both a host and a device variant that PASSed");
    else if (!wins[0] || !wins[1])
        snprintf(text, sizeof text, "%s faster on every case measured on both (%d), %s",
                 wins[0] ? "CPU" : "GPU", b->ncases, range[wins[0] ? 0 : 1]);
    else
        snprintf(text, sizeof text,
                 "CPU faster on %d of %d cases measured on both (%s), GPU on %d (%s)", wins[0],
                 b->ncases, range[0], wins[1], range[1]);
    for (int p = 0; hd->has_along && p < hd->along.npanels; p++) {
        char where[KB_ALONG_LABEL + 700], along[2048];
        if (kb_host_device_along(hd, p, along, sizeof along) <= 0) continue;
        fmt_along(&hd->along, p, "along", where, sizeof where);
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "; %s: %s", where, along);
    }
    fputs("\nCPU or GPU: ", f);
    kb_md_text(f, text, 0);
    fputs(".\n", f);
}

static int summary_view(FILE *f, const kb_plot_opts *o, const kb_op_view *v, const kb_plot *plots,
                        int nplots, kb_error *e) {
    fputs("\n**", f);
    kb_md_text(f, v->op, 0);
    fputs("** (", f);
    kb_md_text(f, v->mode, 0);
    fputs(" mode)\n\n", f);
    static const char *const kinds[] = {"time", "speedup"};
    for (int i = 0; i < 2; i++) {
        const kb_plot *p = find_plot(plots, nplots, kinds[i]);
        if (!p) continue;
        fputs("![", f);
        kb_md_text(f, v->op, 0);
        fprintf(f, " %s](%s.%s) ", p->kind, p->base, o->svg ? "svg" : "png");
    }
    fputs("\n\n| case | ship | median | vs baseline | vs fastest peer | workspace |\n"
          "|---|---|---|---|---|---|\n",
          f);
    for (int c = 0; c < v->ncases; c++) {
        char shortform[CELL], t[32], base_txt[160], peer_txt[512], ws[32];
        int best, second;
        best = kb_view_ship(v, c, &second);
        kb_params_short(v->def, v->cases[c], shortform, sizeof shortform);
        fputs("| ", f);
        kb_md_text(f, shortform, 1);
        if (best < 0) {
            fputs(" | (no variant passed) | - | - | - | - |\n", f);
            continue;
        }
        const kb_result *w = kb_view_cell(v, c, best);
        kb_format_us(w->median_us, t, sizeof t);
        int base = kb_view_baseline(v, c, NULL), peer = best_peer(v, c);
        if (base < 0)
            snprintf(base_txt, sizeof base_txt, "-");
        else if (base == best)
            snprintf(base_txt, sizeof base_txt, "(is the baseline)");
        else
            snprintf(base_txt, sizeof base_txt, "%.2f× %s",
                     kb_view_cell(v, c, base)->median_us / w->median_us, v->variants[base]);
        if (peer < 0) {
            snprintf(peer_txt, sizeof peer_txt, "-");
        } else {
            const kb_result *p = kb_view_cell(v, c, peer);
            char why[300];
            peer_standing(p, why, sizeof why);
            snprintf(peer_txt, sizeof peer_txt, "%.2f× %s%s%s", p->median_us / w->median_us,
                     v->variants[peer], why[0] ? ", which " : "", why);
        }
        kb_format_bytes(w->workspace_bytes, 0, ws, sizeof ws);
        const char *cells[] = {v->variants[best], t, base_txt, peer_txt, ws};
        for (int i = 0; i < 5; i++) {
            fputs(" | ", f);
            kb_md_text(f, cells[i], 1);
        }
        fputs(" |\n", f);
    }
    kb_host_device hd;
    if (kb_host_device_build(v, o->along, &hd, e) != KB_OK) return KB_ERR;
    if (hd.any) summary_cpu_gpu(f, &hd);
    kb_host_device_free(&hd);
    return KB_OK;
}

/* ---- the decision, first ---- */

/* The fastest peer that PASSed on case c, or -1. */
static int best_passing_peer(const kb_op_view *v, int c) {
    int best = -1;
    for (int k = 0; k < v->nvariants; k++) {
        const kb_result *r = kb_view_cell(v, c, k);
        if (!v->variant_peer[k] || !peer_ran(r) || r->status != KB_ROW_PASS) continue;
        if (best < 0 || r->median_us < kb_view_cell(v, c, best)->median_us) best = k;
    }
    return best;
}

/* "3.59× peer:torchvision", "4.97× peer:torchvision (FAILs its check: ...)";
 * `none` where no such peer ran (and "-" where no peer ran at all). */
static void fmt_against(const kb_op_view *v, int c, int peer, double us, const char *none,
                        char *buf, size_t n) {
    if (peer < 0) {
        snprintf(buf, n, "%s", best_peer(v, c) >= 0 ? none : "-");
        return;
    }
    char text[400];
    fmt_peer(kb_view_cell(v, c, peer), us, text, sizeof text);
    size_t cut = strcspn(text, " ");
    snprintf(buf, n, "%.*s %s%s", (int)cut, text, v->variants[peer], text + cut);
}

/* What the decision table's columns say, for the sentence above it. */
static const char decision_what[] =
    "Per op and case, the fastest of ours that PASSed its check, its median time, and how "
    "many times faster it is than the fastest peer that PASSed the same check, and than the "
    "fastest peer that ran (one that did not PASS named with why; an unchecked one only "
    "where no checked one ran).";

/* One table across ops: per op and case the variant to ship, its time, and
 * how much faster it is than the strongest peer that gave the right answer
 * and than the fastest that ran at all: the answer before the detail. */
static void write_decision(doc *d, const kb_op_view *views, int nviews) {
    static const char *const head[] = {"op",
                                       "case",
                                       "ship",
                                       "median",
                                       "vs the fastest peer that PASSed",
                                       "vs the fastest peer that ran"};
    doc_table_begin_as(d, 6, head, "decision");
    for (int i = 0; i < nviews; i++) {
        const kb_op_view *v = &views[i];
        for (int c = 0; c < v->ncases; c++) {
            char cells[6][CELL];
            if (c == 0)
                snprintf(cells[0], CELL, "%s%s%s%s", v->op, v->mode_in_name ? " (" : "",
                         v->mode_in_name ? v->mode : "", v->mode_in_name ? " mode)" : "");
            else
                cells[0][0] = '\0';
            kb_params_short(v->def, v->cases[c], cells[1], CELL);
            int best = kb_view_ship(v, c, NULL);
            if (best < 0) {
                snprintf(cells[2], CELL, "(no variant passed)");
                for (int j = 3; j < 6; j++) snprintf(cells[j], CELL, "-");
                doc_row(d, 6, cells, 0);
                continue;
            }
            double us = kb_view_cell(v, c, best)->median_us;
            fmt_ship(v, best, cells[2], CELL);
            kb_format_us(us, cells[3], CELL);
            int passed = best_passing_peer(v, c), ran = best_peer(v, c);
            fmt_against(v, c, passed, us, "(no peer PASSed)", cells[4], CELL);
            if (ran >= 0 && ran == passed)
                snprintf(cells[5], CELL, "(the same)");
            else
                fmt_against(v, c, ran, us, "-", cells[5], CELL);
            doc_row(d, 6, cells, 0);
        }
    }
    doc_table_end(d);
}

/* The earliest and latest time the files record ("" when none does). */
static void run_times(const kb_results *res, char *first, char *last, size_t n) {
    first[0] = last[0] = '\0';
    for (int f = 0; f < res->nfiles; f++) {
        const char *t = res->files[f].run.time;
        if (!t[0]) continue;
        if (!first[0] || strcmp(t, first) < 0) snprintf(first, n, "%s", t);
        if (!last[0] || strcmp(t, last) > 0) snprintf(last, n, "%s", t);
    }
}

/* DIR/summary.md, the excerpt a README shows (scripts/make-report.sh puts
 * it there): the report's decision table, then per op the headline plots and
 * its "which variant to ship" table. timer: the provenance's sentence of
 * which time ranked the rows, NULL for event time. */
static int write_summary(const char *dir, const kb_results *res, const kb_plot_opts *o,
                         const kb_op_view *views, int nviews, const kb_plot_list *plots,
                         const int *first_plot, const char *timer, kb_error *e) {
    char path[1100];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    FILE *f = fopen(path, "w");
    if (!f) return kb_fail(e, "%s: cannot write", path);
    /* The decision first, as on the report's first screen; the detail per op
     * (plots, baseline, workspace) follows. */
    doc d = {f, NULL};
    fprintf(f, "**Which variant to ship.** ");
    kb_md_text(f, decision_what, 0);
    fputs("\n\n", f);
    write_decision(&d, views, nviews);
    char devices[2048], commits[512];
    kb_results_runs(res, "; ", devices, sizeof devices, commits, sizeof commits);
    fprintf(f, "Made by `kbench report` from %d file(s); device(s): ", res->nfiles);
    kb_md_text(f, devices[0] ? devices : "(not recorded)", 0);
    fputs("; kbench commit(s): ", f);
    kb_md_text(f, commits[0] ? commits : "(not recorded)", 0);
    fputs(". Medians, cold L2; speedups are time ratios on the same case (above 1× the variant "
          "to ship is faster); the fastest peer is the fastest that ran the op (a peer that "
          "FAILs the same check is named with why; an unchecked one only where no checked "
          "one ran).",
          f);
    if (timer) {
        fputc(' ', f);
        kb_md_text(f, timer, 0);
    }
    fputc('\n', f);
    int failed = 0;
    for (int i = 0; i < nviews && !failed; i++)
        failed = summary_view(f, o, &views[i], plots->items + first_plot[i],
                              first_plot[i + 1] - first_plot[i], e) != KB_OK;
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return failed ? KB_ERR : kb_fail(e, "%s: write error", path);
    if (failed) return KB_ERR;
    printf("%s\n", path);
    return KB_OK;
}

static int write_pages(const char *dir, const kb_results *res, const kb_plot_opts *o,
                       const kb_op_view *views, int nviews, const kb_plot_list *plots,
                       const int *first_plot, const char *timer, kb_error *e) {
    char md_path[1100], html_path[1100];
    snprintf(md_path, sizeof md_path, "%s/report.md", dir);
    snprintf(html_path, sizeof html_path, "%s/report.html", dir);
    doc d = {fopen(md_path, "w"), fopen(html_path, "w")};
    if (!d.md || !d.html) {
        if (d.md) fclose(d.md);
        if (d.html) fclose(d.html);
        return kb_fail(e, "%s: cannot write", d.md ? html_path : md_path);
    }
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kbench report</title>\n"
          "<style>body{font-family:sans-serif;max-width:1400px;margin:2em auto;padding:0 1em;"
          "color:#222}table{border-collapse:collapse;margin:1em 0;font-size:90%}"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
          "th{background:#f0f0f0}img{max-width:100%;height:auto}figure{margin:1em 0}"
          "td{white-space:pre-line}"
          /* The decision reads down its columns: one line a case, only the
           * last column (a peer's failure) wraps. */
          ".decision td:nth-child(-n+5){white-space:nowrap}"
          "details{margin:1em 0}summary{cursor:pointer}</style>\n</head><body>\n",
          d.html);
    fputs("# kbench report\n", d.md);
    fputs("<h1>kbench report</h1>\n", d.html);
    char devices[2048], commits[512], first[64], last[64], runs[200];
    kb_results_runs(res, "; ", devices, sizeof devices, commits, sizeof commits);
    run_times(res, first, last, sizeof first);
    /* Every device and build the rows came from: a report that mixes two GPUs
     * or two commits must say so before any table compares their rows. */
    int mixed = strstr(devices, "; ") || strstr(commits, "; ");
    if (mixed)
        doc_para(&d,
                 "Made by kbench %s from %d file(s) and %d rows, measured on device(s): %s; by "
                 "kbench commit(s): %s. The rows come from more than one device or build, and "
                 "the tables below set them side by side: a case's rows may not be from the "
                 "same run. Times are medians of the samples; noise is their relative standard "
                 "deviation. %s Each file's device and commit: under the first table.",
                 kb_git_commit, res->nfiles, res->count, devices[0] ? devices : "(not recorded)",
                 commits[0] ? commits : "(not recorded)", timer);
    doc_heading(&d, 2, "Which variant to ship");
    doc_para(&d, "%s Each op's section below has the runner-up, the workspace and the plots.",
             decision_what);
    write_decision(&d, views, nviews);
    snprintf(runs, sizeof runs,
             "Runs: %d file(s), %d rows (unfold for each file's device, commit, time, host and "
             "command)",
             res->nfiles, res->count);
    if (mixed) {
        doc_heading(&d, 3, "Runs");
        write_runs(&d, res, runs);
    } else {
        char when[160] = "";
        if (first[0] && strcmp(first, last) != 0)
            snprintf(when, sizeof when, ", from %s to %s", first, last);
        else if (first[0])
            snprintf(when, sizeof when, ", at %s", first);
        doc_para(&d,
                 "Made by kbench %s from %d file(s) and %d rows, measured on %s by kbench %s%s. "
                 "Times are medians of the samples; noise is their relative standard deviation. "
                 "%s Each file's host and command: Runs, at the end.",
                 kb_git_commit, res->nfiles, res->count,
                 devices[0] ? devices : "(device not recorded)",
                 commits[0] ? commits : "(commit not recorded)", when, timer);
    }
    int failed = 0;
    for (int i = 0; i < nviews && !failed; i++)
        failed = write_view(&d, o, &views[i], plots->items + first_plot[i],
                            first_plot[i + 1] - first_plot[i], e) != KB_OK;
    if (!mixed) {
        doc_heading(&d, 2, "Runs");
        write_runs(&d, res, runs);
    }
    fputs("</body></html>\n", d.html);
    int bad = ferror(d.md) || ferror(d.html);
    bad |= fclose(d.md) != 0;
    bad |= fclose(d.html) != 0;
    if (failed) return KB_ERR;
    if (bad) return kb_fail(e, "%s or %s: write error", md_path, html_path);
    printf("%s\n%s\n", md_path, html_path);
    return KB_OK;
}

/* --timer kernels: every row that has CUPTI's kernel time ranks by it (its
 * median, p10 and p90 become the kernel time's; the views point at the rows,
 * so every table and plot follows). Which time the page judged by goes into
 * its provenance, timer: a kernel time and an event time of one case are not
 * the same measure, so the count of rows left on event time is said too. */
static void apply_timer(kb_results *res, int kernels, char *timer, size_t n) {
    if (!kernels) {
        snprintf(timer, n, "Judged by event time (median_us: CUDA events around each sample).");
        return;
    }
    int by_kernels = 0;
    for (int i = 0; i < res->count; i++) by_kernels += kb_result_use_kernel_time(&res->rows[i]);
    snprintf(timer, n,
             "Judged by kernel time (--timer kernels: kernel_us) for %d of %d rows; %d without "
             "it (an older file, a run without CUPTI, a host or Python row) by event time "
             "(median_us): where a case mixes the two, its ratios are of unlike times.",
             by_kernels, res->count, res->count - by_kernels);
}

int kb_cmd_report(int argc, char **argv) {
    report_args args = {.p.o = {.dir = "report", .png = 1, .svg = 1}};
    int prc = kb_opts_parse("report", kb_report_opts, &args, argc, argv, kb_plot_args_add_file);
    if (prc == KB_OPTS_HELP) {
        report_help();
        return KB_EXIT_OK;
    }
    if (prc != KB_EXIT_OK) return prc;
    kb_plot_opts o = args.p.o;
    const char **files = args.p.files;
    int nfiles = args.p.nfiles;
    if (!nfiles) return kb_usage_error("report", "which results? (kbench report FILE.csv...)");

    kb_results res = {0};
    kb_op_view *views = NULL;
    int nviews = 0, rc = KB_EXIT_OK, *first_plot = NULL;
    kb_plot_list plots = {0};
    kb_error e;
    char timer[400];
    rc = kb_results_load(files, nfiles, &res, &views, &nviews, &e);
    if (rc == KB_EXIT_OK) apply_timer(&res, args.kernels, timer, sizeof timer);
    if (rc == KB_EXIT_OK && kb_make_dirs(o.dir, &e) != KB_OK) rc = KB_EXIT_RUNTIME;
    if (rc == KB_EXIT_OK && !(first_plot = calloc((size_t)nviews + 1, sizeof *first_plot))) {
        kb_fail(&e, "out of host memory");
        rc = KB_EXIT_RUNTIME;
    }
    for (int i = 0; i < nviews && rc == KB_EXIT_OK; i++) {
        first_plot[i] = plots.count;
        if (kb_plot_view(&res, &views[i], &o, &plots, &e) != KB_OK) rc = KB_EXIT_RUNTIME;
        first_plot[i + 1] = plots.count;
    }
    int have_gnuplot = kb_gnuplot_available();
    for (int i = 0; i < plots.count && rc == KB_EXIT_OK && have_gnuplot; i++)
        if (kb_plot_render(&o, &plots.items[i], &e) != KB_OK) rc = KB_EXIT_RUNTIME;
    if (rc == KB_EXIT_OK &&
        (write_pages(o.dir, &res, &o, views, nviews, &plots, first_plot, timer, &e) != KB_OK ||
         write_summary(o.dir, &res, &o, views, nviews, &plots, first_plot,
                       args.kernels ? timer : NULL, &e) != KB_OK))
        rc = KB_EXIT_RUNTIME;
    if (rc != KB_EXIT_OK) fprintf(stderr, "kbench report: error: %s\n", e.msg);
    if (rc == KB_EXIT_OK && !have_gnuplot) {
        fprintf(stderr,
                "kbench report: gnuplot is not on PATH: the pages are written without plots; "
                "install gnuplot and run again (the scripts are in %s)\n",
                o.dir);
        rc = KB_EXIT_RUNTIME;
    }
    free(first_plot);
    free(plots.items);
    kb_views_free(views, nviews);
    kb_results_free(&res);
    return rc;
}
