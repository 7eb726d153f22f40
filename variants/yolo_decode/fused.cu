/* fused.cu — fused_batch: the whole batch in one launch, one block per
 * image, no host synchronisation (graph-capturable), deterministic.
 *
 * Per image: the block reads the objectness of kItems predictions per thread
 * at once, each warp scores the ones that pass together (32 classes a load),
 * and compacts their keys by a block scan
 * into shared memory (and into global workspace, in case more than max_det
 * qualify). When more than max_det qualify, an 8-pass block radix select over
 * the global keys finds the max_det-th key and the block gathers the keys at
 * or below it. Then: bitonic sort in shared memory, greedy NMS in the block
 * (yolo_device.cuh), count and dets.
 */
#include "yolo_device.cuh"

#include <stdlib.h>

using namespace kb_yolo;

namespace {

constexpr int kItems = 8;

__global__ void __launch_bounds__(kThreads)
    fused(const float *pred, const float *d2i, kb_yolo_params p, u64 *cand_ws, u64 *mask_ws,
          int *count, float *dets) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int gathered;
    stage_smem s = carve(smem, p.max_det);
    int img = blockIdx.x;
    u64 *cand = cand_ws + (size_t)img * p.n;
    int cnt = 0;
    for (int base = 0; base < p.n; base += kThreads * kItems) {
        float obj[kItems];
#pragma unroll
        for (int u = 0; u < kItems; u++) {
            int i = base + u * kThreads + threadIdx.x;
            obj[u] = i < p.n ? row_of(pred, p, img, i)[4] : -1.0f;
        }
        /* The warp scores each prediction that passes objectness together. */
        u64 keys[kItems];
        int mine = 0;
#pragma unroll
        for (int u = 0; u < kItems; u++) {
            unsigned todo = __ballot_sync(0xffffffffu, obj[u] >= p.conf);
            while (todo) {
                int lane = __ffs(todo) - 1;
                todo &= todo - 1;
                int i = base + u * kThreads + (threadIdx.x & ~31) + lane;
                float o = __shfl_sync(0xffffffffu, obj[u], lane), sc;
                int k;
                bool q = warp_score(row_of(pred, p, img, i), p.c, p.conf, o, &sc, &k);
                if (q && (int)(threadIdx.x & 31) == lane)
                    keys[mine++] = kb_yolo_key(sc, (uint32_t)i);
            }
        }
        int total, pos = cnt + block_exclusive_scan(mine, &total);
        for (int u = 0; u < mine; u++) {
            if (pos + u < p.max_det) s.keys[pos + u] = keys[u];
            cand[pos + u] = keys[u];
        }
        cnt += total;
    }
    int m = cnt;
    if (cnt > p.max_det) {
        __syncthreads(); /* the global keys visible to the block */
        u64 last = block_select(cand, cnt, p.max_det);
        if (threadIdx.x == 0) gathered = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
            u64 k = cand[i];
            if (k <= last) s.keys[atomicAdd(&gathered, 1)] = k;
        }
        m = p.max_det;
    }
    __syncthreads();
    block_sort(s.keys, m);
    finish_image<false>(s, m, pred, d2i, p, img, mask_ws, count, dets);
}

struct state {
    kb_yolo_params p;
    void *base;
    u64 *cand, *mask;
};

size_t layout(const kb_yolo_params &p, state *st, void *base) {
    carver c = {(unsigned char *)base, 0};
    u64 *cand = (u64 *)c.take((size_t)p.b * p.n * 8);
    u64 *mask = (u64 *)c.take(mask_bytes(p.b, p.max_det));
    if (st) {
        st->cand = cand;
        st->mask = mask;
    }
    return c.used;
}

int supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK;
}

size_t workspace(const kb_case *c) {
    return layout(kb_yolo_params_of(c), nullptr, nullptr);
}

int setup(const kb_case *c, const kb_tensors *dev_in, void **out, kb_error *e) {
    (void)dev_in;
    state *st = (state *)calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "yolo_decode fused_batch: out of host memory");
    st->p = kb_yolo_params_of(c);
    if (cudaMalloc(&st->base, layout(st->p, nullptr, nullptr)) != cudaSuccess) {
        cudaGetLastError();
        free(st);
        return KB_OUT_OF_MEMORY;
    }
    layout(st->p, st, st->base);
    if (kb_cuda_check(cudaFuncSetAttribute(fused, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)stage_smem_bytes(st->p.max_det)),
                      "cudaFuncSetAttribute(fused)", e) != KB_OK) {
        cudaFree(st->base);
        free(st);
        return KB_ERR;
    }
    *out = st;
    return KB_OK;
}

int run(void *state_ptr, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    state *st = (state *)state_ptr;
    const float *pred = (const float *)kb_tensors_get(dev_in, "pred")->data;
    const float *d2i = (const float *)kb_tensors_get(dev_in, "d2i")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    float *dets = (float *)kb_tensors_find(dev_out, "dets")->data;
    kb_nvtx_push("fused");
    fused<<<st->p.b, kThreads, stage_smem_bytes(st->p.max_det), stream>>>(
        pred, d2i, st->p, st->cand, st->mask, count, dets);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "fused", e);
}

void teardown(void *state_ptr) {
    state *st = (state *)state_ptr;
    if (!st) return;
    cudaFree(st->base);
    free(st);
}

} // namespace

extern "C" const kb_variant_impl kb_yolo_decode_fused_batch = {supports, workspace, setup, run,
                                                               teardown};
