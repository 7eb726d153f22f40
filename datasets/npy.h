/* npy.h — read and write NumPy .npy files (what `--inputs DIR` and `--dump DIR` use).
 *
 *   kb_tensor t = {0};
 *   if (kb_npy_read("in/offset.npy", &t, &err) != KB_OK) puts(err.msg);
 *
 * Format 1.0, 2.0 and 3.0 (the spec in numpy/lib/format.py), little-endian,
 * C order, dtypes |u1 (also u1, <u1), <f2, <f4, <f8, <i4, <i8 (KB_U8, KB_F16,
 * KB_F32, KB_F64, KB_I32, KB_I64), at most KB_MAX_NDIM dimensions; a 0-d array
 * has ndim 0 and one element. KB_BF16, which NumPy lacks, travels as <f4. Anything else is refused
 * with a message that names the file and the problem. The parser bounds every length it reads, so
 * malformed input is an error value, never a crash (it is fuzzed).
 */
#ifndef KB_NPY_H
#define KB_NPY_H

#include <stddef.h>
#include <stdio.h>

#include "kbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read `path` into t: dtype, ndim and shape filled, t->data malloc'ed (the
 * caller frees it; at least 1 byte even for an empty array), t->name left as
 * is. On error t is left untouched and e names the file and what is wrong. */
int kb_npy_read(const char *path, kb_tensor *t, kb_error *e);

/* The same from `size` bytes in memory (a whole .npy file); `label` stands for
 * the file name in messages. Meant for fuzzing and for embedded test data. */
int kb_npy_read_buffer(const void *bytes, size_t size, const char *label, kb_tensor *t,
                       kb_error *e);

/* Only the header of `path`: dtype, ndim and shape into t, t->data set to
 * NULL; KB_ERR as kb_npy_read, a file shorter than its shape included. */
int kb_npy_read_header(const char *path, kb_tensor *t, kb_error *e);

/* Write t (host data) as format 1.0, or 2.0 when the header exceeds 65535
 * bytes; the header is padded so that the data starts at a multiple of 64.
 * KB_BF16 has no NumPy dtype: it is written as '<f4', each value widened
 * exactly (kb_npy_read_into reads it back bit for bit). A partly written
 * file is removed. */
int kb_npy_write(const char *path, const kb_tensor *t, kb_error *e);
/* The same onto f, an open stream (left open, flushed); label names it in
 * messages. For a caller that creates the file itself (--dump: exclusively,
 * never through a link). */
int kb_npy_write_stream(FILE *f, const char *label, const kb_tensor *t, kb_error *e);

/* A case's tensor from a file: KB_OK when `file` (a header that path holds)
 * can fill `want`: the same dtype, or f32 for a bf16 tensor; the same shape
 * (any shape when both hold no element). Else KB_ERR naming the path, both
 * shapes and the tensor. */
int kb_npy_fits(const char *path, const kb_tensor *file, const kb_tensor *want, kb_error *e);
/* Read path into want's allocated data, checked by kb_npy_fits; a bf16
 * tensor from f32 values that must each be exactly a bf16 value (else
 * KB_ERR naming the first element that is not: no silent rounding). */
int kb_npy_read_into(const char *path, kb_tensor *want, kb_error *e);

/* bf16 <-> f32 as the .npy files carry bf16 tensors. Widening is exact;
 * narrowing succeeds only when every value is exactly a bf16 value (its low
 * 16 bits zero, NaN payloads included), else KB_ERR with *bad (may be NULL)
 * the first index that is not; dst is then partly written. */
void kb_bf16_widen(const uint16_t *src, float *dst, int64_t n);
int kb_bf16_narrow_exact(const float *src, uint16_t *dst, int64_t n, int64_t *bad);

#ifdef __cplusplus
}
#endif
#endif
