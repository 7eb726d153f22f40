/* block_scan.cuh — a block-wide exclusive prefix sum of one int per thread,
 * for blocks of exactly kBlock threads (a multiple of 32, at most 1024).
 * Every thread must call it; it may be called again in the same kernel. */
#ifndef KB_BLOCK_SCAN_CUH
#define KB_BLOCK_SCAN_CUH

template <int kBlock> __device__ inline int kb_block_exclusive_scan(int v, int *total) {
    static_assert(kBlock % 32 == 0 && kBlock <= 1024, "whole warps, one block");
    constexpr int kWarps = kBlock / 32;
    __shared__ int warp_sums[kWarps];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int x = v;
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    __syncthreads(); /* warp_sums free from a previous call */
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int s = lane < kWarps ? warp_sums[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            int y = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += y;
        }
        if (lane < kWarps) warp_sums[lane] = s;
    }
    __syncthreads();
    *total = warp_sums[kWarps - 1];
    return x - v + (warp > 0 ? warp_sums[warp - 1] : 0);
}

#endif
