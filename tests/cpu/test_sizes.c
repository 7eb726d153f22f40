/* test_sizes.c — size arithmetic never wraps: the checked products every op
 * forms from its axes, tensor sizes that saturate instead of wrapping, and
 * the check every case passes before the device (kb_case_validate), which
 * refuses a describe() whose tensors cannot be addressed.
 *   ./test_sizes [test_name]
 */
#include "run/sweep.h"
#include "kbtest.h"

KB_TEST(checked_multiply_refuses_past_int64_and_negative_factors) {
    int64_t p = 7;
    KB_EXPECT(kb_mul_i64(INT64_MAX / 2, 2, &p) == KB_OK && p == INT64_MAX - 1);
    KB_EXPECT(kb_mul_i64(INT64_MAX / 2 + 1, 2, &p) == KB_ERR && p == INT64_MAX - 1);
    KB_EXPECT(kb_mul_i64(-1, 2, &p) == KB_ERR);
    KB_EXPECT(kb_mul_i64(0, INT64_MAX, &p) == KB_OK && p == 0);
}

KB_TEST(a_product_with_a_zero_factor_is_zero_whatever_the_others) {
    const int64_t f[4] = {INT64_MAX, INT64_MAX, 0, 5};
    int64_t p = 1;
    KB_EXPECT(kb_prod_i64(f, 4, &p) == KB_OK && p == 0);
    const int64_t g[3] = {1 << 30, 1 << 30, 1 << 4}; /* 2^64 */
    KB_EXPECT(kb_prod_i64(g, 3, &p) == KB_ERR);
}

KB_TEST(bytes_refuse_past_size_max) {
    size_t b = 0;
    KB_EXPECT(kb_bytes_of(INT64_MAX / 2, 2, &b) == KB_OK);
    KB_EXPECT(kb_bytes_of(INT64_MAX, 4, &b) == KB_ERR);
}

KB_TEST(numel_and_nbytes_saturate_instead_of_wrapping) {
    /* 2^12 * 2^16 * 2^20 * 2^20 = 2^68: wrapped, this read 0 elements */
    kb_tensor t = {.dtype = KB_F32, .ndim = 4, .shape = {4096, 65536, 1 << 20, 1 << 20}};
    KB_EXPECT(kb_numel(&t) == INT64_MAX);
    KB_EXPECT(kb_nbytes(&t) == SIZE_MAX);
    kb_tensor u = {
        .dtype = KB_F64, .ndim = 2, .shape = {INT64_MAX / 4, 2}}; /* fits, bytes do not */
    KB_EXPECT(kb_numel(&u) == INT64_MAX / 4 * 2);
    KB_EXPECT(kb_nbytes(&u) == SIZE_MAX);
    kb_tensors ts = {0};
    ts.t[ts.count++] = t;
    kb_error e;
    KB_EXPECT(kb_tensors_check_size(&ts, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "f32[4096,65536,1048576,1048576]: the element count passes");
    KB_EXPECT(kb_tensors_bytes(&ts) == SIZE_MAX);
}

/* An op whose axes allow a tensor nobody can address, and whose validate
 * forgets to say so: the harness's own check must. */
static const kb_axis huge_axes[] = {{"n", KB_AXIS_INT, "1", 1, 4e18, NULL, ""}, {NULL}};

static int huge_validate(const kb_case *c, kb_error *e) {
    (void)c;
    (void)e;
    return KB_OK;
}

static int huge_describe(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e) {
    int64_t shape[2] = {kb_int(c, "n"), 4};
    kb_tensors_add(in, "x", KB_F32, 2, shape);
    kb_tensors_add(out, "y", KB_F32, 1, shape);
    (void)e;
    return KB_OK;
}

static const kb_op huge_op = {
    .name = "huge", .axes = huge_axes, .validate = huge_validate, .describe = huge_describe};

KB_TEST(a_case_whose_tensors_overflow_is_refused_before_the_device) {
    kb_case c;
    kb_case_defaults(&c, &huge_op);
    kb_error e;
    KB_EXPECT(kb_case_validate(&c, &e) == KB_OK);
    KB_EXPECT(kb_case_set(&c, "n", "3000000000000000000", &e) == KB_OK);
    KB_EXPECT(kb_case_validate(&c, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "tensor x f32[3000000000000000000,4]");
    kb_case_list list = {0};
    KB_EXPECT(kb_expand_line(&huge_op, "n=3000000000000000000", NULL, 0, &list, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "invalid case {n=3000000000000000000}: tensor x");
    kb_case_list_free(&list);
}
