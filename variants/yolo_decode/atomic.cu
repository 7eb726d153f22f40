/* atomic.cu — the common GPU YOLO decoder: predictions scored a warp at a
 * time, the qualifying ones appended with atomicAdd (unordered) to `cap`
 * slots per image, then per image the slots sorted by key (so any append
 * order gives the same result) and:
 *
 *   atomic_fastnms   cap max_det (when more qualify, which ones get a slot
 *                    depends on the run: KB_NONDETERMINISTIC); fast NMS in
 *                    the block (KB_INEXACT)
 *   atomic_bitmask   cap max_det; boxes padded to max_det per image, the nms
 *                    op's blockwalk greedy NMS launched per image
 *   atomic_greedy    cap n: every candidate has a slot, the top max_det are
 *                    selected exactly; block greedy NMS (exact, deterministic)
 */
#include "../common/nms_device.cuh"
#include "yolo_device.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

using namespace kb_yolo;

namespace {

constexpr int kDecodeThreads = 256;

/* A thread per prediction reads its objectness; the warp scores the ones
 * that pass together (score_warp: 32 classes a load, not a thread's chain
 * of c loads). A qualifying prediction takes a slot of its image's `cap`
 * (the count still counts those past it) and leaves its class in cls_of. */
__global__ void __launch_bounds__(kDecodeThreads)
    decode_atomic(const float *pred, kb_yolo_params p, int cap, int *counts, u64 *slots,
                  int *cls_of) {
    const int img = blockIdx.y, i = blockIdx.x * kDecodeThreads + threadIdx.x;
    const float obj = i < p.n ? row_of(pred, p, img, i)[4] : -1.0f;
    score_warp(pred, p, img, i - (int)(threadIdx.x & 31), obj, [&](int j, float sc, int k) {
        const int slot = atomicAdd(&counts[img], 1);
        if (slot < cap) slots[(size_t)img * cap + slot] = kb_yolo_key(sc, (uint32_t)j);
        cls_of[(size_t)img * p.n + j] = k;
    });
}

/* Load this image's slots into shared memory and sort them; returns m. */
__device__ int load_sorted(const stage_smem &s, const kb_yolo_params &p, int img, const int *counts,
                           const u64 *slots) {
    int m = min(counts[img], p.max_det);
    for (int r = threadIdx.x; r < m; r += blockDim.x)
        s.keys[r] = slots[(size_t)img * p.max_det + r];
    block_sort(s.keys, m, stage_scratch());
    return m;
}

__global__ void __launch_bounds__(kThreads)
    fast_stage(const float *pred, const float *d2i, kb_yolo_params p, const int *counts,
               const u64 *slots, const int *cls_of, int *count, float *dets) {
    extern __shared__ __align__(16) unsigned char smem[];
    stage_smem s = carve(smem, p.max_det);
    int img = blockIdx.x;
    int m = load_sorted(s, p, img, counts, slots);
    finish_image<true>(s, m, pred, d2i, p, img, cls_of, nullptr, count, dets);
}

/* Sorted, padded boxes, classes and keys for the nms op's launchers. */
__global__ void __launch_bounds__(kThreads)
    pad_stage(const float *pred, const float *d2i, kb_yolo_params p, const int *counts,
              const u64 *slots, const int *cls_of, float4 *boxes, int *classes, u64 *keys) {
    extern __shared__ __align__(16) unsigned char smem[];
    stage_smem s = carve(smem, p.max_det);
    int img = blockIdx.x;
    int m = load_sorted(s, p, img, counts, slots);
    load_candidates(s, m, pred, d2i, p, img, cls_of);
    size_t off = (size_t)img * p.max_det;
    for (int r = threadIdx.x; r < p.max_det; r += blockDim.x) {
        boxes[off + r] = r < m ? s.boxes[r] : make_float4(0, 0, 0, 0);
        classes[off + r] = r < m ? s.cls[r] : 0;
        keys[off + r] = r < m ? s.keys[r] : kNone;
    }
}

/* Keep lists of ranks (real candidates first, padding after) -> dets. */
__global__ void finalize(kb_yolo_params p, const int *counts, const int *keep, const int *nk_dev,
                         const float4 *boxes, const int *classes, const u64 *keys, int *count,
                         float *dets) {
    int img = blockIdx.x;
    int m = min(counts[img], p.max_det), cap = min(p.max_out, p.max_det);
    int nk = min(nk_dev[img], cap);
    const int *kp = keep + (size_t)img * cap;
    float *out = dets + (size_t)img * p.max_out * 6;
    size_t off = (size_t)img * p.max_det;
    for (int k = threadIdx.x; k < p.max_out; k += blockDim.x) {
        int r = k < nk ? kp[k] : m;
        float v[6] = {0, 0, 0, 0, 0, 0};
        if (r < m) {
            float4 b = boxes[off + r];
            v[0] = b.x;
            v[1] = b.y;
            v[2] = b.z;
            v[3] = b.w;
            v[4] = kb_yolo_key_score(keys[off + r]);
            v[5] = (float)classes[off + r];
        }
        for (int j = 0; j < 6; j++) out[6 * k + j] = v[j];
    }
    /* Real keeps are a prefix: count the ranks below m. */
    __shared__ int real;
    if (threadIdx.x == 0) real = 0;
    __syncthreads();
    int mine = 0;
    for (int k = threadIdx.x; k < nk; k += blockDim.x) mine += kp[k] < m;
    atomicAdd(&real, mine);
    __syncthreads();
    if (threadIdx.x == 0) count[img] = real;
}

/* atomic_greedy's stage: the exact top max_det of the image's slots (all its
 * candidates), sorted; block greedy NMS; count and dets. Image blockIdx.x /
 * parts: with parts > 1 a cluster of that many blocks, each selecting,
 * sorting and loading the same candidates, splits the mask build
 * (greedy_nms), and its block 0 walks and writes. rows_at: where the mask
 * rows start in the dynamic shared memory when they are walked there, else
 * 0 (the mask in mask_ws). */
__global__ void __launch_bounds__(kThreads)
    greedy_stage(const float *pred, const float *d2i, kb_yolo_params p, int parts, size_t rows_at,
                 int *counts, const u64 *slots, const int *cls_of, u64 *mask_ws, int *count,
                 float *dets) {
    extern __shared__ __align__(16) unsigned char smem[];
    stage_smem s = carve(smem, p.max_det);
    u64 *rows = rows_at ? (u64 *)(smem + rows_at) : nullptr;
    const int img = blockIdx.x / parts, part = blockIdx.x - img * parts;
    if (rows && parts > 1) kb_cluster_arrive_relaxed(); /* waited on before block 0's rows */
    const int m = take_top(s, slots + (size_t)img * p.n, counts[img], p.max_det);
    block_sort(s.keys, m, stage_scratch());
    load_candidates(s, m, pred, d2i, p, img, cls_of);
    const int nk = greedy_nms(s, m, p.iou, p.max_out,
                              mask_ws + (size_t)img * (size_t)p.max_det * words_of(p.max_det), rows,
                              part, parts);
    if (nk < 0) return;
    /* Every block of the image read its count before greedy_nms's barrier:
     * zeroed for the next run (setup zeroes them first), no memset launch. */
    if (threadIdx.x == 0) counts[img] = 0;
    write_dets(s, nk, p, img, count, dets, rows ? kb_shared_walk::kRoleThreads : kThreads);
}

/* Where atomic_greedy's stage puts the mask rows in its dynamic shared
 * memory: after the stage's arrays, 16-byte aligned. */
size_t rows_offset(int max_det) {
    return (stage_smem_bytes(max_det) + 15) / 16 * 16;
}

/* The stage's dynamic shared memory with the mask rows walked there
 * (max_det <= 1024: 128 KB of rows at 1024), with the kernel's attribute
 * raised to it; 0 where they do not fit this device's per-block opt-in (the
 * mask then stays in global memory, walked by warp 0). */
size_t greedy_rows_smem(int max_det) {
    const kb_gpu *g = kb_gpu_current();
    cudaFuncAttributes a;
    if (max_det > 64 * kSmemWalkWords || !g ||
        cudaFuncGetAttributes(&a, greedy_stage) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    const size_t bytes = rows_offset(max_det) + smem_rows_bytes(max_det);
    if (bytes + a.sharedSizeBytes > g->smem_optin ||
        cudaFuncSetAttribute(greedy_stage, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)bytes) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return bytes;
}

/* Blocks a cluster for atomic_greedy's stage: the most (8, 4, 2) whose
 * clusters of 1024-thread blocks can all be resident at once for b images,
 * as the device reports (cudaOccupancyMaxActiveClusters); 1 (no cluster)
 * before 9.0 or when none fits. At b = 1 on an H100: 8. */
int greedy_parts(int b, size_t smem) {
    if (kb_gpu_require(KB_CC_CLUSTERS, "thread block clusters", nullptr) != KB_OK) return 1;
    for (int parts = 8; parts > 1; parts /= 2) {
        kb_cluster_config probe;
        kb_cluster_config_fill(&probe, dim3((unsigned)(b * parts)), kThreads, smem, parts, 0);
        int clusters = 0;
        const cudaError_t err = cudaOccupancyMaxActiveClusters(&clusters, greedy_stage, &probe.cfg);
        cudaGetLastError();
        if (err == cudaSuccess && clusters >= b) return parts;
    }
    return 1;
}

enum kind { kFastNms, kBitmask, kGreedy };

struct state : host_state {
    kind how;
    int cap;           /* slots per image */
    int parts;         /* atomic_greedy: blocks a cluster for an image's stage */
    size_t stage_smem; /* atomic_greedy: its stage's dynamic shared memory */
    size_t rows_at;    /* atomic_greedy: where the mask rows start in it, 0: the mask in
                        * global memory */
    int *counts, *cls_of, *keep, *nk;
    u64 *slots, *keys, *mask;
    float4 *boxes;
    int *classes;
    void *nms_ws;
    size_t nms_ws_bytes;
};

size_t layout(const kb_yolo_params &p, kind how, state *st, void *base) {
    carver c = {(unsigned char *)base, 0};
    const int cap = how == kGreedy ? p.n : p.max_det;
    int *counts = (int *)c.take((size_t)p.b * 4);
    u64 *slots = (u64 *)c.take((size_t)p.b * cap * 8);
    int *cls_of = (int *)c.take((size_t)p.b * p.n * 4);
    if (st) {
        st->how = how;
        st->cap = cap;
        st->counts = counts;
        st->slots = slots;
        st->cls_of = cls_of;
    }
    if (how == kFastNms) return c.used;
    if (how == kGreedy) {
        u64 *mask = (u64 *)c.take(mask_bytes(p.b, p.max_det));
        if (st) st->mask = mask;
        return c.used;
    }
    const int keep_cap = p.max_out < p.max_det ? p.max_out : p.max_det;
    size_t ws = kb_nms_sorted_workspace(p.max_det);
    int *keep = (int *)c.take((size_t)p.b * keep_cap * 4);
    int *nk = (int *)c.take((size_t)p.b * 4);
    u64 *keys = (u64 *)c.take((size_t)p.b * p.max_det * 8);
    float4 *boxes = (float4 *)c.take((size_t)p.b * p.max_det * 16);
    int *classes = (int *)c.take((size_t)p.b * p.max_det * 4);
    void *nms_ws = c.take(ws);
    if (st) {
        st->keep = keep;
        st->nk = nk;
        st->keys = keys;
        st->boxes = boxes;
        st->classes = classes;
        st->nms_ws = nms_ws;
        st->nms_ws_bytes = ws;
    }
    return c.used;
}

template <kind kHow> size_t workspace(const kb_case *c) {
    return layout(kb_yolo_params_of(c), kHow, nullptr, nullptr);
}

/* The three variants share the state; `how` picks the stages. */
template <kind kHow, class Kernel>
int setup(const kb_case *c, Kernel stage, void **out, kb_error *e) {
    auto carve_state = [](const kb_yolo_params &p, state *st, void *base) {
        return layout(p, kHow, st, base);
    };
    return setup_state<state>(c, stage, carve_state, out, e);
}
int fast_setup(const kb_case *c, const kb_tensors *, void **out, kb_error *e) {
    return setup<kFastNms>(c, fast_stage, out, e);
}
int bitmask_setup(const kb_case *c, const kb_tensors *, void **out, kb_error *e) {
    return setup<kBitmask>(c, pad_stage, out, e);
}
int greedy_setup(const kb_case *c, const kb_tensors *, void **out, kb_error *e) {
    const int rc = setup<kGreedy>(c, greedy_stage, out, e);
    if (rc == KB_OK) {
        state *st = (state *)*out;
        const size_t with_rows = greedy_rows_smem(st->p.max_det);
        st->stage_smem = with_rows ? with_rows : stage_smem_bytes(st->p.max_det);
        st->rows_at = with_rows ? rows_offset(st->p.max_det) : 0;
        st->parts = greedy_parts(st->p.b, st->stage_smem);
        if (cudaMemset(st->counts, 0, (size_t)st->p.b * 4) != cudaSuccess) {
            free_state(st);
            *out = nullptr;
            return kb_cuda_check(cudaGetLastError(), "cudaMemset(counts)", e);
        }
    }
    return rc;
}

int run(void *state_ptr, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    state *st = (state *)state_ptr;
    const kb_yolo_params &p = st->p;
    io t = io_of(dev_in, dev_out);
    size_t smem = stage_smem_bytes(p.max_det);
    /* atomic_greedy's stage zeroes the counts it has read */
    if (st->how != kGreedy) KB_CUDA_TRY(cudaMemsetAsync(st->counts, 0, (size_t)p.b * 4, stream), e);
    kb_nvtx_push("decode");
    dim3 grid((p.n + kDecodeThreads - 1) / kDecodeThreads, p.b);
    decode_atomic<<<grid, kDecodeThreads, 0, stream>>>(t.pred, p, st->cap, st->counts, st->slots,
                                                       st->cls_of);
    kb_nvtx_pop();
    KB_CUDA_TRY(cudaGetLastError(), e);
    if (st->how == kFastNms) {
        kb_nvtx_push("sort+nms");
        fast_stage<<<p.b, kThreads, smem, stream>>>(t.pred, t.d2i, p, st->counts, st->slots,
                                                    st->cls_of, t.count, t.dets);
        kb_nvtx_pop();
        return kb_cuda_check(cudaGetLastError(), "fast_stage", e);
    }
    if (st->how == kGreedy) {
        kb_nvtx_push("select+sort+nms");
        kb_cluster_config c;
        kb_cluster_config_fill(&c, dim3((unsigned)(p.b * st->parts)), kThreads, st->stage_smem,
                               st->parts > 1 ? st->parts : 0, stream);
        cudaError_t err = cudaLaunchKernelEx(&c.cfg, greedy_stage, t.pred, t.d2i, p, st->parts,
                                             st->rows_at, st->counts, (const u64 *)st->slots,
                                             (const int *)st->cls_of, st->mask, t.count, t.dets);
        kb_nvtx_pop();
        if (err != cudaSuccess) return kb_cuda_check(err, "greedy_stage", e);
        return kb_cuda_check(cudaGetLastError(), "greedy_stage", e);
    }
    kb_nvtx_push("sort");
    pad_stage<<<p.b, kThreads, smem, stream>>>(t.pred, t.d2i, p, st->counts, st->slots, st->cls_of,
                                               st->boxes, st->classes, st->keys);
    kb_nvtx_pop();
    KB_CUDA_TRY(cudaGetLastError(), e);
    int cap = p.max_out < p.max_det ? p.max_out : p.max_det;
    kb_nvtx_push("nms");
    for (int img = 0; img < p.b; img++) {
        size_t off = (size_t)img * p.max_det;
        KB_CUDA_TRY(kb_nms_sorted_blockwalk(st->boxes + off, st->classes + off, p.max_det, p.iou,
                                            p.max_out, nullptr, st->keep + (size_t)img * cap,
                                            st->nk + img, st->nms_ws, st->nms_ws_bytes, stream),
                    e);
    }
    kb_nvtx_pop();
    finalize<<<p.b, 256, 0, stream>>>(p, st->counts, st->keep, st->nk, st->boxes, st->classes,
                                      st->keys, t.count, t.dets);
    return kb_cuda_check(cudaGetLastError(), "finalize", e);
}

} // namespace

KB_DEFINE_VARIANT(yolo_decode, atomic_fastnms) = {stage_fits, workspace<kFastNms>, fast_setup, run,
                                                  free_state};
KB_DEFINE_VARIANT(yolo_decode, atomic_bitmask) = {stage_fits, workspace<kBitmask>, bitmask_setup,
                                                  run, free_state};
KB_DEFINE_VARIANT(yolo_decode, atomic_greedy) = {stage_fits, workspace<kGreedy>, greedy_setup, run,
                                                 free_state};
