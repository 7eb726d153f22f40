/* test_yolo_decode_compare.c — the yolo_decode op's compare: exact variants
 * fail on any difference; atomic (KB_NONDETERMINISTIC) variants are excused,
 * with a note, only on images where more than max_det qualify; fast NMS
 * (KB_INEXACT) is held to the fast-NMS reference. */
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
    int lost = gc[0] - fc[0] + gc[1] - fc[1];
    /* greedy's answer judged as fast NMS: fails when they differ */
    KB_EXPECT(compare(&t, KB_INEXACT).pass == (lost == 0));
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
