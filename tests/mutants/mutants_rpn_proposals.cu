/* mutants_rpn_proposals.cu — wrong RPN proposals, each
 * rpn_proposals/sort_bitmask with one bug.
 * `kbench_mutants check rpn_proposals -v mut_pre_short --sweep smoke` must FAIL. */
#include "mutants_common.cuh"
#include "rpn_proposals.h"

static const kb_variant_impl *sort_bitmask(const kb_case *c) {
    return kb_find_variant("rpn_proposals", "sort_bitmask")->impl;
}

static int32_t *count_of(kb_tensors *out) {
    return (int32_t *)kb_tensors_find(out, "count")->data;
}

/* Per level the nms_pre - 1 best scores (an exclusive bound where the top-k is inclusive). */
static void pre_short_case(kb_case *c) {
    int64_t pre = kb_int(c, "nms_pre");
    mut_set_int(c, "nms_pre", pre > 1 ? pre - 1 : 1);
}
static const mut_spec pre_short = {sort_bitmask, pre_short_case, 0, NULL, NULL};
KB_MUTANT(rpn_pre_short, pre_short)

/* Boxes clamped to [0, img_w - 1] x [0, img_h - 1] (the "+1" pixel convention
 * of old detectors) where mmdetection clamps to [0, img_w] x [0, img_h];
 * applied to the kept proposals. */
__global__ void clamp_minus_one(float *rows, const int32_t *count, float w1, float h1) {
    for (int r = threadIdx.x; r < *count; r += blockDim.x)
        for (int d = 0; d < 4; d++) rows[5 * r + d] = fminf(rows[5 * r + d], d % 2 ? h1 : w1);
}
static cudaError_t clamp_w1(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                            cudaStream_t s) {
    clamp_minus_one<<<1, 256, 0, s>>>((float *)kb_tensors_find(out, "proposals")->data,
                                      count_of(out), (float)(kb_int(c, "img_w") - 1),
                                      (float)(kb_int(c, "img_h") - 1));
    return cudaGetLastError();
}
static const mut_spec clamp_w1_spec = {sort_bitmask, NULL, 0, NULL, clamp_w1};
KB_MUTANT(rpn_clamp_w1, clamp_w1_spec)

/* The count written as the position of the last proposal, not one past it. */
static cudaError_t last_lost(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                             cudaStream_t s) {
    mut_drop_last(count_of(out), 1, s);
    return cudaGetLastError();
}
static const mut_spec last_lost_spec = {sort_bitmask, NULL, 0, NULL, last_lost};
KB_MUTANT(rpn_last_lost, last_lost_spec)

/* The proposal count bumped with a plain load/store, not atomicAdd. */
static cudaError_t racy_count(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                              cudaStream_t s) {
    mut_racy_recount(count_of(out), 1, s);
    return cudaGetLastError();
}
static const mut_spec racy_count_spec = {sort_bitmask, NULL, 0, NULL, racy_count};
KB_MUTANT(rpn_racy_count, racy_count_spec)

/* The zero fill of rows past the count runs one row (5 floats) too far. */
static cudaError_t overrun(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                           cudaStream_t s) {
    mut_store_past_end(kb_tensors_find(out, "proposals"), 5 * sizeof(float), s);
    return cudaGetLastError();
}
static const mut_spec overrun_spec = {sort_bitmask, NULL, 0, NULL, overrun};
KB_MUTANT(rpn_overrun, overrun_spec)
