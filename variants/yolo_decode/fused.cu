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
#include "../common/variant_def.h"

#include <stdlib.h>

using namespace kb_yolo;

namespace {

__global__ void __launch_bounds__(kThreads)
    fused(const float *pred, const float *d2i, kb_yolo_params p, u64 *cand_ws, int *cls_ws,
          u64 *mask_ws, int *count, float *dets) {
    extern __shared__ __align__(16) unsigned char smem[];
    fused_image(smem, pred, d2i, p, blockIdx.x, cand_ws, cls_ws, mask_ws, count, dets);
}

struct state : host_state {
    u64 *cand, *mask;
    int *cls;
};

size_t layout(const kb_yolo_params &p, state *st, void *base) {
    carver c = {(unsigned char *)base, 0};
    u64 *cand = (u64 *)c.take((size_t)p.b * p.n * 8);
    int *cls = (int *)c.take((size_t)p.b * p.n * 4);
    u64 *mask = (u64 *)c.take(mask_bytes(p.b, p.max_det));
    if (st) {
        st->cand = cand;
        st->cls = cls;
        st->mask = mask;
    }
    return c.used;
}

size_t workspace(const kb_case *c) {
    return layout(kb_yolo_params_of(c), nullptr, nullptr);
}

int setup(const kb_case *c, const kb_tensors *dev_in, void **out, kb_error *e) {
    (void)dev_in;
    return setup_state<state>(c, fused, layout, out, e);
}

int run(void *state_ptr, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    state *st = (state *)state_ptr;
    io t = io_of(dev_in, dev_out);
    kb_nvtx_push("fused");
    fused<<<st->p.b, kThreads, stage_smem_bytes(st->p.max_det), stream>>>(
        t.pred, t.d2i, st->p, st->cand, st->cls, st->mask, t.count, t.dets);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "fused", e);
}

} // namespace

KB_DEFINE_VARIANT(yolo_decode, fused_batch) = {stage_fits, workspace, setup, run, free_state};
