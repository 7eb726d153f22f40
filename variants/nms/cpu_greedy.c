/* cpu_greedy.c — nms/cpu_greedy: greedy NMS on the CPU, as onnxruntime's
 * NonMaxSuppression runs it (KB_HOST: host tensors, wall-clock timing).
 *
 *   kbench check nms -v cpu_greedy --sweep smoke      no GPU needed
 *   kbench run nms -v cpu_greedy,blockwalk           CPU vs GPU, row by row
 *
 * Sort by score (descending, equal scores lower index first), then walk the
 * boxes in that order, comparing each only with the boxes its class kept so
 * far (no IoU matrix, no bitmask): O(n log n + n * kept). Class-aware NMS is
 * NMS per class: the ranked boxes are grouped by class (stable, so each
 * class's list stays in rank order) and the classes run in parallel
 * (OpenMP), each stopping at the cap, since no class contributes more than
 * the cap to the first cap keeps; the kept flags are then read back in rank
 * order. The reference (reference/nms.c) is another design: chunks of
 * candidates tested in parallel against the keeps so far.
 */
#include "kbench/variant.h"
#include "kbench/ops/nms.h"
#include "kbench/ops/nms_iou.h"
#include "../common/variant_def.h"

#include <stdlib.h>
#include <string.h>

typedef struct ranked {
    float score;
    int32_t index;
} ranked;

typedef struct by_class {
    int32_t cls, pos; /* pos: the box's position in the score order */
} by_class;

typedef struct greedy_state {
    int64_t n, cap;
    float thr;
    int class_aware;
    ranked *order;            /* [n]: the score order */
    by_class *group;          /* [n]: the score order grouped by class */
    int64_t *seg;             /* [n + 1]: where each class's group starts */
    float *kept;              /* [n, 4]: each class's kept boxes, in its group's slice */
    unsigned char *keep_flag; /* [n]: by position in the score order */
} greedy_state;

static int by_rank(const void *pa, const void *pb) {
    const ranked *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int by_class_then_rank(const void *pa, const void *pb) {
    const by_class *a = pa, *b = pb;
    if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int greedy_supports(const kb_case *c, kb_error *why) {
    (void)c;
    (void)why;
    return KB_OK;
}

static size_t greedy_bytes(const kb_case *c) {
    size_t n = (size_t)kb_nms_params_of(c).n;
    return n * (sizeof(ranked) + sizeof(by_class) + sizeof(int64_t) + 4 * sizeof(float) + 1) +
           sizeof(int64_t);
}

static void greedy_teardown(void *p) {
    greedy_state *st = p;
    free(st->order);
    free(st->group);
    free(st->seg);
    free(st->kept);
    free(st->keep_flag);
    free(st);
}

static int greedy_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    greedy_state *st = calloc(1, sizeof *st);
    if (!st) {
        kb_fail(e, "cpu_greedy: out of host memory");
        return KB_OUT_OF_MEMORY;
    }
    *state = st;
    const kb_nms_params np = kb_nms_params_of(c);
    st->n = np.n;
    st->cap = np.cap;
    st->thr = np.iou;
    st->class_aware = np.classes > 1;
    size_t n = (size_t)(st->n > 0 ? st->n : 1);
    st->order = malloc(n * sizeof *st->order);
    st->group = malloc(n * sizeof *st->group);
    st->seg = malloc((n + 1) * sizeof *st->seg);
    st->kept = malloc(n * 4 * sizeof *st->kept);
    st->keep_flag = malloc(n);
    if (!st->order || !st->group || !st->seg || !st->kept || !st->keep_flag) {
        kb_fail(e, "cpu_greedy: out of host memory for n=%lld", (long long)st->n);
        return KB_OUT_OF_MEMORY;
    }
    return KB_OK;
}

/* Greedy over one class's boxes, m of them from group[0..m) (in rank order):
 * a box is kept unless a box this class kept overlaps it above thr. Stops
 * at cap keeps. kept: scratch for m boxes. */
static void greedy_class(const by_class *group, int64_t m, const ranked *order, const float *boxes,
                         float thr, int64_t cap, float *kept, unsigned char *keep_flag) {
    int64_t nk = 0;
    for (int64_t j = 0; j < m && nk < cap; j++) {
        const float *b = boxes + 4 * (size_t)order[group[j].pos].index;
        int suppressed = 0;
        for (int64_t k = 0; k < nk && !suppressed; k++) {
            const float *a = kept + 4 * k;
            suppressed = kb_nms_iou_above(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], thr);
        }
        if (suppressed) continue;
        memcpy(kept + 4 * nk++, b, 4 * sizeof *kept);
        keep_flag[group[j].pos] = 1;
    }
}

static int greedy_run(void *p, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    (void)s;
    (void)e;
    greedy_state *st = p;
    const int64_t n = st->n;
    const kb_nms_data io = kb_nms_data_of(in, out);
    const float *boxes = io.boxes, *scores = io.scores;
    const int32_t *cls = io.classes;
    int32_t *keep = io.keep, *count = io.count;
    const int64_t cap = st->cap;
    const float thr = st->thr;

    for (int64_t i = 0; i < n; i++) st->order[i] = (ranked){scores[i], (int32_t)i};
    qsort(st->order, (size_t)n, sizeof *st->order, by_rank);
    for (int64_t i = 0; i < n; i++)
        st->group[i] = (by_class){st->class_aware ? cls[st->order[i].index] : 0, (int32_t)i};
    if (st->class_aware) qsort(st->group, (size_t)n, sizeof *st->group, by_class_then_rank);
    if (n > 0) memset(st->keep_flag, 0, (size_t)n);

    /* Class boundaries: segment starts, then the classes in parallel. */
    int64_t nseg = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || st->group[i].cls != st->group[i - 1].cls) st->seg[nseg++] = i;
    st->seg[nseg] = n;
#pragma omp parallel for schedule(dynamic, 1) if (nseg > 1)
    for (int64_t g = 0; g < nseg; g++)
        greedy_class(st->group + st->seg[g], st->seg[g + 1] - st->seg[g], st->order, boxes, thr,
                     cap, st->kept + 4 * st->seg[g], st->keep_flag);

    int64_t nk = 0;
    for (int64_t i = 0; i < n && nk < cap; i++)
        if (st->keep_flag[i]) keep[nk++] = st->order[i].index;
    *count = (int32_t)nk;
    return KB_OK;
}

KB_DEFINE_VARIANT(nms, cpu_greedy) = {greedy_supports, greedy_bytes, greedy_setup, greedy_run,
                                      greedy_teardown};
