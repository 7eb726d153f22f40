/* grid_select.cuh — the block-wide steps of the 64-bit radix select
 * (grid_select.h's rule) that topk/grid_select (a chain of grid passes) and
 * topk/coop_select (one cooperative kernel) share: a level's histogram in
 * shared memory, its flush into the grid's global one, and the pick of the
 * bin that holds the r-th largest, and the winners' ranks (their slots).
 * Every thread of the block calls each of them. */
#ifndef KB_TOPK_GRID_SELECT_CUH
#define KB_TOPK_GRID_SELECT_CUH

#include "grid_select.h"

#include "../common/block_scan.cuh"

__device__ __forceinline__ void kb_grid_zero_hist(unsigned *sh) {
    for (int b = threadIdx.x; b < KB_GRID_BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
}

/* Adds a block's shared histogram into the global one: nonzero bins only
 * (uniform scores fill ~100 of 2048 bins per block). */
__device__ __forceinline__ void kb_grid_flush_hist(const unsigned *sh, unsigned *global) {
    __syncthreads();
    for (int b = threadIdx.x; b < KB_GRID_BINS; b += blockDim.x)
        if (sh[b]) atomicAdd(global + b, sh[b]);
}

/* The global histogram into shared memory, read past L1 (other blocks' atomics). */
__device__ __forceinline__ void kb_grid_load_hist(unsigned *sh, const unsigned *global) {
    for (int b = threadIdx.x; b < KB_GRID_BINS; b += blockDim.x) sh[b] = __ldcg(global + b);
    __syncthreads();
}

/* The pick over a shared histogram by a block of kBlock threads, bins
 * scanned from the top (thread t: the kPer bins from 2047 - kPer t down, one
 * block scan); every thread gets it. A histogram with fewer than r elements
 * (a broken count) ends the select rather than read an unset pick. */
template <int kBlock> __device__ kb_grid_pick kb_grid_block_pick(const unsigned *sh, unsigned r) {
    constexpr int kPer = KB_GRID_BINS / kBlock;
    static_assert(kPer * kBlock == KB_GRID_BINS, "whole bins per thread");
    __shared__ kb_grid_pick found;
    if (threadIdx.x == 0) found = kb_grid_pick{0u, 0u, 1u};
    const unsigned top = KB_GRID_BINS - 1 - kPer * threadIdx.x;
    int sum = 0;
#pragma unroll
    for (int j = 0; j < kPer; j++) sum += (int)sh[top - j];
    int total = 0;
    unsigned above = (unsigned)kb_block_exclusive_scan<kBlock>(sum, &total);
    kb_grid_pick p;
#pragma unroll
    for (int j = 0; j < kPer; j++) {
        if (kb_grid_pick_step(top - j, above, sh[top - j], r, &p)) found = p; /* one thread */
        above += sh[top - j];
    }
    __syncthreads();
    const kb_grid_pick out = found;
    __syncthreads(); /* found is reset by the next call */
    return out;
}

/* How many of the distinct composites sw[0, m) are larger than x: the
 * warp's lanes count 32 apart, one reduction; every lane gets the count. */
__device__ __forceinline__ int kb_grid_warp_rank(const unsigned long long *sw, int m,
                                                 unsigned long long x) {
    int larger = 0;
    for (int j = (int)(threadIdx.x & 31); j < m; j += 32) larger += sw[j] > x;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) larger += __shfl_xor_sync(0xffffffffu, larger, o);
    return larger;
}

/* The want winners (distinct composites, in any order) ranked and written:
 * warp w of the grid (kBlock / 32 per block) takes winners w, w + warps,
 * ...; its lanes count the larger composites 32 apart, one reduction; the
 * rank is the slot (out_i gets the index, out_v the value re-read bitwise).
 * sw: shared memory for want composites. O(want^2) compares spread over the
 * grid (1000 winners: 31 loads and compares a lane), in place of a sort's
 * ~55 dependent steps in one block. Blocks past the winners return at once. */
template <int kBlock>
__device__ __forceinline__ void kb_grid_rank_write(const float *seg, const unsigned long long *win,
                                                   int want, unsigned long long *sw, float *out_v,
                                                   int *out_i) {
    constexpr int kWarps = kBlock / 32;
    if ((int)blockIdx.x * kWarps >= want) return; /* block-uniform */
    const int warps = (int)gridDim.x * kWarps, lane = threadIdx.x & 31;
    for (int i = (int)threadIdx.x; i < want; i += kBlock) sw[i] = __ldcg(win + i);
    __syncthreads();
    for (int i = (int)blockIdx.x * kWarps + (int)(threadIdx.x >> 5); i < want; i += warps) {
        const unsigned long long x = sw[i];
        const int larger = kb_grid_warp_rank(sw, want, x);
        if (lane == 0) {
            const int idx = kb_grid_index(x);
            out_i[larger] = idx;
            out_v[larger] = seg[idx];
        }
    }
}

#endif
