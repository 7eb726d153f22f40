/* bitmask.cu — greedy NMS through 64-bit suppression masks (the design of
 * torchvision's and mmcv's CUDA nms), three ways to walk them:
 *
 *   bitmask_host   the mask goes to the host, a serial walk keeps boxes, the
 *                  keeps come back (the classic; flagged KB_HOST_SYNC)
 *   bitmask_gpu    the walk on the GPU: one block, box by box (mmcv's
 *                  gather_keep_from_mask): a block barrier per kept box
 *   blockwalk      the walk on the GPU 64 boxes per step: one warp resolves a
 *                  64-box block from registers while the other warps OR the
 *                  previous block's kept rows into the removed bits
 *
 * All sort first (sort.cu). Masks: box r's word w has bit b set when r
 * suppresses box 64 w + b (same class, IoU > thr, rank after r); only w >= r/64
 * is computed, a 64x64 tile per 64-thread block.
 */
#include "nms.h"
#include "nms_device.cuh"
#include "nms_iou.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

namespace {

constexpr unsigned kFull = 0xffffffffu;

int words_of(int n) {
    return (n + 63) / 64;
}
int cap_of(int n, int max_out) {
    return max_out > 0 && max_out < n ? max_out : n;
}

/* kb_nms_iou(a, b) > thr exactly, the division only near the threshold. */
__device__ __forceinline__ bool suppresses(float4 a, float4 b, float thr) {
    return kb_nms_iou_above(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, thr);
}

/* 64x64 tiles: thread t computes row box 64 rb + t against column blocks
 * cb = tiles * blockIdx.x + q (q < tiles, only cb >= rb): several tiles per
 * block at large n, so that the lower triangle costs few empty blocks.
 * diag_col (may be NULL): on the diagonal tile also the column form,
 * diag_col[r] bit k = box 64 rb + k (k < r % 64) suppresses box r, computed
 * with the same argument order as the row form, so both agree bit for bit. */
template <bool kClasses>
__global__ void __launch_bounds__(64)
    mask_kernel(const float4 *boxes, const int *classes, int n, int words, int tiles, float thr,
                u64 *mask, u64 *diag_col) {
    int rb = blockIdx.y, cb0 = blockIdx.x * tiles, t = threadIdx.x;
    if (cb0 + tiles - 1 < rb) return;
    __shared__ float4 col[64];
    __shared__ int col_class[64];
    int rows = min(64, n - 64 * rb), r = 64 * rb + t;
    float4 a = t < rows ? boxes[r] : make_float4(0, 0, 0, 0);
    int a_class = kClasses && t < rows ? classes[r] : 0;
    for (int cb = max(cb0, rb); cb < min(cb0 + tiles, words); cb++) {
        int cols = min(64, n - 64 * cb);
        __syncthreads(); /* the previous tile's readers are done */
        if (t < cols) {
            col[t] = boxes[64 * cb + t];
            if (kClasses) col_class[t] = classes[64 * cb + t];
        }
        __syncthreads();
        if (t >= rows) continue;
        u64 bits = 0;
        for (int k = rb == cb ? t + 1 : 0; k < cols; k++)
            if ((!kClasses || col_class[k] == a_class) && suppresses(a, col[k], thr))
                bits |= 1ull << k;
        mask[(size_t)r * words + cb] = bits;
        if (rb == cb && diag_col) {
            u64 col_bits = 0;
            for (int k = 0; k < t; k++)
                if ((!kClasses || col_class[k] == a_class) && suppresses(col[k], a, thr))
                    col_bits |= 1ull << k;
            diag_col[r] = col_bits;
        }
    }
}

/* Box-by-box walk (bitmask_gpu). A decision at box i reads only bit i, which
 * rows of later boxes never set, so threads may run ahead between barriers. */
__global__ void __launch_bounds__(1024)
    walk_boxes_kernel(const u64 *mask, const u64 *diag_col, int n, int words, int cap,
                      const int *order, int *keep, int *count) {
    extern __shared__ u64 removed[];
    (void)diag_col;
    int t = threadIdx.x;
    for (int w = t; w < words; w += blockDim.x) removed[w] = 0;
    __syncthreads();
    int nk = 0;
    for (int i = 0; i < n && nk < cap; i++) {
        if ((removed[i >> 6] >> (i & 63)) & 1) continue;
        if (t == 0) keep[nk] = order ? order[i] : i;
        nk++;
        const u64 *row = mask + (size_t)i * words;
        for (int w = (i >> 6) + t; w < words; w += blockDim.x) removed[w] |= row[w];
        __syncthreads();
    }
    if (t == 0) *count = nk;
}

/* Boxes 64 j + lane and + 32 of block j: their diagonal column words (who in
 * the block suppresses them) and their rows' words at column j + 1. */
__device__ __forceinline__ void load_panel(const u64 *mask, const u64 *diag_col, int n, int words,
                                           int j, int lane, u64 &d0, u64 &d1, u64 &p0, u64 &p1) {
    d0 = d1 = p0 = p1 = 0;
    if (j >= words) return;
    int r0 = 64 * j + lane, r1 = r0 + 32;
    bool next = j + 1 < words;
    if (r0 < n) {
        d0 = diag_col[r0];
        if (next) p0 = mask[(size_t)r0 * words + j + 1];
    }
    if (r1 < n) {
        d1 = diag_col[r1];
        if (next) p1 = mask[(size_t)r1 * words + j + 1];
    }
}

constexpr int kWalkThreads = 1024, kWorkers = kWalkThreads - 32, kLoadsInFlight = 8;

/* Block-step walk (blockwalk). Step j: warp 0 resolves block j from its
 * removed word, the previous block's contribution (carry, from the prefetched
 * column-(j+1) panel) and the block's diagonal in column form, touching no
 * global memory on that path (keeps are written as ranks and mapped through
 * order at the end); meanwhile warps 1.. OR block j-1's kept rows into words
 * >= j+1, kLoadsInFlight independent loads per thread per round (one
 * dependent load per row would cost a memory latency per kept box).
 *
 * The resolve decides boxes in rounds instead of kept box by kept box: lane
 * holds the column words c of boxes lane and lane + 32 (who in the block
 * suppresses them); an undecided box whose c meets a kept box is removed, one
 * whose c meets no undecided box is kept (every suppressor decided, none
 * kept). The lowest undecided box always decides, so this is greedy; the
 * rounds are the longest suppression chain in the block, not its keeps.
 * One barrier per step; 100000 boxes: 1563 steps. */
__global__ void __launch_bounds__(kWalkThreads)
    walk_blocks_kernel(const u64 *mask, const u64 *diag_col, int n, int words, int cap,
                       const int *order, int *keep, int *count) {
    extern __shared__ u64 removed[];
    __shared__ unsigned char kept_rows[2][64];
    __shared__ int kept_count[2], total;
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    for (int w = t; w < words; w += kWalkThreads) removed[w] = 0;
    if (t == 0) kept_count[0] = kept_count[1] = 0;
    u64 c0, c1, p0, p1, carry = 0;
    int nk = 0;
    if (warp == 0) load_panel(mask, diag_col, n, words, 0, lane, c0, c1, p0, p1);
    __syncthreads();
    for (int j = 0; j < words; j++) {
        int done = 0;
        if (warp == 0) {
            u64 nc0, nc1, np0, np1;
            load_panel(mask, diag_col, n, words, j + 1, lane, nc0, nc1, np0, np1);
            int valid = min(64, n - 64 * j);
            u64 decided = removed[j] | carry | (valid < 64 ? ~0ull << valid : 0ull), kb = 0;
            while (~decided) {
                u64 open = ~decided;
                bool u0 = (open >> lane) & 1, u1 = (open >> (lane + 32)) & 1;
                bool r0 = u0 && (c0 & kb), r1 = u1 && (c1 & kb);
                bool k0 = u0 && !r0 && !(c0 & open), k1 = u1 && !r1 && !(c1 & open);
                u64 k_lo = __ballot_sync(kFull, k0), k_hi = __ballot_sync(kFull, k1);
                u64 d_lo = __ballot_sync(kFull, k0 || r0), d_hi = __ballot_sync(kFull, k1 || r1);
                kb |= k_lo | k_hi << 32;
                decided |= d_lo | d_hi << 32;
            }
            int take = __popcll(kb);
            if (nk + take > cap) {
                u64 beyond = kb;
                for (int q = 0; q < cap - nk; q++) beyond &= beyond - 1;
                kb &= ~beyond;
                take = cap - nk;
            }
            for (int b = lane; b < 64; b += 32)
                if ((kb >> b) & 1) {
                    int pos = __popcll(kb & ((1ull << b) - 1));
                    kept_rows[j & 1][pos] = (unsigned char)b;
                    keep[nk + pos] = 64 * j + b;
                }
            nk += take;
            u64 c = (((kb >> lane) & 1) ? p0 : 0) | (((kb >> (lane + 32)) & 1) ? p1 : 0);
            for (int o = 16; o; o >>= 1) c |= __shfl_xor_sync(kFull, c, o);
            carry = c;
            if (lane == 0) kept_count[j & 1] = take;
            c0 = nc0, c1 = nc1, p0 = np0, p1 = np1;
            done = nk >= cap;
        } else if (j > 0) {
            /* Items (k, col): kept row k of block j-1 at word j + 1 + col.
             * Worker w starts at item w and strides by kWorkers items. */
            const unsigned char *rows = kept_rows[(j - 1) & 1];
            int span = words - j - 1, kept = kept_count[(j - 1) & 1];
            if (span > 0 && kept > 0) {
                const u64 *base = mask + (size_t)64 * (j - 1) * words + j + 1;
                int w = t - 32, k = w / span, col = w - k * span;
                int dk = kWorkers / span, dc = kWorkers - dk * span;
                while (k < kept) {
                    u64 v[kLoadsInFlight];
                    int at[kLoadsInFlight];
#pragma unroll
                    for (int u = 0; u < kLoadsInFlight; u++) {
                        at[u] = col;
                        v[u] = k < kept ? base[(size_t)rows[k] * words + col] : 0;
                        col += dc, k += dk;
                        if (col >= span) col -= span, k++;
                    }
#pragma unroll
                    for (int u = 0; u < kLoadsInFlight; u++)
                        if (v[u]) atomicOr(&removed[j + 1 + at[u]], v[u]);
                }
            }
        }
        if (__syncthreads_or(done)) break;
    }
    if (t == 0) total = nk;
    __syncthreads();
    for (int k = t; order && k < total; k += kWalkThreads) keep[k] = order[keep[k]];
    if (t == 0) *count = total;
}

cudaError_t build_masks(const float4 *boxes, const int *classes, int n, float iou, u64 *mask,
                        u64 *diag_col, cudaStream_t s) {
    if (n <= 0) return cudaSuccess;
    int words = words_of(n), tiles = words >= 256 ? 4 : 1;
    dim3 grid((words + tiles - 1) / tiles, words);
    if (classes)
        mask_kernel<true><<<grid, 64, 0, s>>>(boxes, classes, n, words, tiles, iou, mask, diag_col);
    else
        mask_kernel<false><<<grid, 64, 0, s>>>(boxes, NULL, n, words, tiles, iou, mask, diag_col);
    return cudaGetLastError();
}

typedef void (*walk_kernel)(const u64 *, const u64 *, int, int, int, const int *, int *, int *);

cudaError_t launch_walk(walk_kernel kernel, int threads, const u64 *mask, const u64 *diag_col,
                        int n, int cap, const int *order, int *keep, int *count, cudaStream_t s) {
    int words = words_of(n);
    size_t smem = (size_t)words * sizeof(u64);
    if (smem > 48 * 1024) {
        cudaError_t rc =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (rc != cudaSuccess) return rc;
    }
    kernel<<<1, threads, smem, s>>>(mask, diag_col, n, words, cap, order, keep, count);
    return cudaGetLastError();
}

/* Sorted boxes -> masks -> walk; n = 0 writes count 0. */
cudaError_t nms_sorted_masks(walk_kernel kernel, int threads, const float4 *boxes,
                             const int *classes, int n, float iou, int max_out, const int *order,
                             int *keep, int *count, void *ws, cudaStream_t s) {
    if (n <= 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    u64 *mask = (u64 *)ws, *diag_col = mask + (size_t)n * words_of(n);
    kb_nvtx_push("mask");
    cudaError_t rc = build_masks(boxes, classes, n, iou, mask, diag_col, s);
    kb_nvtx_pop();
    if (rc != cudaSuccess) return rc;
    kb_nvtx_push("walk");
    rc = launch_walk(kernel, threads, mask, diag_col, n, cap_of(n, max_out), order, keep, count, s);
    kb_nvtx_pop();
    return rc;
}

} // namespace

size_t kb_nms_mask_bytes(int n) {
    return (size_t)n * words_of(n) * sizeof(u64);
}

/* Masks for the bitmask walks, then the diagonal tiles' column words (n);
 * fast NMS needs n bytes, less than the mask. */
size_t kb_nms_sorted_workspace(int n) {
    return n > 0 ? kb_nms_mask_bytes(n) + (size_t)n * sizeof(u64) : 256;
}

cudaError_t kb_nms_build_masks(const float4 *boxes_sorted, const int *classes_sorted, int n,
                               float iou, u64 *mask, cudaStream_t stream) {
    return build_masks(boxes_sorted, classes_sorted, n, iou, mask, NULL, stream);
}

cudaError_t kb_nms_sorted_bitmask_gpu(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                      float iou, int max_out, const int *order, int *keep_out,
                                      int *count_out, void *workspace, size_t ws_bytes,
                                      cudaStream_t stream) {
    if (ws_bytes < kb_nms_sorted_workspace(n)) return cudaErrorInvalidValue;
    return nms_sorted_masks(walk_boxes_kernel, 1024, boxes_sorted, classes_sorted, n, iou, max_out,
                            order, keep_out, count_out, workspace, stream);
}

cudaError_t kb_nms_sorted_blockwalk(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                    float iou, int max_out, const int *order, int *keep_out,
                                    int *count_out, void *workspace, size_t ws_bytes,
                                    cudaStream_t stream) {
    if (ws_bytes < kb_nms_sorted_workspace(n)) return cudaErrorInvalidValue;
    return nms_sorted_masks(walk_blocks_kernel, kWalkThreads, boxes_sorted, classes_sorted, n, iou,
                            max_out, order, keep_out, count_out, workspace, stream);
}

/* ---- the variants ---- */

namespace {

/* The walks keep the removed bits of all boxes in shared memory (8 bytes per
 * 64 boxes), at most 227 KB on sm_90: 1.8M boxes. The mask is n^2/8 bytes. */
int masks_supports(const kb_case *c, kb_error *why) {
    int64_t n = kb_int(c, "n");
    int64_t smem = (n + 63) / 64 * 8, limit = 227 * 1024;
    if (smem > limit)
        return kb_fail(why, "the walk's removed bits need %lld bytes of shared memory > %lld",
                       (long long)smem, (long long)limit),
               KB_UNSUPPORTED;
    return KB_OK;
}

size_t device_walk_bytes(const kb_case *c) {
    return kb_nms_sorted_state_bytes(c);
}

int device_walk_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
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

void device_walk_teardown(void *state) {
    kb_nms_sorted *st = (kb_nms_sorted *)state;
    kb_nms_sorted_free(st);
    free(st);
}

template <walk_kernel kKernel, int kThreads>
int device_walk_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
                    kb_error *e) {
    kb_nms_sorted *st = (kb_nms_sorted *)state;
    if (kb_nms_sorted_fill(st, dev_in, s, e) != KB_OK) return KB_ERR;
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    return kb_cuda_check(nms_sorted_masks(kKernel, kThreads, st->boxes, st->classes, st->n, st->iou,
                                          st->max_out, st->order, keep, count, st->nms_ws, s),
                         "nms masks + walk", e);
}

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

extern "C" const kb_variant_impl kb_nms_bitmask_host = {
    masks_supports, device_walk_bytes, host_walk_setup, host_walk_run, host_walk_teardown};
extern "C" const kb_variant_impl kb_nms_bitmask_gpu = {
    masks_supports, device_walk_bytes, device_walk_setup, device_walk_run<walk_boxes_kernel, 1024>,
    device_walk_teardown};
extern "C" const kb_variant_impl kb_nms_blockwalk = {
    masks_supports, device_walk_bytes, device_walk_setup,
    device_walk_run<walk_blocks_kernel, kWalkThreads>, device_walk_teardown};
