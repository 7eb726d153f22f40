/* topk_sort.cuh — what the two CUB-sort top-k variants share (radix_sort.cu,
 * segmented_sort.cu): the iota of indices within segments, the kernel that
 * takes the first k of each sorted segment, the scratch layout's shape and
 * the host state. Both sort (value, index-within-segment) pairs descending.
 * CUB's sorts are stable and treat -0.0 and +0.0 as equal keys
 * (device_radix_sort.cuh), so the index order the iota gives them is the
 * contract's tie rule. take_first_k copies the first min(k, n) of each
 * segment (the value re-read from the input by index, bitwise) and writes the
 * sentinel into the rest. Internal linkage: each including file has its copy.
 */
#ifndef KB_TOPK_SORT_CUH
#define KB_TOPK_SORT_CUH

#include "kbench/variant.h"
#include "kbench/ops/topk.h"

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

/* Scratch of a sort for these segments: sorted keys and indices of every
 * segment, the iota of indices, the sort's temp. */
struct SortLayout {
    size_t keys, idx_in, idx_out, temp;
    size_t sum() const { return keys + idx_in + idx_out + temp; }
};

typedef SortLayout (*layout_fn)(const int64_t *len, int segments);

/* The variant's state: the case's segments and one workspace allocation. */
struct State {
    int k, segments;
    int64_t total;
    int64_t *len; /* host copy of the segment lengths */
    void *ws;
    size_t ws_bytes;
};

template <layout_fn kLayout> size_t workspace(const kb_case *c) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, nullptr);
    if (!len) return 0;
    size_t bytes = kLayout(len, (int)n).sum();
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

/* The lengths and the workspace of kLayout; the caller tears down on failure. */
template <layout_fn kLayout> int fill_state(const kb_case *c, State *st, kb_error *e) {
    int64_t n = 0;
    st->k = (int)kb_topk_params_of(c).k;
    st->len = kb_topk_lengths(c, &n, &st->total, e);
    if (!st->len) return KB_ERR;
    st->segments = (int)n;
    st->ws_bytes = workspace<kLayout>(c);
    if (cudaMalloc(&st->ws, st->ws_bytes ? st->ws_bytes : 1) != cudaSuccess) {
        st->ws = nullptr;
        cudaGetLastError();
        return KB_OUT_OF_MEMORY;
    }
    return KB_OK;
}

typedef int (*fill_fn)(const kb_case *c, const kb_tensors *dev_in, State *st, kb_error *e);

/* A failed setup leaves nothing behind: the harness tears down only what set up. */
template <fill_fn kFill>
int setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    State *st = (State *)calloc(1, sizeof(State));
    *state = nullptr;
    if (!st) return kb_fail(e, "out of host memory");
    int rc = kFill(c, dev_in, st, e);
    if (rc != KB_OK)
        teardown(st);
    else
        *state = st;
    return rc;
}

/* The case's tensors on the device. */
struct Io {
    const float *values;
    const int *offsets;
    float *out_v;
    int *out_i, *out_n;
};

Io io_of(const kb_tensors *dev_in, kb_tensors *dev_out) {
    return {(const float *)kb_tensors_get(dev_in, "values")->data,
            (const int *)kb_tensors_get(dev_in, "offsets")->data,
            (float *)kb_tensors_find(dev_out, "topk_values")->data,
            (int *)kb_tensors_find(dev_out, "topk_indices")->data,
            (int *)kb_tensors_find(dev_out, "counts")->data};
}

int supports(const kb_case *c, kb_error *why) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    free(len);
    return len ? KB_OK : KB_UNSUPPORTED;
}

} // namespace

#endif
