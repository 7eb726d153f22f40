/* kbench/kbench.h — the public contract of kbench in one include: what a
 * kernel outside the tree compiles against to enter kbench's variant table.
 *
 *   variant.h   the hooks, the row, the flags, the ABI and KB_PLUGIN
 *   error.h     kb_error, kb_fail, KB_CUDA_TRY, the return codes
 *   tensor.h    kb_tensor(s), dtypes, sizes, find by name
 *   case.h      kb_case and its axes by name (kb_int, kb_float, kb_str)
 *   gpu.h       the current device's facts (kb_gpu_current, kb_gpu_require)
 *   util.h      KB_HD, rng, f16/bf16, NVTX ranges
 *   ops/<op>.h  per op: its parameters, tensors and the semantics' shared pieces
 *
 * Build a plugin with kbench_add_plugin() (find_package(kbench CONFIG)); see
 * examples/plugin/ in the source tree.
 */
#ifndef KBENCH_KBENCH_H
#define KBENCH_KBENCH_H

#include "kbench/variant.h"

#include "kbench/ops/deform_conv2d.h"
#include "kbench/ops/nms.h"
#include "kbench/ops/preprocess.h"
#include "kbench/ops/rpn_proposals.h"
#include "kbench/ops/topk.h"
#include "kbench/ops/yolo_decode.h"

#endif
