/* coop_select.cu — top-k of segments held, together, in the shared memory
 * of the whole GPU: the 64-bit radix select in ONE cooperative kernel.
 *
 *   kbench run topk -v coop_select,grid_select -a segments=1x1048576 -a k=[100,1000]
 *   kbench run topk -v coop_select,radix_select -a segments=rpn5
 *
 * The rule is grid_select's (grid_select.h: composites (key, ~index), six
 * radix levels, a bin taken whole ends the select), without its chain of
 * launches. One block per SM; the blocks are split over the segments by
 * their lengths (coop_select.h) and each keeps its part of one segment's
 * keys in shared memory. All segments select at once, level by level:
 *   - a level is a histogram of the keys still in play, one flush into the
 *     segment's global histogram, ONE grid barrier for every segment, and
 *     the same pick made by each block of the segment from that histogram;
 *   - no candidate lists: a key is in play while its composite's higher
 *     digits equal the prefix picked so far; when the picked bin is taken
 *     whole, or holds at most kSlack more than needed (kb_grid_ends), the
 *     segment's blocks emit the composites at or above the final prefix;
 *   - level 0 also counts the bits below its digit in a window under each
 *     block's highest key (coop_select.h): when those counts end the select
 *     at level 0's barrier, no level 1 follows (rpn5: two grid barriers,
 *     not three);
 *   - the levels go on until every segment has ended (counted per level,
 *     read after each barrier), then each block ranks its share of one
 *     segment's candidates against all of them, from shared memory, and
 *     writes those ranked below k (rank_candidates).
 * Refuses more segments than kMaxSegments or than the grid has blocks,
 * k > 4096, keys that do not fit the grid's shared memory (16M on an H100:
 * grid_select's case), and devices without cooperative launch. The plan
 * and launch are kb_topk_coop_* (topk_device.cuh), which rpn_proposals/fused
 * calls too. Design and measurements: docs/perf-topk.md, section coop_select.
 */
#include "coop_select.h"
#include "grid_select.cuh"

#include "../common/topk_device.cuh"
#include "../common/variant_def.h"

#include <cooperative_groups.h>

#include <stdlib.h>

namespace cg = cooperative_groups;

namespace {

typedef unsigned long long u64;

constexpr int kThreads = 1024;   /* one block per SM */
constexpr int kMaxSegments = 64; /* each needs a block; more are radix_select's */
constexpr int kMaxWant = 4096;   /* a segment's candidates ranked from shared memory: 34 KB */
constexpr int kMaxBlocks = 256;  /* the grid: one block per SM, this many at most */
/* Candidates beyond want a segment may take: a pick whose bin holds at most
 * kSlack composites more than needed ends the select (kb_grid_ends), and the
 * rank drops the extra. Uniform scores, 1M keys, k = 1000: ~128 a bin after
 * level 1, so the select ends there instead of at level 2 (a level is ~3 us
 * of barrier and L2 round trips). */
constexpr int kSlack = 256;
constexpr int kLoadBatch = 8; /* global loads in flight per thread */
constexpr int kFineCounts = KB_COOP_FINE_WINDOW * KB_COOP_FINE_BINS; /* a block's window */
/* level 0's histogram and the window's fine counts, scans, picks */
constexpr size_t kStaticSmem = (KB_GRID_BINS + kFineCounts + 64) * 4;

/* The grid's state: each segment's histogram per level, and its candidate
 * count; ended_by[L]: the segments that ended at level L or before (one
 * load decides, after each barrier, whether any segment goes on). The
 * histograms are zero before a launch (setup, then each launch zeroes those
 * it used after its last barrier); the counts are zeroed by block 0 before
 * the first barrier (nothing touches them before it). */
struct Ctl {
    unsigned hist[KB_GRID_LEVELS][KB_GRID_BINS];
    unsigned cands;
    unsigned floor; /* the highest of its blocks' kb_coop_fine_floor */
};
/* A segment's fine counts by level-0 bin (coop_select.h), zero before a
 * launch: each block zeroes those it added after the last barrier. */
typedef unsigned Fine[KB_GRID_BINS][KB_COOP_FINE_BINS];
struct Grid {
    unsigned ended_by[KB_GRID_LEVELS];
};
/* The plan, passed by value as a kernel parameter (3.6 KB): a block reads
 * its part from the constant bank, not memory, so the load of its keys
 * waits on one DRAM round trip (the segment's offset), not three. Each
 * block's part, then each segment's first output and candidate slot. */
struct Table {
    kb_coop_part parts[kMaxBlocks];
    int want_base[kMaxSegments + 1], cand_base[kMaxSegments + 1];
    int rank_base[kMaxSegments + 1]; /* kb_coop_rank_split */
};

/* The block's keys [lo, hi) of seg into shared memory as radix keys, their
 * level-0 digits counted into sh (zeroed) on the way; returns the thread's
 * highest key (0 for none). The caller's barrier publishes both. */
__device__ __forceinline__ uint32_t load_keys(const float *seg, int lo, int hi, uint32_t *keys,
                                              unsigned *sh) {
    uint32_t most = 0;
    kb_topk_load_keys<kThreads, kLoadBatch>(seg + lo, hi - lo, [&](int i, uint32_t key) {
        keys[i] = key;
        most = max(most, key);
        atomicAdd(&sh[kb_grid_digit(kb_grid_composite(key, 0), 0)], 1u);
    });
    return most;
}

/* Level 0 of the block's keys: loaded, counted, and flushed into the
 * segment's histogram; then the fine counts of its bins [*low, *top]
 * (coop_select.h) flushed into `fine`, and the block's floor into the
 * segment's. shf (kFineCounts) and sh zero on entry. */
__device__ __forceinline__ void load_level0(const float *seg, int lo, int hi, unsigned want,
                                            uint32_t *keys, unsigned *sh, unsigned *shf,
                                            unsigned *top, unsigned *low, Ctl *ctl, Fine &fine) {
    uint32_t most = load_keys(seg, lo, hi, keys, sh);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) most = max(most, __shfl_xor_sync(0xffffffffu, most, o));
    if ((threadIdx.x & 31) == 0) atomicMax(top, kb_grid_digit(kb_grid_composite(most, 0), 0));
    kb_grid_flush_hist(sh, ctl->hist[0]); /* its barrier publishes keys, sh and top */
    const uint32_t t = *top;
    if (threadIdx.x < 32) { /* kb_coop_fine_low as a warp scan from the top */
        const uint32_t l = threadIdx.x;
        uint32_t sum = l < KB_COOP_FINE_WINDOW && l <= t ? sh[t - l] : 0u;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t v = __shfl_up_sync(0xffffffffu, sum, o);
            if (l >= (uint32_t)o) sum += v;
        }
        const unsigned hit =
            __ballot_sync(0xffffffffu, sum >= want && l < KB_COOP_FINE_WINDOW && l <= t);
        const uint32_t bottom = t >= KB_COOP_FINE_WINDOW - 1 ? t - (KB_COOP_FINE_WINDOW - 1) : 0u;
        if (l == 0) *low = hit ? t - (uint32_t)(__ffs((int)hit) - 1) : bottom;
    }
    __syncthreads();
    const uint32_t w = *low;
    int below = 0;
#pragma unroll 1
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads) {
        const u64 c = kb_grid_composite(keys[i], 0);
        const uint32_t d = kb_grid_digit(c, 0);
        if (d >= w)
            atomicAdd(&shf[(t - d) * KB_COOP_FINE_BINS + kb_coop_fine_digit(c)], 1u);
        else
            below = 1;
    }
    below = __syncthreads_or(below);
#pragma unroll 1
    for (int e = (int)threadIdx.x; e < (int)(t - w + 1) * KB_COOP_FINE_BINS; e += kThreads)
        if (shf[e]) atomicAdd(&fine[t - e / KB_COOP_FINE_BINS][e % KB_COOP_FINE_BINS], shf[e]);
    if (threadIdx.x == 0 && below) atomicMax(&ctl->floor, kb_coop_fine_floor(w, 1));
}

/* After level 0's pick of `bin` (r still to find, the segment's fine
 * counts complete): warp 0 picks from the bin's fine counts (`near`: those
 * of bin `top`, loaded after the barrier in case the pick is the block's
 * own top bin); every thread gets whether they end the select, and the
 * 18-bit prefix. */
__device__ __forceinline__ bool fine_ends(const Fine &fine, uint32_t bin, uint32_t r, uint4 near,
                                          uint32_t top, u64 *prefix) {
    __shared__ unsigned ends;
    __shared__ u64 at;
    if (threadIdx.x < 32) {
        const int lane = (int)threadIdx.x;
        const uint4 q = bin == top ? near : __ldcg((const uint4 *)&fine[bin][4 * lane]);
        const uint32_t n[4] = {q.x, q.y, q.z, q.w};
        const uint32_t sum = n[0] + n[1] + n[2] + n[3];
        /* the counts of the higher lanes (higher sub-bins): a suffix scan */
        uint32_t incl = sum;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t v = __shfl_down_sync(0xffffffffu, incl, o);
            if (lane + o < 32) incl += v;
        }
        uint32_t above = incl - sum;
        kb_grid_pick p;
        int found = 0, end = 0;
#pragma unroll
        for (int j = 3; j >= 0; j--) {
            if (!found && kb_grid_pick_step((uint32_t)(4 * lane + j), above, n[j], r, &p)) {
                found = 1;
                end = kb_grid_ends(&p, n[j], kSlack);
            }
            above += n[j];
        }
        const unsigned who = __ballot_sync(0xffffffffu, found);
        if (who == 0u && lane == 0) ends = 0u; /* fewer than r: level 1 decides */
        if (found) {
            ends = (unsigned)end;
            at = ((u64)bin << KB_COOP_FINE_BITS) | p.bin;
        }
    }
    __syncthreads();
    const bool out = ends != 0u;
    if (out) *prefix = at;
    __syncthreads(); /* ends and at are written by the next call */
    return out;
}

/* Level `level`'s (>= 1) digits of the block's composites still in play
 * into sh, flushed into the segment's histogram. */
__device__ __forceinline__ void count_level(const uint32_t *keys, int lo, int hi, int level,
                                            u64 prefix, unsigned *sh, unsigned *global) {
    kb_grid_zero_hist(sh);
    const int above = kb_grid_shift(level - 1);
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads) {
        const u64 c = kb_grid_composite(keys[i], lo + i);
        if (c >> above == prefix) atomicAdd(&sh[kb_grid_digit(c, level)], 1u);
    }
    kb_grid_flush_hist(sh, global);
}

/* The block's composites c with c >> shift >= prefix (the final prefix:
 * the bin taken whole and those above) to the segment's candidate list, in
 * any order (the ranks order them): one block scan, one global atomic. */
__device__ __forceinline__ void emit_candidates(const uint32_t *keys, int lo, int hi, int shift,
                                                u64 prefix, unsigned *count, u64 *cand, int cap) {
    __shared__ unsigned base;
    int mine = 0;
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads)
        mine += kb_grid_composite(keys[i], lo + i) >> shift >= prefix;
    int total = 0;
    int at = kb_block_exclusive_scan<kThreads>(mine, &total);
    if (threadIdx.x == 0) base = total ? atomicAdd(count, (unsigned)total) : 0u;
    __syncthreads();
    at += (int)base;
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads) {
        const u64 c = kb_grid_composite(keys[i], lo + i);
        if (c >> shift >= prefix) {
            if (at < cap) cand[at] = c; /* the bound never binds; it bounds a broken count */
            at++;
        }
    }
}

/* The blocks of segment s (tab.rank_base, kb_coop_rank_split) split its
 * candidate slots; this block ranks its share against the segment's m
 * candidates, copied to shared memory (the composites are distinct: the
 * number larger is the rank; a rank below want is the output slot, the
 * rest, the slack, are dropped).
 *   - A share of more than kWarpRanked: 64 candidates a round, a thread per
 *     (candidate, 16th of the list); the 32 lanes of a warp hold 32
 *     candidates and read the same composites (a broadcast, two at a time),
 *     so the list is read once per warp, not once per candidate; the 16
 *     partial counts of a candidate meet in shared memory.
 *   - A smaller share: a warp per candidate, its lanes counting 32 apart
 *     (the list read once per candidate, by few warps). */
constexpr int kRankCands = 64, kRankParts = kThreads / kRankCands;
constexpr int kWarpRanked = 24; /* the two cost the same near 32 candidates */

__device__ void rank_candidates(const Table &tab, const float *values, const int *offsets,
                                int segments, int k, const Ctl *ctls, const u64 *cand, u64 *sw,
                                float *out_v, int *out_i) {
    __shared__ unsigned larger[kRankCands];
    const int b = (int)blockIdx.x;
    if (b >= tab.rank_base[segments]) return; /* block-uniform */
    int s = 0;
    while (tab.rank_base[s + 1] <= b) s++;
    const int blocks = tab.rank_base[s + 1] - tab.rank_base[s];
    const int base = tab.cand_base[s], slots = tab.cand_base[s + 1] - base;
    const int per = (slots + blocks - 1) / blocks, first = (b - tab.rank_base[s]) * per;
    const int m = (int)__ldcg(&ctls[s].cands);
    const int want = tab.want_base[s + 1] - tab.want_base[s];
    const int last = min(min(slots, first + per), m);
    if (first >= last) return;
    for (int i = (int)threadIdx.x; i < m; i += kThreads) sw[i] = __ldcg(cand + base + i);
    if ((m & 1) && threadIdx.x == 0) sw[m] = 0; /* pairs: a zero composite is larger than none */
    const float *seg = values + __ldg(offsets + s);
    if (last - first <= kWarpRanked) {
        __syncthreads(); /* the list copied */
        const int lane = threadIdx.x & 31;
        for (int u = first + (int)(threadIdx.x >> 5); u < last; u += kThreads / 32) {
            const u64 x = sw[u];
            const int idx = kb_grid_index(x);
            const float v = lane == 0 ? seg[idx] : 0.f; /* in flight during the count */
            const int n = kb_grid_warp_rank(sw, m, x);
            if (lane == 0 && n < want) {
                out_i[(size_t)s * k + n] = idx;
                out_v[(size_t)s * k + n] = v;
            }
        }
        return;
    }
    const int c = (int)threadIdx.x % kRankCands, part = (int)threadIdx.x / kRankCands;
    const int pairs = (m + 1) / 2, span = (pairs + kRankParts - 1) / kRankParts;
    const int lo = part * span, hi = min(pairs, lo + span);
    const ulonglong2 *sw2 = (const ulonglong2 *)sw;
    for (int u0 = first; u0 < last; u0 += kRankCands) {
        const int u = u0 + c;
        if (part == 0) larger[c] = 0;
        __syncthreads();                        /* the list copied; the counts zero and read */
        const u64 x = u < last ? sw[u] : ~0ull; /* ~0: nothing is larger */
        int idx = 0;
        float v = 0.f;
        if (part == 0 && u < last) { /* the value re-read bitwise, in flight during the count */
            idx = kb_grid_index(x);
            v = seg[idx];
        }
        unsigned n = 0;
#pragma unroll 4
        for (int i = lo; i < hi; i++) {
            const ulonglong2 y = sw2[i];
            n += (y.x > x) + (y.y > x);
        }
        atomicAdd(&larger[c], n);
        __syncthreads();
        if (part == 0 && u < last && larger[c] < (unsigned)want) {
            out_i[(size_t)s * k + larger[c]] = idx;
            out_v[(size_t)s * k + larger[c]] = v;
        }
    }
}

/* The kernel: launched cooperatively, gridDim.x blocks all resident.
 * tab: the plan (each block's keys, each segment's output and candidate
 * slots); active: the segments with a winner. Shared memory: the block's
 * keys, then a segment's candidates. */
__global__ void __launch_bounds__(kThreads, 1)
    coop_select_kernel(const __grid_constant__ Table tab, const float *values, const int *offsets,
                       int segments, int k, int active, Ctl *ctls, Fine *fines, Grid *gs, u64 *cand,
                       float *out_v, int *out_i, int *out_n) {
    extern __shared__ __align__(16) u64 dyn[];
    uint32_t *keys = (uint32_t *)dyn;
    __shared__ unsigned sh[KB_GRID_BINS];
    __shared__ unsigned shf[kFineCounts]; /* kept to the end: what to zero in fines */
    __shared__ unsigned top, low;         /* the block's fine counts: bins [low, top] */
    cg::grid_group grid = cg::this_grid();
    const int gtid = (int)(blockIdx.x * kThreads + threadIdx.x), gthreads = gridDim.x * kThreads;
    /* sentinels past each segment's want, and the counts */
    for (int t = gtid; t < segments * k; t += gthreads) {
        const int s = t / k, j = t - s * k;
        if (j >= tab.want_base[s + 1] - tab.want_base[s]) {
            out_v[t] = -INFINITY;
            out_i[t] = -1;
        }
    }
    if (gtid < segments) out_n[gtid] = tab.want_base[gtid + 1] - tab.want_base[gtid];
    if (active == 0) return; /* grid-uniform: nothing to select */
    if (blockIdx.x == 0 && threadIdx.x < KB_GRID_LEVELS) gs->ended_by[threadIdx.x] = 0;
    if (blockIdx.x == 0 && threadIdx.x < segments) ctls[threadIdx.x].cands = 0;

    const kb_coop_part part = tab.parts[blockIdx.x];
    const int s = part.seg < 0 ? 0 : part.seg;
    const int want = tab.want_base[s + 1] - tab.want_base[s];
    Ctl *ctl = ctls + s;
    Fine &fine = fines[s];
    bool running = part.seg >= 0; /* block-uniform */
    if (running) {                /* level 0's histogram and fine counts on the way in */
        for (int e = (int)threadIdx.x; e < kFineCounts; e += kThreads) shf[e] = 0;
        if (threadIdx.x == 0) top = 0;
        kb_grid_zero_hist(sh);
        load_level0(values + __ldg(offsets + s), part.lo, part.hi, (unsigned)want, keys, sh, shf,
                    &top, &low, ctl, fine);
    }
    u64 prefix = 0;
    unsigned r = (unsigned)want;
    int level = 0;
    for (;; level++) {
        if (running && level > 0)
            count_level(keys, part.lo, part.hi, level, prefix, sh, ctl->hist[level]);
        grid.sync();
        /* the segments that ended at an earlier level, all counted before the
         * barrier: every block reads the same (grid-uniform); loaded first,
         * used after the pick, which does not wait on it */
        const unsigned ended = level ? __ldcg(&gs->ended_by[level - 1]) : 0u;
        const unsigned floor = level == 0 && running ? __ldcg(&ctl->floor) : 0u;
        uint4 near = make_uint4(0u, 0u, 0u, 0u);
        if (level == 0 && running && threadIdx.x < 32)
            near = __ldcg((const uint4 *)&fine[top][4 * threadIdx.x]);
        if (running) {
            kb_grid_load_hist(sh, ctl->hist[level]);
            const kb_grid_pick p = kb_grid_block_pick<kThreads>(sh, r);
            prefix = kb_grid_extend(prefix, level, p.bin);
            r = p.need;
            /* the segment's blocks pick the same from the same counts; a
             * level-5 bin holds one composite, so level 5 always ends */
            int shift = kb_grid_shift(level);
            bool ends = kb_grid_ends(&p, sh[p.bin], kSlack) || level + 1 == KB_GRID_LEVELS;
            if (!ends && level == 0 && p.bin >= floor &&
                fine_ends(fine, p.bin, r, near, top, &prefix)) {
                ends = true; /* the fine counts end it: prefix has 18 bits */
                shift = KB_COOP_FINE_SHIFT;
            }
            if (ends) {
                running = false;
                emit_candidates(keys, part.lo, part.hi, shift, prefix, &ctl->cands,
                                cand + tab.cand_base[s], tab.cand_base[s + 1] - tab.cand_base[s]);
                if (threadIdx.x == 0 && part.lo == 0)
                    for (int l = level; l < KB_GRID_LEVELS; l++) atomicAdd(&gs->ended_by[l], 1u);
            }
        }
        if (ended == (unsigned)active) break;
    }
    /* every pick made, every candidate written: the used histograms, the
     * fine counts this block added and the floors back to 0 */
    for (int b = gtid; b < segments * level * KB_GRID_BINS; b += gthreads) {
        const int seg = b / (level * KB_GRID_BINS), rest = b - seg * level * KB_GRID_BINS;
        ctls[seg].hist[rest / KB_GRID_BINS][rest % KB_GRID_BINS] = 0;
    }
    if (part.seg >= 0)
#pragma unroll 1
        for (int e = (int)threadIdx.x; e < (int)(top - low + 1) * KB_COOP_FINE_BINS; e += kThreads)
            if (shf[e]) fine[top - e / KB_COOP_FINE_BINS][e % KB_COOP_FINE_BINS] = 0;
    if (blockIdx.x == 0 && threadIdx.x < segments) ctls[threadIdx.x].floor = 0;
    rank_candidates(tab, values, offsets, segments, k, ctls, cand, dyn, out_v, out_i);
}

/* A segment's output slots (want) and candidate slots (want and the slack,
 * at most its length). */
int64_t want_of(int64_t len, int64_t k) {
    return len < k ? len : k;
}
int64_t cand_slots(int64_t len, int64_t k) {
    const int64_t w = want_of(len, k);
    return w == 0 ? 0 : w + kSlack < len ? w + kSlack : len;
}

/* The split over `blocks` blocks (parts, per_seg: scratch of the caller's)
 * and the dynamic shared memory a block needs, or 0 with *chunk = -1 when
 * the segments need more blocks. */
size_t plan(const int64_t *len, int segments, int k, int blocks, kb_coop_part *parts, int *per_seg,
            int64_t *chunk) {
    *chunk = kb_coop_assign(len, segments, k, blocks, per_seg, parts);
    if (*chunk < 0) return 0;
    int64_t most = 0;
    for (int s = 0; s < segments; s++)
        most = cand_slots(len[s], k) > most ? cand_slots(len[s], k) : most;
    const size_t keys = 4 * (size_t)*chunk, cands = 8 * (size_t)(most + 1); /* + a pad */
    return keys > cands ? keys : cands;
}

} // namespace

/* The plan of one layout on one device (kb_topk_coop_new) and its device state. */
struct kb_topk_coop {
    int segments, k, active;
    int blocks;      /* the cooperative grid: one block per SM */
    size_t dyn_smem; /* the largest chunk of keys, or a segment's candidates */
    Ctl *ctls;       /* one per segment */
    Fine *fines;     /* one per segment */
    Grid *gs;
    u64 *cand;  /* every segment's candidate slots, concatenated */
    Table *tab; /* host memory: the kernel's parameter */
};

namespace {
/* The grid: one block per SM, at most kMaxBlocks. */
int grid_blocks(int sms) {
    return sms < kMaxBlocks ? sms : kMaxBlocks;
}
} // namespace

int kb_topk_coop_check(const int64_t *len, int segments, int k, kb_error *why) {
    const kb_gpu *g = kb_gpu_current();
    const int sms = grid_blocks(g ? g->sm_count : 132);
    int64_t chunk = 0;
    size_t need = 0;
    if (segments <= kMaxSegments && k <= kMaxWant) {
        kb_coop_part *parts = (kb_coop_part *)malloc(sizeof(kb_coop_part) * (size_t)sms);
        int per_seg[kMaxSegments];
        need = parts ? plan(len, segments, k, sms, parts, per_seg, &chunk) + kStaticSmem : 0;
        free(parts);
    }
    if (segments > kMaxSegments)
        kb_fail(why, "%d segments: coop_select runs <= %d at once", segments, kMaxSegments);
    else if (k > kMaxWant)
        kb_fail(why, "k=%d: coop_select ranks <= %d winners (and %d more) in shared memory", k,
                kMaxWant, kSlack);
    else if (chunk < 0)
        kb_fail(why, "%d segments: more than the %d blocks of coop_select's grid", segments, sms);
    else if (g && need > g->smem_optin)
        kb_fail(why,
                "%lld keys a block need %zu B of shared memory on this %s (%d SMs), which "
                "allows %zu; grid_select streams long segments",
                (long long)chunk, need, g->name, sms, g->smem_optin);
    else if (g && !g->cooperative)
        kb_fail(why, "this %s cannot launch cooperative kernels", g->name);
    else
        return KB_OK;
    return KB_UNSUPPORTED;
}

size_t kb_topk_coop_bytes(const int64_t *len, int segments, int k) {
    size_t slots = 0;
    for (int s = 0; s < segments; s++) slots += (size_t)cand_slots(len[s], k);
    return (sizeof(Ctl) + sizeof(Fine)) * (size_t)segments + sizeof(Grid) + 8 * slots;
}

void kb_topk_coop_delete(kb_topk_coop *st) {
    if (st) {
        cudaFree(st->ctls);
        cudaFree(st->fines);
        cudaFree(st->gs);
        cudaFree(st->cand);
        free(st->tab);
    }
    free(st);
}

kb_topk_coop *kb_topk_coop_new(const int64_t *len, int n, int k, int *status, kb_error *e) {
    kb_topk_coop *st = (kb_topk_coop *)calloc(1, sizeof(kb_topk_coop));
    const int sms = grid_blocks(kb_gpu_sms(132));
    Table *tab = (Table *)calloc(1, sizeof(Table));
    if (!st || !tab || n > kMaxSegments) {
        free(st);
        free(tab);
        *status = n > kMaxSegments ? kb_fail(e, "coop_select: %d segments", n)
                                   : kb_fail(e, "out of host memory");
        return nullptr;
    }
    st->tab = tab;
    st->segments = n;
    st->k = k;
    st->blocks = sms;
    int per_seg[kMaxSegments];
    int64_t chunk = 0;
    st->dyn_smem = plan(len, n, k, sms, tab->parts, per_seg, &chunk);
    int *want_base = tab->want_base, *cand_base = tab->cand_base;
    want_base[0] = cand_base[0] = 0;
    for (int s = 0; s < n; s++) {
        want_base[s + 1] = want_base[s] + (int)want_of(len[s], k);
        cand_base[s + 1] = cand_base[s] + (int)cand_slots(len[s], k);
        st->active += want_of(len[s], k) > 0;
    }
    int64_t slots_of[kMaxSegments];
    for (int s = 0; s < n; s++) slots_of[s] = cand_slots(len[s], k);
    if (kb_coop_rank_split(slots_of, n, sms, tab->rank_base) != 0) chunk = -1;
    const int slots = cand_base[n];
    /* the kernel's attribute allows the most any case may take (another
     * case's setup may run before this one's launches) */
    int per_sm = 0;
    cudaFuncAttributes fa;
    const kb_gpu *g = kb_gpu_current();
    cudaError_t rc = chunk < 0 || !g ? cudaErrorInvalidConfiguration : cudaSuccess;
    if (rc == cudaSuccess) rc = cudaFuncGetAttributes(&fa, coop_select_kernel);
    if (rc == cudaSuccess)
        rc = cudaFuncSetAttribute(coop_select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)(g->smem_optin - fa.sharedSizeBytes));
    if (rc == cudaSuccess)
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, coop_select_kernel, kThreads,
                                                           st->dyn_smem);
    if (rc == cudaSuccess && per_sm < 1) {
        const size_t bytes = st->dyn_smem + kStaticSmem;
        kb_topk_coop_delete(st);
        *status =
            kb_fail(e, "coop_select: no block of %d threads with %zu B of shared memory fits an SM",
                    kThreads, bytes);
        return nullptr;
    }
    const size_t ctl_bytes = sizeof(Ctl) * (size_t)(n > 0 ? n : 1);
    const size_t fine_bytes = sizeof(Fine) * (size_t)(n > 0 ? n : 1);
    if (rc == cudaSuccess) rc = cudaMalloc(&st->ctls, ctl_bytes);
    if (rc == cudaSuccess) rc = cudaMalloc(&st->fines, fine_bytes);
    if (rc == cudaSuccess) rc = cudaMemset(st->fines, 0, fine_bytes);
    if (rc == cudaSuccess) rc = cudaMalloc(&st->gs, sizeof(Grid));
    if (rc == cudaSuccess) rc = cudaMalloc(&st->cand, 8 * (size_t)(slots > 0 ? slots : 1));
    if (rc == cudaSuccess) rc = cudaMemset(st->ctls, 0, ctl_bytes);
    if (rc != cudaSuccess) {
        *status = rc == cudaErrorMemoryAllocation ? KB_OUT_OF_MEMORY
                                                  : kb_cuda_check(rc, "coop_select setup", e);
        cudaGetLastError();
        kb_topk_coop_delete(st);
        return nullptr;
    }
    *status = KB_OK;
    return st;
}

cudaError_t kb_topk_coop_run(const kb_topk_coop *st, const float *values, const int *offsets,
                             float *out_v, int *out_i, int *out_n, cudaStream_t stream) {
    void *args[] = {(void *)st->tab, (void *)&values,     (void *)&offsets,  (void *)&st->segments,
                    (void *)&st->k,  (void *)&st->active, (void *)&st->ctls, (void *)&st->fines,
                    (void *)&st->gs, (void *)&st->cand,   (void *)&out_v,    (void *)&out_i,
                    (void *)&out_n};
    return cudaLaunchCooperativeKernel((const void *)coop_select_kernel, dim3(st->blocks),
                                       dim3(kThreads), args, st->dyn_smem, stream);
}

namespace {

int supports(const kb_case *c, kb_error *why) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    if (!len) return KB_UNSUPPORTED;
    const int rc = kb_topk_coop_check(len, (int)n, (int)kb_topk_params_of(c).k, why);
    free(len);
    return rc;
}

size_t workspace_bytes(const kb_case *c) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, nullptr);
    if (!len) return 0;
    const size_t bytes = kb_topk_coop_bytes(len, (int)n, (int)kb_topk_params_of(c).k);
    free(len);
    return bytes;
}

void teardown(void *state) {
    kb_topk_coop_delete((kb_topk_coop *)state);
}

int setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    *state = nullptr;
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, e);
    if (!len) return KB_ERR;
    int rc = KB_OK;
    *state = kb_topk_coop_new(len, (int)n, (int)kb_topk_params_of(c).k, &rc, e);
    free(len);
    return rc;
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    kb_nvtx_push("select");
    const kb_topk_io io = kb_topk_io_of(dev_in, dev_out);
    const cudaError_t rc = kb_topk_coop_run((const kb_topk_coop *)state, io.values, io.offsets,
                                            io.out_v, io.out_i, io.out_n, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "cudaLaunchCooperativeKernel(coop_select)", e);
}

} // namespace

KB_DEFINE_VARIANT(topk, coop_select) = {supports, workspace_bytes, setup, run, teardown};
