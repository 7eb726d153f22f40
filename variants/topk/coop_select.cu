/* coop_select.cu — top-k of a few segments, each held in the shared memory
 * of the whole GPU: the 64-bit radix select in ONE cooperative kernel.
 *
 *   kbench run topk -v coop_select,grid_select -a segments=1x1048576 -a k=[100,1000]
 *
 * The rule is grid_select's (grid_select.h: composites (key, ~index), six
 * radix levels, a bin taken whole ends the select), without its chain of
 * launches: one block per SM keeps 1/grid of the segment's keys in shared
 * memory, and each level is a histogram of the keys still in play, one
 * flush into the grid's histogram, one grid barrier, and the same pick made
 * by every block from that histogram. No candidate lists: a key is in play
 * while its composite's higher digits equal the prefix picked so far, and
 * the winners are the composites at or above the final prefix. After one
 * more barrier each warp ranks one winner against all want of them (the
 * composites are distinct: the rank is the count of larger ones) and writes
 * it to its slot. Segments run one after another in the same launch.
 * Refuses more than 8 segments, k > 4096, a segment whose keys do not fit
 * the grid's shared memory (16M on an H100: grid_select's case), and devices
 * without cooperative launch. Design and measurements: docs/perf-topk.md,
 * section coop_select.
 */
#include "grid_select.cuh"

#include <cooperative_groups.h>

#include <stdlib.h>

namespace cg = cooperative_groups;

namespace {

typedef unsigned long long u64;

constexpr int kThreads = 1024;  /* one block per SM */
constexpr int kMaxSegments = 8; /* one after another: more are radix_select's */
constexpr int kMaxWant = 4096;  /* the winners ranked from shared memory: 32 KB */
constexpr int kLoadBatch = 8;   /* global loads in flight per thread */
constexpr size_t kStaticSmem = (KB_GRID_BINS + 64) * 4; /* histogram, scan and pick */

/* One segment's global state: the grid's histogram of each level and the
 * winner count. Zero before the kernel; every segment leaves its own zeroed
 * for the next run (after the barrier that follows the last pick). */
struct Ctl {
    unsigned hist[KB_GRID_LEVELS][KB_GRID_BINS];
    unsigned winners;
};

/* The block's keys [lo, hi) of seg into shared memory as radix keys. */
__device__ __forceinline__ void load_keys(const float *seg, int lo, int hi, uint32_t *keys) {
    for (int base = lo + (int)threadIdx.x; base < hi; base += kThreads * kLoadBatch) {
        float v[kLoadBatch];
#pragma unroll
        for (int u = 0; u < kLoadBatch; u++) {
            const int i = base + u * kThreads;
            v[u] = i < hi ? __ldg(seg + i) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < kLoadBatch; u++) {
            const int i = base + u * kThreads;
            if (i < hi) keys[i - lo] = kb_topk_key(v[u]);
        }
    }
    __syncthreads();
}

/* Level `level`'s digits of the block's composites still in play (all of
 * them at level 0) into sh, flushed into the grid's histogram. */
__device__ __forceinline__ void count_level(const uint32_t *keys, int lo, int hi, int level,
                                            u64 prefix, unsigned *sh, unsigned *global) {
    kb_grid_zero_hist(sh);
    const int above = level == 0 ? 64 : kb_grid_shift(level - 1);
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads) {
        const u64 c = kb_grid_composite(keys[i], lo + i);
        if (above == 64 || c >> above == prefix) atomicAdd(&sh[kb_grid_digit(c, level)], 1u);
    }
    kb_grid_flush_hist(sh, global);
}

/* The block's composites at or above the final prefix (those of level
 * `level`'s bin taken whole and above) to the winner list, in any order (the
 * ranks order them): one block scan, one global atomic. */
__device__ __forceinline__ void emit_winners(const uint32_t *keys, int lo, int hi, int level,
                                             u64 prefix, Ctl *ctl, u64 *win, int want) {
    __shared__ unsigned base;
    const int shift = kb_grid_shift(level);
    int mine = 0;
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads)
        mine += kb_grid_composite(keys[i], lo + i) >> shift >= prefix;
    int total = 0;
    int at = kb_block_exclusive_scan<kThreads>(mine, &total);
    if (threadIdx.x == 0) base = total ? atomicAdd(&ctl->winners, (unsigned)total) : 0u;
    __syncthreads();
    at += (int)base;
    for (int i = (int)threadIdx.x; i < hi - lo; i += kThreads) {
        const u64 c = kb_grid_composite(keys[i], lo + i);
        if (c >> shift >= prefix) {
            if (at < want) win[at] = c; /* the bound never binds; it bounds a broken count */
            at++;
        }
    }
}

/* The kernel: launched cooperatively, gridDim.x blocks all resident. Shared
 * memory: the block's chunk of keys, then (after the select) the winners. */
__global__ void __launch_bounds__(kThreads, 1)
    coop_select_kernel(const float *values, const int *offsets, int segments, int k, Ctl *ctls,
                       u64 *win, float *out_v, int *out_i, int *out_n) {
    extern __shared__ u64 dyn[];
    uint32_t *keys = (uint32_t *)dyn;
    __shared__ unsigned sh[KB_GRID_BINS];
    cg::grid_group grid = cg::this_grid();
    const int gtid = (int)(blockIdx.x * kThreads + threadIdx.x), gthreads = gridDim.x * kThreads;
    for (int s = 0; s < segments; s++) {
        const int begin = __ldg(offsets + s), n = __ldg(offsets + s + 1) - begin;
        const float *seg = values + begin;
        const int want = min(n, k);
        float *ov = out_v + (size_t)s * k;
        int *oi = out_i + (size_t)s * k;
        for (int j = want + gtid; j < k; j += gthreads) {
            ov[j] = -INFINITY;
            oi[j] = -1;
        }
        if (gtid == 0) out_n[s] = want;
        if (want == 0) continue; /* grid-uniform */
        Ctl *ctl = ctls + s;
        const int chunk = (n + (int)gridDim.x - 1) / (int)gridDim.x;
        const int lo = min(n, (int)blockIdx.x * chunk), hi = min(n, lo + chunk);
        __syncthreads(); /* the previous segment's winners leave shared memory */
        load_keys(seg, lo, hi, keys);
        u64 prefix = 0;
        unsigned r = (unsigned)want;
        int level = 0;
        for (;; level++) {
            count_level(keys, lo, hi, level, prefix, sh, ctl->hist[level]);
            grid.sync();
            kb_grid_load_hist(sh, ctl->hist[level]);
            const kb_grid_pick p = kb_grid_block_pick<kThreads>(sh, r);
            prefix = kb_grid_extend(prefix, level, p.bin);
            r = p.need;
            /* every block picks the same from the same counts: grid-uniform;
             * a level-5 bin holds one composite, so level 5 always ends */
            if (p.take_all || level + 1 == KB_GRID_LEVELS) break;
        }
        emit_winners(keys, lo, hi, level, prefix, ctl, win, want);
        grid.sync(); /* every pick made, every winner written */
        for (int b = gtid; b < (level + 1) * KB_GRID_BINS; b += gthreads)
            ctl->hist[b / KB_GRID_BINS][b % KB_GRID_BINS] = 0;
        if (gtid == 0) ctl->winners = 0;
        __syncthreads(); /* the keys leave shared memory */
        kb_grid_rank_write<kThreads>(seg, win, want, dyn, ov, oi);
    }
}

struct State {
    int segments, k;
    int blocks;      /* the cooperative grid: one block per SM */
    size_t dyn_smem; /* the largest chunk of keys, or want winners */
    Ctl *ctls;       /* one per segment */
    u64 *win;        /* want of the longest segment */
};

/* The dynamic shared memory of a block for these segments on a device of
 * `sms` SMs (the larger of its chunk of the longest segment's keys and the
 * winners); the whole block needs kStaticSmem more. */
size_t dyn_smem_for(const int64_t *len, int64_t count, int k, int sms) {
    int64_t longest = 0;
    for (int64_t s = 0; s < count; s++) longest = len[s] > longest ? len[s] : longest;
    const size_t keys = 4 * (size_t)((longest + sms - 1) / sms);
    const size_t winners = 8 * (size_t)(longest < k ? longest : k);
    return keys > winners ? keys : winners;
}

int supports(const kb_case *c, kb_error *why) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    if (!len) return KB_UNSUPPORTED;
    const int k = (int)kb_topk_params_of(c).k;
    const kb_gpu *g = kb_gpu_current();
    const int sms = g ? g->sm_count : 132;
    const size_t need = dyn_smem_for(len, n, k, sms) + kStaticSmem;
    int64_t longest = 0;
    for (int64_t s = 0; s < n; s++) longest = len[s] > longest ? len[s] : longest;
    free(len);
    int coop = 1;
    if (g &&
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, g->ordinal) != cudaSuccess) {
        cudaGetLastError();
        coop = 0;
    }
    if (n > kMaxSegments)
        kb_fail(why, "%lld segments: coop_select runs <= %d in one launch", (long long)n,
                kMaxSegments);
    else if (k > kMaxWant)
        kb_fail(why, "k=%d: coop_select ranks <= %d winners in shared memory", k, kMaxWant);
    else if (g && need > g->smem_optin)
        kb_fail(why,
                "a segment of %lld keys needs %zu B of shared memory on each of the %d SMs of "
                "this %s, which allows %zu; grid_select streams it",
                (long long)longest, need, sms, g->name, g->smem_optin);
    else if (!coop)
        kb_fail(why, "this %s cannot launch cooperative kernels", g->name);
    else
        return KB_OK;
    return KB_UNSUPPORTED;
}

size_t workspace_bytes(const kb_case *c) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, nullptr);
    if (!len) return 0;
    const int64_t k = kb_topk_params_of(c).k;
    int64_t longest = 0;
    for (int64_t s = 0; s < n; s++) longest = len[s] > longest ? len[s] : longest;
    free(len);
    return sizeof(Ctl) * (size_t)n + 8 * (size_t)(longest < k ? longest : k);
}

void teardown(void *state) {
    State *st = (State *)state;
    if (st) {
        cudaFree(st->ctls);
        cudaFree(st->win);
    }
    free(st);
}

int setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    *state = nullptr;
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, e);
    if (!len) return KB_ERR;
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) {
        free(len);
        return kb_fail(e, "out of host memory");
    }
    st->segments = (int)n;
    st->k = (int)kb_topk_params_of(c).k;
    int64_t longest = 0;
    for (int64_t s = 0; s < n; s++) longest = len[s] > longest ? len[s] : longest;
    const int sms = kb_gpu_sms(132);
    st->dyn_smem = dyn_smem_for(len, n, st->k, sms);
    free(len);
    const int64_t want = longest < st->k ? longest : st->k;
    int per_sm = 0;
    cudaError_t rc = cudaFuncSetAttribute(
        coop_select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)st->dyn_smem);
    if (rc == cudaSuccess)
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, coop_select_kernel, kThreads,
                                                           st->dyn_smem);
    if (rc == cudaSuccess && per_sm < 1) {
        const size_t bytes = st->dyn_smem + kStaticSmem;
        teardown(st);
        return kb_fail(e,
                       "coop_select: no block of %d threads with %zu B of shared memory fits an SM",
                       kThreads, bytes);
    }
    st->blocks = sms;
    if (rc == cudaSuccess) rc = cudaMalloc(&st->ctls, sizeof(Ctl) * (size_t)(n > 0 ? n : 1));
    if (rc == cudaSuccess) rc = cudaMalloc(&st->win, 8 * (size_t)(want > 0 ? want : 1));
    if (rc == cudaSuccess) rc = cudaMemset(st->ctls, 0, sizeof(Ctl) * (size_t)(n > 0 ? n : 1));
    if (rc != cudaSuccess) {
        const int out = rc == cudaErrorMemoryAllocation ? KB_OUT_OF_MEMORY
                                                        : kb_cuda_check(rc, "coop_select setup", e);
        cudaGetLastError();
        teardown(st);
        return out;
    }
    *state = st;
    return KB_OK;
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    State *st = (State *)state;
    const float *values = (const float *)kb_tensors_get(dev_in, "values")->data;
    float *out_v = (float *)kb_tensors_find(dev_out, "topk_values")->data;
    int *out_i = (int *)kb_tensors_find(dev_out, "topk_indices")->data;
    int *out_n = (int *)kb_tensors_find(dev_out, "counts")->data;
    const int *offsets = (const int *)kb_tensors_get(dev_in, "offsets")->data;
    void *args[] = {&values,  &offsets, &st->segments, &st->k, &st->ctls,
                    &st->win, &out_v,   &out_i,        &out_n};
    kb_nvtx_push("select");
    const cudaError_t rc =
        cudaLaunchCooperativeKernel((const void *)coop_select_kernel, dim3(st->blocks),
                                    dim3(kThreads), args, st->dyn_smem, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "cudaLaunchCooperativeKernel(coop_select)", e);
}

} // namespace

extern "C" const kb_variant_impl kb_topk_coop_select = {supports, workspace_bytes, setup, run,
                                                        teardown};
