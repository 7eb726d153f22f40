/* nms_device.cuh — NMS device code to reuse (rpn_proposals, yolo_decode, ...),
 * defined in variants/nms/. C++/CUDA only. Every launcher only enqueues on its
 * stream: no host sync, no allocation, so each is graph-capturable. n = 0 is
 * allowed (count = 0).
 *
 *   kb_nms_sort_by_score          rank boxes by score, gather them in rank order
 *   kb_nms_sorted_bitmask_gpu,    greedy NMS on sorted boxes (mmcv's walk; the
 *   kb_nms_sorted_blockwalk       fastest exact walk)
 *   kb_nms_sorted_fast            fast NMS on sorted boxes
 *   struct kb_nms_sorted          the nms op's variants' own plumbing (sort.cu)
 *
 * Each declaration below says its contract; the coordinate-offset trick, for
 * NMS per class or level without classes, is above the sorted launchers.
 */
#ifndef KB_NMS_DEVICE_CUH
#define KB_NMS_DEVICE_CUH

#include <cstddef>
#include <cuda_runtime.h>

/* Sorting (variants/nms/sort.cu, the one CUB file of nms): rank boxes by score
 * descending, equal scores lower index first (CUB radix sort is stable; -0 is
 * ranked as +0), and gather the boxes and classes in rank order. order[r] =
 * the input index of rank r. */
size_t kb_nms_sort_workspace(int n);
cudaError_t kb_nms_sort_by_score(const float *scores, const float4 *boxes, const int *classes,
                                 int n, int *order, float4 *boxes_sorted, int *classes_sorted,
                                 void *workspace, size_t ws_bytes, cudaStream_t stream);

/* NMS on boxes ALREADY SORTED by rank (boxes_sorted[r], classes_sorted[r]):
 *   classes_sorted may be NULL (class-agnostic); otherwise only boxes of equal
 *   class suppress each other (exact, no coordinate trick).
 *   max_out <= 0: no cap; else at most max_out keeps (keep_out holds that many).
 *   order may be NULL: keep_out gets ranks; else keep_out[k] = order[rank].
 *   count_out: one device int. workspace: kb_nms_sorted_workspace(n) bytes.
 *
 *   kb_nms_sorted_bitmask_gpu   64x64 IoU tiles -> a 64-bit mask per box and
 *                               column block; one block walks box by box.
 *   kb_nms_sorted_blockwalk     the same masks, built testing only pairs that
 *                               overlap in x, plus the diagonal tiles in
 *                               column form and each row's nonzero far words
 *                               as a list; one block walks 64 boxes per step,
 *                               each block resolved in ballot rounds, the kept
 *                               rows' lists ORed from prefetched registers
 *                               (the fastest exact walk; the nms op's rounds
 *                               variant, not exported here, is faster).
 *   kb_nms_sorted_fast          fast NMS (not greedy: drops a box when any
 *                               higher-ranked box of its class overlaps it).
 *
 * The coordinate-offset trick (torchvision's batched_nms, mmdetection RPN):
 * instead of classes_sorted, shift every box of class (or level) c by
 * c * (max coordinate + 1) on x and y before the call, so boxes of different
 * classes never intersect, and pass classes_sorted = NULL. The IoU of two
 * boxes of one class is then computed on shifted coordinates: it equals the
 * unshifted IoU only while x + offset is exact in fp32 (offset + coordinates
 * below 2^24 and the coordinates' fraction bits not rounded away — e.g.
 * integer-pixel boxes, or offsets of a power of two times a few classes).
 * Pass classes_sorted when that cannot be promised: it costs one int load.
 */
size_t kb_nms_sorted_workspace(int n);
cudaError_t kb_nms_sorted_bitmask_gpu(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                      float iou, int max_out, const int *order, int *keep_out,
                                      int *count_out, void *workspace, size_t ws_bytes,
                                      cudaStream_t stream);
cudaError_t kb_nms_sorted_blockwalk(const float4 *boxes_sorted, const int *classes_sorted, int n,
                                    float iou, int max_out, const int *order, int *keep_out,
                                    int *count_out, void *workspace, size_t ws_bytes,
                                    cudaStream_t stream);
cudaError_t kb_nms_sorted_fast(const float4 *boxes_sorted, const int *classes_sorted, int n,
                               float iou, int max_out, const int *order, int *keep_out,
                               int *count_out, void *workspace, size_t ws_bytes,
                               cudaStream_t stream);

/* For the bitmask family (variants/nms/bitmask.cu): the suppression masks of sorted boxes,
 * mask[r * words + w] bit b = box r suppresses box 64 w + b (only w >= r / 64
 * is written), words = (n + 63) / 64. The host-walk variant reads them back. */
cudaError_t kb_nms_build_masks(const float4 *boxes_sorted, const int *classes_sorted, int n,
                               float iou, unsigned long long *mask, cudaStream_t stream);
size_t kb_nms_mask_bytes(int n);

/* ---- plumbing of the nms op's variants (variants/nms/sort.cu) ----
 * One device allocation per variant: the sorted boxes, then the sort's and
 * the NMS launcher's workspaces. */
struct kb_case;
struct kb_tensors;
struct kb_error;
struct kb_nms_sorted {
    int n, max_out, class_aware;
    float iou;
    int *order;
    float4 *boxes;
    int *classes; /* NULL when class-agnostic */
    void *sort_ws, *nms_ws;
    size_t sort_ws_bytes, nms_ws_bytes;
    void *base; /* the one allocation */
};
size_t kb_nms_sorted_state_bytes(const struct kb_case *c);
/* Allocates exactly kb_nms_sorted_state_bytes(c): KB_OUT_OF_MEMORY on failure. */
int kb_nms_sorted_setup(const struct kb_case *c, struct kb_nms_sorted *st, struct kb_error *e);
/* Enqueue the sort of dev_in's boxes into st. */
int kb_nms_sorted_fill(struct kb_nms_sorted *st, const struct kb_tensors *dev_in,
                       cudaStream_t stream, struct kb_error *e);
void kb_nms_sorted_free(struct kb_nms_sorted *st);
/* The variants' setup and teardown when their state is a kb_nms_sorted alone:
 * a host struct set up by kb_nms_sorted_setup, and both freed. */
int kb_nms_sorted_new(const struct kb_case *c, const struct kb_tensors *dev_in, void **state,
                      struct kb_error *e);
void kb_nms_sorted_delete(void *state);

#endif
