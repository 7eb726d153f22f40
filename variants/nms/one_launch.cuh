/* one_launch.cuh — the shape that nms/blockwalk and nms/rounds share for up
 * to 1024 boxes in one launch: every block of 1024 threads ranks all the
 * boxes itself, builds an even share of the 64x64 tiles' items from shared
 * memory into global memory, and counts itself finished; the last block to
 * finish reads what all of them wrote and decides the keeps. No block waits
 * on another, so the grid needs no co-residency. C++/CUDA only.
 */
#ifndef KB_NMS_ONE_LAUNCH_CUH
#define KB_NMS_ONE_LAUNCH_CUH

#include "rank_key.cuh"

namespace kb_nms_one_launch {

constexpr int kThreads = 1024, kItemLanes = kThreads / 64, kMaxWords = kThreads / 64;

/* The boxes in rank order in shared memory: box[r], cls[r] (kClasses) and
 * rank_to_input[r] for r < n. stage (kThreads boxes) and key (the sort's
 * scratch) may alias nothing the caller reads after; ends at a block barrier. */
template <bool kClasses>
__device__ __forceinline__ void rank_boxes(const float *scores, const float4 *boxes,
                                           const int *classes, int n, float4 *stage, int *stage_cls,
                                           unsigned long long (*key)[kThreads], float4 *box,
                                           int *cls, int *rank_to_input) {
    const int t = threadIdx.x;
    const int from = kb_nms_block_rank<kThreads>(scores, boxes, kClasses ? classes : nullptr, n,
                                                 stage, stage_cls, key);
    const float4 b = t < n ? stage[from] : make_float4(0, 0, 0, 0);
    const int c = kClasses && t < n ? stage_cls[from] : 0;
    __syncthreads(); /* every rank's box read from the stage */
    if (t < n) {
        box[t] = b, rank_to_input[t] = from;
        if (kClasses) cls[t] = c;
    }
    __syncthreads();
}

/* The block's share of the tiles' items: item i is entry i % 64 of tile
 * i / 64, the tiles (rb, cb >= rb) in row-major order; block b takes items
 * [b N / G, (b + 1) N / G), 64 a pass, kItemLanes lanes an item (the lanes
 * of an item alike call f(rb, cb, entry)). An even split: at 1000 boxes, 66
 * items a block, where whole tiles would give four blocks two tiles each
 * and the last block to finish waits on them. */
template <class F> __device__ __forceinline__ void for_block_items(int words, F f) {
    const int tiles = words * (words + 1) / 2;
    const long long items = 64ll * tiles;
    const int first = (int)(items * blockIdx.x / gridDim.x);
    const int end = (int)(items * (blockIdx.x + 1) / gridDim.x);
    for (int i = first + (int)threadIdx.x / kItemLanes; i < end; i += kThreads / kItemLanes) {
        int rb = 0, left = i / 64;
        while (left >= words - rb) left -= words - rb, rb++;
        f(rb, rb + left, i % 64);
    }
}

/* After the block's global stores: one thread's fence and count (the
 * pattern of cooperative groups' grid barrier: the block barrier orders
 * every thread's stores before the fence); true, block-uniform, in the last
 * block to finish, whose loads come after its count and a fence. atomicInc
 * wraps the count to 0 on the last, ready for the next launch. */
__device__ __forceinline__ bool last_to_finish(unsigned *finished, int *last) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        *last = atomicInc(finished, gridDim.x - 1) == gridDim.x - 1;
        if (*last) __threadfence();
    }
    __syncthreads();
    return *last;
}

} // namespace kb_nms_one_launch

#endif
