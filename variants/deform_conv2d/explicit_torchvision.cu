/* explicit_torchvision.cu — torchvision's f32 deform_conv2d forward as it
 * ships (the pipeline in dcn_torchvision.cuh): im2col of up to 32 images into
 * [c_in*kh*kw][np*ho*wo] columns, one thread per (channel, image, out_y,
 * out_x) with 64-bit indices, cublasSgemm per weight group onto out_buf (at::addmm_
 * on f32: fp32 compute, no tf32 by PyTorch's default), out_buf transposed to
 * NCHW, then the bias added.
 *
 *   kbench run deform_conv2d -v explicit_torchvision,explicit_gemm_i64 --sweep default
 *
 * The sampling is the op's f32 rule (dcn_tap_point's float coordinate,
 * kb_dcn_corners' bilinear weights), blended as torchvision's
 * bilinear_interpolate and multiplied by the mask afterwards.
 */
#include "dcn_torchvision.cuh"

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

struct tv_sgemm {
    static constexpr const char *name = "cublasSgemm";
    static cublasStatus_t addmm(cublasHandle_t h, int m, int n, int k, const float *a, int lda,
                                const float *b, int ldb, float *c, int ldc) {
        const float one = 1.f;
        return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, lda, b, ldb, &one, c,
                           ldc);
    }
};

static int tv_f32_supports(const kb_case *c, kb_error *why) {
    return tv_supports(c, KB_F32, why);
}

static size_t tv_f32_workspace(const kb_case *c) {
    kb_dcn_params p;
    return kb_dcn_params_from_case(c, &p, NULL) == KB_OK ? tv_workspace(&p) : 0;
}

extern "C" const kb_variant_impl kb_deform_conv2d_explicit_torchvision = {
    tv_f32_supports, tv_f32_workspace, tv_setup, tv_run<float, tv_rule_f32, tv_sgemm>, tv_teardown};
