/* variants/preprocess/resize.cu — resize + BGR->RGB + HWC->CHW + normalise,
 * fused. Rules: kernels/preprocess.h (shared with the reference).
 *
 *   kbench run preprocess -v bilinear_naive,bilinear_vec -a interp=bilinear
 *
 * naive: one thread per output pixel on a 2D grid (z = image), as the classic
 *        fused kernels do; each thread writes one element in each of 3 planes.
 *        With the letterbox rule this is the YOLOv5 warp-affine kernel
 *        (letterbox_warpaffine).
 * vec:   one thread per 4 consecutive output pixels of a row, the whole batch
 *        in one 1D launch: the x coordinates are computed once per pixel and
 *        shared by 3 channels, each plane gets one 16-byte (f32) or 8-byte
 *        (f16) store, and a warp writes 512 contiguous bytes per plane.
 *        Napkin: 16 x 1080p -> 640x640 f32 moves 178 MB; at ~3 TB/s that is
 *        ~60 us, so the kernel must keep ~2 MB of loads in flight: 4 pixels x
 *        12 byte loads per thread x 2048 threads/SM x 132 SMs is plenty.
 */
#include "pp_device.cuh"

#include <stdint.h>
#include <stdlib.h>

/* ---- vec: 4 output pixels per thread, whole batch ---- */

template <typename T> struct pp_vec4;
template <> struct pp_vec4<float> {
    static __device__ __forceinline__ void store(float *dst, const float v[4]) {
        *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
    }
};
template <> struct pp_vec4<__half> {
    static __device__ __forceinline__ void store(__half *dst, const float v[4]) {
        __half2 a = __floats2half2_rn(v[0], v[1]), b = __floats2half2_rn(v[2], v[3]);
        uint2 u;
        u.x = *reinterpret_cast<uint32_t *>(&a);
        u.y = *reinterpret_cast<uint32_t *>(&b);
        *reinterpret_cast<uint2 *>(dst) = u;
    }
};

template <kb_pp_interp MODE, typename T>
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
        for (int c = 0; c < 3; c++) pp_vec4<T>::store(o + c * plane, v[c]);
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

static int pp_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    pp_state *s = (pp_state *)malloc(sizeof *s);
    if (!s) return kb_fail(e, "out of host memory");
    s->p = kb_pp_params_of(c);
    *state = s;
    return KB_OK;
}

static void pp_teardown(void *state) {
    free(state);
}
static size_t pp_no_workspace(const kb_case *c) {
    return 0;
}

template <kb_pp_interp MODE, typename T>
static void launch_vec(const pp_state *s, const uint8_t *in, void *out, cudaStream_t st) {
    int groups = (s->p.out_w + 3) / 4;
    unsigned long long total = (unsigned long long)s->p.n * s->p.out_h * groups;
    unsigned blocks = (unsigned)((total + 255) / 256);
    pp_vec<MODE, T><<<blocks, 256, 0, st>>>(in, (T *)out, s->p, groups, total);
}

static int pp_run_naive(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t st,
                        kb_error *e) {
    const pp_state *s = (const pp_state *)state;
    const uint8_t *img = (const uint8_t *)in->t[0].data;
    if (s->p.out_dtype == KB_F16)
        pp_launch_naive<__half>(s->p, img, out->t[0].data, st);
    else
        pp_launch_naive<float>(s->p, img, out->t[0].data, st);
    return kb_cuda_check(cudaGetLastError(), "preprocess naive launch", e);
}

template <kb_pp_interp MODE>
static int pp_run_vec(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t st,
                      kb_error *e) {
    const pp_state *s = (const pp_state *)state;
    const uint8_t *img = (const uint8_t *)in->t[0].data;
    if (s->p.out_dtype == KB_F16)
        launch_vec<MODE, __half>(s, img, out->t[0].data, st);
    else
        launch_vec<MODE, float>(s, img, out->t[0].data, st);
    return kb_cuda_check(cudaGetLastError(), "preprocess vec launch", e);
}

template <kb_pp_interp MODE> static int pp_supports(const kb_case *c, kb_error *why) {
    return kb_pp_params_of(c).interp == MODE ? KB_OK : KB_NOT_APPLICABLE;
}

extern "C" const kb_variant_impl kb_preprocess_nearest_naive = {
    pp_supports<KB_PP_NEAREST>, pp_no_workspace, pp_setup, pp_run_naive, pp_teardown};
extern "C" const kb_variant_impl kb_preprocess_bilinear_naive = {
    pp_supports<KB_PP_BILINEAR>, pp_no_workspace, pp_setup, pp_run_naive, pp_teardown};
extern "C" const kb_variant_impl kb_preprocess_nearest_vec = {
    pp_supports<KB_PP_NEAREST>, pp_no_workspace, pp_setup, pp_run_vec<KB_PP_NEAREST>, pp_teardown};
extern "C" const kb_variant_impl kb_preprocess_bilinear_vec = {
    pp_supports<KB_PP_BILINEAR>, pp_no_workspace, pp_setup, pp_run_vec<KB_PP_BILINEAR>,
    pp_teardown};
extern "C" const kb_variant_impl kb_preprocess_letterbox_warpaffine = {
    pp_supports<KB_PP_LETTERBOX>, pp_no_workspace, pp_setup, pp_run_naive, pp_teardown};
extern "C" const kb_variant_impl kb_preprocess_letterbox_vec = {
    pp_supports<KB_PP_LETTERBOX>, pp_no_workspace, pp_setup, pp_run_vec<KB_PP_LETTERBOX>,
    pp_teardown};
