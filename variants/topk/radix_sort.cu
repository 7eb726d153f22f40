/* radix_sort.cu — topk/radix_sort: top-k by one
 * cub::DeviceRadixSort::SortPairsDescending per segment, then the first k
 * (the approach of the CUDA ports of the RPN proposal op). Its launcher,
 * kb_topk_sort (variants/common/topk_device.cuh), is reused by
 * rpn_proposals/sort_bitmask. The tie rule and the take: topk_sort.cuh.
 * CUB is slow to compile: of topk's files only the two sorts include it.
 * Measured: docs/perf-topk.md.
 *
 *   kbench run topk -v radix_sort,segmented_sort --sweep default
 */
#include "topk_sort.cuh"

#include "../common/topk_device.cuh"
#include "../common/variant_def.h"

#include <cub/cub.cuh>

namespace {

/* Scratch of kb_topk_sort for these segments: sorted keys and indices of
 * every segment, one iota of the longest, CUB's temp for the longest. */
SortLayout sort_layout(const int64_t *len, int segments) {
    int64_t total = 0, longest = 0;
    for (int s = 0; s < segments; s++) {
        total += len[s];
        longest = len[s] > longest ? len[s] : longest;
    }
    size_t temp = 0;
    cub::DeviceRadixSort::SortPairsDescending(nullptr, temp, (const float *)nullptr,
                                              (float *)nullptr, (const int *)nullptr,
                                              (int *)nullptr, (int)longest);
    return {align_up(4 * (size_t)total), align_up(4 * (size_t)longest), align_up(4 * (size_t)total),
            align_up(temp)};
}

} // namespace

size_t kb_topk_sort_workspace(const int64_t *len, int segments) {
    return sort_layout(len, segments).sum();
}

cudaError_t kb_topk_sort(const float *values, const int *offsets, const int64_t *len, int segments,
                         int k, void *ws, size_t ws_bytes, float *out_v, int *out_i, int *out_n,
                         cudaStream_t stream) {
    const SortLayout l = sort_layout(len, segments);
    if (ws_bytes < l.sum()) return cudaErrorInvalidValue;
    char *p = (char *)ws;
    float *keys_out = (float *)p;
    int *idx_in = (int *)(p + l.keys), *idx_out = (int *)(p + l.keys + l.idx_in);
    void *temp = p + l.keys + l.idx_in + l.idx_out;
    const int longest = (int)(l.idx_in / 4);
    if (k > 0 && longest > 0) {
        iota_within_segments<<<dim3((unsigned)((longest + 255) / 256), 1), 256, 0, stream>>>(
            nullptr, longest, idx_in);
        int64_t begin = 0;
        for (int s = 0; s < segments; begin += len[s], s++) {
            if (len[s] == 0) continue;
            size_t bytes = l.temp;
            cudaError_t rc = cub::DeviceRadixSort::SortPairsDescending(
                temp, bytes, values + begin, keys_out + begin, idx_in, idx_out + begin, (int)len[s],
                0, 32, stream);
            if (rc != cudaSuccess) return rc;
        }
    }
    const unsigned bx = (unsigned)(k > 0 ? (k + 255) / 256 : 1);
    take_first_k<<<dim3(bx, (unsigned)segments), 256, 0, stream>>>(values, offsets, idx_out, k,
                                                                   out_v, out_i, out_n);
    return cudaGetLastError();
}

namespace {

int fill(const kb_case *c, const kb_tensors *, State *st, kb_error *e) {
    return fill_state<sort_layout>(c, st, e);
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const Io io = io_of(dev_in, dev_out);
    kb_nvtx_push("sort");
    cudaError_t rc = kb_topk_sort(io.values, io.offsets, st->len, st->segments, st->k, st->ws,
                                  st->ws_bytes, io.out_v, io.out_i, io.out_n, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "per-segment radix sort", e);
}

} // namespace

KB_DEFINE_VARIANT(topk, radix_sort) = {supports, workspace<sort_layout>, setup<fill>, run,
                                       teardown};
