/* out_md.c — a Markdown table (for pull requests and reports), the same
 * cells as the human table. */
#include "printer.h"

#include <string.h>

static void md_begin(kb_printer *p, const kb_meta *meta) {
    kb_meta_print_lines(p->f, meta, "> ");
}

static void md_row(kb_printer *p, const kb_row *r) {
    char cells[KB_ROW_CELLS][KB_ROW_CELL];
    if (strcmp(p->last_op, r->op) != 0) {
        snprintf(p->last_op, sizeof p->last_op, "%s", r->op);
        fprintf(p->f, "\n### %s (%s mode)\n\n", r->op, kb_mode_name(r->mode));
        fputs("| variant | case | status | median | noise | GB/s | %bw | GFLOP/s | rel-L2 | "
              "workspace | note |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
              p->f);
    }
    kb_row_cells(r, cells);
    for (int i = 0; i < KB_ROW_CELLS; i++) {
        for (char *c = cells[i]; *c; c++)
            if (*c == '|') *c = '/';
        fprintf(p->f, "| %s ", cells[i]);
    }
    fputs("|\n", p->f);
    fflush(p->f);
}

static void md_end(kb_printer *p) {
    fflush(p->f);
}

void kb_printer_md(kb_printer *p) {
    p->begin = md_begin;
    p->row = md_row;
    p->end = md_end;
}
