/* masks.cuh — the suppression masks that bitmask.cu builds and every greedy
 * walk reads (bitmask.cu: box by box; blockwalk.cu: 64 boxes a step), their
 * workspace layout, and the plumbing the three nms variants on them share.
 * C++/CUDA only; build_masks is defined in bitmask.cu. The mask layout: above
 * build_masks there; the pruning and far lists are blockwalk's.
 */
#ifndef KB_NMS_MASKS_CUH
#define KB_NMS_MASKS_CUH

#include "kbench/variant.h"
#include "kbench/ops/nms.h"
#include "kbench/ops/nms_iou.h"
#include "../common/nms_device.cuh"

#include <stdint.h>

typedef unsigned long long u64;

namespace kb_nms_masks {

constexpr unsigned kFull = 0xffffffffu;

inline int words_of(int n) {
    return (n + 63) / 64;
}
inline int cap_of(int n, int max_out) {
    return max_out > 0 && max_out < n ? max_out : n;
}

/* kb_nms_iou(a, b) > thr exactly, the division only near the threshold. */
__device__ __forceinline__ bool suppresses(float4 a, float4 b, float thr) {
    return kb_nms_iou_above(a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, thr);
}

/* One mask word of a 64x64 tile, by the kSplit lanes of an aligned group of
 * a warp that share box a's row: columns k in [lo, hi), k = lo + (lane mod
 * kSplit) + kSplit i, each setting bit bit(k) when box a suppresses col[k]
 * (kColumnForm: when col[k] suppresses a; the same argument order as the
 * other form's test of that pair, so the two agree bit for bit); the group's
 * bits ORed by shuffles, every lane of the group returns the word. Every lane
 * of the group calls it. */
template <bool kClasses, int kSplit, bool kColumnForm, class Bit>
__device__ __forceinline__ u64 tile_word(float4 a, int a_class, const float4 *col,
                                         const int *col_class, int lo, int hi, float thr, Bit bit) {
    const int lane = threadIdx.x & 31;
    const unsigned group = (kFull >> (32 - kSplit)) << (lane & ~(kSplit - 1));
    u64 bits = 0;
    for (int k = lo + lane % kSplit; k < hi; k += kSplit)
        if ((!kClasses || col_class[k] == a_class) &&
            (kColumnForm ? suppresses(col[k], a, thr) : suppresses(a, col[k], thr)))
            bits |= 1ull << bit(k);
    for (int o = 1; o < kSplit; o <<= 1) bits |= __shfl_xor_sync(group, bits, o);
    return bits;
}

/* Column blocks in x order, for pruning (xsort_kernel, once per 64-box
 * block): box[k] the block's boxes by x1 ascending (pads last), pos[k] their
 * place in the block, max_x2[k] the largest x2 of box[0..k]. flag = 1 when a
 * coordinate is NaN: then box/pos keep block order and nothing is pruned. */
struct xsorted {
    float4 *box;
    float *max_x2;
    unsigned char *pos;
    int *flag;
};

/* Far words of the mask rows in list form: for box r, the nonzero words
 * w >= r / 64 + 2 (the ones blockwalk's workers OR in), at most slots of
 * them: word[r * slots + s], bits[...], s < min(count[r], slots). A row with
 * more (count[r] > slots) is read from the dense mask. Uniform 100000 boxes
 * @0.5: ~24 far words per row of 1563 (<2% of rows over 60); 25200: ~6.
 * slots is kFarSlots, or kFewFarSlots up to kFewFarWords column blocks: the
 * walk's workers hold 64 x slots items a step, live or not, so fewer slots
 * mean fewer instructions on the step's path. */
constexpr int kFarSlots = 60, kFewFarSlots = 30, kFewFarWords = 512;
struct far_lists {
    u64 *bits;
    int *word, *count; /* count: zeroed before the mask kernel */
    int slots;
};

/* The masks of n sorted boxes (bitmask.cu): see there. */
cudaError_t build_masks(const float4 *boxes, const int *classes, int n, float iou, u64 *mask,
                        u64 *diag_col, xsorted xs, far_lists far, cudaStream_t s);

inline size_t align_up(size_t b) {
    return (b + 255) / 256 * 256;
}

/* Workspace: the mask (n rows of words), the diagonal column words (n), the
 * x-sorted column blocks, the far lists, and blockwalk's one-launch count of
 * finished blocks (zeroed once by its setup; each launch leaves it at 0). */
struct ws_layout {
    u64 *mask, *diag_col;
    xsorted xs;
    far_lists far;
    unsigned *finished;
};

/* One list of the regions, for both the pointers and the size. */
inline ws_layout carve(void *ws, int n, size_t *bytes) {
    size_t at = 0;
    auto take = [&](size_t b) {
        void *p = (void *)((uintptr_t)ws + at); /* ws may be NULL: sizes only */
        at += align_up(b);
        return p;
    };
    ws_layout l;
    l.mask = (u64 *)take((size_t)n * words_of(n) * sizeof(u64));
    l.diag_col = (u64 *)take((size_t)n * sizeof(u64));
    l.xs.box = (float4 *)take((size_t)n * sizeof(float4));
    l.xs.max_x2 = (float *)take((size_t)n * sizeof(float));
    l.xs.flag = (int *)take((size_t)words_of(n) * sizeof(int));
    l.xs.pos = (unsigned char *)take((size_t)n);
    l.far.slots = words_of(n) <= kFewFarWords ? kFewFarSlots : kFarSlots;
    l.far.bits = (u64 *)take((size_t)n * l.far.slots * sizeof(u64));
    l.far.word = (int *)take((size_t)n * l.far.slots * sizeof(int));
    l.far.count = (int *)take((size_t)n * sizeof(int));
    l.finished = (unsigned *)take(sizeof(unsigned));
    if (bytes) *bytes = at;
    return l;
}

/* The walks' masks prune by x (xsort_kernel's launch) only from 64 column
 * blocks, below which the launch costs more than the pruning saves. */
inline bool prunes(int n) {
    return words_of(n) >= 64;
}

typedef void (*walk_kernel)(const u64 *, const u64 *, far_lists, int, int, int, const int *, int *,
                            int *);

inline cudaError_t launch_walk(walk_kernel kernel, int threads, const u64 *mask,
                               const u64 *diag_col, far_lists far, int n, int cap, const int *order,
                               int *keep, int *count, cudaStream_t s) {
    int words = words_of(n);
    size_t smem = (size_t)words * sizeof(u64);
    if (smem > 48 * 1024) {
        cudaError_t rc =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (rc != cudaSuccess) return rc;
    }
    kernel<<<1, threads, smem, s>>>(mask, diag_col, far, n, words, cap, order, keep, count);
    return cudaGetLastError();
}

/* ---- the variants' plumbing ---- */

/* The walks keep the removed bits of all boxes in shared memory (8 bytes per
 * 64 boxes): 227 KB on an H100 holds 1.8M boxes, 99 KB on an L4 800k. The
 * mask is n^2/8 bytes. */
inline int masks_supports(const kb_case *c, kb_error *why) {
    const kb_gpu *g = kb_gpu_current();
    int64_t n = kb_nms_params_of(c).n;
    int64_t smem = (n + 63) / 64 * 8, limit = g ? (int64_t)g->smem_optin : INT64_MAX;
    if (smem > limit)
        return kb_fail(why, "the walk's removed bits need %lld bytes of shared memory > %lld",
                       (long long)smem, (long long)limit),
               KB_UNSUPPORTED;
    return KB_OK;
}

inline size_t device_walk_bytes(const kb_case *c) {
    return kb_nms_sorted_state_bytes(c);
}

/* NMS of boxes already sorted, into keep and count (n = 0 writes count 0). */
typedef cudaError_t (*sorted_walk)(const float4 *boxes, const int *classes, int n, float iou,
                                   int max_out, const int *order, int *keep, int *count, void *ws,
                                   cudaStream_t s);

template <sorted_walk kWalk>
int device_walk_run(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
                    kb_error *e) {
    kb_nms_sorted *st = (kb_nms_sorted *)state;
    if (kb_nms_sorted_fill(st, dev_in, s, e) != KB_OK) return KB_ERR;
    int *keep = (int *)kb_tensors_find(dev_out, "keep")->data;
    int *count = (int *)kb_tensors_find(dev_out, "count")->data;
    return kb_cuda_check(kWalk(st->boxes, st->classes, st->n, st->iou, st->max_out, st->order, keep,
                               count, st->nms_ws, s),
                         "nms masks + walk", e);
}

} // namespace kb_nms_masks

#endif
