/* reference/preprocess.c — the CPU truth for preprocess: a straight loop over
 * output pixels through kb_pp_sample (include/kbench/ops/preprocess.h: the same float
 * roundings as the kernels), normalised in double. OpenMP over rows. */
#include "preprocess.h"

#include <stdint.h>

void kb_pp_reference_params(const kb_pp_params *pp, const uint8_t *images, kb_tensor *o) {
    const kb_pp_params p = *pp;
    size_t plane = (size_t)p.out_h * p.out_w, in_one = (size_t)p.in_h * p.in_w * 3;
    for (int b = 0; b < p.n; b++) {
        const uint8_t *img = images + b * in_one;
#pragma omp parallel for schedule(static)
        for (int dy = 0; dy < p.out_h; dy++)
            for (int dx = 0; dx < p.out_w; dx++) {
                float rgb[3];
                kb_pp_sample(&p, img, dx, dy, rgb);
                for (int c = 0; c < 3; c++) {
                    double v = ((double)rgb[c] / 255.0 - p.mean[c]) * p.inv_std[c];
                    size_t i = ((size_t)b * 3 + c) * plane + (size_t)dy * p.out_w + dx;
                    if (p.out_dtype == KB_F16)
                        ((uint16_t *)o->data)[i] = kb_f32_to_f16((float)v);
                    else
                        ((float *)o->data)[i] = (float)v;
                }
            }
    }
}

int kb_preprocess_reference(const kb_case *cs, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    kb_pp_params p = kb_pp_params_of(cs);
    kb_pp_reference_params(&p, kb_tensors_get(in, "image")->data, kb_tensors_find(out, "out"));
    (void)e;
    return KB_OK;
}
