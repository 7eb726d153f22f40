/* tensor_host.h — what the harness and the ops do to tensors that a variant
 * never does: describe them (kb_tensors_add, in an op's describe), parse a
 * dtype's name, bound their sizes, allocate and free them in host memory.
 */
#ifndef KB_TENSOR_HOST_H
#define KB_TENSOR_HOST_H

#include "kbench/error.h"
#include "kbench/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

int kb_dtype_parse(const char *name, kb_dtype *t); /* "f32" etc.; KB_ERR if unknown */

/* KB_ERR naming the tensor, its shape and the limit when a tensor's element
 * count passes INT64_MAX or its bytes (or all the tensors' bytes together)
 * pass SIZE_MAX (kb_numel and kb_nbytes saturate there). */
int kb_tensors_check_size(const kb_tensors *ts, kb_error *e);
/* Append a tensor description (no data); shape has ndim entries. */
kb_tensor *kb_tensors_add(kb_tensors *ts, const char *name, kb_dtype dtype, int ndim,
                          const int64_t *shape);
size_t kb_tensors_bytes(const kb_tensors *ts);
int kb_tensors_alloc_host(kb_tensors *ts, kb_error *e); /* zeroed host memory for each */
void kb_tensors_free_host(kb_tensors *ts);

#ifdef __cplusplus
}
#endif
#endif
