/* mutants_preprocess.cu — wrong preprocessing. Four are a one-thread-per-
 * pixel kernel (as the naive variants) with one bug in its sampling rule or
 * its parameters; two are the real vec variants with a bug at the row tail,
 * one the real vec variant behind a result cache (mut_timed_cache: `kbench_mutants
 * run preprocess -v mut_timed_cache --sweep smoke` must FAIL).
 * `kbench_mutants check preprocess -v mut_clamp_w2 --sweep smoke` must FAIL.
 *
 * Left out: (v/255 - mean)/std contracted into an fma. It moves an output by
 * an ulp or two, 1e-7 relative, inside the f32 class's 1e-5 rel-L2 and 1e-4
 * max-abs bounds by design (the real variants are allowed exactly that).
 */
#include "mutants_common.cuh"
#include "preprocess.h"

#include <cuda_fp16.h>

enum pp_bug {
    CLAMP_W2,     /* bilinear: the right neighbour clamped to column in_w - 2 */
    NEAREST_HALF, /* nearest: half-pixel centres (PyTorch nearest-exact), not OpenCV's floor */
    NO_CENTRE,    /* letterbox: the affine without its (s - 1) / 2 pixel-centre term */
    MEAN_BGR,     /* mean and std indexed by the BGR input channel, not the RGB output one */
};

template <typename T> __device__ T pp_store(float v);
template <> __device__ float pp_store<float>(float v) {
    return v;
}
template <> __device__ __half pp_store<__half>(float v) {
    return __float2half_rn(v);
}

template <int BUG, typename T>
__global__ void pp_mutant(const uint8_t *in, T *out, kb_pp_params p) {
    const int dx = blockIdx.x * blockDim.x + threadIdx.x,
              dy = blockIdx.y * blockDim.y + threadIdx.y;
    if (dx >= p.out_w || dy >= p.out_h) return;
    const uint8_t *img = in + (size_t)blockIdx.z * p.in_h * p.in_w * 3;
    float rgb[3];
    if (BUG == CLAMP_W2) { /* kb_pp_sample's bilinear rule with a bound of in_w - 1 on x */
        int x0, x1, y0, y1;
        float fx, fy;
        kb_pp_linear_src(dx, (float)p.in_w / (float)p.out_w, p.in_w > 1 ? p.in_w - 1 : 1, &x0, &x1,
                         &fx);
        kb_pp_linear_src(dy, (float)p.in_h / (float)p.out_h, p.in_h, &y0, &y1, &fy);
        const uint8_t *r0 = img + (size_t)y0 * p.in_w * 3, *r1 = img + (size_t)y1 * p.in_w * 3;
        for (int c = 0; c < 3; c++)
            rgb[c] = kb_pp_bilinear(r0[x0 * 3 + 2 - c], r0[x1 * 3 + 2 - c], r1[x0 * 3 + 2 - c],
                                    r1[x1 * 3 + 2 - c], fx, fy);
    } else if (BUG == NEAREST_HALF) { /* floor((dst + 0.5) in / out), exact in integers */
        int sx = (int)((2LL * dx + 1) * p.in_w / (2LL * p.out_w));
        int sy = (int)((2LL * dy + 1) * p.in_h / (2LL * p.out_h));
        const uint8_t *px = img + ((size_t)sy * p.in_w + sx) * 3;
        for (int c = 0; c < 3; c++) rgb[c] = px[2 - c];
    } else {
        kb_pp_sample(&p, img, dx, dy, rgb); /* NO_CENTRE, MEAN_BGR: the bug is in p */
    }
    const size_t plane = (size_t)p.out_h * p.out_w;
    T *o = out + (size_t)blockIdx.z * 3 * plane + (size_t)dy * p.out_w + dx;
    for (int c = 0; c < 3; c++)
        o[c * plane] = pp_store<T>(
            kb_pp_mul(kb_pp_add(kb_pp_mul(rgb[c], 1.0f / 255.0f), -p.mean[c]), p.inv_std[c]));
}

template <int BUG> static int bug_supports(const kb_case *c, kb_error *why) {
    kb_pp_interp want = BUG == CLAMP_W2       ? KB_PP_BILINEAR
                        : BUG == NEAREST_HALF ? KB_PP_NEAREST
                                              : KB_PP_LETTERBOX;
    return BUG == MEAN_BGR || kb_pp_params_of(c).interp == want ? KB_OK : KB_NOT_APPLICABLE;
}

static size_t no_workspace(const kb_case *c) {
    return 0;
}

template <int BUG>
static int bug_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    kb_pp_params *p = (kb_pp_params *)malloc(sizeof *p);
    if (!p) return kb_fail(e, "out of host memory");
    *p = kb_pp_params_of(c);
    if (BUG == NO_CENTRE) { /* kb_pp_letterbox_d2i's translation without s - 1 */
        float s = fminf((float)p->out_w / (float)p->in_w, (float)p->out_h / (float)p->in_h);
        p->d2i[2] = -(((float)p->out_w - s * (float)p->in_w) * 0.5f) * p->d2i[0];
        p->d2i[5] = -(((float)p->out_h - s * (float)p->in_h) * 0.5f) * p->d2i[4];
    }
    if (BUG == MEAN_BGR)
        for (int k = 0; k < 3; k++) {
            p->mean[k] = kb_pp_params_of(c).mean[2 - k];
            p->inv_std[k] = kb_pp_params_of(c).inv_std[2 - k];
        }
    *state = p;
    return KB_OK;
}

template <int BUG>
static int bug_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                   kb_error *e) {
    const kb_pp_params *p = (const kb_pp_params *)state;
    dim3 block(32, 8), grid((p->out_w + 31) / 32, (p->out_h + 7) / 8, p->n);
    const uint8_t *img = (const uint8_t *)in->t[0].data;
    if (p->out_dtype == KB_F16)
        pp_mutant<BUG, __half><<<grid, block, 0, s>>>(img, (__half *)out->t[0].data, *p);
    else
        pp_mutant<BUG, float><<<grid, block, 0, s>>>(img, (float *)out->t[0].data, *p);
    return kb_cuda_check(cudaGetLastError(), "preprocess mutant launch", e);
}

static void bug_teardown(void *state) {
    free(state);
}

#define KB_PP_BUG(name, bug)                                                                       \
    extern "C" const kb_variant_impl kb_mut_pp_##name = {                                          \
        bug_supports<bug>, no_workspace, bug_setup<bug>, bug_run<bug>, bug_teardown};
KB_PP_BUG(clamp_w2, CLAMP_W2)
KB_PP_BUG(nearest_half, NEAREST_HALF)
KB_PP_BUG(no_centre, NO_CENTRE)
KB_PP_BUG(mean_bgr, MEAN_BGR)

/* ---- the real 4-pixels-per-thread variants with a bug at the row tail ---- */

static const kb_variant_impl *vec_for(const kb_case *c) {
    switch (kb_pp_params_of(c).interp) {
    case KB_PP_NEAREST:
        return kb_find_variant("preprocess", "nearest_vec")->impl;
    case KB_PP_BILINEAR:
        return kb_find_variant("preprocess", "bilinear_vec")->impl;
    default:
        return kb_find_variant("preprocess", "letterbox_vec")->impl;
    }
}

/* out_w / 4 groups per row (rounded down): the last out_w % 4 pixels of
 * every row never written. */
static cudaError_t tail_unwritten(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                  cudaStream_t s) {
    kb_pp_params p = kb_pp_params_of(c);
    size_t es = kb_dtype_size(p.out_dtype);
    return mut_unwrite_row_tails(&out->t[0], (int64_t)p.n * 3 * p.out_h, (size_t)p.out_w * es,
                                 (size_t)(p.out_w - p.out_w % 4) * es, s);
}
static const mut_spec vec_tail = {vec_for, NULL, 0, NULL, tail_unwritten};
KB_MUTANT(pp_vec_tail, vec_tail)

/* The last group's 4-pixel store not cut at the row end: up to 3 elements
 * past the last plane. */
static cudaError_t overrun(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                           cudaStream_t s) {
    mut_store_past_end(&out->t[0], 3 * kb_dtype_size(out->t[0].dtype), s);
    return cudaGetLastError();
}
static const mut_spec overrun_spec = {vec_for, NULL, 0, NULL, overrun};
KB_MUTANT(pp_overrun, overrun_spec)

/* ---- a result cache: the real vec variant, then nothing ---- */

/* Computes for its first two calls, the check's run and its bitwise re-run
 * (a cache after one call fails that re-run), then returns without
 * launching: only the timed launch's outputs, compared with the checked
 * ones, show that timing measured no work. */
static const mut_spec timed_cache_spec = {vec_for, NULL, 0, NULL, NULL, 2};
KB_MUTANT(pp_timed_cache, timed_cache_spec)
