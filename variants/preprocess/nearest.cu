/* nearest.cu — preprocess with OpenCV's INTER_NEAREST rule (bit-exact with
 * cv2.resize; kbench/ops/preprocess.h), resize + BGR->RGB + CHW + normalise fused:
 *   nearest_naive  one thread per output pixel (pp_naive)
 *   nearest_vec    one thread per 4 pixels of a row, vector stores (pp_vec)
 * Both kernels: pp_device.cuh. nearest_seed.cu: the CUDA ports' float-scale rule.
 *
 *   kbench run preprocess -v nearest_naive,nearest_vec -a interp=nearest
 */
#include "pp_device.cuh"
#include "../common/variant_def.h"

KB_DEFINE_VARIANT(preprocess, nearest_naive) = {pp_supports<KB_PP_NEAREST>, pp_no_workspace,
                                                pp_setup, pp_run_naive, pp_teardown};
KB_DEFINE_VARIANT(preprocess, nearest_vec) = {pp_supports<KB_PP_NEAREST>, pp_no_workspace, pp_setup,
                                              pp_run_vec<KB_PP_NEAREST>, pp_teardown};
