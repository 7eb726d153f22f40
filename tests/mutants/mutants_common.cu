/* mutants_common.cu — the wrapper's state and the small kernels that put a
 * bug into a real variant's inputs or outputs (mutants_common.cuh). */
#include "mutants_common.cuh"

#include <stdio.h>
#include <string.h>

/* ---- case edits ---- */

static kb_value *axis_value(kb_case *c, const char *axis) {
    int i = kb_axis_index(c->op, axis);
    return i >= 0 ? &c->v[i] : NULL;
}

void mut_set_int(kb_case *c, const char *axis, int64_t v) {
    kb_value *x = axis_value(c, axis);
    if (!x) return;
    x->i = v;
    x->f = (double)v;
    snprintf(x->s, sizeof x->s, "%lld", (long long)v);
}

void mut_set_float(kb_case *c, const char *axis, double v) {
    kb_value *x = axis_value(c, axis);
    if (!x) return;
    x->f = v;
    snprintf(x->s, sizeof x->s, "%.9g", v);
}

void mut_set_str(kb_case *c, const char *axis, const char *v) {
    kb_value *x = axis_value(c, axis);
    if (x) snprintf(x->s, sizeof x->s, "%s", v);
}

/* ---- the wrapper's state ---- */

size_t mut_edited_bytes(const kb_case *c, unsigned edited) {
    kb_tensors in, out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    if (!edited || c->op->describe(c, &in, &out, NULL) != KB_OK) return 0;
    size_t bytes = 0;
    for (int i = 0; i < in.count; i++)
        if (edited >> i & 1) bytes += kb_nbytes(&in.t[i]);
    return bytes;
}

void mut_state_free(mut_state *m) {
    for (int i = 0; i < m->tin.count; i++)
        if (m->edited >> i & 1) cudaFree(m->tin.t[i].data);
    free(m);
}

int mut_state_new(const kb_case *c, const kb_tensors *in, const kb_variant_impl *good,
                  mut_edit_case_fn edit_case, unsigned edited, mut_state **out, kb_error *e) {
    mut_state *m = (mut_state *)calloc(1, sizeof *m);
    if (!m) return kb_fail(e, "out of host memory");
    m->good = good;
    m->real = *c;
    m->c = *c;
    if (edit_case) edit_case(&m->c);
    m->tin = *in;
    for (int i = 0; i < in->count; i++)
        if (edited >> i & 1) m->tin.t[i].data = NULL;
    m->edited = edited;
    for (int i = 0; i < in->count; i++) {
        if (!(edited >> i & 1)) continue;
        size_t n = kb_nbytes(&in->t[i]);
        cudaError_t rc = cudaMalloc(&m->tin.t[i].data, n ? n : 1);
        if (rc != cudaSuccess) {
            cudaGetLastError();
            m->tin.t[i].data = NULL;
            mut_state_free(m);
            kb_fail(e, "cudaMalloc(%zu) for the edited %s: %s", n, in->t[i].name,
                    cudaGetErrorString(rc));
            return rc == cudaErrorMemoryAllocation ? KB_OUT_OF_MEMORY : KB_ERR;
        }
    }
    *out = m;
    return KB_OK;
}

void mut_teardown(void *state) {
    mut_state *m = (mut_state *)state;
    m->good->teardown(m->good_state);
    mut_state_free(m);
}

/* ---- input edits ---- */

static unsigned blocks_for(int64_t n, int per) {
    int64_t b = (n + per - 1) / per;
    return (unsigned)(b < 1 ? 1 : b < 65535 * 16 ? b : 65535 * 16);
}

/* One thread per byte, grid-stride: the inputs of smoke cases are small. */
__global__ void reverse_rows_kernel(const uint8_t *src, uint8_t *dst, size_t row_bytes,
                                    int64_t rows, int64_t seg_rows, const int32_t *offsets,
                                    int64_t nseg) {
    int64_t total = rows * (int64_t)row_bytes;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t row = i / (int64_t)row_bytes, byte = i % (int64_t)row_bytes, lo, hi;
        if (offsets) { /* the segment holding row: smoke layouts have few segments */
            int64_t s = 0;
            while (s + 1 < nseg && offsets[s + 1] <= row) s++;
            lo = offsets[s];
            hi = offsets[s + 1];
        } else {
            lo = row / seg_rows * seg_rows;
            hi = lo + seg_rows;
        }
        dst[(lo + hi - 1 - row) * (int64_t)row_bytes + byte] = src[i];
    }
}

void mut_reverse_rows(const void *src, void *dst, size_t row_bytes, int64_t rows, int64_t seg_rows,
                      const int32_t *offsets, int64_t nseg, cudaStream_t s) {
    if (rows == 0) return;
    reverse_rows_kernel<<<blocks_for(rows * (int64_t)row_bytes, 256), 256, 0, s>>>(
        (const uint8_t *)src, (uint8_t *)dst, row_bytes, rows, seg_rows, offsets, nseg);
}

/* ---- output perturbations ---- */

__global__ void unreverse_kernel(int32_t *idx, int64_t nseg, int64_t k, const int32_t *counts,
                                 const int32_t *offsets, int64_t len) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nseg * k;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t seg = i / k, slot = i % k;
        if (slot >= counts[seg]) continue;
        int64_t n = offsets ? offsets[seg + 1] - offsets[seg] : len;
        idx[i] = (int32_t)(n - 1 - idx[i]);
    }
}

void mut_unreverse_indices(int32_t *idx, int64_t nseg, int64_t k, const int32_t *counts,
                           const int32_t *offsets, int64_t len, cudaStream_t s) {
    if (nseg * k == 0) return;
    unreverse_kernel<<<blocks_for(nseg * k, 256), 256, 0, s>>>(idx, nseg, k, counts, offsets, len);
}

__global__ void drop_last_kernel(int32_t *counts, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n && counts[i] > 0) counts[i]--;
}

void mut_drop_last(int32_t *counts, int64_t n, cudaStream_t s) {
    if (n == 0) return;
    drop_last_kernel<<<blocks_for(n, 256), 256, 0, s>>>(counts, n);
}

/* A block per count: every thread of a warp loads the same value and stores
 * it plus one, so increments are lost whenever two threads run together. */
__global__ void racy_recount_kernel(int32_t *counts) {
    __shared__ int32_t n;
    volatile int32_t *c = counts + blockIdx.x;
    if (threadIdx.x == 0) n = *c;
    __syncthreads();
    if (threadIdx.x == 0) *c = 0;
    __syncthreads();
    for (int32_t j = threadIdx.x; j < n; j += blockDim.x) {
        int32_t v = *c;
        *c = v + 1;
    }
}

void mut_racy_recount(int32_t *counts, int64_t n, cudaStream_t s) {
    if (n == 0) return;
    racy_recount_kernel<<<(unsigned)n, 256, 0, s>>>(counts);
}

__global__ void store_past_end_kernel(uint8_t *end, size_t bytes) {
    for (size_t i = threadIdx.x; i < bytes; i += blockDim.x) end[i] = 0;
}

void mut_store_past_end(const kb_tensor *t, size_t bytes, cudaStream_t s) {
    store_past_end_kernel<<<1, 32, 0, s>>>((uint8_t *)t->data + kb_nbytes(t), bytes);
}

__global__ void unwrite_kernel(uint8_t *base, int64_t rows, size_t row, size_t keep) {
    int64_t tail = (int64_t)(row - keep);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * tail;
         i += (int64_t)gridDim.x * blockDim.x)
        base[i / tail * (int64_t)row + (int64_t)keep + i % tail] = 0xFF;
}

cudaError_t mut_unwrite_row_tails(const kb_tensor *t, int64_t rows, size_t row, size_t keep,
                                  cudaStream_t s) {
    if (rows > 0 && keep < row)
        unwrite_kernel<<<blocks_for(rows * (int64_t)(row - keep), 256), 256, 0, s>>>(
            (uint8_t *)t->data, rows, row, keep);
    return cudaGetLastError();
}
