/* along.c — a view's cases laid out along one axis (along.h): the x
 * positions and panels of `kbench plot --along`, and the axis picked when
 * none is given. */
#include "along.h"

#include "results/params.h" /* kb_param_next */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void copy_text(char *dst, size_t size, const char *src, size_t len) {
    if (len >= size) len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
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
        kb_param_token tokens[ALONG_AXES];
        int n = 0;
        const char *p = key;
        while (n < ALONG_AXES && kb_param_next(&p, &tokens[n])) n++;
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

/* Panels (their first cases, panel_case) in the order of their axes' values. */
static void sort_panels(const kb_op_view *v, const along_grid *g, const int *in_panel,
                        int *panel_case, int np) {
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
}

/* The x positions (order[i]: the case of the i-th value) and their labels:
 * numbers where the axis is numeric alone, else its value with the axes
 * that follow it; a log scale where they span over 30x. */
static void label_x(const kb_op_view *v, const along_grid *g, int ax, const int *order,
                    const int *follows, kb_along *a) {
    int nx = a->nx;
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
    sort_panels(v, g, in_panel, panel_case, np);
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
    label_x(v, g, ax, order, follows, a);
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
