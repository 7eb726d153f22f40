/* dcn_implicit_fma.cuh — the fp32-FMA implicit GEMM of deform_conv2d, with
 * its host side templated on the sampler: implicit_gemm.cu instantiates it
 * with dcn_b_sampler (NCHW, every dtype: f16/bf16 loaded and converted, fp32
 * arithmetic), nhwc_gemm.cu with dcn_nhwc.cuh's channels-last sampler (f32
 * only; the NHWC input copy is its workspace). No columns buffer: each block
 * computes a BM (output channels) x BN (pixels) tile; per K step of BK = 8 it
 * loads the weights' BM x 8 slice and samples the 8 x BN slice of the
 * deformable columns straight into shared memory (bilinear weights once per
 * (tap, pixel), reused across the group's channels). Register tiles, the
 * prefetch and the napkin math: above dcn_implicit_fma.
 * Internal linkage (an unnamed namespace): each including file has its own copy.
 */
#ifndef KB_DCN_IMPLICIT_FMA_CUH
#define KB_DCN_IMPLICIT_FMA_CUH

#include "dcn_nhwc.cuh"

#include <stdlib.h>
#include <type_traits>

namespace {

/* The implicit GEMMs' A operand: thread threadIdx.x's A_PER weights of k-tile
 * kt of the group's weights wg, rows m0 + tid / BK + j NT / BK and column
 * Sampler::wcol (as f32; 0 past the group's channels or its columns). The
 * FMA kernel below and implicit_gemm.cu's MMA kernel both fetch this way.
 * Their K loops (sampler issue, fetch, multiply, store, barrier) stay
 * written out in each: shared as one template taking the multiply as a
 * lambda, every implicit variant ran 1-6% slower (H200, default sweep). */
template <typename Sampler, int BK, int NT, int A_PER, typename T>
__device__ __forceinline__ void dcn_fetch_weights(const dcn_dims &d, const T *wg, int m0, int kt,
                                                  float (&a)[A_PER]) {
    const int tid = threadIdx.x, col = Sampler::wcol(d, kt, tid % BK);
#pragma unroll
    for (int j = 0; j < A_PER; j++) {
        const int m = m0 + tid / BK + j * (NT / BK);
        a[j] = m < d.cout_g && col >= 0 ? dcn_f32(wg[m * d.kd + col]) : 0.f;
    }
}

namespace dcn_fma {

constexpr int NT = 256, BK = 8, BN = 128;

template <int BM, typename Sampler> constexpr size_t smem_bytes(int taps) {
    return (size_t)taps * BN * (sizeof(float4) + sizeof(int)) + Sampler::RING +
           2 * BK * ((BM + 4) + BN) * sizeof(float);
}

/* Register tiles of (BM/16) x (BN/16) per thread, split in 4-wide chunks 64
 * apart so that the float4 shared loads are conflict-free; the next K slice is
 * fetched into registers while the current one is multiplied (one barrier per
 * step).
 * Napkin: 128x128x8 step = 131k FMA / 256 threads = 512 FFMA per thread against
 * 16 LDS.128 — FMA-bound once the 4 gathers per sample hit L1/L2. 64x128 tiles
 * when 128x128 gives under two waves of blocks on the chip. */
template <typename T, int BM, typename Sampler>
__global__ void __launch_bounds__(NT, 2) dcn_implicit_fma(dcn_ptrs<T> p, dcn_dims d, int mtiles) {
    constexpr int TM = BM / 16, TN = BN / 16, LDA = BM + 4, A_PER = BM * BK / NT;
    extern __shared__ float4 smem[];
    float4 *tb_wt = smem;
    char *ring = (char *)(smem + d.taps * BN);
    float *As = (float *)(ring + Sampler::RING); /* [2][BK][LDA] */
    float *Bs = As + 2 * BK * LDA;               /* [2][BK][BN] */
    int *tb_base = (int *)(Bs + 2 * BK * BN);

    const int tid = threadIdx.x, mg = blockIdx.x % (d.groups * mtiles);
    const int g = mg / mtiles, m0 = (mg % mtiles) * BM,
              q0 = (blockIdx.x / (d.groups * mtiles)) * BN;
    const T *wg = p.w + (int64_t)g * d.cout_g * d.kd;
    Sampler smp;
    smp.init(d, p, g, q0, tb_base, tb_wt, ring);

    float a_reg[A_PER];
    auto fetch = [&](int kt) { dcn_fetch_weights<Sampler, BK, NT>(d, wg, m0, kt, a_reg); };
    auto store = [&](int buf, int kt) {
#pragma unroll
        for (int j = 0; j < A_PER; j++)
            As[(buf * BK + tid % BK) * LDA + tid / BK + j * (NT / BK)] = a_reg[j];
        smp.template finish<dcn_store_f32>(Bs + buf * BK * BN, BN, kt);
    };

    const int ty = tid / 16, tx = tid % 16;
    float acc[TM][TN] = {};
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
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int c = 0; c < TM / 4; c++)
                *(float4 *)&a[4 * c] =
                    *(const float4 *)&As[(buf * BK + kk) * LDA + c * 64 + ty * 4];
#pragma unroll
            for (int c = 0; c < TN / 4; c++)
                *(float4 *)&b[4 * c] = *(const float4 *)&Bs[(buf * BK + kk) * BN + c * 64 + tx * 4];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (t + 1 < ktiles) store(buf ^ 1, t + 1);
        __syncthreads();
    }

    const int P = d.ho * d.wo;
#pragma unroll
    for (int j = 0; j < TN; j++) {
        int q = q0 + (j / 4) * 64 + tx * 4 + j % 4;
        if (q >= d.n * P) continue;
        int n = q / P, pix = q - n * P;
        T *out = p.out + (int64_t)n * d.c_out * P + pix;
#pragma unroll
        for (int i = 0; i < TM; i++) {
            int co = m0 + (i / 4) * 64 + ty * 4 + i % 4;
            if (co >= d.cout_g) continue;
            co += g * d.cout_g;
            float v = acc[i][j] + (d.bias ? dcn_f32(p.b[co]) : 0.f);
            out[co * P] = dcn_from_f32<T>(v);
        }
    }
}

template <typename T, bool NHWC>
using sampler_t = typename std::conditional<NHWC, dcn_nhwc_sampler<T, BN, BK, NT>,
                                            dcn_b_sampler<T, BN, BK, NT>>::type;

struct fma_state {
    kb_dcn_params p;
    int bm;
    void *nhwc; /* nhwc_gemm: the input in channels-last order */
};

template <bool NHWC> int supports(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (dcn_im2col_auto_only(&p, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (NHWC && p.dtype != KB_F32) {
        kb_fail(why, "dtype=%s: this variant takes f32 (nhwc_fused_f16/_bf16 take 16-bit data)",
                kb_dtype_name(p.dtype));
        return KB_NOT_APPLICABLE;
    }
    if (NHWC && dcn_nhwc_limits(&p, why) != KB_OK) return KB_UNSUPPORTED;
    return dcn_implicit_limits(&p, BN, 64,
                               smem_bytes<128, sampler_t<float, NHWC>>((int)(p.kh * p.kw)), why);
}

template <bool NHWC> size_t workspace_bytes(const kb_case *c) {
    kb_dcn_params p;
    if (!NHWC || kb_dcn_params_from_case(c, &p, NULL) != KB_OK) return 0;
    return dcn_nhwc_bytes(&p);
}

template <typename T, bool NHWC> int configure(int taps, kb_error *e) {
    KB_CUDA_TRY(cudaFuncSetAttribute(dcn_implicit_fma<T, 64, sampler_t<T, NHWC>>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes<64, sampler_t<T, NHWC>>(taps)),
                e);
    KB_CUDA_TRY(cudaFuncSetAttribute(dcn_implicit_fma<T, 128, sampler_t<T, NHWC>>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes<128, sampler_t<T, NHWC>>(taps)),
                e);
    return KB_OK;
}

template <bool NHWC> int build(fma_state *st, const kb_case *c, kb_error *e) {
    if (kb_dcn_params_from_case(c, &st->p, e) != KB_OK) return KB_ERR;
    dcn_dims d = dcn_dims_of(&st->p);
    st->bm = dcn_pick_bm(&st->p, BN);
    if constexpr (NHWC) {
        size_t bytes = dcn_nhwc_bytes(&st->p);
        if (bytes && !dcn_alloc(&st->nhwc, bytes)) {
            kb_fail(e, "NHWC input copy: %zu bytes", bytes);
            return KB_OUT_OF_MEMORY;
        }
        return configure<float, true>(d.taps, e);
    }
    switch (st->p.dtype) {
    case KB_F16:
        return configure<__half, false>(d.taps, e);
    case KB_BF16:
        return configure<__nv_bfloat16, false>(d.taps, e);
    default:
        return configure<float, false>(d.taps, e);
    }
}

void teardown(void *state) {
    fma_state *st = (fma_state *)state;
    if (st) cudaFree(st->nhwc);
    free(st);
}

template <bool NHWC>
int setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    return dcn_setup<fma_state>(state, teardown, e,
                                [&](fma_state *st) { return build<NHWC>(st, c, e); });
}

template <typename T, bool NHWC>
int launch(const fma_state *st, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
           kb_error *e) {
    dcn_dims d = dcn_dims_of(&st->p);
    int64_t ptiles = ((int64_t)d.n * d.ho * d.wo + BN - 1) / BN;
    if (ptiles == 0) return KB_OK;
    int mtiles = (d.cout_g + st->bm - 1) / st->bm;
    unsigned grid = (unsigned)(ptiles * d.groups * mtiles);
    dcn_ptrs<T> p = dcn_bind<T>(in, out);
    if (NHWC) {
        if (dcn_prep<T>(&st->p, p.in, (T *)st->nhwc, s, e) != KB_OK) return KB_ERR;
        p.in = (const T *)st->nhwc;
    }
    using Smp = sampler_t<T, NHWC>;
    kb_nvtx_push("gemm");
    if (st->bm == 64)
        dcn_implicit_fma<T, 64, Smp><<<grid, NT, smem_bytes<64, Smp>(d.taps), s>>>(p, d, mtiles);
    else
        dcn_implicit_fma<T, 128, Smp><<<grid, NT, smem_bytes<128, Smp>(d.taps), s>>>(p, d, mtiles);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "dcn_implicit_fma", e);
}

template <bool NHWC>
int run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    const fma_state *st = (const fma_state *)state;
    if constexpr (NHWC) return launch<float, true>(st, in, out, s, e);
    switch (st->p.dtype) {
    case KB_F16:
        return launch<__half, false>(st, in, out, s, e);
    case KB_BF16:
        return launch<__nv_bfloat16, false>(st, in, out, s, e);
    default:
        return launch<float, false>(st, in, out, s, e);
    }
}

} // namespace dcn_fma
} // namespace

#endif
