/* nhwc_gemm.cu — deform_conv2d/nhwc_gemm: the fp32-FMA implicit GEMM of
 * implicit_gemm (dcn_implicit_fma.cuh) fed by dcn_nhwc.cuh's channels-last
 * sampler: the input is first transposed to NHWC in the workspace (part of
 * the timed run), then one 16-byte load fetches 4 channels of a sample
 * corner. f32 only (nhwc_fused_f16/_bf16 take 16-bit data).
 *
 *   kbench run deform_conv2d --sweep default -v implicit_gemm,nhwc_gemm
 */
#include "dcn_implicit_fma.cuh"
#include "../common/variant_def.h"

KB_DEFINE_VARIANT(deform_conv2d, nhwc_gemm) = {dcn_fma::supports<true>,
                                               dcn_fma::workspace_bytes<true>, dcn_fma::setup<true>,
                                               dcn_fma::run<true>, dcn_fma::teardown};
