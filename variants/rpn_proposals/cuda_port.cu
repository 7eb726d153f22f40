/* cuda_port.cu — rpn_proposals/cuda_port: the RPN proposal step as the common
 * CUDA ports of mmdetection's RPNHead write it, reproduced as written so that
 * its time and its departures from the op's semantics can be measured
 * against the exact variants (rpn.cu) and the CPU port (cpu_port.c).
 *
 *   kbench check rpn_proposals -v cuda_port,sort_bitmask --sweep smoke
 *
 * The port's rule (kbench/ops/rpn_proposals.h, "the common CUDA port") is not
 * the op's: KB_INEXACT, held exactly to kb_rpn_port_reference, the row's
 * note counting the proposals where it departs from the exact op. Stages,
 * each one call or launch on the stream, none synchronising with the host
 * (graph-capturable):
 *   topk    a CUB DeviceRadixSort::SortPairsDescending per level, one call
 *           each in a host loop, then the first nms_pre (kb_topk_sort)
 *   decode  levels * nms_pre slots: the level's top-k, then zero-score pads;
 *           delta2bbox, small boxes made 0.5 px squares (none removed); the
 *           largest coordinate M (mmcv's boxes.max())
 *   shift   + l * (M + 1) on every coordinate of level l
 *   sort    the candidates by score (CUB, kb_nms_sort_by_score)
 *   nms     the nms op's bitmask NMS, one block walking the masks (mmcv's)
 *   output  the first max_per_img kept, - l * (M + 1), zero rows after them
 */
#include "kbench/variant.h"
#include "kbench/ops/rpn_proposals.h"

#include "../common/nms_device.cuh"
#include "../common/topk_device.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

namespace {

constexpr int kThreads = 256;

struct Params {
    int levels, pre, max_out, slots; /* slots = levels * pre: every level padded to pre */
    int size[KB_RPN_MAX_LEVELS];     /* anchors of each level */
    float iou, min_size, img_w, img_h;
};

/* Slot j of level l: the level's j-th best anchor decoded, or past the
 * level's anchors a pad (the zero box, score 0); either way a box mmdet's
 * filter would remove becomes a 0.5 px square. M: the largest coordinate of
 * all slots. Coordinates are >= 0 (clamped to the image), so their bits
 * order as ints (a -0 ranks below +0, the max's start value): a warp max,
 * then one atomicMax per warp into top_bits (zeroed before). */
__global__ void decode_slots(Params p, const float *sel_v, const int *sel_i, const float *anchors,
                             const float *deltas, const int *level_offsets, float4 *box,
                             float *score, int *top_bits) {
    const int l = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    int top = 0;
    if (j < p.pre) {
        float b[4] = {0.0f, 0.0f, 0.0f, 0.0f}, s = 0.0f;
        if (j < min(p.pre, p.size[l])) {
            const size_t a = (size_t)level_offsets[l] + sel_i[l * p.pre + j];
            kb_rpn_delta2bbox(anchors + 4 * a, deltas + 4 * a, p.img_w, p.img_h, b);
            s = sel_v[l * p.pre + j];
        }
        kb_rpn_port_small_box(b, p.min_size);
        box[l * p.pre + j] = make_float4(b[0], b[1], b[2], b[3]);
        score[l * p.pre + j] = s;
        for (int d = 0; d < 4; d++) top = max(top, __float_as_int(b[d]));
    }
    top = __reduce_max_sync(0xffffffffu, top);
    if ((threadIdx.x & 31) == 0) atomicMax(top_bits, top);
}

/* Level l's slots + l * (M + 1) (mmcv batched_nms's offset). */
__global__ void shift_slots(Params p, const int *top_bits, float4 *box) {
    const int l = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= p.pre) return;
    const float o = kb_rpn_port_offset(l, __int_as_float(*top_bits));
    float4 &b = box[l * p.pre + j];
    b = make_float4(__fadd_rn(b.x, o), __fadd_rn(b.y, o), __fadd_rn(b.z, o), __fadd_rn(b.w, o));
}

/* Row r: the r-th kept slot, its offset subtracted again; zeros past the count. */
__global__ void write_rows(Params p, const int *keep, const int *keep_count, const int *top_bits,
                           const float4 *box, const float *score, float *proposals, int *count) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.max_out) return;
    const int kept = min(*keep_count, p.max_out);
    float row[5] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    if (r < kept) {
        const int at = keep[r];
        const float o = kb_rpn_port_offset(at / p.pre, __int_as_float(*top_bits));
        const float4 b = box[at];
        row[0] = __fsub_rn(b.x, o), row[1] = __fsub_rn(b.y, o), row[2] = __fsub_rn(b.z, o);
        row[3] = __fsub_rn(b.w, o), row[4] = score[at];
    }
    for (int d = 0; d < 5; d++) proposals[5 * (size_t)r + d] = row[d];
    if (r == 0) *count = kept;
}

struct State {
    Params p;
    int64_t len[KB_RPN_MAX_LEVELS]; /* level sizes, kb_topk_sort's host lengths */
    void *ws;                       /* the one allocation the pointers below carve */
    float *sel_v, *score;
    int *sel_i, *sel_n, *order, *keep, *keep_count, *top_bits;
    float4 *box, *sorted;
    void *topk_ws, *sort_ws, *nms_ws;
    size_t topk_ws_bytes, sort_ws_bytes, nms_ws_bytes;
};

void params_of(const kb_case *c, State *st) {
    const kb_rpn_params rp = kb_rpn_params_of(c);
    Params &p = st->p;
    p.levels = rp.levels;
    p.pre = (int)rp.nms_pre;
    p.slots = p.levels * p.pre;
    for (int l = 0; l < p.levels; l++) {
        st->len[l] = rp.level_size[l];
        p.size[l] = (int)rp.level_size[l];
    }
    p.max_out = (int)rp.max_per_img;
    p.iou = rp.iou;
    p.min_size = rp.min_bbox_size;
    p.img_w = (float)rp.img_w;
    p.img_h = (float)rp.img_h;
}

/* Carves st's buffers out of base, each 256-byte aligned, and returns the
 * bytes they take; with base NULL only the bytes (workspace_bytes). */
size_t carve(State *st, char *base) {
    size_t at = 0;
    auto take = [&](size_t bytes) -> void * {
        void *part = base ? base + at : nullptr;
        at += (bytes + 255) / 256 * 256;
        return part;
    };
    const size_t n = (size_t)st->p.slots;
    st->sel_v = (float *)take(4 * n);
    st->sel_i = (int *)take(4 * n);
    st->sel_n = (int *)take(4 * (size_t)st->p.levels);
    st->score = (float *)take(4 * n);
    st->order = (int *)take(4 * n);
    st->keep = (int *)take(4 * n);
    st->keep_count = (int *)take(4);
    st->top_bits = (int *)take(4);
    st->box = (float4 *)take(16 * n);
    st->sorted = (float4 *)take(16 * n);
    st->topk_ws_bytes = kb_topk_sort_workspace(st->len, st->p.levels);
    st->topk_ws = take(st->topk_ws_bytes);
    st->sort_ws_bytes = kb_nms_sort_workspace(st->p.slots);
    st->sort_ws = take(st->sort_ws_bytes);
    st->nms_ws_bytes = kb_nms_sorted_workspace(st->p.slots);
    st->nms_ws = take(st->nms_ws_bytes);
    return at;
}

int port_supports(const kb_case *c, kb_error *why) {
    return KB_OK;
}

size_t port_workspace(const kb_case *c) {
    State st = {};
    params_of(c, &st);
    return carve(&st, nullptr);
}

int port_setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    *state = nullptr;
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) return kb_fail(e, "cuda_port: out of host memory");
    params_of(c, st);
    if (cudaMalloc(&st->ws, carve(st, nullptr)) != cudaSuccess) {
        cudaGetLastError();
        free(st);
        return KB_OUT_OF_MEMORY;
    }
    carve(st, (char *)st->ws);
    *state = st;
    return KB_OK;
}

int port_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
             kb_error *e) {
    const State *st = (const State *)state;
    const Params &p = st->p;
    const kb_rpn_data io = kb_rpn_data_of(dev_in, dev_out);
    const dim3 slot_grid((unsigned)((p.pre + kThreads - 1) / kThreads), (unsigned)p.levels);
    /* Each stage in its NVTX range; after the first failing one none runs. */
    cudaError_t rc = cudaSuccess;
    const char *failed = "";
    auto stage = [&](const char *name, auto calls) {
        if (rc != cudaSuccess) return;
        kb_nvtx_push(name);
        rc = calls();
        if (rc == cudaSuccess) rc = cudaGetLastError();
        kb_nvtx_pop();
        failed = name;
    };
    stage("topk", [&] {
        return kb_topk_sort(io.scores, io.level_offsets, st->len, p.levels, p.pre, st->topk_ws,
                            st->topk_ws_bytes, st->sel_v, st->sel_i, st->sel_n, stream);
    });
    stage("decode", [&] {
        const cudaError_t zeroed = cudaMemsetAsync(st->top_bits, 0, sizeof(int), stream);
        if (zeroed == cudaSuccess)
            decode_slots<<<slot_grid, kThreads, 0, stream>>>(p, st->sel_v, st->sel_i, io.anchors,
                                                             io.deltas, io.level_offsets, st->box,
                                                             st->score, st->top_bits);
        return zeroed;
    });
    stage("shift", [&] {
        shift_slots<<<slot_grid, kThreads, 0, stream>>>(p, st->top_bits, st->box);
        return cudaSuccess;
    });
    stage("sort", [&] {
        return kb_nms_sort_by_score(st->score, st->box, nullptr, p.slots, st->order, st->sorted,
                                    nullptr, st->sort_ws, st->sort_ws_bytes, stream);
    });
    stage("nms", [&] {
        return kb_nms_sorted_bitmask_gpu(st->sorted, nullptr, p.slots, p.iou, p.max_out, st->order,
                                         st->keep, st->keep_count, st->nms_ws, st->nms_ws_bytes,
                                         stream);
    });
    stage("output", [&] {
        write_rows<<<(p.max_out + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
            p, st->keep, st->keep_count, st->top_bits, st->box, st->score, io.proposals, io.count);
        return cudaSuccess;
    });
    return kb_cuda_check(rc, failed, e);
}

void port_teardown(void *state) {
    State *st = (State *)state;
    cudaFree(st->ws);
    free(st);
}

} // namespace

KB_DEFINE_VARIANT(rpn_proposals, cuda_port) = {port_supports, port_workspace, port_setup, port_run,
                                               port_teardown};
