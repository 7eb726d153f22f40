/* radix_select.cuh — the radix-select top-k launcher, for reuse (rpn_proposals).
 *
 * kb_topk_select: for each of `segments` segments of values (segment s is
 * values[offsets[s] .. offsets[s+1]) on the device), the min(k, n) largest,
 * descending, equal values (-0 == +0) by lower index first, into
 * out_v/out_i [segments, k] (index within the segment; sentinel -inf / -1
 * past the count) and out_n [segments]. One launch, no host sync, no
 * allocation: graph-capturable. longest = the longest segment (host value;
 * it sizes the shared-memory cache). k <= KB_TOPK_SELECT_MAX_K.
 */
#ifndef KB_TOPK_RADIX_SELECT_CUH
#define KB_TOPK_RADIX_SELECT_CUH

#include <cuda_runtime.h>

enum { KB_TOPK_SELECT_MAX_K = 4096 };

cudaError_t kb_topk_select(const float *values, const int *offsets, int segments, int longest,
                           int k, float *out_v, int *out_i, int *out_n, cudaStream_t stream);

#endif
