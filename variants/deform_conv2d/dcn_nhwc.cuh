/* dcn_nhwc.cuh — channels-last sampling (our own design): the B-tile sampler
 * of the FMA nhwc_gemm variant (nhwc_gemm.cu), and the NHWC transpose,
 * weight reorder and 16-byte unpack that explicit_nhwc* and nhwc_fused_* use.
 *
 * The input is first transposed to NHWC in a workspace (part of the timed run:
 * n*c_in*h*w elements, 1/(kh*kw) of the explicit design's columns buffer, so
 * NOT an implicit variant under the 1% workspace rule). Then one 16-byte load
 * fetches 4 (f32) or 8 (f16/bf16) channels of one sample corner, where the
 * NCHW sampler spends one 4-byte or 2-byte gather per channel: 4-8x fewer load
 * instructions for the same bytes. The sampler's K order and pipelining:
 * above dcn_nhwc_sampler.
 */
#ifndef KB_DCN_NHWC_CUH
#define KB_DCN_NHWC_CUH

#include "dcn_common.cuh"
#include "../common/arch.cuh"

template <typename T> __device__ __forceinline__ T dcn_bits(unsigned short b);
template <> __device__ __forceinline__ __half dcn_bits<__half>(unsigned short b) {
    return __ushort_as_half(b);
}
template <> __device__ __forceinline__ __nv_bfloat16 dcn_bits<__nv_bfloat16>(unsigned short b) {
    return __ushort_as_bfloat16(b);
}

/* VW channels of one 16-byte vector as floats. */
template <typename T, int VW>
__device__ __forceinline__ void dcn_unpack(const uint4 &r, float (&f)[VW]) {
    const uint32_t w[4] = {r.x, r.y, r.z, r.w};
    if constexpr (sizeof(T) == 4) {
#pragma unroll
        for (int i = 0; i < 4; i++) f[i] = __uint_as_float(w[i]);
    } else {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            unsigned short lo = (unsigned short)(w[i] & 0xFFFFu), hi = (unsigned short)(w[i] >> 16);
            f[2 * i] = dcn_f32(dcn_bits<T>(lo)), f[2 * i + 1] = dcn_f32(dcn_bits<T>(hi));
        }
    }
}

/* K order (per weight group): chunks of BK channels outermost, taps inside,
 * then the chunk's channels: tile kt = (chunk cc, tap k) holds channels
 * cc*BK .. cc*BK+BK-1 at tap k, so every 16-byte vector of a tile shares one
 * tap's weights. The weight tile is read in the tensor's own order (stride
 * kh*kw): the 9 tiles of a chunk reuse the same cache lines.
 * Pipelining: issue() computes the tap's weights and starts the corner loads
 * into registers; finish() blends them into the B tile. The GEMM kernels
 * issue tile t+1 before multiplying tile t and finish it after, so the
 * gathers' L2 latency overlaps the multiply. */
template <typename T, int BN, int BK, int NT> struct dcn_nhwc_sampler {
    static constexpr int VW = 16 / (int)sizeof(T); /* channels per 16-byte vector */
    static constexpr int CPT = BK * BN / NT;       /* channels per thread per tile */
    static constexpr int VPT = CPT / VW;           /* vectors per thread per tile */
    static_assert(NT % BN == 0 && CPT % VW == 0 && VPT >= 1 && (NT / BN) * CPT == BK, "tile shape");
    /* One tile in flight, its corners in registers across the multiply. A
     * 3-deep cp.async ring in shared memory instead (docs/perf-deform_conv2d.md,
     * "Tried and rejected: a 3-deep cp.async ring of corners") ran 1.3-1.4x slower: more
     * instructions per sample, and the kernels are issue-bound, not waiting on the gathers. */
    static constexpr int DEPTH = 1;
    static constexpr size_t RING = 0;

    int *tb_base;
    float4 *tb_wt;
    int table_og, g, q0, nn, c0; /* c0: the thread's first channel in a tile */
    dcn_pixel<T> px;             /* px.in: the image in NHWC */
    float4 wt[VPT];
    uint4 raw[VPT][4];

    __device__ void init(const dcn_dims &d, const dcn_ptrs<T> &p, int g_, int q0_, int *base,
                         float4 *wt_, void *) {
        tb_base = base, tb_wt = wt_, table_og = -1, g = g_, q0 = q0_;
        nn = threadIdx.x % BN, c0 = (threadIdx.x / BN) * CPT;
        px = dcn_pixel_at(d, p, q0 + nn);
    }
    static __device__ int ktiles(const dcn_dims &d) { return (d.cin_g + BK - 1) / BK * d.taps; }
    static __device__ int wcol(const dcn_dims &d, int kt, int kk) {
        int cc = kt / d.taps, k = kt - cc * d.taps, cl = cc * BK + kk;
        return cl < d.cin_g ? cl * d.taps + k : -1;
    }

    __device__ void issue(const dcn_dims &d, const dcn_ptrs<T> &p, int kt) {
        if (kt >= ktiles(d)) return;
        const int cc = kt / d.taps, k = kt - cc * d.taps, cl0 = cc * BK;
        const int og_first = (g * d.cin_g + cl0) / d.cin_og;
        if (og_first != table_og) {
            __syncthreads(); /* nobody still reads the old table */
            dcn_build_table<T, BN, NT>(d, p, q0, og_first, tb_base, tb_wt);
            table_og = og_first;
            __syncthreads();
        }
        const uint4 zero = make_uint4(0, 0, 0, 0);
        const int cstep = d.c_in / VW, rstep = d.w * d.c_in / VW;
#pragma unroll
        for (int j = 0; j < VPT; j++) {
            const int cl = cl0 + c0 + j * VW, ci = g * d.cin_g + cl;
            int base = 0;
            float4 w = make_float4(0.f, 0.f, 0.f, 0.f);
            if (px.pix >= 0 && cl < d.cin_g) {
                if (ci / d.cin_og == table_og)
                    base = tb_base[k * BN + nn], w = tb_wt[k * BN + nn];
                else
                    dcn_tap_weights(d, px, ci / d.cin_og, k, &base, &w);
            }
            wt[j] = w;
            const uint4 *s = (const uint4 *)(px.in + (base * d.c_in + ci));
            raw[j][0] = w.x != 0.f ? __ldg(s) : zero;
            raw[j][1] = w.y != 0.f ? __ldg(s + cstep) : zero;
            raw[j][2] = w.z != 0.f ? __ldg(s + rstep) : zero;
            raw[j][3] = w.w != 0.f ? __ldg(s + rstep + cstep) : zero;
        }
    }

    template <typename Store> __device__ void finish(typename Store::S *Bs, int ldb, int) const {
#pragma unroll
        for (int j = 0; j < VPT; j++) {
            float c[4][VW];
#pragma unroll
            for (int q = 0; q < 4; q++) dcn_unpack<T, VW>(raw[j][q], c[q]);
#pragma unroll
            for (int e = 0; e < VW; e++) {
                float v =
                    wt[j].x * c[0][e] + wt[j].y * c[1][e] + wt[j].z * c[2][e] + wt[j].w * c[3][e];
                Bs[(c0 + j * VW + e) * ldb + nn] = Store::to_s(v);
            }
        }
    }
};

/* One 32 x 32 tile of an image's [c][hw] -> [hw][c] through shared memory
 * (the padded row keeps both passes free of bank conflicts), by 256 threads
 * as 32 x 8 (tx, ty): channels [c0, c0 + 32) x pixels [p0, p0 + 32); in and
 * out point at the image. Any shape. */
template <typename T>
__device__ __forceinline__ void dcn_nhwc_tile(const T *__restrict__ in, T *__restrict__ out, int c,
                                              int hw, int c0, int p0, int tx, int ty) {
    __shared__ T tile[32][33];
    for (int i = ty; i < 32; i += 8)
        if (c0 + i < c && p0 + tx < hw) tile[i][tx] = in[(int64_t)(c0 + i) * hw + p0 + tx];
    __syncthreads();
    for (int i = ty; i < 32; i += 8)
        if (p0 + i < hw && c0 + tx < c) out[(int64_t)(p0 + i) * c + c0 + tx] = tile[tx][i];
}

/* The same transpose in 16-byte accesses, where hw % 4 == 0, c % VW == 0
 * and the input is 16-byte aligned. The scalar tiles above move 4 or 2
 * bytes an access: the 16-bit input took as long as f32 (25 us for 8.6M
 * elements). Here a warp moves an item, 8 VW channels (a 128-byte piece of
 * a pixel's row) x 16 pixels of one image, with no shared memory: lane =
 * (pixel quad, channel vector) loads 4 pixels of each of its VW planes (16
 * or 8 bytes), regroups them in registers and stores 4 16-byte vectors, one
 * a pixel; 8 lanes write a pixel's 128 bytes. Items in order [image][channel
 * block][run of 16 pixels].
 *
 * KEEP (ws_prep): the input loads evict_first and the copy's stores
 * evict_last in L2, so the copy stays there for the main kernel's corner
 * loads while the input streams through. Its lines keep that priority after
 * the op until evicted or reset (docs/perf-deform_conv2d.md, Open).
 *
 * The plan of [n][c][hw] -> [n][hw][c] in blocks of 256 threads: 8 items a
 * block where the shape and alignment allow (count > 0), else one 32 x 32
 * tile a block, tiles in order [image][channel tile][pixel tile]. One plan
 * for the NHWC variants' prep kernel (dcn_prep_nhwc) and for ws_prep, which runs its
 * blocks beside the weights'. */
struct dcn_nhwc_plan {
    int c, hw;
    int runs, cblocks; /* items: runs of 16 pixels x blocks of 128 bytes of channels */
    int64_t count;     /* items; 0: tiles */
    int tgx, tgy;      /* tiles: pixel tiles x channel tiles an image */
    int64_t blocks;
};
template <typename T>
static inline dcn_nhwc_plan dcn_nhwc_plan_of(int64_t n, int c, int hw, const T *in) {
    constexpr int CB = 128 / (int)sizeof(T); /* channels of an item */
    dcn_nhwc_plan t;
    t.c = c, t.hw = hw, t.runs = (hw + 15) / 16, t.cblocks = (c + CB - 1) / CB;
    t.tgx = (hw + 31) / 32, t.tgy = (c + 31) / 32;
    const bool vec = hw % 4 == 0 && c % (16 / (int)sizeof(T)) == 0 && (uintptr_t)in % 16 == 0;
    t.count = vec ? n * t.runs * t.cblocks : 0;
    t.blocks = vec ? (t.count + 7) / 8 : n * t.tgx * t.tgy;
    return t;
}
template <typename T, bool KEEP = false>
__device__ __forceinline__ void dcn_nhwc_item(const T *in, T *out, const dcn_nhwc_plan &t,
                                              int64_t it, int lane) {
    constexpr int VW = 16 / (int)sizeof(T), CB = 8 * VW;
    const int run = (int)(it % t.runs);
    const int64_t ib = it / t.runs, img = ib / t.cblocks;
    const int cb = (int)(ib - img * t.cblocks);
    const int p = run * 16 + lane / 8 * 4, c = cb * CB + lane % 8 * VW;
    if (p >= t.hw || c >= t.c) return;
    const T *src = in + (img * t.c + c) * t.hw + p;
    const uint64_t pol_in = KEEP ? dcn_l2_policy<dcn_evict::first>() : 0,
                   pol_out = KEEP ? dcn_l2_policy<dcn_evict::last>() : 0;
    auto load = [&](auto *a) { return dcn_ld_policy<KEEP>(a, pol_in); };
    uint4 o[4];
    if constexpr (sizeof(T) == 4) {
        float4 v[VW];
#pragma unroll
        for (int e = 0; e < VW; e++) v[e] = load((const float4 *)(src + (int64_t)e * t.hw));
        o[0] = make_uint4(__float_as_uint(v[0].x), __float_as_uint(v[1].x), __float_as_uint(v[2].x),
                          __float_as_uint(v[3].x));
        o[1] = make_uint4(__float_as_uint(v[0].y), __float_as_uint(v[1].y), __float_as_uint(v[2].y),
                          __float_as_uint(v[3].y));
        o[2] = make_uint4(__float_as_uint(v[0].z), __float_as_uint(v[1].z), __float_as_uint(v[2].z),
                          __float_as_uint(v[3].z));
        o[3] = make_uint4(__float_as_uint(v[0].w), __float_as_uint(v[1].w), __float_as_uint(v[2].w),
                          __float_as_uint(v[3].w));
    } else { /* 4 pixels of a plane in 8 bytes; a pixel's channel pairs by byte_perm */
        uint2 v[VW];
#pragma unroll
        for (int e = 0; e < VW; e++) v[e] = load((const uint2 *)(src + (int64_t)e * t.hw));
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const unsigned sel = j % 2 ? 0x7632u : 0x5410u; /* high or low halves */
            uint32_t w[4];
#pragma unroll
            for (int m = 0; m < 4; m++)
                w[m] = __byte_perm(j < 2 ? v[2 * m].x : v[2 * m].y,
                                   j < 2 ? v[2 * m + 1].x : v[2 * m + 1].y, sel);
            o[j] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
    T *dst = out + (img * t.hw + p) * t.c + c;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint4 *at = (uint4 *)(dst + (int64_t)j * t.c);
        dcn_st_policy<KEEP>(at, o[j], pol_out);
    }
}
/* Block bx of the plan, by its 256 threads (tid). */
template <typename T, bool KEEP = false>
__device__ __forceinline__ void dcn_nhwc_block(const T *__restrict__ in, T *__restrict__ out,
                                               const dcn_nhwc_plan &t, int64_t bx, int tid) {
    if (t.count > 0) {
        const int64_t it = bx * 8 + tid / 32;
        if (it < t.count) dcn_nhwc_item<T, KEEP>(in, out, t, it, tid % 32);
        return;
    }
    const int64_t img = bx / ((int64_t)t.tgx * t.tgy) * t.c * t.hw;
    const int tile = (int)(bx % ((int64_t)t.tgx * t.tgy));
    dcn_nhwc_tile(in + img, out + img, t.c, t.hw, tile / t.tgx * 32, tile % t.tgx * 32, tid % 32,
                  tid / 32);
}

/* The NHWC copy of the input: workspace of every NHWC variant. */
static inline size_t dcn_nhwc_bytes(const kb_dcn_params *p) {
    return (size_t)(p->n * kb_dcn_sizes_of(p).input_img) * kb_dtype_size(p->dtype);
}

/* Channel counts that keep every 16-byte vector inside one weight group and one
 * offset group, on a 16-byte boundary. */
static inline int dcn_nhwc_limits(const kb_dcn_params *p, kb_error *why) {
    int64_t vw = 16 / (int64_t)kb_dtype_size(p->dtype);
    int64_t cin_g = p->c_in / p->groups, cin_og = p->c_in / p->offset_groups;
    if (cin_g % vw || cin_og % vw) {
        kb_fail(why,
                "c_in/groups = %lld and c_in/offset_groups = %lld must be multiples of %lld "
                "(channels per 16-byte vector)",
                (long long)cin_g, (long long)cin_og, (long long)vw);
        return KB_UNSUPPORTED;
    }
    return KB_OK;
}

/* The weights in the NHWC columns' K order: wr[co][k][cl] = w[co][cl][k],
 * rows of ld >= kd elements; in slices of sl channels (sl < cin_g: the
 * windowed im2col's order [cl / sl][k][cl % sl]); TF32: f32 weights rounded
 * to tf32 on the way (mma.sync would truncate). bias (ld > kd): wr[co][kd] =
 * bias[co] and the rest of the row 0, the bias column of explicit_nhwc's
 * padded GEMM. Elements i0, i0 + step, ... of wr. */
template <typename T, bool TF32>
__device__ __forceinline__ void dcn_taps_first_part(const T *w, const T *bias, T *wr,
                                                    const dcn_dims &d, int ld, int sl, int i0,
                                                    int step) {
    const int total = d.c_out * ld;
    for (int i = i0; i < total; i += step) {
        int co = i / ld, r = i - co * ld;
        if (r >= d.kd) {
            wr[i] = r == d.kd && bias ? bias[co] : dcn_from_f32<T>(0.f);
            continue;
        }
        int cl = r / d.taps, k = r - cl * d.taps;
        T v = w[co * d.kd + r];
        if constexpr (TF32) v = __uint_as_float(kb_tf32_bits(v));
        wr[co * ld + (cl / sl * d.taps + k) * sl + cl % sl] = v;
    }
}

/* What the NHWC variants do before they sample, in one launch: blocks
 * [0, wb) reorder the weights (dcn_taps_first_part), the rest transpose the
 * input to NHWC (plan t). The two outputs are independent, so their blocks
 * run side by side and the launch lasts about as long as the transpose; as
 * two kernels the reorder (a few us, latency-bound: ~37K to 590K elements)
 * ran after it. wb = 0: the transpose alone (nhwc_gemm, whose weights stay
 * in their own order). */
template <typename T, bool TF32>
__global__ void __launch_bounds__(256)
    dcn_prep_nhwc(const T *__restrict__ in, T *__restrict__ nhwc, dcn_nhwc_plan t,
                  const T *__restrict__ w, const T *__restrict__ bias, T *__restrict__ wr,
                  dcn_dims d, int ld, int sl, int wb) {
    if ((int)blockIdx.x < wb) {
        dcn_taps_first_part<T, TF32>(w, bias, wr, d, ld, sl, blockIdx.x * 256 + threadIdx.x,
                                     wb * 256);
        return;
    }
    dcn_nhwc_block(in, nhwc, t, (int64_t)blockIdx.x - wb, threadIdx.x);
}

/* Enqueue the transpose of the input into nhwc and, with w, the reorder of
 * the weights into wr (c_out rows of ld elements, ld = 0: kd; sl > 0: K in
 * slices of sl channels, [slice][tap][channel of the slice]; bias: the bias
 * column, ld > kd), as dcn_prep_nhwc. */
template <typename T, bool TF32 = false>
static int dcn_prep(const kb_dcn_params *p, const T *in, T *nhwc, cudaStream_t s, kb_error *e,
                    const T *w = nullptr, T *wr = nullptr, const T *bias = nullptr, int64_t ld = 0,
                    int sl = 0) {
    const dcn_nhwc_plan t = dcn_nhwc_plan_of<T>(p->n, (int)p->c_in, (int)(p->h * p->w), in);
    const dcn_dims d = dcn_dims_of(p);
    if (ld == 0) ld = d.kd;
    if (sl == 0) sl = d.cin_g;
    const int64_t wn = w ? p->c_out * ld : 0,
                  wb = (wn + 255) / 256 < 1024 ? (wn + 255) / 256 : 1024;
    if (t.blocks + wb == 0) return KB_OK;
    kb_nvtx_push("nhwc");
    dcn_prep_nhwc<T, TF32><<<(unsigned)(wb + t.blocks), 256, 0, s>>>(in, nhwc, t, w, bias, wr, d,
                                                                     (int)ld, sl, (int)wb);
    kb_nvtx_pop();
    return kb_cuda_check(cudaGetLastError(), "dcn_prep_nhwc", e);
}

#endif
