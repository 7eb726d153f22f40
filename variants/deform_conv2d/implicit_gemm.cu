/* implicit_gemm.cu — deform_conv2d as an implicit GEMM: no columns buffer,
 * the B tile sampled on the fly (dcn_b_sampler), weights in the tensor's own
 * K order, fp32 accumulation.
 *   implicit_gemm        fp32 FMA, every dtype (dcn_implicit_fma.cuh)
 *   implicit_gemm_tf32   f32 data, mma.sync m16n8k8 tf32 (operands rounded to nearest, cvt.rna)
 *   implicit_gemm_f16    f16 data, mma.sync m16n8k16
 *   implicit_gemm_bf16   bf16 data, mma.sync m16n8k16 (the mma ones need sm_80+)
 * The mma kernel: BK = 16 (tf32) or 32 (f16/bf16), two mma k-steps per tile;
 * 8 warps in 2 (M) x 4 (N), each warp 16*MT x 32 of the BM x 128 tile. Its
 * shared layouts: above smem_bytes. A sampled value is rounded to the data
 * type once, when it enters shared memory; coordinates and bilinear weights
 * stay fp32. Measurements: docs/perf-deform_conv2d.md.
 *
 *   kbench run deform_conv2d --sweep default -v implicit_gemm,implicit_gemm_tf32
 */
#include "dcn_implicit_fma.cuh"
#include "../common/arch.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

namespace {

constexpr int NT = 256, BN = 128, LDB = BN + 8;

template <typename T> struct mma_traits;
template <> struct mma_traits<float> {
    using S = float;                         /* holding tf32 bit patterns */
    static constexpr int KSTEP = 8, BK = 16; /* 2 k-steps per tile */
    static constexpr kb_dtype DTYPE = KB_F32;
    static __device__ __forceinline__ S to_s(float v) { return __uint_as_float(kb_tf32_bits(v)); }
};
template <> struct mma_traits<__half> {
    using S = __half;
    static constexpr int KSTEP = 16, BK = 32; /* 2 k-steps per tile */
    static constexpr kb_dtype DTYPE = KB_F16;
    static __device__ __forceinline__ S to_s(float v) { return __float2half_rn(v); }
};
template <> struct mma_traits<__nv_bfloat16> {
    using S = __nv_bfloat16;
    static constexpr int KSTEP = 16, BK = 32; /* 2 k-steps per tile */
    static constexpr kb_dtype DTYPE = KB_BF16;
    static __device__ __forceinline__ S to_s(float v) { return __float2bfloat16_rn(v); }
};

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void *p) {
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

/* Shared layouts, chosen for conflict-free fragment loads without swizzles:
 *   A [m][k], row = BK elements + 16 bytes = 20 words: rows g = 0..7 start
 *     20 words apart, so the 32 lanes of a fragment load hit 32 banks;
 *   B [k][n], row = 128 + 8 elements: the sampler writes 32 consecutive
 *     pixels per warp; tf32 fragments read (k = t, n = g) at bank 8t + g,
 *     16-bit ones go through ldmatrix.trans (8 rows of 16 B, 272 B apart). */
template <typename T, int BM, typename Sampler> constexpr size_t smem_bytes(int taps) {
    using S = typename mma_traits<T>::S;
    constexpr int BK = mma_traits<T>::BK;
    return (size_t)taps * BN * (sizeof(float4) + sizeof(int)) + Sampler::RING +
           2 * ((size_t)BM * (BK + 16 / sizeof(S)) + (size_t)BK * LDB) * sizeof(S);
}

/* Fragments of one K step (KSTEP) from the shared tiles. */
template <typename T, int MT, int LDA>
__device__ __forceinline__ void load_fragments(const typename mma_traits<T>::S *As,
                                               const typename mma_traits<T>::S *Bs, int ks, int wm,
                                               int wn, uint32_t (&a)[MT][4], uint32_t (&b)[4][2]) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    if constexpr (mma_traits<T>::KSTEP == 8) {
        const uint32_t *A = (const uint32_t *)As, *B = (const uint32_t *)Bs;
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            int r = (wm * MT + mt) * 16 + g;
            a[mt][0] = A[r * LDA + ks + t], a[mt][1] = A[(r + 8) * LDA + ks + t];
            a[mt][2] = A[r * LDA + ks + t + 4], a[mt][3] = A[(r + 8) * LDA + ks + t + 4];
        }
#pragma unroll
        for (int nt = 0; nt < 4; nt++) {
            int col = wn * 32 + nt * 8 + g;
            b[nt][0] = B[(ks + t) * LDB + col], b[nt][1] = B[(ks + t + 4) * LDB + col];
        }
    } else {
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            int r = (wm * MT + mt) * 16 + g;
            a[mt][0] = *(const uint32_t *)&As[r * LDA + ks + 2 * t];
            a[mt][1] = *(const uint32_t *)&As[(r + 8) * LDA + ks + 2 * t];
            a[mt][2] = *(const uint32_t *)&As[r * LDA + ks + 2 * t + 8];
            a[mt][3] = *(const uint32_t *)&As[(r + 8) * LDA + ks + 2 * t + 8];
        }
        const int mi = lane / 8, krow = ks + (mi & 1) * 8 + lane % 8;
#pragma unroll
        for (int np = 0; np < 2; np++) {
            uint32_t r[4];
            ldmatrix_x4_trans(r, &Bs[krow * LDB + wn * 32 + (2 * np + (mi >> 1)) * 8]);
            b[2 * np][0] = r[0], b[2 * np][1] = r[1], b[2 * np + 1][0] = r[2];
            b[2 * np + 1][1] = r[3];
        }
    }
}

template <typename T, int MT, typename Sampler>
__global__ void __launch_bounds__(NT) dcn_implicit_mma(dcn_ptrs<T> p, dcn_dims d, int mtiles) {
    using S = typename mma_traits<T>::S;
    constexpr int BK = mma_traits<T>::BK;
    constexpr int BM = 32 * MT, LDA = BK + 16 / sizeof(S), A_PER = BM * BK / NT;
    extern __shared__ float4 smem[];
    float4 *tb_wt = smem;
    char *ring = (char *)(smem + d.taps * BN);
    S *As = (S *)(ring + Sampler::RING); /* [2][BM][LDA] */
    S *Bs = As + 2 * BM * LDA;           /* [2][BK][LDB] */
    int *tb_base = (int *)(Bs + 2 * BK * LDB);

    const int tid = threadIdx.x, warp = tid / 32, wm = warp / 4, wn = warp % 4;
    const int mg = blockIdx.x % (d.groups * mtiles), g = mg / mtiles, m0 = (mg % mtiles) * BM;
    const int q0 = (blockIdx.x / (d.groups * mtiles)) * BN;
    const T *wg = p.w + (int64_t)g * d.cout_g * d.kd;
    Sampler smp;
    smp.init(d, p, g, q0, tb_base, tb_wt, ring);

    float a_reg[A_PER];
    auto fetch = [&](int kt) { dcn_fetch_weights<Sampler, BK, NT>(d, wg, m0, kt, a_reg); };
    auto store = [&](int buf, int kt) {
#pragma unroll
        for (int j = 0; j < A_PER; j++)
            As[(buf * BM + tid / BK + j * (NT / BK)) * LDA + tid % BK] =
                mma_traits<T>::to_s(a_reg[j]);
        smp.template finish<mma_traits<T>>(Bs + buf * BK * LDB, LDB, kt);
    };

    float acc[MT][4][4] = {};
    const int ktiles = Sampler::ktiles(d);
    for (int s = 0; s < Sampler::DEPTH; s++) smp.issue(d, p, s);
    fetch(0);
    store(0, 0);
    __syncthreads();
    for (int t = 0; t < ktiles; t++) {
        const int buf = t & 1;
        if (t + 1 < ktiles) fetch(t + 1);
        smp.issue(d, p, t + Sampler::DEPTH);
#pragma unroll
        for (int ks = 0; ks < BK; ks += mma_traits<T>::KSTEP) {
            uint32_t a[MT][4], b[4][2];
            load_fragments<T, MT, LDA>(As + buf * BM * LDA, Bs + buf * BK * LDB, ks, wm, wn, a, b);
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int nt = 0; nt < 4; nt++)
                    kb_mma_sync<T>(acc[mt][nt], a[mt], b[nt][0], b[nt][1]);
        }
        if (t + 1 < ktiles) store(buf ^ 1, t + 1);
        __syncthreads();
    }

    const int P = d.ho * d.wo, lane = tid % 32;
#pragma unroll
    for (int nt = 0; nt < 4; nt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int q = q0 + wn * 32 + nt * 8 + 2 * (lane % 4) + h;
            if (q >= d.n * P) continue;
            int n = q / P, pix = q - n * P;
            T *out = p.out + (int64_t)n * d.c_out * P + pix;
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int v = 0; v < 2; v++) {
                    int co = m0 + (wm * MT + mt) * 16 + lane / 4 + 8 * v;
                    if (co >= d.cout_g) continue;
                    co += g * d.cout_g;
                    float r = acc[mt][nt][2 * v + h] + (d.bias ? dcn_f32(p.b[co]) : 0.f);
                    out[co * P] = dcn_from_f32<T>(r);
                }
        }
}

template <typename T> using sampler_t = dcn_b_sampler<T, BN, mma_traits<T>::BK, NT>;

struct mma_state {
    kb_dcn_params p;
    int bm;
};

template <typename T> int supports(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (dcn_im2col_auto_only(&p, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (dcn_takes_dtype(&p, mma_traits<T>::DTYPE, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (kb_gpu_require(KB_CC_MMA_SM80, "mma.sync with tf32/f16/bf16 operands", why) != KB_OK)
        return KB_UNSUPPORTED;
    return dcn_implicit_limits(&p, BN, 64, smem_bytes<T, 128, sampler_t<T>>((int)(p.kh * p.kw)),
                               why);
}

size_t workspace_bytes(const kb_case *) {
    return 0;
}

template <typename T> int build(mma_state *st, const kb_case *c, kb_error *e) {
    if (kb_dcn_params_from_case(c, &st->p, e) != KB_OK) return KB_ERR;
    st->bm = dcn_pick_bm(&st->p, BN);
    int taps = (int)(st->p.kh * st->p.kw);
    KB_CUDA_TRY(cudaFuncSetAttribute(dcn_implicit_mma<T, 2, sampler_t<T>>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes<T, 64, sampler_t<T>>(taps)),
                e);
    KB_CUDA_TRY(cudaFuncSetAttribute(dcn_implicit_mma<T, 4, sampler_t<T>>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes<T, 128, sampler_t<T>>(taps)),
                e);
    return KB_OK;
}

void teardown(void *state) {
    free(state);
}

template <typename T>
int setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    return dcn_setup<mma_state>(state, teardown, e,
                                [&](mma_state *st) { return build<T>(st, c, e); });
}

template <typename T>
int run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    const mma_state *st = (const mma_state *)state;
    dcn_dims d = dcn_dims_of(&st->p);
    int64_t ptiles = ((int64_t)d.n * d.ho * d.wo + BN - 1) / BN;
    if (ptiles == 0) return KB_OK;
    int mtiles = (d.cout_g + st->bm - 1) / st->bm;
    unsigned grid = (unsigned)(ptiles * d.groups * mtiles);
    dcn_ptrs<T> p = dcn_bind<T>(in, out);
    using Smp = sampler_t<T>;
    kb_nvtx_push("gemm");
    if (st->bm == 64)
        dcn_implicit_mma<T, 2, Smp><<<grid, NT, smem_bytes<T, 64, Smp>(d.taps), s>>>(p, d, mtiles);
    else
        dcn_implicit_mma<T, 4, Smp><<<grid, NT, smem_bytes<T, 128, Smp>(d.taps), s>>>(p, d, mtiles);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "dcn_implicit_mma", e);
}

template <typename T> constexpr kb_variant_impl impl() {
    return {supports<T>, workspace_bytes, setup<T>, run<T>, teardown};
}

} // namespace

KB_DEFINE_VARIANT(deform_conv2d, implicit_gemm) = {
    dcn_fma::supports<false>, dcn_fma::workspace_bytes<false>,
    dcn_fma::setup<false>,    dcn_fma::run<false>,
    dcn_fma::teardown,
};
KB_DEFINE_VARIANT(deform_conv2d, implicit_gemm_tf32) = impl<float>();
KB_DEFINE_VARIANT(deform_conv2d, implicit_gemm_f16) = impl<__half>();
KB_DEFINE_VARIANT(deform_conv2d, implicit_gemm_bf16) = impl<__nv_bfloat16>();
