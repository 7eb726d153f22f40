/* dcn_torchvision.cuh — torchvision's CUDA deform_conv2d forward, structure for
 * structure (torchvision/csrc/ops/cuda/deform_conv2d_kernel.cu), so that the
 * table holds the design users run today; a variant picks the data type, the
 * sampling rule and the GEMM (explicit_torchvision.cu: float math and
 * cublasSgemm for f32, at::Half math and cublasGemmEx for f16).
 *
 *   n_parallel_imgs = the largest divisor of n that is <= 32
 *                     (get_greatest_divisor_below_bound(n, kMaxParallelImgs))
 *   out_buf = zeros [n/np][c_out][np*ho*wo]           (the whole batch)
 *   columns = zeros [c_in*kh*kw][np*ho*wo]            (one block of np images)
 *   per block: im2col, one thread per (channel, image, out_y, out_x), taps inside;
 *              per weight group: out_buf[b][g] += W[g] x columns[g]   (addmm_)
 *   out = out_buf transposed [n/np][np][c_out][ho*wo] (copy_), then out + bias.
 *
 * Index width: torchvision tests `num_kernels > (1 << 31)`, and (1 << 31) is
 * INT_MIN as a 32-bit int, so the test holds for every count and its kernels
 * always run with 64-bit indices: so do these.
 */
#ifndef KB_DCN_TORCHVISION_CUH
#define KB_DCN_TORCHVISION_CUH

#include "dcn_common.cuh"

#include <cublas_v2.h>

/* torchvision's kMaxParallelImgs and GET_THREADS() */
constexpr int TV_MAX_PARALLEL_IMGS = 32, TV_THREADS = 512;
/* cuBLAS workspace set explicitly: required for capture into a CUDA graph. */
static const size_t TV_CUBLAS_WORKSPACE = (size_t)32 << 20;

/* get_greatest_divisor_below_bound(n, 32); torchvision returns before it for
 * n = 0 (an empty output), and so does run(). */
static inline int64_t tv_parallel_imgs(int64_t n) {
    for (int64_t k = TV_MAX_PARALLEL_IMGS; k > 1; --k)
        if (n % k == 0) return k;
    return 1;
}

struct tv_sizes {
    int64_t np, cols, out_buf; /* images per block; elements of columns and out_buf */
};

static inline tv_sizes tv_sizes_of(const kb_dcn_params *p) {
    tv_sizes s = {0, 0, 0};
    if (p->n == 0) return s;
    s.np = tv_parallel_imgs(p->n);
    s.cols = kb_dcn_sizes_of(p).columns_img * s.np;
    s.out_buf = p->n * kb_dcn_sizes_of(p).output_img;
    return s;
}

static inline size_t tv_workspace(const kb_dcn_params *p) {
    tv_sizes s = tv_sizes_of(p);
    if (p->n == 0) return 0;
    return (size_t)(s.cols + s.out_buf) * kb_dtype_size(p->dtype) + TV_CUBLAS_WORKSPACE;
}

/* KB_OK, NOT_APPLICABLE for another dtype than the variant's, UNSUPPORTED
 * where cuBLAS's int dimensions cannot hold the GEMM (m = lda = np*ho*wo). */
static inline int tv_supports(const kb_case *c, kb_dtype dtype, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (dcn_im2col_auto_only(&p, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (p.dtype != dtype) {
        kb_fail(why, "dtype=%s: this variant is torchvision's %s path", kb_dtype_name(p.dtype),
                kb_dtype_name(dtype));
        return KB_NOT_APPLICABLE;
    }
    tv_sizes s = tv_sizes_of(&p);
    dcn_count gemm[] = {{"GEMM m = n_parallel_imgs*ho*wo", s.np * p.ho * p.wo},
                        {"GEMM k = c_in/groups*kh*kw", kb_dcn_sizes_of(&p).weight / p.c_out}};
    return dcn_check_int32(gemm, 2, "cuBLAS dimensions are int", why);
}

/* ---- kernels ---- */

/* deformable_im2col_kernel: index = ((c * np + b) * ho + oy) * wo + ox; the
 * column row c*taps + k, column b*ho*wo + oy*wo + ox. Each thread reads its
 * taps' offsets and mask and samples one channel plane, as torchvision's. */
template <typename T, typename Rule>
__global__ void __launch_bounds__(TV_THREADS)
    tv_im2col(dcn_ptrs<T> p, T *__restrict__ cols, dcn_dims d, int64_t np, int64_t total) {
    const int64_t P = (int64_t)d.ho * d.wo, hw = (int64_t)d.h * d.w;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t ox = idx % d.wo, oy = (idx / d.wo) % d.ho, b = (idx / P) % np,
                      c = idx / (P * np), og = c / d.cin_og;
        T *col = cols + c * d.taps * (np * P) + b * P + oy * d.wo + ox;
        const T *plane = p.in + (b * d.c_in + c) * hw;
        const T *off = p.off + (b * d.og + og) * 2 * d.taps * P + oy * d.wo + ox;
        const T *mask = d.mask ? p.mask + (b * d.og + og) * d.taps * P + oy * d.wo + ox : nullptr;
        for (int i = 0; i < d.kh; i++)
            for (int j = 0; j < d.kw; j++) {
                const int k = i * d.kw + j;
                const int64_t y0 = oy * d.sh - d.ph + (int64_t)i * d.dh;
                const int64_t x0 = ox * d.sw - d.pw + (int64_t)j * d.dw;
                *col = Rule::column(plane, (int64_t)d.h, (int64_t)d.w, y0, x0, off[2 * k * P],
                                    off[(2 * k + 1) * P], mask ? mask[k * P] : Rule::one());
                col += np * P;
            }
    }
}

/* out_buf [blocks][c_out][np][P] -> out [blocks*np][c_out][P] (torchvision's
 * out_buf.transpose_(1, 2) then out.copy_(out_buf)). */
template <typename T>
__global__ void tv_transpose(const T *__restrict__ buf, T *__restrict__ out, dcn_dims d, int64_t np,
                             int64_t total) {
    const int64_t P = (int64_t)d.ho * d.wo;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t pix = idx % P, co = (idx / P) % d.c_out, img = idx / (P * d.c_out);
        out[idx] = buf[((img / np * d.c_out + co) * np + img % np) * P + pix];
    }
}

/* out + bias.view(1, c_out, 1, 1): PyTorch's add computes in float and
 * rounds to the tensor's type. */
template <typename T>
__global__ void tv_add_bias(T *__restrict__ out, const T *__restrict__ bias, dcn_dims d,
                            int64_t total) {
    const int64_t P = (int64_t)d.ho * d.wo;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (int64_t)gridDim.x * blockDim.x)
        out[idx] = dcn_from_f32<T>(dcn_f32(out[idx]) + dcn_f32(bias[idx / P % d.c_out]));
}

/* GET_BLOCKS: ceil(total / threads), at most the grid's x limit (2^31 - 1). */
static inline unsigned tv_blocks(int64_t total, int threads) {
    int64_t b = (total + threads - 1) / threads;
    return (unsigned)(b < INT32_MAX ? (b > 0 ? b : 1) : INT32_MAX);
}

/* ---- state ---- */

struct tv_state {
    kb_dcn_params p;
    tv_sizes s;
    void *cols, *out_buf, *cublas_ws;
    cublasHandle_t handle;
};

static void tv_teardown(void *state) {
    tv_state *st = (tv_state *)state;
    if (st->handle) cublasDestroy(st->handle);
    cudaFree(st->cols);
    cudaFree(st->out_buf);
    cudaFree(st->cublas_ws);
    free(st);
}

static int tv_build(tv_state *st, const kb_case *c, kb_error *e) {
    if (kb_dcn_params_from_case(c, &st->p, e) != KB_OK) return KB_ERR;
    st->s = tv_sizes_of(&st->p);
    if (st->p.n == 0) return KB_OK; /* torchvision returns the empty output at once */
    size_t es = kb_dtype_size(st->p.dtype);
    if (!dcn_alloc(&st->cols, (size_t)st->s.cols * es) ||
        !dcn_alloc(&st->out_buf, (size_t)st->s.out_buf * es) ||
        !dcn_alloc(&st->cublas_ws, TV_CUBLAS_WORKSPACE)) {
        kb_fail(e, "columns + out_buf + cuBLAS workspace: %zu + %zu + %zu bytes",
                (size_t)st->s.cols * es, (size_t)st->s.out_buf * es, TV_CUBLAS_WORKSPACE);
        return KB_OUT_OF_MEMORY;
    }
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return kb_fail(e, "cublasCreate failed");
    st->handle = handle;
    return KB_OK;
}

static int tv_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    return dcn_setup<tv_state>(state, tv_teardown, e,
                               [&](tv_state *st) { return tv_build(st, c, e); });
}

/* The whole forward on stream s. Gemm(handle, m, n, k, A, lda, B, ldb, C, ldc)
 * is the type's addmm_: C (column-major m x n) += A (m x k) * B (k x n). */
template <typename T, typename Rule, typename Gemm>
static int tv_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    tv_state *st = (tv_state *)state;
    const kb_dcn_params *kp = &st->p;
    if (kp->n == 0) return KB_OK;
    dcn_dims d = dcn_dims_of(kp);
    dcn_ptrs<T> p = dcn_bind<T>(in, out);
    kb_dcn_sizes sz = kb_dcn_sizes_of(kp);
    const int64_t np = st->s.np, P = kp->ho * kp->wo, NP = np * P, es = (int64_t)sizeof(T);
    T *cols = (T *)st->cols, *buf = (T *)st->out_buf;
    if (cublasSetStream(st->handle, s) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(st->handle, st->cublas_ws, TV_CUBLAS_WORKSPACE) != CUBLAS_STATUS_SUCCESS)
        return kb_fail(e, "cublasSetStream/cublasSetWorkspace failed");
    /* at::zeros for out_buf and columns, as torchvision allocates them */
    KB_CUDA_TRY(cudaMemsetAsync(buf, 0, (size_t)(st->s.out_buf * es), s), e);
    KB_CUDA_TRY(cudaMemsetAsync(cols, 0, (size_t)(st->s.cols * es), s), e);
    const int64_t im2col_total = (int64_t)d.c_in * NP;
    for (int64_t b = 0; b < kp->n / np; b++) {
        dcn_ptrs<T> pb = p; /* this block's images */
        pb.in += b * np * sz.input_img;
        pb.off += b * np * sz.offset_img;
        if (kp->mask) pb.mask += b * np * sz.mask_img;
        kb_nvtx_push("im2col");
        tv_im2col<T, Rule><<<tv_blocks(im2col_total, TV_THREADS), TV_THREADS, 0, s>>>(
            pb, cols, d, np, im2col_total);
        kb_nvtx_pop();
        KB_CUDA_TRY(cudaGetLastError(), e);
        kb_nvtx_push("gemm");
        for (int g = 0; g < d.groups; g++) {
            /* out_buf[b][g] (cout_g x NP, row-major) += W[g] (cout_g x kd) x
             * columns[g] (kd x NP): column-major, C^T = columns[g]^T x W[g]^T */
            cublasStatus_t rc =
                Gemm::addmm(st->handle, (int)NP, d.cout_g, d.kd, cols + (int64_t)g * d.kd * NP,
                            (int)NP, p.w + (int64_t)g * d.cout_g * d.kd, d.kd,
                            buf + (b * d.c_out + (int64_t)g * d.cout_g) * NP, (int)NP);
            if (rc != CUBLAS_STATUS_SUCCESS) {
                kb_nvtx_pop();
                return kb_fail(e, "%s: status %d", Gemm::name, (int)rc);
            }
        }
        kb_nvtx_pop();
    }
    const int64_t total = kp->n * sz.output_img;
    tv_transpose<T><<<tv_blocks(total, 256), 256, 0, s>>>(buf, p.out, d, np, total);
    KB_CUDA_TRY(cudaGetLastError(), e);
    if (kp->bias) {
        tv_add_bias<T><<<tv_blocks(total, 256), 256, 0, s>>>(p.out, p.b, d, total);
        KB_CUDA_TRY(cudaGetLastError(), e);
    }
    return KB_OK;
}

#endif
