/* views.h — result rows (results/result.h) grouped per (op, mode) as a
 * grid of cases x variants, for `kbench plot`, `report` and `compare`
 * (views.c). CPU only.
 *
 *   kb_results res = {0}; kb_op_view *views; int n;
 *   kb_results_load(paths, npaths, &res, &views, &n, &e);
 */
#ifndef KB_VIEWS_H
#define KB_VIEWS_H

#include "results/params.h"
#include "results/result.h"

/* PASS or UNCHECKED with a median time, not --force'd: what plots and speedups use. */
int kb_result_timed(const kb_result *r);

/* The rows of one op in one timing mode, as a grid of cases x variants. */
typedef struct kb_op_view {
    char op[64], mode[16];
    const kb_op *def; /* the registry's op; NULL for an op this build does not know */
    int mode_in_name; /* the op has rows in more than one mode: plot names carry it */
    int first_file;   /* the file its first row came from */
    int nvariants, ncases;
    const char **variants;   /* registry order, then peers, then unknown names (by name) */
    int *variant_rank;       /* position among the op's registry variants; -1 otherwise */
    int *variant_peer;       /* 1: a peer's (its rows' peer column) */
    const char **cases;      /* params, by bytes moved, then order of appearance */
    double *bytes;           /* per case: the op's minimum bytes moved; NAN if unknown */
    const kb_result **cells; /* [case * nvariants + variant]: the row or NULL (later wins) */
} kb_op_view;

/* Group res into views, one per (op, mode), in order of first appearance. */
int kb_views_build(const kb_results *res, kb_op_view **views, int *nviews, kb_error *e);
void kb_views_free(kb_op_view *views, int nviews);
const kb_result *kb_view_cell(const kb_op_view *v, int c, int k);
int kb_view_variant(const kb_op_view *v, const char *name); /* index, or -1 */
/* Read every file (cut-short last lines reported on stderr) and group the
 * rows: KB_EXIT_OK, KB_EXIT_USAGE (unreadable, or no rows) or KB_EXIT_RUNTIME.
 * Rows of GPUs of different models get the model in their case (gpu=...),
 * so that no table or plot puts them side by side. */
int kb_results_load(const char *const *paths, int npaths, kb_results *res, kb_op_view **views,
                    int *nviews, kb_error *e);
/* The variant a case's speedups are measured against: `forced` when given,
 * else the first name of the op's baseline list (or, with none, its first
 * registry variant) that has a timed row on the case; -1 when none ran. */
int kb_view_baseline(const kb_op_view *v, int c, const char *forced);

#endif
