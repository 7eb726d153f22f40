/* topk_device.cuh — top-k launchers on device data, for reuse (rpn_proposals).
 * C++/CUDA only. Each only enqueues on its stream: no host sync, no allocation.
 *
 * kb_topk_select (variants/topk/radix_select.cu): for each of `segments` segments of values
 * (segment s is values[offsets[s] .. offsets[s+1]) on the device), the min(k, n) largest,
 * descending, equal values (-0 == +0) by lower index first, into
 * out_v/out_i [segments, k] (index within the segment; sentinel -inf / -1
 * past the count) and out_n [segments]. One launch, no host sync, no
 * allocation: graph-capturable. longest = the longest segment (host value;
 * it sizes the clusters and the shared-memory cache). k <= KB_TOPK_SELECT_MAX_K.
 */
#ifndef KB_TOPK_DEVICE_CUH
#define KB_TOPK_DEVICE_CUH

#include "kbench/variant.h"
#include "kbench/ops/topk.h"

#include <cstdint>
#include <cuda_runtime.h>

enum { KB_TOPK_SELECT_MAX_K = 4096 };

/* A topk variant's device tensors by role (kbench/ops/topk.h names them). */
struct kb_topk_io {
    const float *values;
    const int *offsets;
    float *out_v;
    int *out_i;
    int *out_n;
};

inline kb_topk_io kb_topk_io_of(const kb_tensors *in, kb_tensors *out) {
    return kb_topk_io{(const float *)kb_tensors_get(in, "values")->data,
                      (const int *)kb_tensors_get(in, "offsets")->data,
                      (float *)kb_tensors_find(out, "topk_values")->data,
                      (int *)kb_tensors_find(out, "topk_indices")->data,
                      (int *)kb_tensors_find(out, "counts")->data};
}

cudaError_t kb_topk_select(const float *values, const int *offsets, int segments, int longest,
                           int k, float *out_v, int *out_i, int *out_n, cudaStream_t stream);

/* kb_topk_sort (variants/topk/radix_sort.cu): the same outputs by one CUB radix sort per
 * segment (host lengths len[segments]: one sort call each), then the first k.
 * ws: kb_topk_sort_workspace(len, segments) bytes. Any k. */
size_t kb_topk_sort_workspace(const int64_t *len, int segments);
cudaError_t kb_topk_sort(const float *values, const int *offsets, const int64_t *len, int segments,
                         int k, void *ws, size_t ws_bytes, float *out_v, int *out_i, int *out_n,
                         cudaStream_t stream);

/* kb_topk_coop (variants/topk/coop_select.cu): the same outputs by
 * topk/coop_select's one cooperative kernel, every segment at once in the
 * GPU's shared memory, for a layout fixed in advance: kb_topk_coop_check
 * (KB_OK, or KB_UNSUPPORTED and why: too many segments, k, keys past the
 * SMs' shared memory, no cooperative launch), then kb_topk_coop_new (host
 * lengths len[segments] and k; the device state, kb_topk_coop_bytes of it;
 * NULL with *status set on failure), kb_topk_coop_run per call (one launch),
 * kb_topk_coop_delete. */
struct kb_topk_coop;
int kb_topk_coop_check(const int64_t *len, int segments, int k, kb_error *why);
size_t kb_topk_coop_bytes(const int64_t *len, int segments, int k);
kb_topk_coop *kb_topk_coop_new(const int64_t *len, int segments, int k, int *status, kb_error *e);
cudaError_t kb_topk_coop_run(const kb_topk_coop *plan, const float *values, const int *offsets,
                             float *out_v, int *out_i, int *out_n, cudaStream_t stream);
void kb_topk_coop_delete(kb_topk_coop *plan);

/* The selects' first pass (radix_select, coop_select): a block of kThreads
 * reads src[0, m) with kBatch loads in flight per thread, and hands each
 * value's radix key (kb_topk_key) with its place to f(i, key), which stores
 * and counts it. */
template <int kThreads, int kBatch, class F>
__device__ __forceinline__ void kb_topk_load_keys(const float *src, int m, F f) {
    for (int i0 = (int)threadIdx.x; i0 < m; i0 += kBatch * kThreads) {
        float v[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; u++) {
            const int i = i0 + u * kThreads;
            v[u] = i < m ? __ldg(src + i) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kBatch; u++) {
            const int i = i0 + u * kThreads;
            if (i < m) f(i, kb_topk_key(v[u]));
        }
    }
}

#endif
