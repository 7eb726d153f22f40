/* printer.c — which printer: output formats by name (--format) and by a
 * file's extension (-o), and the factory that fills a kb_printer with the
 * callbacks of one (out_<format>.c). Adding a format: an out_<format>.c with
 * its constructor, a name and an extension here. */
#include "printer.h"

#include <string.h>

static const char *const format_names[] = {"table", "csv", "json", "md"};

int kb_format_parse(const char *s, kb_format *f) {
    for (int i = 0; i < 4; i++)
        if (strcmp(s, format_names[i]) == 0) {
            *f = (kb_format)i;
            return KB_OK;
        }
    return KB_ERR;
}

int kb_format_from_path(const char *path, kb_format *f) {
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return KB_ERR;
    if (strcmp(dot, ".csv") == 0)
        *f = KB_FMT_CSV;
    else if (strcmp(dot, ".json") == 0 || strcmp(dot, ".jsonl") == 0)
        *f = KB_FMT_JSON;
    else if (strcmp(dot, ".md") == 0)
        *f = KB_FMT_MD;
    else if (strcmp(dot, ".txt") == 0)
        *f = KB_FMT_TABLE;
    else
        return KB_ERR;
    return KB_OK;
}

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
