/* test_yolo_decode_compare.c — the yolo_decode op's compare: exact variants
 * fail on any difference; atomic (KB_NONDETERMINISTIC) variants are excused,
 * with a note, only on images where more than max_det qualify; fast NMS
 * (KB_INEXACT) is held to the fast-NMS rule, ties in any order. */
#include "kbtest.h"
#include "yolo_decode.h"

typedef struct {
    kb_case c;
    kb_tensors in, ref, got;
} cmp_case;

static void make_case(cmp_case *t, const char *dist, const char *max_det) {
    memset(t, 0, sizeof *t);
    kb_case_defaults(&t->c, &kb_op_yolo_decode);
    kbt_set(&t->c, "b", "2");
    kbt_set(&t->c, "n", "6300");
    kbt_set(&t->c, "dist", dist);
    kbt_set(&t->c, "max_det", max_det);
    kb_op_yolo_decode.describe(&t->c, &t->in, &t->ref, NULL);
    t->got = t->ref;
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->ref, NULL);
    kb_tensors_alloc_host(&t->got, NULL);
    kb_op_yolo_decode.make_inputs(&t->c, 21, &t->in, NULL);
    kb_op_yolo_decode.reference(&t->c, &t->in, &t->ref, NULL);
    for (int i = 0; i < t->ref.count; i++)
        memcpy(t->got.t[i].data, t->ref.t[i].data, kb_nbytes(&t->ref.t[i]));
}

static kb_accuracy compare(cmp_case *t, unsigned flags) {
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    const kb_check_ctx chk = {KB_PREC_F32, flags};
    kb_op_yolo_decode.compare(&t->c, &chk, &t->in, &t->ref, &t->got, &acc);
    return acc;
}

static void free_case(cmp_case *t) {
    kb_tensors_free_host(&t->in);
    kb_tensors_free_host(&t->ref);
    kb_tensors_free_host(&t->got);
}

static float *dets(kb_tensors *ts) {
    return kb_tensors_find(ts, "dets")->data;
}

KB_TEST(compare_passes_the_reference_and_fails_a_moved_box) {
    cmp_case t;
    make_case(&t, "realistic", "1024");
    KB_EXPECT(compare(&t, 0).pass);
    dets(&t.got)[0] += 0.01f;
    kb_accuracy acc = compare(&t, 0);
    KB_EXPECT(!acc.pass && acc.mismatches == 1);
    KB_EXPECT(!compare(&t, KB_NONDETERMINISTIC).pass); /* below max_det: still exact */
    free_case(&t);
}

KB_TEST(compare_fails_a_wrong_count_or_class) {
    cmp_case t;
    make_case(&t, "realistic", "1024");
    ((int32_t *)kb_tensors_find(&t.got, "count")->data)[1] -= 1;
    KB_EXPECT(!compare(&t, 0).pass);
    ((int32_t *)kb_tensors_find(&t.got, "count")->data)[1] += 1;
    dets(&t.got)[5] += 1;
    KB_EXPECT(!compare(&t, 0).pass);
    free_case(&t);
}

KB_TEST(compare_excuses_atomic_variants_only_above_max_det) {
    cmp_case t;
    make_case(&t, "dense", "100");
    KB_EXPECT(kb_yolo_qualifying(&t.c, &t.in, 0) > 100);
    dets(&t.got)[4] *= 0.5f;
    KB_EXPECT(!compare(&t, 0).pass);
    kb_accuracy acc = compare(&t, KB_NONDETERMINISTIC);
    KB_EXPECT(acc.pass);
    KB_EXPECT(strstr(acc.note, "max_det") != NULL);
    free_case(&t);
}

KB_TEST(compare_holds_fast_nms_to_its_own_reference) {
    cmp_case t;
    make_case(&t, "realistic", "1024");
    kb_tensors fast = t.got;
    kb_tensors_alloc_host(&fast, NULL);
    KB_EXPECT(kb_yolo_decode_run_ref(&t.c, &t.in, &fast, 1, NULL) == KB_OK);
    const int32_t *fc = kb_tensors_get(&fast, "count")->data,
                  *gc = kb_tensors_get(&t.ref, "count")->data;
    KB_EXPECT(fc[0] <= gc[0] && fc[1] <= gc[1]);
    /* fast NMS keeps a subset of greedy's: the boxes it drops are the difference */
    int64_t lost = gc[0] - fc[0] + gc[1] - fc[1];
    for (int i = 0; i < fast.count; i++)
        memcpy(t.got.t[i].data, fast.t[i].data, kb_nbytes(&fast.t[i]));
    kb_accuracy acc = compare(&t, KB_INEXACT);
    KB_EXPECT(acc.pass);
    KB_EXPECT(strstr(acc.note, "fast NMS drops") != NULL);
    KB_EXPECT(acc.dropped == lost); /* the number the note states */
    KB_EXPECT(compare(&t, 0).dropped == -1);
    kb_tensors_free_host(&fast);
    free_case(&t);
}

/* Four predictions, identity letterbox (640 -> 640), boxes 40 x 40 at y 80..120:
 *   0: class 0, score 0.9, x  80..120
 *   1: class 0, score 0.8, x  92..132   IoU with 0: 28/52 = 0.54 > 0.45
 *   2: class 0, score 0.8, x 104..144   IoU with 1: 0.54, with 0: 16/64 = 0.25
 *   3: class 1, score 0.8, x  80..120   (another class: nothing suppresses it)
 * Fast NMS drops 1 (by 0, a higher score); 2 ties with 1: dropped when 1
 * comes first (the rank order: fast keeps 0, 3), kept when 2 does (keeps
 * 0, 2, 3, as greedy). */
static void make_hand_case(cmp_case *t) {
    memset(t, 0, sizeof *t);
    kb_case_defaults(&t->c, &kb_op_yolo_decode);
    KB_EXPECT(kbt_case_from(&t->c, &kb_op_yolo_decode, "b=1 n=4 c=2 src_h=640 src_w=640 net=640") ==
              KB_OK);
    kb_op_yolo_decode.describe(&t->c, &t->in, &t->ref, NULL);
    t->got = t->ref;
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->ref, NULL);
    kb_tensors_alloc_host(&t->got, NULL);
    const float rows[4][7] = {{100, 100, 40, 40, 1, 0.9f, 0},
                              {112, 100, 40, 40, 1, 0.8f, 0},
                              {124, 100, 40, 40, 1, 0.8f, 0},
                              {100, 100, 40, 40, 1, 0, 0.8f}};
    memcpy(kb_tensors_find(&t->in, "pred")->data, rows, sizeof rows);
    const float identity[6] = {1, 0, 0, 0, 1, 0};
    memcpy(kb_tensors_find(&t->in, "d2i")->data, identity, sizeof identity);
    kb_op_yolo_decode.reference(&t->c, &t->in, &t->ref, NULL);
}

/* got := the given predictions as dets, in that order. */
static void set_dets(cmp_case *t, const int *which, int count) {
    static const float det[4][6] = {{80, 80, 120, 120, 0.9f, 0},
                                    {92, 80, 132, 120, 0.8f, 0},
                                    {104, 80, 144, 120, 0.8f, 0},
                                    {80, 80, 120, 120, 0.8f, 1}};
    float *d = dets(&t->got);
    memset(d, 0, kb_nbytes(kb_tensors_find(&t->got, "dets")));
    for (int k = 0; k < count; k++) memcpy(d + 6 * k, det[which[k]], sizeof det[0]);
    ((int32_t *)kb_tensors_find(&t->got, "count")->data)[0] = count;
}

KB_TEST(fast_nms_accepts_ties_resolved_in_either_order) {
    cmp_case t;
    make_hand_case(&t);
    KB_EXPECT(((int32_t *)kb_tensors_get(&t.ref, "count")->data)[0] == 3); /* greedy: 0, 2, 3 */
    set_dets(&t, (const int[]){0, 3}, 2);                                  /* 1 before 2 */
    kb_accuracy acc = compare(&t, KB_INEXACT | KB_NONDETERMINISTIC);
    KB_EXPECT(acc.pass);
    KB_EXPECT_STR_CONTAINS(acc.note, "drops 1 boxes greedy keeps, keeps 0 greedy drops");
    set_dets(&t, (const int[]){0, 3, 2}, 3); /* 2 before 1; equal scores in any order */
    acc = compare(&t, KB_INEXACT | KB_NONDETERMINISTIC);
    KB_EXPECT(acc.pass);
    KB_EXPECT_STR_CONTAINS(acc.note, "drops 0 boxes greedy keeps, keeps 0 greedy drops");
    free_case(&t);
}

KB_TEST(fast_nms_fails_a_box_kept_under_a_higher_score) {
    cmp_case t;
    make_hand_case(&t);
    set_dets(&t, (const int[]){0, 1, 3}, 3);
    kb_accuracy acc = compare(&t, KB_INEXACT);
    KB_EXPECT(!acc.pass);
    KB_EXPECT_STR_CONTAINS(acc.note, "which a higher score suppresses");
    free_case(&t);
}

KB_TEST(fast_nms_fails_a_box_nothing_suppresses_dropped) {
    cmp_case t;
    make_hand_case(&t);
    set_dets(&t, (const int[]){0}, 1); /* 3 is alone in its class */
    kb_accuracy acc = compare(&t, KB_INEXACT);
    KB_EXPECT(!acc.pass);
    KB_EXPECT_STR_CONTAINS(acc.note, "drops candidate 3, which nothing suppresses");
    set_dets(&t, (const int[]){3, 0}, 2); /* out of score order */
    KB_EXPECT(!compare(&t, KB_INEXACT).pass);
    free_case(&t);
}
