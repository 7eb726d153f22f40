/* csv_read.c — the CSV that out_csv.c writes, read back (result.h).
 *
 * Columns are found by name in the header row (kb_columns), so a file from
 * an older or newer kbench, or one that peers/ wrote with fewer columns
 * ("peer:" variants), reads too; what a file from before a column says of
 * that column's fact is read in one place (old_schema_facts). Fields are
 * RFC 4180 (quoted when they hold a comma, a quote or a control character: a
 * CR inside quotes is text, an unquoted one ends the line). '#' lines are the
 * run's metadata. A run that was killed mid-row leaves a last line without
 * its newline and with fewer fields: it is reported and skipped, since every
 * row before it is whole.
 */
#include "result.h"

#include "params.h" /* kb_params_key */

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- RFC 4180 records ---- */

typedef struct csv_reader {
    const char *path;
    const char *p, *end;
    int line;   /* physical line of p */
    char *text; /* the current record's unquoted fields, NUL-separated */
    size_t len, cap;
    size_t *starts; /* offset of each field in text */
    int nfields, capf;
} csv_reader;

static int put_char(csv_reader *r, char c) {
    if (r->len == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4096;
        char *t = realloc(r->text, cap);
        if (!t) return KB_ERR;
        r->text = t;
        r->cap = cap;
    }
    r->text[r->len++] = c;
    return KB_OK;
}

static int start_field(csv_reader *r) {
    if (r->nfields == r->capf) {
        int cap = r->capf ? 2 * r->capf : 64;
        size_t *s = realloc(r->starts, (size_t)cap * sizeof *s);
        if (!s) return KB_ERR;
        r->starts = s;
        r->capf = cap;
    }
    r->starts[r->nfields++] = r->len;
    return KB_OK;
}

static int at_line_end(const csv_reader *r) {
    return r->p == r->end || *r->p == '\n' || *r->p == '\r';
}

/* Read the fields of one record starting at r->p. *whole is 0 when the file
 * ended before the record's newline (or inside a quoted field). */
static int read_record(csv_reader *r, int *whole) {
    r->len = 0;
    r->nfields = 0;
    for (;;) {
        if (start_field(r) != KB_OK) return KB_ERR;
        if (r->p < r->end && *r->p == '"') {
            r->p++;
            for (;;) {
                if (r->p == r->end) {
                    *whole = 0; /* the closing quote never came */
                    return put_char(r, '\0');
                }
                char c = *r->p++;
                if (c == '"') {
                    if (r->p < r->end && *r->p == '"')
                        r->p++;
                    else
                        break;
                }
                if (c == '\n') r->line++;
                if (put_char(r, c) != KB_OK) return KB_ERR;
            }
        }
        /* Unquoted text, or stray text after a closing quote (kept, not judged). */
        while (!at_line_end(r) && *r->p != ',')
            if (put_char(r, *r->p++) != KB_OK) return KB_ERR;
        if (put_char(r, '\0') != KB_OK) return KB_ERR;
        if (r->p == r->end) {
            *whole = 0;
            return KB_OK;
        }
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (*r->p == '\r') r->p++;
        if (r->p < r->end && *r->p == '\n') r->p++;
        r->line++;
        *whole = 1;
        return KB_OK;
    }
}

static const char *field(const csv_reader *r, int i) {
    return r->text + r->starts[i];
}

/* ---- metadata lines ---- */

void kb_header_print_peaks(FILE *f, const char *prefix, const char *uuid, double copy_gbps,
                           double sgemm_gflops) {
    fprintf(f, "%speaks: uuid=%s copy_gbps=%.1f sgemm_gflops=%.1f\n", prefix, uuid, copy_gbps,
            sgemm_gflops);
}

static void copy_text(char *dst, size_t size, const char *src, size_t len) {
    if (len >= size) len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static void append_line(char *dst, size_t size, const char *line, size_t len) {
    size_t used = strlen(dst);
    if (used && used + 1 < size) dst[used++] = '\n';
    if (used < size) copy_text(dst + used, size - used, line, len);
}

/* Add item to the newline-separated list unless it is there already. */
static void add_distinct(char *list, size_t size, const char *item, size_t len) {
    while (len && item[len - 1] == ' ') len--;
    if (!len) return;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, "\n");
        if (n == len && strncmp(p, item, len) == 0) return;
        p += n;
        if (*p) p++;
    }
    append_line(list, size, item, len);
}

/* The device of a "gpu: " line: "NAME (UUID)", the text before " cc ". */
static void add_device(kb_result_file *f, const char *gpu) {
    const char *cc = strstr(gpu, ") cc ");
    size_t len = cc ? (size_t)(cc - gpu) + 1 : strcspn(gpu, "|");
    add_distinct(f->devices, sizeof f->devices, gpu, len);
}

/* One '#' line of kb_meta_print_lines: "kbench COMMIT | TIME | host HOST",
 * "command: ...", "gpu: ... | peaks: copy N GB/s, sgemm N GFLOP/s", or other.
 * The same lines prefixed "resumed: " say who appended the rows after them
 * (--resume): kept in other, and their device, commit and L2 flush listed. */
static void read_meta_line(kb_result_file *f, const char *line, size_t len) {
    char buf[2048];
    copy_text(buf, sizeof buf, line, len);
    char *s = buf;
    while (*s == '#' || *s == ' ') s++;
    const char *peaks = strstr(s, "peaks: copy ");
    int resumed = strncmp(s, "resumed: ", 9) == 0;
    const char *body = resumed ? s + 9 : s;
    if (strncmp(body, "peaks: uuid=", 12) == 0) {
        double copy = 0, sgemm = 0;
        const char *c = strstr(body, " copy_gbps="), *g = strstr(body, " sgemm_gflops=");
        if (c) copy = strtod(c + 11, NULL);
        if (g) sgemm = strtod(g + 14, NULL);
        f->peak_copy_gbps = copy;
        f->peak_sgemm_gflops = sgemm;
        f->peaks_line = 1;
        return;
    }
    /* A file from before the peaks: line: its gpu: line's text ("peaks:
     * copy N GB/s, sgemm N GFLOP/s") is all it says of them. */
    if (peaks && !f->peaks_line) {
        double copy = 0, sgemm = 0;
        int got = sscanf(peaks, "peaks: copy %lf GB/s, sgemm %lf", &copy, &sgemm);
        if (got >= 1) f->peak_copy_gbps = copy;
        if (got == 2) f->peak_sgemm_gflops = sgemm;
    }
    if (strncmp(body, "gpu: ", 5) == 0) add_device(f, body + 5);
    if (strncmp(body, "kbench ", 7) == 0 && strstr(body, " | "))
        add_distinct(f->commits, sizeof f->commits, body + 7, strcspn(body + 7, "|"));
    /* "plugin: FILE sha256 HEX PATH" (and "py: "): "plugin:FILE HEX" listed */
    if (strncmp(body, "plugin: ", 8) == 0 || strncmp(body, "py: ", 4) == 0) {
        char kind[8], file[300], hex[80];
        if (sscanf(body, "%7[a-z]: %299s sha256 %79s", kind, file, hex) == 3) {
            char item[400];
            int n = snprintf(item, sizeof item, "%s:%s %s", kind, file, hex);
            add_distinct(f->sources, sizeof f->sources, item, (size_t)n);
        }
    }
    if (strncmp(body, "l2 flush: ", 10) == 0)
        add_distinct(f->l2_flushes, sizeof f->l2_flushes, body + 10, strcspn(body + 10, "\n"));
    if (resumed) {
        append_line(f->other, sizeof f->other, s, strlen(s));
    } else if (strncmp(s, "gpu: ", 5) == 0) {
        snprintf(f->gpu, sizeof f->gpu, "%s", s + 5);
    } else {
        /* The run's facts by name; the lines but the first two are also kept
         * as they read, for the report's table of runs. */
        kb_header_read_line(s, &f->run);
        if (strncmp(s, "command: ", 9) != 0 && !(strncmp(s, "kbench ", 7) == 0 && strstr(s, " | ")))
            append_line(f->other, sizeof f->other, s, strlen(s));
    }
}

/* ---- one row ---- */

static int set_field(const kb_column *col, kb_result *row, const char *text, const char *path,
                     int line, kb_error *e) {
    char *dst = (char *)row + col->offset;
    switch (col->type) {
    case KB_COL_TEXT:
        copy_text(dst, col->size, text, strlen(text));
        return KB_OK;
    case KB_COL_STATUS:
        if (kb_status_parse(text, (kb_status *)(void *)dst) != KB_OK)
            return kb_fail(e, "%s:%d: status '%s' is not one of " KB_STATUS_NAMES, path, line,
                           text);
        return KB_OK;
    case KB_COL_YESNO:
        *(int *)(void *)dst = strcmp(text, "yes") == 0 ? 1 : strcmp(text, "no") == 0 ? 0 : -1;
        return KB_OK;
    case KB_COL_NUMBER: {
        double v = NAN;
        if (*text) {
            char *end;
            v = strtod(text, &end);
            while (*end == ' ') end++;
            if (end == text || *end)
                return kb_fail(e, "%s:%d: %s '%s' is not a number", path, line, col->name, text);
        }
        *(double *)(void *)dst = v;
        return KB_OK;
    }
    }
    return KB_OK;
}

/* What a file from before a column said of its fact, read here and nowhere
 * else (has: a bit per column the header has):
 *   - no `dropped`: the count was in the note only ("fast NMS: 590 kept,
 *     drops 56 greedy keeps" -> 56); NAN when the note states none;
 *   - no `forced`: a --force row's reason began "FORCED";
 *   - no `mode`: every row was timed cold (kb_result_init).
 * And whatever its columns: before the NOT_RUN status, a row that never ran
 * was an ERROR whose reason began "not run: ". */
static void old_schema_facts(kb_result *row, unsigned long long has) {
    if (!(has >> KB_COLUMN_dropped & 1)) {
        const char *p = strstr(row->note, "drops ");
        char *end = NULL;
        double n = p ? strtod(p + 6, &end) : NAN;
        row->dropped = p && end != p + 6 ? n : NAN;
    }
    if (!(has >> KB_COLUMN_forced & 1)) row->forced = strncmp(row->reason, "FORCED", 6) == 0;
    /* before the peer column, a peer was the variant named "peer:NAME" */
    if (!(has >> KB_COLUMN_peer & 1)) row->peer = strncmp(row->variant, "peer:", 5) == 0;
    if (row->status == KB_ROW_ERROR && strncmp(row->reason, "not run: ", 9) == 0)
        row->status = KB_ROW_NOT_RUN;
}

static int push_row(kb_results *res, const kb_result *row, kb_error *e) {
    if (res->count == res->cap) {
        int cap = res->cap ? 2 * res->cap : 256;
        kb_result *rows = realloc(res->rows, (size_t)cap * sizeof *rows);
        if (!rows) return kb_fail(e, "out of host memory reading %d rows", res->count);
        res->rows = rows;
        res->cap = cap;
    }
    res->rows[res->count++] = *row;
    return KB_OK;
}

/* header[i] = index into columns of the file's column i, or -1 (ignored);
 * *has gets a bit per known column present. */
static int read_header(const csv_reader *r, int *header, unsigned long long *has, int line,
                       kb_error *e) {
    int seen[KB_NCOLUMNS] = {0};
    for (int i = 0; i < r->nfields; i++) {
        header[i] = -1;
        for (int c = 0; c < KB_NCOLUMNS; c++) {
            if (strcmp(field(r, i), kb_columns[c].name) != 0) continue;
            /* Which of two columns is meant cannot be known: refuse, never guess. */
            if (seen[c])
                return kb_fail(e, "%s:%d: the header has the column '%s' twice (columns %d and %d)",
                               r->path, line, kb_columns[c].name, seen[c], i + 1);
            header[i] = c;
            seen[c] = i + 1;
        }
    }
    *has = 0;
    for (int c = 0; c < KB_NCOLUMNS; c++) {
        if (seen[c]) *has |= 1ull << c;
        if (kb_columns[c].required && !seen[c])
            return kb_fail(e,
                           "%s:%d: the header has no '%s' column (op, variant, params and "
                           "status are required): is this a kbench CSV?",
                           r->path, line, kb_columns[c].name);
    }
    return KB_OK;
}

int kb_result_file_has_column(const kb_result_file *f, const char *name) {
    for (int c = 0; c < KB_NCOLUMNS; c++)
        if (strcmp(kb_columns[c].name, name) == 0) return (int)((f->has_columns >> c) & 1);
    return 0;
}

static int slurp(const char *path, char **data, size_t *size, kb_error *e) {
    FILE *f = fopen(path, "rb");
    if (!f) { /* errno kept: a reader tells a missing file from too few descriptors by it */
        int err = errno;
        kb_fail(e, "%s: cannot open: %s", path, strerror(err));
        errno = err;
        return KB_ERR;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) return kb_fail(e, "%s: out of host memory reading it", path);
    if (bad) {
        free(buf);
        return kb_fail(e, "%s: read error", path);
    }
    *data = buf;
    *size = n;
    return KB_OK;
}

static int read_rows(csv_reader *r, kb_results *res, int file, FILE *warn, kb_error *e) {
    kb_result_file *meta = &res->files[file];
    int *header = NULL, ncols = 0, rc = KB_OK;
    unsigned long long has = 0; /* the current header's columns */
    while (rc == KB_OK && r->p < r->end) {
        int line = r->line;
        if (*r->p == '#') {
            const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
            size_t len = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
            if (len && r->p[len - 1] == '\r') len--;
            read_meta_line(meta, r->p, len);
            r->p = nl ? nl + 1 : r->end;
            r->line++;
            continue;
        }
        if (*r->p == '\n' || *r->p == '\r') {
            r->p += *r->p == '\r' && r->p + 1 < r->end && r->p[1] == '\n' ? 2 : 1;
            r->line++;
            continue;
        }
        int whole = 1;
        if (read_record(r, &whole) != KB_OK) {
            rc = kb_fail(e, "%s:%d: out of host memory", r->path, line);
            break;
        }
        /* A header: the first record, or one repeated where files were joined. */
        if (!header || strcmp(field(r, 0), "op") == 0) {
            meta->has_columns = header ? meta->has_columns : ~0ull;
            free(header);
            ncols = r->nfields;
            header = malloc((size_t)ncols * sizeof *header);
            if (!header) rc = kb_fail(e, "%s: out of host memory", r->path);
            if (rc == KB_OK) rc = read_header(r, header, &has, line, e);
            meta->has_columns &= has;
            continue;
        }
        if (r->nfields != ncols) {
            if (!whole && r->nfields < ncols) {
                if (warn)
                    fprintf(warn,
                            "%s:%d: last line cut short (%d of %d fields, no newline): "
                            "skipped\n",
                            r->path, line, r->nfields, ncols);
                break;
            }
            rc = kb_fail(e, "%s:%d: %d fields, but the header has %d", r->path, line, r->nfields,
                         ncols);
            break;
        }
        kb_result row;
        kb_result_init(&row);
        row.file = file;
        row.line = line;
        for (int i = 0; i < ncols && rc == KB_OK; i++)
            if (header[i] >= 0)
                rc = set_field(&kb_columns[header[i]], &row, field(r, i), r->path, line, e);
        if (rc == KB_OK && !row.mode[0]) snprintf(row.mode, sizeof row.mode, "cold");
        if (rc == KB_OK) old_schema_facts(&row, has);
        if (rc == KB_OK) kb_params_key(kb_find_op(row.op), row.params, row.key, sizeof row.key);
        if (rc == KB_OK) rc = push_row(res, &row, e);
    }
    if (rc == KB_OK && !header) rc = kb_fail(e, "%s: no header row (an empty file?)", r->path);
    free(header);
    return rc;
}

int kb_results_read(kb_results *res, const char *path, FILE *warn, kb_error *e) {
    kb_result_file *files = realloc(res->files, (size_t)(res->nfiles + 1) * sizeof *files);
    if (!files) return kb_fail(e, "%s: out of host memory", path);
    res->files = files;
    kb_result_file *meta = &files[res->nfiles];
    memset(meta, 0, sizeof *meta);
    snprintf(meta->path, sizeof meta->path, "%s", path);

    char *data = NULL;
    size_t size = 0;
    if (slurp(path, &data, &size, e) != KB_OK) return KB_ERR;
    csv_reader r = {.path = path, .p = data, .end = data + size, .line = 1};
    /* A spreadsheet's "CSV UTF-8" opens with a byte-order mark: not part of 'op'. */
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) r.p += 3;
    int before = res->count;
    int rc = read_rows(&r, res, res->nfiles, warn, e);
    free(r.text);
    free(r.starts);
    free(data);
    if (rc != KB_OK) {
        res->count = before;
        return KB_ERR;
    }
    res->nfiles++;
    return KB_OK;
}

static void join_lists(const kb_results *res, size_t offset, const char *sep, char *out, size_t n) {
    char all[4096] = "";
    for (int f = 0; f < res->nfiles; f++)
        for (const char *p = (const char *)&res->files[f] + offset; *p;) {
            size_t len = strcspn(p, "\n");
            add_distinct(all, sizeof all, p, len);
            p += len;
            if (*p) p++;
        }
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = all; *p && used < n;) {
        size_t len = strcspn(p, "\n");
        used += (size_t)snprintf(out + used, n - used, "%s%.*s", used ? sep : "", (int)len, p);
        p += len;
        if (*p) p++;
    }
}

void kb_results_runs(const kb_results *res, const char *sep, char *devices, size_t dn,
                     char *commits, size_t cn) {
    join_lists(res, offsetof(kb_result_file, devices), sep, devices, dn);
    join_lists(res, offsetof(kb_result_file, commits), sep, commits, cn);
}

void kb_results_free(kb_results *res) {
    free(res->files);
    free(res->rows);
    memset(res, 0, sizeof *res);
}

const char *kb_result_file_flushes(const kb_results *res, int file) {
    if (res->files[file].l2_flushes[0]) return res->files[file].l2_flushes;
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        if (r->file == file && strcmp(r->mode, "cold") == 0 && strcmp(r->where, "host") != 0 &&
            r->median_us > 0)
            return "write";
    }
    return "";
}

/* The model of the GPU that measured row r: the name its file's '#' lines
 * give the row's device UUID ("NAME (UUID)"), else the file's only GPU;
 * "" when unknown. */
void kb_result_gpu_model(const kb_results *res, const kb_result *r, char *buf, size_t n) {
    const char *list = res->files[r->file].devices, *line = list;
    buf[0] = '\0';
    if (r->device[0]) {
        char want[80];
        snprintf(want, sizeof want, "(%s)", r->device);
        const char *at = strstr(list, want);
        if (!at) return;
        for (line = at; line > list && line[-1] != '\n'; line--) continue;
        snprintf(buf, n, "%.*s", (int)(at - line) - (at > line), line);
        return;
    }
    if (!*list || strchr(list, '\n')) return; /* none, or several: which one is not said */
    const char *paren = strrchr(list, '(');
    snprintf(buf, n, "%.*s", paren && paren > list ? (int)(paren - list) - 1 : (int)strlen(list),
             list);
}
