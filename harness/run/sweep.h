/* sweep.h — the cases of a run: `-a axis=spec` values, sweep lines and
 * sweep files expanded into a list of validated cases (sweep_spec.c).
 *
 *   kb_spec s; kb_spec_parse("h=[32:512:32]", &s, &e);
 *   kb_expand_sweep(op, "smoke", &s, 1, &list, &e);   // every case of the sweep, h overridden
 */
#ifndef KB_SWEEP_H
#define KB_SWEEP_H

#include "kbench.h"

/* One axis and its values, from `-a n=[1,8,16]`, `-a h=[32:512:32]`,
 * `-a n[pow2]=[0:5]` or a token of a sweep line. */
typedef struct kb_spec {
    char axis[64];
    int count;
    char (*values)[KB_STR];
    /* Where a relative path among the values also lies (kb_value.dir): set for
     * the specs of a sweep's lines, NULL for -a (the working directory). */
    const char *dir;
    int dir_first;
} kb_spec;

/* KB_MAX_CASES: the most cases one run holds, sweeps and --fuzz together. A
 * kb_case is ~8.7 KB (KB_MAX_AXES values of KB_STR text): 65536 cases are
 * ~570 MB of descriptions, and more than any sweep could time. */
enum { KB_SPEC_MAX_VALUES = 100000, KB_MAX_CASES = 65536 };

int kb_spec_parse(const char *text, kb_spec *spec, kb_error *e);
void kb_spec_free(kb_spec *spec);

typedef struct kb_case_list {
    int count, cap;
    kb_case *cases;
} kb_case_list;

/* Expand one line of `axis=spec` tokens (a sweep line; "" for the defaults)
 * with the overrides applied last, as a cartesian product, appending the
 * cases to list. Every case is checked by kb_case_set and kb_case_validate;
 * relative paths in it are relative to the working directory. */
int kb_expand_line(const kb_op *op, const char *line, const kb_spec *overrides, int noverrides,
                   kb_case_list *list, kb_error *e);
/* A named sweep of the op, or a file with one line per case (# comments).
 * A relative path in a built-in sweep (image=datasets/images/...) is relative
 * to the source tree; in a sweep file, to the working directory and, when
 * not found there, to the file's folder. A file that yields no case (empty,
 * only comments), a directory or a binary file is an error naming it. */
int kb_expand_sweep(const kb_op *op, const char *name_or_file, const kb_spec *overrides,
                    int noverrides, kb_case_list *list, kb_error *e);
/* op->validate, then the sizes of the tensors op->describe gives (no product
 * past INT64_MAX elements or SIZE_MAX bytes): what every case passes before
 * the device is touched. */
int kb_case_validate(const kb_case *c, kb_error *e);
void kb_case_list_free(kb_case_list *list);
const kb_sweep *kb_find_sweep(const kb_op *op, const char *name);

#endif
