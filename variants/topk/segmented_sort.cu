/* segmented_sort.cu — topk/segmented_sort: top-k by sorting every segment in
 * one cub::DeviceSegmentedSort::StableSortPairsDescending call over (value,
 * index-within-segment) pairs, then the first k of each (take_first_k). The
 * iota is written once, at setup. The tie rule and the take: topk_sort.cuh.
 * Measured: docs/perf-topk.md.
 *
 *   kbench run topk -v radix_sort,segmented_sort --sweep default
 */
#include "topk_sort.cuh"
#include "../common/variant_def.h"

#include <cub/cub.cuh>

namespace {

/* Sorted keys and indices of every segment, the iota of every segment (written
 * at setup), the segmented sort's temp. */
SortLayout segmented_layout(const int64_t *len, int segments) {
    int64_t total = 0;
    for (int s = 0; s < segments; s++) total += len[s];
    size_t temp = 0;
    cub::DeviceSegmentedSort::StableSortPairsDescending(
        nullptr, temp, (const float *)nullptr, (float *)nullptr, (const int *)nullptr,
        (int *)nullptr, (int)total, segments, (const int *)nullptr, (const int *)nullptr);
    return {align_up(4 * (size_t)total), align_up(4 * (size_t)total), align_up(4 * (size_t)total),
            align_up(temp)};
}

/* The workspace, then the iota of every segment (it stays: the sort never writes it). */
int fill(const kb_case *c, const kb_tensors *dev_in, State *st, kb_error *e) {
    int rc = fill_state<segmented_layout>(c, st, e);
    if (rc != KB_OK || st->total == 0) return rc;
    int64_t longest = 0;
    for (int s = 0; s < st->segments; s++) longest = st->len[s] > longest ? st->len[s] : longest;
    const SortLayout l = segmented_layout(st->len, st->segments);
    iota_within_segments<<<dim3((unsigned)((longest + 255) / 256), (unsigned)st->segments), 256>>>(
        (const int *)kb_tensors_get(dev_in, "offsets")->data, 0, (int *)((char *)st->ws + l.keys));
    KB_CUDA_TRY(cudaGetLastError(), e);
    KB_CUDA_TRY(cudaDeviceSynchronize(), e);
    return KB_OK;
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const Io io = io_of(dev_in, dev_out);
    kb_nvtx_push("sort");
    const SortLayout l = segmented_layout(st->len, st->segments);
    char *p = (char *)st->ws;
    int *idx_out = (int *)(p + l.keys + l.idx_in);
    size_t bytes = l.temp;
    cudaError_t rc = st->k > 0 && st->total > 0
                         ? cub::DeviceSegmentedSort::StableSortPairsDescending(
                               p + l.keys + l.idx_in + l.idx_out, bytes, io.values, (float *)p,
                               (const int *)(p + l.keys), idx_out, (int)st->total, st->segments,
                               io.offsets, io.offsets + 1, stream)
                         : cudaSuccess;
    if (rc == cudaSuccess) {
        const unsigned bx = (unsigned)(st->k > 0 ? (st->k + 255) / 256 : 1);
        take_first_k<<<dim3(bx, (unsigned)st->segments), 256, 0, stream>>>(
            io.values, io.offsets, idx_out, st->k, io.out_v, io.out_i, io.out_n);
        rc = cudaGetLastError();
    }
    kb_nvtx_pop();
    return kb_cuda_check(rc, "segmented sort", e);
}

} // namespace

KB_DEFINE_VARIANT(topk, segmented_sort) = {supports, workspace<segmented_layout>, setup<fill>, run,
                                           teardown};
