/* mutants_nms.cu — wrong greedy NMS, each nms/blockwalk with one bug.
 * `kbench_mutants check nms -v mut_iou_ge --sweep smoke` must FAIL. */
#include "mutants_common.cuh"
#include "nms.h"

#include <math.h>

static const kb_variant_impl *blockwalk(const kb_case *c) {
    return kb_find_variant("nms", "blockwalk")->impl;
}

static int64_t cap_of(const kb_case *c) {
    return kb_nms_capacity(kb_int(c, "n"), kb_int(c, "max_out"));
}

static int32_t *output(kb_tensors *out, const char *name) {
    return (int32_t *)kb_tensors_find(out, name)->data;
}

/* Suppresses at IoU >= thr, not > thr: for float IoUs that is > the float below thr. */
static void iou_ge_case(kb_case *c) {
    mut_set_float(c, "iou", (double)nextafterf((float)kb_float(c, "iou"), -INFINITY));
}
static const mut_spec iou_ge = {blockwalk, iou_ge_case, 0, NULL, NULL};
KB_MUTANT(nms_iou_ge, iou_ge)

/* Equal scores ranked by higher index first: the real ranking of the reversed
 * boxes (its stable sort puts the lower reversed index first), mapped back. */
static cudaError_t reverse_boxes(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                                 cudaStream_t s) {
    int64_t n = kb_int(c, "n");
    for (int i = 0; i < 3; i++) /* boxes, scores, classes: rows of 16, 4 and 4 bytes */
        mut_reverse_rows(in->t[i].data, tin->t[i].data, kb_nbytes(&in->t[i]) / (n ? n : 1), n, n,
                         NULL, 1, s);
    return cudaGetLastError();
}
static cudaError_t unreverse_keep(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                  cudaStream_t s) {
    mut_unreverse_indices(output(out, "keep"), 1, cap_of(c), output(out, "count"), NULL,
                          kb_int(c, "n"), s);
    return cudaGetLastError();
}
static const mut_spec ties_high = {blockwalk, NULL, 0x7, reverse_boxes, unreverse_keep};
KB_MUTANT(nms_ties_high, ties_high)

/* Class-aware NMS run class-agnostic: the class ids never reach the kernel. */
static void class_blind_case(kb_case *c) {
    mut_set_int(c, "classes", 1);
}
static const mut_spec class_blind = {blockwalk, class_blind_case, 0, NULL, NULL};
KB_MUTANT(nms_class_blind, class_blind)

/* The count written as the position of the last keep, not one past it. */
static cudaError_t last_lost(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                             cudaStream_t s) {
    mut_drop_last(output(out, "count"), 1, s);
    return cudaGetLastError();
}
static const mut_spec last_lost_spec = {blockwalk, NULL, 0, NULL, last_lost};
KB_MUTANT(nms_last_lost, last_lost_spec)

/* The keep count bumped by every kept box with a plain load/store, not atomicAdd. */
static cudaError_t racy_count(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                              cudaStream_t s) {
    mut_racy_recount(output(out, "count"), 1, s);
    return cudaGetLastError();
}
static const mut_spec racy_count_spec = {blockwalk, NULL, 0, NULL, racy_count};
KB_MUTANT(nms_racy_count, racy_count_spec)

/* Terminates the keep list with an entry at keep[count] even when count == cap. */
static cudaError_t overrun(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                           cudaStream_t s) {
    mut_store_past_end(kb_tensors_find(out, "keep"), sizeof(int32_t), s);
    return cudaGetLastError();
}
static const mut_spec overrun_spec = {blockwalk, NULL, 0, NULL, overrun};
KB_MUTANT(nms_overrun, overrun_spec)
