/* registry.c — the two tables: every op, and every variant of every op.
 *
 * Adding a variant = one file plus one line. The file in variants/<op>/ (.cu;
 * .c for one that runs on the CPU, flagged KB_HOST) defines
 *   KB_DEFINE_VARIANT(<op>, <name>) = {supports, workspace_bytes, setup, run, teardown};
 * and the line in variants/<op>/variants.def declares it: X(name, flags, "one
 * line on what it does"), or B(...) for a baseline. The variants' externs and
 * rows below are made from those lists; a line without a definition fails
 * the link, a definition without a line fails tests/cpu/test_registry.c. Its
 * file, recorded where it is defined, is named by the variant's name: OP/NAME
 * lives in variants/OP/F.cu (.c for KB_HOST), F the longest of that folder's
 * .c/.cu stems that equals NAME or is a prefix of NAME ending at an '_'
 * (explicit_gemm_i64 -> explicit.cu; test_registry.c checks every row).
 */
#include "kbench.h"

#include "deform_conv2d.h"
#include "nms.h"
#include "preprocess.h"
#include "rpn_proposals.h"
#include "topk.h"
#include "yolo_decode.h"
#ifdef KB_WITH_FAULTY /* the kbench_faulty test binary: tests/faulty/faulty.h */
#include "faulty.h"
#endif
#ifdef KB_WITH_MUTANTS /* the kbench_mutants test binary: tests/mutants/mutants.h */
#include "mutants.h"
#endif

#include <string.h>

const kb_op *const kb_ops[] = {
    &kb_op_preprocess,
    &kb_op_topk,
    &kb_op_rpn_proposals,
    &kb_op_nms,
    &kb_op_deform_conv2d,
    &kb_op_yolo_decode,
    /* ops: add above this line */
    NULL,
};

/* ---- the variants, from each op's list: first the implementations ---- */

/* KB_OP is the op of the list being read (each variants.def defines it); the
 * second step makes it expand before it is pasted into a name. */
#define KB_IMPL_DECL(OP, NAME) KB_IMPL_DECL_(OP, NAME)
#define KB_IMPL_DECL_(OP, NAME)                                                                    \
    extern const kb_variant_impl kb_##OP##_##NAME;                                                 \
    extern const char kb_##OP##_##NAME##_file[];
#define KB_ROW(OP, NAME, FLAGS, SUMMARY) KB_ROW_(OP, NAME, FLAGS, SUMMARY)
#define KB_ROW_(OP, NAME, FLAGS, SUMMARY)                                                          \
    {#OP, #NAME, SUMMARY, FLAGS, &kb_##OP##_##NAME, kb_##OP##_##NAME##_file},

#define X(NAME, FLAGS, SUMMARY) KB_IMPL_DECL(KB_OP, NAME)
#define B                       X
#include "variants/preprocess/variants.def"
#include "variants/deform_conv2d/variants.def"
#include "variants/nms/variants.def"
#include "variants/topk/variants.def"
#include "variants/rpn_proposals/variants.def"
#include "variants/yolo_decode/variants.def"
#undef X
#undef B

/* ---- then the rows: grouped by op, in each list's order ---- */

const kb_variant kb_variants[] = {
#define X(NAME, FLAGS, SUMMARY) KB_ROW(KB_OP, NAME, FLAGS, SUMMARY)
#define B                       X
#include "variants/preprocess/variants.def"
#include "variants/deform_conv2d/variants.def"
#include "variants/nms/variants.def"
#include "variants/topk/variants.def"
#include "variants/rpn_proposals/variants.def"
#include "variants/yolo_decode/variants.def"
#undef X
#undef B
#ifdef KB_WITH_FAULTY
    KB_FAULTY_VARIANTS
#endif
#ifdef KB_WITH_MUTANTS
        KB_MUTANT_VARIANTS
#endif
    {NULL, NULL, NULL, 0, NULL, NULL},
};

const kb_op *kb_find_op(const char *name) {
    for (int i = 0; kb_ops[i]; i++)
        if (strcmp(kb_ops[i]->name, name) == 0) return kb_ops[i];
    return NULL;
}

const kb_variant *kb_find_variant(const char *op, const char *name) {
    for (int i = 0; kb_variants[i].op; i++)
        if (strcmp(kb_variants[i].op, op) == 0 && strcmp(kb_variants[i].name, name) == 0)
            return &kb_variants[i];
    return NULL;
}
