/* greedy_resolve.cuh — greedy NMS's decisions inside one block of 64 ranked
 * boxes, by a whole warp in ballot rounds (yolo_decode's block greedy,
 * rpn_proposals/fused's walk). C++/CUDA only.
 *
 * The serial rule walks the boxes in rank order and keeps one unless a kept
 * box before it suppresses it. Here lane l gathers the columns of boxes l and
 * l + 32 (which earlier boxes of the block suppress them) from the 64 row
 * words; then, in rounds, a box is kept once no undecided or kept earlier box
 * suppresses it and removed once a kept one does. The lowest undecided box
 * has only decided boxes before it, so each round decides it at least: the
 * rounds are the longest suppression chain among the block's boxes, and the
 * kept set is the serial rule's.
 */
#ifndef KB_GREEDY_RESOLVE_CUH
#define KB_GREEDY_RESOLVE_CUH

/* rows[c] (shared memory): bit q set when box c suppresses box q (bits q <= c
 * are ignored). undecided: the boxes still in play (not removed by earlier
 * blocks, and real). Every lane of a full warp calls it; every lane gets the
 * kept bits. */
__device__ inline unsigned long long kb_greedy_resolve64(const unsigned long long *rows,
                                                         unsigned long long undecided) {
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    unsigned long long col0 = 0, col1 = 0;
#pragma unroll 8
    for (int c = 0; c < 64; c++) {
        const unsigned long long row = rows[c];
        col0 |= ((row >> lane) & 1ull) << c;
        col1 |= ((row >> (lane + 32)) & 1ull) << c;
    }
    col0 &= (1ull << lane) - 1; /* only earlier boxes decide */
    col1 &= (1ull << (lane + 32)) - 1;
    unsigned long long und = undecided, kept = 0;
    while (und) {
        const bool u0 = (und >> lane) & 1, u1 = (und >> (lane + 32)) & 1;
        const bool k0 = u0 && !(col0 & (und | kept)), k1 = u1 && !(col1 & (und | kept));
        const bool x0 = u0 && (col0 & kept), x1 = u1 && (col1 & kept);
        const unsigned long long now_kept =
            __ballot_sync(full, k0) | (unsigned long long)__ballot_sync(full, k1) << 32;
        const unsigned long long now_removed =
            __ballot_sync(full, x0) | (unsigned long long)__ballot_sync(full, x1) << 32;
        kept |= now_kept;
        und &= ~(now_kept | now_removed);
    }
    return kept;
}

#endif
