/* test_deform_conv2d_validate.c — torchvision's shape checks: every
 * inconsistent case is rejected with a message that names the parameters and
 * their values, never a crash; the cost model's counts.
 *   ./test_deform_conv2d_validate [test_name]
 */
#include "deform_conv2d.h"
#include "kbtest.h"

static int check(const char *spec, kb_error *e) {
    char buf[512];
    kb_case c;
    kb_case_defaults(&c, &kb_op_deform_conv2d);
    snprintf(buf, sizeof buf, "%s", spec);
    e->msg[0] = '\0';
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = '\0';
        if (kb_case_set(&c, tok, eq + 1, e) != KB_OK) return KB_ERR;
    }
    return kb_op_deform_conv2d.validate(&c, e);
}

KB_TEST(weight_groups_must_divide_c_in) {
    kb_error e;
    KB_EXPECT(check("c_in=6 c_out=8 groups=4", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "c_in=6");
    KB_EXPECT_STR_CONTAINS(e.msg, "groups=4");
}

KB_TEST(weight_groups_must_divide_c_out) {
    kb_error e;
    KB_EXPECT(check("c_in=6 c_out=5 groups=3", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "c_out=5");
}

KB_TEST(offset_groups_must_divide_c_in) {
    kb_error e;
    KB_EXPECT(check("c_in=6 offset_groups=4", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "offset_groups=4");
}

KB_TEST(groups_that_do_not_nest_are_valid) {
    kb_error e;
    KB_EXPECT(check("c_in=6 c_out=4 groups=2 offset_groups=3", &e) == KB_OK);
}

KB_TEST(output_size_must_be_positive) {
    kb_error e;
    KB_EXPECT(check("h=3 w=8 kh=5 pad_h=0", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "h=3");
    KB_EXPECT_STR_CONTAINS(e.msg, "kh=5");
    KB_EXPECT(check("h=4 w=2 kh=1 kw=3 dil_w=2 pad_h=0 pad_w=1", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "dil_w=2");
}

KB_TEST(mask_values_need_a_mask) {
    kb_error e;
    KB_EXPECT(check("mask=0 mask_values=zeros", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "mask=1");
}

KB_TEST(cost_counts_macs_and_every_tensor_once) {
    kb_case c;
    kb_case_defaults(&c, &kb_op_deform_conv2d);
    kb_case_set(&c, "n", "2", NULL);
    kb_case_set(&c, "c_in", "8", NULL);
    kb_case_set(&c, "c_out", "4", NULL);
    kb_case_set(&c, "groups", "2", NULL);
    kb_case_set(&c, "h", "5", NULL);
    kb_case_set(&c, "w", "6", NULL);
    kb_cost k = kb_op_deform_conv2d.cost(&c); /* 3x3, pad 1: ho*wo = 30 */
    double macs = 2.0 * 4 * (8 / 2) * 9 * 30, samples = 2.0 * 8 * 9 * 30;
    KB_EXPECT_NEAR(k.flops, 2 * macs + 16 * samples, 0.5);
    double elems = 2.0 * 8 * 30 + 2.0 * 18 * 30 + 2.0 * 9 * 30 + 4 * 4 * 9 + 4 + 2.0 * 4 * 30;
    KB_EXPECT_NEAR(k.bytes, 4 * elems, 0.5);
}

KB_TEST(fuzz_cases_are_valid) {
    uint64_t rng = 7;
    for (int i = 0; i < 200; i++) {
        kb_case c;
        kb_error e;
        kb_op_deform_conv2d.fuzz_case(&rng, &c);
        int ok = kb_op_deform_conv2d.validate(&c, &e) == KB_OK;
        if (!ok) fprintf(stderr, "  %s\n", e.msg);
        KB_EXPECT(ok);
    }
}

KB_TEST(sizes_past_int64_are_refused_with_their_numbers) {
    kb_error e;
    /* every axis within its range; n*c_in*h*w = 2^12 * 2^16 * 2^20 * 2^20 = 2^68 elements */
    KB_EXPECT(check("n=4096 c_in=65536 c_out=65536 h=1048576 w=1048576 kh=1 kw=1 pad_h=0 pad_w=0 "
                    "groups=65536 offset_groups=65536",
                    &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "input: n=4096 x c_in=65536 x h=1048576 x w=1048576");
    KB_EXPECT_STR_CONTAINS(e.msg, "INT64_MAX");
    /* an empty batch still forms per-image columns: c_in*kh*kw*ho*wo = 2^16 * 49 * ~2^40 */
    KB_EXPECT(check("n=0 c_in=65536 c_out=64 h=1048576 w=1048576 kh=7 kw=7 groups=1 "
                    "offset_groups=1",
                    &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "im2col columns: c_in=65536 x kh=7 x kw=7 x ho=1048572");
    /* the largest index_limits case is far from it */
    KB_EXPECT(check("n=1 c_in=512 c_out=64 h=2050 w=2050 kh=1 kw=1 stride_h=2 stride_w=2 pad_h=0 "
                    "pad_w=0",
                    &e) == KB_OK);
}
