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

__global__ void __launch_bounds__(kThreads)
    fused(const float *pred, const float *d2i, kb_yolo_params p, u64 *cand_ws, u64 *mask_ws,
          int *count, float *dets) {
    extern __shared__ __align__(16) unsigned char smem[];
    fused_image(smem, pred, d2i, p, blockIdx.x, cand_ws, mask_ws, count, dets);
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
