/* kbench.h — the harness's view of the contract between the harness, the
 * ops and the variants: the public headers a variant compiles against
 * (include/kbench/: errors, tensors, cases, the device, the variant row, the
 * plugin ABI) and the concerns only the harness and the ops share, one
 * header each:
 *   op.h           axes, sweeps, costs, kb_op (kernels/<op>.c fills one)
 *   check.h        precision classes, kb_accuracy, kb_check_ctx, kb_compare_dense
 *   tensor_host.h  describing and allocating tensors
 *   registry.h     the two tables (harness/registry.c) and finding a row
 * An op (kernels/<op>.c) knows its parameters, how to make inputs, how to
 * check an output and what it costs; a variant knows how to compute it; the
 * harness knows the CLI, timing, checks and output, and nothing about any
 * op. See DESIGN.md in the shared folder and README.md.
 */
#ifndef KBENCH_H
#define KBENCH_H

#include "kbench/variant.h"

#include "check.h"
#include "op.h"
#include "registry.h"
#include "tensor_host.h"

#endif
