/* test_rpn_variants.c — every rpn_proposals variant against the CPU reference
 * (exact keep list and order); cuda_port (KB_INEXACT) against the reference
 * of the port's rule. Needs a GPU (exits 77 = skipped without one). */
#include "kbtest.h"
#include "rpn_proposals.h"
#include "kbtest_gpu.h"

static void expect_all_pass(const char *axes, uint64_t seed) {
    KB_REQUIRE_DEVICE();
    kbt_expect_all_pass(&kb_op_rpn_proposals, NULL, axes, seed);
}

KB_TEST(rpn_default_800x1344_matches_reference) {
    expect_all_pass("img_h=800 img_w=1344", 21);
}
KB_TEST(rpn_many_objects_match_reference) {
    expect_all_pass("objects=100 iou=0.5", 22);
}
KB_TEST(rpn_size_filter_matches_reference) {
    expect_all_pass("min_bbox_size=24 objects=40", 23);
}
KB_TEST(rpn_small_image_few_levels_match_reference) {
    expect_all_pass("img_h=64 img_w=96 levels=3 nms_pre=50 max_per_img=20", 24);
}
KB_TEST(rpn_max_per_img_above_candidates_matches_reference) {
    expect_all_pass("img_h=333 img_w=517 levels=6 nms_pre=300 max_per_img=5000", 25);
}
