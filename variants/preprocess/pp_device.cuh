/* pp_device.cuh — what the preprocess variants share (resize + BGR->RGB +
 * HWC->CHW + normalise, fused; rules: kbench/ops/preprocess.h): the output
 * conversion, the normalisation, and the two kernels every rule runs on:
 *   naive  one thread per output pixel on a 2D grid (z = image), as the
 *          classic fused kernels do (every rule through kb_pp_sample, the
 *          nearest index rule as kb_pp_params.nn_rule says); with the
 *          letterbox rule this is the YOLOv5 warp-affine kernel
 *   vec    one thread per 4 output pixels of a row, the whole batch in one
 *          launch (its napkin math: above pp_vec)
 * and the variants' host side (setup, run, supports by rule). The variants:
 * nearest.cu, bilinear.cu, letterbox.cu, nearest_seed.cu.
 */
#ifndef KB_PP_DEVICE_CUH
#define KB_PP_DEVICE_CUH

#include "kbench/variant.h"
#include "kbench/ops/preprocess.h"

#include <cuda_fp16.h>
#include <stdint.h>
#include <stdlib.h>

template <typename T> __device__ __forceinline__ T pp_convert(float v);
template <> __device__ __forceinline__ float pp_convert<float>(float v) {
    return v;
}
template <> __device__ __forceinline__ __half pp_convert<__half>(float v) {
    return __float2half_rn(v);
}

__device__ __forceinline__ float pp_normalise(const kb_pp_params &p, int c, float v) {
    return (v * (1.0f / 255.0f) - p.mean[c]) * p.inv_std[c];
}

/* ---- naive: one thread per output pixel ---- */

template <typename T>
__global__ void pp_naive(const uint8_t *__restrict__ in, T *__restrict__ out, kb_pp_params p) {
    int dx = blockIdx.x * blockDim.x + threadIdx.x;
    int dy = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (dx >= p.out_w || dy >= p.out_h) return;
    const uint8_t *img = in + (size_t)b * p.in_h * p.in_w * 3;
    float rgb[3];
    kb_pp_sample(&p, img, dx, dy, rgb);
    size_t plane = (size_t)p.out_h * p.out_w;
    T *o = out + (size_t)b * 3 * plane + (size_t)dy * p.out_w + dx;
    for (int c = 0; c < 3; c++) o[c * plane] = pp_convert<T>(pp_normalise(p, c, rgb[c]));
}

/* 32x8 threads, a z-slice per image. */
template <typename T>
static void pp_launch_naive(const kb_pp_params &p, const uint8_t *in, void *out, cudaStream_t st) {
    dim3 block(32, 8);
    dim3 grid((p.out_w + 31) / 32, (p.out_h + 7) / 8, p.n);
    pp_naive<T><<<grid, block, 0, st>>>(in, (T *)out, p);
}

/* ---- vec: 4 output pixels per thread, whole batch ---- */

template <typename T> struct pp_vec4;
template <> struct pp_vec4<float> {
    static __device__ __forceinline__ void store(float *dst, const float v[4],
                                                 bool stream = false) {
        if (stream)
            __stcs(reinterpret_cast<float4 *>(dst), make_float4(v[0], v[1], v[2], v[3]));
        else
            *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
    }
};
template <> struct pp_vec4<__half> {
    static __device__ __forceinline__ void store(__half *dst, const float v[4],
                                                 bool stream = false) {
        __half2 a = __floats2half2_rn(v[0], v[1]), b = __floats2half2_rn(v[2], v[3]);
        uint2 u;
        u.x = *reinterpret_cast<uint32_t *>(&a);
        u.y = *reinterpret_cast<uint32_t *>(&b);
        if (stream)
            __stcs(reinterpret_cast<uint2 *>(dst), u);
        else
            *reinterpret_cast<uint2 *>(dst) = u;
    }
};

/* One thread per 4 consecutive output pixels of a row, the whole batch in
 * one 1D launch: the x coordinates are computed once per pixel and shared by
 * 3 channels, each plane gets one 16-byte (f32) or 8-byte (f16) store, and a
 * warp writes 512 contiguous bytes per plane.
 * Napkin: 16 x 1080p -> 640x640 f32 moves 178 MB; at ~3 TB/s that is ~60 us,
 * so the kernel must keep ~2 MB of loads in flight: 4 pixels x 12 byte loads
 * per thread x 2048 threads/SM x 132 SMs is plenty.
 * kStream: the stores evict-first (st.global.cs), so that the output's lines
 * leave L2 before the input rows that neighbouring blocks still read
 * (bilinear_vec: 2.4% at n = 16, docs/perf-preprocess.md). */
template <kb_pp_interp MODE, typename T, bool kStream = false>
__global__ void __launch_bounds__(256)
    pp_vec(const uint8_t *__restrict__ in, T *__restrict__ out, kb_pp_params p, int groups,
           unsigned long long total) {
    unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    int g = (int)(t % groups);
    unsigned long long rest = t / groups;
    int dy = (int)(rest % p.out_h);
    int b = (int)(rest / p.out_h);
    const uint8_t *img = in + (size_t)b * p.in_h * p.in_w * 3;

    int y0 = 0, y1 = 0;
    float fy = 0.0f;
    if (MODE == KB_PP_LETTERBOX) { /* rows come from the affine map, per pixel */
    } else if (MODE == KB_PP_NEAREST)
        y0 = y1 = kb_pp_nearest_src(dy, p.in_h, p.out_h);
    else
        kb_pp_linear_src(dy, (float)p.in_h / (float)p.out_h, p.in_h, &y0, &y1, &fy);
    const uint8_t *r0 = img + (size_t)y0 * p.in_w * 3, *r1 = img + (size_t)y1 * p.in_w * 3;
    float scale_x = (float)p.in_w / (float)p.out_w;

    float v[3][4];
    int dx0 = g * 4;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int dx = min(dx0 + k, p.out_w - 1); /* the tail repeats the last pixel, unstored */
        if (MODE == KB_PP_LETTERBOX) {
            float rgb[3];
            kb_pp_letterbox_pixel(img, p.in_h, p.in_w, p.d2i, dx, dy, rgb);
#pragma unroll
            for (int c = 0; c < 3; c++) v[c][k] = pp_normalise(p, c, rgb[c]);
        } else if (MODE == KB_PP_NEAREST) {
            const uint8_t *px = r0 + kb_pp_nearest_src(dx, p.in_w, p.out_w) * 3;
#pragma unroll
            for (int c = 0; c < 3; c++) v[c][k] = pp_normalise(p, c, (float)__ldg(px + 2 - c));
        } else {
            int x0, x1;
            float fx;
            kb_pp_linear_src(dx, scale_x, p.in_w, &x0, &x1, &fx);
#pragma unroll
            for (int c = 0; c < 3; c++) {
                float s =
                    kb_pp_bilinear(__ldg(r0 + x0 * 3 + 2 - c), __ldg(r0 + x1 * 3 + 2 - c),
                                   __ldg(r1 + x0 * 3 + 2 - c), __ldg(r1 + x1 * 3 + 2 - c), fx, fy);
                v[c][k] = pp_normalise(p, c, s);
            }
        }
    }
    size_t plane = (size_t)p.out_h * p.out_w;
    T *o = out + (size_t)b * 3 * plane + (size_t)dy * p.out_w + dx0;
    /* Whole aligned groups take one vector store per plane: rows start
     * 4-aligned when out_w % 4 == 0 (then so does every plane). */
    if (p.out_w % 4 == 0) {
#pragma unroll
        for (int c = 0; c < 3; c++) pp_vec4<T>::store(o + c * plane, v[c], kStream);
    } else {
        int n = min(4, p.out_w - dx0);
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < n; k++) o[c * plane + k] = pp_convert<T>(v[c][k]);
    }
}

/* ---- launchers and the variant tables ---- */

typedef struct pp_state {
    kb_pp_params p;
} pp_state;

static inline int pp_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    pp_state *s = (pp_state *)malloc(sizeof *s);
    if (!s) return kb_fail(e, "out of host memory");
    s->p = kb_pp_params_of(c);
    *state = s;
    return KB_OK;
}

static inline void pp_teardown(void *state) {
    free(state);
}
static inline size_t pp_no_workspace(const kb_case *c) {
    return 0;
}

template <kb_pp_interp MODE, typename T, bool kStream = false>
static void launch_vec(const pp_state *s, const uint8_t *in, void *out, cudaStream_t st) {
    int groups = (s->p.out_w + 3) / 4;
    unsigned long long total = (unsigned long long)s->p.n * s->p.out_h * groups;
    unsigned blocks = (unsigned)((total + 255) / 256);
    pp_vec<MODE, T, kStream><<<blocks, 256, 0, st>>>(in, (T *)out, s->p, groups, total);
}

static inline int pp_run_naive(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t st,
                               kb_error *e) {
    const pp_state *s = (const pp_state *)state;
    const uint8_t *img = (const uint8_t *)in->t[0].data;
    if (s->p.out_dtype == KB_F16)
        pp_launch_naive<__half>(s->p, img, out->t[0].data, st);
    else
        pp_launch_naive<float>(s->p, img, out->t[0].data, st);
    return kb_cuda_check(cudaGetLastError(), "preprocess naive launch", e);
}

template <kb_pp_interp MODE, bool kStream = false>
static int pp_run_vec(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t st,
                      kb_error *e) {
    const pp_state *s = (const pp_state *)state;
    const uint8_t *img = (const uint8_t *)in->t[0].data;
    if (s->p.out_dtype == KB_F16)
        launch_vec<MODE, __half, kStream>(s, img, out->t[0].data, st);
    else
        launch_vec<MODE, float, kStream>(s, img, out->t[0].data, st);
    return kb_cuda_check(cudaGetLastError(), "preprocess vec launch", e);
}

template <kb_pp_interp MODE> static int pp_supports(const kb_case *c, kb_error *why) {
    return kb_pp_params_of(c).interp == MODE ? KB_OK : KB_NOT_APPLICABLE;
}

#endif
