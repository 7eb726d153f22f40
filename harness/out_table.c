/* out_table.c — the human table on stdout, one line per row as it
 * completes. The cells are shared with the Markdown printer (out_md.c). */
#include "harness.h"

#include <stdio.h>
#include <string.h>

void kb_meta_print_lines(FILE *f, const kb_meta *m, const char *prefix);

enum { NCELLS = 11, CELL = 1500 };

static const char *const headers[NCELLS] = {"variant", "case", "status", "median",
                                            "noise",   "GB/s", "%bw",    "GFLOP/s",
                                            "rel-L2",  "ws",   "note"};
static const int widths[NCELLS] = {22, 34, 11, 10, 6, 8, 5, 8, 8, 8, 0};

static void fmt_time(double s, char *buf) {
    if (s <= 0)
        snprintf(buf, CELL, "-");
    else if (s < 1e-3)
        snprintf(buf, CELL, "%.2f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, CELL, "%.3f ms", s * 1e3);
    else
        snprintf(buf, CELL, "%.3f s", s);
}

static void fmt_bytes(size_t b, char *buf) {
    if (b == 0)
        snprintf(buf, CELL, "0");
    else if (b < 1024 * 1024)
        snprintf(buf, CELL, "%.1fK", b / 1024.0);
    else if (b < (size_t)1 << 30)
        snprintf(buf, CELL, "%.1fM", b / 1048576.0);
    else
        snprintf(buf, CELL, "%.2fG", b / 1073741824.0);
}

void kb_row_cells(const kb_row *r, char cells[NCELLS][CELL]) {
    int timed = r->stats.n > 0;
    snprintf(cells[0], CELL, "%s", r->variant);
    kb_params_short(kb_find_op(r->op), r->params, cells[1], CELL); /* non-default axes */
    snprintf(cells[2], CELL, "%s", kb_status_name(r->status));
    if (timed) {
        fmt_time(r->stats.median, cells[3]);
        snprintf(cells[4], CELL, "%.1f%%", r->stats.noise * 100);
        snprintf(cells[5], CELL, "%.0f", r->gbps);
        snprintf(cells[6], CELL, "%.0f", r->pct_peak_bw);
        snprintf(cells[7], CELL, "%.0f", r->gflops);
    } else {
        for (int i = 3; i <= 7; i++) snprintf(cells[i], CELL, "-");
    }
    if (r->checked)
        snprintf(cells[8], CELL, "%.1e", r->acc.rel_l2);
    else
        snprintf(cells[8], CELL, "-");
    fmt_bytes(r->workspace_bytes, cells[9]);
    const char *why =
        (r->status == KB_ROW_PASS || r->status == KB_ROW_UNCHECKED) && !r->forced ? "" : r->reason;
    snprintf(cells[10], CELL, "%s%s%s%s", r->deterministic == 0 ? "nondeterministic " : "",
             r->acc.note, (*why && r->acc.note[0]) ? "; " : "", why);
}

static void table_begin(kb_printer *p, const kb_meta *meta) {
    kb_meta_print_lines(p->f, meta, "");
}

static void table_row(kb_printer *p, const kb_row *r) {
    char cells[NCELLS][CELL];
    if (strcmp(p->last_op, r->op) != 0) {
        snprintf(p->last_op, sizeof p->last_op, "%s", r->op);
        fprintf(p->f, "\n== %s (%s mode; times are medians) ==\n", r->op, kb_mode_name(r->mode));
        for (int i = 0; i < NCELLS; i++) fprintf(p->f, "%-*s ", widths[i], headers[i]);
        fputc('\n', p->f);
    }
    kb_row_cells(r, cells);
    for (int i = 0; i < NCELLS; i++) fprintf(p->f, "%-*s ", widths[i], cells[i]);
    fputc('\n', p->f);
    fflush(p->f);
}

static void table_end(kb_printer *p) {
    fflush(p->f);
}

void kb_printer_table(kb_printer *p) {
    p->begin = table_begin;
    p->row = table_row;
    p->end = table_end;
}

void kb_printer_csv(kb_printer *p);
void kb_printer_json(kb_printer *p);
void kb_printer_md(kb_printer *p);

void kb_printer_init(kb_printer *p, kb_format fmt, FILE *f) {
    memset(p, 0, sizeof *p);
    p->f = f;
    switch (fmt) {
    case KB_FMT_TABLE:
        kb_printer_table(p);
        break;
    case KB_FMT_CSV:
        kb_printer_csv(p);
        break;
    case KB_FMT_JSON:
        kb_printer_json(p);
        break;
    case KB_FMT_MD:
        kb_printer_md(p);
        break;
    }
}
