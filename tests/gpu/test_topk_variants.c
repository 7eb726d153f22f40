/* test_topk_variants.c — every topk variant against the CPU reference on the
 * edge cases of the contract (include/kbench/ops/topk.h) and on the RPN levels.
 * Needs a GPU (exits 77 = skipped without one). */
#include "kbtest.h"
#include "kbtest_gpu.h"
#include "topk.h"

/* grid_select is for a few long segments and declines many or short ones;
 * every other variant must run every case. cub_topk refuses every case in a
 * build without CCCL 3.5 (test_topk_cub_topk checks why, on the CPU). */
#ifdef KBT_HAVE_CCCL_TOPK
static const char *const declines_short[] = {"grid_select", NULL};
static const char *const declines_long[] = {NULL};
#else
static const char *const declines_short[] = {"grid_select", "cub_topk", NULL};
static const char *const declines_long[] = {"cub_topk", NULL};
#endif

static void expect_all_pass(const char *axes, uint64_t seed) {
    KB_REQUIRE_DEVICE();
    kbt_expect_all_pass(&kb_op_topk, declines_short, axes, seed);
}

KB_TEST(topk_ties_across_k_boundary_take_lower_indices) {
    expect_all_pass("segments=3x5000 k=1000 dist=ties", 11);
}
KB_TEST(topk_k_above_length_returns_whole_segment_and_sentinels) {
    expect_all_pass("segments=7+300+1 k=500 dist=normal", 12);
}
KB_TEST(topk_k_zero_writes_zero_counts) {
    expect_all_pass("segments=rpn5 k=0", 13);
}
KB_TEST(topk_empty_segments_count_zero) {
    expect_all_pass("segments=0+5000+0+0+17 k=64", 14);
}
KB_TEST(topk_negative_and_positive_zero_tie_by_index) {
    expect_all_pass("segments=4x3000 k=2999 dist=ties", 15);
}
KB_TEST(topk_rpn_levels_match_reference) {
    expect_all_pass("segments=rpn5 k=1000", 16);
}
KB_TEST(topk_rpn_levels_batch_normal_match_reference) {
    expect_all_pass("segments=rpn5 batch=4 k=1000 dist=normal", 17);
}
KB_TEST(topk_large_uncached_segment_matches_reference) {
    expect_all_pass("segments=1x1048576 k=1000", 18);
}
KB_TEST(topk_k_4096_matches_reference) {
    expect_all_pass("segments=2x20000 k=4096 dist=ties", 19);
}
KB_TEST(topk_ties_over_many_tiles_and_blocks_take_lower_indices) {
    /* 6250 keys per block (7 tiles of 1024), ~11 k copies of the top value:
     * the k-th value's ties span tiles and blocks. */
    expect_all_pass("segments=1x100000 k=3000 dist=ties", 20);
}
KB_TEST(topk_uncached_ties_take_lower_indices) {
    expect_all_pass("segments=1x1048576 k=2000 dist=ties", 21);
}
KB_TEST(topk_small_segments_and_k_above_every_length) {
    /* radix_select sizes its clusters (1 to 16 blocks) by the longest segment and k. */
    expect_all_pass("segments=5+0+3+2000 k=7 dist=ties", 22);
    expect_all_pass("segments=1x4096 k=4096 dist=normal", 23);
    expect_all_pass("segments=3x1500 k=1024 dist=ties", 24);
}
KB_TEST(topk_many_segments_take_smaller_clusters) {
    /* 20 and 64 segments: more than fit at once in 16-block clusters. */
    expect_all_pass("segments=rpn5 batch=4 k=1000 dist=ties", 25);
    expect_all_pass("segments=64x4096 k=1000 dist=normal", 26);
}

/* A few long segments: every variant runs them, grid_select (which refuses
 * many or short ones) beside the variants it is meant to replace there. */
static void expect_long_pass(const char *axes, uint64_t seed) {
    KB_REQUIRE_DEVICE();
    kbt_expect_all_pass(&kb_op_topk, declines_long, axes, seed);
}

KB_TEST(topk_long_segment_uniform_matches_reference) {
    /* uniform [0,1): a quarter of the keys share the top 11-bit digit */
    expect_long_pass("segments=1x300000 k=100", 30);
    expect_long_pass("segments=1x300000 k=1000", 31);
}
KB_TEST(topk_long_segment_ties_take_lower_indices) {
    /* ~33 k copies of each of 9 values: the k-th value's ties run all six levels */
    expect_long_pass("segments=1x300000 k=1000 dist=ties", 32);
    expect_long_pass("segments=1x300000 k=4096 dist=ties", 33);
}
KB_TEST(topk_long_segments_unaligned_starts_match_reference) {
    /* segment starts at 65537 and 196611 values: not 16-byte aligned */
    expect_long_pass("segments=65537+131074+70001 k=1000 dist=normal", 34);
}
KB_TEST(topk_long_segment_k_above_length_returns_whole_segment) {
    /* grid_select alone: radix_select refuses k > 4096 */
    kb_case c;
    KB_REQUIRE_DEVICE();
    if (kbt_case_from(&c, &kb_op_topk, "segments=65536+70000 k=65536 dist=ties") != KB_OK) return;
    kb_accuracy acc;
    const int rc = kbt_check_variant(kbt_impl("topk", "grid_select"), 0, &c, 35, &acc);
    KB_EXPECT(rc == KB_OK && acc.pass && acc.unwritten == 0);
}
/* One variant alone, one case: grid_select where radix_select refuses
 * k > 4096, coop_select on the long cases that reach every level. */
static void expect_variant_pass(const char *variant, const char *axes, uint64_t seed) {
    kb_case c;
    KB_REQUIRE_DEVICE();
    if (kbt_case_from(&c, &kb_op_topk, axes) != KB_OK) return;
    kb_accuracy acc;
    const int rc = kbt_check_variant(kbt_impl("topk", variant), 0, &c, seed, &acc);
    if (rc != KB_OK || !acc.pass) printf("  %s failed on %s\n", variant, axes);
    KB_EXPECT(rc == KB_OK && acc.pass && acc.unwritten == 0);
}
static void expect_grid_select_pass(const char *axes, uint64_t seed) {
    expect_variant_pass("grid_select", axes, seed);
}
static void expect_coop_pass(const char *axes, uint64_t seed) {
    expect_variant_pass("coop_select", axes, seed);
}
KB_TEST(topk_grid_select_sorts_winners_in_one_block_up_to_4096_and_with_cub_above) {
    expect_grid_select_pass("segments=1x300000 k=4095 dist=normal", 36);
    expect_grid_select_pass("segments=1x300000 k=4096 dist=uniform", 37);
    expect_grid_select_pass("segments=1x300000 k=4097 dist=uniform", 38);
    expect_grid_select_pass("segments=1x300000 k=1", 39);
}
KB_TEST(topk_grid_select_k_equal_to_length_returns_whole_segment) {
    expect_grid_select_pass("segments=1x65536 k=65536 dist=normal", 40);
}
KB_TEST(topk_grid_select_finish_takes_over_below_the_cap_and_the_grid_above) {
    /* ties, 9 values: ~7.8K copies of 1.0 stay in play through levels 1-4,
     * above the 4096 finish cap; the finish takes level 5 */
    expect_grid_select_pass("segments=1x70000 k=1000 dist=ties", 41);
    /* normal: the 9000th / 10000th largest lies in [1, 1.25), level 0's
     * bin: ~3.8K keys in play (the finish from level 1) / ~4.25K (the grid) */
    expect_grid_select_pass("segments=1x72000 k=9000 dist=normal", 42);
    expect_grid_select_pass("segments=1x80000 k=10000 dist=normal", 43);
    /* uniform 2M, k above the sampled path's bound: level 0 keeps ~512K,
     * level 1 a few hundred (the finish's) */
    expect_grid_select_pass("segments=1x2097152 k=3000", 44);
    /* ties at 2M: ~233K copies of 1.0, every grid level busy */
    expect_grid_select_pass("segments=1x2097152 k=1000 dist=ties", 45);
}
KB_TEST(topk_grid_select_sampled_candidates_finish_the_select_or_the_levels_run) {
    /* want <= 2048: the sample's threshold; uniform and normal scores leave
     * a few thousand candidates, ranked from their cut */
    expect_grid_select_pass("segments=1x2097152 k=1000", 46);
    expect_grid_select_pass("segments=1x1048576 k=100", 47);
    expect_grid_select_pass("segments=1x4000000 k=1000 dist=normal", 48);
    expect_grid_select_pass("segments=1x65536 k=2048 dist=normal", 49);
    /* one past the bound: no sample */
    expect_grid_select_pass("segments=1x65536 k=2049 dist=normal", 57);
    /* two segments on one workspace, one start not 16-byte aligned */
    expect_grid_select_pass("segments=100001+300000 k=500", 58);
    /* ties: every copy of the sample's T is a candidate, past the cap */
    expect_grid_select_pass("segments=1x1048576 k=100 dist=ties", 59);
}

#ifdef KBT_HAVE_CCCL_TOPK
KB_TEST(topk_cub_topk_batched_and_long_paths_meet_at_the_bound) {
    /* 4096 keys: DeviceBatchedTopK; 4097: DeviceTopK; both in one case */
    expect_variant_pass("cub_topk", "segments=4096+4097 k=1000 dist=ties", 50);
    /* k above the batched bound: capped at each short segment's length */
    expect_variant_pass("cub_topk", "segments=1500+1500+1500+70000 k=5000 dist=ties", 51);
    /* short segments all empty beside a long one: sentinels only there */
    expect_variant_pass("cub_topk", "segments=0+70000+0 k=100", 52);
    /* k = the long segment's length: every key a winner */
    expect_variant_pass("cub_topk", "segments=1x65536 k=65536 dist=normal", 53);
    expect_variant_pass("cub_topk", "segments=1x16777216 k=1000", 54);
}
#endif

/* The variant refuses the case with a reason that holds `why` (NULL: any). */
static void expect_refused(const char *variant, const char *axes, const char *why_part) {
    kb_case c;
    kb_error why = {{0}};
    const kb_variant_impl *impl = kbt_impl("topk", variant);
    KB_EXPECT(impl != NULL);
    if (!impl || kbt_case_from(&c, &kb_op_topk, axes) != KB_OK) return;
    KB_EXPECT(impl->supports(&c, &why) == KB_UNSUPPORTED);
    if (why_part) KB_EXPECT_STR_CONTAINS(why.msg, why_part);
}

KB_TEST(topk_grid_select_refuses_many_or_short_segments) {
    expect_refused("grid_select", "segments=9x70000 k=100", "radix_select covers many short ones");
    expect_refused("grid_select", "segments=rpn5 k=1000", NULL);
}

KB_TEST(topk_coop_select_ties_run_all_six_levels_and_uniform_ends_early) {
    /* ties at 2M: ~233K copies of 1.0 in play down to level 5 (64 KB of keys a block) */
    expect_coop_pass("segments=1x2097152 k=1000 dist=ties", 50);
    expect_coop_pass("segments=1x2097152 k=4096 dist=uniform", 51);
    expect_coop_pass("segments=1x300000 k=1", 52);
    /* segments of every length at once: ties end at different levels */
    expect_coop_pass("segments=70000+1+0+300000+4096+2 k=1000 dist=ties", 53);
}

KB_TEST(topk_coop_select_fine_counts_end_level_0_or_leave_it_to_level_1) {
    /* uniform RPN levels: every segment ends at level 0's barrier (the fine
     * counts of its k-th largest's bin) */
    expect_coop_pass("segments=rpn5 k=1000", 54);
    expect_coop_pass("segments=rpn5 batch=4 k=1000 dist=normal", 55);
    /* the 4000th of 5000 normal keys is negative, below every block's
     * window (4 octaves under its largest): level 1 decides */
    expect_coop_pass("segments=3x5000 k=4000 dist=normal", 56);
    /* both at once, and ties whose sub-bin is too heavy to end */
    expect_coop_pass("segments=201600+5000+50400 k=1000 dist=normal", 57);
    expect_coop_pass("segments=201600+50400 k=1000 dist=ties", 58);
}

KB_TEST(topk_coop_select_fine_counts_are_not_trusted_below_a_blocks_window) {
    /* 200,000 uniform keys, one of 1e6 every 500 in the first half: the
     * blocks there (~1500 keys each on 132 SMs; any grid up to 400 blocks)
     * have windows 4 octaves under 1e6 that miss [0, 1), where the 1000th
     * largest lies, and their floors say so; counts from the second half
     * alone would pick too low a sub-bin */
    KB_REQUIRE_DEVICE();
    kbt_fixture t;
    kbt_make_case(&t, &kb_op_topk, "segments=1x200000 k=1000 dist=uniform", 59, 0);
    float *v = kb_tensors_find(&t.in, "values")->data;
    for (int i = 7; i < 100000; i += 500) v[i] = 1.0e6f;
    kb_op_topk.reference(&t.c, &t.in, &t.out, NULL);
    kb_tensors got;
    const int ran = kbt_run_variant(kbt_impl("topk", "coop_select"), &t, &got);
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    const kb_check_ctx chk = {KB_PREC_F32, 0u};
    if (ran) kb_op_topk.compare(&t.c, &chk, &t.in, &t.out, &got, &acc);
    if (!ran || !acc.pass) printf("  coop_select with outliers: %s\n", acc.note);
    KB_EXPECT(ran && acc.pass);
    kb_tensors_free_host(&got);
    kbt_free_case(&t);
}

KB_TEST(topk_coop_select_refuses_many_segments_large_k_and_keys_past_shared_memory) {
    KB_REQUIRE_DEVICE();
    expect_refused("coop_select", "segments=65x1000 k=100", "<= 64 at once");
    expect_refused("coop_select", "segments=1x70000 k=4097", "<= 4096 winners");
    /* 4 B a key: 1G keys pass any GPU's shared memory */
    expect_refused("coop_select", "segments=1x1073741824 k=100",
                   "grid_select streams long segments");
}
