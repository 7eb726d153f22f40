/* check.h — how the harness judges an output: precision classes, the
 * accuracy record an op's compare fills, what it judges with (kb_check_ctx),
 * and the dense comparison most ops use (compare.c).
 */
#ifndef KB_CHECK_H
#define KB_CHECK_H

#include "kbench/case.h"
#include "kbench/tensor.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Precision classes: thresholds of the dense comparison (harness/core/compare.c). */
typedef enum kb_precision { KB_PREC_F32, KB_PREC_TF32, KB_PREC_F16, KB_PREC_BF16 } kb_precision;

typedef struct kb_accuracy {
    int pass;
    double rel_l2, max_abs, max_rel;
    double tolerance;  /* the rel-L2 bound that applied */
    int64_t unwritten; /* elements still holding the poison after the run */
    int64_t nans;      /* elements NaN where the reference is a number, not the poison */
    int64_t mismatches;
    char note[256]; /* op-specific finding, e.g. "fast NMS drops 3 boxes greedy keeps" */
    /* Results the op's exact semantics keep that this variant's own (KB_INEXACT,
     * e.g. fast NMS) drop, on a row that matched its own reference: the number
     * the note states; -1 where not counted. */
    int64_t dropped;
    int not_poisoned; /* in: the outputs were never poisoned (kbench verify judging another
                         program's): every NaN is one it wrote, none means "unwritten" */
} kb_accuracy;

/* An accuracy before op->compare: everything 0, pass 1, dropped -1. */
void kb_accuracy_init(kb_accuracy *acc);

/* The precision class a variant's output is checked in: tf32 for a KB_TF32
 * variant, else the case's dtype axis (f16, bf16), else f32. */
kb_precision kb_case_precision(const kb_case *c, unsigned flags);

/* What op->compare judges with besides the tensors. */
typedef struct kb_check_ctx {
    kb_precision prec; /* the variant's precision class on this case (kb_case_precision) */
    unsigned flags;    /* the judged variant's flags: a KB_INEXACT one is held to the
                          reference of its own semantics; 0 for a peer (kbench verify) */
} kb_check_ctx;

/* Dense comparison of one output tensor against its reference (any dtypes;
 * converted to double), accumulating into acc. Counts the poison's bytes
 * (all 0xFF) as unwritten and any other NaN as a NaN (every NaN, when
 * acc->not_poisoned). Clears acc->pass (which the harness sets to 1 before
 * op->compare) when the class's thresholds are exceeded. */
void kb_compare_dense(const kb_tensor *ref, const kb_tensor *got, kb_precision prec,
                      kb_accuracy *acc);
double kb_rel_l2_bound(kb_precision prec);
/* Element i of data of dtype t, as a double: what the comparisons read. */
double kb_load_as_double(const void *data, kb_dtype t, int64_t i);

#ifdef __cplusplus
}
#endif
#endif
