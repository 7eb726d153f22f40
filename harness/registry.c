/* registry.c — the two tables: every op, and every variant of every op.
 *
 * Adding a variant = one .cu file in variants/<op>/ (a .c file for one that
 * runs on the CPU, flagged KB_HOST) that defines
 *   extern "C" const kb_variant_impl kb_<op>_<name> = {supports, workspace_bytes,
 *                                                      setup, run, teardown};
 * plus two lines here: its declaration below, and its row in the table
 * (KB_VARIANT: op, name, its file in variants/<op>/, flags, one line on what
 * it does). Rows are grouped by op; an op's first row is its baseline unless
 * the op names another. The file: variant OP/NAME lives in variants/OP/F.cu
 * (.c for KB_HOST), F the longest of that folder's .c/.cu stems that equals
 * NAME or is a prefix of NAME ending at an '_' (explicit_gemm_i64 ->
 * explicit.cu, nhwc_wgmma_f16 -> nhwc.cu; tests/cpu/test_registry.c checks
 * every row); `kbench list OP` prints each variant's file.
 */
#include "kbench.h"

#include "deform_conv2d.h"
#include "nms.h"
#include "preprocess.h"
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

/* ---- the variants' implementations, one per row below ---- */

/* preprocess */
extern const kb_variant_impl kb_preprocess_nearest_naive;
extern const kb_variant_impl kb_preprocess_bilinear_naive;
extern const kb_variant_impl kb_preprocess_nearest_vec;
extern const kb_variant_impl kb_preprocess_bilinear_vec;
extern const kb_variant_impl kb_preprocess_letterbox_warpaffine;
extern const kb_variant_impl kb_preprocess_letterbox_vec;
extern const kb_variant_impl kb_preprocess_nearest_seed;
extern const kb_variant_impl kb_preprocess_cpu_bilinear;
/* deform_conv2d */
extern const kb_variant_impl kb_deform_conv2d_explicit_torchvision;
extern const kb_variant_impl kb_deform_conv2d_explicit_torchvision_half;
extern const kb_variant_impl kb_deform_conv2d_explicit_gemm_i64;
extern const kb_variant_impl kb_deform_conv2d_explicit_gemm_i32;
extern const kb_variant_impl kb_deform_conv2d_explicit_gemm_tf32;
extern const kb_variant_impl kb_deform_conv2d_explicit_nhwc;
extern const kb_variant_impl kb_deform_conv2d_explicit_nhwc_tf32;
extern const kb_variant_impl kb_deform_conv2d_implicit_gemm;
extern const kb_variant_impl kb_deform_conv2d_implicit_gemm_tf32;
extern const kb_variant_impl kb_deform_conv2d_implicit_gemm_f16;
extern const kb_variant_impl kb_deform_conv2d_implicit_gemm_bf16;
extern const kb_variant_impl kb_deform_conv2d_nhwc_gemm;
extern const kb_variant_impl kb_deform_conv2d_nhwc_fused_tf32;
extern const kb_variant_impl kb_deform_conv2d_nhwc_fused_f16;
extern const kb_variant_impl kb_deform_conv2d_nhwc_fused_bf16;
extern const kb_variant_impl kb_deform_conv2d_nhwc_wgmma_tf32;
extern const kb_variant_impl kb_deform_conv2d_nhwc_wgmma_f16;
extern const kb_variant_impl kb_deform_conv2d_nhwc_wgmma_bf16;
extern const kb_variant_impl kb_deform_conv2d_nhwc_ws_tf32;
extern const kb_variant_impl kb_deform_conv2d_nhwc_ws_3xtf32;
extern const kb_variant_impl kb_deform_conv2d_nhwc_ws_f16;
extern const kb_variant_impl kb_deform_conv2d_nhwc_ws_bf16;
/* nms */
extern const kb_variant_impl kb_nms_bitmask_host;
extern const kb_variant_impl kb_nms_bitmask_gpu;
extern const kb_variant_impl kb_nms_blockwalk;
extern const kb_variant_impl kb_nms_rounds;
extern const kb_variant_impl kb_nms_pairwise_fast;
extern const kb_variant_impl kb_nms_cpu_greedy;
extern const kb_variant_impl kb_nms_cpu_bitmask;
/* topk */
extern const kb_variant_impl kb_topk_radix_sort;
extern const kb_variant_impl kb_topk_segmented_sort;
extern const kb_variant_impl kb_topk_radix_select;
extern const kb_variant_impl kb_topk_grid_select;
extern const kb_variant_impl kb_topk_coop_select;
extern const kb_variant_impl kb_topk_cub_topk;
extern const kb_variant_impl kb_topk_cpu_select;
/* rpn_proposals */
extern const kb_variant_impl kb_rpn_proposals_sort_bitmask;
extern const kb_variant_impl kb_rpn_proposals_select_bitmask_gpu;
extern const kb_variant_impl kb_rpn_proposals_fused;
extern const kb_variant_impl kb_rpn_proposals_cpu_port;
extern const kb_variant_impl kb_rpn_proposals_cuda_port;
/* yolo_decode */
extern const kb_variant_impl kb_yolo_decode_atomic_bitmask;
extern const kb_variant_impl kb_yolo_decode_atomic_fastnms;
extern const kb_variant_impl kb_yolo_decode_atomic_greedy;
extern const kb_variant_impl kb_yolo_decode_scan_greedy;
extern const kb_variant_impl kb_yolo_decode_fused_batch;
extern const kb_variant_impl kb_yolo_decode_seed_fastnms;

/* One row: the op and the variant's name as written (its implementation is
 * kb_<op>_<name>, declared above), the file in variants/<op>/ that holds it,
 * its flags, and what it does in one line. */
#define KB_VARIANT(OP, NAME, FILE, FLAGS, SUMMARY)                                                 \
    { #OP, #NAME, SUMMARY, FLAGS, &kb_##OP##_##NAME, "variants/" #OP "/" FILE }

const kb_variant kb_variants[] = {
    /* op, variant, file, flags, summary */
    KB_VARIANT(preprocess, nearest_naive, "nearest.cu", 0,
               "one thread per output pixel, 2D grid, nearest"),
    KB_VARIANT(preprocess, bilinear_naive, "bilinear.cu", 0,
               "one thread per output pixel, 2D grid, bilinear"),
    KB_VARIANT(preprocess, nearest_vec, "nearest.cu", 0,
               "4 px per thread, 16 B plane stores, whole batch one launch"),
    KB_VARIANT(preprocess, bilinear_vec, "bilinear.cu", 0,
               "4 px per thread, 16 B plane stores, whole batch one launch"),
    KB_VARIANT(preprocess, letterbox_warpaffine, "letterbox.cu", 0,
               "YOLOv5 letterbox warp-affine, one thread per pixel"),
    KB_VARIANT(preprocess, letterbox_vec, "letterbox.cu", 0,
               "letterbox, 4 px per thread, 16 B plane stores"),
    KB_VARIANT(preprocess, nearest_seed, "nearest_seed.cu", KB_INEXACT,
               "the CUDA ports' nearest: (int)(x * (float)in/out), per pixel"),
    KB_VARIANT(preprocess, cpu_bilinear, "cpu_bilinear.c", KB_HOST,
               "CPU: resize + BGR->RGB + CHW + normalise fused, OpenMP over rows"),
    /* preprocess: rows here */
    KB_VARIANT(deform_conv2d, explicit_torchvision, "explicit_torchvision.cu", KB_INDEX64,
               "torchvision's: im2col of <= 32 images, cublasSgemm per group, transpose, + bias; "
               "int64"),
    KB_VARIANT(deform_conv2d, explicit_torchvision_half, "explicit_torchvision.cu",
               KB_INDEX64 | KB_INEXACT,
               "torchvision's f16 path: half-precision coordinates and blend, cuBLAS f16 GEMM; "
               "other semantics"),
    KB_VARIANT(deform_conv2d, explicit_gemm_i64, "explicit.cu", KB_INDEX64,
               "per-image columns in blocks, one batched cuBLAS GEMM per group onto the bias, "
               "int64"),
    KB_VARIANT(deform_conv2d, explicit_gemm_i32, "explicit.cu", KB_INDEX32,
               "im2col columns + cuBLAS per group, int32 indices"),
    KB_VARIANT(deform_conv2d, explicit_gemm_tf32, "explicit.cu",
               KB_INDEX32 | KB_TENSOR_CORES | KB_TF32,
               "im2col columns + cuBLAS tf32 tensor cores, int32"),
    KB_VARIANT(deform_conv2d, explicit_nhwc, "explicit.cu", KB_INDEX32,
               "NHWC copy, 16 B channel-vector im2col (input window in smem) + cuBLAS, int32"),
    KB_VARIANT(deform_conv2d, explicit_nhwc_tf32, "explicit.cu",
               KB_INDEX32 | KB_TENSOR_CORES | KB_TF32,
               "NHWC copy, 16 B channel-vector im2col + cuBLAS tf32"),
    KB_VARIANT(deform_conv2d, implicit_gemm, "implicit_gemm.cu", KB_INDEX32,
               "no columns: sampled B tiles in smem, fp32 FMA 128x128x8"),
    KB_VARIANT(deform_conv2d, implicit_gemm_tf32, "implicit_gemm.cu",
               KB_INDEX32 | KB_TENSOR_CORES | KB_TF32,
               "implicit GEMM, mma.sync m16n8k8 tf32, fp32 accumulate"),
    KB_VARIANT(deform_conv2d, implicit_gemm_f16, "implicit_gemm.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "implicit GEMM, mma.sync m16n8k16 f16, fp32 accumulate"),
    KB_VARIANT(deform_conv2d, implicit_gemm_bf16, "implicit_gemm.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "implicit GEMM, mma.sync m16n8k16 bf16, fp32 accumulate"),
    KB_VARIANT(deform_conv2d, nhwc_gemm, "nhwc_gemm.cu", KB_INDEX32,
               "NHWC input copy, 16 B corner loads; fp32 FMA 128x128x8"),
    KB_VARIANT(deform_conv2d, nhwc_fused_tf32, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES | KB_TF32,
               "NHWC copy; pixels x channels mma.sync tf32, A sampled"),
    KB_VARIANT(deform_conv2d, nhwc_fused_f16, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "NHWC copy; pixels x channels mma.sync f16, A sampled"),
    KB_VARIANT(deform_conv2d, nhwc_fused_bf16, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "NHWC copy; pixels x channels mma.sync bf16, A sampled"),
    KB_VARIANT(deform_conv2d, nhwc_wgmma_tf32, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES | KB_TF32,
               "NHWC copy; pixels x channels wgmma tf32 (sm_90a), A sampled"),
    KB_VARIANT(deform_conv2d, nhwc_wgmma_f16, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "NHWC copy; pixels x channels wgmma f16 (sm_90a), A sampled"),
    KB_VARIANT(deform_conv2d, nhwc_wgmma_bf16, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "NHWC copy; pixels x channels wgmma bf16 (sm_90a), A sampled"),
    KB_VARIANT(deform_conv2d, nhwc_ws_tf32, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES | KB_TF32,
               "NHWC copy; wgmma tf32, sampling and multiplying warp groups, split-K"),
    KB_VARIANT(deform_conv2d, nhwc_ws_f16, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "NHWC copy; wgmma f16, sampling and multiplying warp groups, split-K"),
    KB_VARIANT(deform_conv2d, nhwc_ws_bf16, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "NHWC copy; wgmma bf16, sampling and multiplying warp groups, split-K"),
    KB_VARIANT(deform_conv2d, nhwc_ws_3xtf32, "nhwc.cu", KB_INDEX32 | KB_TENSOR_CORES,
               "nhwc_ws with f32 split into tf32 part + rest, 3 wgmmas: f32 accuracy"),
    /* deform_conv2d: rows here */
    KB_VARIANT(nms, bitmask_host, "bitmask.cu", KB_HOST_SYNC,
               "64x64 IoU tiles -> 64-bit masks; mask to host, serial walk there"),
    KB_VARIANT(nms, bitmask_gpu, "bitmask.cu", 0,
               "the same masks; one block walks them box by box (mmcv)"),
    KB_VARIANT(nms, blockwalk, "blockwalk.cu", 0,
               "the same masks; one block walks 64 boxes a step, bulk OR overlapped"),
    KB_VARIANT(nms, rounds, "rounds.cu", 0,
               "the same masks; every box decided in parallel rounds over the suppression graph"),
    KB_VARIANT(nms, pairwise_fast, "pairwise.cu", KB_INEXACT,
               "fast NMS: a thread per box vs every higher-ranked box of its class"),
    KB_VARIANT(nms, cpu_greedy, "cpu_greedy.c", KB_HOST,
               "CPU: sort, walk vs the class's keeps (onnxruntime), classes in parallel"),
    KB_VARIANT(nms, cpu_bitmask, "cpu_bitmask.c", KB_HOST,
               "CPU: sort, IoU bit mask rows in parallel (OpenMP), one serial walk; n <= 32768"),
    /* nms: rows here */
    KB_VARIANT(topk, radix_sort, "radix_sort.cu", 0,
               "a CUB radix sort per segment, then the first k (the RPN ports)"),
    KB_VARIANT(topk, segmented_sort, "segmented_sort.cu", 0,
               "all segments in one CUB segmented sort, then the first k"),
    KB_VARIANT(topk, radix_select, "radix_select.cu", 0,
               "one launch: a cluster per segment selects the k-th key, ranks k"),
    KB_VARIANT(topk, grid_select, "grid_select.cu", 0,
               "few long segments: radix select over the whole GPU, then sort k"),
    KB_VARIANT(topk, coop_select, "coop_select.cu", 0,
               "few segments in the GPU's shared memory: one cooperative kernel selects, ranks k"),
    KB_VARIANT(topk, cub_topk, "cub_topk.cu", 0,
               "CCCL's cub::DeviceTopK / DeviceBatchedTopK on (key, ~index) composites, k sorted"),
    KB_VARIANT(topk, cpu_select, "cpu_select.c", KB_HOST,
               "CPU: quickselect (nth_element) then sort of the k, OpenMP over segments"),
    /* topk: rows here */
    KB_VARIANT(rpn_proposals, sort_bitmask, "sort_bitmask.cu", 0,
               "per-level CUB sorts, CUB candidate sort, bitmask NMS"),
    KB_VARIANT(rpn_proposals, select_bitmask_gpu, "select_bitmask_gpu.cu", 0,
               "radix-select top-k, CUB candidate sort, bitmask NMS"),
    KB_VARIANT(rpn_proposals, fused, "fused.cu", 0,
               "select top-k, per-level mask tiles, one cluster walks + merges"),
    KB_VARIANT(rpn_proposals, cpu_port, "cpu_port.c", KB_HOST,
               "CPU port: a thread per level (partial sort, decode), one greedy NMS"),
    KB_VARIANT(rpn_proposals, cuda_port, "cuda_port.cu", KB_INEXACT,
               "the common CUDA port: CUB sort per level, zero-score padding, 0.5-px small "
               "boxes, offset NMS; other semantics"),
    /* rpn_proposals: rows here */
    KB_VARIANT(yolo_decode, atomic_bitmask, "atomic.cu", KB_NONDETERMINISTIC,
               "atomicAdd compaction, block sort, nms blockwalk per image"),
    KB_VARIANT(yolo_decode, atomic_fastnms, "atomic.cu", KB_NONDETERMINISTIC | KB_INEXACT,
               "atomicAdd compaction, block sort + fast NMS (TensorRT way)"),
    KB_VARIANT(yolo_decode, atomic_greedy, "atomic.cu", 0,
               "atomicAdd compaction of every candidate, exact top max_det, block greedy NMS"),
    KB_VARIANT(yolo_decode, scan_greedy, "scan.cu", 0,
               "CUB select + segmented sort, top max_det, block greedy NMS"),
    KB_VARIANT(yolo_decode, fused_batch, "fused.cu", 0,
               "one launch, a block per image: compact, select, sort, greedy"),
    KB_VARIANT(yolo_decode, seed_fastnms, "seed_fastnms.cu", KB_NONDETERMINISTIC | KB_INEXACT,
               "the ports' decode (atomicAdd, float count) + fast_nms_kernel, per image, unsorted"),
/* yolo_decode: rows here */
#ifdef KB_WITH_FAULTY
    KB_FAULTY_VARIANTS
#endif
#ifdef KB_WITH_MUTANTS
        KB_MUTANT_VARIANTS
#endif
    {NULL, NULL, NULL, 0, NULL, NULL},
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
