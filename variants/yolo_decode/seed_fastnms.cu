/* seed_fastnms.cu — the common "decode + fast_nms_kernel" YOLO port, as it
 * ships: per image a decode kernel appends each qualifying prediction with
 * atomicAdd to an unsorted array whose first element is the count, a FLOAT
 * (the ports' `int index = atomicAdd(parray, 1)` on a float*), each element
 * 7 floats (left, top, right, bottom, confidence, label, keep flag); then
 * fast_nms_kernel, a thread per element: it compares with every other
 * element of its class and clears its own keep flag when one of higher
 * confidence overlaps it above iou — suppressed or not; between equal
 * confidences the element in the higher slot wins (the ports skip an equal
 * one in a lower slot).
 *
 * The ports hand the array to the host; here one block per image sorts the
 * kept elements by confidence (ties: slot) into the op's count and dets.
 * Nondeterministic and inexact: above its kb_variant_impl at the end.
 *
 *   kbench check yolo_decode -v seed_fastnms,atomic_fastnms --sweep smoke
 */
#include "yolo_device.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

using namespace kb_yolo;

namespace {

constexpr int kElem = 7;          /* left, top, right, bottom, confidence, label, keep */
constexpr int kPortThreads = 512; /* the ports' block */

__host__ __device__ inline size_t array_floats(int max_det) {
    return 1 + (size_t)max_det * kElem;
}

/* decode_kernel: one thread per prediction of image img. */
__global__ void seed_decode(const float *pred, const float *d2i, kb_yolo_params p, int img,
                            float *parray) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    const float *row = row_of(pred, p, img, i);
    float score;
    int cls;
    if (!kb_yolo_score(row, p.c, p.conf, &score, &cls)) return;
    int index = (int)atomicAdd(parray, 1.0f); /* exact below 2^24 predictions */
    if (index >= p.max_det) return;
    float box[4];
    kb_yolo_box(row, d2i + 6 * img, p.src_w, p.src_h, box);
    float *o = parray + 1 + (size_t)index * kElem;
    o[0] = box[0];
    o[1] = box[1];
    o[2] = box[2];
    o[3] = box[3];
    o[4] = score;
    o[5] = (float)cls;
    o[6] = 1.0f;
}

/* fast_nms_kernel: only element `position` writes its keep flag; the others'
 * flags are never read, so the threads need no order. */
__global__ void seed_fast_nms(float *bboxes, int max_det, float thr) {
    int position = blockIdx.x * blockDim.x + threadIdx.x;
    int count = min((int)bboxes[0], max_det);
    if (position >= count) return;
    float *cur = bboxes + 1 + (size_t)position * kElem;
    for (int i = 0; i < count; i++) {
        const float *it = bboxes + 1 + (size_t)i * kElem;
        if (i == position || it[5] != cur[5]) continue;
        if (it[4] >= cur[4]) {
            if (it[4] == cur[4] && i < position) continue;
            if (kb_nms_iou(it[0], it[1], it[2], it[3], cur[0], cur[1], cur[2], cur[3]) > thr) {
                cur[6] = 0.0f;
                return;
            }
        }
    }
}

/* Image blockIdx.x's kept elements by confidence, ties by slot (one key
 * each, kb_yolo_key with the slot as index), the first max_out into dets.
 * Dynamic shared memory: pow2_at_least(max_det) keys. */
__global__ void __launch_bounds__(kThreads)
    seed_collect(const float *arrays, kb_yolo_params p, int *count, float *dets) {
    extern __shared__ u64 keys[];
    __shared__ int kept;
    int img = blockIdx.x;
    const float *arr = arrays + (size_t)img * array_floats(p.max_det);
    int m = min((int)arr[0], p.max_det);
    if (threadIdx.x == 0) kept = 0;
    __syncthreads();
    for (int s = threadIdx.x; s < m; s += blockDim.x) {
        const float *e = arr + 1 + (size_t)s * kElem;
        if (e[6] != 0.0f) keys[atomicAdd(&kept, 1)] = kb_yolo_key(e[4], (uint32_t)s);
    }
    __syncthreads();
    int k = kept;
    block_sort(keys, k, nullptr); /* the looped sort: no scratch beside the keys */
    int nk = min(k, p.max_out);
    float *out = dets + (size_t)img * p.max_out * 6;
    for (int t = threadIdx.x; t < p.max_out * 6; t += blockDim.x) {
        int r = t / 6, j = t - 6 * r;
        out[t] = r < nk ? arr[1 + (size_t)(uint32_t)keys[r] * kElem + j] : 0.0f;
    }
    if (threadIdx.x == 0) count[img] = nk;
}

size_t seed_workspace(const kb_case *c) {
    kb_yolo_params p = kb_yolo_params_of(c);
    return (size_t)p.b * array_floats(p.max_det) * sizeof(float);
}

int seed_supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK; /* max_det <= 4096: 32 KB of keys; n <= 1e6 counts exactly in a float */
}

int seed_setup(const kb_case *c, const kb_tensors *dev_in, void **out, kb_error *e) {
    (void)dev_in;
    *out = nullptr;
    host_state *st = (host_state *)calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "yolo_decode: out of host memory");
    st->p = kb_yolo_params_of(c);
    if (cudaMalloc(&st->base, seed_workspace(c)) != cudaSuccess) {
        cudaGetLastError();
        free(st);
        kb_fail(e, "yolo_decode seed_fastnms: %zu bytes of candidate arrays", seed_workspace(c));
        return KB_OUT_OF_MEMORY;
    }
    *out = st;
    return KB_OK;
}

int seed_run(void *state_ptr, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
             kb_error *e) {
    host_state *st = (host_state *)state_ptr;
    const kb_yolo_params &p = st->p;
    io t = io_of(dev_in, dev_out);
    float *arrays = (float *)st->base;
    /* as the ports run a batch: image by image, the count reset, decode, NMS */
    for (int img = 0; img < p.b; img++) {
        float *arr = arrays + (size_t)img * array_floats(p.max_det);
        KB_CUDA_TRY(cudaMemsetAsync(arr, 0, sizeof(float), stream), e);
        kb_nvtx_push("decode");
        seed_decode<<<(p.n + kPortThreads - 1) / kPortThreads, kPortThreads, 0, stream>>>(
            t.pred, t.d2i, p, img, arr);
        kb_nvtx_pop();
        KB_CUDA_TRY(cudaGetLastError(), e);
        kb_nvtx_push("nms");
        seed_fast_nms<<<(p.max_det + kPortThreads - 1) / kPortThreads, kPortThreads, 0, stream>>>(
            arr, p.max_det, p.iou);
        kb_nvtx_pop();
        KB_CUDA_TRY(cudaGetLastError(), e);
    }
    kb_nvtx_push("sort");
    seed_collect<<<p.b, kThreads, (size_t)pow2_at_least(p.max_det) * sizeof(u64), stream>>>(
        arrays, p, t.count, t.dets);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "seed_collect", e);
}

} // namespace

/* Which max_det predictions get a slot when more qualify, and how ties
 * resolve, follow the atomic arrival order: KB_NONDETERMINISTIC; fast NMS:
 * KB_INEXACT (kernels/yolo_decode.c judges it by the fast-NMS rule under the
 * order it chose). Boxes, scores and IoU are the op's (kb_yolo_box clipped to
 * the source image as kbench's contract says; kb_nms_iou). */
KB_DEFINE_VARIANT(yolo_decode, seed_fastnms) = {seed_supports, seed_workspace, seed_setup, seed_run,
                                                free_state};
