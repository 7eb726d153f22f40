/* cub_topk.cu — topk/cub_topk: the library's own answer, CCCL's top-k
 * (cub::DeviceTopK, the AIR top-k radix select, and cub::DeviceBatchedTopK,
 * a block per segment), then the k sorted.
 *
 *   kbench run topk -v cub_topk,grid_select,radix_select --sweep default
 *
 * Both select the k largest keys, unordered, and guarantee nothing about
 * which of several equal keys win (CCCL 3.5 implements only
 * determinism::not_guaranteed + output_ordering::unsorted). The keys here are
 * grid_select.h's composites, (kb_topk_key(value) << 32) | ~index, made on
 * the fly by a transform iterator: distinct, so "the k largest" is one set
 * and it is exactly the contract's top k (value descending, equal values
 * (-0 == +0) by lower index). The k winners are then sorted descending by
 * composite (their order is the contract's order) and written: index from
 * the composite, value re-read from the input (bitwise), sentinels past
 * min(k, length).
 *
 * Segments no longer than kBatchMax go through one DeviceBatchedTopK call and
 * one DeviceSegmentedSort; each longer one through DeviceTopK and a radix
 * sort of its k, one after another on the stream (its temp reused). No host
 * sync, no allocation in run: graph-capturable.
 *
 * Needs CCCL 3.5.0 or newer (the CUDA 13.0 toolkit has 3.0.1): the build
 * puts the nvidia-cuda-cccl wheel's headers, or -DKB_CCCL_ROOT, first on
 * this one file's include path. Built without them, supports() says so.
 * Design, floor and predictions: docs/perf-topk.md, section cub_topk.
 */

/* This file may see a CCCL other than the toolkit's that every other .cu of
 * kbench sees. CUB and Thrust wrapped in a namespace of their own keep its
 * symbols apart from theirs (CUB's util_namespace.cuh: the documented way to
 * have two CUBs in one program). Set before any CCCL header. */
#define THRUST_CUB_WRAPPED_NAMESPACE kb_cccl_topk

#include "kbench/variant.h"
#include "kbench/ops/topk.h"

#include "grid_select.h"
#include "../common/topk_device.cuh"
#include "../common/variant_def.h"

#include <cub/version.cuh>

#include <stdlib.h>

#if CUB_VERSION >= 300500 && __has_include(<cub/device/device_batched_topk.cuh>)
#define KB_CUB_TOPK 1
#include <cub/device/device_batched_topk.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_topk.cuh>

#include <cuda/argument>
#include <cuda/iterator>
#include <cuda/std/execution>
#include <cuda/stream_ref>
#else
#define KB_CUB_TOPK 0
#endif

#if defined(KB_CCCL_TOPK_EXPECTED) && !KB_CUB_TOPK
#error "CMake found a CCCL with cub::DeviceTopK but this file sees an older one: include order"
#endif

namespace {

/* KB_UNSUPPORTED naming the CCCL this file was compiled against and the one
 * it needs; KB_OK where it has DeviceTopK. */
int cccl_has_topk(kb_error *why) {
#if KB_CUB_TOPK
    (void)why;
    return KB_OK;
#else
    kb_fail(why,
            "needs cub::DeviceTopK and cub::DeviceBatchedTopK (CCCL 3.5.0 or newer); this kbench "
            "was built with CCCL %d.%d.%d (CUB_VERSION %d): pip install nvidia-cuda-cccl and "
            "configure again, or -DKB_CCCL_ROOT=DIR",
            CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, CUB_VERSION);
    return KB_UNSUPPORTED;
#endif
}

int supports(const kb_case *c, kb_error *why) {
    if (cccl_has_topk(why) != KB_OK) return KB_UNSUPPORTED;
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, why);
    free(len);
    return len ? KB_OK : KB_UNSUPPORTED;
}

#if KB_CUB_TOPK

namespace cub = CUB_NS_QUALIFIER;
typedef unsigned long long u64;
static_assert(sizeof(u64) == sizeof(uint64_t), "composites are 64-bit");

/* The longest segment DeviceBatchedTopK takes here: the compile-time bound
 * of its segment sizes, from which CUB picks the smallest block tile that
 * covers it and fits 48 KB of static shared memory (4096: 256 threads x 16
 * keys). The default sweep's 32x4096 and rpn5's two short levels go through
 * it; a longer segment takes DeviceTopK. */
constexpr int kBatchMax = 4096;
constexpr size_t kAlign = 256;

size_t align_up(size_t b) {
    return (b + kAlign - 1) / kAlign * kAlign;
}

/* Element j of a segment as its composite. */
struct Composite {
    const float *seg;
    __host__ __device__ u64 operator()(int j) const {
        return kb_grid_composite(kb_topk_key(seg[j]), j);
    }
};

typedef cuda::transform_iterator<Composite, cuda::counting_iterator<int>> CompositeIt;

CompositeIt composites_of(const float *seg) {
    return cuda::make_transform_iterator(cuda::counting_iterator<int>{0}, Composite{seg});
}

/* Segment s's composites (DeviceBatchedTopK's iterator of iterators). */
struct SegmentIn {
    const float *values;
    const int *offsets;
    __host__ __device__ CompositeIt operator()(int s) const {
        return cuda::make_transform_iterator(cuda::counting_iterator<int>{0},
                                             Composite{values + offsets[s]});
    }
};

/* Segment s's k slots of winners, stride `stride` (its output iterator). */
struct SegmentOut {
    u64 *win;
    int stride;
    __host__ __device__ u64 *operator()(int s) const { return win + (size_t)s * stride; }
};

/* Segment s's length for the batched select: 0 for one longer than
 * kBatchMax (DeviceTopK's, one at a time), so that the bound holds. */
struct BatchedLength {
    const int *offsets;
    __host__ __device__ int operator()(int s) const {
        const int n = offsets[s + 1] - offsets[s];
        return n <= kBatchMax ? n : 0;
    }
};

/* Where segment s's winners begin and end in the batched slots. */
struct SlotBegin {
    int stride;
    __host__ __device__ int operator()(int s) const { return s * stride; }
};
struct SlotEnd {
    const int *offsets;
    int stride, k;
    __host__ __device__ int operator()(int s) const {
        const int n = offsets[s + 1] - offsets[s];
        return s * stride + (n <= kBatchMax ? min(n, k) : 0);
    }
};

/* What CCCL 3.5 implements (anything else is a compile error): the winners'
 * set may vary between equal keys (there are none: composites are distinct)
 * and they come unordered (sorted next). */
auto topk_env(cudaStream_t stream) {
    return cuda::std::execution::env{
        cuda::stream_ref{stream},
        cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                 cuda::execution::output_ordering::unsorted)};
}
auto batched_env(cudaStream_t stream) {
    return cuda::std::execution::env{
        cuda::stream_ref{stream},
        cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                 cuda::execution::tie_break::unspecified,
                                 cuda::execution::output_ordering::unsorted)};
}

/* Slot j of segment s from its sorted winners (stride apart, segment s's at
 * sorted + s * stride, or at `sorted` alone where `only` names it): index
 * from the composite, value re-read, the sentinel past min(k, n). Segments
 * of the other path (long when batched, or not `only`) are left alone. */
__global__ void write_out(const float *values, const int *offsets, const u64 *sorted, int stride,
                          int k, int only, bool batched, float *out_v, int *out_i, int *out_n) {
    const int s = only >= 0 ? only : (int)blockIdx.y;
    const int begin = offsets[s], n = offsets[s + 1] - begin, want = min(k, n);
    if (batched && n > kBatchMax) return; /* block-uniform */
    const u64 *win = sorted + (only >= 0 ? 0 : (size_t)s * stride);
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < k; j += gridDim.x * blockDim.x) {
        const size_t o = (size_t)s * k + j;
        const int idx = j < want ? kb_grid_index(win[j]) : -1;
        out_i[o] = idx;
        out_v[o] = j < want ? values[begin + idx] : -INFINITY;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) out_n[s] = want;
}

/* One workspace: the batched select's winners and their sorted copy (stride
 * slots a segment), its temp and the segmented sort's; one long segment's
 * winners and sorted copy (reused segment after segment), the larger of
 * DeviceTopK's and the radix sort's temp over the long segments. */
struct Layout {
    int stride;    /* batched slots a segment: min(k, the longest short segment) */
    int long_want; /* the most winners of a long segment */
    size_t win, sorted, batch_temp, sort_temp, long_win, long_sorted, long_temp;
    size_t sum() const {
        return win + sorted + batch_temp + sort_temp + long_win + long_sorted + long_temp;
    }
};

/* The iterators both the sizing and the run pass to the batched calls (the
 * sizing with null pointers: nothing is dereferenced there). */
struct Batched {
    cuda::transform_iterator<SegmentIn, cuda::counting_iterator<int>> in;
    cuda::transform_iterator<SegmentOut, cuda::counting_iterator<int>> out;
    cuda::transform_iterator<BatchedLength, cuda::counting_iterator<int>> len;
    cuda::transform_iterator<SlotBegin, cuda::counting_iterator<int>> begin;
    cuda::transform_iterator<SlotEnd, cuda::counting_iterator<int>> end;
};

Batched batched_of(const float *values, const int *offsets, u64 *win, int stride, int k) {
    const cuda::counting_iterator<int> s{0};
    return {cuda::make_transform_iterator(s, SegmentIn{values, offsets}),
            cuda::make_transform_iterator(s, SegmentOut{win, stride}),
            cuda::make_transform_iterator(s, BatchedLength{offsets}),
            cuda::make_transform_iterator(s, SlotBegin{stride}),
            cuda::make_transform_iterator(s, SlotEnd{offsets, stride, k})};
}

/* k is passed as at most kBatchMax (the select caps it at the segment's
 * length anyway), so that its bound holds for every k the op allows. */
cudaError_t batched_select(void *temp, size_t &bytes, const Batched &b, int k, int segments,
                           cudaStream_t stream) {
    k = k < kBatchMax ? k : kBatchMax;
    return cub::DeviceBatchedTopK::MaxKeys(
        temp, bytes, b.in, b.out,
        cuda::args::deferred_sequence{b.len, cuda::args::bounds<0, kBatchMax>()},
        cuda::args::immediate{k, cuda::args::bounds<0, kBatchMax>()}, segments,
        batched_env(stream));
}

cudaError_t batched_sort(void *temp, size_t &bytes, const u64 *win, u64 *sorted, const Batched &b,
                         int stride, int segments, cudaStream_t stream) {
    return cub::DeviceSegmentedSort::SortKeysDescending(
        temp, bytes, win, sorted, (int64_t)segments * stride, segments, b.begin, b.end, stream);
}

/* 0 and the layout, or the CUDA error of a sizing call. */
cudaError_t layout_of(const int64_t *len, int segments, int k, Layout *l) {
    *l = Layout{};
    int64_t short_max = 0, shorts = 0;
    size_t long_temp = 0;
    for (int s = 0; s < segments; s++) {
        const int n = (int)len[s], want = n < k ? n : k;
        if (n <= kBatchMax) {
            short_max = n > short_max ? n : short_max;
            shorts++;
            continue;
        }
        l->long_want = want > l->long_want ? want : l->long_want;
        if (want == 0) continue;
        size_t a = 0, b = 0;
        cudaError_t rc = cub::DeviceTopK::MaxKeys(nullptr, a, composites_of(nullptr),
                                                  (u64 *)nullptr, n, want, topk_env(0));
        if (rc == cudaSuccess)
            rc = cub::DeviceRadixSort::SortKeysDescending(nullptr, b, (const u64 *)nullptr,
                                                          (u64 *)nullptr, want, 0, 64);
        if (rc != cudaSuccess) return rc;
        long_temp = a > long_temp ? a : long_temp;
        long_temp = b > long_temp ? b : long_temp;
    }
    l->stride = (int)(short_max < k ? short_max : k);
    if (shorts > 0 && l->stride > 0) {
        const Batched b = batched_of(nullptr, nullptr, nullptr, l->stride, k);
        cudaError_t rc = batched_select(nullptr, l->batch_temp, b, k, segments, 0);
        if (rc == cudaSuccess)
            rc = batched_sort(nullptr, l->sort_temp, nullptr, nullptr, b, l->stride, segments, 0);
        if (rc != cudaSuccess) return rc;
        l->win = l->sorted = align_up(8 * (size_t)segments * l->stride);
        l->batch_temp = align_up(l->batch_temp);
        l->sort_temp = align_up(l->sort_temp);
    }
    l->long_win = l->long_sorted = align_up(8 * (size_t)l->long_want);
    l->long_temp = align_up(long_temp);
    return cudaSuccess;
}

size_t workspace_bytes(const kb_case *c) {
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(c, &n, &total, nullptr);
    if (!len) return 0;
    Layout l;
    const cudaError_t rc = layout_of(len, (int)n, (int)kb_topk_params_of(c).k, &l);
    free(len);
    return rc == cudaSuccess ? l.sum() : 0;
}

struct State {
    int k, segments, shorts; /* shorts: segments of <= kBatchMax */
    int64_t *len;            /* host copy of the segment lengths */
    Layout l;
    void *ws;
};

void teardown(void *state) {
    State *st = (State *)state;
    if (st) {
        cudaFree(st->ws);
        free(st->len);
    }
    free(st);
}

int setup(const kb_case *c, const kb_tensors *, void **state, kb_error *e) {
    *state = nullptr;
    State *st = (State *)calloc(1, sizeof(State));
    if (!st) return kb_fail(e, "out of host memory");
    int64_t n = 0, total = 0;
    st->k = (int)kb_topk_params_of(c).k;
    st->len = kb_topk_lengths(c, &n, &total, e);
    st->segments = (int)n;
    for (int64_t s = 0; st->len && s < n; s++) st->shorts += st->len[s] <= kBatchMax;
    int rc = KB_OK;
    cudaError_t sized = cudaSuccess;
    if (!st->len)
        rc = KB_ERR;
    else if ((sized = layout_of(st->len, st->segments, st->k, &st->l)) != cudaSuccess)
        rc = kb_cuda_check(sized, "sizing cub::DeviceTopK / DeviceBatchedTopK temp", e);
    else if (cudaMalloc(&st->ws, st->l.sum() ? st->l.sum() : 1) != cudaSuccess) {
        st->ws = nullptr;
        cudaGetLastError();
        rc = KB_OUT_OF_MEMORY;
    }
    if (rc != KB_OK)
        teardown(st);
    else
        *state = st;
    return rc;
}

/* The short segments: one batched select, one segmented sort, one write. */
cudaError_t run_batched(const State *st, const float *values, const int *offsets, float *out_v,
                        int *out_i, int *out_n, cudaStream_t stream) {
    const Layout &l = st->l;
    char *p = (char *)st->ws;
    u64 *win = (u64 *)p, *sorted = (u64 *)(p + l.win);
    void *batch_temp = p + l.win + l.sorted, *sort_temp = p + l.win + l.sorted + l.batch_temp;
    const Batched b = batched_of(values, offsets, win, l.stride, st->k);
    size_t bytes = l.batch_temp;
    cudaError_t rc = batched_select(batch_temp, bytes, b, st->k, st->segments, stream);
    if (rc != cudaSuccess) return rc;
    bytes = l.sort_temp;
    rc = batched_sort(sort_temp, bytes, win, sorted, b, l.stride, st->segments, stream);
    if (rc != cudaSuccess) return rc;
    const unsigned bx = (unsigned)((st->k + 255) / 256);
    write_out<<<dim3(bx, (unsigned)st->segments), 256, 0, stream>>>(
        values, offsets, sorted, l.stride, st->k, -1, true, out_v, out_i, out_n);
    return cudaGetLastError();
}

/* Long segment s (at values + begin): DeviceTopK, a radix sort of its k, one write. */
cudaError_t run_long(const State *st, int s, int64_t begin, const float *values, const int *offsets,
                     float *out_v, int *out_i, int *out_n, cudaStream_t stream) {
    const Layout &l = st->l;
    char *p = (char *)st->ws + l.win + l.sorted + l.batch_temp + l.sort_temp;
    u64 *win = (u64 *)p, *sorted = (u64 *)(p + l.long_win);
    void *temp = p + l.long_win + l.long_sorted;
    const int n = (int)st->len[s], want = n < st->k ? n : st->k;
    if (want > 0) {
        size_t bytes = l.long_temp;
        cudaError_t rc = cub::DeviceTopK::MaxKeys(temp, bytes, composites_of(values + begin), win,
                                                  n, want, topk_env(stream));
        if (rc != cudaSuccess) return rc;
        bytes = l.long_temp;
        rc =
            cub::DeviceRadixSort::SortKeysDescending(temp, bytes, win, sorted, want, 0, 64, stream);
        if (rc != cudaSuccess) return rc;
    }
    const unsigned bx = (unsigned)((st->k + 255) / 256);
    write_out<<<bx, 256, 0, stream>>>(values, offsets, sorted, 0, st->k, s, false, out_v, out_i,
                                      out_n);
    return cudaGetLastError();
}

int run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t stream,
        kb_error *e) {
    const State *st = (const State *)state;
    const kb_topk_io io = kb_topk_io_of(dev_in, dev_out);
    const float *values = io.values;
    const int *offsets = io.offsets;
    float *out_v = io.out_v;
    int *out_i = io.out_i, *out_n = io.out_n;
    if (st->segments == 0 || st->k == 0) {
        /* nothing selected: the counts (0), no slots */
        kb_nvtx_push("select");
        cudaError_t rc = st->segments ? cudaMemsetAsync(out_n, 0, 4 * (size_t)st->segments, stream)
                                      : cudaSuccess;
        kb_nvtx_pop();
        return kb_cuda_check(rc, "cub_topk counts", e);
    }
    kb_nvtx_push("select");
    cudaError_t rc = cudaSuccess;
    if (st->l.stride > 0)
        rc = run_batched(st, values, offsets, out_v, out_i, out_n, stream);
    else if (st->shorts > 0) { /* short segments, all empty: counts and sentinels only */
        write_out<<<dim3((unsigned)((st->k + 255) / 256), (unsigned)st->segments), 256, 0,
                    stream>>>(values, offsets, nullptr, 0, st->k, -1, true, out_v, out_i, out_n);
        rc = cudaGetLastError();
    }
    int64_t begin = 0;
    for (int s = 0; s < st->segments && rc == cudaSuccess; begin += st->len[s], s++)
        if (st->len[s] > kBatchMax)
            rc = run_long(st, s, begin, values, offsets, out_v, out_i, out_n, stream);
    kb_nvtx_pop();
    return kb_cuda_check(rc, "cub top-k", e);
}

#else /* !KB_CUB_TOPK: supports() refuses every case; nothing else runs */

size_t workspace_bytes(const kb_case *) {
    return 0;
}

int setup(const kb_case *, const kb_tensors *, void **state, kb_error *e) {
    *state = nullptr;
    cccl_has_topk(e);
    return KB_UNSUPPORTED;
}

int run(void *, const kb_tensors *, kb_tensors *, cudaStream_t, kb_error *e) {
    cccl_has_topk(e);
    return KB_UNSUPPORTED;
}

void teardown(void *state) {
    free(state);
}

#endif

} // namespace

KB_DEFINE_VARIANT(topk, cub_topk) = {supports, workspace_bytes, setup, run, teardown};
