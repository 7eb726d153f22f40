/* rounds.cu — nms/rounds: exact greedy NMS decided in parallel rounds over
 * the suppression graph instead of a walk in rank order. A box is kept when
 * every box that suppresses it (same class, IoU > thr, ranked before it) is
 * decided and none of them is kept; it is removed as soon as one of them is
 * kept. Every round decides at least the lowest undecided box, so this is
 * greedy, and the rounds number the longest chain of boxes waiting on one
 * another (4 at 1000 uniform boxes @0.5, 11 at 25200, 16 at 100000), where a
 * walk takes a step per 64 boxes (16, 394, 1563). Within a round each warp's
 * 32 boxes settle among themselves first (ballot rounds), so a chain of
 * consecutive ranks costs a round per warp at most.
 *
 *   up to 1024 boxes   one launch (one_launch.cuh): every block ranks the
 *                      boxes and builds an even share of the column words
 *                      (box c's word rb: which boxes of block rb suppress
 *                      it); the last block to finish loads them into shared
 *                      memory and runs the rounds there, a block barrier
 *                      each (rounds_small_kernel); rounds_unranked does
 *                      without the sort, the graph in input order and the
 *                      keeps placed by each box's rank (rounds_unranked_kernel)
 *   above              the sort and blockwalk's masks (x-pruned rows, far
 *                      lists), then one cooperative kernel: round 0 counts
 *                      each box's suppressors; a box kept in a round ORs
 *                      its row into the "removed" bits, one removed counts
 *                      its row's boxes down; a grid barrier a round
 *                      (rounds_kernel)
 *
 * Measurements and the design's floor: docs/perf-nms.md, section rounds.
 *
 *   kbench run nms --sweep default -v blockwalk,rounds
 *   kbench run nms -a n=1000 -v rounds,rounds_unranked --interleave
 */
#include "masks.cuh"
#include "one_launch.cuh"
#include "../common/variant_def.h"

#include <cooperative_groups.h>
#include <stdint.h>
#include <stdlib.h>

using namespace kb_nms_masks;
namespace cg = cooperative_groups;

namespace {

typedef unsigned u32;

/* One warp's 32 boxes settled among themselves. mine: this lane's box is
 * undecided; ext_kept / ext_blocked: a box outside the warp that suppresses
 * it is kept / undecided; own: which lanes of the warp suppress it (lower
 * lanes only). kept and open (warp-uniform) are the warp's kept and
 * undecided bits, updated. A lane whose suppressors in the warp are all
 * decided, none kept, and none outside undecided, is kept; one with a kept
 * suppressor is removed; repeated while anything decides. */
__device__ __forceinline__ void settle_warp(bool mine, bool ext_kept, bool ext_blocked, u32 own,
                                            u32 &kept, u32 &open) {
    while (true) {
        bool removed = mine && (ext_kept || (own & kept));
        bool keep = mine && !removed && !ext_blocked && !(own & open);
        u32 kb = __ballot_sync(kFull, keep), db = __ballot_sync(kFull, keep || removed);
        if (!db) return;
        kept |= kb;
        open &= ~db;
        mine = mine && !keep && !removed;
    }
}

/* ---- up to 1024 boxes: one launch ---- */

using kb_nms_one_launch::kItemLanes;
using kb_nms_one_launch::kMaxWords;
using kb_nms_one_launch::kThreads;
constexpr int kWarps = kThreads / 32;

/* A block's rounds over its boxes, box t on thread t (mine: t's box is
 * undecided), warps of 32: words(f) calls f(from, bits) for each nonzero
 * word of the boxes that suppress t's (bits: which lanes of warp `from`).
 * Each round reads the warps' states of the last (buffer p), settles, writes
 * this round's (buffer p ^ 1); a block barrier between. Returns the warp's
 * kept bits. Every thread of the block calls it. */
template <class Words>
__device__ __forceinline__ u32 block_rounds(bool mine, Words words, u64 (*state)[kWarps]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 kept = 0, open = __ballot_sync(kFull, mine);
    if (lane == 0) state[0][warp] = (u64)open << 32;
    __syncthreads();
    for (int p = 0;; p ^= 1) {
        if (open) {
            bool ext_kept = false, ext_blocked = false;
            u32 own = 0;
            if (mine)
                words([&](int from, u32 bits) {
                    if (from == warp) {
                        own = bits;
                    } else {
                        const u64 st = state[p][from];
                        ext_kept |= (bits & (u32)st) != 0;
                        ext_blocked |= (bits & (u32)(st >> 32)) != 0;
                    }
                });
            settle_warp(mine, ext_kept, ext_blocked, own, kept, open);
            mine = mine && ((open >> lane) & 1);
        }
        if (lane == 0) state[p ^ 1][warp] = kept | (u64)open << 32;
        if (!__syncthreads_or(open != 0)) break;
    }
    return kept;
}

/* The flagged threads' values in thread order, the first cap of them, into
 * keep, and their count (at most cap); before: kWarps + 1 ints of shared
 * memory. Every thread of the block calls it. */
__device__ __forceinline__ void write_keeps(bool flag, int value, int cap, int *before, int *keep,
                                            int *count) {
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const u32 flags = __ballot_sync(kFull, flag);
    if (lane == 0) before[warp + 1] = __popc(flags);
    __syncthreads();
    if (t == 0) {
        before[0] = 0;
        for (int w = 1; w <= kWarps; w++) before[w] += before[w - 1];
        *count = min(before[kWarps], cap);
    }
    __syncthreads();
    if (flag) {
        const int at = before[warp] + __popc(flags & ((1u << lane) - 1));
        if (at < cap) keep[at] = value;
    }
}

/* Dynamic shared memory: the ranking's stage and sort scratch, then, in the
 * last block, the column words (a word per 64-box block and box). */
size_t small_smem(int n) {
    size_t stage = (size_t)kThreads * (sizeof(float4) + 2 * sizeof(u64) + sizeof(int));
    size_t words = (size_t)words_of(n) * kThreads * sizeof(u64);
    return stage > words ? stage : words;
}

template <bool kClasses>
__global__ void __launch_bounds__(kThreads)
    rounds_small_kernel(const float *scores, const float4 *boxes, const int *classes, int n,
                        int words, float thr, int cap, u64 *colw, unsigned *finished, int *keep,
                        int *count) {
    extern __shared__ u64 sm[];
    __shared__ float4 box[kThreads];
    __shared__ int cls[kThreads], rank_to_input[kThreads];
    __shared__ u64 state[2][kWarps]; /* a warp's kept bits | its undecided bits << 32 */
    __shared__ int before[kWarps + 1], last;
    const int t = threadIdx.x, lane = t & 31;
    {
        float4 *stage = (float4 *)sm; /* first: 16-byte aligned */
        auto key = (unsigned long long(*)[kThreads])(stage + kThreads);
        int *stage_cls = (int *)(key + 2);
        kb_nms_one_launch::rank_boxes<kClasses>(scores, boxes, classes, n, stage, stage_cls, key,
                                                box, cls, rank_to_input);
    }
    /* Column words: entry e of tile (rb, cb) is box c = 64 cb + e, its word rb
     * the boxes of block rb that suppress it (kColumnForm: the row form's
     * argument order, so the same decisions bit for bit). */
    auto same = [](int k) { return k; };
    kb_nms_one_launch::for_block_items(words, [&](int rb, int cb, int e) {
        const int c = 64 * cb + e;
        if (c >= n) return; /* an item's lanes alike */
        const int rows = rb == cb ? e : min(64, n - 64 * rb);
        u64 bits = tile_word<kClasses, kItemLanes, true>(
            box[c], kClasses ? cls[c] : 0, box + 64 * rb, cls + 64 * rb, 0, rows, thr, same);
        if (t % kItemLanes == 0) colw[(size_t)rb * n + c] = bits;
    });
    if (!kb_nms_one_launch::last_to_finish(finished, &last)) return;

    /* The last block: box t's column words into shared memory (the stage is
     * dead), which of them are nonzero in a mask. */
    u64 *col = sm;
    u32 nz = 0;
#pragma unroll
    for (int rb = 0; rb < kMaxWords; rb++)
        if (t < n && rb <= t / 64) {
            const u64 v = __ldcg(colw + (size_t)rb * n + t);
            col[rb * kThreads + t] = v;
            nz |= (u32)(v != 0) << rb;
        }
    const u32 kept = block_rounds(
        t < n,
        [&](auto f) {
            for (u32 m = nz; m; m &= m - 1) {
                const int rb = __ffs(m) - 1;
                const u64 w = col[rb * kThreads + t];
                f(2 * rb, (u32)w), f(2 * rb + 1, (u32)(w >> 32));
            }
        },
        state);
    /* The keeps in rank order, the first cap of them. */
    const bool kept_t = (kept >> lane) & 1;
    write_keeps(kept_t, kept_t ? rank_to_input[t] : 0, cap, before, keep, count);
}

/* ---- up to 1024 boxes: one launch, the graph in input order ---- */

/* No block sorts. The suppression graph does not need rank order, only each
 * pair's direction, which the two keys give; the keeps' order comes from
 * each box's rank, a count of the keys below its own. Block g takes columns
 * [g n / G, (g + 1) n / G) of the graph (box c: which boxes suppress it);
 * thread t tests box t against each of them, its warp's ballot the column's
 * word t / 32 (stored when nonzero, a bit for it in the column's nz mask),
 * the ballot of "ranks before" counted into the column's rank. The last
 * block to finish loads every box's nonzero words into shared memory,
 * decides the boxes in rounds (warps in input order) and writes the keeps
 * through a table by rank. */
constexpr int kMaxCols = 64; /* columns a block at most: the grid is >= n / 64 */

size_t unranked_smem(int n) {
    return (size_t)((n + 31) / 32) * kThreads * sizeof(u32);
}

/* Word loads the last block keeps in flight a box: a clustered box has
 * suppressors in most of the 32 warps, a uniform one in a few. */
constexpr int kLoads = 4;

template <bool kClasses>
__global__ void __launch_bounds__(kThreads)
    rounds_unranked_kernel(const float *scores, const float4 *boxes, const int *classes, int n,
                           float thr, int cap, u32 *colw, u64 *meta, unsigned *finished, int *keep,
                           int *count) {
    extern __shared__ u32 col[]; /* the last block: word w of box c at [w * kThreads + c] */
    __shared__ float4 cbox[kMaxCols];
    __shared__ unsigned long long ckey[kMaxCols];
    __shared__ int ccls[kMaxCols];
    __shared__ u32 part[kMaxCols][kWarps];            /* column j's word of warp w */
    __shared__ unsigned char ahead[kMaxCols][kWarps]; /* warp w's boxes ranked before j */
    __shared__ u64 state[2][kWarps]; /* a warp's kept bits | its undecided bits << 32 */
    __shared__ int by_rank[kThreads], before[kWarps + 1], last;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int first = (int)((long long)n * blockIdx.x / gridDim.x);
    const int cols = (int)((long long)n * (blockIdx.x + 1) / gridDim.x) - first;
    if (t < cols) {
        const int c = first + t;
        cbox[t] = boxes[c];
        ckey[t] = kb_nms_rank_key(scores[c], c);
        if (kClasses) ccls[t] = classes[c];
    }
    unsigned long long key = ~0ull; /* above every box's key: index < 2^32 - 1 */
    float4 b = make_float4(0, 0, 0, 0);
    int cls = 0;
    if (t < n) {
        key = kb_nms_rank_key(scores[t], t);
        b = boxes[t];
        if (kClasses) cls = classes[t];
    }
    __syncthreads();
    if (32 * warp < n)
        for (int j = 0; j < cols; j++) {
            /* Box t suppresses column j when it ranks before it: the test in
             * the order of every other form's (the higher-ranked box first). */
            const bool before_j = key < ckey[j];
            const bool sup =
                before_j && (!kClasses || cls == ccls[j]) && suppresses(b, cbox[j], thr);
            const u32 word = __ballot_sync(kFull, sup), hi = __ballot_sync(kFull, before_j);
            if (lane == 0) part[j][warp] = word, ahead[j][warp] = (unsigned char)__popc(hi);
        }
    __syncthreads();
    /* Column j's words, nz mask and rank, by warp j % 32, lane w for warp w. */
    for (int j = warp; j < cols; j += kWarps) {
        const bool live = 32 * lane < n;
        const u32 word = live ? part[j][lane] : 0;
        const unsigned rank = __reduce_add_sync(kFull, live ? ahead[j][lane] : 0u);
        const u32 nz = __ballot_sync(kFull, word != 0);
        if (word) colw[(size_t)lane * n + first + j] = word;
        if (lane == 0) meta[first + j] = (u64)rank << 32 | nz;
    }
    if (!kb_nms_one_launch::last_to_finish(finished, &last)) return;

    /* The last block: box t's nonzero words (only those were written),
     * kLoads of them in flight at a time. */
    const u64 m = t < n ? __ldcg(meta + t) : 0;
    const u32 nz = (u32)m;
    for (u32 q = nz; q;) {
        int w[kLoads];
        u32 v[kLoads];
#pragma unroll
        for (int k = 0; k < kLoads; k++) {
            w[k] = q ? __ffs(q) - 1 : -1;
            q &= q - 1;
        }
#pragma unroll
        for (int k = 0; k < kLoads; k++) v[k] = w[k] >= 0 ? __ldcg(colw + (size_t)w[k] * n + t) : 0;
#pragma unroll
        for (int k = 0; k < kLoads; k++)
            if (w[k] >= 0) col[w[k] * kThreads + t] = v[k];
    }
    /* Rounds as in the ranked form; a warp's suppressors among its own lanes
     * may be any lanes now, which settle_warp allows. */
    const u32 kept = block_rounds(
        t < n,
        [&](auto f) {
            for (u32 q = nz; q; q &= q - 1) {
                const int w = __ffs(q) - 1;
                f(w, col[w * kThreads + t]);
            }
        },
        state);
    /* The keeps in rank order, the first cap of them: each box at its rank
     * (the ranks are a permutation of 0..n-1), then a prefix of the kept. */
    if (t < n) by_rank[(int)(m >> 32)] = (kept >> lane) & 1 ? t : -1;
    __syncthreads();
    const int at_rank = t < n ? by_rank[t] : -1;
    write_keeps(at_rank >= 0, at_rank, cap, before, keep, count);
}

/* ---- above: the masks, then the rounds in one cooperative kernel ---- */

constexpr int kCoopThreads = 512;

/* The rounds' own state (zero between launches; each launch leaves it so).
 * removed: bit c set once a kept box suppresses c; pending[c]: c's
 * suppressors outside its warp not yet decided, counted in round 0 and
 * counted down as they are removed (a kept one removes c instead); kept /
 * open: 32 boxes a word; undecided[3]: the boxes left open by round s go to
 * undecided[s % 3], which round s - 1 zeroed (its last reads were before
 * that round's barrier); before[g]: block g's keeps, for the compaction. */
struct push_state {
    u64 *removed;
    int *pending;
    u32 *kept, *open;
    int *undecided, *before;
};

/* The far lists the masks are built with here: a row whose list overflows
 * is read densely by its warp in each of its two pushes, so the lists are
 * longer than blockwalk's (whose walk holds every slot of a step's rows in
 * registers): uniform 100000 boxes @0.5 have at most 168 far words a row,
 * clustered 25200 ~40 a row in a cluster. */
constexpr int kRoundsFarSlots = 128;

size_t push_bytes(int n, int blocks) {
    return (size_t)words_of(n) * sizeof(u64) + (size_t)n * sizeof(int) +
           (size_t)2 * ((n + 31) / 32) * sizeof(u32) + (size_t)(3 + blocks) * sizeof(int) +
           (size_t)n * (1 + kRoundsFarSlots) * sizeof(int) +
           (size_t)n * kRoundsFarSlots * sizeof(u64);
}

push_state carve_push(void *base, int n, far_lists *far) {
    push_state p;
    p.removed = (u64 *)base;
    far->bits = p.removed + words_of(n);
    p.pending = (int *)(far->bits + (size_t)n * kRoundsFarSlots);
    far->word = p.pending + n;
    far->count = far->word + (size_t)n * kRoundsFarSlots;
    far->slots = kRoundsFarSlots;
    p.kept = (u32 *)(far->count + n);
    p.open = p.kept + (n + 31) / 32;
    p.undecided = (int *)(p.open + (n + 31) / 32);
    p.before = p.undecided + 3;
    return p;
}

/* Loads in flight a lane where rows' words are read: the pushes apply
 * atomics between the batches, which loads cannot pass. */
constexpr int kBatch = 8;

/* The rows of the warp's lanes with a push (kind > 0), every nonzero word w
 * of each row's suppression bits to apply(kind, w, bits), the warp's lanes
 * sharing the work: the dense words r / 64 (without the bits of r's own warp
 * of boxes, which settle_warp decides from the diagonal column words) and
 * the next by each row's lane; the far lists' entries of all the rows as one
 * run of items, 32 x kBatch loads at once (a row's list is 0 to 128 entries,
 * so a lane walking its own would set the round's time); a row whose list
 * overflowed read from the dense mask by the whole warp. Every lane of the
 * warp calls it. */
template <class Apply>
__device__ __forceinline__ void push_rows(const u64 *mask, far_lists far, int r, int words,
                                          int kind, Apply apply) {
    const int lane = threadIdx.x & 31, rb = r / 64;
    const u64 *row = mask + (size_t)r * words;
    int listed = 0;
    if (kind) {
        const u64 own = 0xffffffffull << (32 * ((r >> 5) & 1));
        const u64 near = __ldcg(row + rb) & ~own, next = rb + 1 < words ? __ldcg(row + rb + 1) : 0;
        listed = __ldcg(far.count + r);
        if (near) apply(kind, rb, near);
        if (next) apply(kind, rb + 1, next);
    }
    const bool dense = listed > far.slots;
    int items = dense ? 0 : listed, end = items; /* end: inclusive prefix over the lanes */
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(kFull, end, o);
        if (lane >= o) end += v;
    }
    const int total = __shfl_sync(kFull, end, 31);
    for (int k0 = 0; k0 < total; k0 += 32 * kBatch) {
        int w[kBatch], of[kBatch];
        u64 b[kBatch];
#pragma unroll
        for (int q = 0; q < kBatch; q++) {
            const int k = k0 + 32 * q + lane;
            int owner = 0; /* the lowest lane whose items end past k */
            for (int step = 16; step; step >>= 1)
                if (__shfl_sync(kFull, end, owner + step - 1) <= k) owner += step;
            const int first = __shfl_sync(kFull, end - items, owner);
            of[q] = __shfl_sync(kFull, kind, owner);
            w[q] = -1;
            if (k < total) {
                const size_t at = (size_t)(32 * (r / 32) + owner) * far.slots + (k - first);
                w[q] = __ldcg(far.word + at), b[q] = __ldcg(far.bits + at);
            }
        }
#pragma unroll
        for (int q = 0; q < kBatch; q++)
            if (w[q] >= 0) apply(of[q], w[q], b[q]);
    }
    for (u32 m = __ballot_sync(kFull, dense); m; m &= m - 1) {
        const int src = 32 * (r / 32) + __ffs(m) - 1, src_kind = __shfl_sync(kFull, kind, src & 31);
        const u64 *src_row = mask + (size_t)src * words;
        for (int w0 = src / 64 + 2 + lane; w0 < words; w0 += 32 * kBatch) {
            u64 v[kBatch];
#pragma unroll
            for (int q = 0; q < kBatch; q++)
                v[q] = w0 + 32 * q < words ? __ldcg(src_row + w0 + 32 * q) : 0;
#pragma unroll
            for (int q = 0; q < kBatch; q++)
                if (v[q]) apply(src_kind, w0 + 32 * q, v[q]);
        }
    }
}

__device__ __forceinline__ void add_bits(int *pending, int w, u64 bits, int by) {
    for (; bits; bits &= bits - 1) atomicAdd(pending + 64 * w + __ffsll(bits) - 1, by);
}

/* Launched cooperatively, every block resident. Each warp owns the 32-box
 * chunks gw, gw + W, ... (gw: block-major); round 0 counts every box's
 * pending suppressors; round s settles the open chunks from removed, pending and the diagonal
 * column words, and the boxes it decides push: a kept one ORs its row into
 * removed, a removed one counts its row's boxes down; then a grid barrier,
 * and every block leaves after the round that left nothing open (a round's
 * reads of another warp's news of the same round are safe: both only
 * move one way). The keeps are then compacted in rank order (block g:
 * chunks [gC / G, (g + 1)C / G)). Round 0 also sets every chunk's kept and
 * open words; the compaction zeroes removed and pending behind it. */
__global__ void __launch_bounds__(kCoopThreads)
    rounds_kernel(const u64 *mask, const u64 *diag_col, far_lists far, int n, int words, int cap,
                  const int *order, push_state ps, int *keep, int *count) {
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (kCoopThreads / 32);
    /* Warp w of block g is warp g + w G of the grid: consecutive chunks go
     * to different blocks, so a few hundred chunks spread over every SM. */
    const int gw = blockIdx.x + gridDim.x * ((int)threadIdx.x / 32);
    const int chunks = (n + 31) / 32;
    /* What a row's push does to each word of boxes it suppresses. */
    enum { kNone, kCountUp, kRemove, kCountDown };
    auto apply = [&](int kind, int w, u64 bits) {
        if (kind == kRemove)
            atomicOr(ps.removed + w, bits);
        else
            add_bits(ps.pending, w, bits, kind == kCountUp ? 1 : -1);
    };
    for (int ch = gw; ch < chunks; ch += warps) {
        const int r = 32 * ch + lane;
        push_rows(mask, far, r, words, r < n ? kCountUp : kNone, apply);
        const u32 open = __ballot_sync(kFull, r < n);
        if (lane == 0) ps.open[ch] = open, ps.kept[ch] = 0;
    }
    if (gw == 0 && lane == 0) ps.undecided[1] = 0;
    grid.sync();
    for (int s = 1;; s++) {
        int left = 0;
        for (int ch = gw; ch < chunks; ch += warps) {
            u32 open = ps.open[ch];
            if (!open) continue;
            const int r = 32 * ch + lane;
            const bool mine = (open >> lane) & 1;
            const u32 removed = __ldcg((const u32 *)ps.removed + ch);
            const bool blocked = mine && __ldcg(ps.pending + r) > 0;
            const u32 own = mine ? (u32)(__ldcg(diag_col + r) >> (32 * (ch & 1))) : 0;
            u32 kept = ps.kept[ch];
            const u32 was_open = open, was_kept = kept;
            settle_warp(mine, (removed >> lane) & 1, blocked, own, kept, open);
            const bool now_kept = ((kept & ~was_kept) >> lane) & 1;
            const bool now_removed = ((was_open & ~open & ~kept) >> lane) & 1;
            push_rows(mask, far, r, words,
                      now_kept      ? kRemove
                      : now_removed ? kCountDown
                                    : kNone,
                      apply);
            if (lane == 0) ps.open[ch] = open, ps.kept[ch] = kept;
            left += __popc(open);
        }
        if (lane == 0 && left) atomicAdd(&ps.undecided[s % 3], left);
        if (gw == 0 && lane == 0) ps.undecided[(s + 1) % 3] = 0;
        grid.sync();
        if (__ldcg(&ps.undecided[s % 3]) == 0) break;
    }
    /* Compaction: each block's keeps counted, a grid barrier, then written
     * from the block's base; the state zeroed behind. */
    __shared__ int block_kept;
    const int from = (int)((long long)chunks * blockIdx.x / gridDim.x);
    const int to = (int)((long long)chunks * (blockIdx.x + 1) / gridDim.x);
    if (threadIdx.x == 0) block_kept = 0;
    __syncthreads();
    int mine = 0;
    for (int ch = from + (int)threadIdx.x; ch < to; ch += kCoopThreads)
        mine += __popc(__ldcg(ps.kept + ch));
    if (mine) atomicAdd(&block_kept, mine);
    const int stride = gridDim.x * kCoopThreads, first = blockIdx.x * kCoopThreads + threadIdx.x;
    for (int w = first; w < words; w += stride) ps.removed[w] = 0;
    for (int c = first; c < n; c += stride) ps.pending[c] = 0;
    __syncthreads();
    if (threadIdx.x == 0) ps.before[blockIdx.x] = block_kept;
    grid.sync();
    if (threadIdx.x < 32) {
        int sum = 0;
        for (int g = lane; g < (int)blockIdx.x; g += 32) sum += __ldcg(ps.before + g);
        for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(kFull, sum, o);
        /* Chunks a lane each, 32 at a time, in rank order. */
        for (int ch0 = from; ch0 < to; ch0 += 32) {
            const int ch = ch0 + lane;
            const u32 k = ch < to ? __ldcg(ps.kept + ch) : 0;
            int at = __popc(k);
            for (int o = 1; o < 32; o <<= 1) {
                int v = __shfl_up_sync(kFull, at, o);
                if (lane >= o) at += v;
            }
            const int total = __shfl_sync(kFull, at, 31);
            at += sum - __popc(k);
            for (u32 m = k; m; m &= m - 1, at++)
                if (at < cap) keep[at] = order[32 * ch + __ffs(m) - 1];
            sum += total;
        }
        if (blockIdx.x == gridDim.x - 1 && lane == 0) *count = min(sum, cap);
    }
}

/* ---- the variant ---- */

struct rounds_state {
    kb_nms_sorted sorted;
    int small_grid; /* the one launch's grid; 0: the masks and the cooperative kernel */
    size_t small_smem;
    int coop_grid;
    push_state push;
    far_lists far;
    void *push_base;
    bool unranked; /* rounds_unranked: the one launch without the ranking sort */
};

/* The one launch where n fits a block and its shared memory the device. */
bool small_fits(int n, size_t *smem_out, bool unranked = false) {
    const kb_gpu *g = kb_gpu_current();
    if (!g || n < 1 || words_of(n) > kMaxWords) return false;
    cudaFuncAttributes fa;
    const void *kernel = unranked ? (const void *)rounds_unranked_kernel<true>
                                  : (const void *)rounds_small_kernel<true>;
    if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    size_t smem = unranked ? unranked_smem(n) : small_smem(n);
    if (smem + fa.sharedSizeBytes > g->smem_optin) return false;
    *smem_out = smem;
    return true;
}

int rounds_supports(const kb_case *c, kb_error *why) {
    int rc = masks_supports(c, why);
    if (rc != KB_OK) return rc;
    const kb_gpu *g = kb_gpu_current();
    size_t smem;
    int n = (int)kb_nms_params_of(c).n;
    if (g && n > 0 && !small_fits(n, &smem) && !g->cooperative)
        return kb_fail(why, "above %d boxes rounds needs cooperative launch, which this %s lacks",
                       kThreads, g->name),
               KB_UNSUPPORTED;
    return KB_OK;
}

/* rounds_unranked is the one launch alone: above it, it would be rounds. */
int unranked_supports(const kb_case *c, kb_error *why) {
    int rc = masks_supports(c, why);
    if (rc != KB_OK) return rc;
    const kb_gpu *g = kb_gpu_current();
    const int64_t n = kb_nms_params_of(c).n;
    size_t smem;
    if (n > kThreads)
        return kb_fail(why, "%lld boxes: the one launch takes at most %d (rounds takes more)",
                       (long long)n, kThreads),
               KB_UNSUPPORTED;
    if (g && n > 0 && !small_fits((int)n, &smem, true))
        return kb_fail(why, "the column words of %lld boxes need %zu bytes of shared memory > %zu",
                       (long long)n, unranked_smem((int)n), (size_t)g->smem_optin),
               KB_UNSUPPORTED;
    return KB_OK;
}

/* The sorted boxes' state; the cooperative kernel's own above the one launch. */
size_t rounds_bytes(const kb_case *c) {
    int n = (int)kb_nms_params_of(c).n;
    size_t smem;
    if (n < 1 || small_fits(n, &smem)) return kb_nms_sorted_state_bytes(c);
    return kb_nms_sorted_state_bytes(c) + push_bytes(n, kb_gpu_sms(132) * 4);
}

void rounds_delete(void *state) {
    rounds_state *st = (rounds_state *)state;
    if (!st) return;
    kb_nms_sorted_free(&st->sorted);
    cudaFree(st->push_base);
    free(st);
}

cudaError_t plan(rounds_state *st) {
    const kb_gpu *g = kb_gpu_current();
    const int n = st->sorted.n;
    if (!g || n < 1) return cudaSuccess;
    if (small_fits(n, &st->small_smem, st->unranked)) {
        const bool ca = st->sorted.class_aware;
        const void *kernel =
            st->unranked
                ? (const void *)(ca ? rounds_unranked_kernel<true> : rounds_unranked_kernel<false>)
                : (const void *)(ca ? rounds_small_kernel<true> : rounds_small_kernel<false>);
        cudaError_t rc = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int)st->small_smem);
        if (rc == cudaSuccess)
            rc = cudaMemset(carve(st->sorted.nms_ws, n, nullptr).finished, 0, sizeof(unsigned));
        const int words = words_of(n);
        st->small_grid = st->unranked ? max(min(n, g->sm_count), (n + kMaxCols - 1) / kMaxCols)
                                      : min(words * (words + 1) / 2, g->sm_count);
        return rc;
    }
    int per_sm = 0;
    cudaError_t rc =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds_kernel, kCoopThreads, 0);
    if (rc != cudaSuccess) return rc;
    st->coop_grid = g->sm_count * min(per_sm, 4);
    if (st->coop_grid < 1) return cudaErrorInvalidConfiguration;
    size_t bytes = push_bytes(n, st->coop_grid);
    rc = cudaMalloc(&st->push_base, bytes);
    if (rc == cudaSuccess) rc = cudaMemset(st->push_base, 0, bytes);
    st->push = carve_push(st->push_base, n, &st->far);
    return rc;
}

int rounds_new_as(const kb_case *c, void **state, bool unranked, kb_error *e) {
    rounds_state *st = (rounds_state *)calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "nms: out of host memory");
    st->unranked = unranked;
    int rc = kb_nms_sorted_setup(c, &st->sorted, e);
    if (rc == KB_OK) {
        cudaError_t planned = plan(st);
        rc = planned == cudaErrorMemoryAllocation
                 ? (cudaGetLastError(), kb_fail(e, "nms rounds: out of device memory"),
                    KB_OUT_OF_MEMORY)
                 : kb_cuda_check(planned, "nms rounds: setup", e);
    }
    if (rc != KB_OK) {
        rounds_delete(st);
        return rc;
    }
    *state = st;
    return KB_OK;
}

int rounds_new(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    (void)dev_in;
    return rounds_new_as(c, state, false, e);
}

int rounds_unranked_new(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    (void)dev_in;
    return rounds_new_as(c, state, true, e);
}

int run_small(rounds_state *st, const kb_tensors *dev_in, int *keep, int *count, cudaStream_t s,
              kb_error *e) {
    const kb_nms_sorted *so = &st->sorted;
    const float *scores = (const float *)kb_tensors_get(dev_in, "scores")->data;
    const float4 *boxes = (const float4 *)kb_tensors_get(dev_in, "boxes")->data;
    const int *classes = (const int *)kb_tensors_get(dev_in, "classes")->data;
    ws_layout l = carve(so->nms_ws, so->n, nullptr);
    const int cap = cap_of(so->n, so->max_out);
    if (st->unranked) {
        auto kernel =
            so->class_aware ? rounds_unranked_kernel<true> : rounds_unranked_kernel<false>;
        kb_nvtx_push("column words and rounds");
        kernel<<<st->small_grid, kThreads, st->small_smem, s>>>(
            scores, boxes, classes, so->n, so->iou, cap, (u32 *)l.mask, l.diag_col, l.finished,
            keep, count);
        kb_nvtx_pop();
        return kb_cuda_check(cudaGetLastError(), "nms rounds: one launch", e);
    }
    auto kernel = so->class_aware ? rounds_small_kernel<true> : rounds_small_kernel<false>;
    kb_nvtx_push("sort, column words and rounds");
    kernel<<<st->small_grid, kThreads, st->small_smem, s>>>(scores, boxes, classes, so->n,
                                                            words_of(so->n), so->iou, cap, l.mask,
                                                            l.finished, keep, count);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "nms rounds: one launch", e);
}

int rounds_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
               kb_error *e) {
    rounds_state *st = (rounds_state *)state;
    kb_nms_sorted *so = &st->sorted;
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    if (so->n <= 0) return kb_cuda_check(cudaMemsetAsync(count, 0, sizeof(int), s), "nms", e);
    if (st->small_grid) return run_small(st, dev_in, keep, count, s, e);
    if (kb_nms_sorted_fill(so, dev_in, s, e) != KB_OK) return KB_ERR;
    ws_layout l = carve(so->nms_ws, so->n, nullptr);
    if (!prunes(so->n)) l.xs = xsorted{};
    l.far = st->far;
    kb_nvtx_push("mask");
    cudaError_t rc =
        build_masks(so->boxes, so->classes, so->n, so->iou, l.mask, l.diag_col, l.xs, l.far, s);
    kb_nvtx_pop();
    if (rc != cudaSuccess) return kb_cuda_check(rc, "nms rounds: masks", e);
    int n = so->n, words = words_of(n), cap = cap_of(n, so->max_out);
    const u64 *mask = l.mask, *diag_col = l.diag_col;
    far_lists far = l.far;
    const int *order = so->order;
    push_state ps = st->push;
    void *args[] = {(void *)&mask, (void *)&diag_col, (void *)&far, (void *)&n,    (void *)&words,
                    (void *)&cap,  (void *)&order,    (void *)&ps,  (void *)&keep, (void *)&count};
    kb_nvtx_push("rounds");
    rc = cudaLaunchCooperativeKernel((const void *)rounds_kernel, dim3(st->coop_grid),
                                     dim3(kCoopThreads), args, 0, s);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "nms rounds: cudaLaunchCooperativeKernel", e);
}

} // namespace

KB_DEFINE_VARIANT(nms, rounds) = {rounds_supports, rounds_bytes, rounds_new, rounds_run,
                                  rounds_delete};
KB_DEFINE_VARIANT(nms, rounds_unranked) = {unranked_supports, rounds_bytes, rounds_unranked_new,
                                           rounds_run, rounds_delete};
