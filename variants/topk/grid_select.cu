/* grid_select.cu — top-k of a FEW LONG segments: a radix select across the
 * whole GPU, one segment after another.
 *
 *   kbench run topk -v grid_select,radix_sort,radix_select --sweep default
 *
 * The rule (64-bit composites (key, ~index), six radix levels, a bin taken
 * whole ends the select; one block finishes once few are in play):
 * grid_select.h. Per segment, no host sync (graph-capturable): memset the
 * control block; for k <= 2048, a one-block sample of 16K keys picks a
 * threshold T; histogram of every key (its last block picks level 0), with
 * every key >= T kept as a candidate: when they hold the top k and fit the
 * caps, the winners are ranked from them and every pass below exits at
 * once; otherwise the levels run as without a sample:
 * level 0's compaction of every key, then levels 1-4 over the candidates
 * (each pass's last block picks the next level, or runs all the remaining
 * levels itself over <= KB_GRID_FINISH_CAP candidates, after which the
 * later passes exit at once); the <= 4096 winners ranked by a grid of
 * blocks (a warp per winner counts the larger ones), which writes values,
 * indices, sentinels and the count (CUB's sort and a write kernel above
 * 4096). Design, napkin math and predictions: docs/perf-topk.md, section
 * grid_select.
 */
#include "grid_select.cuh"
#include "../common/variant_def.h"

#include <cub/cub.cuh>

#include <stddef.h>
#include <stdlib.h>

namespace {

typedef unsigned long long u64;
static_assert(sizeof(u64) == sizeof(uint64_t), "composites are 64-bit");

constexpr int kMaxSegments = 8;       /* the host loops over segments */
constexpr int64_t kMinLength = 65536; /* shorter: radix_select's cluster is enough */
constexpr int kThreads = 256;         /* the streaming passes */
constexpr int kUnroll = 4;            /* float4 loads in flight per thread: 64 B */
constexpr int kGridLevels = 5;        /* levels 0-4 may run on the grid, 5 never does */
constexpr int kRankMax = 4096;        /* winners ranked from shared memory: 32 KB a block */
constexpr int kRankThreads = 1024;    /* a warp per winner: 32 winners a block */
static_assert(KB_GRID_FINISH_CAP >= 1024, "a level-5 bin (10 bits) always fits the finish");

/* The device-side state of one segment's select, zeroed before it. */
struct Ctl {
    unsigned hist[KB_GRID_LEVELS][KB_GRID_BINS]; /* digits of the elements in play at level L */
    unsigned cand[KB_GRID_LEVELS];               /* candidates level L's compaction wrote */
    unsigned rem[KB_GRID_LEVELS];                /* level L looks for the rem-th largest in play */
    unsigned bin[KB_GRID_LEVELS];                /* level L's pick */
    unsigned take[KB_GRID_LEVELS];               /* level L's bin wins whole: the select ends */
    unsigned active[KB_GRID_LEVELS];             /* level L runs on the grid (level 0 always) */
    unsigned arrived[KB_GRID_LEVELS];            /* blocks done: the histogram, levels 0-4 */
    unsigned winners;                            /* composites written to the winner list */
    /* the sampled fast path (grid_select.h): */
    unsigned hist_cut[KB_GRID_BINS]; /* the candidates' offset bins */
    unsigned thresh, shift;          /* the sample's T, the offset bins' shift */
    unsigned sampled;                /* keys >= T counted (stops soon past the cap) */
    unsigned fast;                   /* the candidates finish the select: the levels exit */
    unsigned cut_bin, cut;           /* the offset bin of the want-th, the candidates from it up */
    unsigned sample_hist[KB_GRID_BINS]; /* the samples' level-0 digits */
    unsigned sample_max;                /* the largest sample key */
    unsigned sample_arrived, filter_arrived;
    uint32_t sample[KB_GRID_SAMPLE]; /* the sample's keys (not zeroed: every one is written) */
};
constexpr size_t kCtlZeroed = offsetof(Ctl, sample);

constexpr int kBatch = 4 * kUnroll; /* keys a thread holds per iteration of a streaming pass */

/* Calls f(key, idx, valid), three arrays of kBatch per thread, once per
 * iteration, by every thread of the block at once (block-uniform: f may
 * synchronise the block). The 16-byte-aligned body is read as float4 by the
 * whole grid, kUnroll loads in flight per thread; the <= 3 keys before it
 * and <= 3 after it in one extra call by block 0 (entry 0 of a thread). */
template <class F> __device__ __forceinline__ void for_each_batch(const float *seg, int n, F f) {
    const int head = min(n, (int)(((16 - ((uintptr_t)seg & 15)) & 15) / 4));
    const int nv = (n - head) / 4, tail = head + 4 * nv;
    const float4 *v4 = (const float4 *)(seg + head);
    const int tid = threadIdx.x;
    uint32_t key[kBatch];
    int idx[kBatch];
    bool valid[kBatch];
    for (int base = blockIdx.x * kThreads * kUnroll; base < nv;
         base += gridDim.x * kThreads * kUnroll) {
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int i = base + u * kThreads + tid;
            v[u] = i < nv ? __ldg(v4 + i) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int i = base + u * kThreads + tid;
            const float x[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                key[4 * u + j] = kb_topk_key(x[j]);
                idx[4 * u + j] = head + 4 * i + j;
                valid[4 * u + j] = i < nv;
            }
        }
        f(key, idx, valid);
    }
    if (blockIdx.x == 0) {
#pragma unroll
        for (int e = 0; e < kBatch; e++) {
            valid[e] = e == 0 && tid < head + (n - tail);
            idx[e] = tid < head ? tid : tail + (tid - head);
            key[e] = valid[e] ? kb_topk_key(__ldg(seg + idx[e])) : 0u;
        }
        f(key, idx, valid);
    }
}

/* The winner list and the two candidate buffers (ping-pong: level L reads
 * cand[(L - 1) & 1], writes cand[L & 1]; level 0 reads the keys). */
struct Bufs {
    u64 *win, *cand[2];
};

constexpr int kSampleThreads = 1024;
constexpr int kSampleBlocks = KB_GRID_SAMPLE / kSampleThreads; /* one sample key a thread */
constexpr int kSamplePer = kSampleBlocks;                      /* the last block: keys a thread */
constexpr int kSampledWantMax = KB_GRID_RANK_CAP / 2;          /* larger: the cut rarely fits */
static_assert(kSampleBlocks * kSampleThreads == KB_GRID_SAMPLE, "whole blocks of samples");
static_assert(KB_GRID_RANK_CAP <= kRankMax, "the cut fits the rank's shared memory");
static_assert(KB_GRID_SAMPLED_CAP <= kMinLength, "the candidate buffer (n) holds the cap");

/* A warp's digits d (where `in`) into the shared histogram sh: the lanes
 * sharing the lowest remaining lane's digit by one atomic, twice, then one
 * atomic a lane. Uniform scores put half of a level-0 histogram in one bin,
 * whose same-address atomics would otherwise replay lane by lane. */
__device__ __forceinline__ void hist_add(unsigned *sh, uint32_t d, bool in) {
    const unsigned lane = threadIdx.x & 31;
    unsigned rest = __ballot_sync(0xffffffffu, in);
    for (int round = 0; round < 2 && rest; round++) { /* warp-uniform */
        const int leader = __ffs(rest) - 1;
        const uint32_t dl = __shfl_sync(0xffffffffu, d, leader);
        const unsigned same = __ballot_sync(0xffffffffu, in && d == dl) & rest;
        if ((int)lane == leader) atomicAdd(&sh[dl], (unsigned)__popc(same));
        rest &= ~same;
    }
    if (rest >> lane & 1u) atomicAdd(&sh[d], 1u);
}

/* 1 in the block that ends a pass last: every other block's histogram
 * atomics and candidates are then visible to it (each thread fences its own
 * writes before its block's arrival is counted; read them with __ldcg). */
__device__ __forceinline__ bool last_block(unsigned *arrived) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(arrived, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last) __threadfence();
    return last;
}

/* The sampled threshold: the r-th largest of KB_GRID_SAMPLE strided keys
 * (grid_select.h). kSampleBlocks blocks load a key a thread (one DRAM round
 * trip on 16 SMs: one SM alone keeps too few misses in flight for 16K
 * scattered loads), count its level-0 digit and keep it; the last block
 * reads the 16K keys back from L2 and runs the three radix levels of the
 * key (the composite's levels 0-2) over them in registers, then writes T
 * and the offset shift from the sample's largest key. */
__global__ void __launch_bounds__(kSampleThreads, 1)
    sample_threshold(const float *seg, int n, Ctl *ctl, unsigned r) {
    __shared__ unsigned sh[KB_GRID_BINS];
    const uint32_t j = blockIdx.x * kSampleThreads + threadIdx.x;
    const uint32_t mine = kb_topk_key(__ldg(seg + kb_grid_sample_index(j, n, KB_GRID_SAMPLE)));
    ctl->sample[j] = mine;
    const uint32_t top = __reduce_max_sync(0xffffffffu, mine);
    if ((threadIdx.x & 31) == 0) atomicMax(&ctl->sample_max, top);
    kb_grid_zero_hist(sh);
    hist_add(sh, kb_grid_digit(kb_grid_composite(mine, 0), 0), true);
    kb_grid_flush_hist(sh, ctl->sample_hist);
    if (!last_block(&ctl->sample_arrived)) return;
    uint32_t key[kSamplePer];
#pragma unroll
    for (int e = 0; e < kSamplePer; e++)
        key[e] = __ldcg(&ctl->sample[e * kSampleThreads + threadIdx.x]);
    kb_grid_load_hist(sh, ctl->sample_hist);
    uint64_t prefix = 0;
    for (int level = 0; level < 3; level++) {
        if (level > 0) {
            kb_grid_zero_hist(sh);
#pragma unroll
            for (int e = 0; e < kSamplePer; e++) {
                const uint64_t c = kb_grid_composite(key[e], 0);
                hist_add(sh, kb_grid_digit(c, level), c >> kb_grid_shift(level - 1) == prefix);
            }
            __syncthreads();
        }
        const kb_grid_pick p = kb_grid_block_pick<kSampleThreads>(sh, r);
        prefix = kb_grid_extend(prefix, level, p.bin);
        r = p.need;
    }
    if (threadIdx.x == 0) {
        ctl->thresh = (uint32_t)prefix; /* levels 0-2: the key's 32 bits */
        ctl->shift = kb_grid_offset_shift((uint32_t)prefix, __ldcg(&ctl->sample_max));
    }
}

/* The sampled pass: every key >= T to `out` as a composite (a warp's at
 * once, one atomic; a block stops once the count passes `cap`, which
 * already turns the fast path off) and counted in its offset bin; the last
 * block decides whether the candidates finish the select
 * (kb_grid_sampled_ok: then ctl->fast, and every level's pass exits at
 * once) and where their cut lies. A read of every key and a compare: 64 MB
 * at 16M keys, ~15 us at 4.3 TB/s. */
__global__ void __launch_bounds__(kThreads)
    filter_keys(const float *seg, int n, Ctl *ctl, unsigned want, u64 *out, unsigned cap) {
    __shared__ unsigned cut[KB_GRID_BINS];
    __shared__ int full;
    const uint32_t t = ctl->thresh, shift = ctl->shift;
    const unsigned lane = threadIdx.x & 31;
    if (threadIdx.x == 0) full = 0;
    kb_grid_zero_hist(cut);
    for_each_batch(seg, n, [&](const uint32_t *key, const int *idx, const bool *valid) {
        if (__shfl_sync(0xffffffffu, *(volatile int *)&full, 0)) return; /* warp-uniform */
#pragma unroll
        for (int e = 0; e < kBatch; e++) {
            const bool is = valid[e] && key[e] >= t;
            const unsigned ball = __ballot_sync(0xffffffffu, is);
            if (!ball) continue;
            const int leader = __ffs(ball) - 1;
            unsigned base = 0;
            if ((int)lane == leader) base = atomicAdd(&ctl->sampled, (unsigned)__popc(ball));
            base = __shfl_sync(0xffffffffu, base, leader);
            if (lane == 0 && base + __popc(ball) > cap) full = 1;
            const unsigned at = base + __popc(ball & ((1u << lane) - 1u));
            if (is && at < cap) {
                out[at] = kb_grid_composite(key[e], idx[e]);
                atomicAdd(&cut[kb_grid_offset_bin(key[e], t, shift)], 1u);
            }
        }
    });
    kb_grid_flush_hist(cut, ctl->hist_cut);
    if (!last_block(&ctl->filter_arrived)) return;
    const unsigned m = __ldcg(&ctl->sampled);
    if (m < want || m > cap) return; /* block-uniform; the levels run */
    kb_grid_load_hist(cut, ctl->hist_cut);
    const kb_grid_pick q = kb_grid_block_pick<kThreads>(cut, want);
    if (threadIdx.x == 0) {
        const unsigned above = want - q.need, count = cut[q.bin];
        if (kb_grid_sampled_ok(want, m, cap, above, count)) {
            ctl->cut_bin = q.bin;
            ctl->cut = above + count;
            ctl->fast = 1;
        }
    }
}

/* Pass A: level 0's histogram (the key's top 11 bits) of every key; its
 * last block picks level 0's bin (8 KB from L2 and one block scan, in place
 * of a one-block launch). 64 MB read at 16M keys: ~22 us at 3 TB/s. Exits
 * at once after a sampled pass that finished the select. */
__global__ void __launch_bounds__(kThreads)
    histogram_keys(const float *seg, int n, Ctl *ctl, unsigned want) {
    __shared__ unsigned sh[KB_GRID_BINS];
    if (ctl->fast) return; /* block-uniform */
    kb_grid_zero_hist(sh);
    for_each_batch(seg, n, [&](const uint32_t *key, const int *, const bool *valid) {
#pragma unroll
        for (int e = 0; e < kBatch; e++)
            if (valid[e]) atomicAdd(&sh[kb_grid_digit(kb_grid_composite(key[e], 0), 0)], 1u);
    });
    kb_grid_flush_hist(sh, ctl->hist[0]);
    if (!last_block(&ctl->arrived[0])) return;
    kb_grid_load_hist(sh, ctl->hist[0]);
    const kb_grid_pick p = kb_grid_block_pick<kThreads>(sh, want);
    if (threadIdx.x == 0) {
        ctl->bin[0] = p.bin;
        ctl->take[0] = p.take_all;
        ctl->rem[1] = p.need;
    }
}

/* Level L's decision for kE composites per thread, by the whole block at
 * once: a digit above the picked bin wins; the picked bin wins whole, or
 * stays in play (to the next candidate buffer, its next digit counted in sh).
 * One global atomic per block and list: a warp's atomic on one counter would
 * be 512K same-address atomics over 16M uniform keys (a quarter of them
 * kept at level 0), ~0.3 ms serialised in L2. Both counts of a thread are
 * packed in one int for one block scan (a block holds <= 4096 < 2^16 each). */
template <int kE>
__device__ __forceinline__ void block_emit(const u64 (&c)[kE], const bool (&valid)[kE], int level,
                                           unsigned bin, bool take, Ctl *ctl, u64 *win,
                                           unsigned want, u64 *next, unsigned cap, unsigned *sh) {
    static_assert(kE * kThreads < 65536, "the packed counts fit 16 bits");
    __shared__ unsigned base_win, base_keep;
    bool wins[kE], keep[kE];
    int counts = 0;
#pragma unroll
    for (int e = 0; e < kE; e++) {
        const unsigned d = kb_grid_digit(c[e], level);
        wins[e] = valid[e] && (d > bin || (take && d == bin));
        keep[e] = valid[e] && !take && d == bin && level + 1 < KB_GRID_LEVELS;
        counts += (wins[e] ? 1 << 16 : 0) + (keep[e] ? 1 : 0);
    }
    int total = 0;
    const int before = kb_block_exclusive_scan<kThreads>(counts, &total);
    if (threadIdx.x == 0) {
        base_win = (total >> 16) ? atomicAdd(&ctl->winners, (unsigned)(total >> 16)) : 0;
        base_keep = (total & 0xFFFF) ? atomicAdd(&ctl->cand[level], (unsigned)(total & 0xFFFF)) : 0;
    }
    __syncthreads();
    unsigned w = base_win + (unsigned)(before >> 16), kp = base_keep + (unsigned)(before & 0xFFFF);
#pragma unroll
    for (int e = 0; e < kE; e++) {
        /* the caps never bind; they bound a broken count */
        if (wins[e] && w < want) win[w] = c[e];
        if (keep[e] && kp < cap) {
            next[kp] = c[e];
            atomicAdd(&sh[kb_grid_digit(c[e], level + 1)], 1u);
        }
        w += wins[e];
        kp += keep[e];
    }
    __syncthreads(); /* base_win and base_keep are rewritten by the next call */
}

/* Candidates base + e * kThreads + threadIdx.x (e < kE) of the m in `in`,
 * read past L1 (another block wrote them), and which of them exist. */
template <int kE>
__device__ __forceinline__ void load_candidates(const u64 *in, unsigned base, unsigned m,
                                                u64 (&c)[kE], bool (&valid)[kE]) {
#pragma unroll
    for (int e = 0; e < kE; e++) {
        const unsigned i = base + e * kThreads + threadIdx.x;
        valid[e] = i < m;
        c[e] = valid[e] ? __ldcg(in + i) : 0ull;
    }
}

/* One block runs levels l..5 over the m candidates level l - 1 left (read
 * through L2): per level the pick from the histogram in sh, then
 * block_emit's compaction (winners out, the picked bin to the other buffer,
 * its next digit counted in sh2). m <= KB_GRID_FINISH_CAP: <= 4 rounds of
 * 1024 per level, ~1 us a level. */
__device__ void finish(Ctl *ctl, int l, unsigned m, unsigned r, const Bufs &b, unsigned want,
                       unsigned cap, unsigned *sh, unsigned *sh2) {
    constexpr int kE = 4;
    for (;; l++) {
        const kb_grid_pick p = kb_grid_block_pick<kThreads>(sh, r);
        kb_grid_zero_hist(sh2);
        const u64 *in = b.cand[(l - 1) & 1];
        for (unsigned base = 0; base < m; base += kThreads * kE) {
            u64 c[kE];
            bool valid[kE];
            load_candidates<kE>(in, base, m, c, valid);
            block_emit(c, valid, l, p.bin, p.take_all, ctl, b.win, want, b.cand[l & 1], cap, sh2);
        }
        if (p.take_all || l + 1 == KB_GRID_LEVELS) return;
        m = __ldcg(&ctl->cand[l]); /* block_emit ended on a barrier */
        r = p.need;
        unsigned *t = sh;
        sh = sh2;
        sh2 = t;
    }
}

/* By the last block of level l - 1's pass: who runs level l
 * (kb_grid_next_step). The grid: this block picks its bin for the next
 * kernel. One block: this one, now, levels l..5 (the later passes find
 * their level inactive and exit). */
__device__ void next_level(Ctl *ctl, int l, const Bufs &b, unsigned want, unsigned cap,
                           unsigned *sh, unsigned *sh2) {
    const unsigned m = __ldcg(&ctl->cand[l - 1]);
    const kb_grid_runner who = kb_grid_next_step(__ldcg(&ctl->take[l - 1]), m, KB_GRID_FINISH_CAP);
    if (who == KB_GRID_ENDED) return;
    const unsigned r = __ldcg(&ctl->rem[l]);
    kb_grid_load_hist(sh, ctl->hist[l]);
    if (who == KB_GRID_FINISH) {
        finish(ctl, l, m, r, b, want, cap, sh, sh2);
        return;
    }
    const kb_grid_pick p = kb_grid_block_pick<kThreads>(sh, r);
    if (threadIdx.x == 0) {
        ctl->bin[l] = p.bin;
        ctl->take[l] = p.take_all;
        if (l + 1 < KB_GRID_LEVELS) ctl->rem[l + 1] = p.need;
        ctl->active[l] = 1;
    }
}

/* Pass B: level 0's compaction over every key (64 MB read, ~22 us, plus 8 B
 * per candidate written: uniform 16M, 32 MB, ~11 us). */
__global__ void __launch_bounds__(kThreads)
    compact_keys(const float *seg, int n, Ctl *ctl, Bufs b, unsigned want) {
    __shared__ unsigned sh[KB_GRID_BINS], sh2[KB_GRID_BINS];
    if (ctl->fast) return; /* block-uniform: the sampled candidates finished it */
    kb_grid_zero_hist(sh);
    const unsigned bin = ctl->bin[0];
    const bool take = ctl->take[0];
    for_each_batch(seg, n, [&](const uint32_t *key, const int *idx, const bool *valid) {
        u64 c[kBatch];
        bool ok[kBatch];
#pragma unroll
        for (int e = 0; e < kBatch; e++) {
            c[e] = kb_grid_composite(key[e], idx[e]);
            ok[e] = valid[e];
        }
        block_emit(c, ok, 0, bin, take, ctl, b.win, want, b.cand[0], (unsigned)n, sh);
    });
    kb_grid_flush_hist(sh, ctl->hist[1]);
    if (last_block(&ctl->arrived[1])) next_level(ctl, 1, b, want, (unsigned)n, sh, sh2);
}

/* Level L in 1..4 on the grid: the compaction over the previous level's
 * candidates (their count read here; the grid is sized for n of them, the
 * blocks past the count do nothing). Uniform 16M: level 1 reads 32 MB
 * (~11 us) and leaves ~2K, which its last block finishes. */
__global__ void __launch_bounds__(kThreads)
    compact_candidates(int level, Ctl *ctl, Bufs b, unsigned want, unsigned cap) {
    constexpr int kE = 4; /* candidates a thread holds per iteration: 32 B of loads in flight */
    __shared__ unsigned sh[KB_GRID_BINS], sh2[KB_GRID_BINS];
    if (!ctl->active[level]) return; /* block-uniform */
    kb_grid_zero_hist(sh);
    const unsigned m = ctl->cand[level - 1], bin = ctl->bin[level];
    const bool take = ctl->take[level];
    const u64 *in = b.cand[(level - 1) & 1];
    for (unsigned base = blockIdx.x * kThreads * kE; base < m; base += gridDim.x * kThreads * kE) {
        u64 c[kE];
        bool valid[kE];
        load_candidates<kE>(in, base, m, c, valid);
        block_emit(c, valid, level, bin, take, ctl, b.win, want, b.cand[level & 1], cap, sh);
    }
    kb_grid_flush_hist(sh, ctl->hist[level + 1]);
    if (last_block(&ctl->arrived[level + 1])) next_level(ctl, level + 1, b, want, cap, sh, sh2);
}

/* The sampled path's winners: every block copies the cut (the candidates
 * in the offset bin of the want-th or above, ctl->cut of them) into shared
 * memory in the list's order, kRankPer candidates a thread and one block
 * scan per round, then a warp per cut candidate counts the larger ones
 * (every larger candidate is in the cut: the bins order the keys) and
 * writes those ranked under want. Blocks past the cut return at once. */
constexpr int kRankPer = 8;
__device__ void rank_cut(const float *seg, const Ctl *ctl, const u64 *cand, int want, u64 *s,
                         float *out_v, int *out_i) {
    constexpr int kWarps = kRankThreads / 32;
    const int cut = (int)ctl->cut;
    if ((int)blockIdx.x * kWarps >= cut) return; /* block-uniform */
    const unsigned m = ctl->sampled, t = ctl->thresh, shift = ctl->shift, bin = ctl->cut_bin;
    int filled = 0;
    for (unsigned base = 0; base < m; base += kRankThreads * kRankPer) {
        u64 c[kRankPer];
        bool in[kRankPer];
        int mine = 0;
#pragma unroll
        for (int j = 0; j < kRankPer; j++) {
            const unsigned i = base + threadIdx.x * kRankPer + j;
            c[j] = i < m ? __ldcg(cand + i) : 0ull;
            in[j] = i < m && kb_grid_offset_bin((uint32_t)(c[j] >> 32), t, shift) >= bin;
            mine += in[j];
        }
        int total = 0;
        int at = filled + kb_block_exclusive_scan<kRankThreads>(mine, &total);
#pragma unroll
        for (int j = 0; j < kRankPer; j++)
            if (in[j] && at < kRankMax) s[at++] = c[j]; /* the cap never binds */
        filled += total;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, warps = (int)gridDim.x * kWarps;
    const int ranked = cut < kRankMax ? cut : kRankMax;
    for (int i = (int)blockIdx.x * kWarps + (int)(threadIdx.x >> 5); i < ranked; i += warps) {
        const u64 x = s[i];
        const int larger = kb_grid_warp_rank(s, ranked, x);
        if (lane == 0 && larger < want) {
            const int idx = kb_grid_index(x);
            out_i[larger] = idx;
            out_v[larger] = seg[idx];
        }
    }
}

/* want <= kRankMax: the winners ranked and written by a grid of blocks
 * (kb_grid_rank_write: a warp per winner), or the sampled path's cut
 * (rank_cut), the sentinels past want and the count. In place of a
 * one-block bitonic sort of the winners (55 dependent steps of ~490 cycles
 * for 1000 keys: 17 us at base clocks, as CUB's single-tile sort;
 * docs/perf-topk.md). */
__global__ void __launch_bounds__(kRankThreads)
    rank_write(const float *seg, const u64 *win, const Ctl *ctl, const u64 *cand, int want, int k,
               float *out_v, int *out_i, int *out_n) {
    __shared__ u64 s[kRankMax];
    const int gtid = (int)(blockIdx.x * kRankThreads + threadIdx.x);
    for (int j = want + gtid; j < k; j += (int)gridDim.x * kRankThreads) {
        out_i[j] = -1;
        out_v[j] = -INFINITY;
    }
    if (gtid == 0) *out_n = want;
    if (cand && ctl->fast)
        rank_cut(seg, ctl, cand, want, s, out_v, out_i);
    else
        kb_grid_rank_write<kRankThreads>(seg, win, want, s, out_v, out_i);
}

/* Every output slot and the count, after CUB's sort (want > kRankMax) or
 * alone (want = 0): slot j gets the j-th sorted winner's index and its value
 * re-read bitwise, or the sentinel past want. */
__global__ void write_out(const float *seg, const u64 *sorted, int want, int k, float *out_v,
                          int *out_i, int *out_n) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < k; j += gridDim.x * blockDim.x) {
        const int idx = j < want ? kb_grid_index(sorted[j]) : -1;
        out_i[j] = idx;
        out_v[j] = j < want ? seg[idx] : -INFINITY;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *out_n = want;
}

constexpr size_t kAlign = 256;
size_t align_up(size_t b) {
    return (b + kAlign - 1) / kAlign * kAlign;
}

/* One workspace for every segment in turn (the stream orders them): the
 * control block, the winners and their sorted copy (min(k, longest) each),
 * two candidate buffers of the longest segment (worst case: every key ties
 * the k-th through all levels), CUB's temp for the largest sort. */
struct Layout {
    size_t ctl, win, cand, temp; /* win and cand: the bytes of one list */
    size_t sum() const { return ctl + 2 * win + 2 * cand + temp; }
};

/* Resident blocks per SM of each streaming kernel, asked once in setup
 * (compact_keys' registers allow fewer than the others' shared memory). */
struct Occupancy {
    int filter, histogram, keys, candidates;
};

struct State {
    int k, segments;
    int64_t *len; /* host copy of the segment lengths */
    int sms;
    Occupancy occ;
    Layout l;
    void *ws;
};

/* 0 and the layout, or -1 when CUB cannot size its temp. */
int layout_of(const int64_t *len, int segments, int k, Layout *l) {
    int64_t longest = 0;
    size_t temp = 0;
    for (int s = 0; s < segments; s++) {
        longest = len[s] > longest ? len[s] : longest;
        const int want = (int)(len[s] < k ? len[s] : k);
        size_t bytes = 0;
        if (want > 0 &&
            cub::DeviceRadixSort::SortKeysDescending(nullptr, bytes, (const u64 *)nullptr,
                                                     (u64 *)nullptr, want, 0, 64) != cudaSuccess)
            return -1;
        temp = bytes > temp ? bytes : temp;
    }
    const int64_t want_max = longest < k ? longest : k;
    *l = Layout{align_up(sizeof(Ctl)), align_up(8 * (size_t)want_max),
                align_up(8 * (size_t)longest), align_up(temp)};
    return 0;
}

int supports(const kb_case *c, kb_error *why) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    if (!len) return KB_UNSUPPORTED;
    int64_t shortest = n ? len[0] : 0;
    for (int64_t s = 1; s < n; s++) shortest = len[s] < shortest ? len[s] : shortest;
    free(len);
    if (n <= kMaxSegments && shortest >= kMinLength) return KB_OK;
    kb_fail(why,
            "%lld segments, the shortest %lld keys: grid_select is for a few long segments "
            "(<= %d, each >= %lld); radix_select covers many short ones",
            (long long)n, (long long)shortest, kMaxSegments, (long long)kMinLength);
    return KB_UNSUPPORTED;
}

size_t workspace_bytes(const kb_case *c) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, nullptr);
    if (!len) return 0;
    Layout l;
    const int rc = layout_of(len, (int)n, (int)kb_topk_params_of(c).k, &l);
    free(len);
    return rc == 0 ? l.sum() : 0;
}

void teardown(void *state) {
    State *st = (State *)state;
    if (st) {
        cudaFree(st->ws);
        free(st->len);
    }
    free(st);
}

cudaError_t occupancy_of(Occupancy *o) {
    cudaError_t rc =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o->filter, filter_keys, kThreads, 0);
    if (rc == cudaSuccess)
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o->histogram, histogram_keys, kThreads,
                                                           0);
    if (rc == cudaSuccess)
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o->keys, compact_keys, kThreads, 0);
    if (rc == cudaSuccess)
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o->candidates, compact_candidates,
                                                           kThreads, 0);
    return rc;
}

int setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    *state = nullptr;
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) return kb_fail(e, "out of host memory");
    int64_t n = 0, total = 0;
    st->k = (int)kb_topk_params_of(c).k;
    st->len = kb_topk_lengths(c, &n, &total, e);
    st->segments = (int)n;
    st->sms = kb_gpu_sms(132);
    int rc = KB_OK;
    cudaError_t occ = cudaSuccess;
    if (!st->len)
        rc = KB_ERR;
    else if ((occ = occupancy_of(&st->occ)) != cudaSuccess)
        rc = kb_cuda_check(occ, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
    else if (layout_of(st->len, st->segments, st->k, &st->l) != 0)
        rc = kb_fail(e, "cub::DeviceRadixSort could not size its temp for k=%d", st->k);
    else if (cudaMalloc(&st->ws, st->l.sum()) != cudaSuccess) {
        st->ws = nullptr;
        cudaGetLastError();
        rc = KB_OUT_OF_MEMORY;
    }
    if (rc != KB_OK)
        teardown(st);
    else
        *state = st;
    return rc;
}

/* Blocks of a streaming pass over `items` (keys or candidates): one per
 * kThreads x kUnroll x 4 items, at most one wave (per_sm resident blocks on
 * each SM; the rest by the grid-stride loops): a second, partial wave would
 * leave SMs idle at the end of the pass. */
unsigned stream_blocks(int64_t items, int sms, int per_sm) {
    const int64_t per = (int64_t)kThreads * kUnroll * 4;
    const int64_t want = (items + per - 1) / per;
    const int64_t cap = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
    return (unsigned)(want < 1 ? 1 : want < cap ? want : cap);
}

/* Enqueues one segment's select; checks each launch. */
cudaError_t select_segment(const State *st, const float *seg, int n, float *out_v, int *out_i,
                           int *out_n, cudaStream_t stream) {
    const int k = st->k, want = n < k ? n : k;
    char *p = (char *)st->ws;
    Ctl *ctl = (Ctl *)p;
    u64 *sorted = (u64 *)(p + st->l.ctl + st->l.win);
    const Bufs b = {(u64 *)(p + st->l.ctl),
                    {(u64 *)(p + st->l.ctl + 2 * st->l.win),
                     (u64 *)(p + st->l.ctl + 2 * st->l.win + st->l.cand)}};
    void *temp = p + st->l.ctl + 2 * st->l.win + 2 * st->l.cand;
    cudaError_t rc = cudaSuccess;
    if (want > 0) {
        rc = cudaMemsetAsync(ctl, 0, kCtlZeroed, stream);
        if (rc != cudaSuccess) return rc;
        /* the sampled fast path for want <= kSampledWantMax; its candidates
         * go to the second buffer, which level 0's compaction leaves alone */
        u64 *sampled = want <= kSampledWantMax ? b.cand[1] : nullptr;
        const unsigned cap = (unsigned)(n < KB_GRID_SAMPLED_CAP ? n : KB_GRID_SAMPLED_CAP);
        if (sampled) {
            sample_threshold<<<kSampleBlocks, kSampleThreads, 0, stream>>>(
                seg, n, ctl, kb_grid_sample_rank((uint32_t)want, n, KB_GRID_SAMPLE));
            filter_keys<<<stream_blocks(n, st->sms, st->occ.filter), kThreads, 0, stream>>>(
                seg, n, ctl, (unsigned)want, sampled, cap);
        }
        histogram_keys<<<stream_blocks(n, st->sms, st->occ.histogram), kThreads, 0, stream>>>(
            seg, n, ctl, (unsigned)want);
        compact_keys<<<stream_blocks(n, st->sms, st->occ.keys), kThreads, 0, stream>>>(
            seg, n, ctl, b, (unsigned)want);
        /* levels 1-4 on the grid where the device decided so; level 5 never */
        const unsigned cb = stream_blocks(n, st->sms, st->occ.candidates);
        for (int level = 1; level < kGridLevels; level++)
            compact_candidates<<<cb, kThreads, 0, stream>>>(level, ctl, b, (unsigned)want,
                                                            (unsigned)n);
        if ((rc = cudaGetLastError()) != cudaSuccess) return rc;
        if (want <= kRankMax) {
            /* a warp per winner (or per candidate of the sampled cut); a
             * thread per sentinel slot at most */
            const int by_cut = sampled ? KB_GRID_RANK_CAP / 32 : 0;
            const int by_rank = (want + 31) / 32, by_slot = (k + kRankThreads - 1) / kRankThreads;
            int blocks = by_rank > by_slot ? by_rank : by_slot;
            blocks = by_cut > blocks ? by_cut : blocks;
            rank_write<<<blocks, kRankThreads, 0, stream>>>(seg, b.win, ctl, sampled, want, k,
                                                            out_v, out_i, out_n);
            return cudaGetLastError();
        }
        size_t bytes = st->l.temp;
        rc = cub::DeviceRadixSort::SortKeysDescending(temp, bytes, b.win, sorted, want, 0, 64,
                                                      stream);
        if (rc != cudaSuccess) return rc;
    }
    const unsigned bx = (unsigned)(k > 0 ? (k + 255) / 256 : 1);
    write_out<<<bx, 256, 0, stream>>>(seg, sorted, want, k, out_v, out_i, out_n);
    return cudaGetLastError();
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const float *values = (const float *)kb_tensors_get(dev_in, "values")->data;
    float *out_v = (float *)kb_tensors_find(dev_out, "topk_values")->data;
    int *out_i = (int *)kb_tensors_find(dev_out, "topk_indices")->data;
    int *out_n = (int *)kb_tensors_find(dev_out, "counts")->data;
    kb_nvtx_push("select");
    cudaError_t rc = cudaSuccess;
    int64_t begin = 0;
    for (int s = 0; s < st->segments && rc == cudaSuccess; begin += st->len[s], s++)
        rc = select_segment(st, values + begin, (int)st->len[s], out_v + (size_t)s * st->k,
                            out_i + (size_t)s * st->k, out_n + s, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "grid select", e);
}

} // namespace

KB_DEFINE_VARIANT(topk, grid_select) = {supports, workspace_bytes, setup, run, teardown};
