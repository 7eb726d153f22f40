/* sort.cu — the ranking stage of every nms variant, and the one nms file
 * that includes CUB (it compiles slowly; keep it to this file).
 *
 * prep: keys = scores with -0 folded into +0 (the reference ranks -0 == +0),
 * values = 0..n-1; CUB's stable descending radix sort then ranks equal scores
 * lower index first; gather: boxes and classes in rank order.
 *
 * Up to kSmallSort boxes one block does all three in shared memory instead
 * (one launch, not four): a bitonic sort of 64-bit keys (score bits mapped so
 * that unsigned order is descending score, CUB's own mapping, then the index),
 * which ranks exactly as the radix sort does; up to 1024 boxes with the
 * network unrolled for the power of two at hand. From there up to
 * kChunkSortMax boxes: 1024-key chunks sorted by that network, one block
 * each, then every key's rank is its place in its chunk plus its lower bound
 * in each other chunk (two launches; CUB's five cost ~55 us at 25200 boxes,
 * launch-bound).
 */
#include "kbench/variant.h"
#include "kbench/ops/nms.h"
#include "rank_key.cuh"
#include "../common/block_bitonic.cuh"
#include "../common/nms_device.cuh"

#include <cub/cub.cuh>
#include <stdlib.h>

namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t b) {
    return (b + kAlign - 1) / kAlign * kAlign;
}

__global__ void rank_keys_kernel(const float *scores, int n, float *keys, int *index) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    keys[i] = __fadd_rn(scores[i], 0.0f); /* -0 + 0 = +0 */
    index[i] = i;
}

__global__ void gather_kernel(const int *order, const float4 *boxes, const int *classes, int n,
                              float4 *boxes_sorted, int *classes_sorted) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    int i = order[r];
    boxes_sorted[r] = boxes[i];
    if (classes_sorted) classes_sorted[r] = classes[i];
}

constexpr int kSmallSort = 4096, kSmallThreads = 1024;

/* The small sort: kb_block_bitonic (variants/common/block_bitonic.cuh), a
 * thread per key. Each thread also stages its own input box in shared memory
 * at the start, so the gather at the end reads no global memory after the
 * sort. */
template <int kSize>
__global__ void __launch_bounds__(kSize)
    small_sort_kernel(const float *scores, const float4 *boxes, const int *classes, int n,
                      int *order, float4 *boxes_sorted, int *classes_sorted) {
    __shared__ unsigned long long key[2][kSize];
    __shared__ float4 box[kSize];
    __shared__ int cls[kSize];
    int t = threadIdx.x;
    int i = kb_nms_block_rank<kSize>(scores, boxes, classes_sorted ? classes : nullptr, n, box, cls,
                                     key);
    if (t < n) {
        order[t] = i;
        boxes_sorted[t] = box[i];
        if (classes_sorted) classes_sorted[t] = cls[i];
    }
}

/* kSmallSort..kChunkSortMax boxes: chunks of kChunk keys, each sorted by one
 * block into sorted[] (ascending key = rank order). */
constexpr int kChunk = 1024, kMaxChunks = 32, kChunkSortMax = kChunk * kMaxChunks;

__global__ void __launch_bounds__(kChunk)
    chunk_sort_kernel(const float *scores, int n, unsigned long long *sorted) {
    __shared__ unsigned long long key[2][kChunk];
    int t = threadIdx.x, i = blockIdx.x * kChunk + t;
    unsigned long long v =
        kb_block_bitonic<kChunk>(i < n ? kb_nms_rank_key(scores[i], i) : ~0ull, key);
    if (i < n) sorted[i] = v; /* pads sort last: position t < the chunk's size */
}

/* Key r's rank: its place in its chunk plus, in every other chunk, the number
 * of keys below it (keys are distinct: the index is their low half). A block
 * ranks kRankThreads keys of one chunk: each other chunk in turn goes to
 * shared memory (the next one's loads in flight meanwhile) and every thread
 * finds its key's lower bound there, 11 shared loads. Then the gather,
 * scattered to the rank. (Every thread searching every chunk in global
 * memory, 32 searches side by side, took ~57 us at 25200 keys on an H100 at
 * base clocks: ~9M scattered L1 loads.) */
constexpr int kRankThreads = 256, kRankPer = kChunk / kRankThreads;

__global__ void __launch_bounds__(kRankThreads)
    merge_rank_kernel(const unsigned long long *sorted, int n, const float4 *boxes,
                      const int *classes, int *order, float4 *boxes_sorted, int *classes_sorted) {
    __shared__ unsigned long long other[kChunk];
    const int t = threadIdx.x, r = blockIdx.x * kRankThreads + t;
    const int a = blockIdx.x * kRankThreads / kChunk, chunks = (n + kChunk - 1) / kChunk;
    const unsigned long long x = r < n ? sorted[r] : ~0ull;
    int rank = r - a * kChunk;
    unsigned long long next[kRankPer];
    auto fetch = [&](int b) {
#pragma unroll
        for (int q = 0; q < kRankPer; q++) {
            const int i = b * kChunk + t + q * kRankThreads;
            next[q] = b < chunks && i < n ? sorted[i] : ~0ull; /* pads rank after every key */
        }
    };
    int b = a == 0 ? 1 : 0;
    fetch(b);
    while (b < chunks) {
        __syncthreads(); /* the last chunk's searches are done */
#pragma unroll
        for (int q = 0; q < kRankPer; q++) other[t + q * kRankThreads] = next[q];
        __syncthreads();
        const int after = b + 1 == a ? b + 2 : b + 1;
        fetch(after);
        int pos = 0;
        for (int step = kChunk; step; step >>= 1)
            if (pos + step <= kChunk && other[pos + step - 1] < x) pos += step;
        rank += pos;
        b = after;
    }
    if (r >= n) return;
    const int i = (int)(unsigned)x;
    order[rank] = i;
    boxes_sorted[rank] = boxes[i];
    if (classes_sorted) classes_sorted[rank] = classes[i];
}

/* 1025..kSmallSort boxes: the same network, kPerThread keys per thread at
 * positions t + kSmallThreads m, its stages looped. */
constexpr int kPerThread = kSmallSort / kSmallThreads;

__global__ void __launch_bounds__(kSmallThreads)
    mid_sort_kernel(const float *scores, const float4 *boxes, const int *classes, int n, int *order,
                    float4 *boxes_sorted, int *classes_sorted) {
    __shared__ unsigned long long key[kSmallSort];
    int t = threadIdx.x, size = 2;
    while (size < n) size <<= 1;
    int per = (size + kSmallThreads - 1) / kSmallThreads; /* keys held per thread */
    unsigned long long v[kPerThread];
#pragma unroll
    for (int m = 0; m < kPerThread; m++) {
        int i = t + kSmallThreads * m;
        v[m] = i < n ? kb_nms_rank_key(scores[i], i) : ~0ull;
    }
    for (int k = 2; k <= size; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            unsigned long long other[kPerThread];
            if (j >= 32) {
                __syncthreads(); /* the previous stage's readers are done */
#pragma unroll
                for (int m = 0; m < kPerThread; m++)
                    if (m < per && t + kSmallThreads * m < size) key[t + kSmallThreads * m] = v[m];
                __syncthreads();
            }
#pragma unroll
            for (int m = 0; m < kPerThread; m++) {
                if (m >= per) break; /* uniform: no shuffle partner left out */
                int i = t + kSmallThreads * m;
                other[m] = j >= 32 ? (i < size ? key[i ^ j] : v[m])
                                   : __shfl_xor_sync(0xffffffffu, v[m], j);
                bool up = (i & k) == 0, lower = (i & j) == 0;
                v[m] = lower == up ? min(v[m], other[m]) : max(v[m], other[m]);
            }
        }
#pragma unroll
    for (int m = 0; m < kPerThread; m++) {
        int r = t + kSmallThreads * m;
        if (r >= n) continue;
        int i = (int)(unsigned)v[m];
        order[r] = i;
        boxes_sorted[r] = boxes[i];
        if (classes_sorted) classes_sorted[r] = classes[i];
    }
}

size_t cub_temp_bytes(int n) {
    size_t bytes = 0;
    cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, (const float *)nullptr,
                                              (float *)nullptr, (const int *)nullptr,
                                              (int *)nullptr, n);
    return bytes;
}

} // namespace

/* keys in, keys out, index in, CUB temp. */
size_t kb_nms_sort_workspace(int n) {
    size_t v = align_up((size_t)n * 4);
    return 3 * v + align_up(cub_temp_bytes(n > 0 ? n : 1));
}

cudaError_t kb_nms_sort_by_score(const float *scores, const float4 *boxes, const int *classes,
                                 int n, int *order, float4 *boxes_sorted, int *classes_sorted,
                                 void *workspace, size_t ws_bytes, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    if (n <= kSmallSort) {
        auto launch = [&](auto kernel, int threads) {
            kernel<<<1, threads, 0, stream>>>(scores, boxes, classes, n, order, boxes_sorted,
                                              classes_sorted);
        };
        if (n <= 64)
            launch(small_sort_kernel<64>, 64);
        else if (n <= 128)
            launch(small_sort_kernel<128>, 128);
        else if (n <= 256)
            launch(small_sort_kernel<256>, 256);
        else if (n <= 512)
            launch(small_sort_kernel<512>, 512);
        else if (n <= 1024)
            launch(small_sort_kernel<1024>, 1024);
        else
            launch(mid_sort_kernel, kSmallThreads);
        return cudaGetLastError();
    }
    size_t v = align_up((size_t)n * 4);
    char *ws = (char *)workspace;
    if (n <= kChunkSortMax) { /* the 64-bit keys in the keys_in + keys_out space (2 v >= 8 n) */
        unsigned long long *sorted = (unsigned long long *)ws;
        chunk_sort_kernel<<<(n + kChunk - 1) / kChunk, kChunk, 0, stream>>>(scores, n, sorted);
        merge_rank_kernel<<<(n + kRankThreads - 1) / kRankThreads, kRankThreads, 0, stream>>>(
            sorted, n, boxes, classes, order, boxes_sorted, classes_sorted);
        return cudaGetLastError();
    }
    float *keys_in = (float *)ws, *keys_out = (float *)(ws + v);
    int *index_in = (int *)(ws + 2 * v);
    void *temp = ws + 3 * v;
    size_t temp_bytes = ws_bytes - 3 * v;
    int threads = 256, blocks = (n + threads - 1) / threads;
    rank_keys_kernel<<<blocks, threads, 0, stream>>>(scores, n, keys_in, index_in);
    cudaError_t rc = cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys_in, keys_out,
                                                               index_in, order, n, 0, 32, stream);
    if (rc != cudaSuccess) return rc;
    gather_kernel<<<blocks, threads, 0, stream>>>(order, boxes, classes, n, boxes_sorted,
                                                  classes_sorted);
    return cudaGetLastError();
}

/* ---- the op's variants: sorted boxes + workspaces in one allocation ---- */

size_t kb_nms_sorted_state_bytes(const kb_case *c) {
    int n = (int)kb_nms_params_of(c).n;
    return align_up((size_t)n * 4) + align_up((size_t)n * 16) + align_up((size_t)n * 4) +
           kb_nms_sort_workspace(n) + align_up(kb_nms_sorted_workspace(n));
}

int kb_nms_sorted_setup(const kb_case *c, kb_nms_sorted *st, kb_error *e) {
    const kb_nms_params np = kb_nms_params_of(c);
    int n = (int)np.n;
    st->n = n;
    st->max_out = (int)np.max_out;
    st->class_aware = np.classes > 1;
    st->iou = np.iou;
    size_t bytes = kb_nms_sorted_state_bytes(c);
    if (cudaMalloc(&st->base, bytes) != cudaSuccess) {
        cudaGetLastError();
        st->base = NULL;
        kb_fail(e, "nms: cudaMalloc of %zu bytes of workspace failed (n=%d)", bytes, n);
        return KB_OUT_OF_MEMORY;
    }
    char *p = (char *)st->base;
    st->order = (int *)p;
    p += align_up((size_t)n * 4);
    st->boxes = (float4 *)p;
    p += align_up((size_t)n * 16);
    st->classes = st->class_aware ? (int *)p : NULL;
    p += align_up((size_t)n * 4);
    st->sort_ws = p;
    st->sort_ws_bytes = kb_nms_sort_workspace(n);
    p += st->sort_ws_bytes;
    st->nms_ws = p;
    st->nms_ws_bytes = align_up(kb_nms_sorted_workspace(n));
    return KB_OK;
}

int kb_nms_sorted_fill(kb_nms_sorted *st, const kb_tensors *dev_in, cudaStream_t stream,
                       kb_error *e) {
    const float *scores = (const float *)kb_tensors_get(dev_in, "scores")->data;
    const float4 *boxes = (const float4 *)kb_tensors_get(dev_in, "boxes")->data;
    const int *classes = (const int *)kb_tensors_get(dev_in, "classes")->data;
    kb_nvtx_push("sort");
    cudaError_t rc = kb_nms_sort_by_score(scores, boxes, classes, st->n, st->order, st->boxes,
                                          st->classes, st->sort_ws, st->sort_ws_bytes, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "nms sort by score", e);
}

void kb_nms_sorted_free(kb_nms_sorted *st) {
    if (st->base) cudaFree(st->base);
    st->base = NULL;
}

int kb_nms_sorted_new(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    (void)dev_in;
    kb_nms_sorted *st = (kb_nms_sorted *)calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "nms: out of host memory");
    int rc = kb_nms_sorted_setup(c, st, e);
    if (rc != KB_OK) {
        free(st);
        return rc;
    }
    *state = st;
    return KB_OK;
}

void kb_nms_sorted_delete(void *state) {
    kb_nms_sorted *st = (kb_nms_sorted *)state;
    if (!st) return;
    kb_nms_sorted_free(st);
    free(st);
}
