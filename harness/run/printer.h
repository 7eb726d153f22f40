/* printer.h — output printers: a struct of three callbacks per format
 * (out_table.c, out_csv.c, out_json.c, out_md.c), and the factory that picks
 * one by format name or file extension (printer.c).
 *
 *   kb_printer p; kb_printer_init(&p, KB_FMT_CSV, stdout);
 *   p.begin(&p, &meta); p.row(&p, &row); p.end(&p);
 */
#ifndef KB_PRINTER_H
#define KB_PRINTER_H

#include "row.h"

#include <stdio.h>

typedef struct kb_printer {
    FILE *f;
    int own_file;
    void (*begin)(struct kb_printer *p, const kb_meta *meta);
    void (*row)(struct kb_printer *p, const kb_row *r);
    void (*end)(struct kb_printer *p);
    int rows;
    char last_op[64];
    int append;     /* resuming a file: its header is there already, */
    int new_header; /* ... but of an older schema: write the current one after it */
} kb_printer;

typedef enum kb_format { KB_FMT_TABLE, KB_FMT_CSV, KB_FMT_JSON, KB_FMT_MD } kb_format;
int kb_format_parse(const char *s, kb_format *f);
/* The extensions an output file's format is known by. */
#define KB_OUTPUT_EXTENSIONS ".csv, .json, .jsonl, .md or .txt"
/* The format of an output file from its extension; KB_ERR for any other. */
int kb_format_from_path(const char *path, kb_format *f);
void kb_printer_init(kb_printer *p, kb_format fmt, FILE *f);

/* Output files of one run (-o), and the printers that gives a runner: those,
 * stdout and the --resume file. */
#define KB_MAX_OUTPUTS  8
#define KB_MAX_PRINTERS (KB_MAX_OUTPUTS + 2)

/* The format constructors the factory calls, one per out_<format>.c. */
void kb_printer_table(kb_printer *p);
void kb_printer_csv(kb_printer *p);
void kb_printer_json(kb_printer *p);
void kb_printer_md(kb_printer *p);

/* The cells of a row as the human table and the Markdown table show them
 * (out_table.c): variant, case, status, median, noise, GB/s, %bw, GFLOP/s,
 * rel-L2, workspace, note. */
enum { KB_ROW_CELLS = 11, KB_ROW_CELL = 1500 };
void kb_row_cells(const kb_row *r, char cells[KB_ROW_CELLS][KB_ROW_CELL]);

/* s as a JSON string literal, quotes and escapes included (out_json.c). */
void kb_json_put_str(FILE *f, const char *s);

#endif
