/* views.c — result rows grouped per (op, mode) as a grid of cases x
 * variants (views.h), and the files read and grouped in one call. */
#include "views.h"

#include "cli.h" /* kb_results_load answers in exit codes */

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int kb_result_timed(const kb_result *r) { /* a --force row is outside its variant's range */
    return kb_status_passing(r->status) && isfinite(r->median_us) && r->median_us > 0 &&
           r->forced != 1;
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
                                               : r->peer > 0 ? 1
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
    v->variant_peer = calloc((size_t)v->nvariants, sizeof *v->variant_peer);
    v->cases = calloc((size_t)v->ncases, sizeof *v->cases);
    v->bytes = calloc((size_t)v->ncases, sizeof *v->bytes);
    v->cells = calloc((size_t)v->ncases * (size_t)v->nvariants, sizeof *v->cells);
    int ok = v->variants && v->variant_rank && v->variant_peer && v->cases && v->bytes && v->cells;
    for (int k = 0; ok && k < v->nvariants; k++) {
        v->variants[k] = names[k].name;
        v->variant_rank[k] = names[k].group == 0 ? names[k].order : -1;
        v->variant_peer[k] = names[k].group == 1;
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
        free(views[i].variant_peer);
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
