/* test_topk_select_v2.c — radix_select's v2 kernel (KB_TOPK_SELECT=v2, see
 * variants/topk/radix_select.cu) against the CPU reference on the edge cases
 * of the contract and on the RPN levels: the same cases as
 * test_topk_variants.c, plus ties that span tiles and blocks.
 * Needs a GPU (exits 77 = skipped without one). */
#define _POSIX_C_SOURCE 200112L
#include "kbtest.h"
#include "test_topk_check.h"
#include "topk.h"

#include <stdlib.h>

static const kbt_variant variants[] = {
    {"radix_select", &kb_topk_radix_select},
};

static void expect_v2_pass(const char *axes, uint64_t seed) {
    KB_REQUIRE_DEVICE();
    KB_EXPECT(setenv("KB_TOPK_SELECT", "v2", 1) == 0);
    kbt_expect_all_pass(&kb_op_topk, variants, sizeof variants / sizeof variants[0], axes, seed);
}

KB_TEST(v2_ties_across_k_boundary_take_lower_indices) {
    expect_v2_pass("segments=3x5000 k=1000 dist=ties", 11);
}
KB_TEST(v2_k_above_length_returns_whole_segment_and_sentinels) {
    expect_v2_pass("segments=7+300+1 k=500 dist=normal", 12);
}
KB_TEST(v2_k_zero_writes_zero_counts) {
    expect_v2_pass("segments=rpn5 k=0", 13);
}
KB_TEST(v2_empty_segments_count_zero) {
    expect_v2_pass("segments=0+5000+0+0+17 k=64", 14);
}
KB_TEST(v2_negative_and_positive_zero_tie_by_index) {
    expect_v2_pass("segments=4x3000 k=2999 dist=ties", 15);
}
KB_TEST(v2_rpn_levels_match_reference) {
    expect_v2_pass("segments=rpn5 k=1000", 16);
}
KB_TEST(v2_rpn_levels_batch_normal_match_reference) {
    expect_v2_pass("segments=rpn5 batch=4 k=1000 dist=normal", 17);
}
KB_TEST(v2_large_uncached_segment_matches_reference) {
    expect_v2_pass("segments=1x1048576 k=1000", 18);
}
KB_TEST(v2_k_4096_matches_reference) {
    expect_v2_pass("segments=2x20000 k=4096 dist=ties", 19);
}
KB_TEST(v2_ties_over_many_tiles_and_blocks_take_lower_indices) {
    expect_v2_pass("segments=1x100000 k=3000 dist=ties", 20);
}
KB_TEST(v2_uncached_ties_take_lower_indices) {
    expect_v2_pass("segments=1x1048576 k=2000 dist=ties", 21);
}
KB_TEST(v2_small_segments_and_k_above_every_length) {
    expect_v2_pass("segments=5+0+3+2000 k=7 dist=ties", 22);
    expect_v2_pass("segments=1x4096 k=4096 dist=normal", 23);
    expect_v2_pass("segments=3x1500 k=1024 dist=ties", 24);
}
