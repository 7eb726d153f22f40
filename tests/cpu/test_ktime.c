/* Kernel time: CUPTI activity records attributed to samples (ktime.c). */
#include "run/ktime.h"
#include "kbtest.h"

#include <stdlib.h>

#define US 1000ull /* CUPTI stamps are nanoseconds */

KB_TEST(one_kernel_per_sample_gives_its_duration) {
    kb_krec r[] = {{10 * US, 16 * US, 5, 1, KB_KREC_KERNEL},
                   {30 * US, 37 * US, 9, 1, KB_KREC_KERNEL}};
    kb_kwindow w[] = {{4, 6, 1}, {8, 10, 1}};
    double sum[2], span[2];
    int n[2];
    kb_ktime_attribute(r, 2, w, 2, 1, sum, span, n);
    KB_EXPECT_NEAR(sum[0], 6e-6, 1e-12);
    KB_EXPECT_NEAR(sum[1], 7e-6, 1e-12);
    KB_EXPECT_NEAR(span[1], 7e-6, 1e-12);
    KB_EXPECT(n[0] == 1 && n[1] == 1);
}

KB_TEST(overlapping_kernels_sum_both_and_span_their_union) {
    /* two streams of one variant: 10-20 and 15-30 us */
    kb_krec r[] = {{10 * US, 20 * US, 3, 1, KB_KREC_KERNEL},
                   {15 * US, 30 * US, 4, 1, KB_KREC_KERNEL}};
    kb_kwindow w[] = {{2, 5, 1}};
    double sum, span;
    int n;
    kb_ktime_attribute(r, 2, w, 1, 1, &sum, &span, &n);
    KB_EXPECT_NEAR(sum, 25e-6, 1e-12);
    KB_EXPECT_NEAR(span, 20e-6, 1e-12);
    KB_EXPECT(n == 2);
}

KB_TEST(a_variants_memset_counts_and_the_flush_before_the_start_does_not) {
    kb_krec r[] = {
        {0 * US, 30 * US, 2, 1, KB_KREC_MEMSET},  /* the L2 flush: enqueued before start */
        {31 * US, 33 * US, 5, 1, KB_KREC_MEMSET}, /* the variant's own clear */
        {33 * US, 40 * US, 6, 1, KB_KREC_KERNEL},
    };
    kb_kwindow w[] = {{4, 8, 1}};
    double sum, span;
    int n;
    kb_ktime_attribute(r, 3, w, 1, 1, &sum, &span, &n);
    KB_EXPECT_NEAR(sum, 9e-6, 1e-12);
    KB_EXPECT_NEAR(span, 9e-6, 1e-12);
    KB_EXPECT(n == 2);
}

KB_TEST(records_of_another_context_are_ignored) {
    kb_krec r[] = {{10 * US, 20 * US, 5, 1, KB_KREC_KERNEL},
                   {12 * US, 50 * US, 6, 2, KB_KREC_KERNEL}};
    kb_kwindow w[] = {{4, 8, 1}};
    double sum, span;
    int n;
    kb_ktime_attribute(r, 2, w, 1, 1, &sum, &span, &n);
    KB_EXPECT_NEAR(sum, 10e-6, 1e-12);
    KB_EXPECT_NEAR(span, 10e-6, 1e-12);
    KB_EXPECT(n == 1);
}

KB_TEST(out_of_order_records_land_in_their_samples) {
    kb_krec r[] = {
        {72 * US, 75 * US, 23, 1, KB_KREC_KERNEL}, /* sample 2 */
        {12 * US, 14 * US, 3, 1, KB_KREC_MEMCPY},  /* sample 0 */
        {40 * US, 44 * US, 12, 1, KB_KREC_KERNEL}, /* sample 1 */
        {10 * US, 12 * US, 2, 1, KB_KREC_KERNEL},  /* sample 0 */
        {70 * US, 72 * US, 22, 1, KB_KREC_KERNEL}, /* sample 2 */
        {90 * US, 99 * US, 40, 1, KB_KREC_KERNEL}, /* no sample: after the last stop */
    };
    kb_kwindow w[] = {{1, 3, 1}, {11, 13, 1}, {21, 23, 1}};
    double sum[3], span[3];
    int n[3];
    kb_ktime_attribute(r, 6, w, 3, 1, sum, span, n);
    KB_EXPECT_NEAR(sum[0], 4e-6, 1e-12);
    KB_EXPECT_NEAR(span[0], 4e-6, 1e-12);
    KB_EXPECT_NEAR(sum[1], 4e-6, 1e-12);
    KB_EXPECT_NEAR(sum[2], 5e-6, 1e-12);
    KB_EXPECT_NEAR(span[2], 5e-6, 1e-12);
    KB_EXPECT(n[0] == 2 && n[1] == 1 && n[2] == 2);
}

KB_TEST(batched_samples_divide_by_their_launches) {
    /* hot mode: 4 launches of a 5 us kernel, 1 us apart, in one sample */
    kb_krec r[4];
    for (int i = 0; i < 4; i++)
        r[i] = (kb_krec){(uint64_t)(6 * i) * US, (uint64_t)(6 * i + 5) * US, (uint32_t)(10 + i), 7,
                         KB_KREC_KERNEL};
    kb_kwindow w[] = {{9, 14, 7}};
    double sum, span;
    int n;
    kb_ktime_attribute(r, 4, w, 1, 4, &sum, &span, &n);
    KB_EXPECT_NEAR(sum, 5e-6, 1e-12);
    KB_EXPECT_NEAR(span, 23e-6 / 4, 1e-12);
    KB_EXPECT(n == 4);
}

KB_TEST(a_sample_without_records_is_zero) {
    kb_krec r[] = {{10 * US, 20 * US, 5, 1, KB_KREC_KERNEL}};
    kb_kwindow w[] = {{1, 3, 1}, {4, 6, 1}};
    double sum[2], span[2];
    int n[2];
    kb_ktime_attribute(r, 1, w, 2, 1, sum, span, n);
    KB_EXPECT(sum[0] == 0 && span[0] == 0 && n[0] == 0);
    KB_EXPECT_NEAR(sum[1], 10e-6, 1e-12);
}
