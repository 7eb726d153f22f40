/* rank_key.cuh — the nms ranking as one 64-bit key per box: unsigned
 * ascending key order is descending score, equal scores lower index first,
 * -0 ranked as +0 (CUB's float-to-unsigned mapping, the same ranking as its
 * stable descending radix sort); and the ranking of up to a block's worth of
 * boxes in one block. C++/CUDA only; sort.cu's sorts and blockwalk's one
 * launch use them. */
#ifndef KB_NMS_RANK_KEY_CUH
#define KB_NMS_RANK_KEY_CUH

#include "../common/block_bitonic.cuh"

__device__ __forceinline__ unsigned long long kb_nms_rank_key(float score, int index) {
    unsigned u = __float_as_uint(__fadd_rn(score, 0.0f)); /* -0 + 0 = +0 */
    u = (u & 0x80000000u) ? ~u : u | 0x80000000u;         /* ascending score */
    return (unsigned long long)~u << 32 | (unsigned)index;
}

/* n <= kSize boxes ranked by a block of kSize threads: thread t < n stages
 * box t (and its class, where classes is not NULL) in box[t] / cls[t] and the
 * block sorts the keys (kb_block_bitonic; key: its scratch). Returns rank t's
 * input index (t < n), the stage complete: box[i] and cls[i] may be read. */
template <int kSize>
__device__ __forceinline__ int kb_nms_block_rank(const float *scores, const float4 *boxes,
                                                 const int *classes, int n, float4 *box, int *cls,
                                                 unsigned long long (*key)[kSize]) {
    const int t = threadIdx.x;
    unsigned long long v = ~0ull;
    if (t < n) {
        v = kb_nms_rank_key(scores[t], t);
        box[t] = boxes[t];
        if (classes) cls[t] = classes[t];
    }
    v = kb_block_bitonic<kSize>(v, key);
    __syncthreads(); /* box[] and cls[] staged by every thread */
    return (int)(unsigned)v;
}

#endif
