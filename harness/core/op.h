/* op.h — what an op is to the harness (kernels/<op>.c fills one kb_op):
 * its axes and named sweeps, validation, tensor descriptions, input
 * generation, reference, comparison and cost model; and the case functions
 * that need the op's axes (defaults, setting one from text).
 */
#ifndef KB_OP_H
#define KB_OP_H

#include "check.h"
#include "kbench/case.h"
#include "kbench/error.h"
#include "kbench/tensor.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_axis_kind {
    KB_AXIS_INT,    /* integer in [min, max] */
    KB_AXIS_FLOAT,  /* real in [min, max] */
    KB_AXIS_ENUM,   /* one of `choices`, comma separated */
    KB_AXIS_STRING, /* free text (a path); validate() judges it */
} kb_axis_kind;

typedef struct kb_axis {
    const char *name;
    kb_axis_kind kind;
    const char *def; /* default value as text */
    double min, max; /* INT and FLOAT */
    const char *choices;
    const char *help;
} kb_axis; /* an op's axes end with a row whose name is NULL */

void kb_case_defaults(kb_case *c, const struct kb_op *op);
/* Set one axis from text, checking its kind and range: the error names both. */
int kb_case_set(kb_case *c, const char *axis, const char *text, kb_error *e);
int kb_axis_index(const struct kb_op *op, const char *axis); /* -1 if none */

typedef struct kb_cost {
    double flops; /* useful arithmetic, by the op's model */
    double bytes; /* fewest bytes that must cross device memory */
} kb_cost;

typedef struct kb_sweep {
    const char *name;
    const char *summary;
    const char *const *lines; /* each line: axis=spec ...; NULL-terminated */
} kb_sweep;                   /* an op's sweeps end with a row whose name is NULL */

typedef struct kb_op {
    const char *name;
    const char *summary;
    const kb_axis *axes;
    const kb_sweep *sweeps;     /* "smoke" and "default" at least */
    const char *const *inputs;  /* tensor names, NULL-terminated */
    const char *const *outputs; /* tensor names, NULL-terminated */
    const char *baseline;       /* variant(s) speedups are measured against: a comma list, the
                                 * first that ran on a case is that case's baseline */
    /* A clear message naming the parameters; never aborts. */
    int (*validate)(const kb_case *c, kb_error *e);
    /* Names, dtypes and shapes of inputs and outputs; no data. */
    int (*describe)(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e);
    /* Fill allocated host inputs from the seed (realistic, never zeros). */
    int (*make_inputs)(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e);
    /* CPU truth into allocated host outputs. */
    int (*reference)(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);
    /* Judge got against ref, as chk says (precision class, the variant's flags). */
    int (*compare)(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                   const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc);
    kb_cost (*cost)(const kb_case *c);
    /* Optional, for ops whose tensors hold indices or lengths (offsets, class
     * ids, counts, keep lists): KB_ERR naming the tensor, the element, its
     * value and the bound when one does not fit the case, so that tensors
     * read from files (--inputs, kbench verify) never make the reference, a
     * variant or compare read out of bounds. in: the inputs; ref: outputs
     * taken as the truth (verify's dumped reference), or NULL. O(elements);
     * generated inputs and computed references fit by construction. */
    int (*check_indices)(const kb_case *c, const kb_tensors *in, const kb_tensors *ref,
                         kb_error *e);
    /* Optional: a random small valid case for `kbench check --fuzz`. */
    void (*fuzz_case)(uint64_t *rng, kb_case *c);
} kb_op;

#ifdef __cplusplus
}
#endif
#endif
