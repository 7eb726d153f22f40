/* yolo_decode.c (reference) — YOLOv5 post-processing on the CPU, the truth
 * every variant is checked against (semantics: include/kbench/ops/yolo_decode.h).
 * Per image: the qualifying predictions (kb_yolo_score, kb_yolo_box: the same
 * float roundings as the kernels), ranked by kb_yolo_key, the first max_det,
 * then the nms op's class-aware greedy (or fast) reference, the first max_out.
 * Built -ffp-contract=off.
 */
#include "nms.h"
#include "yolo_decode.h"

#include <stdlib.h>
#include <string.h>

static int by_key(const void *pa, const void *pb) {
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

int64_t kb_yolo_qualifying(const kb_case *c, const kb_tensors *in, int64_t img) {
    kb_yolo_params p = kb_yolo_params_of(c);
    const float *pred = (const float *)kb_tensors_get(in, "pred")->data +
                        (size_t)img * (size_t)p.n * (size_t)(5 + p.c);
    int64_t count = 0;
    for (int64_t i = 0; i < p.n; i++) {
        float s;
        int k;
        count += kb_yolo_score(pred + (size_t)i * (size_t)(5 + p.c), p.c, p.conf, &s, &k);
    }
    return count;
}

int64_t kb_yolo_candidates(const kb_yolo_params *p, const float *pred, const float *d2i,
                           uint64_t *keys, float *boxes, int32_t *cls) {
    size_t stride = (size_t)(5 + p->c), n = (size_t)p->n;
    int64_t m = 0;
    for (size_t i = 0; i < n; i++) {
        float s;
        int k;
        if (kb_yolo_score(pred + i * stride, p->c, p->conf, &s, &k))
            keys[m++] = kb_yolo_key(s, (uint32_t)i);
    }
    qsort(keys, (size_t)m, sizeof *keys, by_key);
    if (m > p->max_det) m = p->max_det;
    for (int64_t r = 0; r < m; r++) {
        const float *row = pred + (size_t)(uint32_t)keys[r] * stride;
        float s;
        int k = 0;
        kb_yolo_score(row, p->c, p->conf, &s, &k);
        kb_yolo_box(row, d2i, p->src_w, p->src_h, boxes + 4 * r);
        cls[r] = k;
    }
    return m;
}

/* One image: returns the count written to dets, or -1 (out of memory). */
static int64_t one_image(const kb_yolo_params *p, const float *pred, const float *d2i, int fast,
                         float *dets) {
    size_t n = (size_t)p->n, cap = (size_t)(p->max_det < p->n ? p->max_det : p->n);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    float *boxes = malloc((cap ? cap : 1) * 4 * sizeof *boxes);
    int32_t *cls = malloc((cap ? cap : 1) * sizeof *cls);
    int64_t *order = malloc((cap ? cap : 1) * sizeof *order);
    int32_t *keep = malloc((cap ? cap : 1) * sizeof *keep);
    int64_t nk = -1;
    if (keys && boxes && cls && order && keep) {
        int64_t m = kb_yolo_candidates(p, pred, d2i, keys, boxes, cls);
        for (int64_t r = 0; r < m; r++) order[r] = r;
        nk = fast ? kb_nms_fast_ref(boxes, cls, order, m, p->iou, p->max_out, keep)
                  : kb_nms_greedy_ref(boxes, cls, order, m, p->iou, p->max_out, keep);
        for (int64_t k = 0; k < nk; k++) {
            int32_t r = keep[k];
            float *d = dets + 6 * k;
            memcpy(d, boxes + 4 * r, 4 * sizeof *d);
            d[4] = kb_yolo_key_score(keys[r]);
            d[5] = (float)cls[r];
        }
        for (int64_t k = nk; k < p->max_out; k++) memset(dets + 6 * k, 0, 6 * sizeof *dets);
    }
    free(keys);
    free(boxes);
    free(cls);
    free(order);
    free(keep);
    return nk;
}

int kb_yolo_decode_run_ref(const kb_case *c, const kb_tensors *in, kb_tensors *out, int fast,
                           kb_error *e) {
    kb_yolo_params p = kb_yolo_params_of(c);
    const float *pred = kb_tensors_get(in, "pred")->data;
    const float *d2i = kb_tensors_get(in, "d2i")->data;
    int32_t *count = kb_tensors_find(out, "count")->data;
    float *dets = kb_tensors_find(out, "dets")->data;
    int failed = 0;
    /* Images in parallel; the nms reference parallelises inside too (nested
     * regions run serially unless nesting is on). */
#pragma omp parallel for schedule(dynamic, 1) reduction(| : failed)
    for (int img = 0; img < p.b; img++) {
        int64_t nk = one_image(&p, pred + (size_t)img * (size_t)p.n * (size_t)(5 + p.c),
                               d2i + 6 * img, fast, dets + (size_t)img * (size_t)p.max_out * 6);
        count[img] = (int32_t)(nk > 0 ? nk : 0);
        failed |= nk < 0;
    }
    if (failed) return kb_fail(e, "yolo_decode reference: out of host memory for n=%d", p.n);
    return KB_OK;
}

int kb_yolo_decode_reference(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e) {
    return kb_yolo_decode_run_ref(c, in, out, 0, e);
}
