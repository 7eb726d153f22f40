/* sweep_spec.c — sweeps are data. Parses nvbench-style axis specs and
 * expands sweep lines into cases.
 *
 *   n=16              one value
 *   c=[64,128,256]    a list (any text: dtype=[f32,f16])
 *   h=[32:512:32]     an inclusive range start:end[:step] (step 1 by default)
 *   n[pow2]=[0:5]     powers of two of each value: 1,2,4,...,32
 *
 * A sweep line is whitespace-separated specs; a line with lists expands to
 * their cartesian product. A sweep file holds one line per case (or product),
 * '#' starting a comment, and must give at least one case. A relative path
 * in a value (image=...) is looked for where its text came from: -a, the
 * working directory; a sweep file, the working directory then the file's
 * folder; a built-in sweep, the source tree (kb_value.dir, kb_case_path).
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r, getline, stat */
#include "sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

void kb_spec_free(kb_spec *spec) {
    free(spec->values);
    spec->values = NULL;
    spec->count = 0;
}

static int spec_push(kb_spec *spec, const char *v, size_t len, kb_error *e) {
    if (spec->count >= KB_SPEC_MAX_VALUES)
        return kb_fail(e, "axis %s: more than %d values", spec->axis, KB_SPEC_MAX_VALUES);
    if (len == 0) return kb_fail(e, "axis %s: empty value in the list", spec->axis);
    if (memchr(v, '\n', len))
        return kb_fail(e,
                       "axis %s: a value holds a line break (a row of a CSV, Markdown or table "
                       "file could not keep it on one line)",
                       spec->axis);
    if (len >= KB_STR)
        return kb_fail(e, "axis %s: a value is longer than %d characters", spec->axis, KB_STR - 1);
    if ((spec->count & (spec->count - 1)) == 0) { /* grow at powers of two */
        int cap = spec->count ? spec->count * 2 : 1;
        void *p = realloc(spec->values, (size_t)cap * sizeof *spec->values);
        if (!p) return kb_fail(e, "out of memory");
        spec->values = p;
    }
    memcpy(spec->values[spec->count], v, len);
    spec->values[spec->count][len] = '\0';
    spec->count++;
    return KB_OK;
}

static int parse_num(const char *s, size_t len, double *out) {
    char buf[64];
    if (len == 0 || len >= sizeof buf) return KB_ERR;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    return (*end == '\0' && errno != ERANGE && isfinite(*out)) ? KB_OK : KB_ERR;
}

/* Values print as integers when they are integers, so h=[32:512:32] gives
 * "32", "64", ... and not "32.000000". */
static int push_number(kb_spec *spec, double v, kb_error *e) {
    char buf[64];
    int n = (v == floor(v) && fabs(v) < 9.0e15) ? snprintf(buf, sizeof buf, "%.0f", v)
                                                : snprintf(buf, sizeof buf, "%.17g", v);
    return spec_push(spec, buf, (size_t)n, e);
}

static int parse_range(kb_spec *spec, const char *body, size_t len, kb_error *e) {
    const char *c1 = memchr(body, ':', len);
    const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - body)) : NULL;
    double a, b, step = 1;
    if (parse_num(body, (size_t)(c1 - body), &a) != KB_OK ||
        parse_num(c1 + 1, (size_t)((c2 ? c2 : body + len) - c1 - 1), &b) != KB_OK ||
        (c2 && parse_num(c2 + 1, (size_t)(body + len - c2 - 1), &step) != KB_OK))
        return kb_fail(e, "axis %s: bad range '[%.*s]' (expected [start:end] or [start:end:step])",
                       spec->axis, (int)len, body);
    if (step == 0 || (b - a) / step < 0)
        return kb_fail(e, "axis %s: range [%.*s] never reaches its end (step %g)", spec->axis,
                       (int)len, body, step);
    if ((b - a) / step >= KB_SPEC_MAX_VALUES)
        return kb_fail(e, "axis %s: range [%.*s] has more than %d values", spec->axis, (int)len,
                       body, KB_SPEC_MAX_VALUES);
    long count = (long)floor((b - a) / step * (1 + 1e-12)) + 1;
    for (long i = 0; i < count; i++)
        if (push_number(spec, a + (double)i * step, e) != KB_OK) return KB_ERR;
    return KB_OK;
}

int kb_spec_parse(const char *text, kb_spec *spec, kb_error *e) {
    memset(spec, 0, sizeof *spec);
    const char *eq = strchr(text, '=');
    if (!eq) return kb_fail(e, "'%s': expected AXIS=VALUES, e.g. n=[1,8,16]", text);
    const char *name_end = eq;
    int pow2 = 0;
    const char *br = memchr(text, '[', (size_t)(eq - text));
    if (br) {
        if ((size_t)(eq - br) != 6 || strncmp(br, "[pow2]", 6) != 0)
            return kb_fail(e, "'%.*s': the only axis modifier is [pow2]", (int)(eq - text), text);
        pow2 = 1;
        name_end = br;
    }
    size_t nlen = (size_t)(name_end - text);
    if (nlen == 0 || nlen >= sizeof spec->axis)
        return kb_fail(e, "'%s': missing or overlong axis name", text);
    for (size_t i = 0; i < nlen; i++)
        if (!(isalnum((unsigned char)text[i]) || text[i] == '_'))
            return kb_fail(e, "'%.*s': an axis name is letters, digits and _", (int)nlen, text);
    memcpy(spec->axis, text, nlen);

    const char *v = eq + 1;
    size_t vlen = strlen(v);
    int rc = KB_OK;
    if (vlen && v[0] == '[') {
        if (v[vlen - 1] != ']')
            rc = kb_fail(e, "axis %s: '%s' opens [ but does not close it", spec->axis, v);
        else if (memchr(v + 1, ':', vlen - 2))
            rc = parse_range(spec, v + 1, vlen - 2, e);
        else
            for (const char *p = v + 1; rc == KB_OK && p < v + vlen - 1;) {
                const char *q = memchr(p, ',', (size_t)(v + vlen - 1 - p));
                if (!q) q = v + vlen - 1;
                rc = spec_push(spec, p, (size_t)(q - p), e);
                p = q + 1;
                if (rc == KB_OK && q < v + vlen - 1 && p == v + vlen - 1)
                    rc = kb_fail(e, "axis %s: trailing comma in '%s'", spec->axis, v);
            }
    } else if (strpbrk(v, "[],")) {
        rc = kb_fail(e, "axis %s: a list must be in brackets: %s=[%s]", spec->axis, spec->axis, v);
    } else {
        rc = spec_push(spec, v, vlen, e);
    }
    if (rc == KB_OK && spec->count == 0) rc = kb_fail(e, "axis %s: no values", spec->axis);
    if (rc == KB_OK && pow2)
        for (int i = 0; i < spec->count; i++) {
            double x;
            if (parse_num(spec->values[i], strlen(spec->values[i]), &x) != KB_OK || x != floor(x) ||
                x < 0 || x > 62) {
                rc = kb_fail(e, "axis %s[pow2]: '%s' is not an exponent in [0, 62]", spec->axis,
                             spec->values[i]);
                break;
            }
            snprintf(spec->values[i], KB_STR, "%lld", 1LL << (int)x);
        }
    if (rc != KB_OK) kb_spec_free(spec);
    return rc;
}

/* ---- expansion ---- */

void kb_case_list_free(kb_case_list *list) {
    free(list->cases);
    memset(list, 0, sizeof *list);
}

static int list_push(kb_case_list *list, const kb_case *c, kb_error *e) {
    if (list->count == list->cap) {
        int cap = list->cap ? list->cap * 2 : 16;
        void *p = realloc(list->cases, (size_t)cap * sizeof *list->cases);
        if (!p) return kb_fail(e, "out of memory expanding the sweep");
        list->cases = p;
        list->cap = cap;
    }
    list->cases[list->count++] = *c;
    return KB_OK;
}

int kb_case_validate(const kb_case *c, kb_error *e) {
    if (c->op->validate(c, e) != KB_OK) return KB_ERR;
    kb_tensors in = {0}, out = {0};
    if (c->op->describe(c, &in, &out, e) != KB_OK) return KB_ERR;
    if (kb_tensors_check_size(&in, e) != KB_OK || kb_tensors_check_size(&out, e) != KB_OK)
        return KB_ERR;
    return KB_OK;
}

static int expand(const kb_op *op, kb_spec *specs, int nspecs, int depth, kb_case *c,
                  kb_case_list *list, kb_error *e) {
    if (depth == nspecs) {
        if (list->count >= KB_MAX_CASES)
            return kb_fail(e, "the sweep expands to more than %d cases", KB_MAX_CASES);
        kb_error why;
        if (kb_case_validate(c, &why) != KB_OK) {
            char params[1024];
            kb_case_format(c, params, sizeof params);
            return kb_fail(e, "invalid case {%s}: %s", params, why.msg);
        }
        return list_push(list, c, e);
    }
    const kb_spec *sp = &specs[depth];
    kb_value *v = &c->v[kb_axis_index(op, sp->axis)];
    for (int i = 0; i < sp->count; i++) {
        if (kb_case_set(c, sp->axis, sp->values[i], e) != KB_OK) return KB_ERR;
        v->dir = sp->dir;
        v->dir_first = sp->dir_first;
        if (expand(op, specs, nspecs, depth + 1, c, list, e) != KB_OK) return KB_ERR;
    }
    return KB_OK;
}

/* kb_expand_line, with the folder that relative paths on the line (not in
 * the overrides) also resolve against. */
static int expand_line(const kb_op *op, const char *line, const char *dir, int dir_first,
                       const kb_spec *overrides, int noverrides, kb_case_list *list, kb_error *e) {
    enum { MAX_SPECS = 2 * KB_MAX_AXES };
    kb_spec specs[MAX_SPECS];
    int nspecs = 0, rc = KB_OK;
    char buf[4096];
    if (strlen(line) >= sizeof buf) return kb_fail(e, "sweep line longer than %zu", sizeof buf);
    snprintf(buf, sizeof buf, "%s", line);
    char *save = NULL;
    const char *text[KB_MAX_AXES]; /* each spec's token, for the message below */
    for (char *tok = strtok_r(buf, " \t\r\n", &save); tok && rc == KB_OK;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (nspecs == KB_MAX_AXES) {
            rc = kb_fail(e, "more than %d axis specs on one line", KB_MAX_AXES);
            break;
        }
        rc = kb_spec_parse(tok, &specs[nspecs], e);
        if (rc == KB_OK) {
            specs[nspecs].dir = dir;
            specs[nspecs].dir_first = dir_first;
            text[nspecs] = tok;
            nspecs++;
        }
    }
    /* One spec per axis: a second would set the axis again inside the
     * product of the first, so every case of the line would come twice. */
    for (int j = 1; j < nspecs && rc == KB_OK; j++)
        for (int i = 0; i < j && rc == KB_OK; i++)
            if (strcmp(specs[i].axis, specs[j].axis) == 0)
                rc = kb_fail(e, "axis %s is given twice on one line (%s and %s): one spec per axis",
                             specs[j].axis, text[i], text[j]);
    /* Overrides replace the line's own spec of the same axis (the CLI
     * refuses one axis in two -a options; here the later would win). src:
     * the override a spec came from, whose values it borrows below (-1: its
     * own). */
    int src[MAX_SPECS];
    for (int j = 0; j < MAX_SPECS; j++) src[j] = -1;
    for (int o = 0; o < noverrides && rc == KB_OK; o++) {
        int j = 0;
        while (j < nspecs && strcmp(specs[j].axis, overrides[o].axis) != 0) j++;
        if (j < nspecs)
            kb_spec_free(&specs[j]);
        else if (nspecs < MAX_SPECS)
            nspecs++;
        else
            rc = kb_fail(e, "too many axis specs");
        if (rc == KB_OK) {
            specs[j] = overrides[o];
            specs[j].values = NULL; /* borrowed below */
            src[j] = o;
        }
    }
    /* Unknown axes are reported before anything expands. */
    for (int j = 0; j < nspecs && rc == KB_OK; j++) {
        if (kb_axis_index(op, specs[j].axis) < 0) {
            kb_case tmp;
            kb_case_defaults(&tmp, op);
            rc = kb_case_set(&tmp, specs[j].axis, "", e);
        }
    }
    if (rc == KB_OK) {
        /* Borrow the override values (their memory stays with the caller). */
        for (int j = 0; j < nspecs; j++)
            if (src[j] >= 0) specs[j].values = overrides[src[j]].values;
        /* Refuse an oversized product before allocating any of it. */
        double total = 1;
        for (int j = 0; j < nspecs; j++) total *= specs[j].count;
        if (list->count + total > KB_MAX_CASES) {
            rc = kb_fail(e,
                         "a run holds at most %d cases: %d are there before this line, and it "
                         "expands to %.0f",
                         KB_MAX_CASES, list->count, total);
        } else {
            kb_case c;
            kb_case_defaults(&c, op);
            rc = expand(op, specs, nspecs, 0, &c, list, e);
        }
    }
    for (int j = 0; j < nspecs; j++)
        if (src[j] < 0) kb_spec_free(&specs[j]);
    return rc;
}

int kb_expand_line(const kb_op *op, const char *line, const kb_spec *overrides, int noverrides,
                   kb_case_list *list, kb_error *e) {
    return expand_line(op, line, NULL, 0, overrides, noverrides, list, e);
}

const kb_sweep *kb_find_sweep(const kb_op *op, const char *name) {
    for (int i = 0; op->sweeps && op->sweeps[i].name; i++)
        if (strcmp(op->sweeps[i].name, name) == 0) return &op->sweeps[i];
    return NULL;
}

/* The folder of a sweep file, kept for the life of the process: cases point
 * at it (kb_value.dir) wherever they are copied. NULL for a file in the
 * working directory, whose paths need no second place to look. */
static const char *sweep_file_dir(const char *path) {
    static struct dir_node {
        struct dir_node *next;
        char dir[];
    } * dirs;
    const char *slash = strrchr(path, '/');
    if (!slash) return NULL;
    size_t len = slash == path ? 1 : (size_t)(slash - path); /* "/x.txt": "/" */
    for (struct dir_node *d = dirs; d; d = d->next)
        if (strlen(d->dir) == len && strncmp(d->dir, path, len) == 0) return d->dir;
    struct dir_node *d = malloc(sizeof *d + len + 1);
    if (!d) return NULL;
    memcpy(d->dir, path, len);
    d->dir[len] = '\0';
    d->next = dirs;
    dirs = d;
    return d->dir;
}

/* Built-in sweeps name files of the source tree (datasets/images/...). */
#ifdef KB_SOURCE_DIR
static const char *const source_dir = KB_SOURCE_DIR;
#else
static const char *const source_dir = NULL;
#endif

static int expand_file(const kb_op *op, const char *path, FILE *f, const kb_spec *overrides,
                       int noverrides, kb_case_list *list, kb_error *e) {
    enum { MAX_LINE = 4094 };
    const char *dir = sweep_file_dir(path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, rc = KB_OK, first = list->count;
    while (rc == KB_OK && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            rc = kb_fail(e, "%s:%d: a binary file (it holds a NUL byte), not a sweep file of text",
                         path, lineno);
            break;
        }
        if (len > MAX_LINE + (line[len - 1] == '\n')) {
            rc = kb_fail(e, "%s:%d: line longer than %d characters", path, lineno, MAX_LINE);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0') continue;
        kb_error le;
        if (expand_line(op, p, dir, 0, overrides, noverrides, list, &le) != KB_OK)
            rc = kb_fail(e, "%s:%d: %s", path, lineno, le.msg);
    }
    if (rc == KB_OK && ferror(f)) rc = kb_fail(e, "%s: read error: %s", path, strerror(errno));
    if (rc == KB_OK && list->count == first)
        rc = kb_fail(e, "--sweep %s: no cases: the file %s", path,
                     lineno ? "holds only comments and blank lines" : "is empty");
    free(line);
    return rc;
}

int kb_expand_sweep(const kb_op *op, const char *name_or_file, const kb_spec *overrides,
                    int noverrides, kb_case_list *list, kb_error *e) {
    const kb_sweep *sw = kb_find_sweep(op, name_or_file);
    if (sw) {
        for (int i = 0; sw->lines[i]; i++)
            if (expand_line(op, sw->lines[i], source_dir, 1, overrides, noverrides, list, e) !=
                KB_OK)
                return KB_ERR;
        return KB_OK;
    }
    struct stat st;
    if (stat(name_or_file, &st) == 0 && S_ISDIR(st.st_mode))
        return kb_fail(e, "--sweep %s: is a directory, not a sweep file (nor a sweep of %s)",
                       name_or_file, op->name);
    FILE *f = fopen(name_or_file, "r");
    if (!f) {
        char names[256] = "";
        for (int i = 0; op->sweeps && op->sweeps[i].name; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, op->sweeps[i].name, sizeof names - strlen(names) - 1);
        }
        return kb_fail(e, "--sweep %s: neither a sweep of %s (%s) nor a readable file: %s",
                       name_or_file, op->name, names, strerror(errno));
    }
    int rc = expand_file(op, name_or_file, f, overrides, noverrides, list, e);
    fclose(f);
    return rc;
}
