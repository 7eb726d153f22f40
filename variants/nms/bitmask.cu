/* bitmask.cu — greedy NMS through 64-bit suppression masks (the design of
 * torchvision's and mmcv's CUDA nms), three ways to walk them:
 *   bitmask_host   the mask to the host, a serial walk there, the keeps back
 *                  (the classic; KB_HOST_SYNC)
 *   bitmask_gpu    one block walks box by box (mmcv's gather_keep_from_mask)
 *   blockwalk      one block walks 64 boxes a step; x-pruned masks with far
 *                  lists, so the walk ORs ~24 words per kept row, not n/64
 * All sort first (sort.cu). The mask layout: above build_masks(). The walks:
 * above each kernel. Measurements: docs/perf-nms.md.
 *
 *   kbench run nms --sweep default -v bitmask_gpu,blockwalk
 */
#include "nms.h"
#include "variants/common/nms_device.cuh"
#include "nms_iou.h"
#include "variants/common/arch.cuh"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

namespace {

constexpr unsigned kFull = 0xffffffffu;

int words_of(int n) {
    return (n + 63) / 64;
}
int cap_of(int n, int max_out) {
    return max_out > 0 && max_out < n ? max_out : n;
}

/* kb_nms_iou(a, b) > thr exactly, the division only near the threshold. */
__device__ __forceinline__ bool suppresses(float4 a, float4 b, float thr) {
    return kb_nms_iou_above(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, thr);
}

/* Column blocks in x order, for pruning (xsort_kernel, once per 64-box
 * block): box[k] the block's boxes by x1 ascending (pads last), pos[k] their
 * place in the block, max_x2[k] the largest x2 of box[0..k]. flag = 1 when a
 * coordinate is NaN: then box/pos keep block order and nothing is pruned. */
struct xsorted {
    float4 *box;
    float *max_x2;
    unsigned char *pos;
    int *flag;
};

/* Far words of the mask rows in list form: for box r, the nonzero words
 * w >= r / 64 + 2 (the ones blockwalk's workers OR in), at most slots of
 * them: word[r * slots + s], bits[...], s < min(count[r], slots). A row with
 * more (count[r] > slots) is read from the dense mask. Uniform 100000 boxes
 * @0.5: ~24 far words per row of 1563 (<2% of rows over 60); 25200: ~6.
 * slots is kFarSlots, or kFewFarSlots up to kFewFarWords column blocks: the
 * walk's workers hold 64 x slots items a step, live or not, so fewer slots
 * mean fewer instructions on the step's path. */
constexpr int kFarSlots = 60, kFewFarSlots = 30, kFewFarWords = 512;
struct far_lists {
    u64 *bits;
    int *word, *count; /* count: zeroed before the mask kernel */
    int slots;
};

/* Rank by counting (64 compares per thread, one barrier): a strict order on
 * (pad, x1, index) when no x is NaN, so the ranks are a permutation. */
__global__ void __launch_bounds__(64)
    xsort_kernel(const float4 *boxes, int n, xsorted xs, int *far_count) {
    __shared__ float key[64], x2[64];
    __shared__ int pad[64];
    int cb = blockIdx.x, t = threadIdx.x, cols = min(64, n - 64 * cb);
    float4 b = t < cols ? boxes[64 * cb + t] : make_float4(0, 0, 0, 0);
    if (far_count && t < cols) far_count[64 * cb + t] = 0; /* no memset launch */
    key[t] = b.x;
    pad[t] = t >= cols;
    int nan = __syncthreads_or(t < cols && (isnan(b.x) || isnan(b.z)));
    int rank = 0;
    for (int s = 0; s < 64 && !nan; s++)
        rank += pad[s] < pad[t] ||
                (pad[s] == pad[t] && (key[s] < key[t] || (key[s] == key[t] && s < t)));
    if (nan) rank = t;
    if (t < cols) {
        xs.box[64 * cb + rank] = b;
        xs.pos[64 * cb + rank] = (unsigned char)t;
        x2[rank] = b.z;
    }
    __syncthreads();
    if (t == 0) {
        float m = -INFINITY;
        for (int k = 0; k < cols; k++) xs.max_x2[64 * cb + k] = m = fmaxf(m, x2[k]);
        xs.flag[cb] = nan;
    }
}

/* Columns [lo, hi) of an x-sorted tile can intersect box a: before lo every
 * x2 <= a.x1, from hi on every x1 >= a.x2, so there min(x2) <= max(x1): the
 * intersection width rounds to <= 0, inter = 0 and IoU <= thr for any thr in
 * [0, 1] (exact: no arithmetic on the bounds, only comparisons). */
__device__ __forceinline__ void x_window(float4 a, const float4 *col, const float *max_x2, int cols,
                                         int &lo, int &hi) {
    lo = hi = 0;
    for (int step = 64; step; step >>= 1) {
        if (lo + step <= cols && max_x2[lo + step - 1] <= a.x) lo += step;
        if (hi + step <= cols && col[hi + step - 1].x < a.z) hi += step;
    }
}

/* 64x64 tiles: thread t computes row box 64 rb + t against column blocks
 * cb = tiles * blockIdx.x + q (q < tiles, only cb >= rb): several tiles per
 * block at large n, so that the lower triangle costs few empty blocks.
 * diag_col (may be NULL): on the diagonal tile also the column form,
 * diag_col[r] bit k = box 64 rb + k (k < r % 64) suppresses box r, computed
 * with the same argument order as the row form, so both agree bit for bit.
 * xs.box non-NULL: off-diagonal tiles read the column block in x order and
 * each row box tests only its x window (uniform boxes in the peer cases
 * overlap a box's x range with ~20% of the others: ~25 of 64 tests per tile).
 * kSplit threads share a row (columns k = q mod kSplit, words ORed by
 * shuffles): at small n (1000 boxes: 136 tiles) one thread per row leaves
 * the chip idle and each thread's 64 dependent tests on the critical path. */
template <bool kClasses, int kSplit>
__global__ void __launch_bounds__(64 * kSplit)
    mask_kernel(const float4 *boxes, const int *classes, int n, int words, int tiles, float thr,
                u64 *mask, u64 *diag_col, xsorted xs, far_lists far) {
    int rb = blockIdx.y, cb0 = blockIdx.x * tiles, tid = threadIdx.x;
    int t = tid / kSplit, q = tid % kSplit;
    unsigned group = (kFull >> (32 - kSplit)) << ((tid & 31) & ~(kSplit - 1));
    if (cb0 + tiles - 1 < rb) return;
    __shared__ float4 col[64];
    __shared__ float col_max_x2[64];
    __shared__ int col_class[64];
    __shared__ unsigned char col_pos[64];
    int rows = min(64, n - 64 * rb), r = 64 * rb + t;
    float4 a = t < rows ? boxes[r] : make_float4(0, 0, 0, 0);
    int a_class = kClasses && t < rows ? classes[r] : 0;
    bool a_nan = isnan(a.x) || isnan(a.z);
    for (int cb = max(cb0, rb); cb < min(cb0 + tiles, words); cb++) {
        int cols = min(64, n - 64 * cb);
        bool sorted = xs.box && cb != rb;
        __syncthreads(); /* the previous tile's readers are done */
        if (tid < cols) {
            int pos = sorted ? xs.pos[64 * cb + tid] : tid;
            col[tid] = sorted ? xs.box[64 * cb + tid] : boxes[64 * cb + tid];
            col_pos[tid] = (unsigned char)pos;
            if (sorted) col_max_x2[tid] = xs.max_x2[64 * cb + tid];
            if (kClasses) col_class[tid] = classes[64 * cb + pos];
        }
        int whole = !sorted || xs.flag[cb];
        __syncthreads();
        if (t >= rows) continue;
        int lo = rb == cb ? t + 1 : 0, hi = cols;
        if (!whole && !a_nan) x_window(a, col, col_max_x2, cols, lo, hi);
        u64 bits = 0;
        for (int k = lo + q; k < hi; k += kSplit)
            if ((!kClasses || col_class[k] == a_class) && suppresses(a, col[k], thr))
                bits |= 1ull << col_pos[k];
        for (int o = 1; o < kSplit; o <<= 1) bits |= __shfl_xor_sync(group, bits, o);
        if (q == 0) mask[(size_t)r * words + cb] = bits;
        if (q == 0 && far.count && bits && cb >= rb + 2) {
            int slot = atomicAdd(&far.count[r], 1);
            if (slot < far.slots) {
                far.bits[(size_t)r * far.slots + slot] = bits;
                far.word[(size_t)r * far.slots + slot] = cb;
            }
        }
        if (rb == cb && diag_col) {
            u64 col_bits = 0;
            for (int k = q; k < t; k += kSplit)
                if ((!kClasses || col_class[k] == a_class) && suppresses(col[k], a, thr))
                    col_bits |= 1ull << k;
            for (int o = 1; o < kSplit; o <<= 1) col_bits |= __shfl_xor_sync(group, col_bits, o);
            if (q == 0) diag_col[r] = col_bits;
        }
    }
}

/* Box-by-box walk (bitmask_gpu). A decision at box i reads only bit i, which
 * rows of later boxes never set, so threads may run ahead between barriers. */
__global__ void __launch_bounds__(1024)
    walk_boxes_kernel(const u64 *mask, const u64 *diag_col, far_lists far, int n, int words,
                      int cap, const int *order, int *keep, int *count) {
    extern __shared__ u64 removed[];
    (void)diag_col, (void)far;
    int t = threadIdx.x;
    for (int w = t; w < words; w += blockDim.x) removed[w] = 0;
    __syncthreads();
    /* The current block's word lives in a register of every thread (each
     * ORs a kept row's word into its own copy), so shared memory is written
     * only above it and never while another thread reads it. */
    u64 cur = 0;
    int nk = 0;
    for (int i = 0; i < n && nk < cap; i++) {
        if ((i & 63) == 0) cur = removed[i >> 6];
        if ((cur >> (i & 63)) & 1) continue;
        if (t == 0) keep[nk] = order ? order[i] : i;
        nk++;
        const u64 *row = mask + (size_t)i * words;
        cur |= row[i >> 6];
        for (int w = (i >> 6) + 1 + t; w < words; w += blockDim.x) removed[w] |= row[w];
        __syncthreads();
    }
    if (t == 0) *count = nk;
}

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

/* OR of a 64-bit value over the warp: two 32-bit reductions side by side
 * (five dependent 64-bit shuffle rounds cost ~10 shuffle latencies). */
__device__ __forceinline__ u64 warp_or(u64 v) {
#if !KB_SM80 /* no redux.sync before 8.0: a butterfly of shuffles */
    for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(kFull, v, o);
    return v;
#else
    unsigned lo = __reduce_or_sync(kFull, (unsigned)v),
             hi = __reduce_or_sync(kFull, (unsigned)(v >> 32));
    return (u64)hi << 32 | lo;
#endif
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
 * The resolve is resolve_block; the carry a warp_or. One barrier per step;
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
            carry = warp_or((((kb >> lane) & 1) ? cur.p0 : 0) |
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
 * column words and the ranking into shared memory, then warp 0 walks alone,
 * with no barrier and no global load on the way. Lane l owns column word
 * l % 16 for the rows of half l / 16 of every block: after block j resolves,
 * each lane ORs the word of its half's kept rows into a register (32
 * predicated shared loads at addresses known from the kept bits, none
 * waiting on another), and block j + 1's removed word is the OR of the two
 * lanes that own it. Rejected forms (docs/perf-nms.md, "Tried and rejected:
 * small walk ..."): pushing each kept
 * row into shared words, a dependent load per kept row, took 4.7 us a step
 * at 1000 @0.5; pulling from a list of the kept rows, two dependent loads a
 * round and rounds growing with the keeps, 1.8 us. */
constexpr int kSmallWalkWords = 16, kSmallWalkThreads = 1024;

size_t small_walk_smem(int n) {
    return (size_t)n * (words_of(n) + 1) * sizeof(u64) + (size_t)n * sizeof(int);
}

__global__ void __launch_bounds__(kSmallWalkThreads)
    walk_small_kernel(const u64 *mask, const u64 *diag_col, int n, int words, int cap,
                      const int *order, int *keep, int *count) {
    extern __shared__ u64 sm[];
    u64 *rows = sm, *diag = sm + (size_t)n * words;
    int *rank_to_input = (int *)(diag + n);
    int t = threadIdx.x, lane = t & 31;
    /* 64 rows a pass, a thread per (row, word): only the words the walk reads. */
#pragma unroll 4
    for (int r = t / kSmallWalkWords; r < n; r += kSmallWalkThreads / kSmallWalkWords) {
        int w = t % kSmallWalkWords;
        if (w < words && w > r / 64) rows[r * words + w] = mask[(size_t)r * words + w];
    }
    for (int r = t; r < n; r += kSmallWalkThreads) {
        diag[r] = diag_col[r];
        rank_to_input[r] = order ? order[r] : r;
    }
    __syncthreads();
    if (t >= 32) return;
    static_assert(kSmallWalkWords == 16, "two lanes own each word");
    int word = lane & 15, half = lane >> 4;
    u64 removed = 0; /* word `word` of the kept rows of `half` so far */
    int nk = 0;
    for (int j = 0; j < words && nk < cap; j++) {
        int valid = min(64, n - 64 * j);
        u64 c0 = diag[min(64 * j + lane, n - 1)], c1 = diag[min(64 * j + lane + 32, n - 1)];
        u64 decided = __shfl_sync(kFull, removed, j) | __shfl_sync(kFull, removed, j + 16) |
                      (valid < 64 ? ~0ull << valid : 0ull);
        u64 kb = first_bits(resolve_block(decided, c0, c1, lane), cap - nk);
        for (int b = lane; b < 64; b += 32)
            if ((kb >> b) & 1)
                keep[nk + __popcll(kb & ((1ull << b) - 1))] = rank_to_input[64 * j + b];
        nk += __popcll(kb);
        if (word > j && word < words) {
            unsigned mine = (unsigned)(kb >> (32 * half));
            const u64 *row = rows + (size_t)(64 * j + 32 * half) * words + word;
#pragma unroll
            for (int b = 0; b < 32; b++)
                if ((mine >> b) & 1) removed |= row[b * words];
        }
    }
    if (lane == 0) *count = nk;
}

/* Masks: box r's word w has bit b set when r suppresses box 64 w + b (same
 * class, IoU > thr, rank after r); only w >= r/64 is computed, a 64x64 tile
 * per 64-thread block (4 threads a row under 4096 boxes). blockwalk's build
 * tests only x-overlapping pairs (x-sorted column blocks) and writes each
 * row's nonzero far words as a short list.
 * xs.box NULL: every tile whole (the baselines' design); far.count NULL:
 * no far lists. */
cudaError_t build_masks(const float4 *boxes, const int *classes, int n, float iou, u64 *mask,
                        u64 *diag_col, xsorted xs, far_lists far, cudaStream_t s) {
    if (n <= 0) return cudaSuccess;
    int words = words_of(n), tiles = words >= 256 ? 4 : 1;
    if (far.count && !xs.box) { /* else xsort_kernel zeroes the counts */
        cudaError_t rc = cudaMemsetAsync(far.count, 0, (size_t)n * sizeof(int), s);
        if (rc != cudaSuccess) return rc;
    }
    if (xs.box) {
        xsort_kernel<<<words, 64, 0, s>>>(boxes, n, xs, far.count);
        cudaError_t rc = cudaGetLastError();
        if (rc != cudaSuccess) return rc;
    }
    dim3 grid((words + tiles - 1) / tiles, words);
    /* Below 64 words (4096 boxes) the grid has under ~2100 tiles: 4 threads a row. */
    auto launch = [&](auto kernel, int split) {
        kernel<<<grid, 64 * split, 0, s>>>(boxes, classes, n, words, tiles, iou, mask, diag_col, xs,
                                           far);
    };
    bool small = words < 64;
    if (classes)
        small ? launch(mask_kernel<true, 4>, 4) : launch(mask_kernel<true, 1>, 1);
    else
        small ? launch(mask_kernel<false, 4>, 4) : launch(mask_kernel<false, 1>, 1);
    return cudaGetLastError();
}

size_t align_up(size_t b) {
    return (b + 255) / 256 * 256;
}

/* Workspace: the mask (n rows of words), the diagonal column words (n), then
 * the x-sorted column blocks. */
struct ws_layout {
    u64 *mask, *diag_col;
    xsorted xs;
    far_lists far;
};

/* One list of the regions, for both the pointers and the size. */
ws_layout carve(void *ws, int n, size_t *bytes) {
    size_t at = 0;
    auto take = [&](size_t b) {
        void *p = (void *)((uintptr_t)ws + at); /* ws may be NULL: sizes only */
        at += align_up(b);
        return p;
    };
    ws_layout l;
    l.mask = (u64 *)take((size_t)n * words_of(n) * sizeof(u64));
    l.diag_col = (u64 *)take((size_t)n * sizeof(u64));
    l.xs.box = (float4 *)take((size_t)n * sizeof(float4));
    l.xs.max_x2 = (float *)take((size_t)n * sizeof(float));
    l.xs.flag = (int *)take((size_t)words_of(n) * sizeof(int));
    l.xs.pos = (unsigned char *)take((size_t)n);
    l.far.slots = words_of(n) <= kFewFarWords ? kFewFarSlots : kFarSlots;
    l.far.bits = (u64 *)take((size_t)n * l.far.slots * sizeof(u64));
    l.far.word = (int *)take((size_t)n * l.far.slots * sizeof(int));
    l.far.count = (int *)take((size_t)n * sizeof(int));
    if (bytes) *bytes = at;
    return l;
}

size_t carve_bytes(int n) {
    size_t bytes;
    carve(nullptr, n, &bytes);
    return bytes;
}

typedef void (*walk_kernel)(const u64 *, const u64 *, far_lists, int, int, int, const int *, int *,
                            int *);

cudaError_t launch_walk(walk_kernel kernel, int threads, const u64 *mask, const u64 *diag_col,
                        far_lists far, int n, int cap, const int *order, int *keep, int *count,
                        cudaStream_t s) {
    int words = words_of(n);
    size_t smem = (size_t)words * sizeof(u64);
    if (smem > 48 * 1024) {
        cudaError_t rc =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (rc != cudaSuccess) return rc;
    }
    kernel<<<1, threads, smem, s>>>(mask, diag_col, far, n, words, cap, order, keep, count);
    return cudaGetLastError();
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

/* The two GPU walks: box by box (bitmask_gpu: whole masks, no pruning) or
 * block by block (blockwalk: x-pruned masks with far lists, and below
 * kSmallWalkWords column blocks the small walk). */
enum walk_kind { kWalkBoxes, kWalkBlocks };

/* Sorted boxes -> masks -> walk; n = 0 writes count 0. Each walk's kernel
 * and far-list slots are chosen here and only here (carve sizes the lists). */
cudaError_t nms_sorted_masks(walk_kind walk, const float4 *boxes, const int *classes, int n,
                             float iou, int max_out, const int *order, int *keep, int *count,
                             void *ws, cudaStream_t s) {
    if (n <= 0) return cudaMemsetAsync(count, 0, sizeof(int), s);
    ws_layout l = carve(ws, n, nullptr);
    bool prune = walk == kWalkBlocks;
    if (!prune) l.far = far_lists{};
    /* Pruning pays for its xsort launch only beyond ~64 column blocks. */
    if (!prune || words_of(n) < 64) l.xs = xsorted{};
    const kb_gpu *g = kb_gpu_current(); /* the small walk's rows fill 99 KB-class GPUs */
    bool small =
        prune && words_of(n) <= kSmallWalkWords && (!g || small_walk_smem(n) <= g->smem_optin);
    if (small) l.far = far_lists{}; /* the small walk reads rows whole */
    kb_nvtx_push("mask");
    cudaError_t rc = build_masks(boxes, classes, n, iou, l.mask, l.diag_col, l.xs, l.far, s);
    kb_nvtx_pop();
    if (rc != cudaSuccess) return rc;
    kb_nvtx_push("walk");
    int cap = cap_of(n, max_out);
    if (small)
        rc = launch_small_walk(l.mask, l.diag_col, n, cap, order, keep, count, s);
    else if (!prune)
        rc = launch_walk(walk_boxes_kernel, 1024, l.mask, l.diag_col, l.far, n, cap, order, keep,
                         count, s);
    else
        rc = launch_walk(l.far.slots == kFewFarSlots ? walk_blocks_kernel<kFewFarSlots>
                                                     : walk_blocks_kernel<kFarSlots>,
                         kWalkThreads, l.mask, l.diag_col, l.far, n, cap, order, keep, count, s);
    kb_nvtx_pop();
    return rc;
}

} // namespace

size_t kb_nms_mask_bytes(int n) {
    return (size_t)n * words_of(n) * sizeof(u64);
}

/* The bitmask walks' layout (carve); fast NMS needs n bytes, less than the mask. */
size_t kb_nms_sorted_workspace(int n) {
    return n > 0 ? carve_bytes(n) : 256;
}

cudaError_t kb_nms_build_masks(const float4 *boxes_sorted, const int *classes_sorted, int n,
                               float iou, u64 *mask, cudaStream_t stream) {
    return build_masks(boxes_sorted, classes_sorted, n, iou, mask, NULL, xsorted{}, far_lists{},
                       stream);
}

cudaError_t kb_nms_sorted_bitmask_gpu(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                      float iou, int max_out, const int *order, int *keep_out,
                                      int *count_out, void *workspace, size_t ws_bytes,
                                      cudaStream_t stream) {
    if (ws_bytes < kb_nms_sorted_workspace(n)) return cudaErrorInvalidValue;
    return nms_sorted_masks(kWalkBoxes, boxes_sorted, classes_sorted, n, iou, max_out, order,
                            keep_out, count_out, workspace, stream);
}

cudaError_t kb_nms_sorted_blockwalk(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                    float iou, int max_out, const int *order, int *keep_out,
                                    int *count_out, void *workspace, size_t ws_bytes,
                                    cudaStream_t stream) {
    if (ws_bytes < kb_nms_sorted_workspace(n)) return cudaErrorInvalidValue;
    return nms_sorted_masks(kWalkBlocks, boxes_sorted, classes_sorted, n, iou, max_out, order,
                            keep_out, count_out, workspace, stream);
}

/* ---- the variants ---- */

namespace {

/* The walks keep the removed bits of all boxes in shared memory (8 bytes per
 * 64 boxes): 227 KB on an H100 holds 1.8M boxes, 99 KB on an L4 800k. The
 * mask is n^2/8 bytes. */
int masks_supports(const kb_case *c, kb_error *why) {
    const kb_gpu *g = kb_gpu_current();
    int64_t n = kb_nms_params_of(c).n;
    int64_t smem = (n + 63) / 64 * 8, limit = g ? (int64_t)g->smem_optin : INT64_MAX;
    if (smem > limit)
        return kb_fail(why, "the walk's removed bits need %lld bytes of shared memory > %lld",
                       (long long)smem, (long long)limit),
               KB_UNSUPPORTED;
    return KB_OK;
}

size_t device_walk_bytes(const kb_case *c) {
    return kb_nms_sorted_state_bytes(c);
}

template <walk_kind kWalk>
int device_walk_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
                    kb_error *e) {
    kb_nms_sorted *st = (kb_nms_sorted *)state;
    if (kb_nms_sorted_fill(st, dev_in, s, e) != KB_OK) return KB_ERR;
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    return kb_cuda_check(nms_sorted_masks(kWalk, st->boxes, st->classes, st->n, st->iou,
                                          st->max_out, st->order, keep, count, st->nms_ws, s),
                         "nms masks + walk", e);
}

/* bitmask_host: the mask and the ranking go to pinned host memory. */
struct host_walk {
    kb_nms_sorted dev;
    u64 *mask;    /* pinned, n * words */
    int *order;   /* pinned, n */
    int *keep;    /* pinned, cap + 1: the keeps, then the count */
    u64 *removed; /* words */
};

void host_walk_teardown(void *state) {
    host_walk *h = (host_walk *)state;
    kb_nms_sorted_free(&h->dev);
    if (h->mask) cudaFreeHost(h->mask);
    if (h->order) cudaFreeHost(h->order);
    if (h->keep) cudaFreeHost(h->keep);
    free(h->removed);
    free(h);
}

int host_walk_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    (void)dev_in;
    host_walk *h = (host_walk *)calloc(1, sizeof *h);
    if (!h) return kb_fail(e, "nms: out of host memory");
    int rc = kb_nms_sorted_setup(c, &h->dev, e);
    if (rc != KB_OK) {
        free(h);
        return rc;
    }
    int n = h->dev.n;
    size_t mask_bytes = kb_nms_mask_bytes(n > 0 ? n : 1);
    h->removed = (u64 *)calloc((size_t)words_of(n) + 1, sizeof(u64));
    if (cudaMallocHost((void **)&h->mask, mask_bytes) != cudaSuccess ||
        cudaMallocHost((void **)&h->order, (size_t)(n + 1) * sizeof(int)) != cudaSuccess ||
        cudaMallocHost((void **)&h->keep, (size_t)(cap_of(n, h->dev.max_out) + 1) * sizeof(int)) !=
            cudaSuccess ||
        !h->removed) {
        cudaGetLastError();
        host_walk_teardown(h);
        kb_fail(e, "nms bitmask_host: pinned host allocation of %zu bytes failed (n=%d)",
                mask_bytes, n);
        return KB_OUT_OF_MEMORY;
    }
    /* The mask kernel writes only the tiles on and above the diagonal; the
     * copy to the host takes the whole mask, so the rest starts zeroed. */
    cudaError_t zeroed = n > 0 ? cudaMemset(h->dev.nms_ws, 0, kb_nms_mask_bytes(n)) : cudaSuccess;
    if (zeroed != cudaSuccess) {
        host_walk_teardown(h);
        return kb_cuda_check(zeroed, "cudaMemset(mask)", e);
    }
    *state = h;
    return KB_OK;
}

int host_walk_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
                  kb_error *e) {
    host_walk *h = (host_walk *)state;
    kb_nms_sorted *st = &h->dev;
    int n = st->n, words = words_of(n), cap = cap_of(n, st->max_out);
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    if (kb_nms_sorted_fill(st, dev_in, s, e) != KB_OK) return KB_ERR;
    KB_CUDA_TRY(kb_nms_build_masks(st->boxes, st->classes, n, st->iou, (u64 *)st->nms_ws, s), e);
    kb_nvtx_push("mask to host");
    if (n > 0) {
        KB_CUDA_TRY(
            cudaMemcpyAsync(h->mask, st->nms_ws, kb_nms_mask_bytes(n), cudaMemcpyDeviceToHost, s),
            e);
        KB_CUDA_TRY(cudaMemcpyAsync(h->order, st->order, (size_t)n * sizeof(int),
                                    cudaMemcpyDeviceToHost, s),
                    e);
    }
    KB_CUDA_TRY(cudaStreamSynchronize(s), e);
    kb_nvtx_pop();
    kb_nvtx_push("walk");
    memset(h->removed, 0, (size_t)words * sizeof(u64));
    int nk = 0;
    for (int i = 0; i < n && nk < cap; i++) {
        if ((h->removed[i >> 6] >> (i & 63)) & 1) continue;
        h->keep[nk++] = h->order[i];
        const u64 *row = h->mask + (size_t)i * words;
        for (int w = i >> 6; w < words; w++) h->removed[w] |= row[w];
    }
    h->keep[cap] = nk;
    kb_nvtx_pop();
    if (nk > 0)
        KB_CUDA_TRY(
            cudaMemcpyAsync(keep, h->keep, (size_t)nk * sizeof(int), cudaMemcpyHostToDevice, s), e);
    KB_CUDA_TRY(cudaMemcpyAsync(count, h->keep + cap, sizeof(int), cudaMemcpyHostToDevice, s), e);
    return KB_OK;
}

} // namespace

extern "C" const kb_variant_impl kb_nms_bitmask_host = {
    masks_supports, device_walk_bytes, host_walk_setup, host_walk_run, host_walk_teardown};
extern "C" const kb_variant_impl kb_nms_bitmask_gpu = {
    masks_supports, device_walk_bytes, kb_nms_sorted_new, device_walk_run<kWalkBoxes>,
    kb_nms_sorted_delete};
extern "C" const kb_variant_impl kb_nms_blockwalk = {
    masks_supports, device_walk_bytes, kb_nms_sorted_new, device_walk_run<kWalkBlocks>,
    kb_nms_sorted_delete};
