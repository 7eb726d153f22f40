/* bilinear.cu — preprocess with OpenCV's INTER_LINEAR rule (half-pixel
 * centres, edges replicated; kbench/ops/preprocess.h), resize + BGR->RGB + CHW +
 * normalise fused:
 *   bilinear_naive  one thread per output pixel (pp_naive)
 *   bilinear_vec    one thread per 4 pixels of a row, vector stores, evict-first
 *                   (pp_vec)
 * Both kernels: pp_device.cuh. Measurements: docs/perf-preprocess.md.
 *
 *   kbench run preprocess -v bilinear_naive,bilinear_vec -a interp=bilinear
 */
#include "pp_device.cuh"
#include "../common/variant_def.h"

KB_DEFINE_VARIANT(preprocess, bilinear_naive) = {pp_supports<KB_PP_BILINEAR>, pp_no_workspace,
                                                 pp_setup, pp_run_naive, pp_teardown};
KB_DEFINE_VARIANT(preprocess, bilinear_vec) = {pp_supports<KB_PP_BILINEAR>, pp_no_workspace,
                                               pp_setup, pp_run_vec<KB_PP_BILINEAR, true>,
                                               pp_teardown};
