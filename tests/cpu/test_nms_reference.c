/* test_nms_reference.c — the CPU references of greedy and fast NMS, the IoU
 * rule at its edges, the input generators and the op's comparison. */
#include "kbtest.h"
#include "nms.h"
#include "kbench/ops/nms_iou.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plain serial greedy walk the chunked reference must reproduce. */
static int64_t serial_greedy(const float *b, const int32_t *cls, const int64_t *order, int64_t n,
                             float iou, int32_t *keep) {
    int64_t nk = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t i = order[r];
        int alive = 1;
        for (int64_t k = 0; k < nk && alive; k++)
            if ((!cls || cls[keep[k]] == cls[i]) &&
                kb_nms_suppresses(b + 4 * keep[k], b + 4 * i, iou))
                alive = 0;
        if (alive) keep[nk++] = (int32_t)i;
    }
    return nk;
}

/* A case's inputs from the op's own generator. */
typedef struct {
    kb_case c;
    kb_tensors in, out;
} nms_case;

static void make_case(nms_case *t, const char *n, const char *dist, const char *classes,
                      const char *max_out, uint64_t seed) {
    memset(t, 0, sizeof *t);
    kb_case_defaults(&t->c, &kb_op_nms);
    kbt_set(&t->c, "n", n);
    kbt_set(&t->c, "dist", dist);
    kbt_set(&t->c, "classes", classes);
    kbt_set(&t->c, "max_out", max_out);
    kb_op_nms.describe(&t->c, &t->in, &t->out, NULL);
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->out, NULL);
    kb_op_nms.make_inputs(&t->c, seed, &t->in, NULL);
    kb_op_nms.reference(&t->c, &t->in, &t->out, NULL);
}

static void free_case(nms_case *t) {
    kb_tensors_free_host(&t->in);
    kb_tensors_free_host(&t->out);
}

static float *boxes_of(nms_case *t) {
    return kb_tensors_find(&t->in, "boxes")->data;
}
static float *scores_of(nms_case *t) {
    return kb_tensors_find(&t->in, "scores")->data;
}
static int32_t *classes_of(nms_case *t) {
    return kb_tensors_find(&t->in, "classes")->data;
}
static int32_t *keep_of(nms_case *t) {
    return kb_tensors_find(&t->out, "keep")->data;
}
static int32_t count_of(nms_case *t) {
    return ((int32_t *)kb_tensors_find(&t->out, "count")->data)[0];
}

KB_TEST(nms_iou_is_one_half_exactly_for_a_box_covering_half_another) {
    /* a = 2x1, b = its left half: inter 1, union 2 + 1 - 1 = 2. */
    KB_EXPECT(kb_nms_iou(0, 0, 2, 1, 0, 0, 1, 1) == 0.5f);
    KB_EXPECT(kb_nms_iou(0, 0, 1, 1, 0, 0, 2, 1) == 0.5f);
}

KB_TEST(nms_iou_at_the_threshold_does_not_suppress) {
    float b[8] = {0, 0, 2, 1, 0, 0, 1, 1}, s[2] = {0.9f, 0.8f};
    int64_t order[2];
    int32_t keep[2];
    kb_nms_rank(s, 2, order);
    KB_EXPECT(kb_nms_greedy_ref(b, NULL, order, 2, 0.5f, 0, keep) == 2);
    KB_EXPECT(kb_nms_greedy_ref(b, NULL, order, 2, 0.49f, 0, keep) == 1);
    KB_EXPECT(kb_nms_fast_ref(b, NULL, order, 2, 0.5f, 0, keep) == 2);
}

/* The screened decision (kernels' fast path) equals the division's on random
 * pairs, on pairs built to land within a few ulps of the threshold, on
 * degenerate boxes and at thresholds 0, subnormal, tiny and 1. */
KB_TEST(nms_screened_decision_equals_the_division_bit_for_bit) {
    static const float thrs[] = {0.0f, 1e-40f, 1e-20f, 0.3f, 0.45f, 0.5f, 0.7f, 1.0f};
    uint64_t rng = 0x5eed;
    long differ = 0, suppressed = 0, near = 0;
    for (long i = 0; i < 2000000; i++) {
        float thr = thrs[i % 8];
        double w = kb_rng_int(&rng, 0, 9) ? 4 + 200 * kb_rng_uniform(&rng) : 0;
        double h = kb_rng_int(&rng, 0, 9) ? 4 + 200 * kb_rng_uniform(&rng) : 0;
        float a[4] = {(float)(1024 * kb_rng_uniform(&rng)), (float)(1024 * kb_rng_uniform(&rng))};
        a[2] = (float)(a[0] + w), a[3] = (float)(a[1] + h);
        float b[4];
        if (i % 3 == 0) { /* anywhere */
            b[0] = (float)(1024 * kb_rng_uniform(&rng)),
            b[1] = (float)(1024 * kb_rng_uniform(&rng));
            b[2] = (float)(b[0] + 4 + 200 * kb_rng_uniform(&rng));
            b[3] = (float)(b[1] + 4 + 200 * kb_rng_uniform(&rng));
        } else { /* a shifted along x by d: IoU (w - d) / (w + d) = thr, then a few ulps off */
            float d = (float)(w * (1 - thr) / (1 + thr));
            for (int u = (int)kb_rng_int(&rng, -4, 4); u; u += u > 0 ? -1 : 1)
                d = nextafterf(d, u > 0 ? INFINITY : 0.0f);
            b[0] = a[0] + d, b[1] = a[1], b[2] = a[2] + d, b[3] = a[3];
        }
        float iou = kb_nms_iou(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
        int exact = iou > thr;
        int fast = kb_nms_iou_above(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], thr);
        differ += exact != fast;
        suppressed += exact;
        near += thr > 0 && fabsf(iou - thr) <= 4e-7f * thr;
    }
    if (differ) printf("  %ld of 2000000 decisions differ\n", differ);
    KB_EXPECT(differ == 0);
    KB_EXPECT(suppressed > 100000 && near > 10000); /* both sides and the band were exercised */
}

KB_TEST(nms_zero_area_boxes_have_iou_zero_and_are_kept) {
    /* two identical points, a zero-width line inside a box, and the box */
    float b[12] = {5, 5, 5, 5, 5, 5, 5, 5, 2, 0, 2, 10}, s[3] = {0.9f, 0.8f, 0.7f};
    KB_EXPECT(kb_nms_iou(5, 5, 5, 5, 5, 5, 5, 5) == 0.0f);
    KB_EXPECT(kb_nms_iou(2, 0, 2, 10, 0, 0, 10, 10) == 0.0f);
    int64_t order[3];
    int32_t keep[3];
    kb_nms_rank(s, 3, order);
    KB_EXPECT(kb_nms_greedy_ref(b, NULL, order, 3, 0.0f, 0, keep) == 3);
}

KB_TEST(nms_ties_keep_lower_index) {
    float s[5] = {0.5f, 0.9f, 0.5f, 0.9f, -0.0f};
    int64_t order[5];
    kb_nms_rank(s, 5, order);
    KB_EXPECT(order[0] == 1 && order[1] == 3 && order[2] == 0 && order[3] == 2 && order[4] == 4);
    /* identical boxes, equal scores: the lowest index survives */
    float b[16] = {1, 1, 9, 9, 1, 1, 9, 9, 1, 1, 9, 9, 1, 1, 9, 9},
          eq[4] = {0.7f, 0.7f, 0.7f, 0.7f};
    int32_t keep[4];
    kb_nms_rank(eq, 4, order);
    KB_EXPECT(kb_nms_greedy_ref(b, NULL, order, 4, 0.5f, 0, keep) == 1 && keep[0] == 0);
}

KB_TEST(nms_negative_zero_ranks_as_zero) {
    float s[3] = {-0.0f, 0.0f, -0.0f};
    int64_t order[3];
    kb_nms_rank(s, 3, order);
    KB_EXPECT(order[0] == 0 && order[1] == 1 && order[2] == 2);
}

/* The rank without a buffer of its own (kb_nms_rank's fallback where the
 * buffer cannot be allocated) is the same rank: on scores with many ties,
 * signed zeros among them, and on distinct ones, at sizes around a heap's
 * levels. */
KB_TEST(nms_rank_in_place_equals_the_rank) {
    enum { N = 1030 };
    static float s[N];
    static int64_t a[N], b[N];
    unsigned x = 12345;
    for (int distinct = 0; distinct < 2; distinct++)
        for (int64_t n = 0; n <= N; n += n < 20 ? 1 : 101) {
            for (int64_t i = 0; i < n; i++) {
                x = x * 1664525u + 1013904223u;
                s[i] = distinct ? (float)(x >> 8) : (float)((int)(x >> 28) - 8) * 0.25f;
                if (!distinct && s[i] == 0 && (x & 256)) s[i] = -0.0f;
            }
            kb_nms_rank(s, n, a);
            memset(b, 0xff, sizeof b);
            kb_nms_rank_in_place(s, n, b);
            KB_EXPECT(memcmp(a, b, (size_t)n * sizeof *a) == 0);
        }
}

KB_TEST(nms_all_identical_boxes_keep_only_the_best) {
    nms_case t;
    make_case(&t, "500", "uniform", "1", "0", 3);
    float *b = boxes_of(&t);
    for (int i = 1; i < 500; i++) memcpy(b + 4 * i, b, 4 * sizeof *b);
    kb_op_nms.reference(&t.c, &t.in, &t.out, NULL);
    int64_t best = 0;
    for (int i = 1; i < 500; i++)
        if (scores_of(&t)[i] > scores_of(&t)[best]) best = i;
    KB_EXPECT(count_of(&t) == 1 && keep_of(&t)[0] == best);
    free_case(&t);
}

KB_TEST(nms_empty_and_single_box) {
    nms_case t;
    make_case(&t, "0", "uniform", "1", "0", 1);
    KB_EXPECT(count_of(&t) == 0);
    free_case(&t);
    make_case(&t, "1", "uniform", "1", "0", 1);
    KB_EXPECT(count_of(&t) == 1 && keep_of(&t)[0] == 0);
    free_case(&t);
}

KB_TEST(nms_chunked_greedy_equals_the_serial_walk) {
    static const char *const sizes[] = {"63", "64", "65", "1000", "4097"};
    static const char *const dists[] = {"uniform", "clustered", "ties", "degenerate"};
    for (int s = 0; s < 5; s++)
        for (int d = 0; d < 4; d++) {
            nms_case t;
            make_case(&t, sizes[s], dists[d], "1", "0", 11 + s);
            int64_t n = kb_int(&t.c, "n");
            int64_t *order = malloc((size_t)n * sizeof *order);
            int32_t *keep = malloc((size_t)n * sizeof *keep);
            kb_nms_rank(scores_of(&t), n, order);
            int64_t nk = serial_greedy(boxes_of(&t), NULL, order, n, 0.5f, keep);
            KB_EXPECT(nk == count_of(&t));
            KB_EXPECT(memcmp(keep, keep_of(&t), (size_t)nk * sizeof *keep) == 0);
            free(order);
            free(keep);
            free_case(&t);
        }
}

KB_TEST(nms_class_aware_equals_the_per_class_loop) {
    nms_case t;
    make_case(&t, "3000", "clustered", "5", "0", 5);
    int64_t n = 3000;
    const float *b = boxes_of(&t), *s = scores_of(&t);
    const int32_t *cls = classes_of(&t);
    /* per class: agnostic NMS over that class's boxes alone, marked kept */
    unsigned char *kept = calloc((size_t)n, 1);
    float *cb = malloc((size_t)n * 4 * sizeof *cb), *cs = malloc((size_t)n * sizeof *cs);
    int64_t *map = malloc((size_t)n * sizeof *map), *order = malloc((size_t)n * sizeof *order);
    int32_t *keep = malloc((size_t)n * sizeof *keep);
    int64_t total = 0;
    for (int c = 0; c < 5; c++) {
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++)
            if (cls[i] == c) {
                memcpy(cb + 4 * m, b + 4 * i, 4 * sizeof *cb);
                cs[m] = s[i];
                map[m++] = i;
            }
        kb_nms_rank(cs, m, order);
        int64_t nk = kb_nms_greedy_ref(cb, NULL, order, m, 0.5f, 0, keep);
        for (int64_t k = 0; k < nk; k++) kept[map[keep[k]]] = 1;
        total += nk;
    }
    KB_EXPECT(total == count_of(&t));
    KB_EXPECT(total < n); /* the case suppresses something */
    int ok = 1;
    for (int64_t k = 0; k < count_of(&t); k++) ok &= kept[keep_of(&t)[k]];
    KB_EXPECT(ok);
    /* in rank order */
    for (int64_t k = 1; k < count_of(&t); k++)
        KB_EXPECT(s[keep_of(&t)[k - 1]] >= s[keep_of(&t)[k]]);
    free(kept), free(cb), free(cs), free(map), free(order), free(keep);
    free_case(&t);
}

KB_TEST(nms_fast_drops_a_box_whose_suppressor_was_suppressed) {
    /* A overlaps B, B overlaps C, A does not overlap C: greedy keeps A and C,
     * fast keeps only A (C is dropped by the suppressed B). */
    float b[12] = {0, 0, 10, 10, 3, 0, 13, 10, 6, 0, 16, 10}, s[3] = {0.9f, 0.8f, 0.7f};
    int64_t order[3];
    int32_t keep[3];
    kb_nms_rank(s, 3, order);
    KB_EXPECT(kb_nms_greedy_ref(b, NULL, order, 3, 0.4f, 0, keep) == 2 && keep[1] == 2);
    KB_EXPECT(kb_nms_fast_ref(b, NULL, order, 3, 0.4f, 0, keep) == 1 && keep[0] == 0);
}

KB_TEST(nms_fast_keeps_a_subset_of_greedy) {
    static const char *const dists[] = {"uniform", "clustered", "ties", "degenerate"};
    for (int d = 0; d < 4; d++) {
        nms_case t;
        make_case(&t, "2000", dists[d], "3", "0", 21 + d);
        int64_t n = 2000, order[2000];
        int32_t fast[2000];
        unsigned char in_greedy[2000] = {0};
        kb_nms_rank(scores_of(&t), n, order);
        int64_t nf = kb_nms_fast_ref(boxes_of(&t), classes_of(&t), order, n, 0.5f, 0, fast);
        for (int64_t k = 0; k < count_of(&t); k++) in_greedy[keep_of(&t)[k]] = 1;
        int subset = 1;
        for (int64_t k = 0; k < nf; k++) subset &= in_greedy[fast[k]];
        KB_EXPECT(subset && nf <= count_of(&t));
        free_case(&t);
    }
}

KB_TEST(nms_max_out_keeps_the_first_keeps) {
    nms_case all, capped;
    make_case(&all, "3000", "uniform", "1", "0", 9);
    make_case(&capped, "3000", "uniform", "1", "100", 9);
    KB_EXPECT(kb_tensors_find(&capped.out, "keep")->shape[0] == 100);
    KB_EXPECT(count_of(&capped) == 100 && count_of(&all) > 100);
    KB_EXPECT(memcmp(keep_of(&all), keep_of(&capped), 100 * sizeof(int32_t)) == 0);
    free_case(&all);
    free_case(&capped);
}

KB_TEST(nms_generators_make_their_distributions) {
    nms_case t;
    make_case(&t, "4000", "degenerate", "1", "0", 2);
    int zero = 0, nonpositive_score = 0;
    for (int i = 0; i < 4000; i++) {
        const float *b = boxes_of(&t) + 4 * i;
        zero += b[2] == b[0] || b[3] == b[1];
        nonpositive_score += !(scores_of(&t)[i] > 0);
    }
    KB_EXPECT(zero > 800 && zero < 1200 && nonpositive_score == 0);
    free_case(&t);
    make_case(&t, "4000", "ties", "1", "0", 2);
    int ties = 0;
    for (int i = 1; i < 4000; i++) ties += scores_of(&t)[i] == scores_of(&t)[0];
    KB_EXPECT(ties > 100);
    free_case(&t);
    make_case(&t, "4000", "clustered", "1", "0", 2);
    KB_EXPECT(count_of(&t) < 1000); /* 100 objects: most copies suppressed */
    free_case(&t);
}

/* dist=pixels: the boxes a library of int16 (x, y, w, h) boxes takes as they
 * are (integral corners within int16, w and h > 0) and no two scores equal,
 * so that no tie rule decides anything. */
static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

KB_TEST(nms_pixels_are_integral_int16_boxes_with_distinct_scores) {
    /* 65536 uniform floats in (0, 1] hold about 128 equal pairs: drawn ones would show */
    enum { N = 65536 };
    nms_case t;
    make_case(&t, "65536", "pixels", "1", "0", 3);
    int fractional = 0, outside = 0, empty = 0, bad_score = 0, equal = 0;
    for (int i = 0; i < N; i++) {
        const float *b = boxes_of(&t) + 4 * i;
        for (int j = 0; j < 4; j++) {
            fractional += b[j] != floorf(b[j]);
            outside += b[j] < -32768 || b[j] > 32767;
        }
        empty += !(b[2] > b[0] && b[3] > b[1]);
        bad_score += !(scores_of(&t)[i] > 0 && scores_of(&t)[i] <= 1);
    }
    static float sorted[N];
    memcpy(sorted, scores_of(&t), sizeof sorted);
    qsort(sorted, N, sizeof *sorted, cmp_float);
    for (int i = 1; i < N; i++) equal += sorted[i] == sorted[i - 1];
    KB_EXPECT(fractional == 0 && outside == 0 && empty == 0);
    KB_EXPECT(bad_score == 0 && equal == 0);
    free_case(&t);
    /* the uniform case's boxes, rounded: about as many keeps */
    make_case(&t, "4096", "pixels", "1", "0", 3);
    int32_t pixels_keeps = count_of(&t);
    free_case(&t);
    make_case(&t, "4096", "uniform", "1", "0", 3);
    KB_EXPECT(pixels_keeps > count_of(&t) / 2 && pixels_keeps < count_of(&t) * 2);
    free_case(&t);
}

KB_TEST(nms_compare_names_the_first_difference) {
    nms_case t;
    make_case(&t, "1000", "uniform", "1", "0", 4);
    kb_tensors got = t.out;
    int32_t *keep = malloc((size_t)count_of(&t) * sizeof *keep), count = count_of(&t);
    memcpy(keep, keep_of(&t), (size_t)count * sizeof *keep);
    keep[3] = keep[4];
    got.t[0].data = keep;
    got.t[1].data = &count;
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    const kb_check_ctx greedy = {KB_PREC_F32, 0};
    kb_op_nms.compare(&t.c, &greedy, &t.in, &t.out, &got, &acc);
    KB_EXPECT(!acc.pass && acc.mismatches == 1);
    KB_EXPECT_STR_CONTAINS(acc.note, "position 3");
    free(keep);
    free_case(&t);
}

KB_TEST(nms_compare_holds_fast_rows_to_fast_and_reports_the_drops) {
    nms_case t;
    make_case(&t, "2000", "uniform", "1", "0", 4);
    int64_t order[2000];
    int32_t fast[2000], count;
    kb_nms_rank(scores_of(&t), 2000, order);
    count = (int32_t)kb_nms_fast_ref(boxes_of(&t), NULL, order, 2000, 0.5f, 0, fast);
    kb_tensors got = t.out;
    got.t[0].data = fast;
    got.t[1].data = &count;
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    const kb_check_ctx fast_nms = {KB_PREC_F32, KB_INEXACT}, greedy = {KB_PREC_F32, 0};
    kb_op_nms.compare(&t.c, &fast_nms, &t.in, &t.out, &got, &acc);
    KB_EXPECT(acc.pass);
    KB_EXPECT_STR_CONTAINS(acc.note, "fast NMS:");
    KB_EXPECT_STR_CONTAINS(acc.note, "greedy keeps");
    KB_EXPECT(count < count_of(&t));
    KB_EXPECT(acc.dropped == count_of(&t) - count); /* the number the note states */
    kb_accuracy_init(&acc);                         /* the greedy list is not the fast one */
    kb_op_nms.compare(&t.c, &greedy, &t.in, &t.out, &got, &acc);
    KB_EXPECT(!acc.pass);
    KB_EXPECT(acc.dropped == -1);
    free_case(&t);
}
