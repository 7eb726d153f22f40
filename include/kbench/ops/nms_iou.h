/* kbench/ops/nms_iou.h — the one IoU rule of NMS, shared by the CPU references
 * and the GPU kernels so that both round alike at the threshold (DESIGN.md):
 *
 *   IoU = inter / (area_a + area_b - inter), fp32, x1,y1,x2,y2 with no "+1";
 *   a division (not a cross-multiplied comparison); zero union -> 0;
 *   a box is suppressed when IoU > threshold.
 *
 * Every operation is rounded on its own. On the device the _rn intrinsics stop
 * nvcc from fusing area_a + area_b or iw * ih into an fma (which would round
 * once where the C reference, built with -ffp-contract=off, rounds twice).
 */
#ifndef KBENCH_OPS_NMS_IOU_H
#define KBENCH_OPS_NMS_IOU_H

#include "kbench/util.h" /* KB_HD */

#include <math.h>

#ifdef __CUDA_ARCH__
#define KB_NMS_MUL(a, b) __fmul_rn((a), (b))
#define KB_NMS_ADD(a, b) __fadd_rn((a), (b))
#define KB_NMS_SUB(a, b) __fsub_rn((a), (b))
#define KB_NMS_DIV(a, b) __fdiv_rn((a), (b))
#else
#define KB_NMS_MUL(a, b) ((a) * (b))
#define KB_NMS_ADD(a, b) ((a) + (b))
#define KB_NMS_SUB(a, b) ((a) - (b))
#define KB_NMS_DIV(a, b) ((a) / (b))
#endif

/* IoU of box a = (ax1, ay1, ax2, ay2) and box b; symmetric in a and b. */
KB_HD float kb_nms_iou(float ax1, float ay1, float ax2, float ay2, float bx1, float by1, float bx2,
                       float by2) {
    float iw = fmaxf(KB_NMS_SUB(fminf(ax2, bx2), fmaxf(ax1, bx1)), 0.0f);
    float ih = fmaxf(KB_NMS_SUB(fminf(ay2, by2), fmaxf(ay1, by1)), 0.0f);
    float inter = KB_NMS_MUL(iw, ih);
    float area_a = KB_NMS_MUL(KB_NMS_SUB(ax2, ax1), KB_NMS_SUB(ay2, ay1));
    float area_b = KB_NMS_MUL(KB_NMS_SUB(bx2, bx1), KB_NMS_SUB(by2, by1));
    float uni = KB_NMS_SUB(KB_NMS_ADD(area_a, area_b), inter);
    return uni > 0.0f ? KB_NMS_DIV(inter, uni) : 0.0f;
}

/* kb_nms_iou(a, b) > thr, the same decision bit for bit, dividing only near
 * the threshold. With p = RN(thr * uni), hi = RN(p (1 + 2^-20)) and
 * lo = RN(p (1 - 2^-20)), each rounding within a factor (1 +- 2^-24):
 *   inter > hi  =>  inter / uni > thr (1 + 2^-21) > thr + ulp(thr)
 *               =>  RN(inter / uni) >= the float after thr > thr;
 *   inter < lo  =>  inter / uni < thr (1 - 2^-21) < the float before thr
 *               =>  RN(inter / uni) < thr.
 * That needs thr and p normal and hi finite (no underflow or overflow in the
 * bounds), hence the guards; otherwise, and in the band between, the division
 * decides. Disjoint boxes (inter = 0 < lo) never divide. */
KB_HD int kb_nms_iou_above(float ax1, float ay1, float ax2, float ay2, float bx1, float by1,
                           float bx2, float by2, float thr) {
    float iw = fmaxf(KB_NMS_SUB(fminf(ax2, bx2), fmaxf(ax1, bx1)), 0.0f);
    float ih = fmaxf(KB_NMS_SUB(fminf(ay2, by2), fmaxf(ay1, by1)), 0.0f);
    float inter = KB_NMS_MUL(iw, ih);
    float area_a = KB_NMS_MUL(KB_NMS_SUB(ax2, ax1), KB_NMS_SUB(ay2, ay1));
    float area_b = KB_NMS_MUL(KB_NMS_SUB(bx2, bx1), KB_NMS_SUB(by2, by1));
    float uni = KB_NMS_SUB(KB_NMS_ADD(area_a, area_b), inter);
    float p = KB_NMS_MUL(thr, uni);
    /* The bounds' tests as values and one branch to the division: in a mask
     * kernel's inner loop an early return per bound costs a branch and a
     * convergence point per pair. */
    int screened = (thr >= 0x1p-60f) & (p >= 0x1p-100f) & (p <= 0x1p100f);
    int above = inter > KB_NMS_MUL(p, 1.0f + 0x1p-20f);
    int below = inter < KB_NMS_MUL(p, 1.0f - 0x1p-20f);
    if (screened & (above | below)) return above;
    return (uni > 0.0f ? KB_NMS_DIV(inter, uni) : 0.0f) > thr;
}

/* Does a box of rank higher than b (a) suppress b at threshold thr? */
KB_HD int kb_nms_suppresses(const float *a, const float *b, float thr) {
    return kb_nms_iou(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]) > thr;
}

#endif
