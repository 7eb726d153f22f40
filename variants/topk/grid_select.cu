/* grid_select.cu — top-k of a FEW LONG segments: a radix select across the
 * whole GPU, one segment after another.
 *
 *   kbench run topk -v grid_select,radix_sort,radix_select --sweep default
 *
 * radix_select gives a segment one thread-block cluster (<= 16 SMs), which
 * starves a 16M-key segment; this spreads each pass over every SM. The rule
 * (64-bit composites (key, ~index), six radix levels, a bin taken whole
 * ends the select): grid_select.h. Per segment, all launch sizes from the
 * host's n and k, every decision read by the kernels from device memory (no
 * host sync: graph-capturable):
 *   memset   the control block (histograms, counters) to zero
 *   level 0  histogram (pass A: every key) -> pick -> compact (pass B: every
 *            key again; winners out, the picked bin's elements to a candidate
 *            buffer, their level-1 histogram on the way)
 *   1..5     pick -> compact over the candidates (same, ping-pong buffers);
 *            a level after the bin was taken whole exits at once
 *   sort     the want = min(k, n) winners' composites, descending (CUB)
 *   write    indices, values re-read bitwise, sentinels, count
 * Napkin (1x16777216 floats, 64 MB, ~3 TB/s): pass A ~22 us, pass B ~22 us
 * plus its candidates; uniform [0,1) scores put 1/4 of the keys in the top
 * bin of level 0 (11 bits = sign, exponent, 2 mantissa bits): 4M composites,
 * 32 MB written by pass B and read by level 1 (~11 us each); after that ~2K.
 * Predicted total and what the device must confirm: docs/perf-topk.md.
 */
#include "grid_select.h"

#include "variants/common/block_scan.cuh"

#include <cub/cub.cuh>

#include <stdlib.h>

namespace {

typedef unsigned long long u64;
static_assert(sizeof(u64) == sizeof(uint64_t), "composites are 64-bit");

constexpr int kMaxSegments = 8;       /* the host loops over segments */
constexpr int64_t kMinLength = 65536; /* shorter: radix_select's cluster is enough */
constexpr int kThreads = 256;         /* the streaming passes */
constexpr int kUnroll = 4;            /* float4 loads in flight per thread: 64 B */
constexpr int kBlocksPerSm = 4;       /* 4 x 256 x 64 B = 64 KB in flight per SM */
constexpr int kPickThreads = KB_GRID_BINS / 2;

/* The device-side state of one segment's select, zeroed before it. */
struct Ctl {
    unsigned hist[KB_GRID_LEVELS][KB_GRID_BINS]; /* digits of the elements in play at level L */
    unsigned cand[KB_GRID_LEVELS];               /* candidates level L's compaction wrote */
    unsigned rem[KB_GRID_LEVELS];                /* level L looks for the rem-th largest in play */
    unsigned bin[KB_GRID_LEVELS];                /* level L's pick */
    unsigned take[KB_GRID_LEVELS];               /* level L's bin wins whole: the select ends */
    unsigned active[KB_GRID_LEVELS];             /* level L runs (level 0 always does) */
    unsigned winners;                            /* composites written to the winner list */
};

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

/* Adds a block's shared histogram into the global one: nonzero bins only
 * (uniform scores fill ~100 of 2048 bins per block). */
__device__ __forceinline__ void flush_hist(const unsigned *sh, unsigned *global) {
    __syncthreads();
    for (int b = threadIdx.x; b < KB_GRID_BINS; b += blockDim.x)
        if (sh[b]) atomicAdd(global + b, sh[b]);
}

__device__ __forceinline__ void zero_hist(unsigned *sh) {
    for (int b = threadIdx.x; b < KB_GRID_BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
}

/* Pass A: level 0's histogram (the key's top 11 bits) of every key.
 * 64 MB read at 16M keys: ~22 us at 3 TB/s. */
__global__ void __launch_bounds__(kThreads) histogram_keys(const float *seg, int n, Ctl *ctl) {
    __shared__ unsigned sh[KB_GRID_BINS];
    zero_hist(sh);
    for_each_batch(seg, n, [&](const uint32_t *key, const int *, const bool *valid) {
#pragma unroll
        for (int e = 0; e < kBatch; e++)
            if (valid[e]) atomicAdd(&sh[kb_grid_digit(kb_grid_composite(key[e], 0), 0)], 1u);
    });
    flush_hist(sh, ctl->hist[0]);
}

/* One block: the bin of level L's histogram that holds the rem-th largest,
 * bins scanned from the top (thread t: bins 2047 - 2t and 2046 - 2t).
 * 8 KB read, one block scan: a few us, mostly launch. */
__global__ void __launch_bounds__(kPickThreads) pick(Ctl *ctl, int level, unsigned want) {
    if (level > 0 && !ctl->active[level]) return; /* block-uniform */
    const unsigned r = level == 0 ? want : ctl->rem[level];
    const unsigned b0 = KB_GRID_BINS - 1 - 2 * threadIdx.x, b1 = b0 - 1;
    const unsigned c0 = ctl->hist[level][b0], c1 = ctl->hist[level][b1];
    int total = 0;
    const unsigned above = (unsigned)kb_block_exclusive_scan<kPickThreads>((int)(c0 + c1), &total);
    kb_grid_pick p;
    if (kb_grid_pick_step(b0, above, c0, r, &p) || kb_grid_pick_step(b1, above + c0, c1, r, &p)) {
        ctl->bin[level] = p.bin; /* exactly one thread gets here */
        ctl->take[level] = p.take_all;
        if (!p.take_all && level + 1 < KB_GRID_LEVELS) {
            ctl->rem[level + 1] = p.need;
            ctl->active[level + 1] = 1;
        }
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

/* Pass B: level 0's compaction over every key (64 MB read, ~22 us, plus 8 B
 * per candidate written: uniform 16M, 32 MB, ~11 us). */
__global__ void __launch_bounds__(kThreads)
    compact_keys(const float *seg, int n, Ctl *ctl, u64 *win, unsigned want, u64 *next) {
    __shared__ unsigned sh[KB_GRID_BINS];
    zero_hist(sh);
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
        block_emit(c, ok, 0, bin, take, ctl, win, want, next, (unsigned)n, sh);
    });
    flush_hist(sh, ctl->hist[1]);
}

/* Level L >= 1: the compaction over the previous level's candidates (their
 * count read here; the grid is sized for n of them, the blocks past the count
 * do nothing). Uniform 16M: level 1 reads 32 MB (~11 us), later levels ~2K. */
__global__ void __launch_bounds__(kThreads)
    compact_candidates(const u64 *in, int level, Ctl *ctl, u64 *win, unsigned want, u64 *next,
                       unsigned cap) {
    constexpr int kE = 4; /* candidates a thread holds per iteration: 32 B of loads in flight */
    __shared__ unsigned sh[KB_GRID_BINS];
    if (!ctl->active[level]) return; /* block-uniform */
    zero_hist(sh);
    const unsigned m = ctl->cand[level - 1], bin = ctl->bin[level];
    const bool take = ctl->take[level];
    for (unsigned base = blockIdx.x * kThreads * kE; base < m; base += gridDim.x * kThreads * kE) {
        u64 c[kE];
        bool valid[kE];
#pragma unroll
        for (int e = 0; e < kE; e++) {
            const unsigned i = base + e * kThreads + threadIdx.x;
            valid[e] = i < m;
            c[e] = valid[e] ? in[i] : 0ull;
        }
        block_emit(c, valid, level, bin, take, ctl, win, want, next, cap, sh);
    }
    if (level + 1 < KB_GRID_LEVELS) flush_hist(sh, ctl->hist[level + 1]);
}

/* Slot j of the segment's k: the j-th sorted winner (its value re-read,
 * bitwise) or the sentinel past want; the count. */
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

struct State {
    int k, segments;
    int64_t *len; /* host copy of the segment lengths */
    int sms;
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
    if (!st) return;
    cudaFree(st->ws);
    free(st->len);
    free(st);
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
    if (!st->len)
        rc = KB_ERR;
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
 * kThreads x kUnroll items, at most kBlocksPerSm per SM (the rest by the
 * grid-stride loops). */
unsigned stream_blocks(int64_t items, int sms) {
    const int64_t per = (int64_t)kThreads * kUnroll * 4;
    const int64_t want = (items + per - 1) / per;
    const int64_t cap = (int64_t)kBlocksPerSm * sms;
    return (unsigned)(want < 1 ? 1 : want < cap ? want : cap);
}

/* Enqueues one segment's select; checks each launch. */
cudaError_t select_segment(const State *st, const float *seg, int n, float *out_v, int *out_i,
                           int *out_n, cudaStream_t stream) {
    const int k = st->k, want = n < k ? n : k;
    char *p = (char *)st->ws;
    Ctl *ctl = (Ctl *)p;
    u64 *win = (u64 *)(p + st->l.ctl), *sorted = (u64 *)(p + st->l.ctl + st->l.win);
    u64 *cand[2] = {(u64 *)(p + st->l.ctl + 2 * st->l.win),
                    (u64 *)(p + st->l.ctl + 2 * st->l.win + st->l.cand)};
    void *temp = p + st->l.ctl + 2 * st->l.win + 2 * st->l.cand;
    cudaError_t rc = cudaSuccess;
    if (want > 0) {
        const unsigned blocks = stream_blocks(n, st->sms);
        rc = cudaMemsetAsync(ctl, 0, sizeof(Ctl), stream);
        if (rc != cudaSuccess) return rc;
        histogram_keys<<<blocks, kThreads, 0, stream>>>(seg, n, ctl);
        pick<<<1, kPickThreads, 0, stream>>>(ctl, 0, (unsigned)want);
        compact_keys<<<blocks, kThreads, 0, stream>>>(seg, n, ctl, win, (unsigned)want, cand[0]);
        for (int level = 1; level < KB_GRID_LEVELS; level++) {
            pick<<<1, kPickThreads, 0, stream>>>(ctl, level, (unsigned)want);
            compact_candidates<<<blocks, kThreads, 0, stream>>>(cand[(level - 1) & 1], level, ctl,
                                                                win, (unsigned)want,
                                                                cand[level & 1], (unsigned)n);
        }
        if ((rc = cudaGetLastError()) != cudaSuccess) return rc;
        size_t bytes = st->l.temp;
        rc =
            cub::DeviceRadixSort::SortKeysDescending(temp, bytes, win, sorted, want, 0, 64, stream);
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

extern "C" const kb_variant_impl kb_topk_grid_select = {supports, workspace_bytes, setup, run,
                                                        teardown};
