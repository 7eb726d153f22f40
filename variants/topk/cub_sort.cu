/* cub_sort.cu — top-k by sorting whole segments with CUB, then taking k.
 *
 *   radix_sort      one cub::DeviceRadixSort::SortPairsDescending per segment
 *                   (the approach of the CUDA ports of the RPN proposal op)
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

enum class Kind { per_segment, segmented };

struct State {
    Kind kind;
    int k, segments;
    int64_t total, longest;
    int64_t *len; /* host copy of the segment lengths: one sort call each (per_segment) */
    void *ws;
    float *keys_out;
    int *idx_in, *idx_out;
    void *temp;
    size_t temp_bytes;
};

/* CUB's scratch for the case: the longest segment, or all of them at once. */
size_t cub_temp_bytes(Kind kind, int64_t total, int64_t longest, int64_t segments) {
    size_t bytes = 0;
    if (kind == Kind::per_segment)
        cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, (const float *)nullptr,
                                                  (float *)nullptr, (const int *)nullptr,
                                                  (int *)nullptr, (int)longest);
    else
        cub::DeviceSegmentedSort::StableSortPairsDescending(
            nullptr, bytes, (const float *)nullptr, (float *)nullptr, (const int *)nullptr,
            (int *)nullptr, (int)total, (int)segments, (const int *)nullptr, (const int *)nullptr);
    return bytes;
}

struct Layout {
    int64_t segments, total, longest;
    size_t keys, idx_in, idx_out, temp;
    size_t sum() const { return keys + idx_in + idx_out + temp; }
};

Layout layout_of(const kb_case *c, Kind kind) {
    Layout l = {};
    int64_t *len = kb_topk_lengths(c, &l.segments, &l.total, nullptr);
    for (int64_t i = 0; len && i < l.segments; i++)
        l.longest = len[i] > l.longest ? len[i] : l.longest;
    free(len);
    l.keys = align_up(4 * (size_t)l.total);
    l.idx_in = align_up(4 * (size_t)(kind == Kind::per_segment ? l.longest : l.total));
    l.idx_out = align_up(4 * (size_t)l.total);
    l.temp = align_up(cub_temp_bytes(kind, l.total, l.longest, l.segments));
    return l;
}

int supports(const kb_case *c, kb_error *why) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    free(len);
    return len ? KB_OK : KB_UNSUPPORTED;
}

int setup_state(Kind kind, const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    Layout l = layout_of(c, kind);
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) return kb_fail(e, "out of host memory");
    *state = st;
    st->kind = kind;
    st->k = (int)kb_int(c, "k");
    st->segments = (int)l.segments;
    st->total = l.total;
    st->longest = l.longest;
    st->len = kb_topk_lengths(c, &l.segments, &l.total, e);
    if (!st->len) return KB_ERR;
    if (cudaMalloc(&st->ws, l.sum() ? l.sum() : 1) != cudaSuccess) {
        st->ws = nullptr;
        cudaGetLastError();
        return KB_OUT_OF_MEMORY;
    }
    char *p = (char *)st->ws;
    st->keys_out = (float *)p;
    st->idx_in = (int *)(p + l.keys);
    st->idx_out = (int *)(p + l.keys + l.idx_in);
    st->temp = p + l.keys + l.idx_in + l.idx_out;
    st->temp_bytes = l.temp;
    if (l.longest == 0) return KB_OK;
    const int *offsets = (const int *)kb_tensors_get(dev_in, "offsets")->data;
    const bool one = kind == Kind::per_segment;
    const dim3 grid((unsigned)((l.longest + 255) / 256), one ? 1u : (unsigned)l.segments);
    iota_within_segments<<<grid, 256>>>(one ? nullptr : offsets, (int)l.longest, st->idx_in);
    KB_CUDA_TRY(cudaGetLastError(), e);
    KB_CUDA_TRY(cudaDeviceSynchronize(), e);
    return KB_OK;
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    State *st = (State *)state;
    const float *values = (const float *)kb_tensors_get(dev_in, "values")->data;
    const int *offsets = (const int *)kb_tensors_get(dev_in, "offsets")->data;
    kb_nvtx_push("sort");
    if (st->k > 0 && st->kind == Kind::per_segment) {
        int64_t begin = 0;
        for (int s = 0; s < st->segments; begin += st->len[s], s++) {
            if (st->len[s] == 0) continue;
            size_t bytes = st->temp_bytes;
            cudaError_t rc = cub::DeviceRadixSort::SortPairsDescending(
                st->temp, bytes, values + begin, st->keys_out + begin, st->idx_in,
                st->idx_out + begin, (int)st->len[s], 0, 32, stream);
            if (kb_cuda_check(rc, "cub::DeviceRadixSort::SortPairsDescending", e) != KB_OK) {
                kb_nvtx_pop();
                return KB_ERR;
            }
        }
    } else if (st->k > 0 && st->total > 0) {
        size_t bytes = st->temp_bytes;
        cudaError_t rc = cub::DeviceSegmentedSort::StableSortPairsDescending(
            st->temp, bytes, values, st->keys_out, st->idx_in, st->idx_out, (int)st->total,
            st->segments, offsets, offsets + 1, stream);
        if (kb_cuda_check(rc, "cub::DeviceSegmentedSort::StableSortPairsDescending", e) != KB_OK) {
            kb_nvtx_pop();
            return KB_ERR;
        }
    }
    kb_nvtx_pop();
    kb_nvtx_push("take_k");
    const int k = st->k;
    const unsigned bx = (unsigned)(k > 0 ? (k + 255) / 256 : 1);
    take_first_k<<<dim3(bx, (unsigned)st->segments), 256, 0, stream>>>(
        values, offsets, st->idx_out, k, (float *)kb_tensors_find(dev_out, "topk_values")->data,
        (int *)kb_tensors_find(dev_out, "topk_indices")->data,
        (int *)kb_tensors_find(dev_out, "counts")->data);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "take_first_k", e);
}

void teardown(void *state) {
    State *st = (State *)state;
    if (!st) return;
    cudaFree(st->ws);
    free(st->len);
    free(st);
}

/* A failed setup leaves nothing behind: the harness tears down only what set up. */
int setup(Kind kind, const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    *state = nullptr;
    int rc = setup_state(kind, c, dev_in, state, e);
    if (rc != KB_OK) {
        teardown(*state);
        *state = nullptr;
    }
    return rc;
}

size_t radix_sort_workspace(const kb_case *c) {
    return layout_of(c, Kind::per_segment).sum();
}
size_t segmented_workspace(const kb_case *c) {
    return layout_of(c, Kind::segmented).sum();
}
int radix_sort_setup(const kb_case *c, const kb_tensors *in, void **st, kb_error *e) {
    return setup(Kind::per_segment, c, in, st, e);
}
int segmented_setup(const kb_case *c, const kb_tensors *in, void **st, kb_error *e) {
    return setup(Kind::segmented, c, in, st, e);
}

} // namespace

extern "C" const kb_variant_impl kb_topk_radix_sort = {supports, radix_sort_workspace,
                                                       radix_sort_setup, run, teardown};
extern "C" const kb_variant_impl kb_topk_segmented_sort = {supports, segmented_workspace,
                                                           segmented_setup, run, teardown};
