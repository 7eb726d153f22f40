/* columns.c — the column table (result.h's KB_COLUMNS) as data, and one
 * field of a row as a file spells it. */
#include "result.h"

#include <math.h>
#include <string.h>

#define KB_COLUMN_ROW(name, type, req, fmt, meaning)                                               \
    {#name,                                                                                        \
     KB_COL_##type,                                                                                \
     req,                                                                                          \
     fmt,                                                                                          \
     meaning,                                                                                      \
     offsetof(kb_result, name),                                                                    \
     sizeof(((kb_result *)0)->name)},
const kb_column kb_columns[KB_NCOLUMNS] = {KB_COLUMNS(KB_COLUMN_ROW)};
#undef KB_COLUMN_ROW

const char *kb_column_type_name(kb_column_type t) {
    static const char *const names[] = {"text", "number", "status", "yes/no"};
    return names[t];
}

int kb_column_find(const char *name) {
    for (int c = 0; c < KB_NCOLUMNS; c++)
        if (strcmp(kb_columns[c].name, name) == 0) return c;
    return -1;
}

void kb_result_field(const kb_result *r, int c, char *buf, size_t n) {
    const kb_column *col = &kb_columns[c];
    const char *p = (const char *)r + col->offset;
    buf[0] = '\0';
    switch (col->type) {
    case KB_COL_TEXT: {
        const char *end = memchr(p, '\0', col->size);
        snprintf(buf, n, "%.*s", end ? (int)(end - p) : (int)col->size, p);
    } break;
    case KB_COL_STATUS:
        snprintf(buf, n, "%s", kb_status_name(*(const kb_status *)(const void *)p));
        break;
    case KB_COL_YESNO: {
        int v = *(const int *)(const void *)p;
        snprintf(buf, n, "%s", v < 0 ? "" : v ? "yes" : "no");
        break;
    }
    case KB_COL_NUMBER: {
        double v = *(const double *)(const void *)p;
        if (!isnan(v)) snprintf(buf, n, col->format, v);
        break;
    }
    }
}

void kb_result_init(kb_result *r) {
    memset(r, 0, sizeof *r);
    for (int c = 0; c < KB_NCOLUMNS; c++)
        if (kb_columns[c].type == KB_COL_NUMBER)
            *(double *)(void *)((char *)r + kb_columns[c].offset) = NAN;
    r->deterministic = -1;
    snprintf(r->mode, sizeof r->mode, "cold");
}
