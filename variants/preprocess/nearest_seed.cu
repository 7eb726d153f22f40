/* variants/preprocess/nearest_seed.cu — nearest resize as the common CUDA
 * preprocessing ports write it: one thread per output pixel, the source
 * index (int)(dst * scale) with a float scale = in/out
 * (kb_pp_nearest_src_f32), clamped to the last pixel.
 *
 *   kbench check preprocess -v nearest_seed,nearest_naive -a interp=nearest
 *
 * The float product rounds differently from OpenCV's double ifx on some
 * rows and columns (500 -> 480: dst 120 reads 124, OpenCV 125), so this is
 * KB_INEXACT: checked against a reference of the float-scale rule, its note
 * counting the output pixels that read another source pixel than OpenCV's.
 * The kernel is the naive one (pp_device.cuh) with that index rule.
 */
#include "pp_device.cuh"
#include "../common/variant_def.h"

#include <stdlib.h>

static int seed_supports(const kb_case *c, kb_error *why) {
    if (kb_pp_params_of(c).interp != KB_PP_NEAREST) {
        kb_fail(why, "nearest_seed is nearest resize only");
        return KB_NOT_APPLICABLE;
    }
    return KB_OK;
}

static size_t seed_workspace(const kb_case *c) {
    return 0;
}

static int seed_setup(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e) {
    *state = NULL;
    kb_pp_params *p = (kb_pp_params *)malloc(sizeof *p);
    if (!p) return kb_fail(e, "out of host memory");
    *p = kb_pp_params_of(c);
    p->nn_rule = KB_PP_NN_FLOAT_SCALE;
    *state = p;
    return KB_OK;
}

static int seed_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t st,
                    kb_error *e) {
    const kb_pp_params *p = (const kb_pp_params *)state;
    const uint8_t *img = (const uint8_t *)in->t[0].data;
    if (p->out_dtype == KB_F16)
        pp_launch_naive<__half>(*p, img, out->t[0].data, st);
    else
        pp_launch_naive<float>(*p, img, out->t[0].data, st);
    return kb_cuda_check(cudaGetLastError(), "preprocess nearest_seed launch", e);
}

static void seed_teardown(void *state) {
    free(state);
}

KB_DEFINE_VARIANT(preprocess, nearest_seed) = {seed_supports, seed_workspace, seed_setup, seed_run,
                                               seed_teardown};
