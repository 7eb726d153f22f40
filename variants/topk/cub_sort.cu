/* cub_sort.cu — top-k by sorting whole segments with CUB, then taking k.
 *
 *   radix_sort      one cub::DeviceRadixSort::SortPairsDescending per segment
 *                   (the approach of the CUDA ports of the RPN proposal op;
 *                   kb_topk_sort, reused by rpn_proposals/sort_bitmask)
 *   segmented_sort  every segment in one cub::DeviceSegmentedSort call
 *
 * Both sort (value, index-within-segment) pairs descending. CUB's sorts are
 * stable and treat -0.0 and +0.0 as equal keys (device_radix_sort.cuh), so
 * the index order the iota gives them is the contract's tie rule. A last
 * kernel copies the first min(k, n) of each segment (the value re-read from
 * the input by index, bitwise) and writes the sentinel into the rest.
 * All CUB lives in this one file: it is slow to compile.
 */
#include "topk.h"

#include "variants/common/topk_device.cuh"

#include <cub/cub.cuh>

#include <stdlib.h>

namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t b) {
    return (b + kAlign - 1) / kAlign * kAlign;
}

/* The index each value has within its segment (segmented_sort), or 0..n-1
 * for one segment of n when offsets is null (radix_sort). */
__global__ void iota_within_segments(const int *offsets, int n_single, int *idx) {
    const int s = blockIdx.y;
    const int begin = offsets ? offsets[s] : 0;
    const int n = offsets ? offsets[s + 1] - begin : n_single;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)
        idx[begin + j] = j;
}

/* Slot j of segment s: the j-th sorted pair, or the sentinel past min(k, n). */
__global__ void take_first_k(const float *values, const int *offsets, const int *sorted_idx, int k,
                             float *out_v, int *out_i, int *out_n) {
    const int s = blockIdx.y;
    const int begin = offsets[s], n = offsets[s + 1] - begin, keep = min(k, n);
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < k; j += gridDim.x * blockDim.x) {
        const size_t o = (size_t)s * k + j;
        const int idx = j < keep ? sorted_idx[begin + j] : -1;
        out_i[o] = idx;
        out_v[o] = j < keep ? values[begin + idx] : -INFINITY;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) out_n[s] = keep;
}

/* Scratch of kb_topk_sort for these segments: sorted keys and indices of
 * every segment, one iota of the longest, CUB's temp for the longest. */
struct SortLayout {
    size_t keys, idx_in, idx_out, temp;
    size_t sum() const { return keys + idx_in + idx_out + temp; }
};

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

/* radix_sort: kb_topk_sort with the case's lengths; segmented_sort: one
 * CUB segmented sort over the same kind of scratch (iota per segment). */
struct State {
    bool segmented;
    int k, segments;
    int64_t total;
    int64_t *len; /* host copy of the segment lengths */
    void *ws;
    size_t ws_bytes;
};

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

size_t workspace(bool segmented, const kb_case *c) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, nullptr);
    if (!len) return 0;
    size_t bytes = segmented ? segmented_layout(len, (int)n).sum() : sort_layout(len, (int)n).sum();
    free(len);
    return bytes;
}

void teardown(void *state) {
    State *st = (State *)state;
    if (!st) return;
    cudaFree(st->ws);
    free(st->len);
    free(st);
}

int setup_state(bool segmented, const kb_case *c, const kb_tensors *dev_in, State *st,
                kb_error *e) {
    int64_t n = 0;
    st->segmented = segmented;
    st->k = (int)kb_topk_params_of(c).k;
    st->len = kb_topk_lengths(c, &n, &st->total, e);
    if (!st->len) return KB_ERR;
    st->segments = (int)n;
    st->ws_bytes = workspace(segmented, c);
    if (cudaMalloc(&st->ws, st->ws_bytes ? st->ws_bytes : 1) != cudaSuccess) {
        st->ws = nullptr;
        cudaGetLastError();
        return KB_OUT_OF_MEMORY;
    }
    if (!segmented || st->total == 0) return KB_OK;
    int64_t longest = 0;
    for (int s = 0; s < st->segments; s++) longest = st->len[s] > longest ? st->len[s] : longest;
    const SortLayout l = segmented_layout(st->len, st->segments);
    iota_within_segments<<<dim3((unsigned)((longest + 255) / 256), (unsigned)st->segments), 256>>>(
        (const int *)kb_tensors_get(dev_in, "offsets")->data, 0, (int *)((char *)st->ws + l.keys));
    KB_CUDA_TRY(cudaGetLastError(), e);
    KB_CUDA_TRY(cudaDeviceSynchronize(), e);
    return KB_OK;
}

/* A failed setup leaves nothing behind: the harness tears down only what set up. */
int setup(bool segmented, const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    State *st = (State *)calloc(1, sizeof(State));
    *state = nullptr;
    if (!st) return kb_fail(e, "out of host memory");
    int rc = setup_state(segmented, c, dev_in, st, e);
    if (rc != KB_OK)
        teardown(st);
    else
        *state = st;
    return rc;
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const float *values = (const float *)kb_tensors_get(dev_in, "values")->data;
    const int *offsets = (const int *)kb_tensors_get(dev_in, "offsets")->data;
    float *out_v = (float *)kb_tensors_find(dev_out, "topk_values")->data;
    int *out_i = (int *)kb_tensors_find(dev_out, "topk_indices")->data;
    int *out_n = (int *)kb_tensors_find(dev_out, "counts")->data;
    kb_nvtx_push("sort");
    cudaError_t rc;
    if (!st->segmented) {
        rc = kb_topk_sort(values, offsets, st->len, st->segments, st->k, st->ws, st->ws_bytes,
                          out_v, out_i, out_n, stream);
    } else {
        const SortLayout l = segmented_layout(st->len, st->segments);
        char *p = (char *)st->ws;
        int *idx_out = (int *)(p + l.keys + l.idx_in);
        size_t bytes = l.temp;
        rc = st->k > 0 && st->total > 0
                 ? cub::DeviceSegmentedSort::StableSortPairsDescending(
                       p + l.keys + l.idx_in + l.idx_out, bytes, values, (float *)p,
                       (const int *)(p + l.keys), idx_out, (int)st->total, st->segments, offsets,
                       offsets + 1, stream)
                 : cudaSuccess;
        if (rc == cudaSuccess) {
            const unsigned bx = (unsigned)(st->k > 0 ? (st->k + 255) / 256 : 1);
            take_first_k<<<dim3(bx, (unsigned)st->segments), 256, 0, stream>>>(
                values, offsets, idx_out, st->k, out_v, out_i, out_n);
            rc = cudaGetLastError();
        }
    }
    kb_nvtx_pop();
    return kb_cuda_check(rc, st->segmented ? "segmented sort" : "per-segment radix sort", e);
}

int supports(const kb_case *c, kb_error *why) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    free(len);
    return len ? KB_OK : KB_UNSUPPORTED;
}

size_t radix_sort_workspace(const kb_case *c) {
    return workspace(false, c);
}
size_t segmented_workspace(const kb_case *c) {
    return workspace(true, c);
}
int radix_sort_setup(const kb_case *c, const kb_tensors *in, void **st, kb_error *e) {
    return setup(false, c, in, st, e);
}
int segmented_setup(const kb_case *c, const kb_tensors *in, void **st, kb_error *e) {
    return setup(true, c, in, st, e);
}

} // namespace

extern "C" const kb_variant_impl kb_topk_radix_sort = {supports, radix_sort_workspace,
                                                       radix_sort_setup, run, teardown};
extern "C" const kb_variant_impl kb_topk_segmented_sort = {supports, segmented_workspace,
                                                           segmented_setup, run, teardown};
