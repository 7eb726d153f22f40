/* kbench/tensor.h — the tensors a variant receives: a name, a dtype, a shape
 * and a data pointer (host memory for a KB_HOST variant, device memory of
 * the current device otherwise), found by name in a kb_tensors list. The
 * names, dtypes and shapes of an op's tensors: kbench/ops/<op>.h.
 *
 *   const float *scores = kb_tensors_get(dev_in, "scores")->data;
 *   int32_t *keep = kb_tensors_find(dev_out, "keep")->data;
 *
 * And checked size arithmetic, for the products of sizes a variant forms
 * from a case's axes (a workspace of n * n bits, say).
 */
#ifndef KBENCH_TENSOR_H
#define KBENCH_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KB_MAX_TENSORS = 8,
    KB_MAX_NDIM = 6,
    KB_NAME = 48,
};

typedef enum kb_dtype { KB_U8, KB_I32, KB_I64, KB_F16, KB_BF16, KB_F32, KB_F64 } kb_dtype;

size_t kb_dtype_size(kb_dtype t);
const char *kb_dtype_name(kb_dtype t); /* "f32" etc. */

typedef struct kb_tensor {
    char name[KB_NAME];
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_NDIM];
    void *data; /* host or device memory, as the owner says; NULL until allocated */
} kb_tensor;

typedef struct kb_tensors {
    int count;
    kb_tensor t[KB_MAX_TENSORS];
} kb_tensors;

/* Checked size arithmetic, for every product of sizes formed from a case's
 * axes: KB_ERR (and *out untouched) when a factor is negative or the result
 * passes INT64_MAX (kb_mul_i64, kb_prod_i64) or SIZE_MAX (kb_bytes_of). */
int kb_mul_i64(int64_t a, int64_t b, int64_t *out);
int kb_prod_i64(const int64_t *factors, int n, int64_t *out);
int kb_bytes_of(int64_t numel, size_t elem_size, size_t *out);

/* Elements and bytes of a tensor. A shape whose product does not fit
 * saturates (INT64_MAX elements, SIZE_MAX bytes) rather than wrapping, so an
 * allocation of it fails instead of succeeding small. */
int64_t kb_numel(const kb_tensor *t);
size_t kb_nbytes(const kb_tensor *t);
/* "f32[2,3,4]": dtype and shape, for messages. */
void kb_tensor_shape_text(const kb_tensor *t, char *buf, size_t n);
/* A tensor by name; NULL if the list has none of that name. */
kb_tensor *kb_tensors_find(kb_tensors *ts, const char *name);
const kb_tensor *kb_tensors_get(const kb_tensors *ts, const char *name);

#ifdef __cplusplus
}
#endif
#endif
