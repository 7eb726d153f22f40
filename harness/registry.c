/* registry.c — the two tables: every op, and every variant of every op.
 *
 * Adding a variant = one .cu file in variants/<op>/ that defines a
 * kb_variant_impl, plus one row below. Rows are grouped by op; the first
 * variant of an op listed here is its baseline unless the op names another.
 */
#include "kbench.h"

#include "preprocess.h"
#include "deform_conv2d.h"
#include "nms.h"
#include "rpn_proposals.h"
#include "topk.h"
#include "yolo_decode.h"
#ifdef KB_WITH_FAULTY /* the kbench_faulty test binary: tests/faulty/faulty.h */
#include "faulty.h"
#endif
#ifdef KB_WITH_MUTANTS /* the kbench_mutants test binary: tests/mutants/mutants.h */
#include "mutants.h"
#endif

#include <string.h>

const kb_op *const kb_ops[] = {
    &kb_op_preprocess,
    &kb_op_topk,
    &kb_op_rpn_proposals,
    &kb_op_nms,
    &kb_op_deform_conv2d,
    &kb_op_yolo_decode,
    /* ops: add above this line */
    NULL,
};

const kb_variant kb_variants[] = {
    /* op            variant                 summary / flags / implementation */
    {"preprocess", "nearest_naive", "one thread per output pixel, 2D grid, nearest", 0,
     &kb_preprocess_nearest_naive},
    {"preprocess", "bilinear_naive", "one thread per output pixel, 2D grid, bilinear", 0,
     &kb_preprocess_bilinear_naive},
    {"preprocess", "nearest_vec", "4 px per thread, 16 B plane stores, whole batch one launch", 0,
     &kb_preprocess_nearest_vec},
    {"preprocess", "bilinear_vec", "4 px per thread, 16 B plane stores, whole batch one launch", 0,
     &kb_preprocess_bilinear_vec},
    {"preprocess", "letterbox_warpaffine", "YOLOv5 letterbox warp-affine, one thread per pixel", 0,
     &kb_preprocess_letterbox_warpaffine},
    {"preprocess", "letterbox_vec", "letterbox, 4 px per thread, 16 B plane stores", 0,
     &kb_preprocess_letterbox_vec},
    {"preprocess", "nearest_seed", "the CUDA ports' nearest: (int)(x * (float)in/out), per pixel",
     KB_INEXACT, &kb_preprocess_nearest_seed},
    /* deform_conv2d: rows here */
    {"deform_conv2d", "explicit_torchvision",
     "torchvision's: im2col of <= 32 images, cublasSgemm per group, transpose, + bias; int64",
     KB_INDEX64, &kb_deform_conv2d_explicit_torchvision},
    {"deform_conv2d", "explicit_gemm_i64",
     "per-image columns in blocks, one batched cuBLAS GEMM per group onto the bias, int64",
     KB_INDEX64, &kb_deform_conv2d_explicit_gemm_i64},
    {"deform_conv2d", "explicit_gemm_i32", "im2col columns + cuBLAS per group, int32 indices",
     KB_INDEX32, &kb_deform_conv2d_explicit_gemm_i32},
    {"deform_conv2d", "explicit_gemm_tf32", "im2col columns + cuBLAS tf32 tensor cores, int32",
     KB_INDEX32 | KB_TENSOR_CORES | KB_TF32, &kb_deform_conv2d_explicit_gemm_tf32},
    {"deform_conv2d", "explicit_nhwc",
     "NHWC copy, 16 B channel-vector im2col (input window in smem) + cuBLAS, int32", KB_INDEX32,
     &kb_deform_conv2d_explicit_nhwc},
    {"deform_conv2d", "explicit_nhwc_tf32", "NHWC copy, 16 B channel-vector im2col + cuBLAS tf32",
     KB_INDEX32 | KB_TENSOR_CORES | KB_TF32, &kb_deform_conv2d_explicit_nhwc_tf32},
    {"deform_conv2d", "implicit_gemm", "no columns: sampled B tiles in smem, fp32 FMA 128x128x8",
     KB_INDEX32, &kb_deform_conv2d_implicit_gemm},
    {"deform_conv2d", "implicit_gemm_tf32", "implicit GEMM, mma.sync m16n8k8 tf32, fp32 accumulate",
     KB_INDEX32 | KB_TENSOR_CORES | KB_TF32, &kb_deform_conv2d_implicit_gemm_tf32},
    {"deform_conv2d", "implicit_gemm_f16", "implicit GEMM, mma.sync m16n8k16 f16, fp32 accumulate",
     KB_INDEX32 | KB_TENSOR_CORES, &kb_deform_conv2d_implicit_gemm_f16},
    {"deform_conv2d", "implicit_gemm_bf16",
     "implicit GEMM, mma.sync m16n8k16 bf16, fp32 accumulate", KB_INDEX32 | KB_TENSOR_CORES,
     &kb_deform_conv2d_implicit_gemm_bf16},
    {"deform_conv2d", "nhwc_gemm", "NHWC input copy, 16 B corner loads; fp32 FMA 128x128x8",
     KB_INDEX32, &kb_deform_conv2d_nhwc_gemm},
    {"deform_conv2d", "nhwc_fused_tf32", "NHWC copy; pixels x channels mma.sync tf32, A sampled",
     KB_INDEX32 | KB_TENSOR_CORES | KB_TF32, &kb_deform_conv2d_nhwc_fused_tf32},
    {"deform_conv2d", "nhwc_fused_f16", "NHWC copy; pixels x channels mma.sync f16, A sampled",
     KB_INDEX32 | KB_TENSOR_CORES, &kb_deform_conv2d_nhwc_fused_f16},
    {"deform_conv2d", "nhwc_fused_bf16", "NHWC copy; pixels x channels mma.sync bf16, A sampled",
     KB_INDEX32 | KB_TENSOR_CORES, &kb_deform_conv2d_nhwc_fused_bf16},
    {"deform_conv2d", "nhwc_wgmma_tf32",
     "NHWC copy; pixels x channels wgmma tf32 (sm_90a), A sampled",
     KB_INDEX32 | KB_TENSOR_CORES | KB_TF32, &kb_deform_conv2d_nhwc_wgmma_tf32},
    {"deform_conv2d", "nhwc_wgmma_f16",
     "NHWC copy; pixels x channels wgmma f16 (sm_90a), A sampled", KB_INDEX32 | KB_TENSOR_CORES,
     &kb_deform_conv2d_nhwc_wgmma_f16},
    {"deform_conv2d", "nhwc_wgmma_bf16",
     "NHWC copy; pixels x channels wgmma bf16 (sm_90a), A sampled", KB_INDEX32 | KB_TENSOR_CORES,
     &kb_deform_conv2d_nhwc_wgmma_bf16},
    {"nms", "bitmask_host", "64x64 IoU tiles -> 64-bit masks; mask to host, serial walk there",
     KB_HOST_SYNC, &kb_nms_bitmask_host},
    {"nms", "bitmask_gpu", "the same masks; one block walks them box by box (mmcv)", 0,
     &kb_nms_bitmask_gpu},
    {"nms", "blockwalk", "the same masks; one block walks 64 boxes a step, bulk OR overlapped", 0,
     &kb_nms_blockwalk},
    {"nms", "pairwise_fast", "fast NMS: a thread per box vs every higher-ranked box of its class",
     KB_INEXACT, &kb_nms_pairwise_fast},
    /* nms: rows here */
    /* topk: rows here */
    {"topk", "radix_sort", "a CUB radix sort per segment, then the first k (the RPN ports)", 0,
     &kb_topk_radix_sort},
    {"topk", "segmented_sort", "all segments in one CUB segmented sort, then the first k", 0,
     &kb_topk_segmented_sort},
    {"topk", "radix_select", "one launch: a cluster per segment selects the k-th key, ranks k", 0,
     &kb_topk_radix_select},
    /* rpn_proposals: rows here */
    {"rpn_proposals", "sort_bitmask", "per-level CUB sorts, CUB candidate sort, bitmask NMS", 0,
     &kb_rpn_proposals_sort_bitmask},
    {"rpn_proposals", "select_bitmask_gpu", "radix-select top-k, CUB candidate sort, bitmask NMS",
     0, &kb_rpn_proposals_select_bitmask_gpu},
    {"rpn_proposals", "fused", "select top-k, per-level mask tiles, one cluster walks + merges", 0,
     &kb_rpn_proposals_fused},
    /* yolo_decode: rows here */
    {"yolo_decode", "atomic_bitmask", "atomicAdd compaction, block sort, nms blockwalk per image",
     KB_NONDETERMINISTIC, &kb_yolo_decode_atomic_bitmask},
    {"yolo_decode", "atomic_fastnms", "atomicAdd compaction, block sort + fast NMS (TensorRT way)",
     KB_NONDETERMINISTIC | KB_INEXACT, &kb_yolo_decode_atomic_fastnms},
    {"yolo_decode", "scan_greedy", "CUB select + segmented sort, top max_det, block greedy NMS", 0,
     &kb_yolo_decode_scan_greedy},
    {"yolo_decode", "fused_batch", "one launch, a block per image: compact, select, sort, greedy",
     0, &kb_yolo_decode_fused_batch},
    {"yolo_decode", "seed_fastnms",
     "the ports' decode (atomicAdd, float count) + fast_nms_kernel, per image, unsorted",
     KB_NONDETERMINISTIC | KB_INEXACT, &kb_yolo_decode_seed_fastnms},
#ifdef KB_WITH_FAULTY
    KB_FAULTY_VARIANTS
#endif
#ifdef KB_WITH_MUTANTS
        KB_MUTANT_VARIANTS
#endif
    {NULL, NULL, NULL, 0, NULL},
};

const kb_op *kb_find_op(const char *name) {
    for (int i = 0; kb_ops[i]; i++)
        if (strcmp(kb_ops[i]->name, name) == 0) return kb_ops[i];
    return NULL;
}

const kb_variant *kb_find_variant(const char *op, const char *name) {
    for (int i = 0; kb_variants[i].op; i++)
        if (strcmp(kb_variants[i].op, op) == 0 && strcmp(kb_variants[i].name, name) == 0)
            return &kb_variants[i];
    return NULL;
}
