/* sort_bitmask.cu — rpn_proposals/sort_bitmask, the CUDA port's design:
 * per-level CUB radix sorts (topk's kb_topk_sort) -> first nms_pre, decode +
 * filter + offset, CUB sort of the candidates, the nms op's bitmask NMS
 * (run_bitmask, rpn_device.cuh). The op's baseline. docs/perf-rpn.md.
 *
 *   kbench run rpn_proposals --sweep default -v sort_bitmask,select_bitmask_gpu
 */
#include "rpn_device.cuh"

namespace {

size_t sort_bitmask_ws(const kb_case *c) {
    return workspace(Design::sort_bitmask, c);
}
int sort_bitmask_setup(const kb_case *c, const kb_tensors *, void **st, kb_error *e) {
    return setup(Design::sort_bitmask, c, st, e);
}

} // namespace

extern "C" const kb_variant_impl kb_rpn_proposals_sort_bitmask = {
    supports, sort_bitmask_ws, sort_bitmask_setup, run_bitmask, teardown};
