/* out_csv.c — one CSV row per case, flushed as it completes. The file opens
 * with '#' lines of metadata (gnuplot and results/csv_read.c skip them), then
 * the columns of results/result.h (KB_COLUMNS), each field as that table
 * spells it: the schema that `kbench plot`, `report` and `compare` read. */
#include "printer.h"

#include <string.h>

/* Quote a field when it holds a comma, a quote or any control character
 * (RFC 4180 names CR and LF; a reader that ends lines at a lone CR, as
 * csv_read.c does, would split an unquoted one). A newline becomes a space,
 * so that each row stays one line for line-based tools (gnuplot, --resume's
 * copy, merge): params never hold one (sweep_spec.c refuses it), and a
 * reason or note loses nothing a reader needs. */
static int needs_quotes(const char *s) {
    for (; *s; s++)
        if (*s == ',' || *s == '"' || (unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

static void put_field(FILE *f, const char *s) {
    if (!needs_quotes(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_begin(kb_printer *p, const kb_meta *meta) {
    /* --resume: say who added the rows below; the header is there already,
     * unless it is of an older schema (fewer columns): then the current one
     * again, which csv_read.c takes as the header of the rows after it */
    kb_meta_print_lines(p->f, meta, p->append ? "# resumed: " : "# ");
    if (p->append && !p->new_header) {
        fflush(p->f);
        return;
    }
    for (int c = 0; c < KB_NCOLUMNS; c++) fprintf(p->f, "%s%s", c ? "," : "", kb_columns[c].name);
    fputc('\n', p->f);
    fflush(p->f);
}

static void csv_row(kb_printer *p, const kb_row *r) {
    kb_result res;
    char text[sizeof res.reason];
    kb_row_result(r, &res);
    for (int c = 0; c < KB_NCOLUMNS; c++) {
        if (c) fputc(',', p->f);
        kb_result_field(&res, c, text, sizeof text);
        put_field(p->f, text);
    }
    fputc('\n', p->f);
    fflush(p->f);
}

static void csv_end(kb_printer *p) {
    fflush(p->f);
}

void kb_printer_csv(kb_printer *p) {
    p->begin = csv_begin;
    p->row = csv_row;
    p->end = csv_end;
}
