/* nhwc.cu — deform_conv2d as one fused kernel on tensor cores (fp32
 * accumulation), fed by the channels-last sampler:
 *   nhwc_fused_tf32   f32 data, mma.sync m16n8k8 tf32 (samples rounded to nearest:
 *                     ties to even by cvt.rn on 9.0, away before; weights ties away, cvt.rna)
 *   nhwc_fused_f16    f16 data, mma.sync m16n8k16
 *   nhwc_fused_bf16   bf16 data, mma.sync m16n8k16
 *   nhwc_wgmma_tf32 / _f16 / _bf16: the same kernel with wgmma (sm_90a) in
 *     place of ldmatrix + mma.sync: a warp group multiplies 64 pixels x 64-256
 *     channels straight from the shared tiles, asynchronously, while the
 *     warps blend the next tile. This file is built for sm_90a (CMakeLists).
 * Run: kbench run deform_conv2d --sweep default -v nhwc_wgmma_f16
 *
 * Design (tiles, K order, swizzle, pipeline): above dcn_nhwc_fused below.
 * Measurements, floors and the designs tried and rejected:
 * docs/perf-deform_conv2d.md, "nhwc_fused_tf32 / _f16 / _bf16: one kernel on
 * mma.sync" and "nhwc_wgmma_tf32 / _f16 / _bf16: the fused kernel on wgmma".
 */
#include "dcn_nhwc.cuh"
#include "dcn_wgmma_ops.cuh"
#include "dcn_ws_plan.h"
#include "../common/variant_def.h"

#include <limits.h>
#include <stdlib.h>
#include <type_traits>

namespace {

constexpr int ROWB = 128; /* bytes of a tile row: one 128-byte line of a corner's channels */
constexpr int VPR = 8;    /* 16-byte vectors (chunks) per row */

template <typename T> struct fused_traits;
template <> struct fused_traits<float> { static constexpr kb_dtype DTYPE = KB_F32; };
template <> struct fused_traits<__half> { static constexpr kb_dtype DTYPE = KB_F16; };
template <> struct fused_traits<__nv_bfloat16> { static constexpr kb_dtype DTYPE = KB_BF16; };

__device__ __forceinline__ uint32_t pack_bf16x2(float a, float b) {
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *(uint32_t *)&h;
}

/* The blend in fp32 FMAs, unrounded: the 16 / sizeof(T) values of v. */
template <typename T>
__device__ __forceinline__ void blend_f32(float4 wt, const uint4 (&raw)[4],
                                          float (&v)[16 / sizeof(T)]) {
    constexpr int VW = 16 / (int)sizeof(T);
    const float wq[4] = {wt.x, wt.y, wt.z, wt.w};
    float c[VW];
#pragma unroll
    for (int e = 0; e < VW; e++) v[e] = 0.f;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        dcn_unpack<T, VW>(raw[q], c);
#pragma unroll
        for (int e = 0; e < VW; e++) v[e] = fmaf(wq[q], c[e], v[e]);
    }
}
/* The bilinear blend of one 16-byte vector from its 4 corners, as the 16
 * bytes the A tile stores. f32 (tf32 variant) and bf16: in fp32, rounded once
 * (tf32: kb_tf32_bits_rn).
 * f16: in packed half2 FMAs with the fp32 weights rounded to f16 — a quarter
 * of the instructions of unpack + fp32 FMA + repack, which were half the
 * sampler's issue slots; torchvision's own f16 kernel interpolates (and even
 * computes the coordinates) in half. Measured rel-L2 stays 3e-4 to 4e-4 of
 * the f16 class bound 2e-3 (docs/perf-deform_conv2d.md). */
/* PACKED (f16 only): each weight arrives as the bits of its half2 pair
 * (packed_weights), converted once per table entry instead of per vector. */
template <typename T, bool PACKED = false>
__device__ __forceinline__ uint4 blend(float4 wt, const uint4 (&raw)[4]) {
    if constexpr (std::is_same<T, __half>::value) {
        const float wq[4] = {wt.x, wt.y, wt.z, wt.w};
        __half2 v[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const uint32_t wb = __float_as_uint(wq[q]);
            const __half2 w = PACKED ? *(const __half2 *)&wb : __float2half2_rn(wq[q]);
            const uint32_t r[4] = {raw[q].x, raw[q].y, raw[q].z, raw[q].w};
#pragma unroll
            for (int i = 0; i < 4; i++) {
                __half2 c = *(const __half2 *)&r[i];
                v[i] = q == 0 ? __hmul2(w, c) : __hfma2(w, c, v[i]);
            }
        }
        return make_uint4(*(uint32_t *)&v[0], *(uint32_t *)&v[1], *(uint32_t *)&v[2],
                          *(uint32_t *)&v[3]);
    } else {
        constexpr int VW = 16 / (int)sizeof(T);
        float v[VW];
        blend_f32<T>(wt, raw, v);
        if constexpr (sizeof(T) == 4) {
            return make_uint4(kb_tf32_bits_rn(v[0]), kb_tf32_bits_rn(v[1]), kb_tf32_bits_rn(v[2]),
                              kb_tf32_bits_rn(v[3]));
        } else {
            return make_uint4(pack_bf16x2(v[0], v[1]), pack_bf16x2(v[2], v[3]),
                              pack_bf16x2(v[4], v[5]), pack_bf16x2(v[6], v[7]));
        }
    }
}

/* The table form of 4 weights for blend<T, true>: f16, each as a half2
 * pair's bits; the others as they are. */
template <typename T> __device__ __forceinline__ float4 packed_weights(float4 wt) {
    if constexpr (std::is_same<T, __half>::value) {
        const float wq[4] = {wt.x, wt.y, wt.z, wt.w};
        float p[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const __half2 h = __floats2half2_rn(wq[q], wq[q]); /* one cvt of the pair */
            p[q] = __uint_as_float(*(const uint32_t *)&h);
        }
        return make_float4(p[0], p[1], p[2], p[3]);
    } else {
        return wt;
    }
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* Byte offset of chunk c of row r in a swizzled tile. */
__device__ __forceinline__ uint32_t swz(int r, int c) {
    return (uint32_t)(r * ROWB + ((c ^ (r & 7)) << 4));
}

/* Block shapes, mma.sync: WM x WN warps (NT threads), a warp owns 32 pixels
 * (MT = 2 row tiles of 16) x WTN output channels. BM = 32 WM pixels x 8
 * chunks over NT threads: VPT vectors a thread a tile. BN = WN WTN is picked
 * from c_out/groups: the sampled A tile serves all BN channels of the block.
 * Registers are capped at 128: 2 blocks of 8 warps an SM (3 blocks at 80
 * registers spilled and ran 17-24% slower, perf notes), or 1 of 16. */
template <int WM_, int WN_, int WTN_> struct shape {
    static constexpr bool WG = false;
    static constexpr int NCW = WM_ * WN_; /* warps that multiply: all */
    static constexpr int WTN = WTN_, NT = 32 * WM_ * WN_, MT = 2;
    static constexpr int MINB = NT == 256 ? 2 : 1;
    static constexpr int BM = 32 * WM_, BN = WTN * WN_, NTL = WTN / 8, VPT = BM * VPR / NT;
    static_assert(WTN % 16 == 0 && VPT >= 1 && VPT * NT == BM * VPR, "tile shape");
    /* The first pixel row and output channel of warp w's tile. */
    static __device__ int row0(int w) { return w / WN_ * 32; }
    static __device__ int col0(int w) { return w % WN_ * WTN; }
};
/* Block shapes, wgmma (sm_90a): GM x GN warp groups, each multiplies 64
 * pixels x WTN channels (accumulators WTN / 2 floats a thread, warp w % 4 of
 * the group owning rows 16 (w % 4) ..) straight from the shared tiles: no
 * ldmatrix, so the L1 pipe carries the corner loads and the stores, and
 * shared-memory reads per K step fall from BM BN (1/32 + 1/WTN) (mma.sync's
 * fragments) to GM GN (64 + WTN). NWG >= GM GN warp groups sample (the
 * ones past GM GN only sample). */
template <int GM_, int GN_, int WTN_, int NWG, int MINB_> struct wg_shape {
    static constexpr bool WG = true;
    static constexpr int NCW = 4 * GM_ * GN_;
    static constexpr int WTN = WTN_, NT = 128 * NWG, MT = 1, MINB = MINB_;
    static constexpr int BM = 64 * GM_, BN = WTN * GN_, NTL = WTN / 8, VPT = BM * VPR / NT;
    static_assert((WTN == 64 || WTN == 128 || WTN == 256) && NWG >= GM_ * GN_ && VPT >= 1 &&
                      VPT * NT == BM * VPR,
                  "tile shape");
    static __device__ int row0(int w) { return w / 4 / GN_ * 64 + w % 4 * 16; }
    static __device__ int col0(int w) { return w / 4 % GN_ * WTN; }
};
using shape_n64 = shape<2, 4, 16>;  /* 64 pixels x 64 channels */
using shape_n128 = shape<2, 4, 32>; /* 64 x 128 */
using shape_n256 = shape<1, 8, 32>; /* 32 x 256: accumulators 32 floats, as n128 */
/* 64 x 256 in 16 warps: each K tile's 32 KB of weights (read from L2) serves
 * 64 pixels, not 32 — at (8,256,64,64) that is 0.6 GB of L2 reads less. For
 * images with enough pixels to fill the SMs with 64-pixel blocks. */
using shape_n256w = shape<2, 8, 32>;
/* wgmma: 64 pixels x 64 channels, one warp group multiplying, a second one
 * sampling with it (2 vectors a thread, as mma.sync's 8 warps); 2 blocks an
 * SM. At (2,64,200,336) tf32: 228 us, against 328 for one block of 16 warps
 * (one group multiplying, three sampling). */
using wg_n64 = wg_shape<1, 1, 64, 2, 2>;
using wg_n128 = wg_shape<1, 2, 64, 2, 2>; /* 64 x 128: two groups share the A tile */
/* 128 x 256, one block of 8 warps an SM, 128 accumulators a thread (255
 * registers, 4 bytes spilled): each K tile's 32 KB of weights, read from
 * L2, serves 128 pixels. At (8,256,64,64) tf32: 294 us, against 350 for
 * 64 x 256 (two groups of 64 x 128) and 356 for that with two more groups
 * only sampling. */
using wg_n256 = wg_shape<2, 1, 256, 2, 1>;
constexpr int STAGES = 2; /* shared A/B buffers: one multiplied while the next is filled */

/* Tiles first, on a 1024-byte boundary (wgmma's 128-byte swizzle is a
 * function of the address bits 4-9, as is swz()), then the table. */
template <typename SH> constexpr size_t smem_bytes(int taps) {
    return 1024 + STAGES * (size_t)(SH::BM + SH::BN) * ROWB +
           (size_t)taps * SH::BM * (sizeof(float4) + sizeof(int));
}

/* The sm_90 shared-memory matrix descriptor of a K-major tile with 128-byte
 * rows and the 128-byte swizzle: start address, leading offset unused (1),
 * 1024 bytes from one 8-row group to the next, layout 1 = 128B swizzle.
 * A K step of 32 bytes adds 2 to it (the start address is in 16 bytes). */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint64_t wg_desc(uint32_t addr) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) |
           (1ull << 62);
}
#endif

/* The (tap, pixel) table of offset group og for pixels q0 .. q0+BM-1: thread
 * tid takes pixel tid % BM and taps tid / BM, + NT / BM, ..., so a pixel's
 * integer divisions run once per thread, not once per entry (dcn_build_table
 * spends three per entry). The caller brackets it with barriers. */
template <typename T, int BM, int NT>
__device__ void build_table(const dcn_dims &d, const dcn_ptrs<T> &p, int q0, int og, int *tb_base,
                            float4 *tb_wt) {
    const int r = threadIdx.x % BM, P = d.ho * d.wo;
    const dcn_pixel<T> px = dcn_pixel_at(d, p, q0 + r);
    const int oy = px.pix / d.wo, ox = px.pix - oy * d.wo;
    const T *off = px.off + og * 2 * d.taps * P + px.pix;
    const T *msk = d.mask ? px.mask + og * d.taps * P + px.pix : nullptr;
    for (int k = threadIdx.x / BM; k < d.taps; k += NT / BM) {
        int b = 0;
        float4 wt = make_float4(0.f, 0.f, 0.f, 0.f);
        if (px.pix >= 0)
            dcn_corner_weights(d, k, oy, ox, dcn_f32(off[2 * k * P]), dcn_f32(off[(2 * k + 1) * P]),
                               msk ? dcn_f32(msk[k * P]) : 1.f, &b, &wt);
        tb_base[k * BM + r] = b, tb_wt[k * BM + r] = wt;
    }
}

/* One tile's samples in flight: the 4 corner vectors and their weights. */
template <int VPT> struct corners {
    float4 wt[VPT];
    uint4 raw[VPT][4];
};

/* The fused kernel.
 * The input is transposed to NHWC and the weights to [c_out][tap][channel]
 * first (both timed; workspace = input + weight, so 1/taps of the columns
 * buffer: not an implicit variant under the 1% workspace rule). Then the GEMM
 * runs with the PIXELS as M (rows of A) and the output channels as N:
 *   A tile [BM pixels][BK channels of one tap]: sampled; a thread blends one
 *     16-byte channel vector (4 f32 / 8 f16) of a pixel from 4 corner loads
 *     and writes it with ONE 16-byte shared store (the nhwc_gemm variants
 *     wrote B tiles [k][pixel], one 2-byte store per channel);
 *   B tile [BN output channels][BK]: cp.async straight from the reordered
 *     weights, 16 bytes a thread, no index math beyond one multiply-add.
 * K order: chunks of BK channels outermost, the taps inside, so a chunk's 9
 * taps read the same few input rows while they sit in L1.
 * The (tap, pixel) table — top-left corner and the 4 mask-scaled weights —
 * is built once per block (per offset group) in shared memory, so the inner
 * loop never touches the offsets or the mask.
 * Both tiles have 128-byte rows (BK = 32 f32 / 64 f16 channels: a warp's
 * corner load reads 4 whole lines) and an XOR swizzle, chunk ^ (row % 8):
 * ldmatrix's 8 rows of one chunk and the sampler's quarter warp (one row, 8
 * chunks) both hit 8 distinct 16-byte bank groups, and it is wgmma's
 * 128-byte swizzle (the tiles start on 1024-byte boundaries). The tf32
 * fragments come through the same ldmatrix (a 32-bit element is a pair of
 * b16 columns).
 * Pipeline (2 buffers): tile t+1's corner loads and weight cp.async go out
 * before tile t's MMAs; its blend and shared stores come after them.
 */
template <typename T, typename SH>
__global__ void __launch_bounds__(SH::NT, SH::MINB)
    dcn_nhwc_fused(dcn_ptrs<T> p, const T *__restrict__ wr, dcn_dims d, int ctiles) {
    constexpr int BM = SH::BM, BN = SH::BN, VPT = SH::VPT, VW = 16 / (int)sizeof(T);
    constexpr int BK = ROWB / (int)sizeof(T); /* channels per K tile */
    constexpr int NT = SH::NT, RS = NT / VPR; /* RS: row step between a thread's rows */
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t s_raw = (uint32_t)__cvta_generic_to_shared(smem);
    const uint32_t s_a = (s_raw + 1023) & ~1023u;                          /* [STAGES][BM] rows */
    const uint32_t s_b = s_a + STAGES * BM * ROWB;                         /* [STAGES][BN] rows */
    float4 *tb_wt = (float4 *)(smem + (s_b + STAGES * BN * ROWB - s_raw)); /* [taps][BM] */
    int *tb_base = (int *)(tb_wt + d.taps * BM);

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int gc = blockIdx.x % (d.groups * ctiles), g = gc / ctiles, n0 = (gc % ctiles) * BN;
    const int q0 = (blockIdx.x / (d.groups * ctiles)) * BM;
    const int P = d.ho * d.wo, Q = d.n * P;

    /* The sampler: thread tid owns chunk tid % 8 of pixel rows tid / 8 + 32 j
     * (img: the pixel's image in NHWC; nullptr past the last pixel); a warp's
     * corner load reads 4 whole 128-byte lines. The same slots in B. */
    const int chunk = tid % VPR, prow = tid / VPR;
    const T *img[VPT];
#pragma unroll
    for (int j = 0; j < VPT; j++) {
        const int q = q0 + prow + j * RS;
        img[j] = q < Q ? p.in + (int64_t)(q / P) * d.c_in * d.h * d.w : nullptr;
    }
    const uint32_t slot = swz(prow, chunk); /* row prow + RS j: + RS j ROWB (RS % 8 == 0) */
    const int cstep = d.c_in / VW, rstep = d.w * cstep;

    const int ktiles = (d.cin_g + BK - 1) / BK * d.taps;
    int table_og = -1;
    bool in_table = false;
    /* Tile (chunk cc, tap k), issued in K order: corner loads into registers.
     * A new chunk (k = 0) re-checks its offset group against the table. */
    auto issue = [&](int cc, int k, corners<VPT> &cr) {
        const int cl = cc * BK + chunk * VW, ci = g * d.cin_g + cl;
        if (k == 0) {
            const int og0 = (g * d.cin_g + cc * BK) / d.cin_og;
            if (og0 != table_og) {
                __syncthreads(); /* nobody still reads the old table */
                build_table<T, BM, NT>(d, p, q0, og0, tb_base, tb_wt);
                table_og = og0;
                __syncthreads();
            }
            in_table = cl < d.cin_g && ci / d.cin_og == table_og;
        }
        const uint4 zero = make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int j = 0; j < VPT; j++) {
            const int r = prow + j * RS;
            int base = 0;
            float4 w = make_float4(0.f, 0.f, 0.f, 0.f);
            if (img[j] && cl < d.cin_g) {
                if (in_table) {
                    base = tb_base[k * BM + r], w = tb_wt[k * BM + r];
                } else { /* a chunk that spans offset groups: weights inline */
                    dcn_pixel<T> px = dcn_pixel_at(d, p, q0 + r);
                    dcn_tap_weights(d, px, ci / d.cin_og, k, &base, &w);
                }
            }
            const uint4 *s = (const uint4 *)(img[j] + (base * d.c_in + ci));
            cr.wt[j] = w;
            cr.raw[j][0] = w.x != 0.f ? __ldg(s) : zero;
            cr.raw[j][1] = w.y != 0.f ? __ldg(s + cstep) : zero;
            cr.raw[j][2] = w.z != 0.f ? __ldg(s + rstep) : zero;
            cr.raw[j][3] = w.w != 0.f ? __ldg(s + rstep + cstep) : zero;
        }
    };
    /* Blend a tile's corners into A buffer buf. */
    auto finish = [&](const corners<VPT> &cr, int buf) {
#pragma unroll
        for (int j = 0; j < VPT; j++) {
            uint4 u = blend<T>(cr.wt[j], cr.raw[j]);
            asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(
                             s_a + (buf * BM + j * RS) * ROWB + slot),
                         "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w));
        }
    };
    /* The weight tile of (cc, k) into B buffer buf: rows prow + 32 i. */
    const T *wg = wr + (int64_t)g * d.cout_g * d.kd;
    auto load_w = [&](int cc, int k, int buf) {
        const int cl = cc * BK + chunk * VW;
#pragma unroll
        for (int i = 0; i < BN / RS; i++) {
            const int co = n0 + prow + i * RS;
            const bool ok = co < d.cout_g && cl < d.cin_g;
            kb_cp_async16(
                s_b + (buf * BN + i * RS) * ROWB + slot,
                ok ? (const void *)(wg + (co * d.kd + k * d.cin_g + cl)) : (const void *)wr, ok);
        }
        kb_cp_async_commit();
    };
    int ic = 0, ik = 0; /* the next tile to issue */
    auto issue_next = [&](corners<VPT> &cr, int buf) {
        issue(ic, ik, cr);
        load_w(ic, ik, buf);
        if (++ik == d.taps) ik = 0, ++ic;
    };

    /* acc[(mt NTL + nt) 4 + e]: rows row0 + 16 mt + lane / 4 (+ 8 for e >= 2),
     * channels col0 + 8 nt + 2 (lane % 4) + e % 2; wgmma's d in its own order. */
    constexpr int NACC = SH::MT * SH::NTL * 4;
    float acc[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++) acc[i] = 0.f;
    const int row0 = SH::row0(warp), col0 = SH::col0(warp);
    /* The tiles of buffer buf into the accumulators: mma.sync, in step. */
    auto multiply = [&](int buf) {
#pragma unroll
        for (int s = 0; s < ROWB / 32; s++) { /* k-steps of 32 bytes: chunks 2s, 2s + 1 */
            uint32_t a[2][4];
#pragma unroll
            for (int mt = 0; mt < 2; mt++) {
                int r = row0 + mt * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
                ldmatrix_x4(a[mt], s_a + buf * BM * ROWB + swz(r, 2 * s + (lane >> 4)));
            }
#pragma unroll
            for (int np = 0; np < SH::NTL / 2; np++) {
                uint32_t b[4];
                int r = col0 + np * 16 + (lane & 7) + (lane >> 4) * 8;
                ldmatrix_x4(b, s_b + buf * BN * ROWB + swz(r, 2 * s + ((lane >> 3) & 1)));
#pragma unroll
                for (int mt = 0; mt < 2; mt++) {
                    kb_mma_sync<T>(&acc[(mt * SH::NTL + 2 * np) * 4], a[mt], b[0], b[1]);
                    kb_mma_sync<T>(&acc[(mt * SH::NTL + 2 * np + 1) * 4], a[mt], b[2], b[3]);
                }
            }
        }
    };
    /* wgmma: issued here, asynchronous; it runs while the warps blend the
     * next tile, and wg_wait() retires it before the barrier. */
    auto multiply_async = [&](int buf) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
        if constexpr (SH::WG) {
            if (warp >= SH::NCW) return;
            const uint64_t da = wg_desc(s_a + (buf * BM + row0 / 64 * 64) * ROWB);
            const uint64_t db = wg_desc(s_b + (buf * BN + col0) * ROWB);
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
            for (int s = 0; s < ROWB / 32; s++)
                wgmma_op<T, SH::WTN>::run(acc, da + 2 * s, db + 2 * s);
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        }
#else
        __trap();                       /* supports() keeps the wgmma shapes to sm_90a builds */
#endif
    };
    /* Retire the wgmma and make the next tile's shared stores (generic proxy)
     * visible to it (async proxy); the barrier that follows publishes them. */
    auto wg_wait = [&]() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
        if constexpr (SH::WG) {
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
            for (int i = 0; i < NACC; i++) asm volatile("" : "+f"(acc[i])::"memory");
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        }
#endif
    };

    /* Tile t: issue t + 1 (loads in flight across the multiply), multiply t,
     * blend t + 1. One set of corner registers: a deeper register pipeline
     * (two sets, three buffers) measured slower, its extra registers spilling
     * (docs/perf-deform_conv2d.md, "Tried and rejected: two register stages of
     * corners, three shared buffers"). */
    corners<VPT> cr;
    issue_next(cr, 0);
    finish(cr, 0);
    kb_cp_async_wait_group0();
    wg_wait();
    __syncthreads();
    for (int t = 0; t < ktiles; t++) {
        const bool more = t + 1 < ktiles;
        if (more) issue_next(cr, (t + 1) % STAGES);
        if constexpr (SH::WG)
            multiply_async(t % STAGES);
        else
            multiply(t % STAGES);
        if (more) finish(cr, (t + 1) % STAGES);
        kb_cp_async_wait_group0();
        wg_wait();
        __syncthreads();
    }

    /* The bias first, in registers: loads after output stores would be
     * re-issued (the compiler cannot rule out that they alias). */
    float bias[SH::NTL][2];
#pragma unroll
    for (int nt = 0; nt < SH::NTL; nt++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
            int co = n0 + col0 + nt * 8 + 2 * (lane % 4) + e;
            bias[nt][e] = d.bias && co < d.cout_g ? dcn_f32(p.b[g * d.cout_g + co]) : 0.f;
        }
    if (warp >= SH::NCW) return; /* a sampling-only warp group */
#pragma unroll
    for (int mt = 0; mt < SH::MT; mt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int q = q0 + row0 + mt * 16 + lane / 4 + 8 * h;
            if (q >= Q) continue;
            const int n = q / P, pix = q - n * P;
            T *out = p.out + (int64_t)n * d.c_out * P + pix;
#pragma unroll
            for (int nt = 0; nt < SH::NTL; nt++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    int co = n0 + col0 + nt * 8 + 2 * (lane % 4) + e;
                    if (co >= d.cout_g) continue;
                    co += g * d.cout_g;
                    float v = acc[(mt * SH::NTL + nt) * 4 + 2 * h + e] + bias[nt][e];
                    out[co * P] = dcn_from_f32<T>(v);
                }
        }
}

/* ---- warp-specialized wgmma: nhwc_ws_* (sm_90a) ----
 *
 * The in-step kernel above runs the corner loads, blend, shared store,
 * barrier and wgmma drain of each tile one after another in one block of 8
 * warps an SM, so its warps wait on each other (issue IPC 1.55, 0.48
 * eligible warps a scheduler at (8,256,64,64)). Here the roles split:
 *   consumer warp groups (CW, first): wait until a ring slot is full, issue
 *     its wgmmas, and free the slot before once wgmma.wait_group 1 says its
 *     multiply is done;
 *   producer warp groups (PW, after them): wait until a slot is empty, sample
 *     its A tile (table -> 4 corner loads -> blend -> one 16-byte store a
 *     vector, VB vectors in flight a thread), fence the stores to the async
 *     proxy and arrive; one producer thread also starts the slot's B tile as
 *     ONE bulk copy (cp.async.bulk, mbarrier transaction count) from weights
 *     stored pre-swizzled in tile order (ws_prep), so no producer spends
 *     instructions on them.
 *   a table builder warp group (TB, last; 128 x 64 only): builds each
 *     tile's (tap, pixel) table into one of two buffers while the producers
 *     sample from the other, so the build leaves the producers' stream
 *     (elsewhere the producers build it between tiles).
 * A ring of S slots with a full and an empty mbarrier each: no block-wide
 * barrier in the K loop, and the producers run up to S tiles ahead.
 * Split K, for layers with too few output tiles to fill the SMs
 * (dcn_ws_plan.h): KS blocks an output tile (gridDim.y), each a contiguous
 * range of its K tiles, or, where that leaves SMs idle (STREAM), one block
 * an SM, each an equal run of all the tiles' K tiles in a row: one or two
 * (tile, K range) pieces. A block stores each piece's fp32 partials; the
 * last block of an output tile to finish sums them in split order
 * (deterministic) and writes the output. */
template <int CW_, int MW_, int BN_, int PW_, int S_, int VB_, bool SPLIT_, bool PF_, int TB_ = 0,
          int NA_ = 1>
struct ws_shape {
    static constexpr int CW = CW_, MW = MW_, BN = BN_, PW = PW_, S = S_, VB = VB_;
    /* NA: parts a tile is stored in: 1, or 2 for 3xTF32 (f32 data as a
     * tf32 part and a tf32 rest, kb_tf32_split; nhwc_ws_3xtf32): every A
     * and B tile twice over, three wgmmas a K step. */
    static constexpr int NA = NA_;
    static constexpr bool SPLIT = SPLIT_; /* has the split-K epilogue */
    static constexpr bool PF = PF_;       /* prefetches the next tile's table inputs */
    /* TB: a warp group that builds the tables into two buffers (else the
     * producers build them, into one). */
    static constexpr int TB = TB_, TABLES = TB ? 2 : 1;
    /* RECT: takes pixel rectangles where they apply (ws_tiling); the shapes
     * whose producers build no table (the builder's), or whose 168
     * registers leave room (128 x 256). */
    static constexpr bool RECT = TB || BN == 256;
    static constexpr int BM = 64 * MW * CW, NT = 128 * (CW + PW + TB), NPT = 128 * PW;
    static constexpr int VPT = BM * VPR / NPT; /* vectors a producer thread a tile */
    static_assert((BN == 64 || BN == 128 || BN == 256) && VPT * NPT == BM * VPR && VPT % VB == 0 &&
                      (TB == 0 || (TB == 1 && !PF)) && (NA == 1 || NA == 2),
                  "ws tile shape");
};
/* ptxas allocates the whole kernel within the launch bound's registers
 * (65536 / NT), setmaxnreg or not: a consumer group of 64 x 256 (128
 * accumulators) needs more than 128, so that shape runs 3 warp groups (168
 * registers) and has one producer group.
 * 128 pixels x 256 channels: two consumer groups of 64 x 256; no split K
 * (its epilogue would spill): the shape of many pixels. Its one producer
 * group has all 8 vectors of a thread's tile in flight at once (VB 8, 32
 * corner loads; the weights wait in the table, not in registers). */
using ws_n256 = ws_shape<2, 1, 256, 1, 3, 8, false, false>;
/* 128 x 128: two consumer groups of 64 x 128, two producer groups; also the
 * split-K shape past 128 channels, where twice the producers outrun
 * sampling each pixel once per 256 channels (perf notes). No prefetch: its
 * code alone, never run where a block has one tile, made the tf32 kernel
 * 7-9% slower. */
using ws_n128 = ws_shape<2, 1, 128, 2, 3, 4, true, false>;
/* 128 x 64: one consumer group multiplies both 64-row halves; two producer
 * groups. ws_n64b, where two tables fit shared memory (up to 13 taps on
 * 227 KiB): a table builder group (512 threads: 128 registers, no spill)
 * and 5 ring slots; no prefetch (beside the builder it cost tf32 7-11% at
 * (2,64,200,336), perf notes). ws_n64 otherwise: the producers build one
 * table between tiles and prefetch the next one's inputs to L2 (5% off
 * tf32 there before the builder). */
using ws_n64 = ws_shape<1, 2, 64, 2, 4, 4, true, true>;
using ws_n64b = ws_shape<1, 2, 64, 2, 5, 4, true, false, 1>;
/* 3xTF32: the same roles with every tile in two parts, so a ring slot
 * takes twice the bytes and the rings shrink to what 227 KiB holds at 9
 * taps: 128 x 128 at 2 slots (3 would need 229 KiB), 128 x 64 with the
 * builder at 3; no 128 x 256 (its 3 slots alone would be 288 KiB). Past
 * the taps whose tables those hold (24 and 10), 128 x 64 at 2 slots
 * without the builder, at any c_out (up to 32 taps). */
using wsx_n64 = ws_shape<1, 2, 64, 2, 2, 4, true, true, 0, 2>;
using wsx_n64b = ws_shape<1, 2, 64, 2, 3, 4, true, false, 1, 2>;
using wsx_n128 = ws_shape<2, 1, 128, 2, 2, 4, true, false, 0, 2>;

/* Bytes of a (tap, pixel) table: 4 weights and 4 corner offsets an entry. */
template <typename SH> constexpr size_t ws_table_bytes(int taps) {
    return (size_t)taps * SH::BM * (sizeof(float4) + sizeof(int4));
}
/* Bytes of shared memory: the ring on a 1024-byte boundary, 2 S mbarriers
 * (with a builder group, 4 more: a full and an empty one a table), then
 * the tables. */
template <typename SH> constexpr size_t ws_smem_bytes(int taps) {
    return 1024 + SH::S * (size_t)(SH::BM + SH::BN) * ROWB * SH::NA + 16 * SH::S +
           (SH::TB ? 32 : 0) + SH::TABLES * ws_table_bytes<SH>(taps);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}
/* Until the barrier's phase of the given parity has completed. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n\t.reg .pred done;\n"
                 "WAIT:\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT;\n}" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
/* bytes from global src to shared dst; their arrival completes on bar. */
__device__ __forceinline__ void bulk_to_shared(uint32_t dst, const void *src, uint32_t bytes,
                                               uint32_t bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(dst),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
}
/* The producers' own barrier (id 1; __syncthreads is 0). */
template <int N> __device__ __forceinline__ void producers_sync() {
    asm volatile("bar.sync 1, %0;" ::"n"(N) : "memory");
}
#endif

/* The R at element offset o (>= 0) from src (a vector by default), o
 * zero-extended by mad.wide.u32: no sign extension in the address, where a
 * signed int offset takes a sign-extending LEA.HI.X (4 corners a vector: a
 * sixth of the sampler's instructions). */
template <typename T, typename R = uint4>
__device__ __forceinline__ const R *at_offset(const T *src, unsigned o) {
    const R *a;
    asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(a) : "r"(o), "r"((int)sizeof(T)), "l"(src));
    return a;
}

/* One blended vector into its A tile slot (a shared address). Unused where
 * the ws kernels compile to a trap (builds without sm_90a). */
[[maybe_unused]] __device__ __forceinline__ void ws_store_a(uint32_t addr, uint4 u) {
    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(u.x), "r"(u.y), "r"(u.z),
                 "r"(u.w));
}

/* The pixel tiles of the ws kernel's RECT shapes (dcn_ws_plan.h): 2^lg
 * columns a tile (lg 7: BM consecutive pixels), and each tile's first
 * pixel and extent, listed at setup (kb_dcn_ws_tile_list), so no role divides to
 * find them. The other shapes, and the inline sampler (chunks across
 * offset groups: rectangles are given to one offset group only), take BM
 * consecutive pixels from q0 = pixel tile x BM. */
struct ws_tiling {
    const int2 *tiles;
    int lg;
};
/* Row r of pixel tile pt (column r % 2^lg, row r >> lg): its pixel q, and
 * whether it is one (live). */
__device__ __forceinline__ int ws_row_pixel(const dcn_dims &d, ws_tiling tl, int pt, int r,
                                            bool *live) {
    const int2 t = __ldg(tl.tiles + pt); /* first pixel, columns | rows << 16 */
    int in;
    const int q = kb_dcn_ws_row_pixel(t.x, t.y, tl.lg, d.wo, r, &in);
    *live = in;
    return q;
}

/* The (tap, pixel) table of the ws kernel, built by its NPT producer
 * threads (ptid): per (tap k, row r) the 4 mask-scaled weights and the 4
 * corners' element offsets in the NHWC input, image included (the input and
 * a row past it are < 2^31 elements: supports() checks). A corner of weight
 * 0 (outside, masked, or a row past the last pixel) points at the zero row
 * after the input (c_in zeros): the sampler loads all 4 corners without a
 * test or a select. Thread ptid fills row ptid % BM at taps ptid / BM, + KS,
 * ...; its offset/mask loads, 3 per tap, all go out before the first is
 * used. The build is serial with the producers' sampling, so it counts its
 * instructions: the offset and mask loads at 32-bit offsets within the
 * pixel's image (dcn_implicit_limits checks), and the tap's row and column
 * stepped along with k in place of a division by kw per entry. FIRST (the
 * builder group): the offsets and mask, read once, loaded evict_first in
 * L2, so they do not push out the NHWC input. */
template <typename T, int BM, int NPT, bool FIRST = false, bool TILED = false>
__device__ void ws_build_table(const dcn_dims &d, const dcn_ptrs<T> &p, int q0, ws_tiling tl,
                               int og, int ptid, int4 *tb_off, float4 *tb_wt) {
    constexpr int KS = NPT / BM, KB = 9; /* KB: taps whose loads go out together */
    const uint64_t pol = FIRST ? dcn_l2_policy<dcn_evict::first>() : 0;
    auto load = [&](const T *a) { return dcn_ld_policy<FIRST>(a, pol); };
    const int r = ptid % BM, k0 = ptid / BM, P = d.ho * d.wo;
    const int zrow = d.n * d.h * d.w * d.c_in, cw = d.w * d.c_in;
    bool live;
    int q;
    if constexpr (TILED) /* q0: the pixel tile */
        q = ws_row_pixel(d, tl, q0 / BM, r, &live);
    else
        q = q0 + r, live = q < d.n * P;
    const int n = live ? q / P : 0, pix = q - n * P, oy = pix / d.wo, ox = pix - oy * d.wo;
    const int img = n * d.h * d.w;
    const T *off = p.off + (int64_t)n * 2 * d.og * d.taps * P;
    const bool has_mask = d.mask != 0;
    const T *msk = has_mask ? p.mask + (int64_t)n * d.og * d.taps * P : nullptr;
    unsigned ooff = (og * 2 * d.taps + 2 * k0) * P + pix, omsk = (og * d.taps + k0) * P + pix;
    /* Tap k's column kj and its unpadded input row and column (yi, xi); a
     * row past the last pixel samples far above the image (all weights 0). */
    const int x0 = ox * d.sw - d.pw;
    int kj = 0, yi = live ? oy * d.sh - d.ph : INT_MIN / 2, xi = x0;
    auto next_tap = [&]() {
        if (++kj == d.kw)
            kj = 0, xi = x0, yi += d.dh;
        else
            xi += d.dw;
    };
#pragma unroll
    for (int s = 0; s < KS - 1; s++)
        if (s < k0) next_tap(); /* to tap k0 < KS */
    int e = k0 * BM + r;
    for (int k = k0; k < d.taps; k += KB * KS) {
        float dy[KB], dx[KB], m[KB];
#pragma unroll
        for (int i = 0; i < KB; i++) {
            dy[i] = dx[i] = 0.f, m[i] = 1.f;
            if (live && k + i * KS < d.taps) {
                dy[i] = dcn_f32(load(at_offset<T, T>(off, ooff)));
                dx[i] = dcn_f32(load(at_offset<T, T>(off, ooff + P)));
                if (has_mask) m[i] = dcn_f32(load(at_offset<T, T>(msk, omsk)));
            }
            ooff += 2 * KS * P, omsk += KS * P;
        }
#pragma unroll
        for (int i = 0; i < KB; i++) {
            if (k + i * KS >= d.taps) break;
            int b;
            float4 wt; /* at the point dcn_tap_point gives, its int part stepped */
            dcn_point_weights(d, (float)yi + dy[i], (float)xi + dx[i], m[i], &b, &wt);
            const int c0 = (img + b) * d.c_in;
            tb_off[e] =
                make_int4(wt.x != 0.f ? c0 : zrow, wt.y != 0.f ? c0 + d.c_in : zrow,
                          wt.z != 0.f ? c0 + cw : zrow, wt.w != 0.f ? c0 + cw + d.c_in : zrow);
            tb_wt[e] = packed_weights<T>(wt);
            e += KS * BM;
#pragma unroll
            for (int s = 0; s < KS; s++) next_tap();
        }
    }
}

/* The offsets and mask a later ws_build_table(d, p, q0, og, ptid, ...)
 * will load, requested into L2 now (prefetch.global.L2: no registers held,
 * nothing waits on them), so that build does not wait on DRAM. Thread ptid:
 * the row and taps ws_build_table gives it. */
template <typename T, int BM, int NPT>
__device__ __forceinline__ void ws_prefetch_table(const dcn_dims &d, const dcn_ptrs<T> &p, int q0,
                                                  int og, int ptid) {
    constexpr int KS = NPT / BM;
    const int P = d.ho * d.wo, q = q0 + ptid % BM;
    if (q >= d.n * P) return;
    const int n = q / P, pix = q - n * P;
    const T *off = p.off + (int64_t)n * 2 * d.og * d.taps * P;
    const T *msk = d.mask ? p.mask + (int64_t)n * d.og * d.taps * P : nullptr;
    for (int k = ptid / BM; k < d.taps; k += KS) {
        const unsigned o = (og * 2 * d.taps + 2 * k) * P + pix;
        asm volatile("prefetch.global.L2 [%0];" ::"l"(at_offset<T, T>(off, o)));
        asm volatile("prefetch.global.L2 [%0];" ::"l"(at_offset<T, T>(off, o + P)));
        if (msk)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(
                at_offset<T, T>(msk, (og * d.taps + k) * P + pix)));
    }
}

/* One blended vector into its A tile slot at addr: as blend() rounds it,
 * or (NA 2) its fp32 value as a tf32 part there and the tf32 rest in the
 * same row of the slot's second part, BM rows on. */
template <typename T, typename SH, bool PACKED>
__device__ __forceinline__ void ws_put_a(uint32_t addr, float4 wt, const uint4 (&raw)[4]) {
    if constexpr (SH::NA == 2) {
        float v[4];
        blend_f32<T>(wt, raw, v);
        uint4 hi, lo;
        kb_tf32_split(v[0], &hi.x, &lo.x);
        kb_tf32_split(v[1], &hi.y, &lo.y);
        kb_tf32_split(v[2], &hi.z, &lo.z);
        kb_tf32_split(v[3], &hi.w, &lo.w);
        ws_store_a(addr, hi);
        ws_store_a(addr + SH::BM * ROWB, lo);
    } else {
        ws_store_a(addr, blend<T, PACKED>(wt, raw));
    }
}

/* One producer thread's VPT vectors of A for K tile (tap k, channel ci of
 * chunk offset cl) into the ring slot's rows at s_row: from the table
 * (in_table), else inline (a chunk across offset groups). */
template <typename T, typename SH>
__device__ __forceinline__ void ws_sample_a(const dcn_dims &d, const dcn_ptrs<T> &p, int q0, int k,
                                            int ci, int cl, bool in_table, int prow, int cstep,
                                            int rstep, const int4 *tb_off, const float4 *tb_wt,
                                            uint32_t s_row) {
    constexpr int BM = SH::BM, VB = SH::VB, RS = SH::NPT / VPR;
    if (in_table) { /* every corner loaded: zeros where its weight is 0 */
        const T *src = p.in + ci;
#pragma unroll 1
        for (int j0 = 0; j0 < SH::VPT; j0 += VB) {
            /* All VB vectors' corners in flight. Up to 4 vectors the weights
             * are read with the offsets, ahead of the loads; past 4 (VB 8: 128
             * registers of corners) they are read from the table at the
             * blend, so they hold no registers across the loads' latency. */
            constexpr bool WT_EARLY = VB <= 4;
            const int e0 = k * BM + prow + j0 * RS;
            uint4 raw[VB][4];
            float4 w[WT_EARLY ? VB : 1];
#pragma unroll
            for (int j = 0; j < VB; j++) {
                const int4 o = tb_off[e0 + j * RS];
                if constexpr (WT_EARLY) w[j] = tb_wt[e0 + j * RS];
                raw[j][0] = __ldg(at_offset<T>(src, o.x));
                raw[j][1] = __ldg(at_offset<T>(src, o.y));
                raw[j][2] = __ldg(at_offset<T>(src, o.z));
                raw[j][3] = __ldg(at_offset<T>(src, o.w));
            }
#pragma unroll
            for (int j = 0; j < VB; j++)
                ws_put_a<T, SH, true>(s_row + (j0 + j) * RS * ROWB,
                                      WT_EARLY ? w[j] : tb_wt[e0 + j * RS], raw[j]);
        }
    } else { /* a chunk across offset groups: inline, 4 vectors at a time */
        constexpr int VI = VB < 4 ? VB : 4;
        const uint4 zero = make_uint4(0, 0, 0, 0);
#pragma unroll 1
        for (int j0 = 0; j0 < SH::VPT; j0 += VI) {
            float4 w[VI];
            uint4 raw[VI][4];
#pragma unroll
            for (int j = 0; j < VI; j++) {
                const int r = prow + (j0 + j) * RS;
                const T *src = p.in;
                w[j] = make_float4(0.f, 0.f, 0.f, 0.f);
                if (cl < d.cin_g) {
                    const dcn_pixel<T> px = dcn_pixel_at(d, p, q0 + r);
                    int base = 0;
                    if (px.pix >= 0) {
                        dcn_tap_weights(d, px, ci / d.cin_og, k, &base, &w[j]);
                        src = px.in + (base * d.c_in + ci);
                    }
                }
                const uint4 *v = (const uint4 *)src;
                raw[j][0] = w[j].x != 0.f ? __ldg(v) : zero;
                raw[j][1] = w[j].y != 0.f ? __ldg(v + cstep) : zero;
                raw[j][2] = w[j].z != 0.f ? __ldg(v + rstep) : zero;
                raw[j][3] = w[j].w != 0.f ? __ldg(v + rstep + cstep) : zero;
            }
#pragma unroll
            for (int j = 0; j < VI; j++)
                ws_put_a<T, SH, false>(s_row + (j0 + j) * RS * ROWB, w[j], raw[j]);
        }
    }
}

/* The first input channel of chunk cc in weight group g. A K tile of the
 * chunk samples from the table of that channel's offset group: a new table
 * starts at a tile and at each chunk whose first channel is in another
 * offset group. The builder group and the producers both walk the chunks
 * by it, so they agree on the sequence of tables. */
template <typename T> __device__ __forceinline__ int ws_chunk_c0(const dcn_dims &d, int g, int cc) {
    return g * d.cin_g + cc * (ROWB / (int)sizeof(T));
}

/* A block's pieces, output tile `tile`, K tiles [t0, t1): every grid-th
 * tile over the block's K range; STREAM, the block's run of the steps
 * (tiles x K tiles in a row) cut at the tiles' ends, only the piece as
 * state (kb_dcn_ws_first_piece, kb_dcn_ws_next_piece). */
template <bool STREAM> struct ws_walk {
    int tile;
    const int t0, t1;
    __device__ ws_walk(int, int, int t0_, int t1_) : tile(blockIdx.x), t0(t0_), t1(t1_) {}
    __device__ bool more(int ntiles) const { return tile < ntiles; }
    __device__ void next(int, int) { tile += gridDim.x; }
};
template <> struct ws_walk<true> {
    int tile, t0, t1;
    __device__ ws_walk(int ntiles, int ktiles, int, int) {
        tile = kb_dcn_ws_first_piece(blockIdx.x, ntiles, ktiles, gridDim.x, &t0, &t1);
    }
    __device__ bool more(int ntiles) const { return tile < ntiles; }
    __device__ void next(int ntiles, int ktiles) {
        tile = kb_dcn_ws_next_piece(blockIdx.x, tile, ntiles, ktiles, gridDim.x, &t0, &t1);
    }
};

template <typename T, typename SH, bool STREAM = false>
__global__ void __launch_bounds__(SH::NT, 1)
    dcn_nhwc_ws(dcn_ptrs<T> p, const T *__restrict__ wsw, float *__restrict__ part,
                unsigned *__restrict__ arrived, dcn_dims d, ws_tiling tl, int ctiles, int ntiles) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int BM = SH::BM, BN = SH::BN, S = SH::S, VW = 16 / (int)sizeof(T);
    constexpr int BK = ROWB / (int)sizeof(T), NPT = SH::NPT, NA = SH::NA;
    /* Bytes of a slot's B tile and A tile (NA parts each, part after part). */
    constexpr uint32_t BBYTES = BN * ROWB, BSLOT = NA * BBYTES, ASLOT = NA * BM * ROWB;
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t s_raw = (uint32_t)__cvta_generic_to_shared(smem);
    const uint32_t s_a = (s_raw + 1023) & ~1023u; /* [S][NA][BM] rows */
    const uint32_t s_b = s_a + S * ASLOT;         /* [S][NA][BN] rows */
    const uint32_t full = s_b + S * BSLOT;        /* S mbarriers, then S empty ones */
    const uint32_t empty = full + 8 * S;
    const uint32_t tfull = empty + 8 * S, tempty = tfull + 16; /* builder group: 2 each */
    /* Table b: [taps][BM] weights, then [taps][BM] corner offsets. */
    unsigned char *tables = smem + (tfull + (SH::TB ? 32 : 0) - s_raw);
    const size_t tbytes = ws_table_bytes<SH>(d.taps);
    auto table_wt = [&](int b) { return (float4 *)(tables + b * tbytes); };
    auto table_off = [&](int b) { return (int4 *)(table_wt(b) + d.taps * BM); };

    /* Output tile `tile`: channel tile gc % ctiles of group gc / ctiles,
     * pixels from q0. A block takes tiles blockIdx.x, + gridDim.x, ...: one
     * block an SM when K is not split, the ring running on from one tile to
     * the next, so the next tile's table and first samples overlap this
     * tile's last multiplies and its epilogue. Split K: a block a tile, or
     * STREAM, the block's one or two pieces (ws_walk). */
    const int gtiles = d.groups * ctiles;
    const int P = d.ho * d.wo, Q = d.n * P;
    const int cchunks = (d.cin_g + BK - 1) / BK, ktiles = cchunks * d.taps;
    const int t0 = (int)((int64_t)blockIdx.y * ktiles / gridDim.y);
    const int t1 = (int)((int64_t)(blockIdx.y + 1) * ktiles / gridDim.y);

    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++)
            mbar_init(full + 8 * s, NPT + 1), mbar_init(empty + 8 * s, 4 * SH::CW);
        if (SH::TB)
            for (int b = 0; b < 2; b++)
                mbar_init(tfull + 8 * b, 128), mbar_init(tempty + 8 * b, NPT);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (SH::TB && threadIdx.x >= 128 * (SH::CW + SH::PW)) { /* ---- table builder ---- */
        /* The producers' tables in the order they take them: one at each of
         * the block's tiles and one at each chunk whose channels start a new
         * offset group. A table is built into buffer u % 2 once the
         * producers are done with table u - 2, and published by its full
         * barrier: the build runs beside the sampling, not before it. */
        const int btid = threadIdx.x - 128 * (SH::CW + SH::PW);
        int u = 0; /* tables built */
        for (ws_walk<STREAM> wk(ntiles, ktiles, t0, t1); wk.more(ntiles); wk.next(ntiles, ktiles)) {
            const int tile = wk.tile, g = tile % gtiles / ctiles, q0 = tile / gtiles * BM;
            int og = -1;
            for (int cc = wk.t0 / d.taps; cc * d.taps < wk.t1; cc++) {
                const int og0 = ws_chunk_c0<T>(d, g, cc) / d.cin_og;
                if (og0 == og) continue;
                const int b = u & 1;
                if (u >= 2) mbar_wait(tempty + 8 * b, ((u >> 1) + 1) & 1);
                ws_build_table<T, BM, 128, true, true>(d, p, q0, tl, og = og0, btid, table_off(b),
                                                       table_wt(b));
                mbar_arrive(tfull + 8 * b);
                u++;
            }
        }
        return;
    }
    if (threadIdx.x >= 128 * SH::CW) { /* ---- producers ---- */
        const int ptid = threadIdx.x - 128 * SH::CW, chunk = ptid % VPR, prow = ptid / VPR;
        const uint32_t slot = swz(prow, chunk);
        const int cstep = d.c_in / VW, rstep = d.w * cstep;
        /* The ring's slot s and its use (ring steps so far: use S + s), and
         * the K tile's channel chunk cc and tap k (t = cc taps + k): stepped
         * along with t, where dividing t by taps each K step (a runtime
         * division) costs the producers as much issue as a vector's blend. */
        int s = 0, use = 0;
        /* The table in use; with a builder group, the next one taken from it
         * (u: tables taken) once this one is released. */
        int4 *tb_off = table_off(0);
        float4 *tb_wt = table_wt(0);
        int u = 0;
        auto take_table = [&]() {
            if (u > 0) mbar_arrive(tempty + 8 * ((u - 1) & 1));
            const int b = u & 1;
            mbar_wait(tfull + 8 * b, (u >> 1) & 1);
            tb_off = table_off(b), tb_wt = table_wt(b);
            u++;
        };
        for (ws_walk<STREAM> wk(ntiles, ktiles, t0, t1); wk.more(ntiles); wk.next(ntiles, ktiles)) {
            const int tile = wk.tile, t0 = wk.t0, t1 = wk.t1;
            const int cc0 = t0 / d.taps, k0 = t0 - cc0 * d.taps;
            /* The block's first piece (STREAM: no ring step yet, one register
             * less than a flag). */
            const bool first = STREAM ? s == 0 && use == 0 : tile == (int)blockIdx.x;
            const int gc = tile % gtiles, g = gc / ctiles, q0 = tile / gtiles * BM;
            const T *wsrc = wsw + ((int64_t)gc * ktiles) * (BSLOT / sizeof(T));
            /* The block's first table (offsets and mask: inputs) before waiting
             * for ws_prep's NHWC input and weights (t0 < t1: plan); a later
             * one once every producer is done with the last. */
            const int table_og = ws_chunk_c0<T>(d, g, cc0) / d.cin_og;
            /* Input channels [tlo, thi): the table's offset group. */
            int tlo = table_og * d.cin_og, thi = tlo + d.cin_og;
            bool in_table = false;
            if constexpr (SH::TB) {
                take_table();
            } else {
                if (!first) producers_sync<NPT>();
                ws_build_table<T, BM, NPT, false, SH::RECT>(d, p, q0, tl, table_og, ptid, tb_off,
                                                            tb_wt);
                producers_sync<NPT>();
            }
            if (first) asm volatile("griddepcontrol.wait;" ::: "memory");
            /* The next piece's table inputs toward L2 (shapes with PF). */
            if (SH::PF) {
                ws_walk<STREAM> nx = wk;
                nx.next(ntiles, ktiles);
                if (nx.more(ntiles)) {
                    const int ngc = nx.tile % gtiles, ncc = nx.t0 / d.taps;
                    ws_prefetch_table<T, BM, NPT>(d, p, nx.tile / gtiles * BM,
                                                  ws_chunk_c0<T>(d, ngc / ctiles, ncc) / d.cin_og,
                                                  ptid);
                }
            }
            int cc = cc0, k = k0;
            for (int t = t0; t < t1; t++) {
                const int cl = cc * BK + chunk * VW, ci = g * d.cin_g + cl;
                if (k == 0 || t == t0) { /* a new chunk: its first channel's group */
                    if (const int c0 = ws_chunk_c0<T>(d, g, cc); c0 < tlo || c0 >= thi) {
                        const int og0 = c0 / d.cin_og;
                        if constexpr (SH::TB) {
                            take_table();
                        } else {
                            producers_sync<NPT>(); /* nobody still reads the old table */
                            ws_build_table<T, BM, NPT, false, SH::RECT>(d, p, q0, tl, og0, ptid,
                                                                        tb_off, tb_wt);
                            producers_sync<NPT>();
                        }
                        tlo = og0 * d.cin_og, thi = tlo + d.cin_og;
                    }
                    in_table = cl < d.cin_g && ci >= tlo && ci < thi;
                }
                if (use > 0) mbar_wait(empty + 8 * s, (use + 1) & 1);
                if (ptid == 0) {
                    mbar_arrive_tx(full + 8 * s, BSLOT);
                    bulk_to_shared(s_b + s * BSLOT, wsrc + (int64_t)t * (BSLOT / sizeof(T)), BSLOT,
                                   full + 8 * s);
                }
                ws_sample_a<T, SH>(d, p, q0, k, ci, cl, in_table, prow, cstep, rstep, tb_off, tb_wt,
                                   s_a + s * ASLOT + slot);
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                mbar_arrive(full + 8 * s);
                if (++s == S) s = 0, use++;
                if (++k == d.taps) k = 0, cc++;
            }
        }
        return;
    }

    /* ---- consumers ---- */
    const int cw = threadIdx.x / 128, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int NACC = BN / 2, NV = SH::MW * NACC / 4; /* NV: float4s of accumulators */
    float acc[SH::MW][NACC];
    int step = 0; /* ring steps so far, as the producers count them */
    /* One tile's K range into acc. No zeroing: the first K step overwrites
     * (scale-d 0), so no other instruction defines the accumulators while
     * wgmmas are in flight (ptxas would serialize them). Every slot is
     * freed once its multiply is done, the last one after the drain.
     * NA 2 (3xTF32): the tensor cores' fp32 accumulation loses more than
     * fp32 adds do, so one chain over all of K drifts (rel-L2 1.4e-5 at K =
     * 2304, 864 wgmmas a chain: past the f32 bound): each K tile's three
     * products of 64 channels go into a fresh accumulator (a chain of 12
     * wgmmas), added to acc (zeroed: no wgmma writes it) by fp32 adds once
     * it is done (a select of the first K tile instead spilled). */
    auto multiply = [&](int t0, int t1) {
        if constexpr (NA == 2)
#pragma unroll
            for (int m = 0; m < SH::MW; m++)
#pragma unroll
                for (int i = 0; i < NACC; i++) acc[m][i] = 0.f;
        for (int t = t0; t < t1; t++, step++) {
            const int s = step % S;
            mbar_wait(full + 8 * s, (step / S) & 1);
            const uint32_t b = s_b + s * BSLOT;
            if constexpr (NA == 2) {
#pragma unroll
                for (int m = 0; m < SH::MW; m++) {
                    const uint32_t a = s_a + s * ASLOT + (cw * SH::MW + m) * 64 * ROWB;
                    const uint64_t da = wg_desc(a), da_lo = wg_desc(a + BM * ROWB);
#pragma unroll
                    for (int h = 0; h < BN / 64; h++) {
                        const uint64_t db = wg_desc(b + h * 64 * ROWB);
                        const uint64_t db_lo = wg_desc(b + BBYTES + h * 64 * ROWB);
                        float part[32];
                        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
                        for (int ks = 0; ks < ROWB / 32; ks++) { /* the small products first */
                            wgmma_op<T, 64>::run(part, da_lo + 2 * ks, db + 2 * ks, ks > 0);
                            wgmma_op<T, 64>::run(part, da + 2 * ks, db_lo + 2 * ks);
                            wgmma_op<T, 64>::run(part, da + 2 * ks, db + 2 * ks);
                        }
                        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
                        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
                        for (int i = 0; i < 32; i++) acc[m][32 * h + i] += part[i];
                    }
                }
                if (lane == 0) mbar_arrive(empty + 8 * s);
            } else {
                asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
                const uint64_t db = wg_desc(b);
#pragma unroll
                for (int m = 0; m < SH::MW; m++) {
                    const uint64_t da = wg_desc(s_a + s * ASLOT + (cw * SH::MW + m) * 64 * ROWB);
#pragma unroll
                    for (int ks = 0; ks < ROWB / 32; ks++)
                        wgmma_op<T, BN>::run(acc[m], da + 2 * ks, db + 2 * ks, t > t0 || ks > 0);
                }
                asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
                asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
                if (t > t0 && lane == 0) mbar_arrive(empty + 8 * ((step - 1) % S));
            }
        }
        if constexpr (NA == 1) {
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (lane == 0) mbar_arrive(empty + 8 * ((step - 1) % S));
        }
#pragma unroll
        for (int m = 0; m < SH::MW; m++)
#pragma unroll
            for (int i = 0; i < NACC; i++) asm volatile("" : "+f"(acc[m][i])::"memory");
    };
    /* acc[m][nt 4 + 2 h + e]: pixel row (cw MW + m) 64 + 16 (warp % 4) +
     * lane / 4 + 8 h, channel n0 + 8 nt + 2 (lane % 4) + e of group g.
     * orow: the output at channel 0 of each of the thread's rows (nullptr
     * past the last pixel); set_tile() points them at a tile. */
    T *orow[SH::MW][2];
    int g = 0, n0 = 0;
    bool whole = false; /* every row a pixel, every channel < cout_g */
    auto set_tile = [&](int tile) {
        const int gc = tile % gtiles, q0 = tile / gtiles * BM;
        g = gc / ctiles, n0 = (gc % ctiles) * BN;
        if constexpr (SH::RECT) {
            const int2 t = __ldg(tl.tiles + tile / gtiles);
            whole = (t.y & 0xffff) * (t.y >> 16) == BM && n0 + BN <= d.cout_g;
        } else {
            whole = q0 + BM <= Q && n0 + BN <= d.cout_g;
        }
#pragma unroll
        for (int m = 0; m < SH::MW; m++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = (cw * SH::MW + m) * 64 + (warp % 4) * 16 + lane / 4 + 8 * h;
                bool live;
                int q;
                if constexpr (SH::RECT)
                    q = ws_row_pixel(d, tl, tile / gtiles, r, &live);
                else
                    q = q0 + r, live = q < Q;
                const int n = q / P;
                orow[m][h] = live ? p.out + (int64_t)n * d.c_out * P + (q - n * P) : nullptr;
            }
    };
    /* acc[m][4 nt .. 4 nt + 3]: channels co, co + 1 of rows h = 0, 1. */
    auto emit = [&](int m, int nt, float4 v) {
        const float x[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int e = 0; e < 2; e++) {
            int co = n0 + nt * 8 + 2 * (lane % 4) + e;
            if (co >= d.cout_g) continue;
            co += g * d.cout_g;
            const float b = d.bias ? dcn_f32(p.b[co]) : 0.f;
#pragma unroll
            for (int h = 0; h < 2; h++)
                if (orow[m][h]) orow[m][h][(int64_t)co * P] = dcn_from_f32<T>(x[2 * h + e] + b);
        }
    };
    /* A whole tile without the tests: each store one 32-bit offset within
     * the image (dcn_implicit_limits) off its row's pointer, and the bias
     * of NB channel octets loaded together ahead of their stores (a load
     * after a store waits for it: the output might alias the bias). */
    auto emit_whole = [&]() {
        constexpr int NB = 4;
        const int c0 = g * d.cout_g + n0 + 2 * (lane % 4);
        const uint64_t pol_out = SH::TB ? dcn_l2_policy<dcn_evict::first>() : 0;
#pragma unroll
        for (int nt0 = 0; nt0 < NACC / 4; nt0 += NB) {
            float b[NB][2];
#pragma unroll
            for (int i = 0; i < NB; i++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    b[i][e] = d.bias ? dcn_f32(p.b[c0 + (nt0 + i) * 8 + e]) : 0.f;
#pragma unroll
            for (int i = 0; i < NB; i++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int nt = nt0 + i;
                    const unsigned o = (unsigned)((c0 + nt * 8 + e) * P);
#pragma unroll
                    for (int m = 0; m < SH::MW; m++)
#pragma unroll
                        for (int h = 0; h < 2; h++) {
                            const T v = dcn_from_f32<T>(acc[m][nt * 4 + 2 * h + e] + b[i][e]);
                            dcn_st_policy<SH::TB>(&orow[m][h][o], v, pol_out);
                        }
                }
        }
    };
    if constexpr (STREAM) {
        /* STREAM: each piece's fp32 partials go to slot blockIdx.x + tile
         * (thread-major, so a warp's stores are whole lines); the last of the
         * tile's blocks [b0, b1] to arrive sums their slots in block order (the
         * same sum whichever block is last: deterministic), writes the output,
         * and resets the tile's counter for the next run. A block sums its
         * tiles after its last multiply: the wgmmas read their accumulators
         * (scale-d 0 drops the values, the asm still names them), so a sum
         * between two pieces would hold the accumulators live beside its own
         * registers and spill. */
        constexpr int CT = 128 * SH::CW;
        const int ct = threadIdx.x;
        /* The tiles this block sums, by their parity (a block's two pieces are
         * of neighbouring tiles), kept by the thread that counts the arrivals:
         * no register through the K loops. */
        __shared__ unsigned mine;
        if (ct == 0) mine = 0;
        for (ws_walk<true> wk(ntiles, ktiles, 0, 0); wk.more(ntiles); wk.next(ntiles, ktiles)) {
            const int tile = wk.tile;
            multiply(wk.t0, wk.t1);
            float4 *slot = (float4 *)part + ((int64_t)blockIdx.x + tile) * NV * CT;
#pragma unroll
            for (int v = 0; v < NV; v++) {
                const float *a = &acc[v * 4 / NACC][v * 4 % NACC];
                slot[v * CT + ct] = make_float4(a[0], a[1], a[2], a[3]);
            }
            __threadfence();
            asm volatile("bar.sync 2, %0;" ::"n"(CT) : "memory");
            if (ct == 0) {
                const int steps = ntiles * ktiles;
                const int b0 = kb_dcn_ws_block_of(tile * ktiles, steps, gridDim.x);
                const int b1 = kb_dcn_ws_block_of((tile + 1) * ktiles - 1, steps, gridDim.x);
                if (atomicAdd(&arrived[tile], 1u) == (unsigned)(b1 - b0))
                    arrived[tile] = 0, mine |= 1u << (tile & 1);
            }
        }
        asm volatile("bar.sync 2, %0;" ::"n"(CT) : "memory");
        if (!mine) return;
        __threadfence();
        for (ws_walk<true> wk(ntiles, ktiles, 0, 0); wk.more(ntiles); wk.next(ntiles, ktiles)) {
            const int tile = wk.tile, steps = ntiles * ktiles;
            if (!(mine >> (tile & 1) & 1)) continue;
            const int b0 = kb_dcn_ws_block_of(tile * ktiles, steps, gridDim.x);
            const int b1 = kb_dcn_ws_block_of((tile + 1) * ktiles - 1, steps, gridDim.x);
            set_tile(tile);
            /* VC float4s at a time (fewer under 128 registers), slot by slot:
             * the accumulators are dead here, so the sums and loads fit. The
             * KS sum below is the same loop; one lambda for both gave ptxas's
             * STREAM kernels 48-104 bytes of spills, so each keeps its own. */
            const float4 *all = (const float4 *)part + ((int64_t)b0 + tile) * NV * CT;
            constexpr int VC = (SH::NT > 384 ? 8 : 16) < NV ? (SH::NT > 384 ? 8 : 16) : NV;
#pragma unroll
            for (int v0 = 0; v0 < NV; v0 += VC) {
                float4 sum[VC];
                for (int k = 0; k <= b1 - b0; k++)
#pragma unroll
                    for (int u = 0; u < VC; u++) {
                        const float4 x = __ldcg(&all[(k * NV + v0 + u) * CT + ct]);
                        if (k == 0)
                            sum[u] = x;
                        else
                            sum[u].x += x.x, sum[u].y += x.y, sum[u].z += x.z, sum[u].w += x.w;
                    }
#pragma unroll
                for (int u = 0; u < VC; u++)
                    emit((v0 + u) * 4 / NACC, (v0 + u) * 4 % NACC / 4, sum[u]);
            }
        }
    } else {
        if (!SH::SPLIT || gridDim.y == 1) {
            for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
                multiply(t0, t1);
                set_tile(tile);
                if (whole) {
                    emit_whole();
                    continue;
                }
#pragma unroll
                for (int v = 0; v < NV; v++) {
                    const float *a = &acc[v * 4 / NACC][v * 4 % NACC];
                    emit(v * 4 / NACC, v * 4 % NACC / 4, make_float4(a[0], a[1], a[2], a[3]));
                }
            }
            return;
        }
        /* Split K (a block a tile): every block of an output tile stores its
         * fp32 partials (thread-major, so a warp's stores are whole lines); the
         * last of the tile's KS blocks to arrive sums all KS in split order (the
         * same sum whichever block is last: deterministic), writes the output,
         * and resets the tile's counter for the next run. */
        const int tile = blockIdx.x;
        multiply(t0, t1);
        constexpr int CT = 128 * SH::CW;
        const int ct = threadIdx.x;
        float4 *mine = (float4 *)part + ((int64_t)tile * gridDim.y + blockIdx.y) * NV * CT;
#pragma unroll
        for (int v = 0; v < NV; v++) {
            const float *a = &acc[v * 4 / NACC][v * 4 % NACC];
            mine[v * CT + ct] = make_float4(a[0], a[1], a[2], a[3]);
        }
        __threadfence();
        __shared__ unsigned last;
        asm volatile("bar.sync 2, %0;" ::"n"(CT) : "memory");
        if (ct == 0) {
            last = atomicAdd(&arrived[tile], 1u) == gridDim.y - 1;
            if (last) arrived[tile] = 0;
        }
        asm volatile("bar.sync 2, %0;" ::"n"(CT) : "memory");
        if (!last) return;
        __threadfence();
        set_tile(tile);
        /* VC float4s at a time (fewer under 128 registers), split by split: the
         * accumulators are dead here, so the sums and loads fit the registers. */
        const float4 *all = (const float4 *)part + (int64_t)tile * gridDim.y * NV * CT;
        constexpr int VC = (SH::NT > 384 ? 8 : 16) < NV ? (SH::NT > 384 ? 8 : 16) : NV;
#pragma unroll
        for (int v0 = 0; v0 < NV; v0 += VC) {
            float4 sum[VC];
            for (int k = 0; k < (int)gridDim.y; k++)
#pragma unroll
                for (int u = 0; u < VC; u++) {
                    const float4 x = __ldcg(&all[(k * NV + v0 + u) * CT + ct]);
                    if (k == 0)
                        sum[u] = x;
                    else
                        sum[u].x += x.x, sum[u].y += x.y, sum[u].z += x.z, sum[u].w += x.w;
                }
#pragma unroll
            for (int u = 0; u < VC; u++) emit((v0 + u) * 4 / NACC, (v0 + u) * 4 % NACC / 4, sum[u]);
        }
    }
#else
    __trap();                           /* supports() keeps the ws variants to sm_90a builds */
#endif
}

/* The ws kernel's two inputs made in one launch (they are independent,
 * so their blocks run side by side): blocks [0, tp.blocks) transpose the
 * input to NHWC (dcn_nhwc_plan: 16-byte items where they apply, else 32 x
 * 32 tiles); the rest put the weights in the ws kernel's tile order,
 * each B tile as its shared image: [group][channel tile][K tile (chunk,
 * tap)][BN rows of 128 bytes, chunks swizzled as swz()]; tf32: rounded to
 * nearest (wgmma would truncate); NA 2 (3xTF32): each tile as its tf32
 * part, then the tf32 rest (kb_tf32_split). One bulk copy loads a tile
 * (both parts). The padding
 * (past c_out/groups, past c_in/groups) is never written here: zeroed once
 * at setup. The ws kernel, launched as its programmatic dependent, starts
 * its prologue while this runs. */
template <typename T, int BN, int NA>
__global__ void __launch_bounds__(256)
    ws_prep(const T *__restrict__ in, T *__restrict__ nhwc, const T *__restrict__ w,
            T *__restrict__ out, dcn_dims d, int ctiles, dcn_nhwc_plan tp) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    const int tblocks = (int)tp.blocks;
    if ((int)blockIdx.x < tblocks) {
        dcn_nhwc_block<T, true>(in, nhwc, tp, blockIdx.x, threadIdx.x);
        return;
    }
    constexpr int BK = ROWB / (int)sizeof(T), VW = 16 / (int)sizeof(T);
    const int cchunks = (d.cin_g + BK - 1) / BK, ktiles = cchunks * d.taps;
    for (int row = blockIdx.x - tblocks; row < d.c_out; row += gridDim.x - tblocks) {
        const int g = row / d.cout_g, co = row - g * d.cout_g, r = co % BN;
        T *tiles = out + ((int64_t)(g * ctiles + co / BN) * ktiles) * (NA * BN * BK);
        const T *src = w + (int64_t)row * d.kd;
        /* A thread per 16-byte vector (tile t, chunk c) of the row's tiles: VW
         * loads at stride taps from the row (it stays in L1), one store. */
        for (int i = threadIdx.x; i < ktiles * VPR; i += blockDim.x) {
            const int t = i / VPR, c = i - t * VPR, cc = t / d.taps, k = t - cc * d.taps;
            const int cl0 = cc * BK + c * VW;
            if (cl0 >= d.cin_g) continue; /* padding: zero since setup */
            union {
                uint4 u;
                T e[VW];
            } v, rest;
#pragma unroll
            for (int e = 0; e < VW; e++) {
                T x = src[(cl0 + e) * d.taps + k];
                if constexpr (NA == 2) {
                    uint32_t hi, lo;
                    kb_tf32_split(x, &hi, &lo);
                    x = __uint_as_float(hi), rest.e[e] = __uint_as_float(lo);
                } else if constexpr (sizeof(T) == 4) {
                    x = __uint_as_float(kb_tf32_bits(x));
                }
                v.e[e] = x;
            }
            T *tile = tiles + (int64_t)t * (NA * BN * BK) + swz(r, c) / sizeof(T);
            *(uint4 *)tile = v.u;
            if constexpr (NA == 2) *(uint4 *)(tile + BN * BK) = rest.u;
        }
    }
}

/* ---- host ---- */

enum { kN64, kN128, kN256, kN256W, kWG64, kWG128, kWG256 };

/* f(SH{}) for the block shape of kind sh: the one place the kinds meet
 * their templates. */
template <typename F> static auto with_shape(int sh, F f) {
    switch (sh) {
    case kN64:
        return f(shape_n64{});
    case kN128:
        return f(shape_n128{});
    case kN256:
        return f(shape_n256{});
    case kN256W:
        return f(shape_n256w{});
    case kWG64:
        return f(wg_n64{});
    case kWG128:
        return f(wg_n128{});
    default:
        return f(wg_n256{});
    }
}

/* By c_out/groups; past 128 channels, 64-pixel blocks of 16 warps where they
 * make two waves on the device's SMs (one block an SM), else 32-pixel blocks. */
static int pick_shape(const kb_dcn_params *p, bool wgmma) {
    int64_t cout_g = p->c_out / p->groups, pixels = p->n * p->ho * p->wo, sms = kb_gpu_sms(1);
    if (wgmma) {
        /* 128 x 256 blocks (one an SM) where they fill a wave of the SMs;
         * else 64 x 128 tiles, 256 channels in two of them. */
        if (cout_g <= 64) return kWG64;
        return cout_g > 128 && pixels >= sms * 128 ? kWG256 : kWG128;
    }
    if (cout_g <= 64) return kN64;
    if (cout_g <= 128) return kN128;
    return pixels >= 2 * sms * 64 ? kN256W : kN256;
}

struct fused_state {
    kb_dcn_params p;
    int shape;
    void *nhwc, *wr;
};

static size_t weight_bytes(const kb_dcn_params *p) {
    return (size_t)kb_dcn_sizes_of(p).weight * kb_dtype_size(p->dtype);
}

/* wgmma needs the kernels built for sm_90a (CMake builds this file so when
 * CMAKE_CUDA_ARCHITECTURES names 90) and a 9.0 device to run them. */
static int wgmma_limits(kb_error *why) {
#ifndef KB_HAVE_SM90A
    kb_fail(why,
            "needs wgmma: this kbench was built without sm_90a code (CUDA architectures %s; "
            "a list with 90 builds it)",
            kb_cuda_architectures);
    return KB_UNSUPPORTED;
#else
    const kb_gpu *g = kb_gpu_current(); /* none: the CPU-only tests, nothing runs */
    if (g && g->cc != 90) {
        kb_fail(why, "needs wgmma (compute capability 9.0 exactly, sm_90a); this %s is %d.%d",
                g->name, g->cc / 10, g->cc % 10);
        return KB_UNSUPPORTED;
    }
    return KB_OK;
#endif
}

template <typename T, bool WGMMA> int supports(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (dcn_im2col_auto_only(&p, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (dcn_takes_dtype(&p, fused_traits<T>::DTYPE, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (dcn_nhwc_limits(&p, why) != KB_OK || (WGMMA && wgmma_limits(why) != KB_OK) ||
        kb_gpu_require(KB_CC_MMA_SM80, "mma.sync with tf32/f16/bf16 operands and cp.async", why) !=
            KB_OK)
        return KB_UNSUPPORTED;
    int taps = (int)(p.kh * p.kw);
    size_t smem =
        with_shape(pick_shape(&p, WGMMA), [&](auto sh) { return smem_bytes<decltype(sh)>(taps); });
    /* Blocks: 64-pixel tiles x at most ceil(c_out/groups / 64) channel tiles. */
    return dcn_implicit_limits(&p, 64, 64, smem, why);
}

size_t workspace_bytes(const kb_case *c) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, NULL) != KB_OK) return 0;
    return dcn_nhwc_bytes(&p) + weight_bytes(&p);
}

template <typename T, typename SH> static int allow_smem(int taps, kb_error *e) {
    KB_CUDA_TRY(cudaFuncSetAttribute(dcn_nhwc_fused<T, SH>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes<SH>(taps)),
                e);
    return KB_OK;
}

template <typename T, bool WGMMA> int build(fused_state *st, const kb_case *c, kb_error *e) {
    if (kb_dcn_params_from_case(c, &st->p, e) != KB_OK) return KB_ERR;
    st->shape = pick_shape(&st->p, WGMMA);
    size_t nb = dcn_nhwc_bytes(&st->p), wb = weight_bytes(&st->p);
    if (!dcn_alloc(&st->nhwc, nb ? nb : 16) || !dcn_alloc(&st->wr, wb ? wb : 16)) {
        kb_fail(e, "NHWC input copy + reordered weights: %zu + %zu bytes", nb, wb);
        return KB_OUT_OF_MEMORY;
    }
    int taps = (int)(st->p.kh * st->p.kw);
    return with_shape(st->shape, [&](auto sh) { return allow_smem<T, decltype(sh)>(taps, e); });
}

void teardown(void *state) {
    fused_state *st = (fused_state *)state;
    if (st) {
        cudaFree(st->nhwc);
        cudaFree(st->wr);
    }
    free(st);
}

template <typename T, bool WGMMA>
int setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    return dcn_setup<fused_state>(state, teardown, e,
                                  [&](fused_state *st) { return build<T, WGMMA>(st, c, e); });
}

template <typename T, typename SH>
static void launch(const dcn_ptrs<T> &p, const T *wr, const dcn_dims &d, cudaStream_t s) {
    int64_t ptiles = ((int64_t)d.n * d.ho * d.wo + SH::BM - 1) / SH::BM;
    int ctiles = (d.cout_g + SH::BN - 1) / SH::BN;
    unsigned grid = (unsigned)(ptiles * d.groups * ctiles);
    dcn_nhwc_fused<T, SH><<<grid, SH::NT, smem_bytes<SH>(d.taps), s>>>(p, wr, d, ctiles);
}

template <typename T>
int run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    const fused_state *st = (const fused_state *)state;
    dcn_dims d = dcn_dims_of(&st->p);
    if ((int64_t)d.n * d.ho * d.wo == 0 || d.c_out == 0) return KB_OK;
    dcn_ptrs<T> p = dcn_bind<T>(in, out);
    if (dcn_prep<T, sizeof(T) == 4>(&st->p, p.in, (T *)st->nhwc, s, e, p.w, (T *)st->wr) != KB_OK)
        return KB_ERR;
    p.in = (const T *)st->nhwc;
    kb_nvtx_push("fused");
    with_shape(st->shape, [&](auto sh) { launch<T, decltype(sh)>(p, (const T *)st->wr, d, s); });
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "dcn_nhwc_fused", e);
}

template <typename T, bool WGMMA> constexpr kb_variant_impl impl() {
    return {supports<T, WGMMA>, workspace_bytes, setup<T, WGMMA>, run<T>, teardown};
}

/* ---- host: nhwc_ws_* ---- */

enum { kWS64, kWS64B, kWS128, kWS256, kWSX64, kWSX64B, kWSX128 };

/* f(SH{}) for the shape of kind sh among the 3xTF32 shapes (X3) or the
 * others: a variant's launches instantiate only its own kernels. */
template <bool X3, typename F> static auto with_ws_shape(int sh, F f) {
    if constexpr (X3)
        return sh == kWSX64 ? f(wsx_n64{}) : sh == kWSX64B ? f(wsx_n64b{}) : f(wsx_n128{});
    else
        return sh == kWS64    ? f(ws_n64{})
               : sh == kWS64B ? f(ws_n64b{})
               : sh == kWS128 ? f(ws_n128{})
                              : f(ws_n256{});
}

/* The ws launch of a case: shape, channel tiles, K tiles and the split of
 * the K tiles (dcn_ws_plan.h). */
static_assert(ws_n64::BM == 128 && ws_n64::BN == 64 && ws_n64b::BM == 128 && ws_n64b::BN == 64 &&
                  ws_n128::BM == 128 && ws_n128::BN == 128 && ws_n256::BM == 128 &&
                  ws_n256::BN == 256 && !ws_n256::SPLIT && wsx_n64::BN == 64 &&
                  wsx_n64b::BN == 64 && wsx_n128::BN == 128 && wsx_n128::SPLIT,
              "the tiles dcn_ws_plan.h assumes");
struct ws_plan {
    int shape, bm, bn, na, ctiles, ktiles, ks;
    bool rect;      /* the shape takes pixel rectangles (ws_shape::RECT) */
    int lg;         /* pixel tiles of 2^lg columns (7: BM consecutive pixels) */
    int64_t blocks; /* output tiles: pixel tiles x groups x channel tiles */
    int64_t stream; /* blocks of a stream split (kb_dcn_ws_stream), or 0 */
    int64_t grid;   /* blocks along x (kb_dcn_ws_grid, or stream) */
};
/* X3: the 3xTF32 shapes (wsx_*), 128 x 128 where the others take 128 x 256. */
template <bool X3> static ws_plan ws_plan_of(const kb_dcn_params *p) {
    ws_plan w;
    int64_t cin_g = p->c_in / p->groups, cout_g = p->c_out / p->groups,
            pixels = p->n * p->ho * p->wo;
    int64_t bk = ROWB / (int64_t)kb_dtype_size(p->dtype), sms = kb_gpu_sms(1);
    int n = kb_dcn_ws_tile_n(cout_g, pixels, p->groups, sms);
    if (X3)
        w.shape = n == 64 ? kWSX64 : kWSX128;
    else
        w.shape = n == 64 ? kWS64 : n == 128 ? kWS128 : kWS256;
    /* 128 x 64 takes the builder group where its second table fits the
     * device's shared memory (no device: the CPU tests, which launch
     * nothing). */
    const kb_gpu *gpu = kb_gpu_current();
    const int taps = (int)(p->kh * p->kw);
    if (w.shape == kWSX128 && gpu && ws_smem_bytes<wsx_n128>(taps) > gpu->smem_optin)
        w.shape = kWSX64;
    if (w.shape == kWS64 && (!gpu || ws_smem_bytes<ws_n64b>(taps) <= gpu->smem_optin))
        w.shape = kWS64B;
    if (w.shape == kWSX64 && (!gpu || ws_smem_bytes<wsx_n64b>(taps) <= gpu->smem_optin))
        w.shape = kWSX64B;
    bool split = with_ws_shape<X3>(w.shape, [&](auto sh) {
        w.bm = decltype(sh)::BM, w.bn = decltype(sh)::BN, w.na = decltype(sh)::NA;
        w.rect = decltype(sh)::RECT;
        return decltype(sh)::SPLIT;
    });
    w.ctiles = (int)((cout_g + w.bn - 1) / w.bn);
    w.ktiles = (int)((cin_g + bk - 1) / bk * p->kh * p->kw);
    /* Rectangles in the RECT shapes, where every K chunk takes its offset
     * group's table (the inline sampler takes consecutive pixels). */
    w.lg = w.rect && p->offset_groups == 1 ? kb_dcn_ws_tile_lg(p->n, p->ho, p->wo) : 7;
    w.blocks = kb_dcn_ws_pixel_tiles(p->n, p->ho, p->wo, w.lg) * p->groups * w.ctiles;
    w.ks = kb_dcn_ws_split(w.blocks, w.ktiles, sms, split);
    w.stream = kb_dcn_ws_stream(w.blocks, w.ktiles, sms, w.ks, split);
    w.grid = w.stream ? w.stream : kb_dcn_ws_grid(w.blocks, w.ks, sms);
    return w;
}

/* Pre-swizzled weights (tile order); split K: the partials (a BM x BN
 * fp32 tile per block, or streamed, per slot: blocks + tiles) and a
 * counter per output tile. */
static size_t ws_weight_bytes(const kb_dcn_params *p, const ws_plan &w) {
    return (size_t)p->groups * w.ctiles * w.ktiles * w.bn * ROWB * w.na;
}
static size_t ws_part_bytes(const ws_plan &w) {
    const int64_t slots = w.stream ? w.stream + w.blocks : w.ks > 1 ? w.blocks * w.ks : 0;
    return (size_t)slots * w.bm * w.bn * sizeof(float);
}
static size_t ws_arrived_bytes(const ws_plan &w) {
    return w.ks > 1 || w.stream ? (size_t)w.blocks * sizeof(unsigned) : 0;
}
/* The pixel tiles' list (ws_tiling, kb_dcn_ws_tile_list): only the RECT
 * shapes read it. */
static size_t ws_tile_bytes(const kb_dcn_params *p, const ws_plan &w) {
    return w.rect ? (size_t)kb_dcn_ws_pixel_tiles(p->n, p->ho, p->wo, w.lg) * sizeof(int2) : 0;
}

/* The ws kernel of a shape: streamed (split-K shapes only) or not. */
template <typename T, typename SH> static auto ws_kernel(bool stream) {
    if constexpr (SH::SPLIT)
        return stream ? dcn_nhwc_ws<T, SH, true> : dcn_nhwc_ws<T, SH, false>;
    else
        return dcn_nhwc_ws<T, SH, false>;
}

template <typename T, bool X3> int ws_supports(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (dcn_im2col_auto_only(&p, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (dcn_takes_dtype(&p, fused_traits<T>::DTYPE, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (dcn_nhwc_limits(&p, why) != KB_OK || wgmma_limits(why) != KB_OK) return KB_UNSUPPORTED;
    ws_plan w = ws_plan_of<X3>(&p);
    /* The table's corner offsets index the whole NHWC input in 32 bits, and
     * ws_prep the weight tiles. Past the input: its zero row, and the
     * offsets the table computes, then drops, for a bottom row's absent
     * corners (up to w c_in elements on). */
    dcn_count idx[] = {
        {"NHWC input n*c_in*h*w + a row", p.n * kb_dcn_sizes_of(&p).input_img + (p.w + 1) * p.c_in},
        {"tiled weights", (int64_t)(ws_weight_bytes(&p, w) / kb_dtype_size(p.dtype))}};
    if (dcn_check_int32(idx, 2, "32-bit corner offsets in the tap table and weight indices", why))
        return KB_UNSUPPORTED;
    size_t smem = with_ws_shape<X3>(
        w.shape, [&](auto sh) { return ws_smem_bytes<decltype(sh)>((int)(p.kh * p.kw)); });
    return dcn_implicit_limits(&p, w.bm, w.bn, smem, why);
}

/* The NHWC input and, after it, the zero row absent corners load (c_in
 * elements). */
static size_t ws_nhwc_bytes(const kb_dcn_params *p) {
    return dcn_nhwc_bytes(p) + (size_t)p->c_in * kb_dtype_size(p->dtype);
}

template <bool X3> size_t ws_workspace_bytes(const kb_case *c) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, NULL) != KB_OK) return 0;
    ws_plan w = ws_plan_of<X3>(&p);
    return ws_nhwc_bytes(&p) + ws_weight_bytes(&p, w) + ws_part_bytes(w) + ws_arrived_bytes(w) +
           ws_tile_bytes(&p, w);
}

struct ws_state {
    kb_dcn_params p;
    ws_plan w;
    void *nhwc, *wsw, *part, *arrived, *tiles;
};

void ws_teardown(void *state) {
    ws_state *st = (ws_state *)state;
    if (st) {
        cudaFree(st->nhwc);
        cudaFree(st->wsw);
        cudaFree(st->part);
        cudaFree(st->arrived);
        cudaFree(st->tiles);
    }
    free(st);
}

template <typename T, bool X3> int ws_build(ws_state *st, const kb_case *c, kb_error *e) {
    if (kb_dcn_params_from_case(c, &st->p, e) != KB_OK) return KB_ERR;
    st->w = ws_plan_of<X3>(&st->p);
    size_t nb = ws_nhwc_bytes(&st->p), wb = ws_weight_bytes(&st->p, st->w);
    size_t pb = ws_part_bytes(st->w), ab = ws_arrived_bytes(st->w);
    size_t tb = ws_tile_bytes(&st->p, st->w);
    if (!dcn_alloc(&st->nhwc, nb ? nb : 16) || !dcn_alloc(&st->wsw, wb ? wb : 16) ||
        (pb && !dcn_alloc(&st->part, pb)) || (ab && !dcn_alloc(&st->arrived, ab)) ||
        (tb && !dcn_alloc(&st->tiles, tb))) {
        kb_fail(e,
                "NHWC input copy + tiled weights + split-K partials and counters + pixel tiles: "
                "%zu + %zu + %zu + %zu + %zu bytes",
                nb, wb, pb, ab, tb);
        return KB_OUT_OF_MEMORY;
    }
    if (tb) {
        int32_t *list = (int32_t *)malloc(tb);
        if (!list) {
            kb_fail(e, "the pixel tiles' list: %zu bytes of host memory", tb);
            return KB_OUT_OF_MEMORY;
        }
        kb_dcn_ws_tile_list(st->p.n, st->p.ho, st->p.wo, st->w.lg, list);
        cudaError_t err = cudaMemcpy(st->tiles, list, tb, cudaMemcpyHostToDevice);
        free(list);
        KB_CUDA_TRY(err, e);
    }
    /* The zero row, the weight tiles' padding and the counters start at 0;
     * run() writes only the input and the weights, and the last block of a
     * tile resets its counter. */
    KB_CUDA_TRY(cudaMemset(st->nhwc, 0, nb), e);
    KB_CUDA_TRY(cudaMemset(st->wsw, 0, wb), e);
    if (ab) KB_CUDA_TRY(cudaMemset(st->arrived, 0, ab), e);
    int taps = (int)(st->p.kh * st->p.kw);
    return with_ws_shape<X3>(st->w.shape, [&](auto sh) {
        using SH = decltype(sh);
        KB_CUDA_TRY(cudaFuncSetAttribute(ws_kernel<T, SH>(st->w.stream != 0),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)ws_smem_bytes<SH>(taps)),
                    e);
        return KB_OK;
    });
}

template <typename T, bool X3>
int ws_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    return dcn_setup<ws_state>(state, ws_teardown, e,
                               [&](ws_state *st) { return ws_build<T, X3>(st, c, e); });
}

template <typename T, bool X3>
int ws_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    const ws_state *st = (const ws_state *)state;
    const ws_plan &w = st->w;
    dcn_dims d = dcn_dims_of(&st->p);
    if ((int64_t)d.n * d.ho * d.wo == 0 || d.c_out == 0) return KB_OK;
    dcn_ptrs<T> p = dcn_bind<T>(in, out);
    const dcn_nhwc_plan tp = dcn_nhwc_plan_of<T>(d.n, d.c_in, d.h * d.w, p.in);
    const int tblocks = (int)tp.blocks;
    const int wblocks = d.c_out < 1024 ? d.c_out : 1024;
    kb_nvtx_push("ws");
    cudaError_t err = with_ws_shape<X3>(w.shape, [&](auto sh) {
        using SH = decltype(sh);
        ws_prep<T, SH::BN, SH::NA><<<(unsigned)(tblocks + wblocks), 256, 0, s>>>(
            p.in, (T *)st->nhwc, p.w, (T *)st->wsw, d, w.ctiles, tp);
        dcn_ptrs<T> pn = p;
        pn.in = (const T *)st->nhwc;
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute pdl;
        pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        pdl.val.programmaticStreamSerializationAllowed = 1;
        cfg.gridDim = dim3((unsigned)w.grid, w.stream ? 1u : (unsigned)w.ks);
        cfg.blockDim = dim3(SH::NT);
        cfg.dynamicSmemBytes = ws_smem_bytes<SH>(d.taps);
        cfg.stream = s;
        cfg.attrs = &pdl;
        cfg.numAttrs = 1;
        return cudaLaunchKernelEx(&cfg, ws_kernel<T, SH>(w.stream != 0), pn, (const T *)st->wsw,
                                  (float *)st->part, (unsigned *)st->arrived, d,
                                  ws_tiling{(const int2 *)st->tiles, w.lg}, w.ctiles,
                                  (int)w.blocks);
    });
    kb_nvtx_pop();
    if (err != cudaSuccess) return kb_cuda_check(err, "dcn_nhwc_ws", e);
    return kb_cuda_check(cudaGetLastError(), "ws_prep", e);
}

template <typename T, bool X3 = false> constexpr kb_variant_impl ws_impl() {
    return {ws_supports<T, X3>, ws_workspace_bytes<X3>, ws_setup<T, X3>, ws_run<T, X3>,
            ws_teardown};
}

} // namespace

KB_DEFINE_VARIANT(deform_conv2d, nhwc_fused_tf32) = impl<float, false>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_fused_f16) = impl<__half, false>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_fused_bf16) = impl<__nv_bfloat16, false>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_wgmma_tf32) = impl<float, true>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_wgmma_f16) = impl<__half, true>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_wgmma_bf16) = impl<__nv_bfloat16, true>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_ws_tf32) = ws_impl<float>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_ws_f16) = ws_impl<__half>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_ws_bf16) = ws_impl<__nv_bfloat16>();
KB_DEFINE_VARIANT(deform_conv2d, nhwc_ws_3xtf32) = ws_impl<float, true>();
