/* cpu_bitmask.c — nms/cpu_bitmask: greedy NMS on the CPU by the GPU's
 * design: the IoU test of every pair computed in parallel into a bit mask,
 * then one serial walk over it (KB_HOST: host tensors, wall-clock timing).
 *
 *   kbench check nms -v cpu_bitmask --sweep smoke     no GPU needed
 *   kbench run nms -v cpu_bitmask,cpu_greedy,blockwalk
 *
 * Rank by score (kb_nms_rank: descending, equal scores lower index first).
 * Row i of the mask holds, for every j > i in rank order, whether box i
 * overlaps box j above the threshold (and, class-aware, is of its class):
 * n^2/2 IoU tests split over the OpenMP threads, where cpu_greedy's walk
 * tests each box against every box kept so far, one thread per class. The
 * walk keeps a box no kept box's row has marked and ORs its row into the
 * removed set. The mask is n * ceil(n / 64) words: 128 MiB at 32768 boxes,
 * the most this variant takes (cpu_greedy has no such bound).
 */
#include "kbench/variant.h"
#include "kbench/ops/nms.h"
#include "kbench/ops/nms_iou.h"
#include "../common/variant_def.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BOXES = 32768 };

typedef struct bitmask_state {
    int64_t n, cap, words; /* words: 64-bit words a row */
    float thr;
    int class_aware;
    int64_t *order;    /* [n]: box indices in rank order */
    float *sorted;     /* [n, 4]: the boxes in rank order */
    int32_t *cls;      /* [n]: their classes */
    uint64_t *mask;    /* [n, words] */
    uint64_t *removed; /* [words] */
} bitmask_state;

static int64_t words_of(int64_t n) {
    return (n + 63) / 64;
}

static int bitmask_supports(const kb_case *c, kb_error *why) {
    const int64_t n = kb_nms_params_of(c).n;
    if (n <= MAX_BOXES) return KB_OK;
    kb_fail(why,
            "n=%lld: the %lld x %lld bit mask would take %.0f MiB (at most %d boxes; cpu_greedy "
            "has no such bound)",
            (long long)n, (long long)n, (long long)n,
            (double)n * (double)words_of(n) * 8.0 / 1048576.0, MAX_BOXES);
    return KB_UNSUPPORTED;
}

static size_t bitmask_bytes(const kb_case *c) {
    const size_t n = (size_t)kb_nms_params_of(c).n, w = (size_t)words_of((int64_t)n);
    return n * (sizeof(int64_t) + 4 * sizeof(float) + sizeof(int32_t)) + (n + 1) * w * 8;
}

static void bitmask_teardown(void *p) {
    bitmask_state *st = p;
    free(st->mask); /* the one block every array lives in */
    free(st);
}

/* One allocation, carved: the mask first (8-byte words), then the rest. */
static int bitmask_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)in;
    const kb_nms_params np = kb_nms_params_of(c);
    const size_t n = (size_t)(np.n > 0 ? np.n : 1), w = (size_t)words_of((int64_t)n);
    bitmask_state *st = calloc(1, sizeof *st);
    char *block = malloc(n * w * 8 + w * 8 + n * 8 + n * 16 + n * 4);
    if (!st || !block) {
        free(st);
        free(block);
        kb_fail(e, "cpu_bitmask: out of host memory for n=%lld", (long long)np.n);
        return KB_OUT_OF_MEMORY;
    }
    *st = (bitmask_state){.n = np.n,
                          .cap = np.cap,
                          .words = words_of(np.n),
                          .thr = np.iou,
                          .class_aware = np.classes > 1,
                          .mask = (uint64_t *)block,
                          .removed = (uint64_t *)(block + n * w * 8),
                          .order = (int64_t *)(block + n * w * 8 + w * 8),
                          .sorted = (float *)(block + n * w * 8 + w * 8 + n * 8),
                          .cls = (int32_t *)(block + n * w * 8 + w * 8 + n * 24)};
    *state = st;
    return KB_OK;
}

/* Row i: from the word holding i on, a bit for every j > i that box i
 * suppresses (the words before it are never read). */
static void mask_row(const bitmask_state *st, int64_t i) {
    const float *a = st->sorted + 4 * i;
    uint64_t *row = st->mask + (size_t)i * (size_t)st->words;
    for (int64_t w = i / 64; w < st->words; w++) {
        uint64_t bits = 0;
        const int64_t j0 = w * 64 > i + 1 ? w * 64 : i + 1,
                      j1 = w * 64 + 64 < st->n ? w * 64 + 64 : st->n;
        for (int64_t j = j0; j < j1; j++) {
            const float *b = st->sorted + 4 * j;
            /* Most pairs do not overlap: no intersection width or height
             * means inter = 0, an IoU of 0, never above a threshold >= 0
             * (the axis's range), the rule's own answer without its work. */
            if (!(fminf(a[2], b[2]) - fmaxf(a[0], b[0]) > 0.0f) ||
                !(fminf(a[3], b[3]) - fmaxf(a[1], b[1]) > 0.0f))
                continue;
            if ((!st->class_aware || st->cls[i] == st->cls[j]) &&
                kb_nms_iou_above(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], st->thr))
                bits |= 1ull << (j - w * 64);
        }
        row[w] = bits;
    }
}

static int bitmask_run(void *p, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                       kb_error *e) {
    (void)s;
    (void)e;
    bitmask_state *st = p;
    const int64_t n = st->n;
    const kb_nms_data io = kb_nms_data_of(in, out);

    kb_nms_rank(io.scores, n, st->order);
    for (int64_t i = 0; i < n; i++) {
        memcpy(st->sorted + 4 * i, io.boxes + 4 * (size_t)st->order[i], 4 * sizeof *st->sorted);
        st->cls[i] = io.classes[st->order[i]];
    }
    /* Rows shrink with i: dynamic chunks keep the threads even. */
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t i = 0; i < n; i++) mask_row(st, i);

    if (st->words > 0) memset(st->removed, 0, (size_t)st->words * sizeof *st->removed);
    int64_t nk = 0;
    for (int64_t i = 0; i < n && nk < st->cap; i++) {
        if (st->removed[i / 64] >> (i % 64) & 1) continue;
        io.keep[nk++] = (int32_t)st->order[i];
        const uint64_t *row = st->mask + (size_t)i * (size_t)st->words;
        for (int64_t w = i / 64; w < st->words; w++) st->removed[w] |= row[w];
    }
    *io.count = (int32_t)nk;
    return KB_OK;
}

KB_DEFINE_VARIANT(nms, cpu_bitmask) = {bitmask_supports, bitmask_bytes, bitmask_setup, bitmask_run,
                                       bitmask_teardown};
