/* block_bitonic.cuh — an ascending bitonic sort of one 64-bit key per thread
 * across a block of exactly kSize threads (a power of two, >= 64), in
 * registers and shared memory. C++/CUDA only. Used by the nms op's ranking
 * (sort.cu) and by yolo_decode's block stage.
 *
 * The network is fully unrolled, so each stage is a handful of instructions
 * (a loop form spends ~45 a stage on its own bookkeeping: 18 us for 1024
 * keys in ncu, against 7 unrolled). Partners closer than 32 are in the same
 * warp (shuffles); strides >= 32 go through shared memory, two buffers
 * taking turns, so one barrier a stage (15 of the 55 stages at 1024).
 */
#ifndef KB_BLOCK_BITONIC_CUH
#define KB_BLOCK_BITONIC_CUH

/* Thread t passes its key v and gets back the t-th smallest of the block's
 * keys. key: 2 x kSize words of shared memory, free for the call. Every
 * thread of the block calls it (block barriers inside). */
template <int kSize>
__device__ __forceinline__ unsigned long long kb_block_bitonic(unsigned long long v,
                                                               unsigned long long (*key)[kSize]) {
    static_assert(kSize >= 64 && (kSize & (kSize - 1)) == 0, "a power of two >= 64");
    const int t = threadIdx.x;
    int buf = 0;
#pragma unroll
    for (int k = 2; k <= kSize; k <<= 1)
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            unsigned long long other;
            if (j >= 32) {
                key[buf][t] = v;
                __syncthreads();
                other = key[buf][t ^ j];
                buf ^= 1;
            } else {
                other = __shfl_xor_sync(0xffffffffu, v, j);
            }
            const bool keep_min = ((t & k) == 0) == ((t & j) == 0);
            v = (other < v) == keep_min ? other : v; /* equal keys: either is the same */
        }
    return v;
}

#endif
