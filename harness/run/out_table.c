/* out_table.c — the human table on stdout, one line per row as it
 * completes. Its cells (kb_row_cells) are the Markdown printer's too (out_md.c). */
#include "printer.h"

#include "results/params.h" /* kb_params_short */
#include "core/format.h"

#include <stdio.h>
#include <string.h>

enum { NCELLS = KB_ROW_CELLS, CELL = KB_ROW_CELL };

static const char *const headers[NCELLS] = {"variant", "case", "status", "median",
                                            "noise",   "GB/s", "%bw",    "GFLOP/s",
                                            "rel-L2",  "ws",   "note"};
static const int widths[NCELLS] = {22, 34, 11, 10, 6, 8, 5, 8, 8, 8, 0};

void kb_row_cells(const kb_row *r, char cells[NCELLS][CELL]) {
    int timed = r->stats.n > 0;
    snprintf(cells[0], CELL, "%s", r->variant);
    kb_params_short(kb_find_op(r->op), r->params, cells[1], CELL); /* non-default axes */
    snprintf(cells[2], CELL, "%s", kb_status_name(r->status));
    if (timed) {
        kb_format_us(r->stats.median * 1e6, cells[3], CELL);
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
    kb_format_bytes((double)r->workspace_bytes, 1, cells[9], CELL);
    const char *why =
        (r->status == KB_ROW_PASS || r->status == KB_ROW_UNCHECKED) && !r->forced ? "" : r->reason;
    snprintf(cells[10], CELL, "%s%s%s%s", r->deterministic == 0 ? "nondeterministic " : "",
             r->acc.note, (*why && r->acc.note[0]) ? "; " : "", why);
    /* A CR or tab from a param (image=...) or a message would break the
     * row's line, in the table and in Markdown alike. */
    for (int i = 0; i < NCELLS; i++) {
        char raw[CELL];
        memcpy(raw, cells[i], CELL);
        kb_format_visible(raw, cells[i], CELL);
    }
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
