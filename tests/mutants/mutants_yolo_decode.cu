/* mutants_yolo_decode.cu — wrong YOLOv5 post-processing, each
 * yolo_decode/scan_greedy (deterministic) with one bug.
 * `kbench_mutants check yolo_decode -v mut_clip_net --sweep smoke` must FAIL. */
#include "mutants_common.cuh"
#include "yolo_decode.h"

static const kb_variant_impl *scan_greedy(const kb_case *c) {
    return kb_find_variant("yolo_decode", "scan_greedy")->impl;
}

static int32_t *counts_of(kb_tensors *out) {
    return (int32_t *)kb_tensors_find(out, "count")->data;
}

/* Equal scores ranked by higher prediction index first: the real decode of
 * each image's predictions reversed (dets carry no indices to map back). */
static cudaError_t reverse_preds(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                                 cudaStream_t s) {
    kb_yolo_params p = kb_yolo_params_of(c);
    mut_reverse_rows(in->t[0].data, tin->t[0].data, (size_t)(5 + p.c) * sizeof(float),
                     (int64_t)p.b * p.n, p.n, NULL, p.b, s);
    return cudaGetLastError();
}
static const mut_spec ties_high = {scan_greedy, NULL, 0x1, reverse_preds, NULL};
KB_MUTANT(yolo_ties_high, ties_high)

/* Class argmax ties to the highest class index (>= where the contract has >):
 * the real decode of class scores in reversed order, classes mapped back. */
__global__ void reverse_classes(const float *src, float *dst, int64_t rows, int c) {
    int64_t w = 5 + c;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * w;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t col = i % w;
        dst[i] = col < 5 ? src[i] : src[i - col + 5 + (c - 1 - (col - 5))];
    }
}
__global__ void unreverse_classes(float *dets, const int32_t *counts, int max_out, int c) {
    const int img = blockIdx.x;
    for (int r = threadIdx.x; r < counts[img]; r += blockDim.x) {
        float *cls = dets + ((int64_t)img * max_out + r) * 6 + 5;
        *cls = (float)(c - 1) - *cls;
    }
}
static cudaError_t reverse_cls_in(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                                  cudaStream_t s) {
    kb_yolo_params p = kb_yolo_params_of(c);
    int64_t rows = (int64_t)p.b * p.n;
    reverse_classes<<<(unsigned)((rows + 255) / 256 < 4096 ? (rows + 255) / 256 : 4096), 256, 0,
                      s>>>((const float *)in->t[0].data, (float *)tin->t[0].data, rows, p.c);
    return cudaGetLastError();
}
static cudaError_t reverse_cls_out(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                   cudaStream_t s) {
    kb_yolo_params p = kb_yolo_params_of(c);
    unreverse_classes<<<p.b, 256, 0, s>>>((float *)kb_tensors_find(out, "dets")->data,
                                          counts_of(out), p.max_out, p.c);
    return cudaGetLastError();
}
static const mut_spec argmax_high = {scan_greedy, NULL, 0x1, reverse_cls_in, reverse_cls_out};
KB_MUTANT(yolo_argmax_high, argmax_high)

/* Boxes clipped to the network input (net x net), not the source image. */
static void clip_net_case(kb_case *c) {
    mut_set_int(c, "src_w", kb_int(c, "net"));
    mut_set_int(c, "src_h", kb_int(c, "net"));
}
static const mut_spec clip_net = {scan_greedy, clip_net_case, 0, NULL, NULL};
KB_MUTANT(yolo_clip_net, clip_net)

/* Each image's count written as the position of its last detection. */
static cudaError_t last_lost(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                             cudaStream_t s) {
    mut_drop_last(counts_of(out), kb_int(c, "b"), s);
    return cudaGetLastError();
}
static const mut_spec last_lost_spec = {scan_greedy, NULL, 0, NULL, last_lost};
KB_MUTANT(yolo_last_lost, last_lost_spec)

/* Each image's detection count bumped with a plain load/store, not atomicAdd. */
static cudaError_t racy_count(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                              cudaStream_t s) {
    mut_racy_recount(counts_of(out), kb_int(c, "b"), s);
    return cudaGetLastError();
}
static const mut_spec racy_count_spec = {scan_greedy, NULL, 0, NULL, racy_count};
KB_MUTANT(yolo_racy_count, racy_count_spec)

/* The last image's detections written one row (6 floats) too far. */
static cudaError_t overrun(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                           cudaStream_t s) {
    mut_store_past_end(kb_tensors_find(out, "dets"), 6 * sizeof(float), s);
    return cudaGetLastError();
}
static const mut_spec overrun_spec = {scan_greedy, NULL, 0, NULL, overrun};
KB_MUTANT(yolo_overrun, overrun_spec)
