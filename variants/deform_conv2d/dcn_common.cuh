/* dcn_common.cuh — what every deform_conv2d variant shares: the case as device
 * integers, dtype conversions, the sampling rule (deform_conv2d.h) in float,
 * the index-limit checks, and the implicit-GEMM B-tile sampler.
 *
 * GEMM view (per weight group g): out[co, q] = sum_kd W[co, kd] * col[kd, q],
 * M = c_out/groups, N = n*ho*wo pixels q, K = c_in/groups*kh*kw with
 * kd = ci*kh*kw + k (the weight tensor's own order, so weight tiles load as
 * contiguous rows).
 */
#ifndef KB_DCN_COMMON_CUH
#define KB_DCN_COMMON_CUH

#include "kbench/variant.h"
#include "kbench/ops/deform_conv2d.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdlib.h>

KB_DCN_CORNERS(float, int, kb_dcn_corners)
KB_DCN_CORNERS(float, int64_t, kb_dcn_corners)

/* ---- setup's contract (kbench/variant.h): a failed setup leaves nothing allocated ---- */

/* A zeroed S handed to build; if build fails, teardown releases what it got
 * to (so every state's teardown takes NULL members) and *state stays NULL. */
template <typename S, typename Build>
static int dcn_setup(void **state, void (*teardown)(void *), kb_error *e, Build build) {
    *state = nullptr;
    S *st = (S *)calloc(1, sizeof(S));
    if (!st) return kb_fail(e, "out of host memory for the variant's state");
    int rc = build(st);
    if (rc != KB_OK)
        teardown(st);
    else
        *state = st;
    return rc;
}

/* cudaMalloc that leaves *p NULL when it fails (and clears the error), so
 * that teardown frees only what was allocated. */
static inline bool dcn_alloc(void **p, size_t bytes) {
    void *q = nullptr;
    if (cudaMalloc(&q, bytes) != cudaSuccess) {
        cudaGetLastError();
        *p = nullptr;
        return false;
    }
    *p = q;
    return true;
}

/* The case as device integers. Every axis fits an int (kbench axis ranges). */
struct dcn_dims {
    int n, c_in, c_out, h, w, kh, kw, sh, sw, ph, pw, dh, dw, groups, og, ho, wo, mask, bias;
    int taps, cin_g, cout_g, cin_og, kd; /* kh*kw, c_in/groups, c_out/groups, c_in/og, cin_g*taps */
};

static inline dcn_dims dcn_dims_of(const kb_dcn_params *p) {
    dcn_dims d;
    d.n = (int)p->n, d.c_in = (int)p->c_in, d.c_out = (int)p->c_out, d.h = (int)p->h;
    d.w = (int)p->w, d.kh = (int)p->kh, d.kw = (int)p->kw, d.sh = (int)p->stride_h;
    d.sw = (int)p->stride_w, d.ph = (int)p->pad_h, d.pw = (int)p->pad_w, d.dh = (int)p->dil_h;
    d.dw = (int)p->dil_w, d.groups = (int)p->groups, d.og = (int)p->offset_groups;
    d.ho = (int)p->ho, d.wo = (int)p->wo, d.mask = p->mask, d.bias = p->bias;
    d.taps = d.kh * d.kw, d.cin_g = d.c_in / d.groups, d.cout_g = d.c_out / d.groups;
    d.cin_og = d.c_in / d.og, d.kd = d.cin_g * d.taps;
    return d;
}

template <typename T> struct dcn_ptrs {
    const T *in, *off, *mask, *w, *b;
    T *out;
};

template <typename T> static dcn_ptrs<T> dcn_bind(const kb_tensors *in, kb_tensors *out) {
    dcn_ptrs<T> p;
    p.in = (const T *)kb_tensors_get(in, "input")->data;
    p.off = (const T *)kb_tensors_get(in, "offset")->data;
    p.mask = (const T *)kb_tensors_get(in, "mask")->data;
    p.w = (const T *)kb_tensors_get(in, "weight")->data;
    p.b = (const T *)kb_tensors_get(in, "bias")->data;
    p.out = out ? (T *)kb_tensors_find(out, "output")->data : nullptr;
    return p;
}

__device__ __forceinline__ float dcn_f32(float v) {
    return v;
}
__device__ __forceinline__ float dcn_f32(__half v) {
    return __half2float(v);
}
__device__ __forceinline__ float dcn_f32(__nv_bfloat16 v) {
    return __bfloat162float(v);
}
template <typename T> __device__ __forceinline__ T dcn_from_f32(float v);
template <> __device__ __forceinline__ float dcn_from_f32<float>(float v) {
    return v;
}
template <> __device__ __forceinline__ __half dcn_from_f32<__half>(float v) {
    return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 dcn_from_f32<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

/* ---- L2 eviction priorities (compute capability 8.0 or newer) ----
 *
 * A policy register for the loads and stores below (.L2::cache_hint):
 * evict_first for data touched once (an input read once, an output), so
 * that it leaves L2 before data read again; evict_last for data a later
 * kernel reads many times (ws's NHWC copy of the input). Older devices:
 * plain accesses. Loads take the read-only path (the data must not change
 * during the kernel). */
enum class dcn_evict { first, last };
template <dcn_evict E> __device__ __forceinline__ uint64_t dcn_l2_policy() {
    uint64_t pol = 0;
#if __CUDA_ARCH__ >= 800
    if constexpr (E == dcn_evict::first)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    else
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#endif
    return pol;
}
/* Loads of 16-bit (T: __half, __nv_bfloat16), 32-bit (float), 8- and
 * 16-byte (uint2, float4) values under policy pol where HINT, else (or
 * before 8.0) plain read-only loads (__ldg). */
template <bool HINT = true, typename V>
__device__ __forceinline__ V dcn_ld_policy(const V *p, uint64_t pol) {
#if __CUDA_ARCH__ >= 800
    if constexpr (HINT) {
        V v;
        if constexpr (sizeof(V) == 16) {
            float4 &f = *(float4 *)&v;
            asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                         : "=f"(f.x), "=f"(f.y), "=f"(f.z), "=f"(f.w)
                         : "l"(p), "l"(pol));
        } else if constexpr (sizeof(V) == 8) {
            uint2 &u = *(uint2 *)&v;
            asm volatile("ld.global.nc.L2::cache_hint.v2.u32 {%0,%1}, [%2], %3;"
                         : "=r"(u.x), "=r"(u.y)
                         : "l"(p), "l"(pol));
        } else if constexpr (sizeof(V) == 4) {
            asm volatile("ld.global.nc.L2::cache_hint.b32 %0, [%1], %2;"
                         : "=r"(*(uint32_t *)&v)
                         : "l"(p), "l"(pol));
        } else {
            static_assert(sizeof(V) == 2, "2, 4, 8 or 16 bytes");
            asm volatile("ld.global.nc.L2::cache_hint.b16 %0, [%1], %2;"
                         : "=h"(*(unsigned short *)&v)
                         : "l"(p), "l"(pol));
        }
        return v;
    }
#endif
    return __ldg(p);
}
/* Stores of 16-bit, 32-bit and 16-byte (uint4) values under policy pol
 * where HINT, else (or before 8.0) plain stores. */
template <bool HINT = true, typename V>
__device__ __forceinline__ void dcn_st_policy(V *p, V v, uint64_t pol) {
#if __CUDA_ARCH__ >= 800
    if constexpr (HINT) {
        if constexpr (sizeof(V) == 16) {
            const uint4 u = *(const uint4 *)&v;
            asm volatile("st.global.L2::cache_hint.v4.b32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p),
                         "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w), "l"(pol)
                         : "memory");
        } else if constexpr (sizeof(V) == 4) {
            asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(p),
                         "r"(*(const uint32_t *)&v), "l"(pol)
                         : "memory");
        } else {
            static_assert(sizeof(V) == 2, "2, 4 or 16 bytes");
            asm volatile("st.global.L2::cache_hint.b16 [%0], %1, %2;" ::"l"(p),
                         "h"(*(const unsigned short *)&v), "l"(pol)
                         : "memory");
        }
        return;
    }
#endif
    *p = v;
}

/* The sample point (y, x) of tap k at output pixel (oy, ox) with offsets
 * (dy, dx), in float as torchvision's kernels compute it for f32 (the int
 * part exact, then + the offset). */
__device__ __forceinline__ float2 dcn_tap_point(const dcn_dims &d, int k, int oy, int ox, float dy,
                                                float dx) {
    int i = k / d.kw, j = k - i * d.kw;
    return make_float2((float)(oy * d.sh - d.ph + i * d.dh) + dy,
                       (float)(ox * d.sw - d.pw + j * d.dw) + dx);
}

/* The sampling rule every sampler shares: corner index and mask-scaled
 * bilinear weights at the sample point (y, x), with mask value m. */
template <typename I>
__device__ __forceinline__ void dcn_point_weights(const dcn_dims &d, float y, float x, float m,
                                                  I *base, float4 *wt) {
    float c[4];
    kb_dcn_corners(y, x, (I)d.h, (I)d.w, base, c);
    *wt = make_float4(c[0] * m, c[1] * m, c[2] * m, c[3] * m);
}

/* The rule at tap k of output pixel (oy, ox), from the tap's offsets
 * (dy, dx): at dcn_tap_point. */
template <typename I>
__device__ __forceinline__ void dcn_corner_weights(const dcn_dims &d, int k, int oy, int ox,
                                                   float dy, float dx, float m, I *base,
                                                   float4 *wt) {
    const float2 yx = dcn_tap_point(d, k, oy, ox, dy, dx);
    dcn_point_weights(d, yx.x, yx.y, m, base, wt);
}

/* Blend of 4 corners at plane[base] (plane of last + 1 elements); a zero
 * weight marks a corner outside (or contributing nothing): its value is not
 * used. All 4 are loaded, at indices clamped into the plane, so no branch
 * separates a load from its use and a thread's loads of many samples go out
 * together (loads under the weight tests made im2col wait a memory latency
 * per corner). The sum is the same as adding only the nonzero terms. */
template <typename T, typename I>
__device__ __forceinline__ float dcn_blend(const T *plane, I base, I w, I last, float4 wt) {
    auto at = [&](I i) { return dcn_f32(plane[min(max(i, (I)0), last)]); };
    float a = at(base), b = at(base + 1), c = at(base + w), e = at(base + w + 1), v = 0.f;
    if (wt.x != 0.f) v += wt.x * a;
    if (wt.y != 0.f) v += wt.y * b;
    if (wt.z != 0.f) v += wt.z * c;
    if (wt.w != 0.f) v += wt.w * e;
    return v;
}

/* ---- host: limits ---- */

/* KB_UNSUPPORTED naming the first count over INT32_MAX (what, count pairs). */
struct dcn_count {
    const char *what;
    int64_t count;
};
static inline int dcn_check_int32(const dcn_count *c, int nc, const char *why_int32, kb_error *e) {
    for (int i = 0; i < nc; i++)
        if (c[i].count > INT32_MAX) {
            kb_fail(e, "%s need %lld elements > INT32_MAX (%s)", c[i].what, (long long)c[i].count,
                    why_int32);
            return KB_UNSUPPORTED;
        }
    return KB_OK;
}

/* The im2col axis chooses between explicit_nhwc*'s two im2col kernels; any
 * other variant samples one way, so a forced choice is a case it does not run. */
static inline int dcn_im2col_auto_only(const kb_dcn_params *p, kb_error *why) {
    if (p->im2col == KB_DCN_IM2COL_AUTO) return KB_OK;
    kb_fail(why, "im2col=%s: only explicit_nhwc* have an im2col choice",
            p->im2col == KB_DCN_IM2COL_WINDOW ? "window" : "global");
    return KB_NOT_APPLICABLE;
}

/* A variant built for one data type: KB_OK on a case of that dtype, else
 * NOT_APPLICABLE (another variant of the op runs it) with the reason. */
static inline int dcn_takes_dtype(const kb_dcn_params *p, kb_dtype want, kb_error *why) {
    if (p->dtype == want) return KB_OK;
    kb_fail(why, "dtype=%s: this variant takes %s", kb_dtype_name(p->dtype), kb_dtype_name(want));
    return KB_NOT_APPLICABLE;
}

/* Limits of the implicit GEMMs: 32-bit indices inside an image (64-bit image
 * bases), a 1-D grid of blocks, and the tap table in shared memory. */
static inline int dcn_implicit_limits(const kb_dcn_params *p, int bn, int bm_min, size_t smem,
                                      kb_error *why) {
    kb_dcn_sizes s = kb_dcn_sizes_of(p);
    int64_t blocks =
        (s.pixels + bn - 1) / bn * p->groups * ((p->c_out / p->groups + bm_min - 1) / bm_min);
    dcn_count idx[] = {{"input image", s.input_img},
                       {"offset image", s.offset_img},
                       {"mask image", s.mask_img},
                       {"output image", s.output_img},
                       {"weight", s.weight},
                       {"pixels n*ho*wo (+ one tile)", s.pixels + bn},
                       {"blocks", blocks}};
    if (dcn_check_int32(idx, 7, "32-bit indices inside an image, 64-bit image bases", why))
        return KB_UNSUPPORTED;
    int dev = 0, optin = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (optin > 0 && smem > (size_t)optin) {
        kb_fail(why, "kh*kw = %lld taps need %zu bytes of shared memory > %d",
                (long long)(p->kh * p->kw), smem, optin);
        return KB_UNSUPPORTED;
    }
    return KB_OK;
}

/* 128 output channels per block unless that leaves under two waves of blocks
 * on this device's SMs (or the group has <= 64 channels): then 64. */
static inline int dcn_pick_bm(const kb_dcn_params *p, int bn) {
    int64_t cout_g = p->c_out / p->groups;
    int64_t ptiles = (p->n * p->ho * p->wo + bn - 1) / bn;
    int64_t blocks128 = p->groups * ((cout_g + 127) / 128) * ptiles;
    return cout_g <= 64 || blocks128 < 2 * kb_gpu_sms(1) ? 64 : 128;
}

/* ---- the implicit-GEMM B tile: deformable columns sampled on the fly ----
 *
 * A block owns BN consecutive pixels q (they may straddle images) and one
 * weight group g. Every sampler (this NCHW one, dcn_nhwc.cuh's channels-last
 * one) offers the GEMM kernels the same calls:
 *   init(d, p, g, q0, tb_base, tb_wt, ring)  once per block (tables: taps*BN
 *                                      ints and float4s of shared memory; ring:
 *                                      RING bytes of it)
 *   ktiles(d)                          K tiles of BK
 *   wcol(d, kt, kk)                    weight column (in a weight row's own
 *                                      ci*taps + k order) of row kk of tile kt; -1: none
 *   issue(d, p, kt)                    start tile kt (whole block, same kt; a kt
 *                                      past the last tile does nothing)
 *   finish<Store>(Bs, ldb, kt)         write tile kt into Bs[BK][ldb] as Store::S
 * The kernels issue tiles 0..DEPTH-1, then per tile t issue t+DEPTH before
 * the multiply and finish t+1 after it.
 * For the tile's offset group a table in shared memory holds, per tap k and
 * pixel, the top-left corner index and the 4 corner weights times the mask —
 * so the coordinates and bilinear weights are computed once per (tap, pixel)
 * and reused by every channel of the group (c_in/offset_groups of them). A
 * channel of another offset group than the table's (a K tile straddling two
 * groups) computes its weights inline.
 */
template <typename T> struct dcn_pixel {
    const T *in, *off, *mask; /* this pixel's image; 64-bit bases, 32-bit offsets inside */
    int pix;                  /* within the image; -1 past the last pixel */
};

template <typename T>
__device__ __forceinline__ dcn_pixel<T> dcn_pixel_at(const dcn_dims &d, const dcn_ptrs<T> &p,
                                                     int q) {
    dcn_pixel<T> px;
    int P = d.ho * d.wo;
    if (q >= d.n * P) {
        px.in = px.off = px.mask = nullptr, px.pix = -1;
        return px;
    }
    int n = q / P;
    px.pix = q - n * P;
    px.in = p.in + (int64_t)n * d.c_in * d.h * d.w;
    px.off = p.off + (int64_t)n * 2 * d.og * d.taps * P;
    px.mask = d.mask ? p.mask + (int64_t)n * d.og * d.taps * P : nullptr;
    return px;
}

/* Corner index and mask-scaled weights of (offset group og, tap k) at a pixel. */
template <typename T>
__device__ __forceinline__ void dcn_tap_weights(const dcn_dims &d, const dcn_pixel<T> &px, int og,
                                                int k, int *base, float4 *wt) {
    int P = d.ho * d.wo, oy = px.pix / d.wo, ox = px.pix - oy * d.wo;
    int o = (og * 2 * d.taps + 2 * k) * P + px.pix;
    float m = d.mask ? dcn_f32(px.mask[(og * d.taps + k) * P + px.pix]) : 1.f;
    dcn_corner_weights(d, k, oy, ox, dcn_f32(px.off[o]), dcn_f32(px.off[o + P]), m, base, wt);
}

/* The (tap, pixel) table of offset group og for the block's pixels q0.. q0+BN-1;
 * the caller brackets it with barriers. */
template <typename T, int BN, int NT>
__device__ void dcn_build_table(const dcn_dims &d, const dcn_ptrs<T> &p, int q0, int og,
                                int *tb_base, float4 *tb_wt) {
    for (int e = threadIdx.x; e < d.taps * BN; e += NT) {
        dcn_pixel<T> pe = dcn_pixel_at(d, p, q0 + e % BN);
        int b = 0;
        float4 wt = make_float4(0.f, 0.f, 0.f, 0.f);
        if (pe.pix >= 0) dcn_tap_weights(d, pe, og, e / BN, &b, &wt);
        tb_base[e] = b, tb_wt[e] = wt;
    }
}

/* The B-tile store for fp32 FMA kernels (the MMA kernels pass their traits). */
struct dcn_store_f32 {
    using S = float;
    static __device__ __forceinline__ float to_s(float v) { return v; }
};

/* NCHW planes, K in the weight's own order (kd = ci*taps + k). Thread t samples
 * pixel t % BN, rows t / BN + j * (NT / BN): a warp reads 32 consecutive pixels
 * of one plane, 4 scalar gathers per sample; issue() blends at once. */
template <typename T, int BN, int BK, int NT> struct dcn_b_sampler {
    static constexpr int RS = NT / BN;        /* row step between one thread's rows */
    static constexpr int ROWS = BK * BN / NT; /* rows per thread per tile */
    static_assert(NT % BN == 0 && (BK * BN) % NT == 0, "tile shape");
    static constexpr int DEPTH = 1;   /* issue() blends at once: one tile in flight */
    static constexpr size_t RING = 0; /* no shared ring */

    int *tb_base;  /* [taps][BN] */
    float4 *tb_wt; /* [taps][BN] */
    int table_og;  /* offset group in the table; -1: none */
    int g, q0, nn;
    dcn_pixel<T> px;
    float v[ROWS];

    __device__ void init(const dcn_dims &d, const dcn_ptrs<T> &p, int g_, int q0_, int *base,
                         float4 *wt, void *) {
        tb_base = base, tb_wt = wt, table_og = -1, g = g_, q0 = q0_;
        nn = threadIdx.x % BN;
        px = dcn_pixel_at(d, p, q0 + nn);
    }
    static __device__ int ktiles(const dcn_dims &d) { return (d.kd + BK - 1) / BK; }
    static __device__ int wcol(const dcn_dims &d, int kt, int kk) {
        return kt * BK + kk < d.kd ? kt * BK + kk : -1;
    }

    __device__ void issue(const dcn_dims &d, const dcn_ptrs<T> &p, int kt) {
        if (kt >= ktiles(d)) return;
        const int kidx0 = kt * BK;
        int og_first = (g * d.cin_g + min(kidx0, d.kd - 1) / d.taps) / d.cin_og;
        if (og_first != table_og) {
            __syncthreads(); /* nobody still reads the old table */
            dcn_build_table<T, BN, NT>(d, p, q0, og_first, tb_base, tb_wt);
            table_og = og_first;
            __syncthreads();
        }
        /* Tiles inside one offset group (all of them when offset_groups = 1) read
         * the table; the rest compute weights per sample. */
        int og_last = (g * d.cin_g + min(kidx0 + BK - 1, d.kd - 1) / d.taps) / d.cin_og;
        if (og_last == table_og)
            gather<true>(d, kidx0);
        else
            gather<false>(d, kidx0);
    }

    template <typename Store> __device__ void finish(typename Store::S *Bs, int ldb, int) const {
#pragma unroll
        for (int j = 0; j < ROWS; j++)
            Bs[(threadIdx.x / BN + j * RS) * ldb + nn] = Store::to_s(v[j]);
    }

    /* Addresses and weights of every row first, then every load, then the
     * blends: ROWS*4 independent loads in flight per thread, not ROWS round trips. */
    template <bool TABLE> __device__ __forceinline__ void gather(const dcn_dims &d, int kidx0) {
        int row = threadIdx.x / BN, kidx = kidx0 + row;
        int cl = kidx / d.taps, k = kidx - cl * d.taps;
        const int hw = d.h * d.w;
        int off[ROWS];
        float4 wt[ROWS];
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            off[j] = 0, wt[j] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (px.pix >= 0 && cl < d.cin_g) {
                int ci = g * d.cin_g + cl, base;
                if (TABLE) {
                    base = tb_base[k * BN + nn], wt[j] = tb_wt[k * BN + nn];
                } else {
                    dcn_tap_weights(d, px, ci / d.cin_og, k, &base, &wt[j]);
                }
                off[j] = ci * hw + base;
            }
            k += RS;
            while (k >= d.taps) k -= d.taps, cl++;
        }
        float c[ROWS][4];
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const T *s = px.in + off[j];
            c[j][0] = wt[j].x != 0.f ? dcn_f32(s[0]) : 0.f;
            c[j][1] = wt[j].y != 0.f ? dcn_f32(s[1]) : 0.f;
            c[j][2] = wt[j].z != 0.f ? dcn_f32(s[d.w]) : 0.f;
            c[j][3] = wt[j].w != 0.f ? dcn_f32(s[d.w + 1]) : 0.f;
        }
#pragma unroll
        for (int j = 0; j < ROWS; j++)
            v[j] = wt[j].x * c[j][0] + wt[j].y * c[j][1] + wt[j].z * c[j][2] + wt[j].w * c[j][3];
    }
};

#endif
