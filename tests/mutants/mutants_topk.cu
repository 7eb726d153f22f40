/* mutants_topk.cu — wrong top-k, each topk/radix_sort with one bug.
 * `kbench_mutants check topk -v mut_ties_high --sweep smoke` must FAIL. */
#include "mutants_common.cuh"
#include "topk.h"

#include <math.h>

static const kb_variant_impl *radix_sort(const kb_case *c) {
    return kb_find_variant("topk", "radix_sort")->impl;
}

static int64_t segments(const kb_case *c) {
    int64_t n = 0, total = 0;
    free(kb_topk_lengths(c, &n, &total, NULL));
    return n;
}

static void *tensor(const kb_tensors *ts, const char *name) {
    return kb_tensors_get(ts, name)->data;
}

/* Equal values ranked by higher index first: the real top-k of each segment
 * reversed (lower reversed index first), indices mapped back. */
static cudaError_t reverse_values(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                                  cudaStream_t s) {
    const kb_tensor *v = kb_tensors_get(in, "values");
    mut_reverse_rows(v->data, tensor(tin, "values"), sizeof(float), kb_numel(v), 0,
                     (const int32_t *)tensor(in, "offsets"), segments(c), s);
    return cudaGetLastError();
}
static cudaError_t unreverse(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                             cudaStream_t s) {
    mut_unreverse_indices((int32_t *)tensor(out, "topk_indices"), segments(c), kb_int(c, "k"),
                          (const int32_t *)tensor(out, "counts"),
                          (const int32_t *)tensor(in, "offsets"), 0, s);
    return cudaGetLastError();
}
static const mut_spec ties_high = {radix_sort, NULL, 0x1, reverse_values, unreverse};
KB_MUTANT(topk_ties_high, ties_high)

/* -0 and +0 ranked apart (a radix key without the zero fold: -0 below +0):
 * the real top-k with each -0 read as the negative number nearest zero,
 * which ranks exactly there, and written back as -0. */
__global__ void replace_bits(const uint32_t *src, uint32_t *dst, int64_t n, uint32_t from,
                             uint32_t to) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = src[i] == from ? to : src[i];
}
static const uint32_t NEG_ZERO = 0x80000000u, NEG_TINY = 0x80000001u;
static void replace(const void *src, void *dst, int64_t n, uint32_t from, uint32_t to,
                    cudaStream_t s) {
    if (n > 0)
        replace_bits<<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0, s>>>(
            (const uint32_t *)src, (uint32_t *)dst, n, from, to);
}
static cudaError_t neg_zero_in(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                               cudaStream_t s) {
    const kb_tensor *v = kb_tensors_get(in, "values");
    replace(v->data, tensor(tin, "values"), kb_numel(v), NEG_ZERO, NEG_TINY, s);
    return cudaGetLastError();
}
static cudaError_t neg_zero_out(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                cudaStream_t s) {
    kb_tensor *v = kb_tensors_find(out, "topk_values");
    replace(v->data, v->data, kb_numel(v), NEG_TINY, NEG_ZERO, s);
    return cudaGetLastError();
}
static const mut_spec signed_zero = {radix_sort, NULL, 0x1, neg_zero_in, neg_zero_out};
KB_MUTANT(topk_signed_zero, signed_zero)

/* The last slot of each segment written from the rank before it (an
 * off-by-one in the output offset): slot count-1 repeats slot count-2. */
__global__ void repeat_last(float *values, int32_t *indices, const int32_t *counts, int64_t nseg,
                            int64_t k) {
    int64_t seg = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (seg >= nseg || counts[seg] < 2) return;
    int64_t last = seg * k + counts[seg] - 1;
    values[last] = values[last - 1];
    indices[last] = indices[last - 1];
}
static cudaError_t repeat(const kb_case *c, const kb_tensors *in, kb_tensors *out, cudaStream_t s) {
    int64_t nseg = segments(c);
    if (nseg > 0)
        repeat_last<<<(unsigned)((nseg + 255) / 256), 256, 0, s>>>(
            (float *)tensor(out, "topk_values"), (int32_t *)tensor(out, "topk_indices"),
            (const int32_t *)tensor(out, "counts"), nseg, kb_int(c, "k"));
    return cudaGetLastError();
}
static const mut_spec repeated = {radix_sort, NULL, 0, NULL, repeat};
KB_MUTANT(topk_repeated, repeated)

/* A warp per 32 output slots, k / 32 warps (rounded down): the last partial
 * group of slots of each segment never written. */
static cudaError_t tail_warp(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                             cudaStream_t s) {
    int64_t k = kb_int(c, "k"), keep = k - k % 32;
    cudaError_t rc = mut_unwrite_row_tails(kb_tensors_find(out, "topk_values"), segments(c),
                                           (size_t)k * 4, (size_t)keep * 4, s);
    if (rc != cudaSuccess) return rc;
    return mut_unwrite_row_tails(kb_tensors_find(out, "topk_indices"), segments(c), (size_t)k * 4,
                                 (size_t)keep * 4, s);
}
static const mut_spec tail_warp_spec = {radix_sort, NULL, 0, NULL, tail_warp};
KB_MUTANT(topk_tail_warp, tail_warp_spec)

/* The sentinel fill of slots past the count runs one slot too far. */
static cudaError_t overrun(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                           cudaStream_t s) {
    mut_store_past_end(kb_tensors_find(out, "topk_indices"), sizeof(int32_t), s);
    return cudaGetLastError();
}
static const mut_spec overrun_spec = {radix_sort, NULL, 0, NULL, overrun};
KB_MUTANT(topk_overrun, overrun_spec)
