/* radix_select.cu — top-k of every segment in one launch (one per length
 * class of a mixed batch: split_classes): radix select, then sort only the
 * survivors.
 *
 *   kbench run topk -v radix_select --sweep default
 *
 * One thread-block cluster per segment; three radix passes find the key of
 * the k-th largest, one more scan collects the winners and the lowest-index
 * ties, each block ranks its share of them. The steps, with their napkin
 * math: above radix_select_kernel below.
 * Measured: docs/perf-topk.md.
 */
#include "kbench/variant.h"
#include "kbench/ops/topk.h"

#include "../common/topk_device.cuh"
#include "../common/arch.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

namespace {

constexpr int kThreads = 1024;
constexpr int kClusterMax = 16;     /* Hopper's non-portable maximum; 8 where 16 cannot run */
constexpr int kKeysPerBlock = 4096; /* fewer keys per block: the cluster barriers cost more */
constexpr int kRankPerBlock = 256;  /* candidates a block ranks against all k (k^2 / size) */
constexpr int kBins = 2048;         /* the widest digit: 11 bits */
constexpr int kPassCount = 3;       /* 11 + 11 + 10 bits */
constexpr int kLoadBatch = 8;       /* global loads in flight per thread in the first pass */
static_assert(kBins == 2 * kThreads, "the digit pick gives each thread two bins");
constexpr size_t kSmemWanted = 200 * 1024; /* the cache's cap where the device has more */
/* Candidate slots beyond k: a pass whose bucket, with every key above it, fits
 * k + kSlack slots takes it whole and ends the select (uniform scores: after
 * the second pass ~12 keys of 201,600 share the k-th key's 22 bits). */
constexpr int kSlack = 256;
/* Step 4 counts pairwise where a block's share times the list is at most
 * this (32 compares a thread): under the buckets' eight block barriers. */
constexpr long long kPairwiseMax = 32 * kThreads;
/* A block's fixed cost in keys scanned (barriers, remote round trips, the
 * rank): the cluster size minimises waves x (keys a block + this). */
constexpr int kFixedKeys = 8192;

typedef unsigned long long u64;

/* The segments one launch selects: blockIdx.y is the segment itself, or the
 * y-th entry of a table passed by value (a class of the batch, split by
 * length: split_classes below). 2 KB of parameters, under the 4 KB that
 * every driver takes. */
constexpr int kListedMax = 1024;
struct SegIds {
    unsigned short id[kListedMax];
};
struct NoTable {};
template <bool kListed> struct SegTable {
    typedef NoTable type;
    static __device__ __forceinline__ int segment(NoTable, unsigned y) { return (int)y; }
};
template <> struct SegTable<true> {
    typedef SegIds type;
    static __device__ __forceinline__ int segment(const SegIds &t, unsigned y) { return t.id[y]; }
};

/* Exclusive scan of one u64 per thread over the block; *total gets the sum. */
__device__ __forceinline__ u64 block_exclusive_scan(u64 x, u64 *warp_sums, u64 *total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u64 inc = x;
    for (int d = 1; d < 32; d <<= 1) {
        const u64 y = __shfl_up_sync(~0u, inc, d);
        if (lane >= d) inc += y;
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        const u64 w = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        u64 wi = w;
        for (int d = 1; d < 32; d <<= 1) {
            const u64 y = __shfl_up_sync(~0u, wi, d);
            if (lane >= d) wi += y;
        }
        warp_sums[lane] = wi - w;
        if (lane == 31) *total = wi;
    }
    __syncthreads();
    return warp_sums[warp] + inc - x;
}

/* The kernel, one launch for every segment.
 * One thread-block cluster per segment (1..16 blocks x 1024 threads, sized by
 * the longest segment, k and how many clusters fit at once: cluster_blocks,
 * halved_blocks for a class of a split batch);
 * block r owns a contiguous 1/size of the segment. Per segment:
 *   1+2. three radix passes (11, 11 and 10-bit digits) find T, the key of
 *      the k-th largest. The first pass is fused with the load: each block
 *      reads its chunk once (8 loads in flight per thread), turns it into
 *      order-preserving uint32 keys (kb_topk_key: -0 and +0 become one key),
 *      keeps them in shared memory when they fit (rpn5: 201600 / 16 x 4 B =
 *      49 KB; else later passes re-read global memory) and histograms the top
 *      11 bits with shared atomics. Later passes histogram only keys matching
 *      the prefix so far. The cluster's histogram is reduce-scattered: after
 *      cluster.sync() block r sums its 2048/size bins over the cluster (a
 *      thread per two bins) and scans them; after a second cluster.sync()
 *      warp 0 of every block finds the slice, then the bin, that holds the
 *      remaining-th key (every block reading all 16 histograms, 128 KB of
 *      distributed shared memory per pass, made the first draft 73 us). The
 *      select stops after the pass whose bucket, with every key above it,
 *      fits k + kSlack candidate slots: the bucket is taken whole (k >=
 *      length: after one pass; uniform rpn5 scores: after two);
 *   3. one more scan puts the winners (key > T) and the lowest-index ties
 *      (key == T), or every key >= a bucket taken whole, into EVERY block's
 *      candidate list (64-bit (key, ~index) entries): winners by an
 *      atomic slot counter in block 0, ties in index order (block tie bases
 *      from the last histograms, then tile by tile); one cluster.sync;
 *   4. each block ranks 1/size of the candidates (a unique total order: rank
 *      = how many beat it) and writes them in place: by buckets of the list
 *      (the count above a candidate's bucket, then its bucket's entries
 *      compared), or pairwise against the whole list where the share is small.
 * Napkin (rpn5): the longest segment puts 12600 keys per SM, ~12 per thread
 * per scan; 4 key scans and 7 cluster barriers (the 4-pass 8-bit first
 * version: 7 and 7, with 16 KB of remote histograms read per block and pass);
 * the rank step buckets ~1256 candidates (8 block barriers) and compares
 * ~1 entry each, where the pairwise count took k^2 / 16 = 63 k compares per
 * block (a single block at k = 1000: 1.6 M, ~25 us).
 *
 * (kThreads, 1): without the 1, ptxas aims at 2 blocks per SM and caps the kernel at 32
 * registers with spills; the shared-memory cache wants one block per SM anyway. */
template <bool kListed>
__global__ void __launch_bounds__(kThreads, 1)
    radix_select_kernel(const float *values, const int *offsets, int k, int cache_cap, float *out_v,
                        int *out_i, int *out_n, typename SegTable<kListed>::type table) {
    auto cluster = kb_this_cluster();
    const int blocks = (int)cluster.num_blocks(), rank = (int)cluster.block_rank();
    const int seg = SegTable<kListed>::segment(table, blockIdx.y), tid = threadIdx.x;
    const unsigned lane = tid & 31;
    const int begin = offsets[seg], n = offsets[seg + 1] - begin, want = min(k, n);
    float *seg_v = out_v + (size_t)seg * k;
    int *seg_i = out_i + (size_t)seg * k;

    for (int j = want + rank * kThreads + tid; j < k; j += blocks * kThreads) {
        seg_v[j] = -INFINITY;
        seg_i[j] = -1;
    }
    if (rank == 0 && tid == 0) out_n[seg] = want;
    if (want == 0) return; /* the whole cluster leaves together */

    extern __shared__ u64 smem[];
    u64 *cand = smem;                                  /* k + kSlack candidates */
    uint32_t *cache = (uint32_t *)(smem + k + kSlack); /* cache_cap keys */
    __shared__ unsigned hist[kBins];                   /* this block's histogram of the pass */
    __shared__ u64
        span[kBins]; /* bins of this block's slice: (above, above + count) in the slice */
    __shared__ u64 warp_sums[32], slice_total;
    __shared__ u64 cand_hi, cand_lo; /* the list's largest and smallest entries (step 4) */
    __shared__ unsigned sel_digit, sel_above, sel_through, sel_all, win_count,
        tile_ties[kThreads / 32];

    const int chunk = (n + blocks - 1) / blocks;
    const int lo = min(n, rank * chunk), m = min(n, lo + chunk) - lo;
    const float *src = values + begin + lo;
    const bool cached = m <= cache_cap;
    auto key_at = [&](int i) { return cached ? cache[i] : kb_topk_key(__ldg(src + i)); };
    /* Block r owns the cluster histogram's bins [r * width, (r + 1) * width), the last
     * block the rest (width even, so that every slice is: any cluster size); thread t the
     * slice's bins top - 2t and top - 2t - 1 (descending). */
    const int width = ((kBins + blocks - 1) / blocks + 1) & ~1;
    const int top = min(kBins, (rank + 1) * width) - 1;
    const bool owner = 2 * tid <= top - rank * width;

    /* 2. Radix select: T = prefix once mask covers all 32 bits, or the
     * bucket's prefix when it is taken whole (all_in: then ncand keys are
     * >= prefix, the want best among them). */
    uint32_t prefix = 0, mask = 0;
    unsigned remaining = (unsigned)want, all_in = 0, ncand = (unsigned)want;
    const unsigned slots = (unsigned)k + kSlack;
    if (tid == 0) {
        win_count = 0; /* block 0's is the slot counter; read after the first cluster.sync */
        cand_hi = 0;
        cand_lo = ~0ull;
    }
    for (int pass = 0; pass < kPassCount && !all_in; pass++) {
        /* Digits 31..21, 20..10, 9..0. */
        const int shift = pass == 0 ? 21 : pass == 1 ? 10 : 0;
        const uint32_t dmask = pass == 2 ? 0x3FFu : 0x7FFu;
        for (int i = tid; i < kBins; i += kThreads) hist[i] = 0;
        __syncthreads();
        if (pass == 0) {
            /* The load, fused with the first histogram: kLoadBatch loads in flight per thread. */
            kb_topk_load_keys<kThreads, kLoadBatch>(src, m, [&](int i, uint32_t key) {
                if (cached) cache[i] = key;
                atomicAdd(&hist[key >> shift], 1u);
            });
        } else {
            for (int i = tid; i < m; i += kThreads) {
                const uint32_t key = key_at(i);
                if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & dmask], 1u);
            }
        }
        cluster.sync();
        /* Reduce-scatter: this block's slice summed over the cluster (2 x blocks remote loads
         * in flight per owner thread). */
        const int b0 = top - 2 * tid, b1 = b0 - 1;
        unsigned c0 = 0, c1 = 0;
        if (owner) {
#pragma unroll
            for (int r = 0; r < kClusterMax; r++)
                if (r < blocks) {
                    const unsigned *hr = cluster.map_shared_rank(hist, r);
                    c0 += hr[b0];
                    c1 += hr[b1];
                }
        }
        const unsigned above = (unsigned)block_exclusive_scan(c0 + c1, warp_sums, &slice_total);
        if (owner) {
            span[b0] = (u64)above << 32 | (above + c0);
            span[b1] = (u64)(above + c0) << 32 | (above + c0 + c1);
        }
        cluster.sync();
        /* Warp 0 picks the digit: the slice that holds the remaining-th key from the top
         * (lane l reads the l-th slice from the top), then the bin in that slice. */
        if (tid < 32) {
            const unsigned total =
                (int)lane < blocks
                    ? (unsigned)*cluster.map_shared_rank(&slice_total, blocks - 1 - (int)lane)
                    : 0u;
            unsigned inc = total;
            for (int d = 1; d < 32; d <<= 1) {
                const unsigned y = __shfl_up_sync(~0u, inc, d);
                if (lane >= (unsigned)d) inc += y;
            }
            const unsigned hit = __ballot_sync(~0u, inc - total < remaining && remaining <= inc);
            const int l = __ffs(hit) - 1, slice = blocks - 1 - l; /* exactly one lane hits */
            const unsigned base = __shfl_sync(~0u, inc - total, l);
            const u64 *sp = cluster.map_shared_rank(span, slice);
#pragma unroll 4
            for (int b = slice * width + (int)lane; b < min(kBins, (slice + 1) * width); b += 32) {
                const u64 s = sp[b];
                const unsigned a = base + (unsigned)(s >> 32), z = base + (unsigned)s;
                if (a < remaining && remaining <= z) {
                    sel_digit = (unsigned)b;
                    sel_above = a;
                    sel_through = z;
                    sel_all = (unsigned)want - remaining + z <= slots; /* keys >= the bucket */
                }
            }
        }
        __syncthreads(); /* sel_* are rewritten only after the next cluster.sync */
        prefix |= sel_digit << shift;
        mask |= dmask << shift;
        if (sel_all) ncand = (unsigned)want - remaining + sel_through;
        remaining -= sel_above;
        all_in = sel_all;
    }
    if (all_in) remaining = 0; /* the last bucket is taken whole: winners are key >= prefix */

    /* 3. Winners (key > T; key >= T when the last bucket is taken whole) and
     * the lowest-index ties (key == T) into EVERY block's candidate list.
     * Winners take slots from a counter in block 0 (their order does not
     * matter: step 4 ranks by the total order). Ties are ranked by index: a
     * block's ties follow those of the blocks before it (each block's count
     * is its last histogram's bin T), and inside a block, tile by tile. */
    const uint32_t T = prefix;
    const unsigned winners = (unsigned)want - remaining;
    const unsigned lanes_below = (1u << lane) - 1;
    unsigned tie_base = 0;
    bool order_ties = false;
    if (!all_in) { /* all 3 passes ran: the last histogram counts keys == T in bin T & 0x3FF */
#pragma unroll
        for (int r = 0; r < kClusterMax; r++)
            if (r < rank) tie_base += cluster.map_shared_rank(hist, r)[T & 0x3FF];
        order_ties = tie_base < remaining && hist[T & 0x3FF] > 0; /* block-uniform */
    }
    unsigned *slot_counter = cluster.map_shared_rank(&win_count, 0);
    unsigned ties_before = 0; /* this block's ties in earlier tiles */
    for (int t0 = 0; t0 < m; t0 += kThreads) {
        const int i = t0 + tid;
        const uint32_t key = i < m ? key_at(i) : 0;
        const u64 entry = ((u64)key << 32) | (uint32_t) ~(uint32_t)(lo + i);
        const bool win = i < m && (all_in ? key >= T : key > T);
        const unsigned wins = __ballot_sync(~0u, win);
        if (wins) {
            unsigned base = 0;
            if (lane == 0) base = atomicAdd(slot_counter, (unsigned)__popc(wins));
            base = __shfl_sync(~0u, base, 0);
            if (win) {
                const unsigned slot = base + __popc(wins & lanes_below);
                for (int r = 0; r < blocks; r++) cluster.map_shared_rank(cand, r)[slot] = entry;
            }
        }
        if (!order_ties) continue;
        const bool tie = i < m && key == T;
        const unsigned ties = __ballot_sync(~0u, tie);
        if (lane == 0) tile_ties[tid >> 5] = (unsigned)__popc(ties);
        __syncthreads();
        unsigned warp_before = 0, tile_total = 0;
        for (int w = 0; w < kThreads / 32; w++) {
            const unsigned c = tile_ties[w];
            warp_before += w < (int)(tid >> 5) ? c : 0;
            tile_total += c;
        }
        if (tie) {
            const unsigned slot = tie_base + ties_before + warp_before + __popc(ties & lanes_below);
            if (slot < remaining)
                for (int r = 0; r < blocks; r++)
                    cluster.map_shared_rank(cand, r)[winners + slot] = entry;
        }
        ties_before += tile_total;
        __syncthreads(); /* tile_ties is rewritten next tile */
        if (tie_base + ties_before >= remaining) order_ties = false; /* block-uniform */
    }
    cluster.sync(); /* after this no block touches another's shared memory */

    /* 4. Rank this block's share of the ncand candidates; those ranked under
     * want are the output. A small share (share x ncand <= kPairwiseMax)
     * counts pairwise, tpc threads a candidate over the whole list. Else,
     * as each block holds the whole list, it buckets every
     * candidate by the 11 bits below the common prefix of the list's largest
     * and smallest entries (key, ~index), bucket 0 the highest, takes each
     * bucket's start from a scan of the counts, lists the candidates in
     * bucket order, then ranks each of its share as its bucket's start plus
     * the bucket's entries above it. Uniform scores put ~1 entry in a
     * bucket; all of them in one bucket (one far outlier) is the pairwise
     * count over the list. */
    const int share = ((int)ncand + blocks - 1) / blocks;
    if ((long long)share * ncand <= kPairwiseMax) {
        int tpc = 32;
        while (tpc > 1 && share * tpc > kThreads) tpc >>= 1;
        for (int base = 0; base < share; base += kThreads / tpc) {
            const int local = base + tid / tpc, sub = tid % tpc, j = rank * share + local;
            const bool valid = local < share && j < (int)ncand;
            const u64 me = valid ? cand[j] : 0;
            unsigned beaten_by = 0;
            if (valid)
                for (int x = sub; x < (int)ncand; x += tpc) beaten_by += cand[x] > me;
            for (int d = tpc / 2; d > 0; d >>= 1) beaten_by += __shfl_xor_sync(~0u, beaten_by, d);
            if (valid && sub == 0 && beaten_by < (unsigned)want) {
                const int idx = (int)~(uint32_t)me;
                seg_i[beaten_by] = idx;
                seg_v[beaten_by] = values[begin + idx];
            }
        }
        return;
    }
    u64 hi = 0, lo_entry = ~0ull;
    for (int j = tid; j < (int)ncand; j += kThreads) {
        const u64 c = cand[j];
        hi = c > hi ? c : hi;
        lo_entry = c < lo_entry ? c : lo_entry;
    }
    for (int d = 16; d > 0; d >>= 1) {
        const u64 h = __shfl_xor_sync(~0u, hi, d), l = __shfl_xor_sync(~0u, lo_entry, d);
        hi = h > hi ? h : hi;
        lo_entry = l < lo_entry ? l : lo_entry;
    }
    if (lane == 0) {
        atomicMax(&cand_hi, hi);
        atomicMin(&cand_lo, lo_entry);
    }
    for (int i = tid; i < kBins; i += kThreads) hist[i] = 0;
    __syncthreads();
    hi = cand_hi;
    const u64 differ = hi ^ cand_lo;
    const int shift = differ < (u64)kBins ? 0 : 64 - __clzll((long long)differ) - 11;
    const u64 top_bucket = hi >> shift; /* (top_bucket - (c >> shift)) < kBins */
    auto bucket_of = [&](u64 c) { return (unsigned)(top_bucket - (c >> shift)); };
    for (int j = tid; j < (int)ncand; j += kThreads) atomicAdd(&hist[bucket_of(cand[j])], 1u);
    __syncthreads();
    const unsigned h0 = hist[2 * tid], h1 = hist[2 * tid + 1];
    const unsigned start = (unsigned)block_exclusive_scan(h0 + h1, warp_sums, &slice_total);
    hist[2 * tid] = start;
    hist[2 * tid + 1] = start + h0;
    __syncthreads();
    unsigned short *order = (unsigned short *)span; /* k + kSlack <= 4352 entries, 8192 fit */
    for (int j = tid; j < (int)ncand; j += kThreads)
        order[atomicAdd(&hist[bucket_of(cand[j])], 1u)] = (unsigned short)j;
    __syncthreads(); /* hist[b] is now the end of bucket b, the start of b + 1 */
    for (int local = tid; local < share; local += kThreads) {
        const int j = rank * share + local;
        if (j >= (int)ncand) break;
        const u64 me = cand[j];
        const unsigned b = bucket_of(me), end = hist[b];
        const unsigned first = b ? hist[b - 1] : 0;
        unsigned beaten_by = first;
        for (unsigned x = first; x < end; x++) beaten_by += cand[order[x]] > me;
        if (beaten_by < (unsigned)want) {
            const int idx = (int)~(uint32_t)me;
            seg_i[beaten_by] = idx;
            seg_v[beaten_by] = values[begin + idx];
        }
    }
}

int supports(const kb_case *c, kb_error *why) {
    if (kb_gpu_require(KB_CC_CLUSTERS, "thread block clusters", why) != KB_OK)
        return KB_UNSUPPORTED;
    const int64_t k = kb_topk_params_of(c).k;
    if (k <= KB_TOPK_SELECT_MAX_K) return KB_OK;
    kb_fail(why, "k=%lld > %d: the survivors are ranked in shared memory", (long long)k,
            KB_TOPK_SELECT_MAX_K);
    return KB_UNSUPPORTED;
}

size_t workspace_bytes(const kb_case *) {
    return 0;
}

/* Clusters of each size from 1 to 16 blocks that fit on the device at once
 * (0: cannot run; above 8 is non-portable), at the largest shared-memory
 * size. The count follows the GPU's layout of SMs in GPCs, which differs
 * between chips of one model (an H200: 7 clusters of 16, 15 of 8, 17 of 6, 39 of 3). Asked
 * once, at the first call (outside any graph capture). */
struct Occupancy {
    int largest;                 /* the largest size that runs */
    int active[kClusterMax + 1]; /* active[s]: clusters of s blocks (0: cannot run) */
    size_t smem;                 /* dynamic shared memory a block takes: candidates + cache */
};

/* kSmemWanted, or what the device's opt-in limit leaves beside the kernel's
 * static arrays where that is less (99 KB-class GPUs). */
size_t smem_limit() {
    const kb_gpu *g = kb_gpu_current();
    cudaFuncAttributes a;
    if (!g || cudaFuncGetAttributes(&a, radix_select_kernel<false>) != cudaSuccess) {
        cudaGetLastError();
        return kSmemWanted;
    }
    const size_t have = g->smem_optin > a.sharedSizeBytes ? g->smem_optin - a.sharedSizeBytes : 0;
    return have < kSmemWanted ? have : kSmemWanted;
}

template <bool kListed> void allow_clusters(size_t smem) {
    if (cudaFuncSetAttribute(radix_select_kernel<kListed>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem) != cudaSuccess ||
        cudaFuncSetAttribute(radix_select_kernel<kListed>,
                             cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
        cudaGetLastError(); /* then only the portable sizes (<= 8) can run */
}

/* The kernels differ only in where blockIdx.y's segment comes from and how
 * step 4 counts: the plain one's occupancy stands for all. */
const Occupancy &occupancy() {
    static Occupancy occ = {0, {0}, 0};
    if (occ.largest) return occ;
    occ.largest = 1;
    occ.smem = smem_limit();
    allow_clusters<false>(occ.smem);
    allow_clusters<true>(occ.smem);
    for (int size = 1; size <= kClusterMax; size++) {
        kb_cluster_config probe;
        kb_cluster_config_fill(&probe, dim3((unsigned)size), kThreads, occ.smem, size, 0);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, radix_select_kernel<false>, &probe.cfg) ==
                cudaSuccess &&
            clusters > 0) {
            occ.active[size] = clusters;
            occ.largest = size;
        }
        cudaGetLastError();
    }
    if (!occ.active[1]) occ.active[1] = 1;
    return occ;
}

int waves(int segments, const Occupancy &occ, int size) {
    const int active = max(1, occ.active[size]);
    return (segments + active - 1) / active;
}

/* Blocks a segment of n keys wants before the waves are counted: each block
 * scans <= kKeysPerBlock keys and ranks <= kRankPerBlock candidates. Not
 * capped at the device's largest cluster: it names a length class. */
int blocks_wanted(int64_t n, int k) {
    int size = 1;
    while ((n + size - 1) / size > kKeysPerBlock || k > size * kRankPerBlock) size *= 2;
    return size;
}

/* Whether a block of a cluster of `size` holds its share of `longest` keys
 * in shared memory beside the candidates. */
bool fits(int size, int longest, int k) {
    const size_t chunk = ((size_t)longest + size - 1) / size;
    return (size_t)(k + kSlack) * sizeof(u64) + 4 * chunk <= occupancy().smem;
}

/* Blocks per segment for a launch that has the GPU to itself: blocks_wanted
 * of the longest, capped at the largest cluster (rpn5: 16), or a smaller size
 * of any count where that costs less, the cost waves x (keys a block +
 * kFixedKeys), among the sizes whose keys fit in shared memory (32 x 4096 at
 * k = 1000 on an H200: 3 blocks, 1 wave of 39, where 2 scan 2048 keys each
 * and 4 take 2 waves of 30). */
int cluster_blocks(int segments, int longest, int k) {
    const Occupancy &occ = occupancy();
    const int cap = min(blocks_wanted(longest, k), occ.largest);
    auto cost = [&](int size) {
        return (long long)waves(segments, occ, size) * ((longest + size - 1) / size + kFixedKeys);
    };
    int best = cap;
    for (int size = cap - 1; size >= 1 && fits(size, longest, k); size--)
        if (occ.active[size] > 0 && cost(size) < cost(best)) best = size;
    return best;
}

/* Blocks per segment for a class of a split batch, whose launch runs beside
 * the other classes' (split_classes): blocks_wanted of the longest as a power
 * of two under the largest cluster, halved while that means fewer waves of
 * clusters and a block's keys still fit in shared memory (rpn5 x 32, level 0
 * on an H200: 8 blocks, 3 waves of 15). The cost rule above sizes each class
 * as if it had every SM: at rpn5 x 32 it took 6, 3 and 1 blocks where this
 * takes 8, 2 and 1, and 114.7 us where this takes 107.6. */
int halved_blocks(int segments, int longest, int k) {
    const Occupancy &occ = occupancy();
    const int cap = min(blocks_wanted(longest, k), occ.largest);
    int size = 1;
    while (size * 2 <= cap) size *= 2;
    while (size > 1) {
        const int half = size / 2;
        if (!fits(half, longest, k) || waves(segments, occ, half) >= waves(segments, occ, size))
            break;
        size = half;
    }
    return size;
}

/* One launch of the kernel: `count` segments (all of them in order, or the
 * table's), `blocks` a cluster, keys cached up to the longest's chunk. */
struct Launch {
    int count, blocks, longest;
    SegIds table; /* the segments, where count is not all of them in order */
};

template <bool kListed>
cudaError_t launch_select(const Launch &l, const typename SegTable<kListed>::type &table,
                          const float *values, const int *offsets, int k, float *out_v, int *out_i,
                          int *out_n, cudaStream_t stream) {
    const size_t chunk = ((size_t)l.longest + l.blocks - 1) / l.blocks;
    const size_t cand_bytes = (size_t)(k + kSlack) * sizeof(u64);
    const size_t cache_cap = cand_bytes + 4 * chunk <= occupancy().smem ? chunk : 0;
    kb_cluster_config c;
    kb_cluster_config_fill(&c, dim3((unsigned)l.blocks, (unsigned)l.count), kThreads,
                           cand_bytes + 4 * cache_cap, l.blocks, stream);
    return cudaLaunchKernelEx(&c.cfg, radix_select_kernel<kListed>, values, offsets, k,
                              (int)cache_cap, out_v, out_i, out_n, table);
}

/* A batch of mixed lengths (rpn5 x 32 images: 32 segments of 201,600 keys,
 * 32 of 50,400, 96 of 819-12,600) in one launch gives every segment the
 * longest's cluster: 160 clusters of 8 blocks, 10 waves, most of whose
 * blocks hold a few hundred keys. Split instead into classes by the blocks
 * a segment wants (blocks_wanted: 64, 16 and 4 there), each class its own
 * launch with its own cluster size (on an H200 8, 2 and 1 blocks: 256 + 64
 * + 96 blocks), the launches side by side on forked streams. Only where one
 * launch would take more than one wave and there are two classes or more;
 * at most kClassMax classes (the shortest merged into the last). */
constexpr int kClassMax = 3;

struct Plan {
    int nclass; /* 0: one launch over every segment */
    Launch cls[kClassMax];
};

void split_classes(const int64_t *len, int segments, int longest, int k, Plan *plan) {
    plan->nclass = 0;
    const Occupancy &occ = occupancy();
    if (segments < 2 || waves(segments, occ, halved_blocks(segments, longest, k)) <= 1) return;
    int keys[kClassMax], nkeys = 0; /* the classes' blocks_wanted, descending */
    for (;;) {
        int next = 0;
        for (int s = 0; s < segments; s++) {
            const int w = blocks_wanted(len[s], k);
            if ((nkeys == 0 || w < keys[nkeys - 1]) && w > next) next = w;
        }
        if (next == 0) break;
        if (nkeys == kClassMax) break; /* the rest joins the last class */
        keys[nkeys++] = next;
    }
    if (nkeys < 2) return;
    for (int c = 0; c < nkeys; c++) {
        Launch *l = &plan->cls[c];
        l->count = l->longest = 0;
        const int lower = c + 1 < nkeys ? keys[c + 1] : 0; /* the last class takes the rest */
        for (int s = 0; s < segments; s++) {
            const int w = blocks_wanted(len[s], k);
            if (w > keys[c] || w <= lower) continue;
            if (l->count == kListedMax) return; /* too many to list: one launch */
            l->table.id[l->count++] = (unsigned short)s;
            if (len[s] > l->longest) l->longest = (int)len[s];
        }
        l->blocks = halved_blocks(l->count, l->longest, k);
    }
    plan->nclass = nkeys;
}

struct State {
    int k, segments, longest;
    Plan plan;
    cudaStream_t side[kClassMax - 1];
    cudaEvent_t fork, join[kClassMax - 1];
};

void teardown(void *state) {
    State *st = (State *)state;
    if (!st) return;
    for (int i = 0; i < kClassMax - 1; i++) {
        if (st->side[i]) cudaStreamDestroy(st->side[i]);
        if (st->join[i]) cudaEventDestroy(st->join[i]);
    }
    if (st->fork) cudaEventDestroy(st->fork);
    free(st);
}

int setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    int64_t segments = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &segments, &total, e);
    if (!len) return KB_ERR;
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) {
        free(len);
        return kb_fail(e, "out of host memory");
    }
    st->k = (int)kb_topk_params_of(c).k;
    st->segments = (int)segments;
    st->longest = (int)kb_topk_max_segment(c);
    split_classes(len, st->segments, st->longest, st->k, &st->plan);
    free(len);
    *state = st;
    if (st->plan.nclass < 2) return KB_OK;
    cudaError_t rc = cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming);
    for (int i = 0; rc == cudaSuccess && i < st->plan.nclass - 1; i++) {
        rc = cudaStreamCreateWithFlags(&st->side[i], cudaStreamNonBlocking);
        if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&st->join[i], cudaEventDisableTiming);
    }
    if (rc == cudaSuccess) return KB_OK;
    teardown(st);
    *state = NULL;
    return kb_cuda_check(rc, "radix_select streams", e);
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const kb_topk_io io = kb_topk_io_of(dev_in, dev_out);
    kb_nvtx_push("select");
    cudaError_t rc;
    if (st->plan.nclass < 2) {
        rc = kb_topk_select(io.values, io.offsets, st->segments, st->longest, st->k, io.out_v,
                            io.out_i, io.out_n, stream);
    } else { /* class 0 on the caller's stream, the others forked and joined back */
        const int n = st->plan.nclass;
        rc = cudaEventRecord(st->fork, stream);
        for (int i = 1; rc == cudaSuccess && i < n; i++)
            rc = cudaStreamWaitEvent(st->side[i - 1], st->fork, 0);
        for (int i = 0; rc == cudaSuccess && i < n; i++) {
            const Launch &l = st->plan.cls[i];
            rc = launch_select<true>(l, l.table, io.values, io.offsets, st->k, io.out_v, io.out_i,
                                     io.out_n, i == 0 ? stream : st->side[i - 1]);
        }
        for (int i = 1; rc == cudaSuccess && i < n; i++) {
            rc = cudaEventRecord(st->join[i - 1], st->side[i - 1]);
            if (rc == cudaSuccess) rc = cudaStreamWaitEvent(stream, st->join[i - 1], 0);
        }
    }
    kb_nvtx_pop();
    return kb_cuda_check(rc, "radix_select_kernel", e);
}

} // namespace

cudaError_t kb_topk_select(const float *values, const int *offsets, int segments, int longest,
                           int k, float *out_v, int *out_i, int *out_n, cudaStream_t stream) {
    if (segments == 0) return cudaSuccess;
    if (k > KB_TOPK_SELECT_MAX_K) return cudaErrorInvalidValue;
    Launch l;
    l.count = segments;
    l.longest = longest;
    l.blocks = cluster_blocks(segments, longest, k);
    return launch_select<false>(l, NoTable{}, values, offsets, k, out_v, out_i, out_n, stream);
}

KB_DEFINE_VARIANT(topk, radix_select) = {supports, workspace_bytes, setup, run, teardown};
