/* explicit_torchvision.cu — torchvision's deform_conv2d forward as it ships
 * (the pipeline in dcn_torchvision.cuh): im2col of up to 32 images into
 * [c_in*kh*kw][np*ho*wo] columns, one thread per (channel, image, out_y,
 * out_x) with 64-bit indices, one GEMM per weight group onto out_buf
 * (at::addmm_), out_buf transposed to NCHW, then the bias added.
 *   explicit_torchvision       f32: cublasSgemm (fp32 compute, no tf32 by
 *                              PyTorch's default); the op's f32 sampling rule
 *                              (dcn_tap_point's float coordinate, kb_dcn_corners'
 *                              weights), blended as bilinear_interpolate, times
 *                              the mask afterwards
 *   explicit_torchvision_half  f16 as torchvision computes it (KB_INEXACT): its
 *                              im2col is templated on scalar_t, so coordinates,
 *                              weights, blend and mask product are at::Half
 *                              arithmetic (deform_conv2d.h's kb_dcn_*_f16),
 *                              columns f16; cublasGemmEx f16 in and out with
 *                              fp32 compute (at::cuda::blas::gemm<at::Half>)
 *
 *   kbench run deform_conv2d -v explicit_torchvision,explicit_gemm_i64 --sweep default
 *   kbench check deform_conv2d -v explicit_torchvision_half --sweep smoke
 */
#include "dcn_torchvision.cuh"
#include "../common/variant_def.h"

struct tv_rule_f32 {
    static __device__ __forceinline__ float one() { return 1.f; }
    /* mask * bilinear_interpolate(plane, y0 + dy, x0 + dx): the integer part of
     * the coordinate first, then + the offset in float */
    static __device__ __forceinline__ float column(const float *plane, int64_t H, int64_t W,
                                                   int64_t y0, int64_t x0, float dy, float dx,
                                                   float m) {
        float y = (float)y0 + dy, x = (float)x0 + dx, wt[4];
        int64_t base;
        if (!kb_dcn_corners(y, x, H, W, &base, wt)) return m * 0.f;
        float v1 = wt[0] != 0.f ? plane[base] : 0.f, v2 = wt[1] != 0.f ? plane[base + 1] : 0.f;
        float v3 = wt[2] != 0.f ? plane[base + W] : 0.f;
        float v4 = wt[3] != 0.f ? plane[base + W + 1] : 0.f;
        return m * (wt[0] * v1 + wt[1] * v2 + wt[2] * v3 + wt[3] * v4);
    }
};

struct tv_rule_f16 {
    static __device__ __forceinline__ __half one() { return __float2half_rn(1.f); }
    /* mask_value * bilinear_interpolate(plane, y, x) in at::Half: y = Half(y0) +
     * offset, every weight, product and sum rounded to f16 (kb_dcn_*_f16, the
     * reference's own functions). A corner of zero weight is not read (0), as
     * torchvision's outside corners; inside ones of weight 0 add 0 either way. */
    static __device__ __forceinline__ __half column(const __half *plane, int64_t H, int64_t W,
                                                    int64_t y0, int64_t x0, __half dy, __half dx,
                                                    __half m) {
        float y = kb_dcn_coord_f16(y0, __half2float(dy));
        float x = kb_dcn_coord_f16(x0, __half2float(dx)), wt[4], v[4];
        int64_t base;
        kb_dcn_corners_f16(y, x, H, W, &base, wt);
        const int64_t corner[4] = {0, 1, W, W + 1};
#pragma unroll
        for (int c = 0; c < 4; c++)
            v[c] = wt[c] != 0.f ? __half2float(plane[base + corner[c]]) : 0.f;
        return __float2half_rn(kb_dcn_blend_f16(wt, v, __half2float(m)));
    }
};

struct tv_sgemm {
    static constexpr const char *name = "cublasSgemm";
    static cublasStatus_t addmm(cublasHandle_t h, int m, int n, int k, const float *a, int lda,
                                const float *b, int ldb, float *c, int ldc) {
        const float one = 1.f;
        return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, lda, b, ldb, &one, c,
                           ldc);
    }
};

/* PyTorch's gemm<at::Half>: f16 A, B and C, fp32 accumulation, alpha and
 * beta in float; the sum is rounded to f16 as it lands in out_buf. */
struct tv_hgemm {
    static constexpr const char *name = "cublasGemmEx (f16, CUBLAS_COMPUTE_32F)";
    static cublasStatus_t addmm(cublasHandle_t h, int m, int n, int k, const __half *a, int lda,
                                const __half *b, int ldb, __half *c, int ldc) {
        const float one = 1.f;
        return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, CUDA_R_16F, lda, b,
                            CUDA_R_16F, ldb, &one, c, CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT);
    }
};

static size_t tv_workspace_of(const kb_case *c) {
    kb_dcn_params p;
    return kb_dcn_params_from_case(c, &p, NULL) == KB_OK ? tv_workspace(&p) : 0;
}

static int tv_f32_supports(const kb_case *c, kb_error *why) {
    return tv_supports(c, KB_F32, why);
}

static int tv_f16_supports(const kb_case *c, kb_error *why) {
    return tv_supports(c, KB_F16, why);
}

KB_DEFINE_VARIANT(deform_conv2d, explicit_torchvision) = {
    tv_f32_supports, tv_workspace_of, tv_setup, tv_run<float, tv_rule_f32, tv_sgemm>, tv_teardown};

KB_DEFINE_VARIANT(deform_conv2d, explicit_torchvision_half) = {
    tv_f16_supports, tv_workspace_of, tv_setup, tv_run<__half, tv_rule_f16, tv_hgemm>, tv_teardown};
