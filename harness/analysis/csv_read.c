/* csv_read.c — the CSV that out_csv.c writes, read back for `kbench plot`,
 * `report` and `compare`, and the rows grouped per op as a grid of cases x
 * variants.
 *
 * Columns are found by name in the header row (kb_csv_columns), so a file
 * from an older or newer kbench, or one that peers/ wrote with fewer columns
 * ("peer:" variants), reads too. Fields are RFC 4180 (quoted when they hold
 * a comma, a quote or a control character: a CR inside quotes is text, an
 * unquoted one ends the line). '#' lines are the run's metadata. A run that
 * was killed mid-row leaves a last line without its newline and with fewer
 * fields: it is reported and skipped, since every row before it is whole.
 */
#include "results.h"

#include "cli.h"          /* kb_results_load answers in exit codes */
#include "compare_runs.h" /* kb_status_passing */
#include "core/format.h"  /* kb_format_visible */

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- columns: name in the header -> field of kb_result ---- */

typedef enum col_kind { COL_TEXT, COL_NUMBER, COL_STATUS, COL_YESNO } col_kind;

typedef struct column {
    const char *name;
    col_kind kind;
    size_t offset, size;
    int required;
} column;

#define TEXT(f, req)                                                                               \
    { #f, COL_TEXT, offsetof(kb_result, f), sizeof(((kb_result *)0)->f), req }
#define NUMBER(f)                                                                                  \
    { #f, COL_NUMBER, offsetof(kb_result, f), sizeof(double), 0 }

static const column columns[] = {
    TEXT(op, 1),
    TEXT(variant, 1),
    TEXT(params, 1),
    TEXT(mode, 0),
    {"status", COL_STATUS, offsetof(kb_result, status), sizeof(kb_status), 1},
    TEXT(reason, 0),
    NUMBER(samples),
    NUMBER(median_us),
    NUMBER(min_us),
    NUMBER(max_us),
    NUMBER(p10_us),
    NUMBER(p90_us),
    NUMBER(mean_us),
    NUMBER(stddev_us),
    NUMBER(noise_pct),
    NUMBER(bytes),
    NUMBER(flops),
    NUMBER(gbps),
    NUMBER(gflops),
    NUMBER(pct_peak_bw),
    NUMBER(pct_peak_flops),
    NUMBER(workspace_bytes),
    NUMBER(rel_l2),
    NUMBER(max_abs),
    NUMBER(max_rel),
    NUMBER(tolerance),
    NUMBER(throttled),
    {"deterministic", COL_YESNO, offsetof(kb_result, deterministic), sizeof(int), 0},
    TEXT(note, 0),
    NUMBER(dropped),
    TEXT(device, 0),
    NUMBER(pair),
    TEXT(where, 0),
    TEXT(source, 0),
    NUMBER(kernel_us),
    NUMBER(kernel_p10_us),
    NUMBER(kernel_p90_us),
    NUMBER(span_us),
    NUMBER(kernels),
    NUMBER(repeats),
    NUMBER(repeat_spread_pct),
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };
_Static_assert(NCOLUMNS <= 64, "kb_result_file.has_columns holds a bit per column");

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
    if (peaks) {
        double copy = 0, sgemm = 0;
        int got = sscanf(peaks, "peaks: copy %lf GB/s, sgemm %lf", &copy, &sgemm);
        if (got >= 1) f->peak_copy_gbps = copy;
        if (got == 2) f->peak_sgemm_gflops = sgemm;
    }
    int resumed = strncmp(s, "resumed: ", 9) == 0;
    const char *body = resumed ? s + 9 : s;
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
    } else if (strncmp(s, "command: ", 9) == 0) {
        snprintf(f->command, sizeof f->command, "%s", s + 9);
    } else if (strncmp(s, "gpu: ", 5) == 0) {
        snprintf(f->gpu, sizeof f->gpu, "%s", s + 5);
    } else if (strncmp(s, "kbench ", 7) == 0 && strstr(s, " | ")) {
        char *time = strstr(s, " | ");
        *time = '\0';
        time += 3;
        char *host = strstr(time, " | ");
        if (host) {
            *host = '\0';
            host += 3;
            if (strncmp(host, "host ", 5) == 0) host += 5;
            snprintf(f->host, sizeof f->host, "%s", host);
        }
        snprintf(f->commit, sizeof f->commit, "%s", s + 7);
        snprintf(f->time, sizeof f->time, "%s", time);
    } else {
        append_line(f->other, sizeof f->other, s, strlen(s));
    }
}

/* ---- one row ---- */

static int set_field(const column *col, kb_result *row, const char *text, const char *path,
                     int line, kb_error *e) {
    char *dst = (char *)row + col->offset;
    switch (col->kind) {
    case COL_TEXT:
        copy_text(dst, col->size, text, strlen(text));
        return KB_OK;
    case COL_STATUS:
        if (kb_status_parse(text, (kb_status *)(void *)dst) != KB_OK)
            return kb_fail(e,
                           "%s:%d: status '%s' is not one of PASS, FAIL, UNSUPPORTED, ERROR, "
                           "CRASH, TIMEOUT, UNCHECKED",
                           path, line, text);
        return KB_OK;
    case COL_YESNO:
        *(int *)(void *)dst = strcmp(text, "yes") == 0 ? 1 : strcmp(text, "no") == 0 ? 0 : -1;
        return KB_OK;
    case COL_NUMBER: {
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

static void row_defaults(kb_result *row) {
    memset(row, 0, sizeof *row);
    for (int c = 0; c < NCOLUMNS; c++)
        if (columns[c].kind == COL_NUMBER)
            *(double *)(void *)((char *)row + columns[c].offset) = NAN;
    row->deterministic = -1;
    snprintf(row->mode, sizeof row->mode, "cold");
}

/* A file of the schema before the `dropped` column said the count in the
 * note only ("fast NMS: 590 kept, drops 56 greedy keeps" -> 56); NAN when
 * the note states none. */
static double dropped_in_note(const char *note) {
    const char *p = strstr(note, "drops ");
    if (!p) return NAN;
    char *end;
    double n = strtod(p + 6, &end);
    return end == p + 6 ? NAN : n;
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
    int seen[NCOLUMNS] = {0};
    for (int i = 0; i < r->nfields; i++) {
        header[i] = -1;
        for (int c = 0; c < NCOLUMNS; c++) {
            if (strcmp(field(r, i), columns[c].name) != 0) continue;
            /* Which of two columns is meant cannot be known: refuse, never guess. */
            if (seen[c])
                return kb_fail(e, "%s:%d: the header has the column '%s' twice (columns %d and %d)",
                               r->path, line, columns[c].name, seen[c], i + 1);
            header[i] = c;
            seen[c] = i + 1;
        }
    }
    *has = 0;
    for (int c = 0; c < NCOLUMNS; c++) {
        if (seen[c]) *has |= 1ull << c;
        if (columns[c].required && !seen[c])
            return kb_fail(e,
                           "%s:%d: the header has no '%s' column (op, variant, params and "
                           "status are required): is this a kbench CSV?",
                           r->path, line, columns[c].name);
    }
    return KB_OK;
}

int kb_result_file_has_column(const kb_result_file *f, const char *name) {
    for (int c = 0; c < NCOLUMNS; c++)
        if (strcmp(columns[c].name, name) == 0) return (int)((f->has_columns >> c) & 1);
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
    int *header = NULL, ncols = 0, rc = KB_OK, has_dropped = 0;
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
            unsigned long long has = 0;
            meta->has_columns = header ? meta->has_columns : ~0ull;
            free(header);
            ncols = r->nfields;
            header = malloc((size_t)ncols * sizeof *header);
            if (!header) rc = kb_fail(e, "%s: out of host memory", r->path);
            if (rc == KB_OK) rc = read_header(r, header, &has, line, e);
            meta->has_columns &= has;
            has_dropped = 0;
            for (int i = 0; i < ncols && rc == KB_OK; i++)
                has_dropped |= header[i] >= 0 && strcmp(columns[header[i]].name, "dropped") == 0;
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
        row_defaults(&row);
        row.file = file;
        row.line = line;
        for (int i = 0; i < ncols && rc == KB_OK; i++)
            if (header[i] >= 0)
                rc = set_field(&columns[header[i]], &row, field(r, i), r->path, line, e);
        if (rc == KB_OK && !row.mode[0]) snprintf(row.mode, sizeof row.mode, "cold");
        if (rc == KB_OK && !has_dropped) row.dropped = dropped_in_note(row.note);
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

int kb_result_is_peer(const char *variant) {
    return strncmp(variant, "peer:", 5) == 0;
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

int kb_result_timed(const kb_result *r) { /* a --force row is outside its variant's range */
    return kb_status_passing(r->status) && isfinite(r->median_us) && r->median_us > 0 &&
           strncmp(r->reason, KB_FORCED_PREFIX, strlen(KB_FORCED_PREFIX)) != 0;
}

/* ---- a case's params: the short form, and the key rows are matched by ---- */

typedef struct param_token {
    const char *axis, *value;
    size_t axis_len, value_len;
} param_token;

/* The next "axis=value" token of params at *p; 0 at the end or when the
 * rest holds no '='. A token runs to the next " name=", so that a path with
 * spaces stays whole. */
static int next_token(const char **p, param_token *t) {
    const char *s = *p;
    while (*s == ' ') s++;
    const char *eq = strchr(s, '='), *end = s;
    if (!*s || !eq) return 0;
    for (const char *q = eq + 1;; q++) {
        if (!*q) {
            end = q;
            break;
        }
        if (*q == ' ') {
            const char *w = q + 1;
            while (*w && *w != ' ' && *w != '=') w++;
            if (*w == '=') {
                end = q;
                break;
            }
        }
    }
    *t = (param_token){s, eq + 1, (size_t)(eq - s), (size_t)(end - eq - 1)};
    while (t->value_len && t->value[t->value_len - 1] == ' ') t->value_len--;
    *p = end;
    return 1;
}

void kb_params_short(const kb_op *op, const char *params, char *buf, size_t n) {
    if (!op) {
        kb_format_visible(params, buf, n);
        return;
    }
    kb_case def, c;
    kb_case_defaults(&def, op);
    c = def;
    size_t used = 0;
    buf[0] = '\0';
    const char *p = params;
    param_token t;
    while (used < n && next_token(&p, &t)) {
        char axis[KB_NAME], value[KB_STR];
        copy_text(axis, sizeof axis, t.axis, t.axis_len);
        copy_text(value, sizeof value, t.value, t.value_len);
        int i = kb_axis_index(op, axis);
        kb_error e;
        int is_default = i >= 0 && kb_case_set(&c, axis, value, &e) == KB_OK &&
                         strcmp(c.v[i].s, def.v[i].s) == 0;
        if (!is_default)
            used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", axis, value);
    }
    if (!buf[0]) snprintf(buf, n, "(defaults)");
    char raw[4096]; /* a CR or tab in a value (image=...) would break a table's line */
    snprintf(raw, sizeof raw, "%s", buf);
    kb_format_visible(raw, buf, n);
}

/* A number as one text per value: an integer in full, else the shortest
 * "%.Ng" that reads back to the same double, so that 0.50, 0.5 and 5e-1 are
 * all "0.5" and 16.0 is "16" (and -0 is 0). */
static int canonical_number(const char *text, char *out, size_t n) {
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v)) return KB_ERR;
    if (v == floor(v) && fabs(v) < 9007199254740992.0) { /* 1000, not %g's 1e+03 */
        snprintf(out, n, "%.0f", v == 0 ? 0.0 : v);
        return KB_OK;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, n, "%.*g", digits, v);
        if (strtod(out, NULL) == v) break;
    }
    return KB_OK;
}

typedef struct key_token {
    param_token t;
    int order;       /* the axis's index in the op; unknown axes after every known one */
    int seen;        /* position in params: ties (unknown axes, a repeated axis) keep it */
    char number[40]; /* the canonical value of an INT or FLOAT axis; "" for text */
} key_token;

static int cmp_key_token(const void *a, const void *b) {
    const key_token *x = a, *y = b;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return x->seen - y->seen;
}

void kb_params_key(const kb_op *op, const char *params, char *buf, size_t n) {
    enum { MAX_TOKENS = 64 };
    key_token tokens[MAX_TOKENS];
    int count = 0;
    const char *p = params;
    param_token t;
    while (op && count < MAX_TOKENS && next_token(&p, &t)) {
        key_token *k = &tokens[count];
        char axis[KB_NAME], value[KB_STR];
        copy_text(axis, sizeof axis, t.axis, t.axis_len);
        copy_text(value, sizeof value, t.value, t.value_len);
        int i = t.axis_len < sizeof axis ? kb_axis_index(op, axis) : -1;
        int numeric = i >= 0 && t.value_len < sizeof value &&
                      (op->axes[i].kind == KB_AXIS_INT || op->axes[i].kind == KB_AXIS_FLOAT);
        k->t = t;
        k->order = i >= 0 ? i : INT32_MAX;
        k->seen = count++;
        if (!numeric || canonical_number(value, k->number, sizeof k->number) != KB_OK)
            k->number[0] = '\0';
    }
    while (*p == ' ') p++;
    if (!op || *p) { /* an unknown op, or params this rule cannot read whole: as written */
        snprintf(buf, n, "%s", params);
        return;
    }
    /* An axis the row does not name has its default: files written before the
     * op gained an axis still match the rows that write it. */
    kb_case def;
    kb_case_defaults(&def, op);
    for (int a = 0; a < def.naxes && count < MAX_TOKENS; a++) {
        int named = 0;
        for (int i = 0; i < count && !named; i++) named = tokens[i].order == a;
        if (named) continue;
        key_token *k = &tokens[count];
        k->t = (param_token){.axis = op->axes[a].name,
                             .value = op->axes[a].def,
                             .axis_len = strlen(op->axes[a].name),
                             .value_len = strlen(op->axes[a].def)};
        k->order = a;
        k->seen = count++;
        int numeric = op->axes[a].kind == KB_AXIS_INT || op->axes[a].kind == KB_AXIS_FLOAT;
        if (!numeric || canonical_number(def.v[a].s, k->number, sizeof k->number) != KB_OK)
            k->number[0] = '\0';
    }
    qsort(tokens, (size_t)count, sizeof *tokens, cmp_key_token);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < n; i++) {
        const key_token *k = &tokens[i];
        if (k->number[0])
            used += (size_t)snprintf(buf + used, n - used, "%s%.*s=%s", i ? " " : "",
                                     (int)k->t.axis_len, k->t.axis, k->number);
        else
            used +=
                (size_t)snprintf(buf + used, n - used, "%s%.*s=%.*s", i ? " " : "",
                                 (int)k->t.axis_len, k->t.axis, (int)k->t.value_len, k->t.value);
    }
}

/* ---- views: one op in one mode as a grid ---- */

typedef struct name_key {
    const char *name;
    int group, order; /* group 0 registry variant (order: its rank), 1 peer, 2 unknown */
} name_key;

static int cmp_name_key(const void *a, const void *b) {
    const name_key *x = a, *y = b;
    if (x->group != y->group) return x->group - y->group;
    if (x->order != y->order) return x->order - y->order;
    return strcmp(x->name, y->name);
}

/* Rank of variant among the registry variants of op, or -1. */
static int registry_rank(const char *op, const char *variant) {
    int rank = 0;
    for (int i = 0; kb_variants[i].op; i++) {
        if (strcmp(kb_variants[i].op, op) != 0) continue;
        if (strcmp(kb_variants[i].name, variant) == 0) return rank;
        rank++;
    }
    return -1;
}

typedef struct case_key {
    const kb_result *row; /* the case's first row: its params name the case */
    double bytes;
    int first;
} case_key;

static int cmp_case_key(const void *a, const void *b) {
    const case_key *x = a, *y = b;
    int xn = !(x->bytes == x->bytes), yn = !(y->bytes == y->bytes);
    if (xn != yn) return xn - yn; /* unknown sizes last */
    if (!xn && x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
    return x->first - y->first;
}

static int in_view(const kb_op_view *v, const kb_result *r) {
    return strcmp(v->op, r->op) == 0 && strcmp(v->mode, r->mode) == 0;
}

static int fill_view(const kb_results *res, kb_op_view *v) {
    int n = 0;
    for (int i = 0; i < res->count; i++) n += in_view(v, &res->rows[i]);
    name_key *names = calloc((size_t)n, sizeof *names);
    case_key *cases = calloc((size_t)n, sizeof *cases);
    if (!names || !cases) {
        free(names);
        free(cases);
        return KB_ERR;
    }
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        if (!in_view(v, r)) continue;
        int k = 0, c = 0;
        while (k < v->nvariants && strcmp(names[k].name, r->variant) != 0) k++;
        if (k == v->nvariants) {
            int rank = registry_rank(r->op, r->variant);
            names[v->nvariants++] = (name_key){r->variant,
                                               rank >= 0                       ? 0
                                               : kb_result_is_peer(r->variant) ? 1
                                                                               : 2,
                                               rank};
        }
        while (c < v->ncases && strcmp(cases[c].row->key, r->key) != 0) c++;
        if (c == v->ncases) cases[v->ncases++] = (case_key){r, NAN, c};
        if (!(cases[c].bytes > 0) && r->bytes > 0) cases[c].bytes = r->bytes;
    }
    qsort(names, (size_t)v->nvariants, sizeof *names, cmp_name_key);
    qsort(cases, (size_t)v->ncases, sizeof *cases, cmp_case_key);
    v->variants = calloc((size_t)v->nvariants, sizeof *v->variants);
    v->variant_rank = calloc((size_t)v->nvariants, sizeof *v->variant_rank);
    v->cases = calloc((size_t)v->ncases, sizeof *v->cases);
    v->bytes = calloc((size_t)v->ncases, sizeof *v->bytes);
    v->cells = calloc((size_t)v->ncases * (size_t)v->nvariants, sizeof *v->cells);
    int ok = v->variants && v->variant_rank && v->cases && v->bytes && v->cells;
    for (int k = 0; ok && k < v->nvariants; k++) {
        v->variants[k] = names[k].name;
        v->variant_rank[k] = names[k].group == 0 ? names[k].order : -1;
    }
    for (int c = 0; ok && c < v->ncases; c++) {
        v->cases[c] = cases[c].row->params;
        v->bytes[c] = cases[c].bytes;
    }
    for (int i = 0; ok && i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        if (!in_view(v, r)) continue;
        int c = 0, k = kb_view_variant(v, r->variant);
        while (strcmp(cases[c].row->key, r->key) != 0) c++;
        v->cells[c * v->nvariants + k] = r;
    }
    free(names);
    free(cases);
    return ok ? KB_OK : KB_ERR;
}

int kb_views_build(const kb_results *res, kb_op_view **views, int *nviews, kb_error *e) {
    kb_op_view *vs = NULL;
    int n = 0;
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        int j = 0;
        while (j < n && !in_view(&vs[j], r)) j++;
        if (j < n) continue;
        kb_op_view *grown = realloc(vs, (size_t)(n + 1) * sizeof *vs);
        if (!grown) {
            kb_views_free(vs, n);
            return kb_fail(e, "out of host memory grouping %d rows", res->count);
        }
        vs = grown;
        memset(&vs[n], 0, sizeof vs[n]);
        snprintf(vs[n].op, sizeof vs[n].op, "%s", r->op);
        snprintf(vs[n].mode, sizeof vs[n].mode, "%s", r->mode);
        vs[n].def = kb_find_op(r->op);
        vs[n].first_file = r->file;
        n++;
        if (fill_view(res, &vs[n - 1]) != KB_OK) {
            kb_views_free(vs, n);
            return kb_fail(e, "out of host memory grouping %d rows", res->count);
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && strcmp(vs[i].op, vs[j].op) == 0) vs[i].mode_in_name = 1;
    *views = vs;
    *nviews = n;
    return KB_OK;
}

void kb_views_free(kb_op_view *views, int nviews) {
    for (int i = 0; i < nviews; i++) {
        free(views[i].variants);
        free(views[i].variant_rank);
        free(views[i].cases);
        free(views[i].bytes);
        free(views[i].cells);
    }
    free(views);
}

const kb_result *kb_view_cell(const kb_op_view *v, int c, int k) {
    return v->cells[c * v->nvariants + k];
}

int kb_view_variant(const kb_op_view *v, const char *name) {
    for (int k = 0; k < v->nvariants; k++)
        if (strcmp(v->variants[k], name) == 0) return k;
    return -1;
}

static int timed_variant(const kb_op_view *v, int c, const char *name, size_t len) {
    for (int k = 0; k < v->nvariants; k++)
        if (strlen(v->variants[k]) == len && strncmp(v->variants[k], name, len) == 0) {
            const kb_result *r = kb_view_cell(v, c, k);
            return r && kb_result_timed(r) ? k : -1;
        }
    return -1;
}

int kb_view_baseline(const kb_op_view *v, int c, const char *forced) {
    if (forced) return timed_variant(v, c, forced, strlen(forced));
    const char *list = v->def ? v->def->baseline : NULL;
    if (!list || !*list) {
        for (int i = 0; v->def && kb_variants[i].op; i++)
            if (strcmp(kb_variants[i].op, v->op) == 0)
                return timed_variant(v, c, kb_variants[i].name, strlen(kb_variants[i].name));
        return -1;
    }
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int k = timed_variant(v, c, p, len);
        if (k >= 0) return k;
        p += len;
        if (*p == ',') p++;
    }
    return -1;
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

/* Rows measured on GPUs of different models (--mixed-devices, or merged
 * parts) are not one case: when the rows' device columns name more than one
 * model, each such row's case gets the model as a `gpu=` token (spaces as
 * '_'), so that tables and plots keep them apart. Rows without the column
 * (older files, peers/) are left as they are. */
static void split_by_model(kb_results *res) {
    char first[256] = "", m[256];
    int models = 0;
    for (int i = 0; i < res->count && models < 2; i++) {
        if (!res->rows[i].device[0]) continue;
        kb_result_gpu_model(res, &res->rows[i], m, sizeof m);
        if (m[0] && (!models || strcmp(m, first) != 0))
            snprintf(first, sizeof first, "%s", m), models++;
    }
    if (models < 2) return;
    for (int i = 0; i < res->count; i++) {
        kb_result *r = &res->rows[i];
        if (!r->device[0]) continue; /* a file before the column, peers/: matched as it is */
        kb_result_gpu_model(res, r, m, sizeof m);
        if (!m[0]) continue;
        for (char *c = m; *c; c++)
            if (*c == ' ') *c = '_';
        size_t lp = strlen(r->params), lk = strlen(r->key);
        snprintf(r->params + lp, sizeof r->params - lp, " gpu=%s", m);
        snprintf(r->key + lk, sizeof r->key - lk, " gpu=%s", m);
    }
}

int kb_results_load(const char *const *paths, int npaths, kb_results *res, kb_op_view **views,
                    int *nviews, kb_error *e) {
    *views = NULL;
    *nviews = 0;
    for (int f = 0; f < npaths; f++)
        if (kb_results_read(res, paths[f], stderr, e) != KB_OK) return KB_EXIT_USAGE;
    split_by_model(res);
    if (kb_views_build(res, views, nviews, e) != KB_OK) return KB_EXIT_RUNTIME;
    if (!*nviews) {
        kb_fail(e, "no result rows in %s%s", paths[0], npaths > 1 ? " and the others" : "");
        return KB_EXIT_USAGE;
    }
    return KB_EXIT_OK;
}

/* ---- a view's cases along one axis ---- */

enum { ALONG_AXES = 64, ALONG_KEY = 1024 };

/* Every case's value of every axis, from its key (kb_params_key: each axis
 * named, numbers in one canonical text, so that equal values compare equal
 * as strings). */
typedef struct along_grid {
    int ncases, naxes;
    char names[ALONG_AXES][KB_NAME];
    char (*keys)[ALONG_KEY]; /* per case: its key, each value NUL-terminated in place */
    const char **val;        /* [c * ALONG_AXES + a]: the value, "" when the key lacks it */
} along_grid;

static void grid_free(along_grid *g) {
    free(g->keys);
    free(g->val);
}

static int grid_axis(const along_grid *g, const char *name, size_t len) {
    for (int a = 0; a < g->naxes; a++)
        if (strlen(g->names[a]) == len && strncmp(g->names[a], name, len) == 0) return a;
    return -1;
}

static int grid_build(const kb_op_view *v, along_grid *g, kb_error *e) {
    memset(g, 0, sizeof *g);
    g->ncases = v->ncases;
    for (int a = 0; v->def && v->def->axes[a].name && a < ALONG_AXES; a++)
        snprintf(g->names[g->naxes++], KB_NAME, "%s", v->def->axes[a].name);
    g->keys = calloc((size_t)v->ncases + 1, sizeof *g->keys);
    g->val = calloc(((size_t)v->ncases + 1) * ALONG_AXES, sizeof *g->val);
    if (!g->keys || !g->val) {
        grid_free(g);
        return kb_fail(e, "out of host memory laying out %d cases", v->ncases);
    }
    for (int c = 0; c < v->ncases; c++) {
        char *key = g->keys[c];
        kb_params_key(v->def, v->cases[c], key, ALONG_KEY);
        param_token tokens[ALONG_AXES];
        int n = 0;
        const char *p = key;
        while (n < ALONG_AXES && next_token(&p, &tokens[n])) n++;
        for (int i = 0; i < n; i++) {
            int a = grid_axis(g, tokens[i].axis, tokens[i].axis_len);
            if (a < 0 && g->naxes < ALONG_AXES && tokens[i].axis_len < KB_NAME) {
                a = g->naxes++;
                copy_text(g->names[a], KB_NAME, tokens[i].axis, tokens[i].axis_len);
            }
            if (a >= 0) g->val[c * ALONG_AXES + a] = tokens[i].value;
        }
        /* Cut each value at its end only now: next_token reads the rest. */
        for (int i = 0; i < n; i++) key[tokens[i].value - key + (ptrdiff_t)tokens[i].value_len] = 0;
    }
    for (int c = 0; c < v->ncases; c++)
        for (int a = 0; a < g->naxes; a++)
            if (!g->val[c * ALONG_AXES + a]) g->val[c * ALONG_AXES + a] = "";
    return KB_OK;
}

static const char *grid_val(const along_grid *g, int c, int a) {
    return g->val[c * ALONG_AXES + a];
}

/* The distinct values of axis a, in order of appearance (out: a case of each). */
static int grid_distinct(const along_grid *g, int a, int *first_case) {
    int n = 0;
    for (int c = 0; c < g->ncases; c++) {
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(grid_val(g, first_case[i], a), grid_val(g, c, a)) == 0;
        if (!seen) first_case[n++] = c;
    }
    return n;
}

static int is_number(const char *s) {
    char *end;
    double x = strtod(s, &end);
    return *s && !*end && isfinite(x);
}

/* INT and FLOAT axes (for an op this build does not know: axes whose every
 * value reads as a number). */
static int grid_numeric(const kb_op_view *v, const along_grid *g, int a) {
    int i = v->def ? kb_axis_index(v->def, g->names[a]) : -1;
    if (i >= 0) return v->def->axes[i].kind == KB_AXIS_INT || v->def->axes[i].kind == KB_AXIS_FLOAT;
    for (int c = 0; c < g->ncases; c++)
        if (!is_number(grid_val(g, c, a))) return 0;
    return 1;
}

/* Where a value sorts: numbers by value, an enum by its place in the axis's
 * choices, anything else by first appearance (the view's cases are by size). */
static double grid_rank(const kb_op_view *v, const along_grid *g, int a, int c) {
    const char *s = grid_val(g, c, a);
    if (grid_numeric(v, g, a)) return strtod(s, NULL);
    int i = v->def ? kb_axis_index(v->def, g->names[a]) : -1;
    if (i >= 0 && v->def->axes[i].kind == KB_AXIS_ENUM && v->def->axes[i].choices) {
        int rank = 0;
        for (const char *p = v->def->axes[i].choices; *p; rank++) {
            size_t len = strcspn(p, ",");
            if (len == strlen(s) && strncmp(p, s, len) == 0) return rank;
            p += len;
            if (*p == ',') p++;
        }
        return rank + 1000.0 * g->ncases; /* not a choice: after every one */
    }
    for (int d = 0; d < g->ncases; d++)
        if (strcmp(grid_val(g, d, a), s) == 0) return d;
    return g->ncases;
}

/* Append sep (when list is not empty) and item, cut at n - 1 characters. */
static void list_add(char *list, size_t n, const char *sep, const char *item) {
    size_t used = strlen(list);
    for (const char *s = used ? sep : ""; *s && used + 1 < n; s++) list[used++] = *s;
    for (const char *s = item; *s && used + 1 < n; s++) list[used++] = *s;
    list[used] = '\0';
}

int kb_view_has_axis(const kb_op_view *v, const char *axis) {
    if (v->def) return kb_axis_index(v->def, axis) >= 0;
    along_grid g;
    if (grid_build(v, &g, NULL) != KB_OK) return 0;
    int found = grid_axis(&g, axis, strlen(axis)) >= 0;
    grid_free(&g);
    return found;
}

void kb_along_free(kb_along *a) {
    free(a->x);
    free(a->xlabel);
    free(a->panel);
    free(a->case_x);
    free(a->case_panel);
    memset(a, 0, sizeof *a);
}

static int along_layout(const kb_op_view *v, const along_grid *g, int ax, kb_along *a,
                        kb_error *e) {
    int n = g->ncases;
    int *first = calloc((size_t)n + 1, sizeof *first),
        *order = calloc((size_t)n + 1, sizeof *order);
    int *panel_case = calloc((size_t)n + 1, sizeof *panel_case);
    char(*pkey)[ALONG_KEY] = calloc((size_t)n + 1, sizeof *pkey);
    int follows[ALONG_AXES] = {0}, in_panel[ALONG_AXES] = {0};
    int rc = KB_OK;
    memset(a, 0, sizeof *a);
    snprintf(a->axis, sizeof a->axis, "%s", g->names[ax]);
    a->case_x = calloc((size_t)n + 1, sizeof *a->case_x);
    a->case_panel = calloc((size_t)n + 1, sizeof *a->case_panel);
    if (!first || !order || !panel_case || !pkey || !a->case_x || !a->case_panel) {
        rc = kb_fail(e, "out of host memory laying out %d cases", n);
        goto done;
    }
    /* x positions: the axis's values, sorted. */
    int nx = grid_distinct(g, ax, first);
    for (int i = 0; i < nx; i++) order[i] = first[i];
    for (int i = 1; i < nx; i++) /* insertion sort: a sweep has few values */
        for (int j = i; j > 0 && grid_rank(v, g, ax, order[j]) < grid_rank(v, g, ax, order[j - 1]);
             j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int c = 0; c < n; c++)
        for (int i = 0; i < nx; i++)
            if (strcmp(grid_val(g, c, ax), grid_val(g, order[i], ax)) == 0) a->case_x[c] = i;
    /* The other varying axes: those the along-axis determines move with it;
     * the rest split panels. */
    for (int b = 0; b < g->naxes; b++) {
        if (b == ax || grid_distinct(g, b, first) < 2) continue;
        int determined = 1;
        for (int c = 0; c < n && determined; c++)
            determined = strcmp(grid_val(g, c, b), grid_val(g, order[a->case_x[c]], b)) == 0;
        follows[b] = determined;
        in_panel[b] = !determined;
        if (determined) list_add(a->with, sizeof a->with, ", ", g->names[b]);
    }
    int np = 0;
    for (int c = 0; c < n; c++) {
        pkey[c][0] = '\0';
        for (int b = 0; b < g->naxes; b++) {
            if (!in_panel[b]) continue;
            char item[KB_NAME + KB_STR + 2];
            snprintf(item, sizeof item, "%s=%s", g->names[b], grid_val(g, c, b));
            list_add(pkey[c], ALONG_KEY, " ", item);
        }
        int p = 0;
        while (p < np && strcmp(pkey[panel_case[p]], pkey[c]) != 0) p++;
        if (p == np) panel_case[np++] = c;
    }
    if (np > KB_ALONG_MAX_PANELS) {
        char others[512] = "";
        for (int b = 0; b < g->naxes; b++)
            if (in_panel[b]) list_add(others, sizeof others, ", ", g->names[b]);
        rc = kb_fail(e,
                     "along %s, the other axes that vary (%s) make %d panels of %s's cases; at "
                     "most %d",
                     a->axis, others, np, v->op, KB_ALONG_MAX_PANELS);
        goto done;
    }
    /* Panels in the order of their axes' values. */
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0; j--) {
            int before = 0, x = panel_case[j], y = panel_case[j - 1];
            for (int b = 0; b < g->naxes; b++) {
                if (!in_panel[b]) continue;
                double rx = grid_rank(v, g, b, x), ry = grid_rank(v, g, b, y);
                if (rx != ry) {
                    before = rx < ry;
                    break;
                }
            }
            if (!before) break;
            panel_case[j] = y;
            panel_case[j - 1] = x;
        }
    a->nx = nx;
    a->npanels = np;
    a->x = calloc((size_t)nx, sizeof *a->x);
    a->xlabel = calloc((size_t)nx, sizeof *a->xlabel);
    a->panel = calloc((size_t)np, sizeof *a->panel);
    if (!a->x || !a->xlabel || !a->panel) {
        rc = kb_fail(e, "out of host memory laying out %d cases", n);
        goto done;
    }
    for (int p = 0; p < np; p++) snprintf(a->panel[p], KB_ALONG_LABEL, "%s", pkey[panel_case[p]]);
    for (int c = 0; c < n; c++)
        for (int p = 0; p < np; p++)
            if (strcmp(pkey[c], pkey[panel_case[p]]) == 0) a->case_panel[c] = p;
    a->numeric = grid_numeric(v, g, ax) && !a->with[0];
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < nx; i++) {
        const char *s = grid_val(g, order[i], ax);
        a->x[i] = a->numeric ? strtod(s, NULL) : i;
        lo = fmin(lo, a->x[i]);
        hi = fmax(hi, a->x[i]);
        if (a->numeric) {
            snprintf(a->xlabel[i], KB_ALONG_LABEL, "%s", s);
            continue;
        }
        snprintf(a->xlabel[i], KB_ALONG_LABEL, "%s=%s", a->axis, s);
        for (int b = 0; b < g->naxes; b++) {
            if (!follows[b]) continue;
            char item[KB_NAME + KB_STR + 2];
            snprintf(item, sizeof item, "%s=%s", g->names[b], grid_val(g, order[i], b));
            list_add(a->xlabel[i], KB_ALONG_LABEL, " ", item);
        }
    }
    a->log_x = a->numeric && lo > 0 && hi / lo > 30;
    a->min_points = n;
    for (int p = 0; p < np; p++) {
        int count = 0;
        for (int c = 0; c < n; c++) count += a->case_panel[c] == p;
        a->min_points = count < a->min_points ? count : a->min_points;
    }
done:
    free(first);
    free(order);
    free(panel_case);
    free(pkey);
    if (rc != KB_OK) kb_along_free(a);
    return rc;
}

int kb_along_build(const kb_op_view *v, const char *axis, kb_along *a, kb_error *e) {
    memset(a, 0, sizeof *a);
    along_grid g;
    if (grid_build(v, &g, e) != KB_OK) return KB_ERR;
    int ax = grid_axis(&g, axis, strlen(axis)), rc = KB_ERR;
    char names[1024] = "", varying[1024] = "";
    int *first = calloc((size_t)g.ncases + 1, sizeof *first);
    if (!first) {
        grid_free(&g);
        return kb_fail(e, "out of host memory laying out %d cases", v->ncases);
    }
    for (int b = 0; b < g.naxes; b++) {
        list_add(names, sizeof names, ", ", g.names[b]);
        if (grid_distinct(&g, b, first) > 1) list_add(varying, sizeof varying, ", ", g.names[b]);
    }
    if (ax < 0)
        kb_fail(e, "%s has no axis '%s' (its axes: %s)", v->op, axis, names);
    else if (grid_distinct(&g, ax, first) < 2)
        kb_fail(e, "axis '%s' does not vary across %s's rows (every case has %s=%s); %s%s", axis,
                v->op, axis, g.ncases ? grid_val(&g, 0, ax) : "?",
                varying[0] ? "the axes that vary: " : "no axis varies", varying);
    else
        rc = along_layout(v, &g, ax, a, e);
    free(first);
    grid_free(&g);
    return rc;
}

/* How many of n cases a line joins: those in a panel of two positions or more. */
static int joined_cases(const kb_along *t, int n) {
    int joined = 0;
    for (int p = 0; p < t->npanels; p++) {
        int count = 0;
        for (int c = 0; c < n; c++) count += t->case_panel[c] == p;
        joined += count >= 2 ? count : 0;
    }
    return joined;
}

/* The best axis by score (0: not a candidate), then the fewest panels, then
 * the most positions, then the op's axis order. */
static int along_pick(const kb_op_view *v, kb_along *a, int joined) {
    memset(a, 0, sizeof *a);
    along_grid g;
    if (grid_build(v, &g, NULL) != KB_OK) return 0;
    int *first = calloc((size_t)g.ncases + 1, sizeof *first);
    int best = -1, best_score = 0, best_panels = 0, best_nx = 0;
    for (int b = 0; first && b < g.naxes; b++) {
        kb_along t;
        if (grid_distinct(&g, b, first) < 2 || along_layout(v, &g, b, &t, NULL) != KB_OK) continue;
        int score = joined ? joined_cases(&t, g.ncases) : t.npanels <= 4 && t.min_points >= 2;
        if (score > 0 &&
            (best < 0 || score > best_score ||
             (score == best_score &&
              (t.npanels < best_panels || (t.npanels == best_panels && t.nx > best_nx))))) {
            best = b;
            best_score = score;
            best_panels = t.npanels;
            best_nx = t.nx;
        }
        kb_along_free(&t);
    }
    int found = best >= 0 && along_layout(v, &g, best, a, NULL) == KB_OK;
    free(first);
    grid_free(&g);
    return found;
}

int kb_along_pick(const kb_op_view *v, kb_along *a) {
    return along_pick(v, a, 0);
}

int kb_along_pick_joined(const kb_op_view *v, kb_along *a) {
    return along_pick(v, a, 1);
}
