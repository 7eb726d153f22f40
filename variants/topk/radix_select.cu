/* radix_select.cu — top-k of every segment in ONE launch: radix select, then
 * sort only the k survivors.
 *
 *   kbench run topk -v radix_select --sweep default
 *
 * Two kernels, one launcher (kb_topk_select). v1 (radix_select_kernel, the
 * default, measured: docs/perf-topk.md) uses 4 passes of 8-bit digits; v2
 * (radix_select_v2_kernel, KB_TOPK_SELECT=v2 in the environment) was written
 * without a device and is the default once it has passed and been timed.
 *
 * One thread-block cluster (16 blocks x 1024 threads on an H100, else 8) per
 * segment; block r owns a contiguous 1/16 of the segment. Per segment (v2):
 *   1+2. three radix passes (11, 11 and 10-bit digits) find T, the key of
 *      the k-th largest. The first pass is fused with the load: each block
 *      reads its chunk once (8 loads in flight per thread), turns it into
 *      order-preserving uint32 keys (kb_topk_key: -0 and +0 become one key),
 *      keeps them in shared memory when they fit (rpn5: 201600 / 16 x 4 B =
 *      49 KB; else later passes re-read global memory) and histograms the
 *      top 11 bits. Later passes histogram only keys matching the prefix so
 *      far. Plain shared atomics (uniform scores spread the first 11-bit
 *      digit over 4+ bins per warp). After each histogram, cluster.sync(),
 *      then every block sums the 16 histograms over distributed shared
 *      memory (a thread per two bins) and picks the same digit with one
 *      block scan (no second barrier; histograms are double-buffered). A
 *      pass stops early when its bucket is taken whole (k >= length: after
 *      one pass);
 *   3. one more scan puts the winners (key > T) and the lowest-index ties
 *      (key == T) into EVERY block's candidate list (at most k 64-bit
 *      (key, ~index) entries): winners by an atomic slot counter in block 0,
 *      ties in index order (block tie bases from the last histograms, then
 *      tile by tile); one cluster.sync;
 *   4. each block ranks 1/16 of the candidates against all of them (a unique
 *      total order: rank = how many beat it) and writes them in place.
 * Napkin: rpn5's longest segment puts 12600 keys per SM, ~12 per thread per
 * scan; v2 makes 4 scans and 4 cluster barriers (v1: 7 and 7); the rank step
 * is k^2 / 16 = 62.5 k compares per block. Measured: docs/perf-topk.md.
 */
#include "topk.h"

#include "topk_device.cuh"

#include <cooperative_groups.h>

#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 1024;
constexpr int kClusterMax = 16; /* Hopper's non-portable maximum; 8 where 16 cannot run */
constexpr int kBinsV1 = 256;    /* v1: 8-bit digits, 4 passes */
constexpr int kBins = 2048;     /* the widest digit: 11 bits */
constexpr int kPassCount = 3;   /* 11 + 11 + 10 bits */
constexpr int kLoadBatch = 8;   /* global loads in flight per thread in the first pass */
static_assert(kBins == 2 * kThreads, "the digit pick gives each thread two bins");
constexpr size_t kSmemLimit = 200 * 1024;

typedef unsigned long long u64;

/* Exclusive scan of one u64 per thread over the block; *total gets the sum. */
__device__ u64 block_exclusive_scan(u64 x, u64 *warp_sums, u64 *total) {
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

/* v1 (measured 51.3 us on rpn5): 4 passes of 8-bit digits, __match_any_sync
 * aggregation, a count scan and a copy from block 0: 7 scans, 7 barriers.
 * The default until v2 has been checked and timed on a device. */
__global__ void __launch_bounds__(kThreads)
    radix_select_kernel(const float *values, const int *offsets, int k, int cache_cap, float *out_v,
                        int *out_i, int *out_n) {
    cg::cluster_group cluster = cg::this_cluster();
    const int blocks = (int)cluster.num_blocks(), rank = (int)cluster.block_rank();
    const int seg = blockIdx.y, tid = threadIdx.x, lane = tid & 31;
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
    u64 *cand = smem;                         /* k candidates */
    uint32_t *cache = (uint32_t *)(smem + k); /* cache_cap keys */
    __shared__ unsigned hist[2][kBinsV1], total[kBinsV1];
    __shared__ u64 warp_sums[32], block_total;
    __shared__ unsigned sel_digit, sel_above, sel_all;

    const int chunk = (n + blocks - 1) / blocks;
    const int lo = min(n, rank * chunk), m = min(n, lo + chunk) - lo;
    const float *src = values + begin + lo;
    const bool cached = m <= cache_cap;
    if (cached)
        for (int i = tid; i < m; i += kThreads) cache[i] = kb_topk_key(src[i]);
    auto key_at = [&](int i) { return cached ? cache[i] : kb_topk_key(src[i]); };

    /* 2. Radix select: T = prefix once mask covers all 32 bits. */
    uint32_t prefix = 0, mask = 0;
    unsigned remaining = (unsigned)want, all_in = 0;
    for (int pass = 0; pass < 4 && !all_in; pass++) {
        const int shift = 24 - 8 * pass;
        unsigned *h = hist[pass & 1];
        for (int i = tid; i < kBinsV1; i += kThreads) h[i] = 0;
        __syncthreads();
        for (int i0 = 0; i0 < m; i0 += kThreads) {
            const int i = i0 + tid;
            const uint32_t key = i < m ? key_at(i) : 0;
            const bool match = i < m && (key & mask) == prefix;
            if (!__any_sync(~0u, match)) continue;
            const unsigned digit = match ? (key >> shift) & (kBinsV1 - 1) : kBinsV1 + lane;
            const unsigned peers = __match_any_sync(~0u, digit);
            if (match && lane == __ffs(peers) - 1) atomicAdd(&h[digit], __popc(peers));
        }
        cluster.sync();
        /* The cluster's histogram: one thread per bin, the 8 remote loads in flight together. */
        if (tid < kBinsV1) {
            unsigned t = 0;
#pragma unroll 8
            for (int r = 0; r < blocks; r++) t += cluster.map_shared_rank(h, r)[tid];
            total[tid] = t;
        }
        __syncthreads();
        if (tid < 32) { /* lane l owns bins 255 - 8l down to 248 - 8l */
            unsigned cnt[8], sum = 0;
#pragma unroll
            for (int b = 0; b < 8; b++) {
                cnt[b] = total[kBinsV1 - 1 - 8 * lane - b];
                sum += cnt[b];
            }
            unsigned inc = sum;
            for (int d = 1; d < 32; d <<= 1) {
                const unsigned y = __shfl_up_sync(~0u, inc, d);
                if (lane >= d) inc += y;
            }
            unsigned above = inc - sum;
            if (above < remaining && remaining <= inc)
#pragma unroll
                for (int b = 0; b < 8; b++) {
                    if (above + cnt[b] >= remaining) {
                        sel_digit = kBinsV1 - 1 - 8 * lane - b;
                        sel_above = above;
                        sel_all = above + cnt[b] == remaining;
                        break;
                    }
                    above += cnt[b];
                }
        }
        __syncthreads(); /* sel_* are rewritten only after the next cluster.sync */
        prefix |= sel_digit << shift;
        mask |= (unsigned)(kBinsV1 - 1) << shift;
        remaining -= sel_above;
        all_in = sel_all;
    }
    if (all_in) remaining = 0; /* the last bucket is taken whole: winners are key >= prefix */

    /* 3. Winners and the lowest-index ties into block 0's candidate list. */
    const uint32_t T = prefix;
    const int per = (m + kThreads - 1) / kThreads;
    const int r0 = min(m, tid * per), r1 = min(m, r0 + per);
    unsigned w = 0, t = 0;
    for (int i = r0; i < r1; i++) {
        const uint32_t key = key_at(i);
        w += all_in ? key >= T : key > T;
        t += !all_in && key == T;
    }
    const u64 excl = block_exclusive_scan(((u64)w << 32) | t, warp_sums, &block_total);
    cluster.sync();
    u64 before = excl;
    for (int r = 0; r < rank; r++) before += *cluster.map_shared_rank(&block_total, r);
    unsigned wslot = (unsigned)(before >> 32), tslot = (unsigned)before;
    const unsigned winners = (unsigned)want - remaining;
    u64 *dst = cluster.map_shared_rank(cand, 0);
    for (int i = r0; i < r1; i++) {
        const uint32_t key = key_at(i);
        const u64 entry = ((u64)key << 32) | (uint32_t) ~(uint32_t)(lo + i);
        if (all_in ? key >= T : key > T) {
            dst[wslot++] = entry;
        } else if (!all_in && key == T) {
            if (tslot < remaining) dst[winners + tslot] = entry;
            tslot++;
        }
    }
    cluster.sync();
    if (rank != 0) {
        const u64 *src0 = cluster.map_shared_rank(cand, 0);
        for (int j = tid; j < want; j += kThreads) cand[j] = src0[j];
    }
    cluster.sync(); /* after this no block touches another's shared memory */

    /* 4. Rank this block's share of the candidates: tpc threads per candidate. */
    const int share = (want + blocks - 1) / blocks;
    int tpc = 32;
    while (tpc > 1 && share * tpc > kThreads) tpc >>= 1;
    for (int base = 0; base < share; base += kThreads / tpc) {
        const int local = base + tid / tpc, sub = tid % tpc, j = rank * share + local;
        const bool valid = local < share && j < want;
        const u64 me = valid ? cand[j] : 0;
        unsigned beaten_by = 0;
        if (valid)
            for (int x = sub; x < want; x += tpc) beaten_by += cand[x] > me;
        for (int d = tpc / 2; d > 0; d >>= 1) beaten_by += __shfl_xor_sync(~0u, beaten_by, d);
        if (valid && sub == 0) {
            const int idx = (int)~(uint32_t)me;
            seg_i[beaten_by] = idx;
            seg_v[beaten_by] = values[begin + idx];
        }
    }
}
/* v2: 3 passes of 11/11/10-bit digits, see the top of the file. */
__global__ void __launch_bounds__(kThreads)
    radix_select_v2_kernel(const float *values, const int *offsets, int k, int cache_cap,
                           float *out_v, int *out_i, int *out_n) {
    cg::cluster_group cluster = cg::this_cluster();
    const int blocks = (int)cluster.num_blocks(), rank = (int)cluster.block_rank();
    const int seg = blockIdx.y, tid = threadIdx.x;
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
    u64 *cand = smem;                         /* k candidates */
    uint32_t *cache = (uint32_t *)(smem + k); /* cache_cap keys */
    __shared__ unsigned hist[2][kBins];
    __shared__ u64 warp_sums[32], block_total;
    __shared__ unsigned sel_digit, sel_above, sel_all, win_count, tile_ties[kThreads / 32];

    const int chunk = (n + blocks - 1) / blocks;
    const int lo = min(n, rank * chunk), m = min(n, lo + chunk) - lo;
    const float *src = values + begin + lo;
    const bool cached = m <= cache_cap;
    auto key_at = [&](int i) { return cached ? cache[i] : kb_topk_key(__ldg(src + i)); };

    /* 2. Radix select: T = prefix once mask covers all 32 bits. */
    uint32_t prefix = 0, mask = 0;
    unsigned remaining = (unsigned)want, all_in = 0;
    if (tid == 0)
        win_count = 0; /* block 0's is the slot counter; read after the first cluster.sync */
    for (int pass = 0; pass < kPassCount && !all_in; pass++) {
        /* Digits 31..21, 20..10, 9..0. */
        const int shift = pass == 0 ? 21 : pass == 1 ? 10 : 0;
        const uint32_t dmask = pass == 2 ? 0x3FFu : 0x7FFu;
        unsigned *h = hist[pass & 1];
        for (int i = tid; i < kBins; i += kThreads) h[i] = 0;
        __syncthreads();
        if (pass == 0) {
            /* The load, fused with the first histogram: kLoadBatch loads in flight per thread. */
            for (int i0 = tid; i0 < m; i0 += kLoadBatch * kThreads) {
                float v[kLoadBatch];
#pragma unroll
                for (int u = 0; u < kLoadBatch; u++) {
                    const int i = i0 + u * kThreads;
                    v[u] = i < m ? __ldg(src + i) : 0.0f;
                }
#pragma unroll
                for (int u = 0; u < kLoadBatch; u++) {
                    const int i = i0 + u * kThreads;
                    if (i < m) {
                        const uint32_t key = kb_topk_key(v[u]);
                        if (cached) cache[i] = key;
                        atomicAdd(&h[key >> shift], 1u);
                    }
                }
            }
        } else {
            for (int i = tid; i < m; i += kThreads) {
                const uint32_t key = key_at(i);
                if ((key & mask) == prefix) atomicAdd(&h[(key >> shift) & dmask], 1u);
            }
        }
        cluster.sync();
        /* The cluster's histogram: thread t owns bins 2047 - 2t and 2046 - 2t (descending). */
        const int b0 = kBins - 1 - 2 * tid, b1 = b0 - 1;
        unsigned c0 = 0, c1 = 0;
#pragma unroll 4
        for (int r = 0; r < blocks; r++) {
            const unsigned *hr = cluster.map_shared_rank(h, r);
            c0 += hr[b0];
            c1 += hr[b1];
        }
        const unsigned above = (unsigned)block_exclusive_scan(c0 + c1, warp_sums, &block_total);
        if (above < remaining && remaining <= above + c0 + c1) {
            const bool first = above + c0 >= remaining;
            sel_digit = (unsigned)(first ? b0 : b1);
            sel_above = first ? above : above + c0;
            sel_all = first ? above + c0 == remaining : above + c0 + c1 == remaining;
        }
        __syncthreads(); /* sel_* are rewritten only after the next cluster.sync */
        prefix |= sel_digit << shift;
        mask |= dmask << shift;
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
    const unsigned lane = tid & 31, lanes_below = (1u << lane) - 1;
    unsigned tie_base = 0;
    bool order_ties = false;
    if (!all_in) { /* all 3 passes ran: the last histogram (hist[0]) counts keys == T */
        for (int r = 0; r < rank; r++) tie_base += cluster.map_shared_rank(hist[0], r)[T & 0x3FF];
        order_ties = tie_base < remaining && hist[0][T & 0x3FF] > 0; /* block-uniform */
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

    /* 4. Rank this block's share of the candidates: tpc threads per candidate. */
    const int share = (want + blocks - 1) / blocks;
    int tpc = 32;
    while (tpc > 1 && share * tpc > kThreads) tpc >>= 1;
    for (int base = 0; base < share; base += kThreads / tpc) {
        const int local = base + tid / tpc, sub = tid % tpc, j = rank * share + local;
        const bool valid = local < share && j < want;
        const u64 me = valid ? cand[j] : 0;
        unsigned beaten_by = 0;
        if (valid)
            for (int x = sub; x < want; x += tpc) beaten_by += cand[x] > me;
        for (int d = tpc / 2; d > 0; d >>= 1) beaten_by += __shfl_xor_sync(~0u, beaten_by, d);
        if (valid && sub == 0) {
            const int idx = (int)~(uint32_t)me;
            seg_i[beaten_by] = idx;
            seg_v[beaten_by] = values[begin + idx];
        }
    }
}

int supports(const kb_case *c, kb_error *why) {
    if (kb_int(c, "k") <= KB_TOPK_SELECT_MAX_K) return KB_OK;
    kb_fail(why, "k=%lld > %d: the survivors are ranked in shared memory",
            (long long)kb_int(c, "k"), KB_TOPK_SELECT_MAX_K);
    return KB_UNSUPPORTED;
}

size_t workspace_bytes(const kb_case *) {
    return 0;
}

struct State {
    int k, segments, longest;
};

int setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    int64_t segments = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &segments, &total, e);
    if (!len) return KB_ERR;
    free(len);
    State *st = (State *)malloc(sizeof(State));
    if (!st) return kb_fail(e, "out of host memory");
    *st = State{(int)kb_int(c, "k"), (int)segments, (int)kb_topk_max_segment(c)};
    *state = st;
    return KB_OK;
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    kb_nvtx_push("select");
    cudaError_t rc =
        kb_topk_select((const float *)kb_tensors_get(dev_in, "values")->data,
                       (const int *)kb_tensors_get(dev_in, "offsets")->data, st->segments,
                       st->longest, st->k, (float *)kb_tensors_find(dev_out, "topk_values")->data,
                       (int *)kb_tensors_find(dev_out, "topk_indices")->data,
                       (int *)kb_tensors_find(dev_out, "counts")->data, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "radix_select_kernel", e);
}

void teardown(void *state) {
    free(state);
}

/* Blocks per segment: 16 where the device can co-schedule such a cluster at
 * the largest shared-memory size (half the keys per SM of 8), else 8.
 * Decided once, at the first call (outside any graph capture). */
int cluster_size() {
    static int size = 0;
    if (size) return size;
    size = 8;
    if (cudaFuncSetAttribute(radix_select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)kSmemLimit) != cudaSuccess ||
        cudaFuncSetAttribute(radix_select_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                             1) != cudaSuccess ||
        cudaFuncSetAttribute(radix_select_v2_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)kSmemLimit) != cudaSuccess ||
        cudaFuncSetAttribute(radix_select_v2_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                             1) != cudaSuccess) {
        cudaGetLastError();
        return size;
    }
    cudaLaunchConfig_t probe = {};
    probe.gridDim = dim3(kClusterMax);
    probe.blockDim = dim3(kThreads);
    probe.dynamicSmemBytes = kSmemLimit;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = kClusterMax;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    probe.attrs = attr;
    probe.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, radix_select_v2_kernel, &probe) == cudaSuccess &&
        clusters > 0)
        size = kClusterMax;
    cudaGetLastError();
    return size;
}

/* KB_TOPK_SELECT=v2 picks the v2 kernel (read at every call, so a test can
 * switch it): v2 was written without a device and waits for its first check
 * and timing (docs/perf-topk.md); v1 stays the default until then. */
bool use_v2() {
    const char *v = getenv("KB_TOPK_SELECT");
    return v && strcmp(v, "v2") == 0;
}

} // namespace

cudaError_t kb_topk_select(const float *values, const int *offsets, int segments, int longest,
                           int k, float *out_v, int *out_i, int *out_n, cudaStream_t stream) {
    const int blocks = cluster_size();
    if (segments == 0) return cudaSuccess;
    if (k > KB_TOPK_SELECT_MAX_K) return cudaErrorInvalidValue;
    const size_t chunk = ((size_t)longest + blocks - 1) / blocks;
    const size_t cand_bytes = (size_t)k * sizeof(u64);
    const size_t cache_cap = cand_bytes + 4 * chunk <= kSmemLimit ? chunk : 0;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks, (unsigned)segments);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = cand_bytes + 4 * cache_cap;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)blocks;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, use_v2() ? radix_select_v2_kernel : radix_select_kernel, values,
                              offsets, k, (int)cache_cap, out_v, out_i, out_n);
}

extern "C" const kb_variant_impl kb_topk_radix_select = {supports, workspace_bytes, setup, run,
                                                         teardown};
