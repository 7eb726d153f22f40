/* select_bitmask_gpu.cu — rpn_proposals/select_bitmask_gpu: sort_bitmask's
 * pipeline (run_bitmask, rpn_device.cuh) with the one-launch radix-select
 * top-k of topk/radix_select (kb_topk_select: thread block clusters, 9.0) in
 * place of the per-level sorts. docs/perf-rpn.md.
 *
 *   kbench run rpn_proposals --sweep default -v sort_bitmask,select_bitmask_gpu
 */
#include "rpn_device.cuh"
#include "../common/variant_def.h"

KB_DEFINE_VARIANT(rpn_proposals, select_bitmask_gpu) = {
    select_supports, workspace_of<Design::select_bitmask_gpu>, setup_of<Design::select_bitmask_gpu>,
    run_bitmask, teardown};
