/* pp_device.cuh — device pieces the preprocess variants share: the output
 * conversion, the normalisation and the one-thread-per-pixel kernel (every
 * rule of kernels/preprocess.h through kb_pp_sample, the nearest index rule
 * as kb_pp_params.nn_rule says). */
#ifndef KB_PP_DEVICE_CUH
#define KB_PP_DEVICE_CUH

#include "preprocess.h"

#include <cuda_fp16.h>
#include <stdint.h>

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

#endif
