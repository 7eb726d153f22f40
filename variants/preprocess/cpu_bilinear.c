/* cpu_bilinear.c — preprocess/cpu_bilinear: the whole preprocessing in one
 * pass on the CPU (KB_HOST: host tensors, wall-clock timing), as a C++
 * inference server fuses it instead of cv::resize + cvtColor + a
 * normalising loop over three intermediate images.
 *
 *   kbench check preprocess -v cpu_bilinear --sweep smoke      no GPU needed
 *
 * Bilinear resize (OpenCV INTER_LINEAR's half-pixel rule, kb_pp_linear_src
 * and kb_pp_bilinear: the reference's roundings), BGR -> RGB, HWC -> CHW and
 * (v/255 - mean)/std fused: each output row reads two input rows and writes
 * three plane rows. The column taps (x0, x1, fx) depend only on the sizes:
 * computed once in setup. The normalisation is one float multiply-add per
 * value (v * inv_std/255 - mean * inv_std), where the reference computes in
 * double: within f32's bounds, not bit-exact. OpenMP over output rows of
 * all images. Other interpolations: NOT_APPLICABLE.
 */
#include "kbench/variant.h"
#include "kbench/ops/preprocess.h"
#include "../common/variant_def.h"

#include <stdlib.h>

typedef struct bilinear_state {
    kb_pp_params p;
    int *x0, *x1; /* [out_w]: the byte offsets (x * 3) of each column's taps */
    float *fx;    /* [out_w] */
    float scale[3], bias[3];
} bilinear_state;

static int bilinear_supports(const kb_case *c, kb_error *why) {
    (void)why;
    return kb_pp_params_of(c).interp == KB_PP_BILINEAR ? KB_OK : KB_NOT_APPLICABLE;
}

static size_t bilinear_bytes(const kb_case *c) {
    return (size_t)kb_pp_params_of(c).out_w * (2 * sizeof(int) + sizeof(float));
}

static void bilinear_teardown(void *p) {
    bilinear_state *st = p;
    free(st->x0);
    free(st->x1);
    free(st->fx);
    free(st);
}

static int bilinear_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    bilinear_state *st = calloc(1, sizeof *st);
    if (!st) {
        kb_fail(e, "cpu_bilinear: out of host memory");
        return KB_OUT_OF_MEMORY;
    }
    *state = st;
    st->p = kb_pp_params_of(c);
    const kb_pp_params *p = &st->p;
    st->x0 = malloc((size_t)p->out_w * sizeof *st->x0);
    st->x1 = malloc((size_t)p->out_w * sizeof *st->x1);
    st->fx = malloc((size_t)p->out_w * sizeof *st->fx);
    if (!st->x0 || !st->x1 || !st->fx) {
        kb_fail(e, "cpu_bilinear: out of host memory for out_w=%d column taps", p->out_w);
        return KB_OUT_OF_MEMORY;
    }
    const float sx = (float)p->in_w / (float)p->out_w;
    for (int dx = 0; dx < p->out_w; dx++) {
        int x0, x1;
        kb_pp_linear_src(dx, sx, p->in_w, &x0, &x1, &st->fx[dx]);
        st->x0[dx] = 3 * x0;
        st->x1[dx] = 3 * x1;
    }
    for (int ch = 0; ch < 3; ch++) {
        st->scale[ch] = p->inv_std[ch] / 255.0f;
        st->bias[ch] = -p->mean[ch] * p->inv_std[ch];
    }
    return KB_OK;
}

static int bilinear_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                        kb_error *e) {
    (void)s;
    (void)e;
    const bilinear_state *st = state;
    const kb_pp_params p = st->p;
    const uint8_t *images = kb_tensors_get(in, "image")->data;
    void *o = kb_tensors_find(out, "out")->data;
    const size_t plane = (size_t)p.out_h * p.out_w, in_one = (size_t)p.in_h * p.in_w * 3;
    const float sy = (float)p.in_h / (float)p.out_h;
    const int rows = p.n * p.out_h;
#pragma omp parallel for schedule(static)
    for (int row = 0; row < rows; row++) {
        const int b = row / p.out_h, dy = row % p.out_h;
        int y0, y1;
        float fy;
        kb_pp_linear_src(dy, sy, p.in_h, &y0, &y1, &fy);
        const uint8_t *r0 = images + b * in_one + (size_t)y0 * p.in_w * 3;
        const uint8_t *r1 = images + b * in_one + (size_t)y1 * p.in_w * 3;
        for (int ch = 0; ch < 3; ch++) { /* output channel ch is input byte 2 - ch */
            const size_t base = ((size_t)b * 3 + ch) * plane + (size_t)dy * p.out_w;
            const int src = 2 - ch;
            for (int dx = 0; dx < p.out_w; dx++) {
                const int a = st->x0[dx] + src, z = st->x1[dx] + src;
                const float v = kb_pp_bilinear(r0[a], r0[z], r1[a], r1[z], st->fx[dx], fy);
                const float y = v * st->scale[ch] + st->bias[ch];
                if (p.out_dtype == KB_F16)
                    ((uint16_t *)o)[base + dx] = kb_f32_to_f16(y);
                else
                    ((float *)o)[base + dx] = y;
            }
        }
    }
    return KB_OK;
}

KB_DEFINE_VARIANT(preprocess, cpu_bilinear) = {bilinear_supports, bilinear_bytes, bilinear_setup,
                                               bilinear_run, bilinear_teardown};
