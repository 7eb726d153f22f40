/* greedy_resolve.cuh — greedy NMS's decisions inside one block of 64 ranked
 * boxes, by a whole warp in rounds of OR-reductions (yolo_decode's block
 * greedy), and the 64-bit warp OR they are made of (also the nms op's block
 * walk). C++/CUDA only.
 *
 * The serial rule walks the boxes in rank order and keeps one unless a kept
 * box before it suppresses it. Here lane l holds the row words of boxes l
 * and l + 32 (which later boxes of the block each suppresses). In a round,
 * the rows of the boxes still in play (undecided or kept) are ORed across
 * the warp, and those of the kept ones: an undecided box that no box in play
 * suppresses is kept, one that a kept box suppresses is removed. The lowest
 * undecided box has only decided boxes before it, so each round decides it
 * at least: the rounds are the longest suppression chain among the block's
 * boxes, each a few reductions, and the kept set is the serial rule's. Where
 * chains fill the block (RPN's dense anchors: ~62 rounds a step) the serial
 * walk is faster (docs/perf-rpn.md).
 */
#ifndef KB_GREEDY_RESOLVE_CUH
#define KB_GREEDY_RESOLVE_CUH

/* The OR of a 64-bit v over the warp, every lane gets it: two 32-bit
 * reductions side by side (five dependent 64-bit shuffle rounds cost ~10
 * shuffle latencies). */
__device__ __forceinline__ unsigned long long kb_warp_or64(unsigned long long v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 /* no redux.sync: a butterfly */
    for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(0xffffffffu, v, o);
    return v;
#else
    const unsigned lo = __reduce_or_sync(0xffffffffu, (unsigned)v);
    const unsigned hi = __reduce_or_sync(0xffffffffu, (unsigned)(v >> 32));
    return lo | (unsigned long long)hi << 32;
#endif
}

/* row_lo, row_hi: lane l's rows, of boxes l and l + 32 (bit q set when the
 * box suppresses box q; bits q <= the box's own are ignored). undecided: the
 * boxes still in play (not removed by earlier blocks, and real). Every lane
 * of a full warp calls it; every lane gets the kept bits. */
__device__ inline unsigned long long kb_greedy_resolve64(unsigned long long row_lo,
                                                         unsigned long long row_hi,
                                                         unsigned long long undecided) {
    const int lane = threadIdx.x & 31;
    row_lo &= ~0ull << (lane + 1); /* only later boxes: lane + 1 <= 32 */
    row_hi &= lane == 31 ? 0ull : ~0ull << (lane + 33);
    unsigned long long und = undecided, kept = 0;
    while (und) {
        const unsigned long long live = und | kept;
        const unsigned long long by_live = kb_warp_or64(
            ((live >> lane) & 1 ? row_lo : 0ull) | ((live >> (lane + 32)) & 1 ? row_hi : 0ull));
        const unsigned long long by_kept = kb_warp_or64(
            ((kept >> lane) & 1 ? row_lo : 0ull) | ((kept >> (lane + 32)) & 1 ? row_hi : 0ull));
        const unsigned long long now_kept = und & ~by_live;
        kept |= now_kept;
        und &= ~(now_kept | by_kept);
    }
    return kept;
}

#endif
