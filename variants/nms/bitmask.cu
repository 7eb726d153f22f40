/* bitmask.cu — greedy NMS through 64-bit suppression masks (the design of
 * torchvision's and mmcv's CUDA nms): the masks every walk reads (masks.cuh;
 * blockwalk's build prunes by x and lists far words), and two ways to walk them:
 *   bitmask_host   the mask to the host, a serial walk there, the keeps back
 *                  (the classic; KB_HOST_SYNC)
 *   bitmask_gpu    one block walks box by box (mmcv's gather_keep_from_mask)
 * blockwalk (64 boxes a step) is in blockwalk.cu. All sort first (sort.cu).
 * The mask layout: above build_masks(). Measurements: docs/perf-nms.md.
 *
 *   kbench run nms --sweep default -v bitmask_host,bitmask_gpu
 */
#include "masks.cuh"
#include "../common/arch.cuh"
#include "../common/variant_def.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

using namespace kb_nms_masks;

namespace {

/* Rank by counting (64 compares per thread, one barrier): a strict order on
 * (pad, x1, index) when no x is NaN, so the ranks are a permutation. */
__global__ void __launch_bounds__(64)
    xsort_kernel(const float4 *boxes, int n, xsorted xs, int *far_count) {
    __shared__ float key[64], x2[64];
    __shared__ int pad[64];
    int cb = blockIdx.x, t = threadIdx.x, cols = min(64, n - 64 * cb);
    float4 b = t < cols ? boxes[64 * cb + t] : make_float4(0, 0, 0, 0);
    if (far_count && t < cols) far_count[64 * cb + t] = 0; /* no memset launch */
    key[t] = b.x;
    pad[t] = t >= cols;
    int nan = __syncthreads_or(t < cols && (isnan(b.x) || isnan(b.z)));
    int rank = 0;
    for (int s = 0; s < 64 && !nan; s++)
        rank += pad[s] < pad[t] ||
                (pad[s] == pad[t] && (key[s] < key[t] || (key[s] == key[t] && s < t)));
    if (nan) rank = t;
    if (t < cols) {
        xs.box[64 * cb + rank] = b;
        xs.pos[64 * cb + rank] = (unsigned char)t;
        x2[rank] = b.z;
    }
    __syncthreads();
    if (t == 0) {
        float m = -INFINITY;
        for (int k = 0; k < cols; k++) xs.max_x2[64 * cb + k] = m = fmaxf(m, x2[k]);
        xs.flag[cb] = nan;
    }
}

/* Columns [lo, hi) of an x-sorted tile can intersect box a: before lo every
 * x2 <= a.x1, from hi on every x1 >= a.x2, so there min(x2) <= max(x1): the
 * intersection width rounds to <= 0, inter = 0 and IoU <= thr for any thr in
 * [0, 1] (exact: no arithmetic on the bounds, only comparisons). */
__device__ __forceinline__ void x_window(float4 a, const float4 *col, const float *max_x2, int cols,
                                         int &lo, int &hi) {
    lo = hi = 0;
    for (int step = 64; step; step >>= 1) {
        if (lo + step <= cols && max_x2[lo + step - 1] <= a.x) lo += step;
        if (hi + step <= cols && col[hi + step - 1].x < a.z) hi += step;
    }
}

/* 64x64 tiles: thread t computes row box 64 rb + t against column blocks
 * cb = tiles * blockIdx.x + q (q < tiles, only cb >= rb): several tiles per
 * block at large n, so that the lower triangle costs few empty blocks.
 * diag_col (may be NULL): on the diagonal tile also the column form,
 * diag_col[r] bit k = box 64 rb + k (k < r % 64) suppresses box r, computed
 * with the same argument order as the row form, so both agree bit for bit.
 * xs.box non-NULL: off-diagonal tiles read the column block in x order and
 * each row box tests only its x window (uniform boxes in the peer cases
 * overlap a box's x range with ~20% of the others: ~25 of 64 tests per tile).
 * kSplit threads share a row (columns k = q mod kSplit, words ORed by
 * shuffles): at small n (1000 boxes: 136 tiles) one thread per row leaves
 * the chip idle and each thread's 64 dependent tests on the critical path. */
template <bool kClasses, int kSplit>
__global__ void __launch_bounds__(64 * kSplit)
    mask_kernel(const float4 *boxes, const int *classes, int n, int words, int tiles, float thr,
                u64 *mask, u64 *diag_col, xsorted xs, far_lists far) {
    int rb = blockIdx.y, cb0 = blockIdx.x * tiles, tid = threadIdx.x;
    int t = tid / kSplit, q = tid % kSplit;
    if (cb0 + tiles - 1 < rb) return;
    __shared__ float4 col[64];
    __shared__ float col_max_x2[64];
    __shared__ int col_class[64];
    __shared__ unsigned char col_pos[64];
    int rows = min(64, n - 64 * rb), r = 64 * rb + t;
    float4 a = t < rows ? boxes[r] : make_float4(0, 0, 0, 0);
    int a_class = kClasses && t < rows ? classes[r] : 0;
    bool a_nan = isnan(a.x) || isnan(a.z);
    for (int cb = max(cb0, rb); cb < min(cb0 + tiles, words); cb++) {
        int cols = min(64, n - 64 * cb);
        bool sorted = xs.box && cb != rb;
        __syncthreads(); /* the previous tile's readers are done */
        if (tid < cols) {
            int pos = sorted ? xs.pos[64 * cb + tid] : tid;
            col[tid] = sorted ? xs.box[64 * cb + tid] : boxes[64 * cb + tid];
            col_pos[tid] = (unsigned char)pos;
            if (sorted) col_max_x2[tid] = xs.max_x2[64 * cb + tid];
            if (kClasses) col_class[tid] = classes[64 * cb + pos];
        }
        int whole = !sorted || xs.flag[cb];
        __syncthreads();
        if (t >= rows) continue;
        int lo = rb == cb ? t + 1 : 0, hi = cols;
        if (!whole && !a_nan) x_window(a, col, col_max_x2, cols, lo, hi);
        u64 bits = tile_word<kClasses, kSplit, false>(a, a_class, col, col_class, lo, hi, thr,
                                                      [&](int k) { return col_pos[k]; });
        if (q == 0) mask[(size_t)r * words + cb] = bits;
        if (q == 0 && far.count && bits && cb >= rb + 2) {
            int slot = atomicAdd(&far.count[r], 1);
            if (slot < far.slots) {
                far.bits[(size_t)r * far.slots + slot] = bits;
                far.word[(size_t)r * far.slots + slot] = cb;
            }
        }
        if (rb == cb && diag_col) {
            u64 col_bits = tile_word<kClasses, kSplit, true>(a, a_class, col, col_class, 0, t, thr,
                                                             [](int k) { return k; });
            if (q == 0) diag_col[r] = col_bits;
        }
    }
}

/* Box-by-box walk (bitmask_gpu). A decision at box i reads only bit i, which
 * rows of later boxes never set, so threads may run ahead between barriers. */
__global__ void __launch_bounds__(1024)
    walk_boxes_kernel(const u64 *mask, const u64 *diag_col, far_lists far, int n, int words,
                      int cap, const int *order, int *keep, int *count) {
    extern __shared__ u64 removed[];
    (void)diag_col, (void)far;
    int t = threadIdx.x;
    for (int w = t; w < words; w += blockDim.x) removed[w] = 0;
    __syncthreads();
    /* The current block's word lives in a register of every thread (each
     * ORs a kept row's word into its own copy), so shared memory is written
     * only above it and never while another thread reads it. */
    u64 cur = 0;
    int nk = 0;
    for (int i = 0; i < n && nk < cap; i++) {
        if ((i & 63) == 0) cur = removed[i >> 6];
        if ((cur >> (i & 63)) & 1) continue;
        if (t == 0) keep[nk] = order ? order[i] : i;
        nk++;
        const u64 *row = mask + (size_t)i * words;
        cur |= row[i >> 6];
        for (int w = (i >> 6) + 1 + t; w < words; w += blockDim.x) removed[w] |= row[w];
        __syncthreads();
    }
    if (t == 0) *count = nk;
}

} // namespace

/* Masks: box r's word w has bit b set when r suppresses box 64 w + b (same
 * class, IoU > thr, rank after r); only w >= r/64 is computed, a 64x64 tile
 * per 64-thread block (4 threads a row under 4096 boxes). blockwalk's build
 * tests only x-overlapping pairs (x-sorted column blocks) and writes each
 * row's nonzero far words as a short list.
 * xs.box NULL: every tile whole (the baselines' design); far.count NULL:
 * no far lists. */
cudaError_t kb_nms_masks::build_masks(const float4 *boxes, const int *classes, int n, float iou,
                                      u64 *mask, u64 *diag_col, xsorted xs, far_lists far,
                                      cudaStream_t s) {
    if (n <= 0) return cudaSuccess;
    int words = words_of(n), tiles = words >= 256 ? 4 : 1;
    if (far.count && !xs.box) { /* else xsort_kernel zeroes the counts */
        cudaError_t rc = cudaMemsetAsync(far.count, 0, (size_t)n * sizeof(int), s);
        if (rc != cudaSuccess) return rc;
    }
    if (xs.box) {
        xsort_kernel<<<words, 64, 0, s>>>(boxes, n, xs, far.count);
        cudaError_t rc = cudaGetLastError();
        if (rc != cudaSuccess) return rc;
    }
    dim3 grid((words + tiles - 1) / tiles, words);
    /* Below 64 words (4096 boxes) the grid has under ~2100 tiles: 4 threads a row. */
    auto launch = [&](auto kernel, int split) {
        kernel<<<grid, 64 * split, 0, s>>>(boxes, classes, n, words, tiles, iou, mask, diag_col, xs,
                                           far);
    };
    bool small = words < 64;
    if (classes)
        small ? launch(mask_kernel<true, 4>, 4) : launch(mask_kernel<true, 1>, 1);
    else
        small ? launch(mask_kernel<false, 4>, 4) : launch(mask_kernel<false, 1>, 1);
    return cudaGetLastError();
}

namespace {

size_t carve_bytes(int n) {
    size_t bytes;
    carve(nullptr, n, &bytes);
    return bytes;
}

/* Sorted boxes -> masks -> the box-by-box walk (whole masks, no pruning);
 * n = 0 writes count 0. */
cudaError_t nms_sorted_boxes(const float4 *boxes, const int *classes, int n, float iou, int max_out,
                             const int *order, int *keep, int *count, void *ws, cudaStream_t s) {
    if (n <= 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    ws_layout l = carve(ws, n, nullptr);
    l.far = far_lists{};
    l.xs = xsorted{};
    kb_nvtx_push("mask");
    cudaError_t rc = build_masks(boxes, classes, n, iou, l.mask, l.diag_col, l.xs, l.far, s);
    kb_nvtx_pop();
    if (rc != cudaSuccess) return rc;
    kb_nvtx_push("walk");
    int cap = cap_of(n, max_out);
    rc = launch_walk(walk_boxes_kernel, 1024, l.mask, l.diag_col, l.far, n, cap, order, keep, count,
                     s);
    kb_nvtx_pop();
    return rc;
}

} // namespace

size_t kb_nms_mask_bytes(int n) {
    return (size_t)n * words_of(n) * sizeof(u64);
}

/* The bitmask walks' layout (carve); fast NMS needs n bytes, less than the mask. */
size_t kb_nms_sorted_workspace(int n) {
    return n > 0 ? carve_bytes(n) : 256;
}

cudaError_t kb_nms_build_masks(const float4 *boxes_sorted, const int *classes_sorted, int n,
                               float iou, u64 *mask, cudaStream_t stream) {
    return build_masks(boxes_sorted, classes_sorted, n, iou, mask, NULL, xsorted{}, far_lists{},
                       stream);
}

cudaError_t kb_nms_sorted_bitmask_gpu(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                      float iou, int max_out, const int *order, int *keep_out,
                                      int *count_out, void *workspace, size_t ws_bytes,
                                      cudaStream_t stream) {
    if (ws_bytes < kb_nms_sorted_workspace(n)) return cudaErrorInvalidValue;
    return nms_sorted_boxes(boxes_sorted, classes_sorted, n, iou, max_out, order, keep_out,
                            count_out, workspace, stream);
}

/* ---- the variants ---- */

namespace {

/* bitmask_host: the mask and the ranking go to pinned host memory. */
struct host_walk {
    kb_nms_sorted dev;
    u64 *mask;    /* pinned, n * words */
    int *order;   /* pinned, n */
    int *keep;    /* pinned, cap + 1: the keeps, then the count */
    u64 *removed; /* words */
};

void host_walk_teardown(void *state) {
    host_walk *h = (host_walk *)state;
    kb_nms_sorted_free(&h->dev);
    if (h->mask) cudaFreeHost(h->mask);
    if (h->order) cudaFreeHost(h->order);
    if (h->keep) cudaFreeHost(h->keep);
    free(h->removed);
    free(h);
}

int host_walk_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    (void)dev_in;
    host_walk *h = (host_walk *)calloc(1, sizeof *h);
    if (!h) return kb_fail(e, "nms: out of host memory");
    int rc = kb_nms_sorted_setup(c, &h->dev, e);
    if (rc != KB_OK) {
        free(h);
        return rc;
    }
    int n = h->dev.n;
    size_t mask_bytes = kb_nms_mask_bytes(n > 0 ? n : 1);
    h->removed = (u64 *)calloc((size_t)words_of(n) + 1, sizeof(u64));
    if (cudaMallocHost((void **)&h->mask, mask_bytes) != cudaSuccess ||
        cudaMallocHost((void **)&h->order, (size_t)(n + 1) * sizeof(int)) != cudaSuccess ||
        cudaMallocHost((void **)&h->keep, (size_t)(cap_of(n, h->dev.max_out) + 1) * sizeof(int)) !=
            cudaSuccess ||
        !h->removed) {
        cudaGetLastError();
        host_walk_teardown(h);
        kb_fail(e, "nms bitmask_host: pinned host allocation of %zu bytes failed (n=%d)",
                mask_bytes, n);
        return KB_OUT_OF_MEMORY;
    }
    /* The mask kernel writes only the tiles on and above the diagonal; the
     * copy to the host takes the whole mask, so the rest starts zeroed. */
    cudaError_t zeroed = n > 0 ? cudaMemset(h->dev.nms_ws, 0, kb_nms_mask_bytes(n)) : cudaSuccess;
    if (zeroed != cudaSuccess) {
        host_walk_teardown(h);
        return kb_cuda_check(zeroed, "cudaMemset(mask)", e);
    }
    *state = h;
    return KB_OK;
}

int host_walk_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
                  kb_error *e) {
    host_walk *h = (host_walk *)state;
    kb_nms_sorted *st = &h->dev;
    int n = st->n, words = words_of(n), cap = cap_of(n, st->max_out);
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    if (kb_nms_sorted_fill(st, dev_in, s, e) != KB_OK) return KB_ERR;
    KB_CUDA_TRY(kb_nms_build_masks(st->boxes, st->classes, n, st->iou, (u64 *)st->nms_ws, s), e);
    kb_nvtx_push("mask to host");
    if (n > 0) {
        KB_CUDA_TRY(
            cudaMemcpyAsync(h->mask, st->nms_ws, kb_nms_mask_bytes(n), cudaMemcpyDeviceToHost, s),
            e);
        KB_CUDA_TRY(cudaMemcpyAsync(h->order, st->order, (size_t)n * sizeof(int),
                                    cudaMemcpyDeviceToHost, s),
                    e);
    }
    KB_CUDA_TRY(cudaStreamSynchronize(s), e);
    kb_nvtx_pop();
    kb_nvtx_push("walk");
    memset(h->removed, 0, (size_t)words * sizeof(u64));
    int nk = 0;
    for (int i = 0; i < n && nk < cap; i++) {
        if ((h->removed[i >> 6] >> (i & 63)) & 1) continue;
        h->keep[nk++] = h->order[i];
        const u64 *row = h->mask + (size_t)i * words;
        for (int w = i >> 6; w < words; w++) h->removed[w] |= row[w];
    }
    h->keep[cap] = nk;
    kb_nvtx_pop();
    if (nk > 0)
        KB_CUDA_TRY(
            cudaMemcpyAsync(keep, h->keep, (size_t)nk * sizeof(int), cudaMemcpyHostToDevice, s), e);
    KB_CUDA_TRY(cudaMemcpyAsync(count, h->keep + cap, sizeof(int), cudaMemcpyHostToDevice, s), e);
    return KB_OK;
}

} // namespace

KB_DEFINE_VARIANT(nms, bitmask_host) = {masks_supports, device_walk_bytes, host_walk_setup,
                                        host_walk_run, host_walk_teardown};
KB_DEFINE_VARIANT(nms, bitmask_gpu) = {masks_supports, device_walk_bytes, kb_nms_sorted_new,
                                       device_walk_run<nms_sorted_boxes>, kb_nms_sorted_delete};
