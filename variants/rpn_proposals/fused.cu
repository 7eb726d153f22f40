/* fused.cu — rpn_proposals/fused: the top-k of every level in one launch
 * (topk/coop_select's cooperative kernel where it runs, else radix_select's
 * cluster kernel), then per-level suppression masks only (level_masks: decode,
 * filter and offset fused into the mask tiles), then ONE cluster launch of a
 * block per level walks the levels' greedy NMS and merges the kept lists over
 * distributed shared memory (walk_merge): 3 launches. Needs thread block
 * clusters (9.0) and the walk's shared memory. The stages shared with the
 * bitmask variants: rpn_device.cuh. Measurements: docs/perf-rpn.md.
 *
 *   kbench run rpn_proposals --sweep default -v select_bitmask_gpu,fused
 */
#include "rpn_device.cuh"
#include "../common/shared_walk.cuh"
#include "../common/variant_def.h"

namespace {

/* fused, stage 2: suppression masks WITHIN each level only. By the separation
 * argument of kbench/ops/rpn_proposals.h every cross-level IoU of the shifted
 * boxes is exactly 0, so those tiles are skipped, not approximated. Block
 * (cb, rb, l) decodes its 64 row and 64 column boxes straight from level l's
 * sorted top-k (decode is ~30 flops: cheaper than a pass through memory) into
 * shared memory, two warps side by side, then four threads a row test 16
 * columns each with the screened IoU (kb_nms_iou_above: the division's
 * decision, dividing only near the threshold) and writes mask[l][row][cb],
 * bit c = row suppresses column cb * 64 + c. A filtered-out box neither
 * suppresses nor is suppressed (the walk drops it). */
constexpr int kMaskThreads = 256, kRowParts = kMaskThreads / 64;
__global__ void __launch_bounds__(kMaskThreads)
    level_masks(Params p, const float *sel_v, const int *sel_i, const float *anchors,
                const float *deltas, const int *level_offsets, unsigned long long *mask) {
    const int l = blockIdx.z, rb = blockIdx.y, cb = blockIdx.x, t = threadIdx.x;
    const int take = min(p.pre, p.lv.size[l]), words = (p.pre + 63) / 64;
    if (cb < rb || rb * 64 >= take) return;
    __shared__ float4 boxes[2][64]; /* columns, rows */
    __shared__ bool ok[2][64];
    if (t < 128) {
        const int side = t / 64, k = t % 64, j = (side ? rb : cb) * 64 + k;
        float4 raw = {}, box = {};
        float score = -INFINITY;
        if (j < take)
            decode_slot(p, l, anchors, deltas, level_offsets, sel_v[l * p.pre + j],
                        sel_i[l * p.pre + j], &raw, &box, &score);
        boxes[side][k] = box;
        ok[side][k] = score != -INFINITY;
    }
    __syncthreads();
    const int r = t / kRowParts, first = t % kRowParts * (64 / kRowParts), row = rb * 64 + r;
    unsigned long long bits = 0;
    if (row < take && ok[1][r]) {
        const float4 a = boxes[1][r];
        for (int c = cb == rb ? max(first, r + 1) : first; c < first + 64 / kRowParts; c++) {
            const float4 b = boxes[0][c];
            if (ok[0][c] && kb_nms_iou_above(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, p.iou))
                bits |= 1ull << c;
        }
    }
    static_assert(kRowParts == 4, "a row's parts are lanes 4r .. 4r + 3");
    bits |= __shfl_xor_sync(0xffffffffu, bits, 1);
    bits |= __shfl_xor_sync(0xffffffffu, bits, 2);
    if (t % kRowParts == 0 && row < take) mask[((size_t)l * p.pre + row) * words + cb] = bits;
}

/* fused, stage 3: a cluster of one block per level. Each block walks its
 * level's greedy NMS in shared_walk.cuh's roles (warp 0 resolves each
 * 64-box step serially from the diagonal tile while two warps OR the previous
 * step's kept rows into the later words), lists
 * the kept boxes in rank order in shared memory, cluster.sync(), then places
 * each at its global rank among all levels (its position plus, in every other
 * level, the kept boxes ahead of it: score >, or equal score and a lower
 * level, found by binary search over distributed shared memory) and writes
 * the first max_per_img rows. */
constexpr int kWalkThreads = 1024;
constexpr int kWalkSmemPerBox = 2 * 16 + 2 * 4; /* box and score, all and kept */
size_t walk_smem_bytes(int pre, bool with_mask) {
    const size_t words = ((size_t)pre + 63) / 64;
    return (size_t)pre * kWalkSmemPerBox + (with_mask ? 8 * words * (size_t)pre : 0);
}

__device__ int count_ahead(const float *desc, int n, float s, bool ties_ahead) {
    int lo = 0, hi = n; /* first position not ahead of s */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (desc[mid] > s || (ties_ahead && desc[mid] == s))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

__global__ void __launch_bounds__(kWalkThreads)
    walk_merge(Params p, const float *sel_v, const int *sel_i, const float *anchors,
               const float *deltas, const int *level_offsets, const unsigned long long *mask,
               float *proposals, int *count) {
    auto cluster = kb_this_cluster();
    const int l = (int)cluster.block_rank(), tid = threadIdx.x;
    const int take = min(p.pre, p.lv.size[l]), words = (p.pre + 63) / 64;
    extern __shared__ float4 walk_smem[];
    float4 *raw = walk_smem, *kept_raw = walk_smem + p.pre;
    float *score = (float *)(walk_smem + 2 * p.pre), *kept_score = score + p.pre;
    __shared__ unsigned long long removed[64], diag[64][64];
    __shared__ kb_shared_walk::state<64> hand;
    __shared__ int kept_count;

    for (int w = tid; w < 64; w += kWalkThreads) removed[w] = 0;
    __syncthreads();
    for (int j = tid; j < words * 64; j += kWalkThreads) {
        float4 shifted;
        float sc = -INFINITY;
        if (j < take)
            decode_slot(p, l, anchors, deltas, level_offsets, sel_v[l * p.pre + j],
                        sel_i[l * p.pre + j], &raw[j], &shifted, &sc);
        if (j < take) score[j] = sc;
        if (sc == -INFINITY) atomicOr(&removed[j / 64], 1ull << (j % 64));
    }
    __syncthreads();

    /* The level's masks into shared memory when they fit (nms_pre 1000: 125 KB),
     * the diagonal tiles always: the walk then waits on no global load. */
    const unsigned long long *m = mask + (size_t)l * p.pre * words;
    if (p.mask_in_smem) {
        unsigned long long *copy = (unsigned long long *)(kept_score + p.pre);
        /* Only the words the walk reads (w above the row's own block): the
         * mask kernel never writes the lower tiles. */
        constexpr int kInFlight = 8; /* loads before the first store: not one latency each */
        for (int i0 = tid; i0 < take * words; i0 += kInFlight * kWalkThreads) {
            unsigned long long v[kInFlight];
#pragma unroll
            for (int k = 0; k < kInFlight; k++) {
                const int i = i0 + k * kWalkThreads, row = i / words, w = i % words;
                v[k] = i < take * words && w > row / 64 ? m[i] : 0;
            }
#pragma unroll
            for (int k = 0; k < kInFlight; k++)
                if (i0 + k * kWalkThreads < take * words) copy[i0 + k * kWalkThreads] = v[k];
        }
        m = copy;
    }
    for (int i = tid; i < words * 64; i += kWalkThreads) {
        const int wb = i / 64, row = i;
        diag[wb][i % 64] = row < take ? mask[((size_t)l * p.pre + row) * words + wb] : 0;
    }
    __syncthreads();
    if (tid < kb_shared_walk::kRoleThreads) {
        /* The serial rule over the diagonal tile: RPN's dense anchors chain
         * through whole blocks, so rounds (resolve_block) would not be fewer. */
        auto fetch = [](int) { return 0; };
        /* On 32-bit halves, every row loaded and masked by its box's bit: a
         * row loaded under the bit (the plain `if`) waits a shared-memory
         * latency per box; this way the chain is three ALU ops a box. Boxes
         * 32-63 need only their rows' upper halves. */
        auto resolve = [&](int wb, int, unsigned long long by_earlier, int) {
            const unsigned long long cur = removed[wb] | by_earlier;
            unsigned lo = (unsigned)cur, hi = (unsigned)(cur >> 32);
#pragma unroll
            for (int c = 0; c < 32; c++) {
                const unsigned long long d = diag[wb][c];
                const unsigned in = ((lo >> c) & 1) - 1u; /* all ones while box c stays */
                lo |= (unsigned)d & in, hi |= (unsigned)(d >> 32) & in;
            }
#pragma unroll
            for (int c = 0; c < 32; c++)
                hi |= (unsigned)(diag[wb][32 + c] >> 32) & (((hi >> c) & 1) - 1u);
            return ~(lo | (unsigned long long)hi << 32);
        };
        auto no_list = [](int, unsigned long long, int) {}; /* listed below, from hand */
        kb_shared_walk::walk(hand, m, max(take, 1), words, fetch, resolve, no_list);
    }
    __syncthreads();
    const int kept_n = hand.base[words - 1] + __popcll(hand.kept[words - 1]);
    for (int j = tid; j < take; j += kWalkThreads) {
        const unsigned long long w = hand.kept[j / 64], below = (1ull << (j % 64)) - 1;
        if ((w >> (j % 64)) & 1) {
            const int at = hand.base[j / 64] + __popcll(w & below);
            kept_raw[at] = raw[j];
            kept_score[at] = score[j];
        }
    }
    if (tid == 0) kept_count = kept_n;
    cluster.sync();

    int all = 0;
    for (int o = 0; o < p.lv.count; o++) all += *cluster.map_shared_rank(&kept_count, o);
    for (int j = tid; j < kept_n; j += kWalkThreads) {
        const float s = kept_score[j];
        int rank = j;
        for (int o = 0; o < p.lv.count; o++)
            if (o != l)
                rank += count_ahead(cluster.map_shared_rank(kept_score, o),
                                    *cluster.map_shared_rank(&kept_count, o), s, o < l);
        if (rank < p.max_out) {
            float *row = proposals + 5 * (size_t)rank;
            row[0] = kept_raw[j].x, row[1] = kept_raw[j].y, row[2] = kept_raw[j].z,
            row[3] = kept_raw[j].w, row[4] = s;
        }
    }
    for (int r = all + l * kWalkThreads + tid; r < p.max_out; r += p.lv.count * kWalkThreads)
        for (int d = 0; d < 5; d++) proposals[5 * (size_t)r + d] = 0.0f;
    if (l == 0 && tid == 0) *count = min(all, p.max_out);
    cluster.sync(); /* no block leaves while another reads its kept scores */
}

/* The dynamic shared memory the walk may take on this device: the block's
 * opt-in limit less the walk's static arrays (34 KB). 0 without a device. */
size_t walk_smem_limit() {
    const kb_gpu *g = kb_gpu_current();
    cudaFuncAttributes a;
    if (!g || cudaFuncGetAttributes(&a, walk_merge) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return g->smem_optin > a.sharedSizeBytes ? g->smem_optin - a.sharedSizeBytes : 0;
}

/* fused: also one cluster of a block per level, its boxes in shared memory. */
int fused_supports(const kb_case *c, kb_error *why) {
    if (select_supports(c, why) != KB_OK) return KB_UNSUPPORTED;
    const int64_t pre = kb_rpn_params_of(c).nms_pre;
    const size_t need = walk_smem_bytes((int)pre, false), have = walk_smem_limit();
    if (kb_gpu_current() && need > have) {
        kb_fail(why,
                "nms_pre=%lld: the walk needs %zu bytes of shared memory, this device offers %zu",
                (long long)pre, need, have);
        return KB_UNSUPPORTED;
    }
    return KB_OK;
}

/* The top-k: topk/coop_select's cooperative kernel where it runs (all levels
 * at once in the GPU's shared memory: 20.9 us against radix_select's 27.1 on
 * the 800x1344 levels, docs/perf-topk.md), else radix_select's. */
bool coop_topk(const Params &p, const int64_t *len) {
    return kb_topk_coop_check(len, p.lv.count, p.pre, nullptr) == KB_OK;
}

size_t fused_workspace(const kb_case *c) {
    int64_t len[KB_RPN_MAX_LEVELS];
    const Params p = params_of(c, len);
    return workspace(Design::fused, c) +
           (coop_topk(p, len) ? kb_topk_coop_bytes(len, p.lv.count, p.pre) : 0);
}

/* The shared setup, the top-k's plan, then the walk's shared memory (its
 * masks there when they fit). */
int fused_setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    int rc = setup(Design::fused, c, state, e);
    if (rc != KB_OK) return rc;
    State *st = (State *)*state;
    if (coop_topk(st->p, st->len) &&
        !(st->coop = kb_topk_coop_new(st->len, st->p.lv.count, st->p.pre, &rc, e))) {
        teardown(st);
        *state = nullptr;
        return rc;
    }
    st->p.mask_in_smem = walk_smem_bytes(st->p.pre, true) <= walk_smem_limit();
    const int smem = (int)walk_smem_bytes(st->p.pre, st->p.mask_in_smem);
    cudaError_t err =
        cudaFuncSetAttribute(walk_merge, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) {
        teardown(st);
        *state = nullptr;
        return kb_cuda_check(err, "cudaFuncSetAttribute(walk_merge)", e);
    }
    return KB_OK;
}

/* fused: masks of every level in one launch, then the walk + merge cluster. */
cudaError_t launch_fused_nms(const State *st, const float *anchors, const float *deltas,
                             const int *level_offsets, float *proposals, int *count,
                             cudaStream_t stream) {
    const Params &p = st->p;
    const unsigned words = (unsigned)(p.pre + 63) / 64;
    unsigned long long *mask = (unsigned long long *)st->nms_ws;
    level_masks<<<dim3(words, words, (unsigned)p.lv.count), kMaskThreads, 0, stream>>>(
        p, st->sel_v, st->sel_i, anchors, deltas, level_offsets, mask);
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess) return rc;
    kb_cluster_config c;
    kb_cluster_config_fill(&c, dim3((unsigned)p.lv.count), kWalkThreads,
                           walk_smem_bytes(p.pre, p.mask_in_smem), p.lv.count, stream);
    return cudaLaunchKernelEx(&c.cfg, walk_merge, p, (const float *)st->sel_v,
                              (const int *)st->sel_i, anchors, deltas, level_offsets,
                              (const unsigned long long *)mask, proposals, count);
}

/* The top-k, then fused's masks and walk (its masks cover the offset boxes
 * within each level only: decode, filter and offset fused into the mask
 * tiles; cross-level tiles are exactly 0, so skipped). */
int fused_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
              kb_error *e) {
    const State *st = (const State *)state;
    const Params &p = st->p;
    const kb_rpn_data io = kb_rpn_data_of(dev_in, dev_out);
    STAGE("topk", st->coop
                      ? kb_topk_coop_run(st->coop, io.scores, io.level_offsets, st->sel_v,
                                         st->sel_i, st->sel_n, stream)
                      : kb_topk_select(io.scores, io.level_offsets, p.lv.count, longest_level(p),
                                       p.pre, st->sel_v, st->sel_i, st->sel_n, stream));
    STAGE("nms", launch_fused_nms(st, io.anchors, io.deltas, io.level_offsets, io.proposals,
                                  io.count, stream));
    return KB_OK;
}

} // namespace

KB_DEFINE_VARIANT(rpn_proposals, fused) = {fused_supports, fused_workspace, fused_setup, fused_run,
                                           teardown};
