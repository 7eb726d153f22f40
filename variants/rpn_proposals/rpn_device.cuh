/* rpn_device.cuh — what the three GPU rpn_proposals variants share: the
 * stages of kbench/ops/rpn_proposals.h on the device (decode_slot: delta2bbox,
 * filter, level offset), one workspace allocation carved per design, and the
 * whole pipeline of the two bitmask variants (run_bitmask):
 *   per-level top-k -> first nms_pre, decode + filter + offset, CUB sort of the
 *   candidates, the nms op's bitmask NMS, then the output rows.
 * sort_bitmask.cu and select_bitmask_gpu.cu differ only in the top-k;
 * fused.cu keeps the top-k and replaces the rest. None synchronises with the
 * host; all are graph-capturable. Internal linkage: each including file has
 * its own copy. Measurements: docs/perf-rpn.md.
 */
#ifndef KB_RPN_DEVICE_CUH
#define KB_RPN_DEVICE_CUH

#include "kbench/variant.h"
#include "kbench/ops/rpn_proposals.h"

#include "../common/nms_device.cuh"
#include "../common/topk_device.cuh"
#include "../common/arch.cuh"

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
    kb_topk_coop *coop; /* fused's top-k where topk/coop_select's kernel runs, else NULL */
};

/* The device side's parameters; len gets the level sizes (kb_topk_sort's);
 * mask_in_smem is fused's to set (fused.cu). */
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
    *state = st;
    return KB_OK;
}

void teardown(void *state) {
    State *st = (State *)state;
    if (!st) return;
    cudaFree(st->ws);
    kb_topk_coop_delete(st->coop);
    free(st);
}

/* Design d's workspace and setup, as kb_variant_impl entries. */
template <Design d> size_t workspace_of(const kb_case *c) {
    return workspace(d, c);
}
template <Design d> int setup_of(const kb_case *c, const kb_tensors *, void **st, kb_error *e) {
    return setup(d, c, st, e);
}

int longest_level(const Params &p) {
    int longest = 0;
    for (int l = 0; l < p.lv.count; l++) longest = max(longest, p.lv.size[l]);
    return longest;
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

/* In the two bitmask variants NMS runs over n = sum(min(nms_pre, level size))
 * slots, a number the host knows: a filtered-out slot becomes a zero box with
 * score -inf, which ranks after every real box and overlaps nothing (IoU 0),
 * so it neither suppresses nor is counted (the output stops at the first -inf
 * keep). */
int run_bitmask(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
                kb_error *e) {
    const State *st = (const State *)state;
    const Params &p = st->p;
    const kb_rpn_data io = kb_rpn_data_of(dev_in, dev_out);
    const float *scores = io.scores, *deltas = io.deltas, *anchors = io.anchors;
    const int *offsets = io.level_offsets;
    float *proposals = io.proposals;
    int *count = io.count;
    const int longest = longest_level(p);

    if (st->design == Design::sort_bitmask)
        STAGE("topk", kb_topk_sort(scores, offsets, st->len, p.lv.count, p.pre, st->topk_ws,
                                   st->topk_ws_bytes, st->sel_v, st->sel_i, st->sel_n, stream));
    else
        STAGE("topk", kb_topk_select(scores, offsets, p.lv.count, longest, p.pre, st->sel_v,
                                     st->sel_i, st->sel_n, stream));

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
        st->keep, st->keep_count, st->raw, st->score, p.max_out, proposals, count);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "write_proposals", e);
}

} // namespace

#endif
