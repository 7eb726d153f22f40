/* test_yolo_decode_variants.c — every yolo_decode variant against the CPU
 * reference through the op's compare: exact for scan_greedy and fused_batch
 * always, for the atomic variants while at most max_det qualify; the fast-NMS
 * variants by the fast-NMS rule. Calls setup/run/teardown directly. */
#include "kbtest.h"
#include "kbtest_gpu.h"
#include "yolo_decode.h"

#include <stdint.h>

static void make_case(kbt_fixture *t, const char *settings, uint64_t seed) {
    kbt_make_case(t, &kb_op_yolo_decode, settings, seed, 1);
}

/* Every device variant on the case, judged by its registry flags; exact
 * ones must pass outright. */
static void expect_all_variants_match(kbt_fixture *t, const char *what) {
    int count = 0;
    const kb_variant *v;
    for (int i = 0; (v = kbt_next_device_variant("yolo_decode", &i)); count++) {
        kb_tensors got;
        int ran = kbt_run_variant(v->impl, t, &got);
        kb_accuracy acc;
        kb_accuracy_init(&acc);
        const kb_check_ctx chk = {KB_PREC_F32, v->flags};
        if (ran) kb_op_yolo_decode.compare(&t->c, &chk, &t->in, &t->out, &got, &acc);
        if (!ran || !acc.pass) printf("  %s on %s: %s\n", v->name, what, acc.note);
        KB_EXPECT(ran && acc.pass);
        kb_tensors_free_host(&got);
    }
    KB_EXPECT(count > 0);
    kbt_free_case(t);
}

KB_TEST(yolo_variants_match_on_one_realistic_image) {
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    make_case(&t, "b=1 n=25200", 1);
    expect_all_variants_match(&t, "b=1 n=25200");
}

KB_TEST(yolo_variants_match_on_32_different_images) {
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    make_case(&t, "b=32 n=6300", 2);
    expect_all_variants_match(&t, "b=32 n=6300");
}

KB_TEST(yolo_variants_match_with_zero_candidates) {
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    make_case(&t, "b=3 n=2000 conf=0.999", 3);
    expect_all_variants_match(&t, "conf 0.999");
}

KB_TEST(yolo_exact_variants_keep_the_best_max_det_when_more_qualify) {
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    make_case(&t, "b=2 n=5000 dist=dense max_det=200 max_out=100 c=5", 4);
    expect_all_variants_match(&t, "dense, max_det 200");
    make_case(&t, "b=2 n=25200 dist=dense", 5);
    expect_all_variants_match(&t, "dense, 25200");
}

/* More classes than the block greedy's class buckets (2048 / 64 words = 32
 * at max_det 4096): columns of another class share a row's bucket, and only
 * the class compare keeps them out of its mask. */
KB_TEST(yolo_variants_match_with_more_classes_than_class_buckets) {
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    make_case(&t, "b=1 n=4000 c=1000 dist=dense max_det=4096 max_out=4096 iou=0.1", 6);
    expect_all_variants_match(&t, "1000 classes, max_det 4096");
}

KB_TEST(yolo_variants_match_with_small_caps_and_thresholds) {
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    make_case(&t, "b=4 n=3000 max_det=64 max_out=10 iou=0.3", 6);
    expect_all_variants_match(&t, "max_det 64, max_out 10");
    make_case(&t, "b=2 n=6300 max_det=4096 max_out=4096 conf=0.05 iou=0.7", 7);
    expect_all_variants_match(&t, "max_det 4096, conf 0.05");
}
