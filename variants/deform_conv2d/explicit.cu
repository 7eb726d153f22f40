/* explicit.cu — deform_conv2d as deformable im2col into a columns
 * buffer, then cuBLAS (torchvision's design; explicit_torchvision.cu holds
 * torchvision's exact structure):
 *   explicit_gemm_i32 / _i64  int32 / int64 indices (i32: supports() bounds them)
 *   explicit_gemm_tf32        the i32 variant with cuBLAS in tf32 (f32 data only)
 *   explicit_nhwc / _tf32     a channels-last im2col of our own: one 16-byte
 *                             vector of channels a thread, the block's input
 *                             window in shared memory where it fits (the im2col
 *                             axis picks), int32 indices
 * The layouts, and how they differ from torchvision's: above run_typed().
 * Measurements: docs/perf-deform_conv2d.md.
 *
 *   kbench run deform_conv2d --sweep default -v explicit_gemm_i32,explicit_nhwc
 */
#include "dcn_nhwc.cuh"
#include "../common/variant_def.h"

#include <cublas_v2.h>
#include <stdlib.h>
#include <string.h>

/* 128M column elements per block of images (512 MB in f32). */
static const int64_t COLUMNS_BUDGET = (int64_t)1 << 27;
/* cuBLAS workspace set explicitly: required for capture into a CUDA graph. */
static const size_t CUBLAS_WORKSPACE = (size_t)32 << 20;

/* Channels per im2col thread: the bilinear weights of a (pixel, tap) serve
 * this many channels (one offset group's), so the coordinate math and the
 * offset/mask loads run once per CH samples instead of once per sample. */
constexpr int CH = 8;

/* Corner index and mask-scaled bilinear weights of (image b, offset group og,
 * tap k) at output pixel pix = (oy, ox). */
template <typename T, typename I>
__device__ __forceinline__ void im2col_tap(const dcn_ptrs<T> &p, const dcn_dims &d, I b, int og,
                                           int k, I pix, int oy, int ox, I *base, float4 *wt) {
    I P = (I)d.ho * d.wo;
    const T *off = p.off + (b * d.og + og) * 2 * d.taps * P + pix;
    float m = d.mask ? dcn_f32(p.mask[((b * d.og + og) * d.taps + k) * P + pix]) : 1.f;
    dcn_corner_weights(d, k, oy, ox, dcn_f32(off[2 * k * P]), dcn_f32(off[(2 * k + 1) * P]), m,
                       base, wt);
}

/* One thread per (image of the block, chunk of CH channels, output pixel).
 * TAPS > 0 (the kernel's kh*kw at compile time): the corner indices and
 * weights of all taps stay in registers, so the loop runs channel by channel
 * with the taps inside: a warp's taps of one channel read the same few lines
 * of one plane back to back (L1 hits). TAPS = 0 (any kh*kw): taps outside,
 * channels inside, the weights recomputed per tap; a warp then walks CH
 * planes per tap and its lines leave L1 before the next tap reuses them (ncu
 * at (2,64,200,336): L2 87% busy, DRAM 27%). Both read the pixel's offsets
 * and mask coalesced and write each column row coalesced. */
template <typename T, typename I, int TAPS>
__global__ void dcn_im2col(dcn_ptrs<T> p, T *cols, dcn_dims d, int nb) {
    const int chunks = (d.c_in + CH - 1) / CH;
    I P = (I)d.ho * d.wo, total = (I)nb * chunks * P;
    const I stride = (I)gridDim.x * blockDim.x;
    for (I idx = (I)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
        I pix = idx % P, t = idx / P;
        int c0 = (int)(t % chunks) * CH, c1 = min(c0 + CH, d.c_in);
        I b = t / chunks;
        int oy = (int)(pix / d.wo), ox = (int)(pix % d.wo);
        const I last = (I)d.h * d.w - 1;
        if constexpr (TAPS > 0) {
            I base[TAPS];
            float4 wt[TAPS];
            int og = -1;
            for (int ci = c0; ci < c1; ci++) {
                if (ci / d.cin_og != og) { /* the chunk's first channel, or a new offset group */
                    og = ci / d.cin_og;
#pragma unroll
                    for (int k = 0; k < TAPS; k++)
                        im2col_tap(p, d, b, og, k, pix, oy, ox, &base[k], &wt[k]);
                }
                const T *plane = p.in + (b * d.c_in + ci) * d.h * d.w;
                T *col = cols + (b * d.c_in + ci) * TAPS * P + pix;
                /* All taps' loads before the first store: a store may alias
                 * the input as far as the compiler knows, so loads after it
                 * wait for it (a memory latency per tap). */
                float v[TAPS];
#pragma unroll
                for (int k = 0; k < TAPS; k++)
                    v[k] = dcn_blend(plane, base[k], (I)d.w, last, wt[k]);
#pragma unroll
                for (int k = 0; k < TAPS; k++) col[k * P] = dcn_from_f32<T>(v[k]);
            }
        } else {
            for (int k = 0; k < d.taps; k++) {
                int og = -1;
                I base = 0;
                float4 wt = make_float4(0.f, 0.f, 0.f, 0.f);
                for (int ci = c0; ci < c1; ci++) {
                    if (ci / d.cin_og != og) {
                        og = ci / d.cin_og;
                        im2col_tap(p, d, b, og, k, pix, oy, ox, &base, &wt);
                    }
                    const T *plane = p.in + (b * d.c_in + ci) * d.h * d.w;
                    cols[((b * d.c_in + ci) * d.taps + k) * P + pix] =
                        dcn_from_f32<T>(dcn_blend(plane, base, (I)d.w, last, wt));
                }
            }
        }
        if (total - idx <= stride) break; /* idx + stride would pass INT32_MAX */
    }
}

/* Bias rows: row = image * c_out + co of the block (P pixels each), rows
 * blockIdx.y, + gridDim.y, ...; 4 pixels a thread, one 16-byte store where the
 * row is aligned (f32). */
template <typename T> __global__ void dcn_fill_bias(dcn_ptrs<T> p, dcn_dims d, int64_t rows) {
    int64_t P = (int64_t)d.ho * d.wo, at = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (at >= P) return;
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        T v = p.b[row % d.c_out], *out = p.out + row * P + at;
        if (sizeof(T) == 4 && at + 4 <= P && ((uintptr_t)out & 15) == 0) {
            float f = dcn_f32(v);
            *(float4 *)out = make_float4(f, f, f, f);
        } else {
            for (int q = 0; q < 4 && at + q < P; q++) out[q] = v;
        }
    }
}

__device__ __forceinline__ unsigned short dcn_ushort(__half v) {
    return __half_as_ushort(v);
}
__device__ __forceinline__ unsigned short dcn_ushort(__nv_bfloat16 v) {
    return __bfloat16_as_ushort(v);
}
__device__ __forceinline__ unsigned short dcn_ushort(float) { /* not called: f32 stores floats */
    return 0;
}

/* 4 consecutive elements at p (aligned to 4 elements) as floats. */
template <typename T> __device__ __forceinline__ void dcn_load4(const T *p, float (&f)[4]) {
    if constexpr (sizeof(T) == 4) {
        float4 v = *(const float4 *)p;
        f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w;
    } else {
        uint2 v = *(const uint2 *)p;
        f[0] = dcn_f32(dcn_bits<T>((unsigned short)(v.x & 0xFFFFu)));
        f[1] = dcn_f32(dcn_bits<T>((unsigned short)(v.x >> 16)));
        f[2] = dcn_f32(dcn_bits<T>((unsigned short)(v.y & 0xFFFFu)));
        f[3] = dcn_f32(dcn_bits<T>((unsigned short)(v.y >> 16)));
    }
}

/* The blend of one 16-byte channel vector from its 4 corners r, packed back
 * into the data type. SKIP: dcn_blend's sum, zero weights skip their corner
 * (loaded at a clamped index, any value); else every corner is multiplied
 * (corners outside the image hold zeros): the same sum while the input is
 * finite, as torchvision's bilinear_interpolate multiplies its in-image corners. */
template <typename T, bool SKIP = true>
__device__ __forceinline__ uint4 nhwc_blend(const uint4 (&r)[4], float4 wt) {
    constexpr int VW = 16 / (int)sizeof(T);
    float c[4][VW], v[VW];
#pragma unroll
    for (int m = 0; m < 4; m++) dcn_unpack<T, VW>(r[m], c[m]);
#pragma unroll
    for (int e = 0; e < VW; e++) {
        v[e] = 0.f;
        if (!SKIP || wt.x != 0.f) v[e] += wt.x * c[0][e];
        if (!SKIP || wt.y != 0.f) v[e] += wt.y * c[1][e];
        if (!SKIP || wt.z != 0.f) v[e] += wt.z * c[2][e];
        if (!SKIP || wt.w != 0.f) v[e] += wt.w * c[3][e];
    }
    if constexpr (sizeof(T) == 4) {
        return make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]),
                          __float_as_uint(v[3]));
    } else {
        uint32_t w[4];
#pragma unroll
        for (int m = 0; m < 4; m++)
            w[m] = (uint32_t)dcn_ushort(dcn_from_f32<T>(v[2 * m])) |
                   (uint32_t)dcn_ushort(dcn_from_f32<T>(v[2 * m + 1])) << 16;
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* The bias column's vector (1, 0, ...) at the end of a columns row. */
template <typename T> __device__ __forceinline__ void nhwc_bias_one(T *at) {
    uint32_t one;
    if constexpr (sizeof(T) == 4)
        one = __float_as_uint(1.f);
    else
        one = dcn_ushort(dcn_from_f32<T>(1.f));
    *(uint4 *)at = make_uint4(one, 0, 0, 0);
}

/* Channels-last im2col: thread (image b of the block, pixel, vector cv of VW
 * channels), taps inside. in: the block's NHWC images; cols[b*P + pix][g][k][cl]
 * (the row of a pixel: taps * c_in elements). A warp reads whole 16-byte
 * channel vectors of a few pixels' corners (c_in/VW lanes per pixel), where
 * the NCHW im2col gathers 4 or 2 bytes per lane from scattered lines; offsets
 * and mask are read once per (pixel, tap) by every lane of the pixel (one
 * broadcast). Same corner weights and the same sum as dcn_blend. */
template <typename T>
__global__ void __launch_bounds__(256)
    dcn_im2col_nhwc(const T *__restrict__ in, dcn_ptrs<T> p, T *__restrict__ cols, dcn_dims d,
                    int nb, int row) {
    constexpr int VW = 16 / (int)sizeof(T);
    const int vecs = d.c_in / VW, P = d.ho * d.wo, total = nb * P * vecs, hw = d.h * d.w;
    const int stride = gridDim.x * blockDim.x;
    const bool pad = row > d.taps * d.c_in; /* the bias column: (1, 0, ...) after the taps */
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int q = idx / vecs, ci = (idx - q * vecs) * VW, b = q / P, pix = q - b * P;
        int oy = pix / d.wo, ox = pix - oy * d.wo, og = ci / d.cin_og, g = ci / d.cin_g;
        const T *img = in + b * hw * d.c_in + ci;
        T *col = cols + q * row + g * d.kd + (ci - g * d.cin_g);
        if (pad && ci == 0) nhwc_bias_one(cols + q * row + d.kd);
#pragma unroll 3
        for (int k = 0; k < d.taps; k++) {
            int base;
            float4 wt;
            im2col_tap<T, int>(p, d, b, og, k, pix, oy, ox, &base, &wt);
            auto at = [&](int i) {
                return *(const uint4 *)(img + min(max(i, 0), hw - 1) * d.c_in);
            };
            uint4 r[4] = {at(base), at(base + 1), at(base + d.w), at(base + d.w + 1)};
            *(uint4 *)(col + k * d.cin_g) = nhwc_blend<T>(r, wt);
        }
        if (total - idx <= stride) break; /* idx + stride would pass INT32_MAX */
    }
}

/* dcn_im2col_nhwc with the input staged in shared memory. A block takes a
 * tile of th x tw output pixels of one image and a slice of vn channel
 * vectors, and first copies the window of input pixels its taps reach with
 * offsets up to WIN_R pixels (wh x ww pixels x vn vectors, cp.async, zeros
 * outside the image). Corners inside the window are read from there; a sample
 * further out reads its corners from global memory as dcn_im2col_nhwc does,
 * so any offset is right and small ones are fast. Measured by ncu, the
 * global-only kernel was L2-bound: an NHWC corner shares no sector with its
 * neighbour pixel's, and L1 kept 62% of the 4 corner loads per sample. */
constexpr int WIN_R = 5, WIN_NT = 512;
constexpr size_t WIN_SMEM = (size_t)112 << 10; /* two blocks an SM */

struct dcn_win {
    int th, tw, vn, wh, ww, tiles_y, tiles_x, slices;
    bool quad_loads; /* wo % 4 == 0: a quad's offsets and mask in one 4-element load */
    size_t bytes;    /* of shared memory */
};

/* The tallest tile whose window fits WIN_SMEM; false: none fits, or (unless
 * forced) its grid has under two blocks per SM of nb images. The small layers
 * run the global-only kernel: at (1,256,50,84) f16 the window took 55.8 us
 * against its 46 (docs/perf-deform_conv2d.md, "Tried and rejected: the window
 * on the small layers"). */
static bool dcn_win_of(const dcn_dims &d, int vw, int64_t nb, int sms, bool force, dcn_win *w) {
    const int vns[] = {4, 2, 1}, ths[] = {8, 4, 2, 1};
    for (int vn : vns) {
        if ((d.cin_g / vw) % vn || (d.cin_og / vw) % vn) continue;
        for (int th : ths) {
            w->th = th, w->tw = d.wo < 64 ? d.wo : 64, w->vn = vn;
            w->wh = (th - 1) * d.sh + (d.kh - 1) * d.dh + 2 * WIN_R + 2;
            w->ww = (w->tw - 1) * d.sw + (d.kw - 1) * d.dw + 2 * WIN_R + 2;
            w->bytes = (size_t)w->wh * w->ww * vn * 16;
            if (w->bytes > WIN_SMEM || w->tw < 1 || d.taps * vn > WIN_NT) continue;
            w->tiles_y = (d.ho + th - 1) / th, w->tiles_x = (d.wo + w->tw - 1) / w->tw;
            w->slices = d.c_in / vw / vn;
            w->quad_loads = d.wo % 4 == 0;
            return force || nb * w->slices * w->tiles_y * w->tiles_x >= 2 * sms;
        }
    }
    return false;
}

template <typename T>
__global__ void __launch_bounds__(WIN_NT, 2)
    dcn_im2col_nhwc_win(const T *__restrict__ in, dcn_ptrs<T> p, T *__restrict__ cols, dcn_dims d,
                        int row, dcn_win w) {
    constexpr int VW = 16 / (int)sizeof(T);
    extern __shared__ uint4 win[];
    int bid = blockIdx.x; /* slice fastest: the blocks of a tile share its offsets in L2 */
    const int sl = bid % w.slices;
    bid /= w.slices;
    const int tx = bid % w.tiles_x;
    bid /= w.tiles_x;
    const int ty = bid % w.tiles_y, b = bid / w.tiles_y;
    const int oy0 = ty * w.th, ox0 = tx * w.tw, iy0 = oy0 * d.sh - d.ph - WIN_R,
              ix0 = ox0 * d.sw - d.pw - WIN_R, hw = d.h * d.w, c0 = sl * w.vn * VW;
    const T *img = in + b * hw * d.c_in;
    const uint32_t s0 = (uint32_t)__cvta_generic_to_shared(win);
    for (int l = threadIdx.x; l < w.wh * w.ww * w.vn; l += WIN_NT) {
        int v = l % w.vn, c = l / w.vn, gx = ix0 + c % w.ww, gy = iy0 + c / w.ww;
        bool in_img = gy >= 0 && gy < d.h && gx >= 0 && gx < d.w;
        kb_cp_async16(s0 + l * 16, img + (in_img ? gy * d.w + gx : 0) * d.c_in + c0 + v * VW,
                      in_img);
    }
    kb_cp_async_wait_all();
    __syncthreads();

    /* Thread t < pass * per_pix samples (tap k, vector v) = t % per_pix of
     * quads of 4 pixels of a tile row, t / per_pix, + pass, ...: in a warp
     * the vector runs fastest, then the tap, so a warp writes ~512 contiguous
     * bytes of a pixel's slice run (taps * vn vectors); k and v stay fixed per
     * thread, and it reads a quad's 4 offsets and mask values at once.
     * A sample inside the window takes the bilinear weights without the
     * corners' edge tests: the window holds zeros outside the image, so an
     * outside corner adds w * 0, as torchvision's bilinear_interpolate does,
     * and the sum is the one the tested weights give while the input is
     * finite. The tap's (i, j) and the window's shared addresses are per
     * thread: per-sample instructions bounded this kernel (perf notes). */
    const int P = d.ho * d.wo, g = c0 / d.cin_g, og = c0 / d.cin_og, per_pix = d.taps * w.vn;
    const int pass = WIN_NT / per_pix, t = threadIdx.x, quads = (w.tw + 3) / 4;
    if (t >= pass * per_pix) return;
    const int kv = t % per_pix, k = kv / w.vn, v = kv - k * w.vn, ci = c0 + v * VW;
    const int ki = k / d.kw, ty0 = ki * d.dh - d.ph, tx0 = (k - ki * d.kw) * d.dw - d.pw;
    const bool bias_col = row > d.taps * d.c_in && c0 == 0 && kv == 0; /* writes (1, 0, ...) */
    T *const col0 = cols + g * d.kd + (c0 - g * d.cin_g) * d.taps + kv * VW;
    const T *const off = p.off + ((b * d.og + og) * 2 * d.taps + 2 * k) * P;
    const T *const mk = d.mask ? p.mask + ((b * d.og + og) * d.taps + k) * P : nullptr;
    const float fh = (float)d.h, fw = (float)d.w;
    const uint32_t sv = s0 + v * 16, cstep = w.vn * 16, rstep = w.ww * cstep; /* bytes */
    int ey = (t / per_pix) / quads, ex = (t / per_pix) % quads * 4; /* the quad, in the tile */
    for (; ey < w.th; ex += 4 * pass) {
        while (ex >= w.tw) ex -= 4 * quads, ey++; /* pass < quads mostly: once or never */
        const int oy = oy0 + ey, ox = ox0 + ex;
        if (ey >= w.th || oy >= d.ho) break;
        const int pix = oy * d.wo + ox, n = min(4, min(w.tw - ex, d.wo - ox));
        float dy[4], dx[4], m[4];
        if (w.quad_loads && n == 4) { /* pix % 4 == 0 and P % 4 == 0: aligned */
            dcn_load4(off + pix, dy), dcn_load4(off + P + pix, dx);
            if (mk) dcn_load4(mk + pix, m);
        } else {
#pragma unroll
            for (int u = 0; u < 4; u++)
                if (u < n) dy[u] = dcn_f32(off[pix + u]), dx[u] = dcn_f32(off[P + pix + u]);
            if (mk)
#pragma unroll
                for (int u = 0; u < 4; u++)
                    if (u < n) m[u] = dcn_f32(mk[pix + u]);
        }
        /* dcn_tap_point's sum: the integer part exact, then the offset */
        const float fy = (float)(oy * d.sh + ty0);
        const int xi = ox * d.sw + tx0;
        T *col = col0 + (b * P + pix) * row;
#pragma unroll
        for (int u = 0; u < 4; u++) {
            if (u >= n) break;
            if (bias_col) nhwc_bias_one(col + d.kd);
            const float y = fy + dy[u], x = (float)(xi + u * d.sw) + dx[u];
            uint4 out = make_uint4(0, 0, 0, 0); /* outside the image: kb_dcn_corners' test */
            if (KB_DCN_INSIDE(float, y, x, fh, fw)) {
                const float yf = floorf(y), xf = floorf(x);
                const int wy = (int)yf - iy0, wx = (int)xf - ix0;
                if ((unsigned)wy < (unsigned)(w.wh - 1) && (unsigned)wx < (unsigned)(w.ww - 1)) {
                    const float ly = y - yf, lx = x - xf, hy = 1.f - ly, hx = 1.f - lx;
                    float4 wt = make_float4(hy * hx, hy * lx, ly * hx, ly * lx);
                    if (mk) wt = make_float4(wt.x * m[u], wt.y * m[u], wt.z * m[u], wt.w * m[u]);
                    const uint32_t a = sv + (uint32_t)(wy * w.ww + wx) * cstep;
                    const uint4 r[4] = {kb_lds128(a), kb_lds128(a + cstep), kb_lds128(a + rstep),
                                        kb_lds128(a + rstep + cstep)};
                    out = nhwc_blend<T, false>(r, wt);
                } else { /* beyond the window: the tested weights, clamped global loads */
                    int base;
                    float4 wt;
                    dcn_point_weights(d, y, x, mk ? m[u] : 1.f, &base, &wt);
                    auto at = [&](int j) {
                        return *(const uint4 *)(img + min(max(j, 0), hw - 1) * d.c_in + ci);
                    };
                    const uint4 r[4] = {at(base), at(base + 1), at(base + d.w), at(base + d.w + 1)};
                    out = nhwc_blend<T>(r, wt);
                }
            }
            *(uint4 *)col = out;
            col += row;
        }
    }
}

struct explicit_state {
    kb_dcn_params p;
    cublasComputeType_t compute;
    int64_t block; /* images per columns block */
    void *cols, *cublas_ws;
    void *nhwc, *wr; /* explicit_nhwc*: the NHWC input, the reordered weights */
    bool windowed;   /* explicit_nhwc*: dcn_im2col_nhwc_win samples, with win */
    int sms;         /* the device's, for the im2col grids */
    dcn_win win;
    cublasHandle_t handle;
};

/* explicit_nhwc* with a bias and one weight group: the bias rides in the GEMM
 * as one more K vector — columns rows end in (1, 0, ...), weight rows in
 * (bias, 0, ...) — instead of a fill of the output that the GEMM then reads
 * back (beta = 1): 23.7 us of 999 at (8,256,64,64) f32. Elements added to a
 * row (one 16-byte vector), 0 for the other variants. */
static int64_t bias_pad(const kb_dcn_params *p, bool nhwc) {
    return nhwc && p->bias && p->groups == 1 ? 16 / (int64_t)kb_dtype_size(p->dtype) : 0;
}

/* Columns elements per image: [k][pixel] (NCHW) or [pixel][k + pad] (NHWC). */
static int64_t columns_per_img(const kb_dcn_params *p, bool nhwc) {
    return kb_dcn_sizes_of(p).columns_img + p->ho * p->wo * bias_pad(p, nhwc);
}

static int64_t images_per_block(const kb_dcn_params *p, int index32, bool nhwc) {
    kb_dcn_sizes s = kb_dcn_sizes_of(p);
    int64_t cols = columns_per_img(p, nhwc);
    int64_t nb = cols > 0 ? COLUMNS_BUDGET / cols : 1;
    if (index32) { /* every per-block count stays an int */
        int64_t per_img[] = {s.input_img, s.offset_img, cols, s.output_img};
        for (int64_t c : per_img)
            if (c > 0 && INT32_MAX / c < nb) nb = INT32_MAX / c;
    }
    if (nb > p->n) nb = p->n;
    return nb < 1 ? 1 : nb;
}

template <int INDEX32, bool NHWC = false> static int supports(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (!NHWC && dcn_im2col_auto_only(&p, why) != KB_OK) return KB_NOT_APPLICABLE;
    kb_dcn_sizes s = kb_dcn_sizes_of(&p);
    int64_t P = p.ho * p.wo, kd = s.weight / p.c_out;
    /* cuBLAS takes m, n, k, lda as ints whatever the variant's index width */
    dcn_count gemm[] = {{"GEMM m = ho*wo", P}, {"GEMM k = c_in/groups*kh*kw", kd}};
    if (dcn_check_int32(gemm, 2, "cuBLAS dimensions are int", why) != KB_OK) return KB_UNSUPPORTED;
    if (!INDEX32) return KB_OK;
    int64_t nb = images_per_block(&p, 1, NHWC);
    dcn_count idx[] = {
        {"input block", nb * s.input_img},   {"offset block", nb * s.offset_img},
        {"mask block", nb * s.mask_img},     {"columns", nb * columns_per_img(&p, NHWC)},
        {"output block", nb * s.output_img}, {"weight", s.weight},
    };
    return dcn_check_int32(idx, 6, "32-bit indices", why);
}

/* explicit_nhwc*: the i32 limits, 16-byte channel vectors inside one weight
 * and one offset group; tf32: f32 data only. */
template <int TF32> static int supports_nhwc(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (TF32 && dcn_takes_dtype(&p, KB_F32, why) != KB_OK) return KB_NOT_APPLICABLE;
    if (dcn_nhwc_limits(&p, why) != KB_OK) return KB_UNSUPPORTED;
    if (p.im2col == KB_DCN_IM2COL_WINDOW &&
        kb_gpu_require(KB_CC_CP_ASYNC, "cp.async (im2col=window)", why) != KB_OK)
        return KB_UNSUPPORTED;
    return supports<1, true>(c, why);
}

static size_t columns_bytes(const kb_dcn_params *p, int index32, bool nhwc) {
    return (size_t)(images_per_block(p, index32, nhwc) * columns_per_img(p, nhwc)) *
           kb_dtype_size(p->dtype);
}

/* The reordered weights of explicit_nhwc*: c_out rows of kd + pad. */
static size_t weight_bytes(const kb_dcn_params *p) {
    return (size_t)(kb_dcn_sizes_of(p).weight + p->c_out * bias_pad(p, true)) *
           kb_dtype_size(p->dtype);
}

template <int INDEX32, bool NHWC = false> static size_t workspace_bytes(const kb_case *c) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, NULL) != KB_OK) return 0;
    return columns_bytes(&p, INDEX32, NHWC) + CUBLAS_WORKSPACE +
           (NHWC ? dcn_nhwc_bytes(&p) + weight_bytes(&p) : 0);
}

static void teardown(void *state) {
    explicit_state *st = (explicit_state *)state;
    if (!st) return;
    if (st->handle) cublasDestroy(st->handle);
    cudaFree(st->cols);
    cudaFree(st->cublas_ws);
    cudaFree(st->nhwc);
    cudaFree(st->wr);
    free(st);
}

template <int INDEX32, int TF32, bool NHWC>
static int build(explicit_state *st, const kb_case *c, kb_error *e) {
    st->compute = TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    if (kb_dcn_params_from_case(c, &st->p, e) != KB_OK) return KB_ERR;
    st->block = images_per_block(&st->p, INDEX32, NHWC);
    st->sms = kb_gpu_sms(1);
    if (!dcn_alloc(&st->cols, columns_bytes(&st->p, INDEX32, NHWC)) ||
        !dcn_alloc(&st->cublas_ws, CUBLAS_WORKSPACE)) {
        kb_fail(e, "columns buffer: %zu bytes", columns_bytes(&st->p, INDEX32, NHWC));
        return KB_OUT_OF_MEMORY;
    }
    if (NHWC && (!dcn_alloc(&st->nhwc, dcn_nhwc_bytes(&st->p) ? dcn_nhwc_bytes(&st->p) : 16) ||
                 !dcn_alloc(&st->wr, weight_bytes(&st->p)))) {
        kb_fail(e, "NHWC input copy + reordered weights: %zu + %zu bytes", dcn_nhwc_bytes(&st->p),
                weight_bytes(&st->p));
        return KB_OUT_OF_MEMORY;
    }
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return kb_fail(e, "cublasCreate failed");
    st->handle = handle;
    if constexpr (!NHWC) return KB_OK;
    /* the im2col axis: window or global forced, or auto's choice; the window
     * stages with cp.async: global loads alone before 8.0 */
    if (st->p.im2col == KB_DCN_IM2COL_GLOBAL || kb_gpu_require(KB_CC_CP_ASYNC, "cp.async", NULL))
        return KB_OK;
    st->windowed = dcn_win_of(dcn_dims_of(&st->p), 16 / (int)kb_dtype_size(st->p.dtype), st->block,
                              st->sms, st->p.im2col == KB_DCN_IM2COL_WINDOW, &st->win);
    if (st->windowed) {
        const void *k = st->p.dtype == KB_F32   ? (const void *)dcn_im2col_nhwc_win<float>
                        : st->p.dtype == KB_F16 ? (const void *)dcn_im2col_nhwc_win<__half>
                                                : (const void *)dcn_im2col_nhwc_win<__nv_bfloat16>;
        KB_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)st->win.bytes),
                    e);
    }
    return KB_OK;
}

template <int INDEX32, int TF32 = 0, bool NHWC = false>
static int setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    return dcn_setup<explicit_state>(state, teardown, e, [&](explicit_state *st) {
        return build<INDEX32, TF32, NHWC>(st, c, e);
    });
}

static cudaDataType cuda_type(kb_dtype t) {
    return t == KB_F16 ? CUDA_R_16F : t == KB_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* The layouts. NCHW (explicit_gemm_*): columns [image][c_in*kh*kw][ho*wo],
 * so one strided-batched GEMM per weight group writes NCHW output directly.
 * NHWC (explicit_nhwc*): the input transposed to NHWC first; a thread samples
 * one 16-byte vector of channels (4 f32, 8 f16/bf16) of a pixel, one load per
 * corner, and writes it into the columns [image][pixel][group][...] with a
 * 16-byte store; with the input window staged (dcn_im2col_nhwc_win) K runs in
 * channel slices, [slice][tap][channel], else [tap][channel]; the weights are
 * reordered to the same K order.
 * Differences from torchvision's deform_conv2d_forward_kernel:
 *  - images go in blocks of ceil-div size under a columns budget, the last one
 *    short — not the largest divisor of n under 64 (one image at a time for a
 *    prime n > 64);
 *  - no transpose pass (the layout above);
 *  - the bias is written first and the GEMM accumulates onto it (beta = 1), or
 *    rides in the GEMM as one more K vector (explicit_nhwc*, one weight group).
 * cuBLAS runs in fp32 compute (no tf32, except the _tf32 variants) for every
 * dtype; f16/bf16 columns are stored in the data type, as torchvision's. */
template <typename T, typename I, bool NHWC>
static int run_typed(explicit_state *st, dcn_ptrs<T> p, cudaStream_t s, kb_error *e) {
    const kb_dcn_params *kp = &st->p;
    dcn_dims d = dcn_dims_of(kp);
    kb_dcn_sizes sz = kb_dcn_sizes_of(kp);
    int64_t P = kp->ho * kp->wo, kd = d.kd;
    cudaDataType ct = cuda_type(kp->dtype);
    if (cublasSetStream(st->handle, s) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(st->handle, st->cublas_ws, CUBLAS_WORKSPACE) != CUBLAS_STATUS_SUCCESS)
        return kb_fail(e, "cublasSetStream/cublasSetWorkspace failed");
    const float one = 1.f, zero = 0.f;
    const T *weight = p.w;
    /* NHWC: columns rows of row elements, K of the GEMM kk (+ the bias column) */
    const int64_t pad = bias_pad(kp, NHWC), row = d.taps * kp->c_in + pad, kk = kd + pad;
    if (NHWC) {
        int sl = st->windowed ? st->win.vn * (16 / (int)sizeof(T)) : 0; /* K order */
        if (dcn_prep<T>(kp, p.in, (T *)st->nhwc, s, e, p.w, (T *)st->wr, pad ? p.b : nullptr, kk,
                        sl) != KB_OK)
            return KB_ERR;
        weight = (const T *)st->wr;
    }
    for (int64_t b0 = 0; b0 < kp->n; b0 += st->block) {
        int nb = (int)(kp->n - b0 < st->block ? kp->n - b0 : st->block);
        dcn_ptrs<T> pb = p; /* this block's images: bases set on the host, in 64 bits */
        pb.in += b0 * sz.input_img;
        pb.off += b0 * sz.offset_img;
        if (kp->mask) pb.mask += b0 * sz.mask_img;
        pb.out += b0 * sz.output_img;
        /* one thread per item (NHWC: a 16-byte channel vector of a pixel; NCHW:
         * CH channels of a pixel), grid-stride past 32 blocks an SM */
        int64_t work =
            (int64_t)nb * P * (NHWC ? kp->c_in / (16 / (int)sizeof(T)) : (kp->c_in + CH - 1) / CH);
        const int64_t cap = (int64_t)st->sms * 32;
        int grid = (int)((work + 255) / 256 < cap ? (work + 255) / 256 : cap);
        kb_nvtx_push("im2col");
        if (NHWC && st->windowed) {
            const dcn_win &w = st->win;
            int64_t blocks = (int64_t)nb * w.slices * w.tiles_y * w.tiles_x;
            dcn_im2col_nhwc_win<T><<<(unsigned)blocks, WIN_NT, w.bytes, s>>>(
                (const T *)st->nhwc + b0 * sz.input_img, pb, (T *)st->cols, d, (int)row, w);
        } else if (NHWC)
            dcn_im2col_nhwc<T><<<grid, 256, 0, s>>>((const T *)st->nhwc + b0 * sz.input_img, pb,
                                                    (T *)st->cols, d, nb, (int)row);
        else if (d.taps == 9)
            dcn_im2col<T, I, 9><<<grid, 256, 0, s>>>(pb, (T *)st->cols, d, nb);
        else if (d.taps == 1)
            dcn_im2col<T, I, 1><<<grid, 256, 0, s>>>(pb, (T *)st->cols, d, nb);
        else
            dcn_im2col<T, I, 0><<<grid, 256, 0, s>>>(pb, (T *)st->cols, d, nb);
        kb_nvtx_pop();
        if (kb_cuda_check(cudaGetLastError(), "dcn_im2col", e) != KB_OK) return KB_ERR;
        if (kp->bias && !pad) { /* the GEMM accumulates onto it (beta = 1) */
            int64_t rows = (int64_t)nb * kp->c_out;
            dim3 fill((unsigned)((P + 1023) / 1024), (unsigned)(rows < 65535 ? rows : 65535));
            dcn_fill_bias<T><<<fill, 256, 0, s>>>(pb, d, rows);
            if (kb_cuda_check(cudaGetLastError(), "dcn_fill_bias", e) != KB_OK) return KB_ERR;
        }
        kb_nvtx_push("gemm");
        for (int g = 0; g < d.groups; g++) {
            /* column-major view: out^T[P x cout_g] = cols^T[P x kd] * W_g^T[kd x cout_g];
             * NHWC columns are [P][taps * c_in] rows, read transposed (lda = a row) */
            const T *a = (const T *)st->cols + (int64_t)g * kd * (NHWC ? 1 : P);
            cublasStatus_t rc = cublasGemmStridedBatchedEx(
                st->handle, NHWC ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)P, d.cout_g,
                (int)kk, &one, a, ct, NHWC ? (int)row : (int)P, columns_per_img(kp, NHWC),
                weight + (int64_t)g * d.cout_g * kk, ct, (int)kk, 0,
                kp->bias && !pad ? &one : &zero, pb.out + (int64_t)g * d.cout_g * P, ct, (int)P,
                sz.output_img, nb, st->compute, CUBLAS_GEMM_DEFAULT);
            if (rc != CUBLAS_STATUS_SUCCESS) {
                kb_nvtx_pop();
                return kb_fail(e, "cublasGemmStridedBatchedEx: status %d", (int)rc);
            }
        }
        kb_nvtx_pop();
    }
    return KB_OK;
}

template <typename I, bool NHWC = false>
static int run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    explicit_state *st = (explicit_state *)state;
    switch (st->p.dtype) {
    case KB_F16:
        return run_typed<__half, I, NHWC>(st, dcn_bind<__half>(in, out), s, e);
    case KB_BF16:
        return run_typed<__nv_bfloat16, I, NHWC>(st, dcn_bind<__nv_bfloat16>(in, out), s, e);
    default:
        return run_typed<float, I, NHWC>(st, dcn_bind<float>(in, out), s, e);
    }
}

/* The i32 variant's limits, on f32 cases only. */
static int supports_tf32(const kb_case *c, kb_error *why) {
    kb_dcn_params p;
    if (kb_dcn_params_from_case(c, &p, why) != KB_OK) return KB_ERR;
    if (dcn_takes_dtype(&p, KB_F32, why) != KB_OK) return KB_NOT_APPLICABLE;
    return supports<1>(c, why);
}

KB_DEFINE_VARIANT(deform_conv2d, explicit_gemm_tf32) = {supports_tf32, workspace_bytes<1>,
                                                        setup<1, 1>, run<int>, teardown};
KB_DEFINE_VARIANT(deform_conv2d, explicit_gemm_i32) = {supports<1>, workspace_bytes<1>, setup<1>,
                                                       run<int>, teardown};
KB_DEFINE_VARIANT(deform_conv2d, explicit_gemm_i64) = {supports<0>, workspace_bytes<0>, setup<0>,
                                                       run<int64_t>, teardown};
KB_DEFINE_VARIANT(deform_conv2d, explicit_nhwc) = {supports_nhwc<0>, workspace_bytes<1, true>,
                                                   setup<1, 0, true>, run<int, true>, teardown};
KB_DEFINE_VARIANT(deform_conv2d, explicit_nhwc_tf32) = {
    supports_nhwc<1>, workspace_bytes<1, true>, setup<1, 1, true>, run<int, true>, teardown};
