/* letterbox.cu — preprocess with the YOLOv5 GPU preprocessors' letterbox
 * warp-affine (border 114, the blend rounded; kbench/ops/preprocess.h), + BGR->RGB
 * + CHW + normalise fused:
 *   letterbox_warpaffine  one thread per output pixel (pp_naive): the YOLOv5
 *                         warp-affine kernel
 *   letterbox_vec         one thread per 4 pixels of a row, vector stores (pp_vec)
 * Both kernels: pp_device.cuh.
 *
 *   kbench run preprocess -v letterbox_warpaffine,letterbox_vec -a interp=letterbox
 */
#include "pp_device.cuh"
#include "../common/variant_def.h"

KB_DEFINE_VARIANT(preprocess, letterbox_warpaffine) = {
    pp_supports<KB_PP_LETTERBOX>, pp_no_workspace, pp_setup, pp_run_naive, pp_teardown};
KB_DEFINE_VARIANT(preprocess, letterbox_vec) = {pp_supports<KB_PP_LETTERBOX>, pp_no_workspace,
                                                pp_setup, pp_run_vec<KB_PP_LETTERBOX>, pp_teardown};
