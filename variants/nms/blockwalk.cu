/* blockwalk.cu — nms/blockwalk, exact greedy NMS by a walk in rank order
 * (nms/rounds, which decides the boxes in parallel rounds, is faster): the masks of
 * bitmask.cu built testing only pairs that overlap in x, with each row's far
 * words as a short list (masks.cuh), then one block walks 64 boxes a step:
 * warp 0 resolves a block in ballot rounds while the other warps OR the
 * previous block's kept rows in from prefetched registers, so the walk ORs ~24
 * words per kept row, not n/64. Up to 1024 boxes the walk reads rows copied
 * to shared memory, warp 0 resolving while other warps OR the kept rows in
 * and write the keeps (walk_small_kernel); the op's own path there is one
 * launch that also ranks the boxes and builds the tiles (fused_small_kernel).
 * Also kb_nms_sorted_blockwalk, which yolo_decode reuses. The steps: above
 * each kernel. Sorting: sort.cu.
 * Measurements: docs/perf-nms.md.
 *
 *   kbench run nms --sweep default -v bitmask_gpu,blockwalk
 */
#include "masks.cuh"
#include "one_launch.cuh"
#include "../common/arch.cuh"
#include "../common/greedy_resolve.cuh"
#include "../common/shared_walk.cuh"
#include "../common/variant_def.h"

#include <stdint.h>
#include <stdlib.h>

using namespace kb_nms_masks;

namespace {

/* Greedy decisions of one 64-box block by warp 0, in rounds rather than kept
 * box by kept box: lane holds the column words c0, c1 of boxes lane and
 * lane + 32 (who in the block suppresses them); decided has the bits of boxes
 * already removed (or past n). An undecided box whose column meets a kept box
 * is removed; one whose column meets no undecided box is kept (every
 * suppressor decided, none kept). The lowest undecided box always decides, so
 * this is greedy; the rounds are the longest suppression chain in the block,
 * not its keeps. Returns the kept bits. */
__device__ __forceinline__ u64 resolve_block(u64 decided, u64 c0, u64 c1, int lane) {
    u64 kb = 0;
    while (~decided) {
        u64 open = ~decided;
        bool u0 = (open >> lane) & 1, u1 = (open >> (lane + 32)) & 1;
        bool r0 = u0 && (c0 & kb), r1 = u1 && (c1 & kb);
        bool k0 = u0 && !r0 && !(c0 & open), k1 = u1 && !r1 && !(c1 & open);
        u64 k_lo = __ballot_sync(kFull, k0), k_hi = __ballot_sync(kFull, k1);
        u64 d_lo = __ballot_sync(kFull, k0 || r0), d_hi = __ballot_sync(kFull, k1 || r1);
        kb |= k_lo | k_hi << 32;
        decided |= d_lo | d_hi << 32;
    }
    return kb;
}

/* The lowest room bits of kb (all of them when there are no more). */
__device__ __forceinline__ u64 first_bits(u64 kb, int room) {
    if (__popcll(kb) <= room) return kb;
    u64 beyond = kb;
    for (int q = 0; q < room; q++) beyond &= beyond - 1;
    return kb & ~beyond;
}

/* What warp 0 holds of block j, for boxes 64 j + lane (0) and + 32 (1):
 * their diagonal column words (who in the block suppresses them), their
 * rows' words at column j + 1, their far list counts and input indices. */
struct walk_panel {
    u64 c0, c1, p0, p1;
    int n0, n1, o0, o1;
};

/* Every load unconditional, at indices clamped into range (what a clamped
 * lane reads is never used: boxes past n are decided before the resolve, the
 * last block has no column j + 1): a load under a condition or a select
 * makes a register that the next instruction waits on, a memory latency per
 * step. order may be NULL (o0, o1 then unset). */
__device__ __forceinline__ void load_panel(const u64 *mask, const u64 *diag_col,
                                           const int *far_count, const int *order, int n, int words,
                                           int j, int lane, walk_panel &p) {
    int r0 = min(64 * j + lane, n - 1), r1 = min(64 * j + lane + 32, n - 1);
    size_t w = min(j + 1, words - 1);
    p.c0 = diag_col[r0], p.c1 = diag_col[r1];
    p.p0 = mask[(size_t)r0 * words + w], p.p1 = mask[(size_t)r1 * words + w];
    p.n0 = far_count[r0], p.n1 = far_count[r1];
    if (order) p.o0 = order[r0], p.o1 = order[r1];
}

constexpr int kWalkThreads = 512, kWorkers = kWalkThreads - 32, kLoadsInFlight = 2;
/* Far-list items (row, slot) of one 64-box block per worker (at most). */
constexpr int kFarItems = 64 * kFarSlots / kWorkers;
static_assert(kFarItems * kWorkers == 64 * kFarSlots, "far items must tile the workers");
static_assert(64 * kFewFarSlots % kWorkers == 0, "far items must tile the workers");

/* What warp 0 holds for one block (load_panel), and what a worker holds of
 * one block's far lists. Warp 0 reads the panel loaded a step earlier and
 * loads the other: the loop runs two steps per turn with the panels' roles
 * swapped, so no register is read while its load is in flight (one panel,
 * carried through a register move at the end of each step, waited a memory
 * latency per step). A worker's far items are consumed at the top of a step
 * and reloaded into the same registers at its end: one set is enough. */
struct far_regs {
    u64 bits[kFarItems];
    int word[kFarItems];
    unsigned live; /* bit u: item u holds an entry */
};

/* Block-step walk (blockwalk). Step j: warp 0 resolves block j from its
 * removed word, the previous block's contribution (carry, from the prefetched
 * column-(j+1) panel) and the block's diagonal in column form, touching no
 * global memory on that path (keeps are written through order, prefetched
 * with the panel); meanwhile warps 1.. OR block j-1's kept rows into words
 * >= j+1.
 *
 * Those rows' far words come from the far lists (far.count must not be NULL)
 * when they fit: every worker holds kFarItems (row, slot) entries of block j-1,
 * loaded during step j-1 before the block's keeps were known (their counts a
 * step earlier still), so the step only ORs registers into shared memory:
 * no memory latency on the path. Rows whose list overflowed are read
 * densely (rare: <2% of rows at 100000 boxes): kLoadsInFlight independent loads per
 * thread per round (one dependent load per row would cost a memory latency
 * per kept box).
 *
 * The resolve is resolve_block; the carry a kb_warp_or64. One barrier per step;
 * 100000 boxes: 1563 steps. 512 threads: at 1024 the 64-register cap spilled
 * the far items and panels. */
template <int kSlots>
__global__ void __launch_bounds__(kWalkThreads)
    walk_blocks_kernel(const u64 *mask, const u64 *diag_col, far_lists far, int n, int words,
                       int cap, const int *order, int *keep, int *count) {
    extern __shared__ u64 removed[];
    __shared__ unsigned char dense_rows[2][64];
    __shared__ int dense_count[2];
    __shared__ u64 kept_bits[2];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    for (int w = t; w < words; w += kWalkThreads) removed[w] = 0;
    if (t == 0) dense_count[0] = dense_count[1] = 0;
    u64 carry = 0;
    int nk = 0;
    unsigned *removed32 = (unsigned *)removed; /* 32-bit ORs: native shared atomics */
    /* Worker w's far items: item w + kWorkers u of a block = (row, slot). */
    constexpr int kItems = 64 * kSlots / kWorkers;
    auto item_row = [&](int u) { return (t - 32 + kWorkers * u) / kSlots; };
    auto item_slot = [&](int u) { return (t - 32 + kWorkers * u) % kSlots; };
    int fcount[kItems]; /* counts of the rows of the block whose items load next */
    walk_panel pa, pb;
    far_regs f;
    f.live = 0;
#pragma unroll
    for (int u = 0; u < kItems; u++)
        f.bits[u] = 0, f.word[u] = 0, /* warp 0 has no items: its item_row can be < 0 */
            fcount[u] = warp ? far.count[min(item_row(u), n - 1)] : 0;
    pb = walk_panel{};
    if (warp == 0) load_panel(mask, diag_col, far.count, order, n, words, 0, lane, pa);
    __syncthreads();
    /* Step j: cur holds block j's panel, prev block j-1's far items; loads
     * block j+1's panel into next and block j's far items into now. */
    auto step = [&](int j, const walk_panel &cur, walk_panel &next, far_regs &prev, far_regs &now) {
        int done = 0;
        if (warp == 0) {
            load_panel(mask, diag_col, far.count, order, n, words, j + 1, lane, next);
            int valid = min(64, n - 64 * j);
            u64 decided = removed[j] | carry | (valid < 64 ? ~0ull << valid : 0ull);
            u64 kb = first_bits(resolve_block(decided, cur.c0, cur.c1, lane), cap - nk);
            int take = __popcll(kb);
            /* Kept rows whose list overflowed are read densely. */
            u64 dense = kb & (__ballot_sync(kFull, cur.n0 > kSlots) |
                              (u64)__ballot_sync(kFull, cur.n1 > kSlots) << 32);
            for (int b = lane; b < 64; b += 32) {
                int at = order ? (b < 32 ? cur.o0 : cur.o1) : 64 * j + b;
                if ((kb >> b) & 1) keep[nk + __popcll(kb & ((1ull << b) - 1))] = at;
                if ((dense >> b) & 1)
                    dense_rows[j & 1][__popcll(dense & ((1ull << b) - 1))] = (unsigned char)b;
            }
            nk += take;
            carry = kb_warp_or64((((kb >> lane) & 1) ? cur.p0 : 0) |
                                 (((kb >> (lane + 32)) & 1) ? cur.p1 : 0));
            if (lane == 0) dense_count[j & 1] = __popcll(dense), kept_bits[j & 1] = kb;
            done = nk >= cap;
        } else {
            if (j > 0) {
                /* Block j-1's kept rows, far lists: from registers. */
                u64 kb = kept_bits[(j - 1) & 1];
#pragma unroll
                for (int u = 0; u < kItems; u++)
                    if (((prev.live >> u) & 1) && ((kb >> item_row(u)) & 1)) {
                        unsigned lo = (unsigned)prev.bits[u], hi = (unsigned)(prev.bits[u] >> 32);
                        if (lo) atomicOr(&removed32[2 * prev.word[u]], lo);
                        if (hi) atomicOr(&removed32[2 * prev.word[u] + 1], hi);
                    }
                /* Dense rows: items (k, col) = dense row k at word j + 1 + col;
                 * worker w starts at item w and strides by kWorkers items. */
                const unsigned char *rows = dense_rows[(j - 1) & 1];
                int span = words - j - 1, kept = dense_count[(j - 1) & 1];
                if (span > 0 && kept > 0) {
                    const u64 *base = mask + (size_t)64 * (j - 1) * words + j + 1;
                    int w = t - 32, k = w / span, col = w - k * span;
                    int dk = kWorkers / span, dc = kWorkers - dk * span;
                    while (k < kept) {
                        u64 v[kLoadsInFlight];
                        int at[kLoadsInFlight];
#pragma unroll
                        for (int u = 0; u < kLoadsInFlight; u++) {
                            at[u] = col;
                            v[u] = k < kept ? base[(size_t)rows[k] * words + col] : 0;
                            col += dc, k += dk;
                            if (col >= span) col -= span, k++;
                        }
#pragma unroll
                        for (int u = 0; u < kLoadsInFlight; u++) {
                            unsigned lo = (unsigned)v[u], hi = (unsigned)(v[u] >> 32);
                            if (lo) atomicOr(&removed32[2 * (j + 1 + at[u])], lo);
                            if (hi) atomicOr(&removed32[2 * (j + 1 + at[u]) + 1], hi);
                        }
                    }
                }
            }
            /* Block j's far items now (read next step), block j+1's counts:
             * loads at clamped indices (see load_panel), the validity kept
             * apart in live. */
            now.live = 0;
#pragma unroll
            for (int u = 0; u < kItems; u++) {
                int r = 64 * j + item_row(u), rc = min(r, n - 1);
                size_t at = (size_t)rc * kSlots + item_slot(u);
                bool live = r < n && item_slot(u) < fcount[u] && fcount[u] <= kSlots;
                now.live |= (unsigned)live << u;
                /* Only live slots are loaded (~6 of a row's 30 at 25200 boxes): a
                 * predicated load into the item's own registers, never a select
                 * on its result, so nothing waits on it before the next step. */
                if (live) now.bits[u] = far.bits[at], now.word[u] = far.word[at];
                fcount[u] = far.count[min(r + 64, n - 1)];
            }
        }
        return __syncthreads_or(done);
    };
    for (int j = 0; j < words; j += 2) {
        if (step(j, pa, pb, f, f) || j + 1 >= words) break;
        if (step(j + 1, pb, pa, f, f)) break;
    }
    if (t == 0) *count = nk;
}

/* Small-n walk (blockwalk up to kSmallWalkWords column blocks, 1024 boxes):
 * the block copies the mask words the walk reads (w > r / 64), the diagonal
 * column words and the ranking into shared memory, then walks them in
 * shared_walk.cuh's three roles: warp 0 resolves block j (resolve_block)
 * while two warps OR block j - 1's kept rows into the later words and one
 * writes the keeps through the ranking; no global load on warp 0's path.
 * Rejected forms (docs/perf-nms.md, "Tried and rejected: small walk ..."):
 * pushing each kept row into shared words, a dependent load per kept row,
 * 4.7 us a step at 1000 @0.5; pulling from a list of the kept rows, 1.8 us;
 * warp 0 alone ORing the kept rows' later words itself, ~1250 cycles a step. */
constexpr int kSmallWalkWords = 16, kSmallWalkThreads = 1024;
static_assert(kSmallWalkThreads >= 64 * kSmallWalkWords, "a thread per box");

size_t small_walk_smem(int n) {
    return (size_t)n * (words_of(n) + 1) * sizeof(u64) + (size_t)n * sizeof(int);
}

/* The mask words the small walk reads (w > r / 64) and the diagonal column
 * words, into rows and diag: a thread per (word, row of each 64-row pass),
 * every pass's word in flight at once as cp.async (no registers held: plain
 * loads for all sixteen spill under the 1024-thread register cap, half of
 * them cost two L2 latencies). The caller's block barrier follows. In the
 * one-launch path other blocks of the grid wrote the mask: this SM loaded
 * none of it before the fence that precedes the copy (which empties L1). */
__device__ __forceinline__ void copy_walk_rows(const u64 *mask, const u64 *diag_col, int n,
                                               int words, u64 *rows, u64 *diag) {
    constexpr int kRowsAPass = kSmallWalkThreads / kSmallWalkWords;
    constexpr int kPasses = 64 * kSmallWalkWords / kRowsAPass;
    const int t = threadIdx.x, w = t % kSmallWalkWords, r0 = t / kSmallWalkWords;
    u64 d = t < n ? __ldcg(diag_col + t) : 0;
#pragma unroll
    for (int p = 0; p < kPasses; p++) {
        int r = r0 + p * kRowsAPass;
        if (r < n && w < words && w > r / 64)
            kb_cp_async8(rows + (size_t)r * words + w, mask + (size_t)r * words + w);
    }
    kb_cp_async_wait_all();
    if (t < n) diag[t] = d;
}

/* The walk over rows and diag in shared memory (after a block barrier), in
 * shared_walk.cuh's roles; keeps through rank_to_input. Threads past the
 * roles return at once. */
__device__ __forceinline__ void walk_shared_rows(const u64 *rows, const u64 *diag,
                                                 const int *rank_to_input, int n, int words,
                                                 int cap, int *keep, int *count,
                                                 kb_shared_walk::state<kSmallWalkWords> &hand) {
    const int t = threadIdx.x, lane = t & 31;
    if (t >= kb_shared_walk::kRoleThreads) return;
    /* Block j's diagonal column words, loaded before warp 0 reads its removed word. */
    auto fetch = [&](int j) {
        return make_ulonglong2(diag[min(64 * j + lane, n - 1)],
                               diag[min(64 * j + lane + 32, n - 1)]);
    };
    auto resolve = [&](int j, ulonglong2 c, u64 removed, int nk) {
        int valid = min(64, n - 64 * j);
        u64 decided = removed | (valid < 64 ? ~0ull << valid : 0ull) | (nk < cap ? 0ull : ~0ull);
        return first_bits(resolve_block(decided, c.x, c.y, lane), cap - nk);
    };
    auto write_keeps = [&](int j, u64 kb, int base) {
        for (int b = lane; b < 64; b += 32)
            if ((kb >> b) & 1)
                keep[base + __popcll(kb & ((1ull << b) - 1))] = rank_to_input[64 * j + b];
    };
    int nk = kb_shared_walk::walk(hand, rows, n, words, fetch, resolve, write_keeps);
    if (t == 0) *count = nk;
}

__global__ void __launch_bounds__(kSmallWalkThreads)
    walk_small_kernel(const u64 *mask, const u64 *diag_col, int n, int words, int cap,
                      const int *order, int *keep, int *count) {
    extern __shared__ u64 sm[];
    __shared__ kb_shared_walk::state<kSmallWalkWords> hand;
    u64 *rows = sm, *diag = sm + (size_t)n * words;
    int *rank_to_input = (int *)(diag + n);
    const int t = threadIdx.x;
    int o = t < n ? (order ? order[t] : t) : 0;
    copy_walk_rows(mask, diag_col, n, words, rows, diag);
    if (t < n) rank_to_input[t] = o;
    __syncthreads();
    walk_shared_rows(rows, diag, rank_to_input, n, words, cap, keep, count, hand);
}

cudaError_t launch_small_walk(const u64 *mask, const u64 *diag_col, int n, int cap,
                              const int *order, int *keep, int *count, cudaStream_t s) {
    size_t smem = small_walk_smem(n);
    if (smem > 48 * 1024) {
        cudaError_t rc = cudaFuncSetAttribute(
            walk_small_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (rc != cudaSuccess) return rc;
    }
    walk_small_kernel<<<1, kSmallWalkThreads, smem, s>>>(mask, diag_col, n, words_of(n), cap, order,
                                                         keep, count);
    return cudaGetLastError();
}

/* One launch up to 1024 boxes (the nms op's blockwalk; the sorted entry
 * kb_nms_sorted_blockwalk keeps the launches above): sort.cu's small sort, the
 * mask kernel and walk_small_kernel are three launches of ~5-8 us each at
 * 1000 boxes, mostly launch and ramp. Here every block ranks all the boxes
 * itself (kb_block_bitonic over 1024 keys, ~2.5 us, the same on every SM at
 * once), builds its share of the 64x64 tiles' rows from shared memory (an
 * even split of the rows, 16 lanes a row: at 1000 boxes 136 tiles' rows over
 * 132 SMs), writes them to global memory and counts itself
 * finished; the last block to finish copies the mask in and walks it. No
 * block waits on another, so the grid needs no co-residency. Shared memory:
 * the walk's rows (128 KB at 1024 boxes) and the ranked boxes; 1 block an SM. */
constexpr int kFusedThreads = kb_nms_one_launch::kThreads,
              kRowLanes = kb_nms_one_launch::kItemLanes;
static_assert(kFusedThreads == kSmallWalkThreads, "the walk's copy is a thread per (word, row)");

size_t fused_smem(int n) {
    return (size_t)n * (words_of(n) + 1) * sizeof(u64) +
           (size_t)kFusedThreads * (sizeof(float4) + 2 * sizeof(int));
}

template <bool kClasses>
__global__ void __launch_bounds__(kFusedThreads)
    fused_small_kernel(const float *scores, const float4 *boxes, const int *classes, int n,
                       int words, float thr, int cap, u64 *mask, u64 *diag_col, unsigned *finished,
                       int *keep, int *count) {
    extern __shared__ u64 sm[];
    __shared__ unsigned long long key[2][kFusedThreads];
    __shared__ kb_shared_walk::state<kSmallWalkWords> hand;
    __shared__ int last;
    const int t = threadIdx.x;
    float4 *box = (float4 *)sm; /* first: 16-byte aligned */
    u64 *rows = (u64 *)(box + kFusedThreads), *diag = rows + (size_t)n * words;
    int *cls = (int *)(diag + n), *rank_to_input = cls + kFusedThreads;
    kb_nms_one_launch::rank_boxes<kClasses>(scores, boxes, classes, n, box, cls, key, box, cls,
                                            rank_to_input);
    /* Tile rows: entry e of tile (rb, cb) is row box 64 rb + e. */
    auto same = [](int k) { return k; };
    kb_nms_one_launch::for_block_items(words, [&](int rb, int cb, int in_tile) {
        const int r = 64 * rb + in_tile;
        if (r >= n) return; /* a row's lanes alike */
        const int cols = min(64, n - 64 * cb);
        const float4 a = box[r], *col = box + 64 * cb;
        const int a_class = kClasses ? cls[r] : 0, *col_class = cls + 64 * cb;
        u64 bits = tile_word<kClasses, kRowLanes, false>(
            a, a_class, col, col_class, rb == cb ? in_tile + 1 : 0, cols, thr, same);
        if (t % kRowLanes == 0) mask[(size_t)r * words + cb] = bits;
        if (rb == cb) {
            u64 col_bits = tile_word<kClasses, kRowLanes, true>(a, a_class, col, col_class, 0,
                                                                in_tile, thr, same);
            if (t % kRowLanes == 0) diag_col[r] = col_bits;
        }
    });
    if (!kb_nms_one_launch::last_to_finish(finished, &last)) return;
    copy_walk_rows(mask, diag_col, n, words, rows, diag);
    __syncthreads();
    walk_shared_rows(rows, diag, rank_to_input, n, words, cap, keep, count, hand);
}

/* Sorted boxes -> x-pruned masks with far lists -> the block-step walk, or
 * below kSmallWalkWords column blocks the small walk; n = 0 writes count 0.
 * Each walk's kernel is chosen here and only here (carve sizes the lists). */
cudaError_t nms_sorted_blocks(const float4 *boxes, const int *classes, int n, float iou,
                              int max_out, const int *order, int *keep, int *count, void *ws,
                              cudaStream_t s) {
    if (n <= 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    ws_layout l = carve(ws, n, nullptr);
    if (!prunes(n)) l.xs = xsorted{};
    const kb_gpu *g = kb_gpu_current(); /* the small walk's rows fill 99 KB-class GPUs */
    bool small = words_of(n) <= kSmallWalkWords && (!g || small_walk_smem(n) <= g->smem_optin);
    if (small) l.far = far_lists{}; /* the small walk reads rows whole */
    kb_nvtx_push("mask");
    cudaError_t rc = build_masks(boxes, classes, n, iou, l.mask, l.diag_col, l.xs, l.far, s);
    kb_nvtx_pop();
    if (rc != cudaSuccess) return rc;
    kb_nvtx_push("walk");
    int cap = cap_of(n, max_out);
    if (small)
        rc = launch_small_walk(l.mask, l.diag_col, n, cap, order, keep, count, s);
    else
        rc = launch_walk(l.far.slots == kFewFarSlots ? walk_blocks_kernel<kFewFarSlots>
                                                     : walk_blocks_kernel<kFarSlots>,
                         kWalkThreads, l.mask, l.diag_col, l.far, n, cap, order, keep, count, s);
    kb_nvtx_pop();
    return rc;
}

} // namespace

cudaError_t kb_nms_sorted_blockwalk(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                    float iou, int max_out, const int *order, int *keep_out,
                                    int *count_out, void *workspace, size_t ws_bytes,
                                    cudaStream_t stream) {
    if (ws_bytes < kb_nms_sorted_workspace(n)) return cudaErrorInvalidValue;
    return nms_sorted_blocks(boxes_sorted, classes_sorted, n, iou, max_out, order, keep_out,
                             count_out, workspace, stream);
}

namespace {

/* The nms op's blockwalk: the sorted boxes' state, and the one launch's
 * shape where it fits (smem 0: the three launches). */
struct blockwalk_state {
    kb_nms_sorted sorted;
    int grid;
    size_t smem;
    unsigned *finished;
};

/* The one launch fits up to kSmallWalkWords column blocks and where its
 * shared memory, dynamic and static, is within the device's opt-in. */
cudaError_t plan_fused(blockwalk_state *st) {
    const kb_gpu *g = kb_gpu_current();
    int n = st->sorted.n, words = words_of(n);
    st->smem = 0;
    if (!g || n < 1 || words > kSmallWalkWords) return cudaSuccess;
    auto kernel = st->sorted.class_aware ? fused_small_kernel<true> : fused_small_kernel<false>;
    cudaFuncAttributes fa;
    cudaError_t rc = cudaFuncGetAttributes(&fa, kernel);
    if (rc != cudaSuccess) return rc;
    size_t smem = fused_smem(n);
    if (smem + fa.sharedSizeBytes > g->smem_optin) return cudaSuccess;
    rc = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (rc != cudaSuccess) return rc;
    st->finished = carve(st->sorted.nms_ws, n, nullptr).finished;
    rc = cudaMemset(st->finished, 0, sizeof(unsigned));
    if (rc != cudaSuccess) return rc;
    st->grid = min(words * (words + 1) / 2, g->sm_count);
    st->smem = smem;
    return cudaSuccess;
}

void blockwalk_delete(void *state) {
    blockwalk_state *st = (blockwalk_state *)state;
    if (!st) return;
    kb_nms_sorted_free(&st->sorted);
    free(st);
}

int blockwalk_new(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    (void)dev_in;
    blockwalk_state *st = (blockwalk_state *)calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "nms: out of host memory");
    int rc = kb_nms_sorted_setup(c, &st->sorted, e);
    if (rc == KB_OK) rc = kb_cuda_check(plan_fused(st), "nms blockwalk: the one launch's setup", e);
    if (rc != KB_OK) {
        blockwalk_delete(st);
        return rc;
    }
    *state = st;
    return KB_OK;
}

int blockwalk_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
                  kb_error *e) {
    blockwalk_state *st = (blockwalk_state *)state;
    if (!st->smem) return device_walk_run<nms_sorted_blocks>(&st->sorted, dev_in, dev_out, s, e);
    const kb_nms_sorted *so = &st->sorted;
    const float *scores = (const float *)kb_tensors_get(dev_in, "scores")->data;
    const float4 *boxes = (const float4 *)kb_tensors_get(dev_in, "boxes")->data;
    const int *classes = (const int *)kb_tensors_get(dev_in, "classes")->data;
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    ws_layout l = carve(so->nms_ws, so->n, nullptr);
    auto kernel = so->class_aware ? fused_small_kernel<true> : fused_small_kernel<false>;
    kb_nvtx_push("sort, masks and walk");
    kernel<<<st->grid, kFusedThreads, st->smem, s>>>(scores, boxes, classes, so->n, words_of(so->n),
                                                     so->iou, cap_of(so->n, so->max_out), l.mask,
                                                     l.diag_col, st->finished, keep, count);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "nms blockwalk: sort, masks and walk", e);
}

} // namespace

KB_DEFINE_VARIANT(nms, blockwalk) = {masks_supports, device_walk_bytes, blockwalk_new,
                                     blockwalk_run, blockwalk_delete};
