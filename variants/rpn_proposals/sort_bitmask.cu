/* sort_bitmask.cu — rpn_proposals/sort_bitmask, the CUDA port's design:
 * per-level CUB radix sorts (topk's kb_topk_sort) -> first nms_pre, decode +
 * filter + offset, CUB sort of the candidates, the nms op's bitmask NMS
 * (run_bitmask, rpn_device.cuh). The op's baseline. docs/perf-rpn.md.
 *
 *   kbench run rpn_proposals --sweep default -v sort_bitmask,select_bitmask_gpu
 */
#include "rpn_device.cuh"
#include "../common/variant_def.h"

KB_DEFINE_VARIANT(rpn_proposals, sort_bitmask) = {supports, workspace_of<Design::sort_bitmask>,
                                                  setup_of<Design::sort_bitmask>, run_bitmask,
                                                  teardown};
