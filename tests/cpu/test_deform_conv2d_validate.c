/* test_deform_conv2d_validate.c — torchvision's shape checks: every
 * inconsistent case is rejected with a message that names the parameters and
 * their values, never a crash; the cost model's counts.
 *   ./test_deform_conv2d_validate [test_name]
 */
#include "deform_conv2d.h"
#include "kbtest.h"

/* validate() on the case. A setting that does not apply fails the test
 * itself: it must never pass as "rejected" for the wrong reason. */
static int check(const char *spec, kb_error *e) {
    kb_case c;
    e->msg[0] = '\0';
    if (kbt_case_from(&c, &kb_op_deform_conv2d, spec) != KB_OK) return KB_ERR;
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

/* torchvision's ho = (h + 2*pad_h - (dil_h*(kh-1) + 1)) / stride_h + 1 in C
 * division, which truncates toward zero: a kernel past the padded input by
 * less than the stride still gives one row (floor division would give none). */
KB_TEST(output_size_follows_torchvision_integer_division) {
    static const struct {
        const char *spec;
        int64_t ho;
    } cases[] = {
        {"h=2 kh=3 stride_h=2 pad_h=0", 1},         /* (2 - 3)/2 + 1 = 0 + 1 */
        {"h=3 kh=3 dil_h=2 stride_h=3 pad_h=0", 1}, /* (3 - 5)/3 + 1 */
        {"h=1 kh=7 stride_h=5 pad_h=1", 1},         /* (1 + 2 - 7)/5 + 1 = -4/5 + 1 */
        {"h=1 kh=1 stride_h=64 pad_h=0", 1},        /* 0/64 + 1 */
        {"h=10 kh=3 stride_h=2 pad_h=0", 4},        /* 7/2 + 1 */
        {"h=9 kh=3 stride_h=2 pad_h=1", 5},         /* 8/2 + 1 */
        {"h=5 kh=7 dil_h=2 stride_h=4 pad_h=3", 1}, /* (5 + 6 - 13)/4 + 1 = -2/4 + 1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_case c;
        kb_dcn_params p;
        kb_error e = {""};
        if (kbt_case_from(&c, &kb_op_deform_conv2d, cases[i].spec) != KB_OK) return;
        int rc = kb_dcn_params_from_case(&c, &p, &e);
        if (rc != KB_OK || p.ho != cases[i].ho)
            fprintf(stderr, "  %s: ho=%lld, want %lld (%s)\n", cases[i].spec, (long long)p.ho,
                    (long long)cases[i].ho, e.msg);
        KB_EXPECT(rc == KB_OK);
        KB_EXPECT(p.ho == cases[i].ho);
        KB_EXPECT(p.wo == 32); /* the defaults: w=32, kw=3, pad 1, stride 1 */
    }
    /* the same rule along w */
    kb_case c;
    kb_dcn_params p;
    kb_error e;
    if (kbt_case_from(&c, &kb_op_deform_conv2d, "h=4 w=2 kh=1 kw=3 stride_w=2 pad_h=0 pad_w=0") !=
        KB_OK)
        return;
    KB_EXPECT(kb_dcn_params_from_case(&c, &p, &e) == KB_OK);
    KB_EXPECT(p.ho == 4 && p.wo == 1);
}

/* Where the span is -stride or less the output is empty: refused, naming
 * every parameter of the rule. */
KB_TEST(output_size_below_one_names_the_parameters) {
    kb_error e;
    /* (2 - 3)/1 + 1 = 0 */
    KB_EXPECT(check("h=2 kh=3 stride_h=1 pad_h=0", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "output size 0x32");
    KB_EXPECT_STR_CONTAINS(e.msg, "h=2 pad_h=0 dil_h=1 kh=3 stride_h=1");
    KB_EXPECT_STR_CONTAINS(e.msg, "integer division");
    /* (1 + 2 - 7)/4 + 1 = 0 along h; w: (2 - 5)/3 + 1 = 0 */
    KB_EXPECT(check("h=1 kh=7 stride_h=4 pad_h=1 w=2 kw=5 stride_w=3 pad_w=0", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "output size 0x0");
    KB_EXPECT_STR_CONTAINS(e.msg, "w=2 pad_w=0 dil_w=1 kw=5 stride_w=3");
}

KB_TEST(mask_values_need_a_mask) {
    kb_error e;
    KB_EXPECT(check("mask=0 mask_values=zeros", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "mask=1");
}

/* The bytes of every tensor describe() lists, each once: the op's minimum
 * bytes counted from the tensors themselves rather than from its formula. */
static double tensor_bytes(const kb_case *c) {
    kb_tensors in = {0}, out = {0};
    double bytes = 0;
    KB_EXPECT(kb_op_deform_conv2d.describe(c, &in, &out, NULL) == KB_OK);
    for (int i = 0; i < in.count; i++) bytes += (double)kb_nbytes(&in.t[i]);
    for (int i = 0; i < out.count; i++) bytes += (double)kb_nbytes(&out.t[i]);
    return bytes;
}

KB_TEST(cost_counts_macs_and_every_tensor_once) {
    kb_case c;
    kbt_case_from(&c, &kb_op_deform_conv2d, "n=2 c_in=8 c_out=4 groups=2 h=5 w=6");
    kb_cost k = kb_op_deform_conv2d.cost(&c);
    /* 3x3, pad 1, stride 1: ho x wo = 5 x 6 = 30 pixels. Each of the
     * 2 * 4 * 30 = 240 outputs sums c_in/groups * 9 = 36 products: 8640 MACs,
     * 17280 flops. Each image samples 8 channels x 9 taps x 30 pixels = 2160
     * points, 4320 for both, at 16 flops each: 69120. Total 86400. */
    KB_EXPECT_NEAR(k.flops, 86400, 0.5);
    /* f32 elements: input 2*8*5*6 = 480, offset 2*18*30 = 1080, mask
     * 2*9*30 = 540, weight 4*4*3*3 = 144, bias 4, output 2*4*30 = 240:
     * 2488 elements, 9952 bytes. */
    KB_EXPECT_NEAR(k.bytes, 9952, 0.5);
    KB_EXPECT_NEAR(k.bytes, tensor_bytes(&c), 0.5);
}

KB_TEST(cost_of_a_16_bit_case_without_mask_or_bias) {
    kb_case c;
    kbt_case_from(&c, &kb_op_deform_conv2d,
                  "n=1 c_in=4 c_out=6 h=4 w=4 kh=1 kw=3 pad_h=0 pad_w=0 mask=0 bias=0 dtype=f16");
    kb_cost k = kb_op_deform_conv2d.cost(&c);
    /* 1x3, no padding: ho x wo = 4 x 2 = 8 pixels. 6 * 8 = 48 outputs of
     * 4 * 3 = 12 MACs: 576 MACs, 1152 flops; 4 * 3 * 8 = 96 samples at the
     * model's 16 flops (it counts the mask multiply either way): 1536. Total 2688. */
    KB_EXPECT_NEAR(k.flops, 2688, 0.5);
    /* f16 elements: input 4*16 = 64, offset 2*3*8 = 48, weight 6*4*3 = 72,
     * output 6*8 = 48, no mask, no bias: 232 elements, 464 bytes. */
    KB_EXPECT_NEAR(k.bytes, 464, 0.5);
    KB_EXPECT_NEAR(k.bytes, tensor_bytes(&c), 0.5);
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

/* The im2col axis is explicit_nhwc*'s choice of kernel: they take every
 * value; every other variant takes auto and answers NOT_APPLICABLE (naming
 * the axis) to a forced one, so no row claims a choice it did not make. */
KB_TEST(im2col_choice_applies_to_explicit_nhwc_only) {
    const char *values[] = {"auto", "window", "global"};
    for (int k = 0; k < 3; k++) {
        char spec[128];
        snprintf(spec, sizeof spec, "n=2 c_in=16 c_out=8 h=12 w=20 im2col=%s", values[k]);
        kb_case c;
        if (kbt_case_from(&c, &kb_op_deform_conv2d, spec) != KB_OK) return;
        for (int i = 0; kb_variants[i].op; i++) {
            const kb_variant *v = &kb_variants[i];
            if (strcmp(v->op, "deform_conv2d") != 0) continue;
            kb_error why = {""};
            int rc = v->impl->supports(&c, &why);
            int nhwc =
                strcmp(v->name, "explicit_nhwc") == 0 || strcmp(v->name, "explicit_nhwc_tf32") == 0;
            if (nhwc) {
                if (rc != KB_OK) fprintf(stderr, "  %s refused %s: %s\n", v->name, spec, why.msg);
                KB_EXPECT(rc == KB_OK);
            } else if (k == 0) {
                KB_EXPECT(strstr(why.msg, "im2col") == NULL);
            } else {
                KB_EXPECT(rc == KB_NOT_APPLICABLE);
                KB_EXPECT_STR_CONTAINS(why.msg, "im2col=");
            }
        }
    }
}
