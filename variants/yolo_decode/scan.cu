/* scan.cu — scan_greedy: deterministic compaction with CUB, exactly the
 * max_det best candidates when more qualify, greedy NMS per image.
 *
 *   decode   one thread per prediction: its key, or kNone (and a count per image)
 *   select   cub::DeviceSelect::If over the batch: qualifying keys, in index order
 *   sort     cub::DeviceSegmentedRadixSort, one segment per image (device offsets)
 *   nms      one block per image: the first min(count, max_det) keys -> greedy
 *            NMS in the block (yolo_device.cuh) -> count and dets
 */
#include "yolo_device.cuh"
#include "../common/variant_def.h"

#include <cub/cub.cuh>
#include <stdlib.h>

using namespace kb_yolo;

namespace {

constexpr int kDecodeThreads = 256;

__global__ void __launch_bounds__(kDecodeThreads)
    decode_all(const float *pred, kb_yolo_params p, int *counts, u64 *keys) {
    int img = blockIdx.y, i = blockIdx.x * kDecodeThreads + threadIdx.x;
    if (i >= p.n) return;
    u64 key = kNone;
    bool q = decode_key(pred, p, img, i, &key);
    keys[(size_t)img * p.n + i] = key;
    unsigned ballot = __ballot_sync(__activemask(), q);
    int lane = threadIdx.x & 31;
    if (q && lane == __ffs(ballot) - 1) atomicAdd(&counts[img], __popc(ballot));
}

/* Segment offsets of the compacted keys (images in order). */
__global__ void offsets(const int *counts, int b, int *begin, int *end) {
    if (threadIdx.x != 0) return;
    int at = 0;
    for (int img = 0; img < b; img++) {
        begin[img] = at;
        at += counts[img];
        end[img] = at;
    }
}

struct qualifies {
    __device__ bool operator()(const u64 &k) const { return k != kNone; }
};

__global__ void __launch_bounds__(kThreads)
    greedy_stage(const float *pred, const float *d2i, kb_yolo_params p, const int *counts,
                 const int *begin, const u64 *sorted, u64 *mask_ws, int *count, float *dets) {
    extern __shared__ __align__(16) unsigned char smem[];
    stage_smem s = carve(smem, p.max_det);
    int img = blockIdx.x;
    int m = min(counts[img], p.max_det);
    const u64 *mine = sorted + begin[img];
    for (int r = threadIdx.x; r < m; r += blockDim.x) s.keys[r] = mine[r];
    __syncthreads();
    finish_image<false>(s, m, pred, d2i, p, img, nullptr, mask_ws, count, dets);
}

struct state : host_state {
    int *counts, *begin, *end, *selected;
    u64 *keys, *compact, *sorted, *mask;
    void *temp;
    size_t temp_bytes;
};

size_t layout(const kb_yolo_params &p, state *st, void *base) {
    carver c = {(unsigned char *)base, 0};
    size_t items = (size_t)p.b * p.n, select_bytes = 0, sort_bytes = 0;
    cub::DeviceSelect::If(nullptr, select_bytes, (const u64 *)nullptr, (u64 *)nullptr,
                          (int *)nullptr, (int)items, qualifies());
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, sort_bytes, (const u64 *)nullptr,
                                            (u64 *)nullptr, (int)items, p.b, (const int *)nullptr,
                                            (const int *)nullptr, 0, 64);
    size_t temp = select_bytes > sort_bytes ? select_bytes : sort_bytes;
    state s = {};
    s.counts = (int *)c.take((size_t)p.b * 4);
    s.begin = (int *)c.take((size_t)p.b * 4);
    s.end = (int *)c.take((size_t)p.b * 4);
    s.selected = (int *)c.take(4);
    s.keys = (u64 *)c.take(items * 8);
    s.compact = (u64 *)c.take(items * 8);
    s.sorted = (u64 *)c.take(items * 8);
    s.mask = (u64 *)c.take(mask_bytes(p.b, p.max_det));
    s.temp = c.take(temp);
    s.temp_bytes = temp;
    if (st) {
        s.p = st->p;
        s.base = st->base;
        *st = s;
    }
    return c.used;
}

size_t workspace(const kb_case *c) {
    return layout(kb_yolo_params_of(c), nullptr, nullptr);
}

int setup(const kb_case *c, const kb_tensors *dev_in, void **out, kb_error *e) {
    (void)dev_in;
    return setup_state<state>(c, greedy_stage, layout, out, e);
}

int run(void *state_ptr, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    state *st = (state *)state_ptr;
    const kb_yolo_params &p = st->p;
    io t = io_of(dev_in, dev_out);
    int items = p.b * p.n;
    KB_CUDA_TRY(cudaMemsetAsync(st->counts, 0, (size_t)p.b * 4, stream), e);
    kb_nvtx_push("decode");
    dim3 grid((p.n + kDecodeThreads - 1) / kDecodeThreads, p.b);
    decode_all<<<grid, kDecodeThreads, 0, stream>>>(t.pred, p, st->counts, st->keys);
    kb_nvtx_pop();
    KB_CUDA_TRY(cudaGetLastError(), e);
    kb_nvtx_push("select");
    size_t temp = st->temp_bytes;
    KB_CUDA_TRY(cub::DeviceSelect::If(st->temp, temp, st->keys, st->compact, st->selected, items,
                                      qualifies(), stream),
                e);
    offsets<<<1, 32, 0, stream>>>(st->counts, p.b, st->begin, st->end);
    kb_nvtx_pop();
    KB_CUDA_TRY(cudaGetLastError(), e);
    kb_nvtx_push("sort");
    temp = st->temp_bytes;
    KB_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortKeys(st->temp, temp, st->compact, st->sorted,
                                                        items, p.b, st->begin, st->end, 0, 64,
                                                        stream),
                e);
    kb_nvtx_pop();
    kb_nvtx_push("nms");
    greedy_stage<<<p.b, kThreads, stage_smem_bytes(p.max_det), stream>>>(
        t.pred, t.d2i, p, st->counts, st->begin, st->sorted, st->mask, t.count, t.dets);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "greedy_stage", e);
}

} // namespace

KB_DEFINE_VARIANT(yolo_decode, scan_greedy) = {stage_fits, workspace, setup, run, free_state};
