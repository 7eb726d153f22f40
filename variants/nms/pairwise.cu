/* pairwise.cu — fast NMS (pairwise_fast): one thread per box against every
 * higher-ranked box of its class, suppressed or not — the kernel of the
 * common YOLO GPU decoders. Not greedy: it keeps a subset of greedy's keeps
 * (KB_INEXACT; checked against the fast-NMS reference).
 *
 * 256 boxes per block; the higher-ranked boxes stream through shared memory
 * 256 at a time, and a block stops after the tile where all its boxes are dropped.
 * A one-block scan then compacts the survivors in rank order.
 */
#include "kbench/variant.h"
#include "kbench/ops/nms.h"
#include "../common/nms_device.cuh"
#include "kbench/ops/nms_iou.h"
#include "../common/block_scan.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

namespace {

constexpr int kTile = 256, kScanThreads = 1024;

template <bool kClasses>
__global__ void __launch_bounds__(kTile)
    fast_kernel(const float4 *boxes, const int *classes, int n, float thr, unsigned char *dropped) {
    __shared__ float4 tile[kTile];
    __shared__ int tile_class[kTile];
    int t = threadIdx.x, i = blockIdx.x * kTile + t;
    float4 a = i < n ? boxes[i] : make_float4(0, 0, 0, 0);
    int a_class = kClasses && i < n ? classes[i] : 0;
    int drop = i >= n;
    for (int base = 0; base < blockIdx.x * kTile + kTile && base < n; base += kTile) {
        if (base + t < n) {
            tile[t] = boxes[base + t];
            if (kClasses) tile_class[t] = classes[base + t];
        }
        __syncthreads();
        /* The whole tile without an early exit: a break per box would chain
         * every IoU's latency behind the previous one's. */
        if (!drop) {
            int end = min(kTile, i - base), hit = 0;
            for (int k = 0; k < end; k++) {
                float4 b = tile[k];
                hit |= (!kClasses || tile_class[k] == a_class) &
                       kb_nms_iou_above(b.x, b.y, b.z, b.w, a.x, a.y, a.z, a.w, thr);
            }
            drop = hit;
        }
        if (__syncthreads_and(drop)) break;
    }
    if (i < n) dropped[i] = (unsigned char)drop;
}

/* Survivors in rank order: each thread counts then writes a contiguous run. */
__global__ void __launch_bounds__(kScanThreads)
    compact_kernel(const unsigned char *dropped, int n, int cap, const int *order, int *keep,
                   int *count) {
    int per = (n + kScanThreads - 1) / kScanThreads;
    int lo = min(n, threadIdx.x * per), hi = min(n, lo + per), mine = 0;
    for (int r = lo; r < hi; r++) mine += !dropped[r];
    int total, pos = kb_block_exclusive_scan<kScanThreads>(mine, &total);
    for (int r = lo; r < hi && pos < cap; r++)
        if (!dropped[r]) keep[pos++] = order ? order[r] : r;
    if (threadIdx.x == 0) *count = min(total, cap);
}

} // namespace

cudaError_t kb_nms_sorted_fast(const float4 *boxes_sorted, const int *classes_sorted, int n,
                               float iou, int max_out, const int *order, int *keep_out,
                               int *count_out, void *workspace, size_t ws_bytes,
                               cudaStream_t stream) {
    if (n <= 0) return cudaMemsetAsync(count_out, 0, sizeof(int), stream);
    if (ws_bytes < (size_t)n) return cudaErrorInvalidValue;
    unsigned char *dropped = (unsigned char *)workspace;
    int blocks = (n + kTile - 1) / kTile;
    kb_nvtx_push("pairwise");
    if (classes_sorted)
        fast_kernel<true>
            <<<blocks, kTile, 0, stream>>>(boxes_sorted, classes_sorted, n, iou, dropped);
    else
        fast_kernel<false><<<blocks, kTile, 0, stream>>>(boxes_sorted, NULL, n, iou, dropped);
    kb_nvtx_pop();
    int cap = max_out > 0 && max_out < n ? max_out : n;
    kb_nvtx_push("compact");
    compact_kernel<<<1, kScanThreads, 0, stream>>>(dropped, n, cap, order, keep_out, count_out);
    kb_nvtx_pop();
    return cudaGetLastError();
}

namespace {

/* Fast NMS needs n bytes of flags after the sort; nothing bounds it below
 * int32 boxes. */
int fast_supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK;
}

size_t fast_bytes(const kb_case *c) {
    return kb_nms_sorted_state_bytes(c);
}

int fast_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
             kb_error *e) {
    kb_nms_sorted *st = (kb_nms_sorted *)state;
    if (kb_nms_sorted_fill(st, dev_in, s, e) != KB_OK) return KB_ERR;
    return kb_cuda_check(kb_nms_sorted_fast(st->boxes, st->classes, st->n, st->iou, st->max_out,
                                            st->order,
                                            (int *)kb_tensors_find(dev_out, "keep")->data,
                                            (int *)kb_tensors_find(dev_out, "count")->data,
                                            st->nms_ws, st->nms_ws_bytes, s),
                         "nms fast (pairwise)", e);
}

} // namespace

KB_DEFINE_VARIANT(nms, pairwise_fast) = {fast_supports, fast_bytes, kb_nms_sorted_new, fast_run,
                                         kb_nms_sorted_delete};
