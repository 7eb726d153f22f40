/* rpn.cu — mmdetection RPN proposals on the GPU, three compositions of the
 * stages of kernels/rpn_proposals.h (names say which):
 *   sort_bitmask        per-level CUB radix sorts -> first nms_pre, decode +
 *                       filter + offset, CUB sort of the candidates, the nms
 *                       op's bitmask NMS (the CUDA port's stages, exact;
 *                       cuda_port.cu is the port as written, other semantics)
 *   select_bitmask_gpu  the same with the one-launch radix-select top-k
 *   fused               radix-select top-k; per-level masks only; ONE cluster
 *                       launch walks the levels' NMS and merges the kept lists
 *                       over distributed shared memory (walk_merge): 3 launches
 * None synchronises with the host; all are graph-capturable. How the bitmask
 * variants treat filtered slots: above run(). Measurements: docs/perf-rpn.md.
 *
 *   kbench run rpn_proposals --sweep default
 */
#include "rpn_proposals.h"

#include "variants/common/nms_device.cuh"
#include "variants/common/topk_device.cuh"
#include "variants/common/arch.cuh"

#include <stdlib.h>

namespace {

struct Levels {
    int count;
    int size[KB_RPN_MAX_LEVELS]; /* anchors of the level */
    int base[KB_RPN_MAX_LEVELS]; /* first candidate slot: sum of min(nms_pre, size) before */
};

struct Params {
    Levels lv;
    int pre, max_out, slots;
    int mask_in_smem; /* fused: the walk copies a level's masks to shared memory */
    float iou, min_size, img_w, img_h;
};

/* The shifted box (NMS), the unshifted box (output) and the score of slot
 * (l, j): j < min(nms_pre, size) of level l's top-k. */
__device__ void decode_slot(const Params p, int l, const float *anchors, const float *deltas,
                            const int *level_offsets, float score, int idx, float4 *raw,
                            float4 *shifted, float *out_score) {
    const size_t a = (size_t)level_offsets[l] + idx;
    float box[4];
    kb_rpn_delta2bbox(anchors + 4 * a, deltas + 4 * a, p.img_w, p.img_h, box);
    const float o = (float)l * KB_RPN_LEVEL_OFFSET; /* exact: l * 2^11 */
    if (kb_rpn_box_valid(box, p.min_size)) {
        *raw = make_float4(box[0], box[1], box[2], box[3]);
        *shifted = make_float4(__fadd_rn(box[0], o), __fadd_rn(box[1], o), __fadd_rn(box[2], o),
                               __fadd_rn(box[3], o));
        *out_score = score;
    } else {
        *raw = *shifted = make_float4(0, 0, 0, 0);
        *out_score = -INFINITY;
    }
}

/* Candidates in level-major slot order (the concatenation mmdet ranks by). */
__global__ void decode_candidates(Params p, const float *sel_v, const int *sel_i,
                                  const float *anchors, const float *deltas,
                                  const int *level_offsets, float4 *raw, float4 *shifted,
                                  float *score) {
    const int l = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= min(p.pre, p.lv.size[l])) return;
    const int s = p.lv.base[l] + j, from = l * p.pre + j;
    decode_slot(p, l, anchors, deltas, level_offsets, sel_v[from], sel_i[from], &raw[s],
                &shifted[s], &score[s]);
}

/* fused, stage 2: suppression masks WITHIN each level only. By the separation
 * argument of kernels/rpn_proposals.h every cross-level IoU of the shifted
 * boxes is exactly 0, so those tiles are skipped, not approximated. Block
 * (cb, rb, l) decodes its 64 row and 64 column boxes straight from level l's
 * sorted top-k (decode is ~30 flops: cheaper than a pass through memory) and
 * writes mask[l][row][cb], bit c = row suppresses column cb * 64 + c. A
 * filtered-out box neither suppresses nor is suppressed (the walk drops it). */
__global__ void __launch_bounds__(64)
    level_masks(Params p, const float *sel_v, const int *sel_i, const float *anchors,
                const float *deltas, const int *level_offsets, unsigned long long *mask) {
    const int l = blockIdx.z, rb = blockIdx.y, cb = blockIdx.x, t = threadIdx.x;
    const int take = min(p.pre, p.lv.size[l]), words = (p.pre + 63) / 64;
    if (cb < rb || rb * 64 >= take) return;
    __shared__ float4 cols[64];
    __shared__ bool col_ok[64];
    float4 raw = {}, box = {};
    float score = -INFINITY;
    const int j = cb * 64 + t;
    if (j < take)
        decode_slot(p, l, anchors, deltas, level_offsets, sel_v[l * p.pre + j],
                    sel_i[l * p.pre + j], &raw, &box, &score);
    cols[t] = box;
    col_ok[t] = score != -INFINITY;
    __syncthreads();
    const int row = rb * 64 + t;
    if (row >= take) return;
    score = -INFINITY;
    decode_slot(p, l, anchors, deltas, level_offsets, sel_v[l * p.pre + row],
                sel_i[l * p.pre + row], &raw, &box, &score);
    unsigned long long bits = 0;
    if (score != -INFINITY)
        for (int c = cb == rb ? t + 1 : 0; c < 64; c++)
            if (col_ok[c] && kb_nms_iou(box.x, box.y, box.z, box.w, cols[c].x, cols[c].y, cols[c].z,
                                        cols[c].w) > p.iou)
                bits |= 1ull << c;
    mask[((size_t)l * p.pre + row) * words + cb] = bits;
}

/* fused, stage 3: a cluster of one block per level. Each block walks its
 * level's greedy NMS (warp 0, 64 boxes per step: the diagonal tile resolved
 * in registers, then the kept rows' masks ORed into the later words), lists
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
    const int l = (int)cluster.block_rank(), tid = threadIdx.x, lane = tid & 31;
    const int take = min(p.pre, p.lv.size[l]), words = (p.pre + 63) / 64;
    extern __shared__ float4 walk_smem[];
    float4 *raw = walk_smem, *kept_raw = walk_smem + p.pre;
    float *score = (float *)(walk_smem + 2 * p.pre), *kept_score = score + p.pre;
    __shared__ unsigned long long removed[64], kept_word[64], diag[64][64];
    __shared__ int word_base[65];

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
        for (int i = tid; i < take * words; i += kWalkThreads) {
            const int row = i / words, w = i % words;
            copy[i] = w > row / 64 ? m[i] : 0;
        }
        m = copy;
    }
    for (int i = tid; i < words * 64; i += kWalkThreads) {
        const int wb = i / 64, row = i;
        diag[wb][i % 64] = row < take ? mask[((size_t)l * p.pre + row) * words + wb] : 0;
    }
    __syncthreads();
    if (tid < 32) {
        for (int wb = 0; wb < words; wb++) {
            unsigned long long cur = removed[wb];
#pragma unroll
            for (int c = 0; c < 64; c++)
                if (!((cur >> c) & 1)) cur |= diag[wb][c];
            const unsigned long long kept = ~cur;
            for (int w = wb + 1 + lane; w < words; w += 32) {
                unsigned long long acc = 0; /* 64 independent predicated loads in flight */
#pragma unroll
                for (int c = 0; c < 64; c++)
                    if ((kept >> c) & 1) acc |= m[(size_t)(wb * 64 + c) * words + w];
                removed[w] |= acc;
            }
            if (lane == 0) kept_word[wb] = kept;
            __syncwarp();
        }
        if (lane == 0) {
            word_base[0] = 0;
            for (int w = 0; w < words; w++)
                word_base[w + 1] = word_base[w] + __popcll(kept_word[w]);
        }
    }
    __syncthreads();
    const int kept_n = word_base[words];
    for (int j = tid; j < take; j += kWalkThreads) {
        const unsigned long long w = kept_word[j / 64], below = (1ull << (j % 64)) - 1;
        if ((w >> (j % 64)) & 1) {
            const int at = word_base[j / 64] + __popcll(w & below);
            kept_raw[at] = raw[j];
            kept_score[at] = score[j];
        }
    }
    __shared__ int kept_count;
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

/* Rows of the output: kept boxes up to the first filtered-out one, then zeros. */
__global__ void write_proposals(const int *keep, const int *keep_count, const float4 *raw,
                                const float *score, int max_out, float *proposals, int *count) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= max_out) return;
    const int kc = *keep_count;
    const bool valid = r < kc && score[keep[r]] != -INFINITY;
    const bool next = r + 1 < kc && r + 1 < max_out && score[keep[r + 1]] != -INFINITY;
    const float4 b = valid ? raw[keep[r]] : make_float4(0, 0, 0, 0);
    float *row = proposals + 5 * (size_t)r;
    row[0] = b.x, row[1] = b.y, row[2] = b.z, row[3] = b.w;
    row[4] = valid ? score[keep[r]] : 0.0f;
    if ((valid && !next) || (r == 0 && !valid)) *count = valid ? r + 1 : 0;
}

enum class Design { sort_bitmask, select_bitmask_gpu, fused };

constexpr size_t kAlign = 256;
size_t align_up(size_t b) {
    return (b + kAlign - 1) / kAlign * kAlign;
}

struct State {
    Design design;
    Params p;
    int64_t len[KB_RPN_MAX_LEVELS];
    void *ws;
    float *sel_v, *score;
    int *sel_i, *sel_n, *order, *keep, *keep_count;
    float4 *raw, *shifted, *sorted;
    void *topk_ws, *sort_ws, *nms_ws;
    size_t topk_ws_bytes, sort_ws_bytes, nms_ws_bytes;
};

/* The device side's parameters; len gets the level sizes (kb_topk_sort's). */
Params params_of(const kb_case *c, int64_t *len) {
    const kb_rpn_params rp = kb_rpn_params_of(c);
    Params p = {};
    p.lv.count = rp.levels;
    p.pre = (int)rp.nms_pre;
    for (int l = 0; l < p.lv.count; l++) {
        len[l] = rp.level_size[l];
        p.lv.size[l] = (int)len[l];
        p.lv.base[l] = p.slots;
        p.slots += min(p.pre, p.lv.size[l]);
    }
    p.max_out = (int)rp.max_per_img;
    p.iou = rp.iou;
    p.min_size = rp.min_bbox_size;
    p.img_w = (float)rp.img_w;
    p.img_h = (float)rp.img_h;
    p.mask_in_smem = walk_smem_bytes(p.pre, true) <= walk_smem_limit();
    return p;
}

/* One allocation: every buffer's size, in the order setup carves them. */
struct Sizes {
    size_t part[13];
    size_t sum() const {
        size_t s = 0;
        for (size_t b : part) s += b;
        return s;
    }
};

/* fused needs only the top-k lists and the per-level masks (in the last part). */
Sizes sizes_of(Design d, const Params &p, const int64_t *len) {
    const size_t sel = (size_t)p.lv.count * p.pre, n = d == Design::fused ? 0 : (size_t)p.slots;
    const size_t words = ((size_t)p.pre + 63) / 64, one = d == Design::fused ? 0 : 4;
    return {{align_up(4 * sel), align_up(4 * sel), align_up(4 * (size_t)p.lv.count),
             align_up(4 * n), align_up(4 * n), align_up(4 * n), align_up(one), align_up(16 * n),
             align_up(16 * n), align_up(16 * n),
             d == Design::sort_bitmask ? align_up(kb_topk_sort_workspace(len, p.lv.count)) : 0,
             d == Design::fused ? 0 : align_up(kb_nms_sort_workspace(p.slots)),
             d == Design::fused ? align_up(8 * sel * words)
                                : align_up(kb_nms_sorted_workspace(p.slots))}};
}

size_t workspace(Design d, const kb_case *c) {
    int64_t len[KB_RPN_MAX_LEVELS];
    const Params p = params_of(c, len);
    return sizes_of(d, p, len).sum();
}

int supports(const kb_case *c, kb_error *why) {
    return KB_OK;
}

/* select_bitmask_gpu and fused: the top-k is radix_select's cluster kernel. */
int select_supports(const kb_case *c, kb_error *why) {
    return kb_gpu_require(KB_CC_CLUSTERS, "thread block clusters", why);
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

int setup(Design d, const kb_case *c, void **state, kb_error *e) {
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) return kb_fail(e, "out of host memory");
    st->design = d;
    st->p = params_of(c, st->len);
    const Sizes z = sizes_of(d, st->p, st->len);
    if (cudaMalloc(&st->ws, z.sum()) != cudaSuccess) {
        cudaGetLastError();
        free(st);
        return KB_OUT_OF_MEMORY;
    }
    char *at = (char *)st->ws;
    void *part[13];
    for (int i = 0; i < 13; i++) {
        part[i] = at;
        at += z.part[i];
    }
    st->sel_v = (float *)part[0];
    st->sel_i = (int *)part[1];
    st->sel_n = (int *)part[2];
    st->score = (float *)part[3];
    st->order = (int *)part[4];
    st->keep = (int *)part[5];
    st->keep_count = (int *)part[6];
    st->raw = (float4 *)part[7];
    st->shifted = (float4 *)part[8];
    st->sorted = (float4 *)part[9];
    st->topk_ws = part[10];
    st->sort_ws = part[11];
    st->nms_ws = part[12];
    st->topk_ws_bytes = z.part[10];
    st->sort_ws_bytes = z.part[11];
    st->nms_ws_bytes = z.part[12];
    if (d == Design::fused) {
        const int smem = (int)walk_smem_bytes(st->p.pre, st->p.mask_in_smem);
        cudaError_t rc =
            cudaFuncSetAttribute(walk_merge, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (rc != cudaSuccess) {
            cudaFree(st->ws);
            free(st);
            return kb_cuda_check(rc, "cudaFuncSetAttribute(walk_merge)", e);
        }
    }
    *state = st;
    return KB_OK;
}

/* Each stage in its NVTX range; the first failing call ends the run. */
#define STAGE(name, call)                                                                          \
    do {                                                                                           \
        kb_nvtx_push(name);                                                                        \
        cudaError_t rc_ = (call);                                                                  \
        if (rc_ == cudaSuccess) rc_ = cudaGetLastError();                                          \
        kb_nvtx_pop();                                                                             \
        if (rc_ != cudaSuccess) return kb_cuda_check(rc_, name, e);                                \
    } while (0)

/* fused: masks of every level in one launch, then the walk + merge cluster. */
cudaError_t launch_fused_nms(const State *st, const float *anchors, const float *deltas,
                             const int *level_offsets, float *proposals, int *count,
                             cudaStream_t stream) {
    const Params &p = st->p;
    const unsigned words = (unsigned)(p.pre + 63) / 64;
    unsigned long long *mask = (unsigned long long *)st->nms_ws;
    level_masks<<<dim3(words, words, (unsigned)p.lv.count), 64, 0, stream>>>(
        p, st->sel_v, st->sel_i, anchors, deltas, level_offsets, mask);
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess) return rc;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)p.lv.count);
    cfg.blockDim = dim3(kWalkThreads);
    cfg.dynamicSmemBytes = walk_smem_bytes(p.pre, p.mask_in_smem);
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)p.lv.count;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, walk_merge, p, (const float *)st->sel_v, (const int *)st->sel_i,
                              anchors, deltas, level_offsets, (const unsigned long long *)mask,
                              proposals, count);
}

/* In the two bitmask variants NMS runs over n = sum(min(nms_pre, level size))
 * slots, a number the host knows: a filtered-out slot becomes a zero box with
 * score -inf, which ranks after every real box and overlaps nothing (IoU 0),
 * so it neither suppresses nor is counted (the output stops at the first -inf
 * keep). fused's masks cover the offset boxes within each level only (decode,
 * filter and offset fused into the mask tiles; cross-level tiles are exactly
 * 0, so skipped). */
int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const Params &p = st->p;
    const kb_rpn_data io = kb_rpn_data_of(dev_in, dev_out);
    const float *scores = io.scores, *deltas = io.deltas, *anchors = io.anchors;
    const int *offsets = io.level_offsets;
    int longest = 0;
    for (int l = 0; l < p.lv.count; l++) longest = max(longest, p.lv.size[l]);

    if (st->design == Design::sort_bitmask)
        STAGE("topk", kb_topk_sort(scores, offsets, st->len, p.lv.count, p.pre, st->topk_ws,
                                   st->topk_ws_bytes, st->sel_v, st->sel_i, st->sel_n, stream));
    else
        STAGE("topk", kb_topk_select(scores, offsets, p.lv.count, longest, p.pre, st->sel_v,
                                     st->sel_i, st->sel_n, stream));

    if (st->design == Design::fused) {
        STAGE("nms",
              launch_fused_nms(st, anchors, deltas, offsets, io.proposals, io.count, stream));
        return KB_OK;
    }
    const dim3 grid((unsigned)((p.pre + 255) / 256), (unsigned)p.lv.count);
    kb_nvtx_push("decode");
    decode_candidates<<<grid, 256, 0, stream>>>(p, st->sel_v, st->sel_i, anchors, deltas, offsets,
                                                st->raw, st->shifted, st->score);
    kb_nvtx_pop();
    STAGE("sort",
          kb_nms_sort_by_score(st->score, st->shifted, nullptr, p.slots, st->order, st->sorted,
                               nullptr, st->sort_ws, st->sort_ws_bytes, stream));
    STAGE("nms", kb_nms_sorted_bitmask_gpu(st->sorted, nullptr, p.slots, p.iou, p.max_out,
                                           st->order, st->keep, st->keep_count, st->nms_ws,
                                           st->nms_ws_bytes, stream));
    kb_nvtx_push("output");
    write_proposals<<<(p.max_out + 255) / 256, 256, 0, stream>>>(
        st->keep, st->keep_count, st->raw, st->score, p.max_out, io.proposals, io.count);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "write_proposals", e);
}

void teardown(void *state) {
    State *st = (State *)state;
    if (!st) return;
    cudaFree(st->ws);
    free(st);
}

size_t sort_bitmask_ws(const kb_case *c) {
    return workspace(Design::sort_bitmask, c);
}
size_t select_ws(const kb_case *c) {
    return workspace(Design::select_bitmask_gpu, c);
}
size_t fused_ws(const kb_case *c) {
    return workspace(Design::fused, c);
}
int sort_bitmask_setup(const kb_case *c, const kb_tensors *, void **st, kb_error *e) {
    return setup(Design::sort_bitmask, c, st, e);
}
int select_setup(const kb_case *c, const kb_tensors *, void **st, kb_error *e) {
    return setup(Design::select_bitmask_gpu, c, st, e);
}
int fused_setup(const kb_case *c, const kb_tensors *, void **st, kb_error *e) {
    return setup(Design::fused, c, st, e);
}

} // namespace

extern "C" const kb_variant_impl kb_rpn_proposals_sort_bitmask = {
    supports, sort_bitmask_ws, sort_bitmask_setup, run, teardown};
extern "C" const kb_variant_impl kb_rpn_proposals_select_bitmask_gpu = {
    select_supports, select_ws, select_setup, run, teardown};
extern "C" const kb_variant_impl kb_rpn_proposals_fused = {fused_supports, fused_ws, fused_setup,
                                                           run, teardown};
