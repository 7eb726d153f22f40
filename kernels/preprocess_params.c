/* preprocess_params.c — kb_pp_params_of: sizes, rule, normalisation and the
 * letterbox's inverse affine.
 * The op's parameters as the references, the op's table (kernels/preprocess.c) and
 * the variants read them: below all three, so that the reference reaches its
 * parameters without calling back into the table that calls it.
 */
#include "preprocess.h"

#include <string.h>

kb_pp_params kb_pp_params_of(const kb_case *c) {
    kb_pp_params p;
    memset(&p, 0, sizeof p);
    p.n = (int)kb_int(c, "n");
    p.in_h = (int)kb_int(c, "in_h");
    p.in_w = (int)kb_int(c, "in_w");
    p.out_h = (int)kb_int(c, "out_h");
    p.out_w = (int)kb_int(c, "out_w");
    const char *interp = kb_str(c, "interp");
    p.interp = strcmp(interp, "nearest") == 0    ? KB_PP_NEAREST
               : strcmp(interp, "bilinear") == 0 ? KB_PP_BILINEAR
                                                 : KB_PP_LETTERBOX;
    p.out_dtype = strcmp(kb_str(c, "dtype"), "f16") == 0 ? KB_F16 : KB_F32;
    static const float imagenet_mean[3] = {0.485f, 0.456f, 0.406f}; /* R, G, B */
    static const float imagenet_std[3] = {0.229f, 0.224f, 0.225f};
    int unit = strcmp(kb_str(c, "norm"), "unit") == 0;
    for (int ch = 0; ch < 3; ch++) {
        p.mean[ch] = unit ? 0.0f : imagenet_mean[ch];
        p.inv_std[ch] = unit ? 1.0f : 1.0f / imagenet_std[ch];
    }
    kb_pp_letterbox_d2i(p.in_w, p.in_h, p.out_w, p.out_h, p.d2i);
    return p;
}
