/* kbench/ops/topk.h — the topk op: the k largest values of each segment,
 * with their indices.
 *
 * Inputs  values f32 [total] (segments concatenated, e.g. the five RPN levels
 *         of one image, repeated `batch` times); offsets i32 [S + 1] (segment
 *         s is values[offsets[s] .. offsets[s+1])).
 * Outputs topk_values f32 [S, k], topk_indices i32 [S, k] (index within the
 *         segment), counts i32 [S] = min(k, length).
 * Order: descending by value; equal values by lower index first. -0 and +0
 * compare EQUAL (as floats do), so between them the lower index comes first;
 * a radix key must therefore map both zeros to one key (kb_topk_key does).
 * A value slot holds the input element itself (bitwise). Slots past the
 * count hold the sentinel: value -inf, index -1. NaN is outside the contract.
 * Semantics: README "What is in it" and DESIGN.md "Semantics", topk.
 */
#ifndef KBENCH_OPS_TOPK_H
#define KBENCH_OPS_TOPK_H

#include "kbench/case.h"
#include "kbench/util.h"

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { KB_TOPK_MAX_SEGMENTS = 65535 }; /* a grid's y extent: one cluster row per segment */

/* Order-preserving unsigned key: a > b as floats <=> key(a) > key(b), and
 * key(-0) == key(+0). Flip all bits of negatives, set the sign bit of
 * positives; -0 is first folded into +0. */
KB_HD uint32_t kb_topk_key(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    if ((b << 1) == 0) b = 0;
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

typedef enum kb_topk_dist { KB_TOPK_UNIFORM, KB_TOPK_TIES, KB_TOPK_NORMAL } kb_topk_dist;

/* The case's axes, decoded once for the op, the reference and the variants
 * (the segment lengths themselves: kb_topk_lengths). */
typedef struct kb_topk_params {
    const char *segments; /* the layout as written (points into the case) */
    int64_t k, batch;
    kb_topk_dist dist;
} kb_topk_params;
kb_topk_params kb_topk_params_of(const kb_case *c);

/* The segment lengths of a case, batch repeats included: a malloc'ed array
 * of *count lengths (the caller frees it) summing to *total; NULL with a
 * message on a malformed layout or too many segments. Layouts (axis
 * `segments`): `rpn5` = the RPN levels of an 800x1344 image with 3 anchors
 * (201600, 50400, 12600, 3150, 819); `CxL` = C segments of L; `L1+L2+...` =
 * explicit lengths (0 allowed). */
int64_t *kb_topk_lengths(const kb_case *c, int64_t *count, int64_t *total, kb_error *e);
/* The longest segment of a case (0 if it has none or is malformed). */
int64_t kb_topk_max_segment(const kb_case *c);

#ifdef __cplusplus
}
#endif
#endif
