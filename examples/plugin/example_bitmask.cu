/* example_bitmask.cu — nms/example_bitmask: greedy NMS on the GPU in three
 * kernels, the bitmask design of torchvision's CUDA nms, written to be read:
 *   rank  each box counts the boxes ranked before it (score descending, equal
 *         scores by lower index): its place in the sorted order
 *   mask  bit b of word w of row i: box i suppresses box 64 w + b (ranked
 *         after i, same class, IoU > iou by the op's own kb_nms_suppresses)
 *   walk  one block goes down the ranks, keeps each box no kept box has
 *         suppressed, and ORs a kept box's row into the removed bits
 * Rank and mask are O(n^2), as the mask is n^2 bits: a design for thousands
 * of boxes (supports() says where it stops). The op: kbench/ops/nms.h.
 */
#include "kbench/kbench.h"

#include <stdlib.h>

typedef unsigned long long u64;
enum { kThreads = 256, kRemovedWords = 48 * 1024 / 8 }; /* the walk's bits: 48 KiB of shared */

struct nms_state {
    kb_nms_params p;
    int words;            /* of a mask row: ceil(n / 64) */
    u64 *mask;            /* [n, words]; the one allocation, the rest after it */
    float *boxes;         /* [n, 4] in rank order */
    int *order, *classes; /* [n]: the input index of each rank; classes in rank order */
};

__global__ void rank_kernel(const float *scores, const float *boxes, const int *classes, int n,
                            int *order, float *sorted, int *sorted_classes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, r = 0;
    if (i >= n) return;
    for (int j = 0; j < n; j++) r += scores[j] > scores[i] || (scores[j] == scores[i] && j < i);
    order[r] = i;
    for (int c = 0; c < 4; c++) sorted[4 * r + c] = boxes[4 * i + c];
    sorted_classes[r] = classes ? classes[i] : 0; /* NULL: class-agnostic */
}

__global__ void mask_kernel(const float *boxes, const int *classes, int n, int words, float iou,
                            u64 *mask) {
    long long at = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (at >= (long long)n * words) return;
    int i = (int)(at / words), w = (int)(at % words);
    u64 bits = 0;
    for (int b = 0, j = 64 * w; b < 64 && j < n; b++, j++)
        if (j > i && classes[j] == classes[i] &&
            kb_nms_suppresses(boxes + 4 * i, boxes + 4 * j, iou))
            bits |= 1ull << b;
    mask[at] = bits;
}

__global__ void walk_kernel(const u64 *mask, const int *order, int n, int words, int cap, int *keep,
                            int *count) {
    __shared__ u64 removed[kRemovedWords];
    for (int w = threadIdx.x; w < words; w += blockDim.x) removed[w] = 0;
    __syncthreads();
    int kept = 0; /* the same in every thread */
    for (int i = 0; i < n && kept < cap; i++) {
        bool gone = (removed[i / 64] >> (i % 64)) & 1;
        __syncthreads(); /* every thread has read bit i before any ORs a row in */
        if (gone) continue;
        if (threadIdx.x == 0) keep[kept] = order[i];
        kept++;
        for (int w = threadIdx.x; w < words; w += blockDim.x)
            removed[w] |= mask[(size_t)i * words + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) *count = kept;
}

static int bitmask_supports(const kb_case *c, kb_error *why) {
    long long n = kb_nms_params_of(c).n, words = (n + 63) / 64;
    if (words <= kRemovedWords) return KB_OK;
    kb_fail(
        why,
        "example_bitmask: n=%lld: the walk's removed bits need %lld bytes of shared memory > %d", n,
        words * 8, kRemovedWords * 8);
    return KB_UNSUPPORTED;
}

static size_t bitmask_bytes(const kb_case *c) {
    size_t n = (size_t)kb_nms_params_of(c).n;
    return n * ((n + 63) / 64) * sizeof(u64) + n * (4 * sizeof(float) + 2 * sizeof(int));
}

static void bitmask_teardown(void *state) {
    cudaFree(((nms_state *)state)->mask); /* NULL where setup's cudaMalloc failed: a no-op */
    free(state);
}

static int bitmask_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    nms_state *st = (nms_state *)calloc(1, sizeof *st);
    if (!(*state = st)) return kb_fail(e, "example_bitmask: out of host memory");
    st->p = kb_nms_params_of(c); /* from here on, the runner's teardown releases st */
    st->words = (int)((st->p.n + 63) / 64);
    size_t n = (size_t)st->p.n, bytes = bitmask_bytes(c);
    if (cudaMalloc((void **)&st->mask, bytes + sizeof(u64)) != cudaSuccess) {
        cudaGetLastError(); /* clear it, so that no later launch check reports it */
        kb_fail(e, "example_bitmask: cudaMalloc of %zu bytes failed (n=%zu)", bytes, n);
        return KB_OUT_OF_MEMORY;
    }
    st->boxes = (float *)(st->mask + n * st->words); /* after the 8-byte words: aligned */
    st->order = (int *)(st->boxes + 4 * n);
    st->classes = st->order + n;
    return KB_OK;
}

static int bitmask_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                       kb_error *e) {
    nms_state *st = (nms_state *)state;
    kb_nms_data d = kb_nms_data_of(in, out);
    int n = (int)st->p.n, words = st->words;
    if (n == 0) return kb_cuda_check(cudaMemsetAsync(d.count, 0, sizeof(int), s), "count = 0", e);
    const int *classes = st->p.classes > 1 ? d.classes : NULL; /* 1: the input is ignored */
    rank_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, s>>>(
        d.scores, d.boxes, classes, n, st->order, st->boxes, st->classes);
    if (kb_cuda_check(cudaGetLastError(), "example_bitmask rank_kernel", e)) return KB_ERR;
    long long blocks = ((long long)n * words + kThreads - 1) / kThreads;
    mask_kernel<<<(unsigned)blocks, kThreads, 0, s>>>(st->boxes, st->classes, n, words, st->p.iou,
                                                      st->mask);
    if (kb_cuda_check(cudaGetLastError(), "example_bitmask mask_kernel", e)) return KB_ERR;
    walk_kernel<<<1, kThreads, 0, s>>>(st->mask, st->order, n, words, (int)st->p.cap, d.keep,
                                       d.count);
    return kb_cuda_check(cudaGetLastError(), "example_bitmask walk_kernel", e);
}

extern "C" const kb_variant_impl example_bitmask = {bitmask_supports, bitmask_bytes, bitmask_setup,
                                                    bitmask_run, bitmask_teardown};
