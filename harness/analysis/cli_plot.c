/* cli_plot.c — `kbench plot FILE.csv...`: for each op in the files, gnuplot
 * scripts and data drawing
 *   time        median time along an axis of the sweep (kb_along: a panel per
 *               combination of the other varying axes), else against the
 *               bytes the op must move (log-log), else bars per case
 *   speedup     each variant over the case's baseline: lines along the axis,
 *               else bars per case
 *   gbps        achieved GB/s along the axis, under the copy peak
 *   roofline    achieved GFLOP/s (or GB/s) against the measured ceilings
 *   workspace, index_cost, V_vs_exact, cpu_vs_gpu: workspace per variant,
 *               *_i64 over *_i32, other semantics (fast NMS) against exact,
 *               host against device (each above its code)
 * Which plots an op gets: plot_set. Each is DIR/<csvstem>.<op>.<kind>.{gp,
 * dat,png,svg} (`gnuplot X.gp` in DIR renders it again); `kbench report`
 * embeds them. Colours and styles: above their code. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_opts.h"
#include "compare_runs.h"
#include "host_device.h"
#include "plot.h"

#include "core/files.h" /* kb_make_dirs */

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int parse_formats(const char *v, kb_plot_opts *o);

static int set_formats(const kb_opt *opt, void *dst, const char *v, kb_error *e) {
    (void)opt;
    if (parse_formats(v, &((kb_plot_args *)dst)->o) != KB_OK)
        return kb_fail(e, "expected png, svg or png,svg");
    return KB_OK;
}

int kb_plot_args_add_file(void *dst, const char *arg, kb_error *e) {
    kb_plot_args *a = dst;
    if (a->nfiles == KB_PLOT_MAX_FILES) return kb_fail(e, "at most %d files", KB_PLOT_MAX_FILES);
    a->files[a->nfiles++] = arg;
    return KB_OK;
}

const kb_opt kb_plot_opts_table[] = {
    KB_OPT_STRING("-o, --output", "DIR", "where plots go (default plots/; created if missing)",
                  kb_plot_args, o.dir),
    KB_OPT_STRING("--along", "AXIS",
                  "draw time, speedup and GB/s against AXIS for every op in\n"
                  "the files that has it (one must; it must take 2 values)",
                  kb_plot_args, o.along),
    KB_OPT_STRING("--baseline", "VARIANT",
                  "speedups over this variant (a peer: name too) on every\n"
                  "case where it ran; default: per case, the first of the\n"
                  "op's baseline list (kbench list OP) that has a timed row",
                  kb_plot_args, o.baseline),
    KB_OPT_CALL("--format", "LIST", "png, svg or png,svg (default)", set_formats),
    KB_OPT_END,
};

static void plot_help(void) {
    fputs("usage: kbench plot FILE.csv... [-o DIR] [--along AXIS] [--baseline VARIANT]\n"
          "                   [--format png,svg]\n\n"
          "For each op (and timing mode) in the files, write gnuplot scripts and data and,\n"
          "when gnuplot is on PATH, render them:\n"
          "  <stem>.<op>.time        median time per variant, p10-p90 as error bars: along\n"
          "                          an axis (below) where the op's cases are a sweep, else\n"
          "                          against the op's minimum bytes moved (log-log) where\n"
          "                          each case has its own size, else bars per case\n"
          "  <stem>.<op>.speedup     each variant's speedup over the case's baseline: lines\n"
          "                          along the axis, else bars per case (cases where no\n"
          "                          baseline ran say so)\n"
          "  <stem>.<op>.gbps        achieved GB/s along the axis under the copy peak\n"
          "  <stem>.<op>.roofline    achieved GFLOP/s against the measured copy and SGEMM\n"
          "                          ceilings (GB/s against the copy peak for ops that do\n"
          "                          no arithmetic), from the CSV's '# ... peaks:' line\n"
          "                          gbps and roofline only where a row reaches a quarter\n"
          "                          of a ceiling: below, the op is latency-bound and its\n"
          "                          GB/s measures launch latency, not memory\n"
          "  <stem>.<op>.workspace   device workspace per variant (when any uses some)\n"
          "  <stem>.<op>.index_cost  extra time of each *_i64 variant over its *_i32 twin\n"
          "  <stem>.<op>.V_vs_exact  a variant of other semantics (nms pairwise_fast)\n"
          "                          against the fastest exact one: time saved, boxes lost\n"
          "  <stem>.<op>.cpu_vs_gpu  where host rows (KB_HOST variants) ran: the fastest\n"
          "                          CPU variant against the fastest GPU variant per case,\n"
          "                          along --along AXIS or the axis that joins the most\n"
          "                          cases (log scale)\n"
          "<stem> is the name of the first FILE holding the op, without .csv; an op timed\n"
          "in several modes gets .<mode> after its name. In these names any character but\n"
          "a letter, a digit or . _ + - becomes _ (what a CSV holds is data, never a path\n"
          "or a gnuplot pipe; in the scripts it is quoted so that gnuplot runs none of it).\n"
          "Only PASS and UNCHECKED rows are drawn. Each variant has one colour and marker\n"
          "in every plot; peers (peer:*) are dashed or hatched, each its own colour and\n"
          "marker; the variant to ship on some case (the fastest of ours that PASSed) is\n"
          "drawn heavier. The key is a column of its own right of the plot, one line an\n"
          "entry. Past 14 variants drawn, the key names every peer and the ones of ours\n"
          "nearest the top on any case (12 entries in all); the other variants are thin\n"
          "grey lines under one \"others\" entry, named in a list under the key (the\n"
          "caption says so).\n\n"
          "Along an axis: x is the axis's values (numbers sorted, on a log scale where\n"
          "they span over 30x; enum values in the axis's order), one line per variant, and\n"
          "one panel (in one image) per combination of the other axes that vary, e.g.\n"
          "dtype=f32 beside dtype=f16. Axes that the axis determines in the files (a layer\n"
          "sweep's c_out and w move with its c_in) name the x positions instead of making\n"
          "panels. Without --along, the time, speedup and GB/s plots of an op use the axis\n"
          "whose panels are sweeps (at most 4 panels, 2 cases or more each), if any.\n\n",
          stdout);
    kb_opts_help(stdout, kb_plot_opts_table);
    puts("  -h, --help\n"
         "exit codes: 0 plots rendered; 2 bad usage or an unreadable CSV; 4 a file could\n"
         "            not be written, gnuplot failed, or gnuplot is not on PATH (the\n"
         "            scripts are written: render them with `cd DIR && gnuplot *.gp`)\n"
         "examples:\n"
         "  kbench plot results/nms.csv -o plots/ --baseline bitmask_gpu\n"
         "  kbench plot results/nms.csv --along n -o plots/");
}

/* ---- colours and line styles ----
 * One colour and marker per variant, fixed by its place in the registry so
 * that a variant looks the same in every plot; peers ("peer:" rows) dashed
 * or hatched, each its own colour and marker among the op's peers. */

/* Tableau 10, distinct in colour and in lightness, with olive for its grey:
 * grey is the others' colour. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bcbd22"};
/* Peers: dark tones, so that they read as "not ours" beside the palette. */
static const char *const peer_palette[] = {"#222222", "#7f3b08", "#2d004b",
                                           "#1b7837", "#666666", "#b2182b"};
static const int point_types[] = {7, 5, 9, 11, 13, 15, 4, 6, 8, 10};
/* Peers: open markers (circle, square, triangles, diamond, pentagon). */
static const int peer_points[] = {6, 4, 8, 10, 12, 14};
/* The variants a crowded key groups under "others": thin and light. */
static const char others_colour[] = "#cccccc";

static unsigned name_hash(const char *s) {
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Variant k's place among the view's peers. */
static int peer_index(const kb_op_view *v, int k) {
    int i = 0;
    for (int j = 0; j < k; j++) i += v->variant_peer[j];
    return i;
}

static const char *colour_of(const kb_op_view *v, int k) {
    if (v->variant_rank[k] >= 0) return palette[v->variant_rank[k] % 10];
    if (v->variant_peer[k]) return peer_palette[peer_index(v, k) % 6];
    return palette[name_hash(v->variants[k]) % 10];
}

/* The marker steps once more every lap of the palette (and of the peers'),
 * so that no two of the first 100 variants (36 peers) share colour and
 * marker: places i and i + 10 share a colour, not a marker. */
static int point_of(const kb_op_view *v, int k) {
    if (v->variant_peer[k]) {
        int i = peer_index(v, k);
        return peer_points[(i + i / 6) % 6];
    }
    int i = v->variant_rank[k] >= 0 ? v->variant_rank[k] : (int)(name_hash(v->variants[k]) % 10);
    return point_types[(i + i / 10) % 10];
}

/* ---- which variants the key names ----
 * A key of two dozen entries runs off the canvas, and two dozen lines in ten
 * colours cannot be told apart anyway. Past KEY_ALL drawn variants, ours are
 * ordered by how near the top they come: the variants to ship first, then
 * the best place each takes on any case, then the geometric mean of its time
 * over the fastest of ours on the cases it ran. The first are named (with
 * every peer) in KEY_NAMED entries; the rest are drawn thin and light grey
 * under one "others" entry, and their names are listed under the key, so
 * that every line's name is in the image. */
enum { KEY_ALL = 14, KEY_NAMED = 12, KEY_FEWEST_OURS = 4 };

typedef struct series_set {
    int *named; /* per variant: its own key entry (0: one of the others) */
    int *ship;  /* per variant: the variant to ship on some case: drawn heavier */
    int *order; /* the variants in the order plots draw them: others (beneath), ours,
                   peers; their key entries come in that order, "others" last */
} series_set;

static void series_free(series_set *s) {
    free(s->named);
    free(s->ship);
    free(s->order);
    memset(s, 0, sizeof *s);
}

/* The fastest of ours (not a peer) timed on case c, or NAN. */
static double ours_fastest(const kb_op_view *v, int c) {
    double best = NAN;
    for (int k = 0; k < v->nvariants; k++) {
        const kb_result *r = kb_view_cell(v, c, k);
        if (v->variant_peer[k] || !r || !kb_result_timed(r)) continue;
        if (!(r->median_us >= best)) best = r->median_us;
    }
    return best;
}

static int series_pick(const kb_op_view *v, int with_ship, series_set *s, kb_error *e) {
    int nv = v->nvariants, n = nv ? nv : 1;
    memset(s, 0, sizeof *s);
    s->named = calloc((size_t)n, sizeof *s->named);
    s->ship = calloc((size_t)n, sizeof *s->ship);
    s->order = calloc((size_t)n, sizeof *s->order);
    int *place = malloc((size_t)n * sizeof *place), *cases = calloc((size_t)n, sizeof *cases);
    double *log_ratio = calloc((size_t)n, sizeof *log_ratio);
    int *rank = malloc((size_t)n * sizeof *rank);
    if (!s->named || !s->ship || !s->order || !place || !cases || !log_ratio || !rank) {
        series_free(s);
        free(place);
        free(cases);
        free(log_ratio);
        free(rank);
        return kb_fail(e, "out of host memory");
    }
    for (int k = 0; k < nv; k++) place[k] = nv;
    for (int c = 0; c < v->ncases; c++) {
        int ship = with_ship ? kb_view_ship(v, c, NULL) : -1;
        if (ship >= 0) s->ship[ship] = 1;
        double best = ours_fastest(v, c);
        for (int k = 0; k < nv; k++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (v->variant_peer[k] || !r || !kb_result_timed(r)) continue;
            int ahead = 0;
            for (int j = 0; j < nv; j++) {
                const kb_result *q = kb_view_cell(v, c, j);
                ahead +=
                    !v->variant_peer[j] && q && kb_result_timed(q) && q->median_us < r->median_us;
            }
            place[k] = ahead < place[k] ? ahead : place[k];
            log_ratio[k] += log(r->median_us / best);
            cases[k]++;
        }
    }
    int drawn = 0, npeers = 0, nours = 0;
    for (int k = 0; k < nv; k++) {
        int peer = v->variant_peer[k];
        int timed = 0;
        for (int c = 0; c < v->ncases && !timed; c++) {
            const kb_result *r = kb_view_cell(v, c, k);
            timed = r && kb_result_timed(r);
        }
        drawn += timed;
        npeers += peer;
        if (!peer) rank[nours++] = k;
        s->named[k] = 1;
    }
    if (drawn > KEY_ALL) {
        /* Ours, nearest the top first (insertion sort: a few dozen at most). */
        for (int i = 1; i < nours; i++)
            for (int j = i; j > 0; j--) {
                int a = rank[j - 1], b = rank[j];
                double ma = cases[a] ? log_ratio[a] / cases[a] : INFINITY;
                double mb = cases[b] ? log_ratio[b] / cases[b] : INFINITY;
                int b_first = s->ship[b] != s->ship[a] ? s->ship[b] > s->ship[a]
                              : place[b] != place[a]   ? place[b] < place[a]
                                                       : mb < ma;
                if (!b_first) break;
                rank[j - 1] = b;
                rank[j] = a;
            }
        int room = KEY_NAMED - 1 - npeers;
        room = room < KEY_FEWEST_OURS ? KEY_FEWEST_OURS : room;
        for (int i = room; i < nours; i++) s->named[rank[i]] = 0;
    }
    int at = 0;
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < nv; k++) {
            int peer = v->variant_peer[k];
            if ((pass == 0 && !s->named[k]) || (pass == 1 && s->named[k] && !peer) ||
                (pass == 2 && s->named[k] && peer))
                s->order[at++] = k;
        }
    free(place);
    free(cases);
    free(log_ratio);
    free(rank);
    return KB_OK;
}

/* ---- files ---- */

typedef struct plot_ctx {
    const kb_results *res;
    const kb_op_view *v;
    const kb_plot_opts *o;
    kb_along along;    /* the axis time, speedup and GB/s are drawn against */
    int has_along;     /* 0: time against bytes moved (or per case), speedup per case */
    char stem[300];    /* <csvstem>.<op>[.<mode>] */
    char device[256];  /* for titles; "" when the CSV does not say */
    series_set series; /* which variants the key names, which are drawn heavier */
    kb_plot_list *out;
} plot_ctx;

static FILE *open_out(const plot_ctx *pc, const char *base, const char *ext, kb_error *e) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.%s", pc->o->dir, base, ext);
    FILE *f = fopen(path, "w");
    if (!f) kb_fail(e, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int close_out(const plot_ctx *pc, FILE *f, const char *base, const char *ext, kb_error *e) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return kb_fail(e, "%s/%s.%s: write error", pc->o->dir, base, ext);
    return KB_OK;
}

/* ---- text from the files, into the scripts and data ----
 * Variants, ops, params, modes and the '# gpu:' line come from a CSV that
 * anyone may have written: in a script they must stay text. gnuplot
 * substitutes `command` and expands escapes inside double-quoted strings,
 * a line break ends a command (the rest of the line would run as one: `!cmd`
 * is a shell command), and a file name that begins with '|' or '<' is a pipe
 * (`set output "|cmd"`, `plot "<cmd"`). So: every such text is a
 * single-quoted string (no substitution, no escapes; a ' is doubled), its
 * line breaks spliced in as '...'."\n".'...' (gnuplot takes a string
 * expression wherever a script here puts text); '#' comments get none; file
 * names are made of plain characters (plot_name) and reached as ./NAME. */

static void gp_quote(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\n')
            fputs("'.\"\\n\".'", f);
        else if (*s == '\r')
            fputs("'.\"\\r\".'", f);
        else if (*s == '\'')
            fputs("''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Text in a '#' line of a script or of its data: no line break (it would
 * end the comment), and no '\' at the end (gnuplot continues a script's
 * comment on the next line after one). */
static void comment_text(FILE *f, const char *s) {
    const char *last = s;
    for (; *s; s++) {
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        last = s;
    }
    if (*last == '\\') fputc(' ', f);
}

/* A plot's file name: letters, digits and . _ + - only, every other byte
 * '_'. The name is made of the CSV's name and the op and mode its rows
 * name: a '/' would write outside DIR, a leading '|' or '<' would be a pipe
 * to gnuplot, and the report links the files by name in Markdown. */
static void plot_name(char *s) {
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '+' || *s == '-'))
            *s = '_';
}

/* ./BASE.EXT, a file in DIR (where gnuplot runs), as a gnuplot string. */
static void gp_file(FILE *f, const char *base, const char *ext) {
    char path[600];
    snprintf(path, sizeof path, "./%s.%s", base, ext);
    gp_quote(f, path);
}

/* "<op>: <what> (<mode> mode) — <device>" */
static void title_text(const plot_ctx *pc, const char *what, char *title, size_t n) {
    snprintf(title, n, "%s: %s (%s mode)%s%s", pc->v->op, what, pc->v->mode,
             pc->device[0] ? " — " : "", pc->device);
}

static void plot_title(const plot_ctx *pc, FILE *gp, const char *what) {
    char title[600];
    title_text(pc, what, title, sizeof title);
    fputs("set title ", gp);
    gp_quote(gp, title);
    fputc('\n', gp);
}

/* A plot being written: its entry in the list, script and data. */
typedef struct plot_files {
    kb_plot *p;
    FILE *gp, *dat;
} plot_files;

/* Start DIR/<stem>.<kind>.gp and .dat: header, common settings, title; the
 * caller adds its settings, calls plot_loop, writes the plot command and
 * plot_close ends the loop. */
static int plot_open(plot_ctx *pc, const char *kind, const char *caption, const char *what,
                     plot_files *pf, kb_error *e) {
    kb_plot_list *l = pc->out;
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        kb_plot *items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items) return kb_fail(e, "out of host memory");
        l->items = items;
        l->cap = cap;
    }
    kb_plot *p = &l->items[l->count];
    memset(p, 0, sizeof *p);
    snprintf(p->kind, sizeof p->kind, "%s", kind);
    snprintf(p->base, sizeof p->base, "%s.%s", pc->stem, kind);
    plot_name(p->base);
    snprintf(p->caption, sizeof p->caption, "%s", caption);
    pf->p = p;
    pf->gp = open_out(pc, p->base, "gp", e);
    if (!pf->gp) return KB_ERR;
    pf->dat = open_out(pc, p->base, "dat", e);
    if (!pf->dat) {
        fclose(pf->gp);
        return KB_ERR;
    }
    l->count++;
    fprintf(pf->gp, "# %s.gp — kbench plot: ", p->base);
    comment_text(pf->gp, caption);
    fprintf(pf->gp,
            "\n# Render in this folder: gnuplot %s.gp  (data: %s.dat)\n"
            "reset\nset encoding utf8\nset datafile missing \"?\"\n"
            "set grid xtics ytics mxtics mytics lc rgb \"#e4e4e4\"\nset border lc rgb \"#444444\"\n"
            "set key outside right top Left reverse samplen 3\n",
            p->base, p->base);
    plot_title(pc, pf->gp, what);
    fputs("# ", pf->dat);
    comment_text(pf->dat, caption);
    fprintf(pf->dat, " — data of %s.gp\n", p->base);
    return KB_OK;
}

static void note_add(kb_plot *p, const char *fmt, const char *what) {
    size_t used = strlen(p->note);
    if (used + 1 < sizeof p->note) snprintf(p->note + used, sizeof p->note - used, fmt, what);
}

static void plot_loop(const plot_ctx *pc, plot_files *pf, int width, int height) {
    const char *formats = pc->o->png && pc->o->svg ? "png svg" : pc->o->png ? "png" : "svg";
    fprintf(pf->gp,
            "do for [fmt in \"%s\"] {\n"
            "    if (fmt eq \"png\") {\n"
            "        set terminal pngcairo size %d,%d font \"DejaVu Sans,11\" noenhanced\n"
            "    } else {\n"
            "        set terminal svg size %d,%d font \"DejaVu Sans,11\" noenhanced "
            "background \"white\"\n"
            "    }\n"
            "    set output ",
            formats, width, height, width, height);
    gp_file(pf->gp, pf->p->base, "");
    fputs(".fmt\n", pf->gp);
}

static int plot_close(const plot_ctx *pc, plot_files *pf, kb_error *e) {
    fputs("    unset output\n}\n", pf->gp);
    int rc = close_out(pc, pf->gp, pf->p->base, "gp", e);
    if (close_out(pc, pf->dat, pf->p->base, "dat", rc == KB_OK ? e : NULL) != KB_OK) rc = KB_ERR;
    return rc;
}

/* The plot command of a plot with no point (no row timed, no baseline ran,
 * an op this build does not know): an empty frame with its title. gnuplot
 * refuses to autoscale y over no point at all, so the clause gives y a
 * range of its own (one that a log axis takes too). */
static const char nothing_drawn[] = "[][1:10] NaN notitle";

/* One plot clause's style for variant k: lines/points or bars. The variant
 * to ship on some case is heavier; one of the others is thin and light, with
 * no key entry of its own (others_entry gives the one they share). */
static void line_style(FILE *f, const plot_ctx *pc, int k) {
    const kb_op_view *v = pc->v;
    if (!pc->series.named[k]) {
        fprintf(f, "lc rgb \"%s\" lw 1 pt 7 ps 0.4 dt 1 notitle", others_colour);
        return;
    }
    int peer = v->variant_peer[k], ship = pc->series.ship[k];
    fprintf(f, "lc rgb \"%s\" lw %d pt %d ps %.1f dt %d title ", colour_of(v, k), ship ? 4 : 2,
            point_of(v, k), ship ? 1.5 : 1.1, peer ? 2 : 1);
    gp_quote(f, v->variants[k]);
}

static void bar_style(FILE *f, const plot_ctx *pc, int k) {
    const kb_op_view *v = pc->v;
    if (!pc->series.named[k])
        fprintf(f, "lc rgb \"%s\" fs solid 0.9 border lc rgb \"%s\" notitle", others_colour,
                others_colour);
    else if (v->variant_peer[k])
        fprintf(f, "lc rgb \"%s\" fs pattern 4 border lc rgb \"%s\" title ", colour_of(v, k),
                colour_of(v, k));
    else
        fprintf(f, "lc rgb \"%s\" lw %d fs solid 0.9 border lc rgb \"%s\" title ", colour_of(v, k),
                pc->series.ship[k] ? 3 : 1, pc->series.ship[k] ? "#000000" : "#333333");
    if (pc->series.named[k]) gp_quote(f, v->variants[k]);
}

/* ---- the key, placed by hand ----
 * gnuplot's own placement splits a key too tall for the canvas into columns
 * that run off it, and prints a title of several lines over the entries below
 * it. So every title is one line, and the key gets a column of its own to the
 * right of the plot: as wide as its longest title at KEY_CHAR_PX a character
 * (DejaVu Sans at 11 points takes 6-7 px a character in the SVG, 7.5-8.5 in
 * the PNG: cairo draws points at 96 dpi), KEY_LINE_PX a line (both terminals
 * space 11-point entries by 16.5-17 px), and under it the names of the
 * others, wrapped, in 9 points (LIST_*: up to 7 px a character in the PNG). */
enum {
    KEY_CHAR_PX = 9,
    KEY_SAMPLE_PX = 64, /* the sample line and the gaps around it */
    KEY_LINE_PX = 18,
    KEY_TOP_PX = 30, /* from the top of the plot area to the first entry */
    LIST_CHAR_PX = 7,
    LIST_LINE_PX = 14,
};

typedef struct key_plan {
    int entries;       /* key lines */
    int others;        /* variants drawn here under "others" */
    int width, height; /* px of the key's column */
    char others_title[64];
    char list[2600]; /* the others' names, ", "-joined, lines split by '\n'; "" */
    int list_lines;
} key_plan;

/* The key of a plot that draws the variants with drawn[k] set, after
 * nextra entries of its own (ceilings) whose longest title has extra_len
 * characters. */
static void key_plan_make(const plot_ctx *pc, const int *drawn, int nextra, size_t extra_len,
                          key_plan *kp) {
    const kb_op_view *v = pc->v;
    memset(kp, 0, sizeof *kp);
    size_t longest = extra_len, longest_other = 0;
    kp->entries = nextra;
    for (int k = 0; k < v->nvariants; k++) {
        if (!drawn[k]) continue;
        size_t len = strlen(v->variants[k]);
        if (pc->series.named[k]) {
            kp->entries++;
            longest = len > longest ? len : longest;
        } else {
            kp->others++;
            longest_other = len > longest_other ? len : longest_other;
        }
    }
    if (kp->others) {
        snprintf(kp->others_title, sizeof kp->others_title,
                 "others (%d of ours), named below:", kp->others);
        size_t len = strlen(kp->others_title);
        longest = len > longest ? len : longest;
        kp->entries++;
    }
    kp->width = KEY_SAMPLE_PX + KEY_CHAR_PX * (int)longest + 16;
    int list_chars = (kp->width - 24) / LIST_CHAR_PX;
    if ((int)longest_other + 1 > list_chars) {
        list_chars = (int)longest_other + 1;
        kp->width = 24 + LIST_CHAR_PX * list_chars;
    }
    /* The list: names in the view's order, a line filled up to list_chars. */
    size_t used = 0;
    int col = 0;
    for (int k = 0; k < v->nvariants && kp->others; k++) {
        if (!drawn[k] || pc->series.named[k]) continue;
        int len = (int)strlen(v->variants[k]), wrap = col && col + 2 + len + 1 > list_chars;
        const char *sep = !col ? "" : wrap ? ",\n" : ", ";
        if (wrap) col = 0;
        kp->list_lines += !kp->list_lines || wrap;
        int n = snprintf(kp->list + used, sizeof kp->list - used, "%s%s", sep, v->variants[k]);
        if (n < 0 || (size_t)n >= sizeof kp->list - used) break;
        used += (size_t)n;
        col += (col ? 2 : 0) + len;
    }
    kp->height = KEY_TOP_PX + kp->entries * KEY_LINE_PX +
                 (kp->list_lines ? 12 + kp->list_lines * LIST_LINE_PX : 0) + 20;
}

/* The key at (x, top) in pixels of a width x height canvas, and the list of
 * the others under it. Inside the terminal loop. */
static void key_place(FILE *gp, const key_plan *kp, int width, int height, int x, int top) {
    fprintf(gp, "    set key at screen %.4f, screen %.4f left top Left reverse samplen 3\n",
            (double)x / width, 1 - (double)(top + KEY_TOP_PX) / height);
    if (!kp->list[0]) return;
    fputs("    set label 1 ", gp);
    gp_quote(gp, kp->list);
    fprintf(gp, " at screen %.4f, screen %.4f left front font \",9\" tc rgb \"#666666\"\n",
            (double)(x + 12) / width,
            1 - (double)(top + KEY_TOP_PX + kp->entries * KEY_LINE_PX + 16) / height);
}

/* The key entry the others share, as a clause of the plot command. */
static void others_entry(FILE *gp, const key_plan *kp, int bars) {
    if (!kp->others) return;
    if (bars)
        fprintf(gp, ", \\\n        NaN with boxes lc rgb \"%s\" fs solid 0.9 title ",
                others_colour);
    else
        fprintf(gp, ", \\\n        NaN with linespoints lc rgb \"%s\" lw 1 pt 7 ps 0.4 title ",
                others_colour);
    gp_quote(gp, kp->others_title);
}

/* What the caption adds about the key: how a crowded one is grouped, and
 * which lines are heavier. */
static void series_caption(const plot_ctx *pc, const key_plan *kp, kb_plot *p, int bars) {
    int ships = 0, named = 0;
    for (int k = 0; k < pc->v->nvariants; k++) {
        ships += pc->series.ship[k];
        named += pc->series.named[k] && !pc->v->variant_peer[k];
    }
    size_t used = strlen(p->caption);
    char *at = p->caption + used;
    size_t room = sizeof p->caption - used;
    if (kp->others) {
        int n = snprintf(at, room,
                         ". Too many variants for one key: the %d of ours nearest the top on "
                         "any case (the variants to ship first, then by best place, then by "
                         "mean time over the fastest) are named with the peers; the other %d "
                         "are drawn thin and light grey under 'others' and named under the key",
                         named, kp->others);
        if (n < 0 || (size_t)n >= room) return;
        at += n;
        room -= (size_t)n;
    }
    if (ships)
        snprintf(at, room, "%s the variant to ship on some case (the fastest that PASSed)",
                 kp->others ? (bars ? "; black-edged:" : "; heavy:")
                            : (bars ? ". Black-edged:" : ". Heavy:"));
}

/* x: the op's minimum bytes moved, log scale, in B/kB/MB/GB. */
static void size_axis(FILE *gp) {
    fputs("set logscale x\nset format x \"%.0s %cB\"\n"
          "set xlabel \"minimum bytes moved per launch (the op's cost model)\"\n",
          gp);
}

static double timed_us(const kb_op_view *v, int c, int k) {
    const kb_result *r = kb_view_cell(v, c, k);
    return r && kb_result_timed(r) ? r->median_us : NAN;
}

/* ---- time against size ---- */

/* A plot of one panel: its area plot_w x plot_h px (margins included), the
 * key's column to its right. Opens the terminal loop. */
static void single_layout(const plot_ctx *pc, plot_files *pf, const key_plan *kp, int plot_w,
                          int plot_h) {
    int width = plot_w + kp->width;
    int height = plot_h > kp->height + 80 ? plot_h : kp->height + 80;
    fprintf(pf->gp, "set rmargin at screen %.4f\n", (double)plot_w / width);
    plot_loop(pc, pf, width, height);
    key_place(pf->gp, kp, width, height, plot_w + 10, 40);
}

static int plot_time(plot_ctx *pc, kb_error *e) {
    const kb_op_view *v = pc->v;
    int nv = v->nvariants;
    int *drawn = calloc((size_t)(nv ? nv : 1), sizeof *drawn);
    if (!drawn) return kb_fail(e, "out of host memory");
    for (int k = 0; k < nv; k++)
        for (int c = 0; c < v->ncases; c++) {
            const kb_result *r = kb_view_cell(v, c, k);
            drawn[k] |= r && kb_result_timed(r) && v->bytes[c] > 0;
        }
    key_plan kp;
    key_plan_make(pc, drawn, 0, 0, &kp);
    plot_files pf;
    if (plot_open(pc, "time",
                  "median time per launch against the minimum bytes the op must move, per "
                  "variant (log-log; error bars p10-p90; dashed: peers)",
                  "median time vs bytes moved", &pf, e) != KB_OK) {
        free(drawn);
        return KB_ERR;
    }
    series_caption(pc, &kp, pf.p, 0);
    size_axis(pf.gp);
    fputs("set logscale y\nset ylabel \"median time per launch (µs)\"\n", pf.gp);
    int block = 0, unsized = 0;
    for (int c = 0; c < v->ncases; c++) unsized += !(v->bytes[c] > 0);
    single_layout(pc, &pf, &kp, 820, 650);
    fputs("    plot ", pf.gp);
    for (int i = 0; i < nv; i++) {
        int k = pc->series.order[i];
        if (!drawn[k]) continue;
        fputs(block ? "\n\n# " : "# ", pf.dat);
        comment_text(pf.dat, v->variants[k]);
        fputc('\n', pf.dat);
        for (int c = 0; c < v->ncases; c++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!r || !kb_result_timed(r) || !(v->bytes[c] > 0)) continue;
            double lo = r->p10_us > 0 ? r->p10_us : r->median_us;
            double hi = r->p90_us > 0 ? r->p90_us : r->median_us;
            fprintf(pf.dat, "%.6g %.6g %.6g %.6g  # ", v->bytes[c], r->median_us, lo, hi);
            comment_text(pf.dat, v->cases[c]);
            fputc('\n', pf.dat);
        }
        fputs(block ? ", \\\n        " : "\\\n        ", pf.gp);
        gp_file(pf.gp, pf.p->base, "dat");
        fprintf(pf.gp, " index %d using 1:2:3:4 with yerrorlines ", block);
        line_style(pf.gp, pc, k);
        block++;
    }
    if (!block)
        fputs(nothing_drawn, pf.gp);
    else
        others_entry(pf.gp, &kp, 0);
    fputc('\n', pf.gp);
    free(drawn);
    if (unsized) {
        char n[32];
        snprintf(n, sizeof n, "%d", unsized);
        note_add(pf.p, "%s case(s) have no bytes value and are not drawn. ", n);
    }
    return plot_close(pc, &pf, e);
}

/* ---- bars per case: speedup, workspace ---- */

typedef double (*bar_value_fn)(const plot_ctx *pc, int c, int k, int base);

static double speedup_value(const plot_ctx *pc, int c, int k, int base) {
    if (base < 0) return NAN;
    return timed_us(pc->v, c, base) / timed_us(pc->v, c, k);
}

static double time_value(const plot_ctx *pc, int c, int k, int base) {
    (void)base;
    return timed_us(pc->v, c, k);
}

static double workspace_value(const plot_ctx *pc, int c, int k, int base) {
    (void)base;
    const kb_result *r = kb_view_cell(pc->v, c, k);
    return r && kb_result_timed(r) && r->workspace_bytes >= 0 ? r->workspace_bytes / 1048576.0
                                                              : NAN;
}

/* Wrap a case label at spaces into lines of at most about `width`
 * characters (greedy; a longer token keeps a line of its own). */
static void wrap_label(char *s, int width) {
    int col = 0;
    for (char *p = s; *p;) {
        int token = (int)strcspn(p, " ");
        if (col && col + 1 + token > width) {
            p[-1] = '\n';
            col = 0;
        }
        col += (col ? 1 : 0) + token;
        p += token;
        if (*p) p++;
    }
}

static int longest_line(const char *s) {
    int longest = 0, n = 0;
    for (; *s; s++) {
        n = *s == '\n' ? 0 : n + 1;
        longest = n > longest ? n : longest;
    }
    return longest;
}

static int label_lines(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == '\n';
    return n;
}

typedef struct bar_spec {
    const char *kind, *caption, *what, *ylabel;
    bar_value_fn value;
    int with_baseline;   /* tics name the baseline; a line at 1 */
    const char *nothing; /* note for variants timed but with no bar, or NULL */
} bar_spec;

static int plot_bars(plot_ctx *pc, const bar_spec *s, kb_error *e) {
    const kb_op_view *v = pc->v;
    int nv = v->nvariants, nc = v->ncases;
    int *drawn = calloc((size_t)nv, sizeof *drawn), *base = calloc((size_t)nc, sizeof *base);
    if (!drawn || !base) {
        free(drawn);
        free(base);
        return kb_fail(e, "out of host memory");
    }
    double lo = INFINITY, hi = 0;
    int ndrawn = 0;
    for (int c = 0; c < nc; c++) {
        base[c] = s->with_baseline ? kb_view_baseline(v, c, pc->o->baseline) : -1;
        for (int k = 0; k < nv; k++) {
            double x = s->value(pc, c, k, base[c]);
            if (!(x > 0)) continue;
            drawn[k] = 1;
            lo = fmin(lo, x);
            hi = fmax(hi, x);
        }
    }
    for (int k = 0; k < nv; k++) ndrawn += drawn[k];
    key_plan kp;
    key_plan_make(pc, drawn, 0, 0, &kp);
    plot_files pf;
    if (plot_open(pc, s->kind, s->caption, s->what, &pf, e) != KB_OK) {
        free(drawn);
        free(base);
        return KB_ERR;
    }
    series_caption(pc, &kp, pf.p, 1);
    int listed = 0;
    for (int k = 0; s->nothing && k < nv; k++) {
        int timed = 0;
        for (int c = 0; c < nc; c++) timed |= timed_us(v, c, k) > 0;
        if (!timed || drawn[k] || v->variant_peer[k]) continue;
        note_add(pf.p, "%s", listed++ ? ", " : s->nothing);
        note_add(pf.p, "%s", v->variants[k]);
    }
    if (listed) note_add(pf.p, "%s", ". ");
    int log_y = hi / lo > 30;
    fputs("set style data histogram\nset style histogram clustered gap 1\nset boxwidth 0.9\n"
          "set ylabel ",
          pf.gp);
    gp_quote(pf.gp, s->ylabel);
    fprintf(pf.gp, "\nset xtics nomirror scale 0 font \",9\"\nunset mxtics\n%s",
            log_y ? "set logscale y\n" : "set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n");
    if (log_y) fprintf(pf.gp, "set yrange [%g:%g]\n", lo / 2, hi * 2);
    if (s->with_baseline)
        fputs("set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "
              "\"#555555\" front\n",
              pf.gp);
    /* Tic labels: the short case, wrapped, with its baseline. */
    fputs("set xtics (", pf.gp);
    int lines = 1, widest = 1;
    fprintf(pf.dat, "# case");
    for (int i = 0; i < nv; i++)
        if (drawn[pc->series.order[i]]) {
            fputc(' ', pf.dat);
            comment_text(pf.dat, v->variants[pc->series.order[i]]);
        }
    fputc('\n', pf.dat);
    for (int c = 0; c < nc; c++) {
        char label[1400], shortform[1100];
        kb_params_short(v->def, v->cases[c], shortform, sizeof shortform);
        if (s->with_baseline && base[c] < 0) note_add(pf.p, "No baseline ran on: %s. ", shortform);
        wrap_label(shortform, 14);
        if (s->with_baseline && base[c] < 0) {
            snprintf(label, sizeof label, "%s\n(no baseline ran)", shortform);
        } else if (s->with_baseline && !pc->o->baseline) {
            snprintf(label, sizeof label, "%s\nvs %s", shortform, v->variants[base[c]]);
        } else {
            snprintf(label, sizeof label, "%s", shortform);
        }
        lines = label_lines(label) > lines ? label_lines(label) : lines;
        widest = longest_line(label) > widest ? longest_line(label) : widest;
        fprintf(pf.gp, "%s", c ? ", " : "");
        gp_quote(pf.gp, label);
        fprintf(pf.gp, " %d", c);
        fprintf(pf.dat, "%d", c);
        for (int i = 0; i < nv; i++) {
            int k = pc->series.order[i];
            if (!drawn[k]) continue;
            double x = s->value(pc, c, k, base[c]);
            if (x > 0)
                fprintf(pf.dat, " %.6g", x);
            else
                fputs(" ?", pf.dat);
        }
        fputs("  # ", pf.dat);
        comment_text(pf.dat, v->cases[c]);
        fputc('\n', pf.dat);
    }
    fprintf(pf.gp, ")\nset bmargin %d\n", lines + 3);
    /* ~7 px a character of the 9-point tic font, so that labels do not meet. */
    int cluster = ndrawn * 24 > widest * 7 + 24 ? ndrawn * 24 : widest * 7 + 24;
    int plot_w = (nc + 1) * cluster + 120;
    plot_w = plot_w < 600 ? 600 : plot_w > 3700 ? 3700 : plot_w;
    single_layout(pc, &pf, &kp, plot_w, 520 + 15 * lines);
    fputs("    plot ", pf.gp);
    int col = 2;
    for (int i = 0; i < nv; i++) {
        int k = pc->series.order[i];
        if (!drawn[k]) continue;
        fputs(col > 2 ? ", \\\n        " : "\\\n        ", pf.gp);
        gp_file(pf.gp, pf.p->base, "dat");
        fprintf(pf.gp, " using %d ", col);
        bar_style(pf.gp, pc, k);
        col++;
    }
    if (col == 2)
        fputs(nothing_drawn, pf.gp);
    else
        others_entry(pf.gp, &kp, 1);
    fputc('\n', pf.gp);
    free(drawn);
    free(base);
    return plot_close(pc, &pf, e);
}

/* ---- lines along one axis, a panel per combination of the other axes ---- */

/* The panels share one image (gnuplot multiplot), not a file each: the file
 * names stay those of the plot without panels (the README links them), the
 * panels share one y range and one key, so f32 against f16 reads across at
 * a glance, and a reader opens one picture per question. */

typedef double (*along_value_fn)(const plot_ctx *pc, int c, int k, int base, double *lo,
                                 double *hi);

typedef struct along_spec {
    const char *kind, *caption, *what, *ylabel;
    along_value_fn value;
    int with_baseline;         /* speedups: per case baseline, a dashed line at 1 */
    int error_bars;            /* lo..hi drawn (p10-p90) */
    int log_y;                 /* log y whatever the range (else only above 30x) */
    double ceiling;            /* a dashed line at this y, 0 for none */
    const char *ceiling_title; /* its key entry */
} along_spec;

static double along_time(const plot_ctx *pc, int c, int k, int base, double *lo, double *hi) {
    (void)base;
    const kb_result *r = kb_view_cell(pc->v, c, k);
    if (!r || !kb_result_timed(r)) return NAN;
    *lo = r->p10_us > 0 ? r->p10_us : r->median_us;
    *hi = r->p90_us > 0 ? r->p90_us : r->median_us;
    return r->median_us;
}

static double along_speedup(const plot_ctx *pc, int c, int k, int base, double *lo, double *hi) {
    double x = base >= 0 ? timed_us(pc->v, c, base) / timed_us(pc->v, c, k) : NAN;
    *lo = *hi = x;
    return x;
}

static double along_gbps(const plot_ctx *pc, int c, int k, int base, double *lo, double *hi) {
    (void)base;
    const kb_result *r = kb_view_cell(pc->v, c, k);
    double x = r && kb_result_timed(r) && r->gbps > 0 ? r->gbps : NAN;
    *lo = *hi = x;
    return x;
}

/* What the steps of plot_along share: per case its baseline (-1: none) and
 * per (panel, x) its case (-1: none), per (panel, variant) its data block
 * (-1: not drawn there), per variant whether any panel draws it. */
typedef struct along_plot {
    const along_spec *s;
    int *base, *at, *block, *drawn;
    double ylo, yhi;          /* over every panel, with the ceiling and the line at 1 */
    int first_base, one_base; /* the first case's baseline; whether every case has it */
    int lines;                /* lines of the longest x tic label */
    char ylabel[300];
} along_plot;

static void along_plot_free(along_plot *ap) {
    free(ap->base);
    free(ap->at);
    free(ap->block);
    free(ap->drawn);
}

static int along_plot_make(const plot_ctx *pc, const along_spec *s, along_plot *ap, kb_error *e) {
    const kb_op_view *v = pc->v;
    const kb_along *a = &pc->along;
    int nv = v->nvariants, nc = v->ncases, np = a->npanels, nx = a->nx;
    *ap = (along_plot){.s = s, .ylo = INFINITY, .first_base = -1, .one_base = 1, .lines = 1};
    ap->base = calloc((size_t)nc, sizeof *ap->base);
    ap->at = malloc((size_t)(np * nx) * sizeof *ap->at);
    ap->block = malloc((size_t)(np * nv) * sizeof *ap->block);
    ap->drawn = calloc((size_t)nv, sizeof *ap->drawn);
    if (!ap->base || !ap->at || !ap->block || !ap->drawn) {
        along_plot_free(ap);
        return kb_fail(e, "out of host memory");
    }
    for (int i = 0; i < np * nx; i++) ap->at[i] = -1;
    for (int c = 0; c < nc; c++) {
        ap->at[a->case_panel[c] * nx + a->case_x[c]] = c;
        ap->base[c] = s->with_baseline ? kb_view_baseline(v, c, pc->o->baseline) : -1;
    }
    return KB_OK;
}

/* The data: a block per (panel, variant), its points in x order. */
static void along_data(const plot_ctx *pc, along_plot *ap, plot_files *pf) {
    const kb_op_view *v = pc->v;
    const kb_along *a = &pc->along;
    const along_spec *s = ap->s;
    int nv = v->nvariants, np = a->npanels, nx = a->nx, nblocks = 0;
    double lo, hi;
    for (int p = 0; p < np; p++)
        for (int k = 0; k < nv; k++) {
            ap->block[p * nv + k] = -1;
            for (int i = 0; i < nx; i++) {
                int c = ap->at[p * nx + i];
                double y = c >= 0 ? s->value(pc, c, k, ap->base[c], &lo, &hi) : NAN;
                if (!(y > 0)) continue;
                if (ap->block[p * nv + k] < 0) {
                    fputs(nblocks ? "\n\n# panel " : "# panel ", pf->dat);
                    comment_text(pf->dat, a->panel[p][0] ? a->panel[p] : "(all)");
                    fputs(" | ", pf->dat);
                    comment_text(pf->dat, v->variants[k]);
                    fputc('\n', pf->dat);
                    ap->block[p * nv + k] = nblocks++;
                }
                ap->drawn[k] = 1;
                ap->ylo = fmin(ap->ylo, fmin(y, lo));
                ap->yhi = fmax(ap->yhi, fmax(y, hi));
                fprintf(pf->dat, "%.6g %.6g %.6g %.6g  # ", a->x[i], y, lo, hi);
                comment_text(pf->dat, v->cases[c]);
                fputc('\n', pf->dat);
            }
        }
    for (int c = 0; s->with_baseline && c < v->ncases; c++) {
        char shortform[1100];
        kb_params_short(v->def, v->cases[c], shortform, sizeof shortform);
        if (ap->base[c] < 0) note_add(pf->p, "No baseline ran on: %s. ", shortform);
        if (ap->base[c] >= 0 && ap->first_base < 0) ap->first_base = ap->base[c];
        if (ap->base[c] >= 0 && ap->base[c] != ap->first_base) ap->one_base = 0;
    }
    if (s->ceiling > 0) {
        ap->ylo = fmin(ap->ylo, s->ceiling);
        ap->yhi = fmax(ap->yhi, s->ceiling);
    }
    if (s->with_baseline) {
        ap->ylo = fmin(ap->ylo, 1);
        ap->yhi = fmax(ap->yhi, 1);
    }
}

/* x: the axis's values where they are numbers, else its positions. */
static void along_x_axis(const plot_ctx *pc, along_plot *ap, plot_files *pf) {
    const kb_along *a = &pc->along;
    int nx = a->nx;
    char xlabel[700];
    snprintf(xlabel, sizeof xlabel, "%s%s%s%s", a->axis, a->with[0] ? " (with " : "", a->with,
             a->with[0] ? ")" : "");
    fputs("set xlabel ", pf->gp);
    gp_quote(pf->gp, xlabel);
    fputs("\nset xtics nomirror font \",9\"\nunset mxtics\nset xtics (", pf->gp);
    for (int i = 0; i < nx; i++) {
        char label[KB_ALONG_LABEL];
        /* "segments=32x4096" under an axis named segments: the value says it. */
        size_t axis_len = strlen(a->axis);
        const char *value = a->xlabel[i];
        if (!a->with[0] && strncmp(value, a->axis, axis_len) == 0 && value[axis_len] == '=')
            value += axis_len + 1;
        snprintf(label, sizeof label, "%s", value);
        if (!a->numeric) wrap_label(label, 12);
        ap->lines = label_lines(label) > ap->lines ? label_lines(label) : ap->lines;
        fprintf(pf->gp, "%s", i ? ", " : "");
        gp_quote(pf->gp, label);
        fprintf(pf->gp, " %.6g", a->x[i]);
    }
    /* gnuplot puts the axis label one tic line below the axis, whatever the
     * tic labels' lines: move it below all of them. */
    fprintf(pf->gp, ")\nset xlabel offset 0,%d\n", 1 - ap->lines);
    double x0 = a->x[0], x1 = a->x[nx - 1];
    if (a->log_x)
        fprintf(pf->gp, "set logscale x\nset xrange [%.6g:%.6g]\n", x0 / 1.4, x1 * 1.4);
    else if (a->numeric)
        fprintf(pf->gp, "set xrange [%.6g:%.6g]\n", x0 - (x1 - x0) * 0.06, x1 + (x1 - x0) * 0.06);
    else
        fprintf(pf->gp, "set xrange [-0.4:%.6g]\n", nx - 0.6);
}

static void along_y_axis(const plot_ctx *pc, along_plot *ap, plot_files *pf) {
    const along_spec *s = ap->s;
    if (s->with_baseline && ap->one_base && ap->first_base >= 0)
        snprintf(ap->ylabel, sizeof ap->ylabel, "speedup over %s (×, higher is faster)",
                 pc->v->variants[ap->first_base]);
    else
        snprintf(ap->ylabel, sizeof ap->ylabel, "%s", s->ylabel);
    if (s->with_baseline && !ap->one_base)
        note_add(pf->p, "%s",
                 "The baseline differs between cases (the first of the op's baseline list "
                 "that ran). ");
    /* One y range for every panel, so that panels compare by eye. */
    if (ap->yhi > 0 && (s->log_y || ap->yhi / ap->ylo > 30))
        fprintf(pf->gp, "set logscale y\nset yrange [%.6g:%.6g]\n", ap->ylo / 1.5, ap->yhi * 1.5);
    else if (ap->yhi > 0)
        fprintf(pf->gp, "set yrange [0:%.6g]\n", ap->yhi * 1.1);
}

/* The panel's plot command: the ceiling, the line at 1, a line per variant. */
static void along_panel_plot(const plot_ctx *pc, const along_plot *ap, plot_files *pf,
                             const key_plan *kp, int p, const char *ceiling_title) {
    const along_spec *s = ap->s;
    int nv = pc->v->nvariants;
    fputs("    plot ", pf->gp);
    int clauses = 0;
    if (s->ceiling > 0) {
        fprintf(pf->gp, "%.6g with lines lc rgb \"#000000\" lw 2 dt 2 title ", s->ceiling);
        gp_quote(pf->gp, ceiling_title);
        clauses++;
    }
    if (s->with_baseline) {
        fprintf(pf->gp, "%s1 with lines lc rgb \"#555555\" dt 2 notitle", clauses ? ", " : "");
        clauses++;
    }
    for (int i = 0; i < nv; i++) {
        int k = pc->series.order[i], b = ap->block[p * nv + k];
        /* The first panel's key names a variant it does not draw (NaN). */
        if (!ap->drawn[k] || (b < 0 && (p > 0 || !pc->series.named[k]))) continue;
        if (b < 0)
            fprintf(pf->gp, "%s\\\n        NaN with linespoints ", clauses ? ", " : "");
        else {
            fputs(clauses ? ", \\\n        " : "\\\n        ", pf->gp);
            gp_file(pf->gp, pf->p->base, "dat");
            fprintf(pf->gp, " index %d using %s ", b,
                    s->error_bars ? "1:2:3:4 with yerrorlines" : "1:2 with linespoints");
        }
        line_style(pf->gp, pc, k);
        clauses++;
    }
    if (!clauses)
        fputs(nothing_drawn, pf->gp);
    else if (p == 0)
        others_entry(pf->gp, kp, 0);
    fputc('\n', pf->gp);
}

/* Layout in pixels: panels in a grid, the key to their right, panels as
 * tall as the key needs. The left margin holds tic labels of 6 digits and
 * the y label beside them in the PNG's font too. */
static void along_panels(const plot_ctx *pc, const along_plot *ap, plot_files *pf,
                         const key_plan *kp, const char *ceiling_title) {
    int np = pc->along.npanels, lines = ap->lines;
    int cols = np <= 3 ? np : np == 4 ? 2 : 3, rows = (np + cols - 1) / cols;
    int pw = np == 1 ? 800 : 560, bottom = 75 + 16 * lines, ph = 380 + 16 * lines, top = 50;
    if (rows * ph < kp->height) ph = (kp->height + rows - 1) / rows;
    int width = cols * pw + kp->width, height = rows * ph + top;
    plot_loop(pc, pf, width, height);
    if (np > 1) {
        char title[600];
        title_text(pc, ap->s->what, title, sizeof title);
        fputs("    set multiplot title ", pf->gp);
        gp_quote(pf->gp, title);
        fputc('\n', pf->gp);
    }
    for (int p = 0; p < np; p++) {
        int col = p % cols, row = p / cols;
        fprintf(pf->gp,
                "    set lmargin at screen %.4f\n    set rmargin at screen %.4f\n"
                "    set tmargin at screen %.4f\n    set bmargin at screen %.4f\n",
                (col * pw + 115.0) / width, ((col + 1) * pw - 20.0) / width,
                1 - (top + row * ph + 30.0) / height,
                1 - (top + (row + 1.0) * ph - bottom) / height);
        /* The panels of a row share the y axis: its label once, at the left. */
        fputs(col ? "    unset ylabel\n" : "    set ylabel ", pf->gp);
        if (!col) {
            gp_quote(pf->gp, ap->ylabel);
            fputc('\n', pf->gp);
        }
        if (np > 1) {
            fputs("    set title ", pf->gp);
            gp_quote(pf->gp, pc->along.panel[p]);
            fputc('\n', pf->gp);
        }
        /* One key for the image: the first panel's, listing every variant drawn. */
        if (p == 0)
            key_place(pf->gp, kp, width, height, cols * pw + 10, top);
        else
            fputs("    unset key\n    unset label 1\n", pf->gp);
        along_panel_plot(pc, ap, pf, kp, p, ceiling_title);
    }
    if (np > 1) fputs("    unset multiplot\n", pf->gp);
}

static int plot_along(plot_ctx *pc, const along_spec *s, kb_error *e) {
    along_plot ap;
    if (along_plot_make(pc, s, &ap, e) != KB_OK) return KB_ERR;
    plot_files pf;
    if (plot_open(pc, s->kind, s->caption, s->what, &pf, e) != KB_OK) {
        along_plot_free(&ap);
        return KB_ERR;
    }
    along_data(pc, &ap, &pf);
    along_x_axis(pc, &ap, &pf);
    along_y_axis(pc, &ap, &pf);
    key_plan kp;
    const char *ceiling_title = s->ceiling > 0 && s->ceiling_title ? s->ceiling_title : "";
    key_plan_make(pc, ap.drawn, s->ceiling > 0, strlen(ceiling_title), &kp);
    series_caption(pc, &kp, pf.p, 0);
    along_panels(pc, &ap, &pf, &kp, ceiling_title);
    along_plot_free(&ap);
    return plot_close(pc, &pf, e);
}

/* ---- roofline ---- */

/* The peaks the rows were measured against: the CSV's '#' line, else what
 * the rows' percentages imply. */
static void view_peaks(const plot_ctx *pc, double *bw, double *flops) {
    const kb_result_file *f = &pc->res->files[pc->v->first_file];
    *bw = f->peak_copy_gbps;
    *flops = f->peak_sgemm_gflops;
    for (int c = 0; c < pc->v->ncases; c++)
        for (int k = 0; k < pc->v->nvariants; k++) {
            const kb_result *r = kb_view_cell(pc->v, c, k);
            if (!r || !kb_result_timed(r)) continue;
            if (!(*bw > 0) && r->pct_peak_bw > 0) *bw = r->gbps * 100 / r->pct_peak_bw;
            if (!(*flops > 0) && r->pct_peak_flops > 0)
                *flops = r->gflops * 100 / r->pct_peak_flops;
        }
}

/* The rows variant k has on the roofline: arithmetic (GFLOP/s against
 * FLOP per byte) or not (GB/s against bytes). */
static int roofline_row(const kb_result *r, int arithmetic) {
    if (!r || !kb_result_timed(r) || !(r->bytes > 0)) return 0;
    return arithmetic ? r->flops > 0 && r->gflops > 0 : r->gbps > 0;
}

/* What the steps of plot_roofline share. */
typedef struct roof_plan {
    int arithmetic;                    /* GFLOP/s against FLOP per byte, else GB/s against bytes */
    double ai_lo, ai_hi, gf_lo, gf_hi; /* the arithmetic rows' ranges */
    double peak_bw, peak_flops;
    double x_lo, x_hi, ridge; /* the roof's two segments, where both peaks are known */
    /* The ceilings are key entries of one line each: a title of several lines
     * would print over the entries under it. "": not drawn. */
    char copy_title[80], flops_title[80];
} roof_plan;

static void roofline_ranges(const kb_op_view *v, roof_plan *rl) {
    *rl = (roof_plan){.ai_lo = INFINITY, .gf_lo = INFINITY};
    for (int c = 0; c < v->ncases; c++)
        for (int k = 0; k < v->nvariants; k++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!roofline_row(r, 1)) continue;
            rl->arithmetic = 1;
            rl->ai_lo = fmin(rl->ai_lo, r->flops / r->bytes);
            rl->ai_hi = fmax(rl->ai_hi, r->flops / r->bytes);
            rl->gf_lo = fmin(rl->gf_lo, r->gflops);
            rl->gf_hi = fmax(rl->gf_hi, r->gflops);
        }
}

static void roofline_axes(const kb_op_view *v, roof_plan *rl, plot_files *pf) {
    if (rl->arithmetic) {
        fputs("set logscale xy\nset xlabel \"arithmetic intensity (FLOP per byte moved)\"\n"
              "set ylabel \"achieved GFLOP/s\"\n",
              pf->gp);
        if (rl->peak_bw > 0 && rl->peak_flops > 0) {
            /* Show the ridge point, where the two ceilings meet, with the data. */
            rl->ridge = rl->peak_flops / rl->peak_bw;
            rl->x_lo = fmin(rl->ai_lo, rl->ridge) / 3;
            rl->x_hi = fmax(rl->ai_hi, rl->ridge) * 3;
            fprintf(pf->gp, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", rl->x_lo, rl->x_hi,
                    fmin(rl->gf_lo, rl->x_lo * rl->peak_bw) / 2,
                    fmax(rl->gf_hi, rl->peak_flops) * 2);
            snprintf(rl->copy_title, sizeof rl->copy_title, "copy %.0f GB/s (measured ceiling)",
                     rl->peak_bw);
            snprintf(rl->flops_title, sizeof rl->flops_title,
                     "SGEMM %.0f GFLOP/s (measured ceiling)", rl->peak_flops);
        }
        return;
    }
    /* Log y: a latency-bound op reaches a small fraction of the peak, and
     * still shows against it. */
    double bw_lo = INFINITY, bw_hi = 0;
    for (int c = 0; c < v->ncases; c++)
        for (int k = 0; k < v->nvariants; k++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!r || !kb_result_timed(r) || !(r->gbps > 0)) continue;
            bw_lo = fmin(bw_lo, r->gbps);
            bw_hi = fmax(bw_hi, r->gbps);
        }
    size_axis(pf->gp);
    fputs("set logscale y\nset ylabel \"achieved bandwidth (GB/s, by the cost model)\"\n", pf->gp);
    if (bw_hi > 0)
        fprintf(pf->gp, "set yrange [%.6g:%.6g]\n", bw_lo / 2, fmax(bw_hi, rl->peak_bw) * 2);
    if (rl->peak_bw > 0)
        snprintf(rl->copy_title, sizeof rl->copy_title, "copy peak %.0f GB/s", rl->peak_bw);
}

/* The ceilings first, under the points and at the top of the key; *block
 * and *clauses count the data blocks and plot clauses written. */
static void roofline_ceilings(const roof_plan *rl, plot_files *pf, int *block, int *clauses) {
    if (rl->flops_title[0]) {
        /* The roof as two segments of data that meet at the ridge: sampled
         * functions would leave a gap there. */
        fprintf(pf->dat,
                "# ceiling: copy\n%.6g %.6g\n%.6g %.6g\n\n\n# ceiling: SGEMM\n%.6g %.6g\n"
                "%.6g %.6g\n",
                rl->x_lo, rl->x_lo * rl->peak_bw, rl->ridge, rl->peak_flops, rl->ridge,
                rl->peak_flops, rl->x_hi, rl->peak_flops);
        const char *title[2] = {rl->copy_title, rl->flops_title};
        for (int j = 0; j < 2; j++) {
            fputs((*clauses)++ ? ", \\\n        " : "\\\n        ", pf->gp);
            gp_file(pf->gp, pf->p->base, "dat");
            fprintf(pf->gp, " index %d using 1:2 with lines lc rgb \"#000000\" lw 2 dt %d title ",
                    (*block)++, j ? 4 : 1);
            gp_quote(pf->gp, title[j]);
        }
    } else if (rl->copy_title[0]) {
        fprintf(pf->gp, "%.6g with lines lc rgb \"#000000\" lw 2 dt 2 title ", rl->peak_bw);
        gp_quote(pf->gp, rl->copy_title);
        (*clauses)++;
    }
}

/* A data block and a plot clause per variant drawn. */
static void roofline_points(const plot_ctx *pc, const roof_plan *rl, const int *drawn,
                            plot_files *pf, int *block, int *clauses) {
    const kb_op_view *v = pc->v;
    for (int i = 0; i < v->nvariants; i++) {
        int k = pc->series.order[i];
        if (!drawn[k]) continue;
        fputs(*block ? "\n\n# " : "# ", pf->dat);
        comment_text(pf->dat, v->variants[k]);
        fputc('\n', pf->dat);
        for (int c = 0; c < v->ncases; c++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!roofline_row(r, rl->arithmetic)) continue;
            fprintf(pf->dat, "%.6g %.6g  # ", rl->arithmetic ? r->flops / r->bytes : r->bytes,
                    rl->arithmetic ? r->gflops : r->gbps);
            comment_text(pf->dat, v->cases[c]);
            fputc('\n', pf->dat);
        }
        fputs((*clauses)++ ? ", \\\n        " : "\\\n        ", pf->gp);
        gp_file(pf->gp, pf->p->base, "dat");
        fprintf(pf->gp, " index %d using 1:2 with %s ", *block,
                rl->arithmetic ? "points" : "linespoints");
        line_style(pf->gp, pc, k);
        (*block)++;
    }
}

static int plot_roofline(plot_ctx *pc, kb_error *e) {
    const kb_op_view *v = pc->v;
    int nv = v->nvariants;
    roof_plan rl;
    roofline_ranges(v, &rl);
    int *drawn = calloc((size_t)(nv ? nv : 1), sizeof *drawn);
    if (!drawn) return kb_fail(e, "out of host memory");
    for (int k = 0; k < nv; k++)
        for (int c = 0; c < v->ncases; c++)
            drawn[k] |= roofline_row(kb_view_cell(v, c, k), rl.arithmetic);
    view_peaks(pc, &rl.peak_bw, &rl.peak_flops);
    plot_files pf;
    if (plot_open(pc, "roofline",
                  rl.arithmetic ? "roofline: achieved GFLOP/s against arithmetic intensity, under "
                                  "the measured copy-bandwidth and SGEMM ceilings"
                                : "achieved bandwidth (by the op's minimum-bytes model) against "
                                  "problem size, under the measured copy peak",
                  rl.arithmetic ? "roofline" : "achieved bandwidth vs copy peak", &pf,
                  e) != KB_OK) {
        free(drawn);
        return KB_ERR;
    }
    roofline_axes(v, &rl, &pf);
    if (!rl.copy_title[0])
        note_add(pf.p, "%s", "The CSV records no measured peaks: no ceilings drawn. ");
    key_plan kp;
    size_t extra_len = strlen(rl.copy_title) > strlen(rl.flops_title) ? strlen(rl.copy_title)
                                                                      : strlen(rl.flops_title);
    key_plan_make(pc, drawn, !!rl.copy_title[0] + !!rl.flops_title[0], extra_len, &kp);
    series_caption(pc, &kp, pf.p, 0);
    single_layout(pc, &pf, &kp, 820, 650);
    fputs("    plot ", pf.gp);
    int block = 0, clauses = 0;
    roofline_ceilings(&rl, &pf, &block, &clauses);
    roofline_points(pc, &rl, drawn, &pf, &block, &clauses);
    if (!clauses)
        fputs(nothing_drawn, pf.gp);
    else
        others_entry(pf.gp, &kp, 0);
    fputc('\n', pf.gp);
    free(drawn);
    return plot_close(pc, &pf, e);
}

/* ---- int64 against int32 indexing ---- */

static int twin_of(const kb_op_view *v, int k) {
    const char *name = v->variants[k];
    size_t n = strlen(name);
    if (n < 4 || strcmp(name + n - 4, "_i64") != 0) return -1;
    char twin[80];
    snprintf(twin, sizeof twin, "%.*s_i32", (int)(n - 4), name);
    return kb_view_variant(v, twin);
}

static int plot_index_cost(plot_ctx *pc, kb_error *e) {
    const kb_op_view *v = pc->v;
    int pairs = 0;
    for (int k = 0; k < v->nvariants; k++) pairs += twin_of(v, k) >= 0;
    if (!pairs) return KB_OK;
    plot_files pf;
    if (plot_open(pc, "index_cost",
                  "extra time of int64 indexing over the int32 twin, across sizes (the price "
                  "of never overflowing)",
                  "cost of int64 over int32 indices", &pf, e) != KB_OK)
        return KB_ERR;
    size_axis(pf.gp);
    fputs("set ylabel \"time of *_i64 / time of *_i32 − 1 (%)\"\n"
          "set arrow from graph 0, first 0 to graph 1, first 0 nohead dt 2 lc rgb \"#555555\"\n"
          "set yrange [*<0:0<*]\n",
          pf.gp);
    plot_loop(pc, &pf, 1100, 600);
    fputs("    plot ", pf.gp);
    int block = 0;
    for (int k = 0; k < v->nvariants; k++) {
        int t = twin_of(v, k), points = 0;
        if (t < 0) continue;
        for (int c = 0; c < v->ncases; c++) {
            double t64 = timed_us(v, c, k), t32 = timed_us(v, c, t);
            if (!(v->bytes[c] > 0)) continue;
            if (!(t32 > 0)) {
                char s[1100];
                const kb_result *r = kb_view_cell(v, c, t);
                kb_params_short(v->def, v->cases[c], s, sizeof s);
                if (r && r->status == KB_ROW_UNSUPPORTED) note_add(pf.p, "%s: ", s);
                if (r && r->status == KB_ROW_UNSUPPORTED)
                    note_add(pf.p, "%s (only int64 runs here). ", r->reason);
                continue;
            }
            if (!(t64 > 0)) continue;
            if (!points) {
                fputs(block ? "\n\n# " : "# ", pf.dat);
                comment_text(pf.dat, v->variants[k]);
                fputs(" vs ", pf.dat);
                comment_text(pf.dat, v->variants[t]);
                fputc('\n', pf.dat);
            }
            fprintf(pf.dat, "%.6g %.6g  # ", v->bytes[c], (t64 / t32 - 1) * 100);
            comment_text(pf.dat, v->cases[c]);
            fputc('\n', pf.dat);
            points++;
        }
        if (!points) continue;
        char title[200];
        snprintf(title, sizeof title, "%s vs %s", v->variants[k], v->variants[t]);
        fputs(block ? ", \\\n        " : "\\\n        ", pf.gp);
        gp_file(pf.gp, pf.p->base, "dat");
        fprintf(pf.gp, " index %d using 1:2 with linespoints lc rgb \"%s\" lw 2 pt %d title ",
                block, colour_of(v, k), point_of(v, k));
        gp_quote(pf.gp, title);
        block++;
    }
    if (!block) fputs(nothing_drawn, pf.gp);
    fputc('\n', pf.gp);
    return plot_close(pc, &pf, e);
}

/* ---- a variant of other semantics against the fastest exact one ---- */

static int is_exact(const kb_op_view *v, int k) {
    const kb_variant *var = kb_find_variant(v->op, v->variants[k]);
    return var && !(var->flags & (KB_INEXACT | KB_TEST_ONLY));
}

static int plot_vs_exact(plot_ctx *pc, int k, kb_error *e) {
    const kb_op_view *v = pc->v;
    char kind[48], caption[300], what[160];
    snprintf(kind, sizeof kind, "%s_vs_exact", v->variants[k]);
    snprintf(caption, sizeof caption,
             "%s (other semantics by design) against the fastest exact variant per case: time "
             "saved, and results the exact op keeps that it drops (from its note)",
             v->variants[k]);
    snprintf(what, sizeof what, "%s vs the fastest exact variant", v->variants[k]);
    plot_files pf;
    if (plot_open(pc, kind, caption, what, &pf, e) != KB_OK) return KB_ERR;
    fputs("# case exact_us inexact_us saved_us dropped\n", pf.dat);
    fputs("set xtics (", pf.gp);
    int lines = 1, rows = 0, counted = 0;
    for (int c = 0; c < v->ncases; c++) {
        double fast = timed_us(v, c, k), best = NAN;
        int bx = -1;
        for (int x = 0; x < v->nvariants; x++) {
            double t = is_exact(v, x) ? timed_us(v, c, x) : NAN;
            if (t > 0 && !(t >= best)) {
                best = t;
                bx = x;
            }
        }
        if (!(fast > 0) || bx < 0) continue;
        char shortform[1100], label[1200];
        kb_params_short(v->def, v->cases[c], shortform, sizeof shortform);
        wrap_label(shortform, 12);
        snprintf(label, sizeof label, "%s\nvs %s", shortform, v->variants[bx]);
        lines = label_lines(label) > lines ? label_lines(label) : lines;
        fprintf(pf.gp, "%s", rows ? ", " : "");
        gp_quote(pf.gp, label);
        fprintf(pf.gp, " %d", rows);
        double dropped = kb_view_cell(v, c, k)->dropped;
        fprintf(pf.dat, "%d %.6g %.6g %.6g ", rows, best, fast, best - fast);
        if (dropped >= 0) {
            fprintf(pf.dat, "%.0f", dropped);
            counted++;
        } else
            fputc('?', pf.dat);
        fputs("  # ", pf.dat);
        comment_text(pf.dat, v->cases[c]);
        fputc('\n', pf.dat);
        rows++;
    }
    /* Both panels share their margins, so that a case sits at one x in both. */
    fprintf(pf.gp,
            ")\nset xtics nomirror scale 0 font \",9\"\nunset mxtics\nset style data histogram\n"
            "set style histogram clustered gap 1\nset boxwidth 0.9\nset yrange [0:*]\n"
            "set offsets 0, 0, graph 0.15, 0\nset bmargin %d\n"
            "set lmargin at screen 0.09\nset rmargin at screen 0.74\n",
            lines + 1);
    /* a bar's label, "saved -1406 µs (-416%)", takes ~140 px at font 9 */
    plot_loop(pc, &pf, rows * 210 + 420 < 1000 ? 1000 : rows * 210 + 420, 700 + 30 * lines);
    /* A variant whose other semantics are numbers, not dropped results
     * (deform's half-precision path: its error is in the row's note), gets
     * the time panel alone. */
    char dropped_by[200];
    snprintf(dropped_by, sizeof dropped_by, "kept by the exact op,\ndropped by %s", v->variants[k]);
    fprintf(pf.gp, "    set multiplot layout %d,1\n    set ylabel \"median time (µs)\"\n    plot ",
            counted ? 2 : 1);
    gp_file(pf.gp, pf.p->base, "dat");
    fprintf(pf.gp,
            " using 2 lc rgb \"#8c8c8c\" fs solid 0.9 title \"fastest exact variant\", \\\n"
            "        \"\" using 3 lc rgb \"%s\" fs solid 0.9 title ",
            colour_of(v, k));
    gp_quote(pf.gp, v->variants[k]);
    fprintf(pf.gp,
            ", \\\n"
            "        \"\" using 0:($2 > $3 ? $2 : $3):(sprintf(\"saved %%.0f µs (%%.0f%%%%)\", "
            "$4, 100 * $4 / $2)) with labels offset 0,0.8 font \",9\" notitle\n"
            "    if (%d) {\n"
            "    unset title\n"
            "    set ylabel ",
            counted > 0);
    gp_quote(pf.gp, dropped_by);
    fputs("\n    plot ", pf.gp);
    gp_file(pf.gp, pf.p->base, "dat");
    fprintf(pf.gp,
            " using 5 lc rgb \"%s\" fs pattern 2 border lc rgb \"%s\" "
            "title \"dropped (from the row's note)\", \\\n"
            "        \"\" using 0:5:5 with labels offset 0,0.8 font \",9\" notitle\n"
            "    }\n"
            "    unset multiplot\n",
            colour_of(v, k), colour_of(v, k));
    if (!rows)
        note_add(pf.p, "%s", "No case has both this variant and an exact one timed. ");
    else if (!counted)
        note_add(pf.p, "%s",
                 "Its rows count no dropped results (its notes give how far its numbers are "
                 "from the exact op's): time alone. ");
    return plot_close(pc, &pf, e);
}

/* "against c_in (with c_out, h, w), a panel per combination of the other
 * axes that vary": what a plot along a is drawn against. */
static void along_caption(const kb_along *a, char *buf, size_t n) {
    snprintf(buf, n, "against %s%s%s%s%s", a->axis, a->with[0] ? " (with " : "", a->with,
             a->with[0] ? ")" : "",
             a->npanels > 1 ? ", a panel per combination of the other axes that vary" : "");
}

/* Median time per launch along the axis, p10-p90 as error bars. */
static along_spec along_time_spec(const char *kind, const char *caption, const char *what) {
    along_spec s = {
        .kind = kind,
        .caption = caption,
        .what = what,
        .ylabel = "median time per launch (µs)",
        .value = along_time,
        .error_bars = 1,
    };
    return s;
}

/* ---- CPU or GPU ---- */

/* The fastest host variant against the fastest device variant per case,
 * along the axis the report reads the crossover on (host_device.h): the
 * two-variant view of the cases where both PASSed, drawn as any view is. */
static int plot_cpu_gpu(const plot_ctx *pc, kb_error *e) {
    kb_host_device hd;
    if (kb_host_device_build(pc->v, pc->o->along, &hd, e) != KB_OK) return KB_ERR;
    int rc = KB_OK;
    if (hd.has_along) {
        plot_ctx both = *pc;
        both.v = &hd.both;
        both.along = hd.along;
        both.has_along = 1;
        /* Two lines, CPU and GPU, each already the fastest of its side: none heavier. */
        if (series_pick(&hd.both, 0, &both.series, e) != KB_OK) {
            kb_host_device_free(&hd);
            return KB_ERR;
        }
        char against[700], caption[1000];
        along_caption(&hd.along, against, sizeof against);
        snprintf(caption, sizeof caption,
                 "CPU or GPU: per case the fastest host (CPU) variant and the fastest device "
                 "(GPU) variant that PASSed, %s (log scale; error bars p10-p90)",
                 against);
        along_spec spec = along_time_spec("cpu_vs_gpu", caption, "CPU or GPU");
        spec.log_y = 1;
        rc = plot_along(&both, &spec, e);
        series_free(&both.series);
    }
    kb_host_device_free(&hd);
    return rc;
}

/* ---- all plots of a view ---- */

static void csv_stem(const char *path, char *buf, size_t n) {
    const char *slash = strrchr(path, '/');
    snprintf(buf, n, "%.200s", slash ? slash + 1 : path);
    size_t len = strlen(buf);
    if (len > 4 && strcmp(buf + len - 4, ".csv") == 0) buf[len - 4] = '\0';
}

/* The plots' file stem and the device named in their titles. */
static void plot_names(plot_ctx *pc) {
    const kb_results *res = pc->res;
    const kb_op_view *v = pc->v;
    char stem[210];
    csv_stem(res->files[v->first_file].path, stem, sizeof stem);
    snprintf(pc->stem, sizeof pc->stem, "%s.%s%s%s", stem, v->op, v->mode_in_name ? "." : "",
             v->mode_in_name ? v->mode : "");
    const char *gpu = res->files[v->first_file].gpu;
    snprintf(pc->device, sizeof pc->device, "%.*s", (int)strcspn(gpu, "(|"), gpu);
    size_t dl = strlen(pc->device);
    while (dl && pc->device[dl - 1] == ' ') pc->device[--dl] = '\0';
}

/* The plot set: only plots that decide something for this op's rows.
 *  - time and speedup, always: which variant, at which size. Along the
 *    sweep's axis where the cases form sweeps; else against bytes moved
 *    where every case has its own size; else bars per case, since a line
 *    through cases of one size (nms's distributions, class counts and
 *    thresholds at n=25200) draws a trend that is not there.
 *  - achieved GB/s and the roofline only where some row reaches a quarter
 *    of a measured ceiling (copy bandwidth or SGEMM): there they say
 *    which limit a variant is near, and whether tuning has room left.
 *    Below that the op is latency-bound (nms, rpn_proposals and topk move
 *    a few MB in tens of µs): a GB/s or GFLOP/s from its cost model
 *    measures launch and sync latency, and reads as "far from the memory
 *    limit" where memory is not the limit.
 *  - along an axis, GB/s is drawn against it (gbps) and the roofline only
 *    for ops that do arithmetic: for the others it would be the same
 *    points against bytes moved.
 *  - workspace where a variant uses some (memory is part of the choice),
 *    index_cost where int64/int32 twins ran, V_vs_exact per variant of
 *    other semantics. */
typedef struct plot_set {
    double peak_bw, peak_flops;
    int near_bw; /* some row reaches a quarter of the copy peak */
    int sized;   /* every case has a size of its own */
    int roofline;
} plot_set;

static void plot_set_pick(const plot_ctx *pc, plot_set *ps) {
    const kb_op_view *v = pc->v;
    view_peaks(pc, &ps->peak_bw, &ps->peak_flops);
    int arithmetic = 0, near_bw = 0, near_flops = 0, sized = 1;
    for (int c = 0; c < v->ncases; c++) {
        sized &= v->bytes[c] > 0;
        for (int d = 0; d < c; d++) sized &= v->bytes[d] != v->bytes[c];
        for (int k = 0; k < v->nvariants; k++) {
            const kb_result *r = kb_view_cell(v, c, k);
            if (!r || !kb_result_timed(r)) continue;
            arithmetic |= r->flops > 0 && r->gflops > 0;
            near_bw |= ps->peak_bw > 0 && r->gbps >= ps->peak_bw / 4;
            near_flops |= ps->peak_flops > 0 && r->gflops >= ps->peak_flops / 4;
        }
    }
    ps->near_bw = near_bw;
    ps->sized = sized;
    ps->roofline = arithmetic ? near_bw || near_flops : near_bw && !pc->has_along;
}

/* Time, speedup and (near the copy peak) GB/s along the axis. */
static int plot_along_set(plot_ctx *pc, const plot_set *ps, kb_error *e) {
    char axis_caption[700] = "";
    along_caption(&pc->along, axis_caption, sizeof axis_caption);
    char time_caption[1000], speedup_caption[1000], gbps_caption[1000];
    snprintf(time_caption, sizeof time_caption,
             "median time per launch %s, one line per variant (error bars p10-p90; dashed: "
             "peers)",
             axis_caption);
    snprintf(speedup_caption, sizeof speedup_caption,
             "speedup of each variant over the case's baseline %s (baseline time / variant "
             "time; above 1 is faster; dashed: peers)",
             axis_caption);
    snprintf(gbps_caption, sizeof gbps_caption,
             "achieved bandwidth (the op's minimum bytes / time) %s, under the measured copy "
             "peak",
             axis_caption);
    const along_spec time_along = along_time_spec("time", time_caption, "median time");
    const along_spec speedup_along = {
        .kind = "speedup",
        .caption = speedup_caption,
        .what = "speedup over the baseline",
        .ylabel = "speedup over the baseline (×, higher is faster)",
        .value = along_speedup,
        .with_baseline = 1,
    };
    char peak_title[64];
    snprintf(peak_title, sizeof peak_title, "copy peak %.0f GB/s", ps->peak_bw);
    const along_spec gbps_along = {
        .kind = "gbps",
        .caption = gbps_caption,
        .what = "achieved bandwidth",
        .ylabel = "achieved bandwidth (GB/s, by the cost model)",
        .value = along_gbps,
        .ceiling = ps->peak_bw,
        .ceiling_title = peak_title,
    };
    return plot_along(pc, &time_along, e) != KB_OK || plot_along(pc, &speedup_along, e) != KB_OK ||
                   (ps->near_bw && plot_along(pc, &gbps_along, e) != KB_OK)
               ? KB_ERR
               : KB_OK;
}

/* Time (against bytes moved, else bars) and speedup bars per case. */
static int plot_case_set(plot_ctx *pc, const plot_set *ps, kb_error *e) {
    static const bar_spec time_bars = {
        .kind = "time",
        .caption = "median time per launch of each variant, per case (the cases are scenarios "
                   "that share sizes, not one sweep: a line through them would join unlike "
                   "cases; hatched: peers)",
        .what = "median time per case",
        .ylabel = "median time per launch (µs)",
        .value = time_value,
    };
    static const bar_spec speedup = {
        .kind = "speedup",
        .caption = "speedup of each variant over the case's baseline (baseline time / variant "
                   "time; above 1 is faster; hatched: peers)",
        .what = "speedup over the baseline",
        .ylabel = "speedup over the baseline (×, higher is faster)",
        .value = speedup_value,
        .with_baseline = 1,
    };
    return (ps->sized ? plot_time(pc, e) : plot_bars(pc, &time_bars, e)) != KB_OK ||
                   plot_bars(pc, &speedup, e) != KB_OK
               ? KB_ERR
               : KB_OK;
}

/* Workspace, index cost, variants of other semantics, CPU against GPU. */
static int plot_extras(plot_ctx *pc, kb_error *e) {
    static const bar_spec workspace = {
        .kind = "workspace",
        .caption = "device workspace each variant allocates, per case (hatched: peers)",
        .what = "device workspace per variant",
        .ylabel = "workspace (MiB)",
        .value = workspace_value,
        .nothing = "No device workspace: ",
    };
    const kb_op_view *v = pc->v;
    int uses_workspace = 0;
    for (int c = 0; c < v->ncases; c++)
        for (int k = 0; k < v->nvariants; k++) uses_workspace |= workspace_value(pc, c, k, 0) > 0;
    if (uses_workspace && plot_bars(pc, &workspace, e) != KB_OK) return KB_ERR;
    if (plot_index_cost(pc, e) != KB_OK) return KB_ERR;
    for (int k = 0; k < v->nvariants; k++) {
        const kb_variant *var = kb_find_variant(v->op, v->variants[k]);
        if (var && (var->flags & KB_INEXACT) && plot_vs_exact(pc, k, e) != KB_OK) return KB_ERR;
    }
    return plot_cpu_gpu(pc, e);
}

int kb_plot_view(const kb_results *res, const kb_op_view *v, const kb_plot_opts *o,
                 kb_plot_list *out, kb_error *e) {
    plot_ctx pc = {.res = res, .v = v, .o = o, .out = out};
    plot_names(&pc);
    if (o->along && kb_view_has_axis(v, o->along)) {
        if (kb_along_build(v, o->along, &pc.along, e) != KB_OK) return KB_ERR;
        pc.has_along = 1;
    } else if (!o->along) {
        pc.has_along = kb_along_pick(v, &pc.along);
    }
    plot_set ps;
    plot_set_pick(&pc, &ps);
    if (series_pick(v, 1, &pc.series, e) != KB_OK) {
        kb_along_free(&pc.along);
        return KB_ERR;
    }
    int rc = pc.has_along ? plot_along_set(&pc, &ps, e) : plot_case_set(&pc, &ps, e);
    if (rc == KB_OK && ps.roofline && plot_roofline(&pc, e) != KB_OK) rc = KB_ERR;
    kb_along_free(&pc.along);
    if (rc == KB_OK) rc = plot_extras(&pc, e);
    series_free(&pc.series);
    return rc;
}

/* ---- gnuplot ---- */

int kb_gnuplot_available(void) {
    const char *path = getenv("PATH");
    if (!path) return 0;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ":");
        char exe[4096];
        snprintf(exe, sizeof exe, "%.*s/gnuplot", (int)len, len ? p : ".");
        if (access(exe, X_OK) == 0) return 1;
        p += len;
        if (*p == ':') p++;
    }
    return 0;
}

int kb_plot_render(const kb_plot_opts *o, kb_plot *p, kb_error *e) {
    char script[600];
    snprintf(script, sizeof script, "./%s.gp", p->base); /* never read as an option */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return kb_fail(e, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(o->dir) != 0) _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return kb_fail(e, "gnuplot %s/%s: %s", o->dir, script + 2, strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return kb_fail(e, "gnuplot failed on %s/%s (exit %d)", o->dir, script + 2,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    p->rendered = 1;
    return KB_OK;
}

static int parse_formats(const char *list, kb_plot_opts *o) {
    o->png = o->svg = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 3 && strncmp(p, "png", 3) == 0)
            o->png = 1;
        else if (len == 3 && strncmp(p, "svg", 3) == 0)
            o->svg = 1;
        else
            return KB_ERR;
        p += len;
        if (*p == ',') p++;
    }
    return o->png || o->svg ? KB_OK : KB_ERR;
}

int kb_cmd_plot(int argc, char **argv) {
    kb_plot_args args = {.o = {.dir = "plots", .png = 1, .svg = 1}};
    int prc = kb_opts_parse("plot", kb_plot_opts_table, &args, argc, argv, kb_plot_args_add_file);
    if (prc == KB_OPTS_HELP) {
        plot_help();
        return KB_EXIT_OK;
    }
    if (prc != KB_EXIT_OK) return prc;
    kb_plot_opts o = args.o;
    const char **files = args.files;
    int nfiles = args.nfiles;
    if (!nfiles) return kb_usage_error("plot", "which results? (kbench plot FILE.csv...)");

    kb_results res = {0};
    kb_op_view *views = NULL;
    int nviews = 0, rc = KB_EXIT_OK;
    kb_plot_list plots = {0};
    kb_error e;
    rc = kb_results_load(files, nfiles, &res, &views, &nviews, &e);
    if (rc != KB_EXIT_OK) fprintf(stderr, "kbench plot: error: %s\n", e.msg);
    if (rc == KB_EXIT_OK && o.baseline) {
        int found = 0;
        for (int i = 0; i < nviews; i++) found |= kb_view_variant(&views[i], o.baseline) >= 0;
        if (!found)
            rc = kb_usage_error("plot", "--baseline %s: no row of that variant in the files",
                                o.baseline);
    }
    if (rc == KB_EXIT_OK && o.along) {
        /* Every view that has the axis must vary along it; one at least has it. */
        int found = 0;
        for (int i = 0; i < nviews && rc == KB_EXIT_OK; i++) {
            kb_along a;
            if (!kb_view_has_axis(&views[i], o.along)) continue;
            found = 1;
            if (kb_along_build(&views[i], o.along, &a, &e) != KB_OK)
                rc = kb_usage_error("plot", "--along %s: %s", o.along, e.msg);
            kb_along_free(&a);
        }
        if (rc == KB_EXIT_OK && !found) {
            kb_along none;
            kb_along_build(&views[0], o.along, &none, &e);
            rc = kb_usage_error("plot", "--along %s: %s%s", o.along, e.msg,
                                nviews > 1 ? " (nor has any other op in the files)" : "");
        }
    }
    if (rc == KB_EXIT_OK && kb_make_dirs(o.dir, &e) != KB_OK) {
        fprintf(stderr, "kbench plot: error: %s\n", e.msg);
        rc = KB_EXIT_RUNTIME;
    }
    for (int i = 0; i < nviews && rc == KB_EXIT_OK; i++)
        if (kb_plot_view(&res, &views[i], &o, &plots, &e) != KB_OK) {
            fprintf(stderr, "kbench plot: error: %s\n", e.msg);
            rc = KB_EXIT_RUNTIME;
        }
    int have_gnuplot = kb_gnuplot_available();
    for (int i = 0; i < plots.count && rc == KB_EXIT_OK; i++) {
        kb_plot *p = &plots.items[i];
        if (have_gnuplot && kb_plot_render(&o, p, &e) != KB_OK) {
            fprintf(stderr, "kbench plot: error: %s\n", e.msg);
            rc = KB_EXIT_RUNTIME;
        }
        printf("%s/%s.%s%s%s\n", o.dir, p->base, have_gnuplot ? (o.png ? "png" : "svg") : "gp",
               have_gnuplot && o.png && o.svg ? " .svg" : "", have_gnuplot ? "" : " (script)");
        if (p->note[0]) printf("    note: %s\n", p->note);
    }
    if (rc == KB_EXIT_OK && !have_gnuplot) {
        fprintf(stderr,
                "kbench plot: gnuplot is not on PATH: the scripts and data are written; "
                "render them with: cd %s && for f in *.gp; do gnuplot \"$f\"; done\n",
                o.dir);
        rc = KB_EXIT_RUNTIME;
    }
    free(plots.items);
    kb_views_free(views, nviews);
    kb_results_free(&res);
    return rc;
}
