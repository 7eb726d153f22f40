/* cli_merge.c — `kbench merge PART.csv... -o ALL.csv`: the files that
 * `kbench run|check OP --shard I/N` wrote on N machines (or Slurm tasks)
 * joined into the one file an unsharded run writes: rows in sweep order (the
 * `pair` column), every part's '#' lines kept (so every GPU is listed), the
 * shard lines as "part:" lines, since the result is no longer a shard.
 *
 * Parts that cannot be one sweep are refused before anything is written:
 * another kbench build, op or sweep (the shard line's op, N, pair count and
 * hash), GPUs of another model (unless --mixed-devices), a pair in two rows,
 * a shard missing. Rows are copied as text, never re-formatted, so merging
 * changes no digit. ALL.csv is written beside itself and renamed onto its
 * name when complete (out_file.c): a refused or failed merge leaves it as it
 * was.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_opts.h"
#include "results/result.h"

#include "core/format.h"
#include "run/out_file.h"
#include "run/shard.h" /* KB_MAX_SHARDS */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- one part: its text, its shard line, its column header ---- */

typedef struct part {
    const char *path;
    char *text;
    size_t size;
    size_t *lines; /* offset of each line's start: lines[LINE - 1] */
    int nlines;
    size_t header, header_len; /* the column header line */
    int has_shard, index, count, shard_pairs, sweep_pairs;
    int rows; /* the rows the shard writes when complete; -1: not said */
    char op[64], hash[32];
} part;

typedef struct merge_args {
    const char *out;
    int overwrite, mixed, n;
    part *parts;
} merge_args;

static int set_out(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    merge_args *a = dst;
    (void)o;
    if (a->out) return kb_fail(e, "one output only (-o %s given already)", a->out);
    a->out = v;
    return KB_OK;
}

static int add_part(void *dst, const char *arg, kb_error *e) {
    merge_args *a = dst;
    (void)e;
    a->parts[a->n++].path = arg;
    return KB_OK;
}

const kb_opt kb_merge_opts[] = {
    KB_OPT_CALL("-o", "FILE", "the merged CSV (required)", set_out),
    KB_OPT_SWITCH("--overwrite",
                  "replace FILE if it exists. The merge is written beside FILE\n"
                  "and renamed onto it when complete: a refused or failed merge\n"
                  "leaves FILE as it was",
                  merge_args, overwrite),
    KB_OPT_SWITCH("--mixed-devices",
                  "allow parts of GPUs of different models (report keeps each\n"
                  "model's rows apart)",
                  merge_args, mixed),
    KB_OPT_END,
};

static void merge_help(void) {
    fputs("usage: kbench merge PART.csv... -o ALL.csv [--overwrite] [--mixed-devices]\n\n"
          "Join the CSVs that `kbench run|check OP --shard I/N -o PART.csv` wrote, one per\n"
          "shard I = 0..N-1, into ALL.csv: every part's rows in sweep order (their `pair`\n"
          "column), copied as they are, as one unsharded run would have written them.\n"
          "The '#' lines of every part are kept (so every GPU is listed), the shard lines\n"
          "as '# part: ...', under one '# merged: ...' line.\n"
          "Refused (exit 2, nothing written), naming the files and what differs:\n"
          "  - a part without a '# shard:' line (not written by run|check --shard)\n"
          "  - parts of different kbench builds (their '# kbench COMMIT' lines, or one\n"
          "    commit over other sources: their '# sources: sha256' lines)\n"
          "  - parts of different ops or sweeps (the shard line's op, N, pair count or\n"
          "    sweep hash: every shard must be run with the same op, sweep and options)\n"
          "  - parts measured on GPUs of different models, unless --mixed-devices\n"
          "  - one pair in two rows (named with both files), or one shard twice\n"
          "  - a shard missing, named I/N (a task that failed before its first row wrote\n"
          "    no file: run that shard again; a shard given no pair of the sweep writes\n"
          "    a file of no row, which merge takes)\n"
          "  - a part with fewer rows than its shard line says the shard writes (a run\n"
          "    killed or cut short: --resume it)\n\n",
          stdout);
    kb_opts_help(stdout, kb_merge_opts);
    puts("  -h, --help\n"
         "exit codes: 0 merged; 2 bad usage, a part that cannot be read as a kbench CSV,\n"
         "            or parts refused as above; 4 FILE could not be written\n"
         "example:\n"
         "  kbench run nms --shard 0/2 -o p0.csv   # on one machine\n"
         "  kbench run nms --shard 1/2 -o p1.csv   # on another\n"
         "  kbench merge p0.csv p1.csv -o results/nms.csv");
}

static int problems; /* refusals found: each printed, all before exit 2 */

static void problem(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static void problem(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("kbench merge: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    problems++;
}

static int read_text(part *p, kb_error *e) {
    FILE *f = fopen(p->path, "rb");
    if (!f) return kb_fail(e, "%s: cannot open", p->path);
    size_t cap = 1 << 16;
    p->text = malloc(cap + 1);
    while (p->text) {
        p->size += fread(p->text + p->size, 1, cap - p->size, f);
        if (p->size < cap) break;
        char *grown = realloc(p->text, 2 * cap + 1);
        if (!grown) {
            free(p->text);
            p->text = NULL;
        }
        p->text = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!p->text) return kb_fail(e, "%s: out of host memory reading it", p->path);
    if (bad) return kb_fail(e, "%s: read error", p->path);
    p->text[p->size] = '\0';
    return KB_OK;
}

/* "I/N of OP: K of the sweep's P pairs, sweep HASH, R rows" (cli_run.c's
 * shard_text; parts written before the row count have none: rows = -1). */
static int parse_shard(const char *s, part *p) {
    int used = 0, more = 0;
    p->rows = -1;
    if (sscanf(s, "%d/%d of %63[^:]: %d of the sweep's %d pairs, sweep %31[0-9a-f]%n", &p->index,
               &p->count, p->op, &p->shard_pairs, &p->sweep_pairs, p->hash, &used) != 6)
        return 0;
    if (s[used] != '\0' && (sscanf(s + used, ", %d rows%n", &p->rows, &more) != 1 ||
                            s[used + more] != '\0' || p->rows < 0))
        return 0;
    return p->count >= 1 && p->count <= KB_MAX_SHARDS && p->index >= 0 && p->index < p->count;
}

/* A '#' line's body after "# " and "resumed: " (--resume's lines). */
static const char *meta_body(const char *line) {
    while (*line == '#' || *line == ' ') line++;
    return strncmp(line, "resumed: ", 9) == 0 ? line + 9 : line;
}

static size_t line_len(const part *p, int i) {
    const char *s = p->text + p->lines[i];
    size_t n = strcspn(s, "\n");
    return n && s[n - 1] == '\r' ? n - 1 : n;
}

/* Line starts, the shard line (every one the part holds must agree: --resume
 * repeats it) and the column header (one schema: a second header must be the
 * same). */
static int scan_part(part *p, kb_error *e) {
    size_t start = p->size >= 3 && memcmp(p->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    int cap = 1024;
    p->lines = malloc((size_t)cap * sizeof *p->lines);
    for (size_t o = start; p->lines && o < p->size;) {
        if (p->nlines == cap) {
            size_t *grown = realloc(p->lines, (size_t)(cap *= 2) * sizeof *grown);
            if (!grown) free(p->lines);
            p->lines = grown;
            if (!grown) break;
        }
        p->lines[p->nlines++] = o;
        const char *nl = memchr(p->text + o, '\n', p->size - o);
        o = nl ? (size_t)(nl - p->text) + 1 : p->size;
    }
    if (!p->lines) return kb_fail(e, "%s: out of host memory", p->path);
    int header = 0;
    for (int i = 0; i < p->nlines; i++) {
        const char *s = p->text + p->lines[i];
        size_t n = line_len(p, i);
        if (n == 0) continue;
        if (*s == '#') {
            char line[2048];
            snprintf(line, sizeof line, "%.*s", (int)n, s);
            const char *body = meta_body(line);
            if (strncmp(body, "shard: ", 7) != 0) continue;
            part q = {0};
            if (!parse_shard(body + 7, &q))
                return kb_fail(e, "%s:%d: a shard line kbench did not write: '%s'", p->path, i + 1,
                               line);
            if (!p->has_shard) {
                p->has_shard = 1;
                p->index = q.index;
                p->count = q.count;
                p->shard_pairs = q.shard_pairs;
                p->sweep_pairs = q.sweep_pairs;
                p->rows = q.rows;
                snprintf(p->op, sizeof p->op, "%s", q.op);
                snprintf(p->hash, sizeof p->hash, "%s", q.hash);
            } else if (q.index != p->index || q.count != p->count || strcmp(q.op, p->op) != 0 ||
                       q.sweep_pairs != p->sweep_pairs || strcmp(q.hash, p->hash) != 0) {
                return kb_fail(e,
                               "%s:%d: a shard line of another shard or sweep than the first: "
                               "'%s' (rows of two runs in one part)",
                               p->path, i + 1, line);
            }
        } else if (!header) {
            header = i + 1;
            p->header = p->lines[i];
            p->header_len = n;
        } else if (strncmp(s, "op,", 3) == 0 &&
                   (n != p->header_len || memcmp(s, p->text + p->header, n) != 0)) {
            return kb_fail(e,
                           "%s:%d: a column header other than line %d's (rows of two schemas: "
                           "merge parts of one kbench build)",
                           p->path, i + 1, header);
        }
    }
    return KB_OK;
}

/* The record that starts on line `line` (1-based): to the newline outside
 * quotes, without it. */
static const char *record(const part *p, int line, size_t *len) {
    const char *s = p->text + p->lines[line - 1], *c = s;
    int quoted = 0;
    for (; *c && (quoted || *c != '\n'); c++)
        if (*c == '"') quoted = !quoted;
    *len = (size_t)(c - s);
    if (*len && s[*len - 1] == '\r') (*len)--;
    return s;
}

/* ---- the checks ---- */

/* "NAME (UUID)" -> NAME */
static void model_of(const char *device, size_t len, char *buf, size_t n) {
    size_t m = len;
    for (size_t i = len; i-- > 1;)
        if (device[i] == '(' && device[i - 1] == ' ') {
            m = i - 1;
            break;
        }
    snprintf(buf, n, "%.*s", (int)m, device);
}

static void check_commits(const kb_results *res) {
    int first = -1;
    for (int f = 0; f < res->nfiles; f++) {
        const kb_result_file *x = &res->files[f];
        if (!x->commits[0]) {
            problem("%s: no '# kbench COMMIT' line: which build wrote it cannot be told", x->path);
        } else if (strchr(x->commits, '\n')) {
            char list[512];
            snprintf(list, sizeof list, "%s", x->commits);
            for (char *c = list; *c; c++)
                if (*c == '\n') *c = ',';
            problem("%s: rows of more than one kbench build (%s): merge parts of one build",
                    x->path, list);
        } else if (first < 0) {
            first = f;
        } else if (strcmp(x->commits, res->files[first].commits) != 0) {
            problem("parts of different kbench builds: %s is kbench %s, %s is kbench %s (run "
                    "every shard with one build)",
                    res->files[first].path, res->files[first].commits, x->path, x->commits);
        } else if (x->run.sources[0] && res->files[first].run.sources[0] &&
                   strcmp(x->run.sources, res->files[first].run.sources) != 0) {
            /* One commit label, other code: a label set by hand or a copied
             * tree's stale .git; the sources' digest tells them apart. */
            problem("parts built from different sources under one commit label (%s): %s has "
                    "sources sha256 %s, %s has sources sha256 %s (run every shard with one build)",
                    x->commits, res->files[first].path, res->files[first].run.sources, x->path,
                    x->run.sources);
        }
    }
}

/* One part of the other parts' op and sweep; returns 1 when it is. */
static int same_sweep(const part *a, const part *b) {
    int ok = 1;
    if (strcmp(a->op, b->op) != 0) {
        problem("parts of different ops: %s is a shard of %s, %s of %s", a->path, a->op, b->path,
                b->op);
        ok = 0;
    }
    if (a->count != b->count) {
        problem("parts of different splits: %s is shard %d/%d, %s is shard %d/%d", a->path,
                a->index, a->count, b->path, b->index, b->count);
        ok = 0;
    }
    if (a->sweep_pairs != b->sweep_pairs || strcmp(a->hash, b->hash) != 0) {
        problem("parts of different sweeps: %s is of %d pairs, sweep %s; %s of %d pairs, sweep "
                "%s (every shard must be run with the same op, sweep and options)",
                a->path, a->sweep_pairs, a->hash, b->path, b->sweep_pairs, b->hash);
        ok = 0;
    }
    return ok;
}

static void check_models(const kb_results *res) {
    char first[256] = "";
    int first_file = -1;
    for (int f = 0; f < res->nfiles; f++)
        for (const char *d = res->files[f].devices; *d;) {
            size_t len = strcspn(d, "\n");
            char model[256];
            model_of(d, len, model, sizeof model);
            if (first_file < 0) {
                snprintf(first, sizeof first, "%s", model);
                first_file = f;
            } else if (strcmp(model, first) != 0) {
                problem("GPUs of different models: %s ran on %s, %s on %s (--mixed-devices "
                        "merges them; report keeps each model's rows apart)",
                        res->files[first_file].path, first, res->files[f].path, model);
                return;
            }
            d += len;
            if (*d) d++;
        }
}

typedef struct merged_row {
    double pair;
    int file, line;
} merged_row;

static int by_pair(const void *a, const void *b) {
    const merged_row *x = a, *y = b;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    if (x->file != y->file) return x->file - y->file;
    return x->line - y->line;
}

/* Rows by pair; pairs outside the sweep or in two rows are problems. */
static void check_pairs(const kb_results *res, const part *parts, merged_row *rows) {
    for (int i = 0; i < res->count; i++) {
        const kb_result *r = &res->rows[i];
        rows[i] = (merged_row){r->pair, r->file, r->line};
        int total = parts[r->file].sweep_pairs;
        if (!isfinite(r->pair) || r->pair < 0 || r->pair >= total || r->pair != floor(r->pair)) {
            problem("%s:%d: pair '%g' is not one of the sweep's %d pairs (0 to %d)",
                    parts[r->file].path, r->line, r->pair, total, total - 1);
        }
    }
    qsort(rows, (size_t)res->count, sizeof *rows, by_pair);
    int dups = 0;
    for (int i = 0, j; i < res->count; i = j) {
        for (j = i + 1; j < res->count && rows[j].pair == rows[i].pair;) j++;
        if (j - i == 1 || dups++ >= 5) continue;
        char where[2048];
        size_t used = 0;
        for (int k = i; k < j && used < sizeof where; k++)
            used += (size_t)snprintf(where + used, sizeof where - used, "%s%s:%d",
                                     k == i       ? ""
                                     : k + 1 == j ? " and "
                                                  : ", ",
                                     parts[rows[k].file].path, rows[k].line);
        if (j - i == 2)
            problem("pair %.0f is in two rows: %s", rows[i].pair, where);
        else
            problem("pair %.0f is in %d rows: %s", rows[i].pair, j - i, where);
    }
    if (dups > 5) problem("... and %d more pairs in more than one row", dups - 5);
}

static void check_shards(const part *parts, int n) {
    const part *first = &parts[0];
    int *seen = calloc((size_t)first->count, sizeof *seen);
    if (!seen) {
        problem("out of host memory");
        return;
    }
    for (int i = 0; i < n; i++) {
        int s = parts[i].index;
        if (seen[s])
            problem("%s and %s are both shard %d/%d", parts[seen[s] - 1].path, parts[i].path, s,
                    first->count);
        else
            seen[s] = i + 1;
    }
    char missing[2048] = "";
    size_t used = 0;
    int nmissing = 0;
    for (int s = 0; s < first->count; s++) {
        if (seen[s]) continue;
        if (used < sizeof missing)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%d/%d",
                                     nmissing ? ", " : "", s, first->count);
        nmissing++;
    }
    if (nmissing)
        problem("%d of the %d shards of %s missing: %s (a task that failed before its first row "
                "writes no file: run it again, then merge)",
                nmissing, first->count, first->op, missing);
    free(seen);
}

/* A part with fewer rows than its shard writes: a run killed or cut short
 * (its rows reach the file as they complete, so what it holds is good, but
 * the merge would lack the rest without a word). */
static void check_complete(const kb_results *res, const part *parts, int n) {
    int *have = calloc((size_t)n, sizeof *have);
    if (!have) {
        problem("out of host memory");
        return;
    }
    for (int r = 0; r < res->count; r++) have[res->rows[r].file]++;
    for (int i = 0; i < n; i++) {
        const part *p = &parts[i];
        if (p->rows >= 0 && have[i] < p->rows)
            problem("%s holds %d of the %d rows of shard %d/%d: its run was cut short (run it "
                    "again with --resume %s, then merge)",
                    p->path, have[i], p->rows, p->index, p->count, p->path);
    }
    free(have);
}

/* ---- the merged file ---- */

static void write_merged(FILE *f, const kb_results *res, const part *parts, int n,
                         const merged_row *rows, int argc, char **argv) {
    const part *first = &parts[0];
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "# merged: %d shards of %s, the sweep's %d pairs, sweep %s | %s | command: kbench",
            first->count, first->op, first->sweep_pairs, first->hash, now);
    for (int i = 0; i < argc; i++) { /* one line whatever the arguments hold */
        char arg[4096];
        kb_format_visible(argv[i], arg, sizeof arg);
        fprintf(f, " %s", arg);
    }
    fputc('\n', f);
    /* Each part's lines, in shard order. */
    for (int s = 0; s < first->count; s++)
        for (int k = 0; k < n; k++) {
            const part *p = &parts[k];
            if (p->index != s) continue;
            for (int i = 0; i < p->nlines; i++) {
                const char *line = p->text + p->lines[i];
                size_t len = line_len(p, i);
                if (*line != '#') continue;
                const char *body = meta_body(line);
                if (strncmp(body, "shard: ", 7) == 0) {
                    fprintf(f, "%.*spart: %.*s\n", (int)(body - line), line,
                            (int)(len - (size_t)(body + 7 - line)), body + 7);
                } else {
                    fprintf(f, "%.*s\n", (int)len, line);
                }
            }
        }
    fprintf(f, "%.*s\n", (int)first->header_len, first->text + first->header);
    for (int i = 0; i < res->count; i++) {
        size_t len;
        const char *text = record(&parts[rows[i].file], rows[i].line, &len);
        fprintf(f, "%.*s\n", (int)len, text);
    }
}

/* ---- the command ---- */

static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int merge(part *parts, int n, const char *out, int mixed, int argc, char **argv) {
    kb_results res = {0};
    kb_error e;
    for (int i = 0; i < n; i++) {
        if (kb_results_read(&res, parts[i].path, stderr, &e) != KB_OK ||
            read_text(&parts[i], &e) != KB_OK || scan_part(&parts[i], &e) != KB_OK) {
            kb_results_free(&res);
            return kb_usage_error("merge", "%s", e.msg);
        }
    }
    int sharded = 1;
    for (int i = 0; i < n; i++)
        if (!parts[i].has_shard) {
            problem("%s: no '# shard:' line: not a part that `kbench run|check --shard I/N` "
                    "wrote",
                    parts[i].path);
            sharded = 0;
        } else if (!kb_result_file_has_column(&res.files[i], "pair")) {
            problem("%s: no 'pair' column: its rows cannot be put in sweep order", parts[i].path);
            sharded = 0;
        }
    for (int i = 1; i < n; i++)
        if (parts[i].header_len != parts[0].header_len ||
            memcmp(parts[i].text + parts[i].header, parts[0].text + parts[0].header,
                   parts[0].header_len) != 0)
            problem("parts with different columns: %s and %s (merge parts of one kbench build)",
                    parts[0].path, parts[i].path);
    check_commits(&res);
    if (!mixed) check_models(&res);
    for (int i = 1; i < n && sharded; i++)
        if (!same_sweep(&parts[0], &parts[i])) sharded = 0;
    merged_row *rows = malloc((size_t)(res.count + 1) * sizeof *rows);
    if (!rows) problem("out of host memory for %d rows", res.count);
    if (sharded) check_shards(parts, n);
    if (sharded) check_complete(&res, parts, n);
    if (sharded && rows) check_pairs(&res, parts, rows);
    if (problems) {
        fprintf(stderr, "kbench merge: nothing written (-o %s is as it was)\n", out);
        free(rows);
        kb_results_free(&res);
        return KB_EXIT_USAGE;
    }

    kb_out_file o;
    int rc = KB_EXIT_OK;
    if (kb_out_file_open_whole(&o, out, &e) != KB_OK) {
        rc = o.failure == KB_OUT_BUSY ? KB_EXIT_USAGE : KB_EXIT_RUNTIME; /* another writer's */
    } else {
        write_merged(o.p.f, &res, parts, n, rows, argc, argv);
        if (kb_out_file_close_whole(&o, 1, &e) != KB_OK) rc = KB_EXIT_RUNTIME;
    }
    if (rc != KB_EXIT_OK)
        fprintf(stderr, "kbench merge: %s\n", e.msg);
    else
        fprintf(stderr, "kbench merge: %s: %d rows of %d shards of %s (%d pairs in the sweep)\n",
                out, res.count, parts[0].count, parts[0].op, parts[0].sweep_pairs);
    free(rows);
    kb_results_free(&res);
    return rc;
}

int kb_cmd_merge(int argc, char **argv) {
    part *parts = calloc((size_t)argc, sizeof *parts);
    if (!parts) {
        fputs("kbench merge: out of host memory\n", stderr);
        return KB_EXIT_RUNTIME;
    }
    merge_args args = {.parts = parts};
    int rc = kb_opts_parse("merge", kb_merge_opts, &args, argc, argv, add_part);
    if (rc == KB_OPTS_HELP) {
        merge_help();
        rc = KB_EXIT_OK;
    } else if (rc == KB_EXIT_OK) {
        rc = -1;
    }
    const char *out = args.out;
    int overwrite = args.overwrite, mixed = args.mixed, n = args.n;
    struct stat st;
    size_t olen = out ? strlen(out) : 0;
    if (rc >= 0) {
    } else if (n == 0) {
        rc = kb_usage_error("merge", "no parts: kbench merge PART.csv... -o ALL.csv");
    } else if (!out) {
        rc = kb_usage_error("merge", "-o ALL.csv is required (where the merged rows go)");
    } else if (olen < 4 || strcmp(out + olen - 4, ".csv") != 0) {
        rc = kb_usage_error("merge", "-o %s: the merged file is a CSV (expected .csv)", out);
    } else if (!overwrite && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
        rc = kb_usage_error("merge",
                            "-o %s: the file exists: --overwrite replaces it (once every part "
                            "is read and agrees)",
                            out);
    } else {
        for (int i = 0; i < n && rc < 0; i++)
            if (same_file(out, parts[i].path))
                rc = kb_usage_error("merge", "-o %s: the same file as the part %s", out,
                                    parts[i].path);
    }
    if (rc < 0) {
        kb_out_file_cleanup_on_signal();
        problems = 0;
        rc = merge(parts, n, out, mixed, argc, argv);
    }
    for (int i = 0; i < n; i++) {
        free(parts[i].text);
        free(parts[i].lines);
    }
    free(parts);
    return rc;
}
