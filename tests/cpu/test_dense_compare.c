/* test_dense_compare.c — kb_compare_dense (harness/core/compare.c) names what is
 * wrong with an output: elements still holding the runner's poison (every
 * byte 0xFF) are "never written", any other NaN is a NaN the variant
 * computed, and where nothing was poisoned (kbench verify) every NaN is a
 * NaN. */
#include "kbtest.h"

#include "kbench.h"

#include <stdint.h>

enum { N = 8 };

static kb_tensor tensor(const char *name, kb_dtype dtype, void *data) {
    kb_tensor t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "%s", name);
    t.dtype = dtype;
    t.ndim = 1;
    t.shape[0] = N;
    t.data = data;
    return t;
}

/* ref = 1..N in f32; got the same, then the caller's bits at some indices. */
static kb_accuracy judge(kb_dtype dtype, void *got_data, int not_poisoned) {
    static float ref_data[N];
    for (int i = 0; i < N; i++) ref_data[i] = (float)(i + 1);
    kb_tensor ref = tensor("out", KB_F32, ref_data), got = tensor("out", dtype, got_data);
    kb_accuracy acc = {.pass = 1, .not_poisoned = not_poisoned};
    kb_compare_dense(&ref, &got, KB_PREC_F32, &acc);
    return acc;
}

static void f32_with(float *got, const uint32_t *bits, const int *at, int n) {
    for (int i = 0; i < N; i++) got[i] = (float)(i + 1);
    for (int k = 0; k < n; k++) memcpy(&got[at[k]], &bits[k], 4);
}

KB_TEST(poison_bytes_are_never_written_and_computed_nan_is_nan) {
    float got[N];
    const uint32_t poison[] = {0xFFFFFFFFu, 0xFFFFFFFFu};
    const int at[] = {1, 4};
    f32_with(got, poison, at, 2);
    kb_accuracy acc = judge(KB_F32, got, 0);
    KB_EXPECT(!acc.pass && acc.unwritten == 2 && acc.nans == 0);
    KB_EXPECT_STR_CONTAINS(acc.note, "out: 2 of 8 elements never written");

    const uint32_t computed[] = {0x7FC00000u, 0xFFC00000u, 0x7FFFFFFFu}; /* qNaN, x86, CUDA */
    const int at3[] = {0, 3, 7};
    f32_with(got, computed, at3, 3);
    acc = judge(KB_F32, got, 0);
    KB_EXPECT(!acc.pass && acc.unwritten == 0 && acc.nans == 3);
    KB_EXPECT_STR_CONTAINS(acc.note, "out: 3 of 8 element(s) are NaN");
}

KB_TEST(without_poison_every_nan_is_a_nan_even_with_the_poison_bits) {
    float got[N];
    const uint32_t bits[] = {0xFFFFFFFFu, 0x7FC00000u};
    const int at[] = {2, 5};
    f32_with(got, bits, at, 2);
    kb_accuracy acc = judge(KB_F32, got, 1);
    KB_EXPECT(!acc.pass && acc.unwritten == 0 && acc.nans == 2);
    KB_EXPECT_STR_CONTAINS(acc.note, "2 of 8 element(s) are NaN");
}

KB_TEST(sixteen_bit_poison_and_nan_are_told_apart) {
    uint16_t got[N];
    for (int i = 0; i < N; i++) got[i] = kb_f32_to_f16((float)(i + 1));
    got[1] = 0xFFFF; /* the poison */
    got[6] = 0x7E00; /* a NaN f16 arithmetic makes */
    kb_accuracy acc = judge(KB_F16, got, 0);
    KB_EXPECT(acc.unwritten == 1 && acc.nans == 1 && !acc.pass);
    for (int i = 0; i < N; i++) got[i] = kb_f32_to_bf16((float)(i + 1));
    got[3] = 0x7FC0;
    acc = judge(KB_BF16, got, 0);
    KB_EXPECT(acc.unwritten == 0 && acc.nans == 1 && !acc.pass);
    KB_EXPECT_STR_CONTAINS(acc.note, "1 of 8 element(s) are NaN");
}

KB_TEST(infinity_where_the_reference_is_finite_is_named_as_infinite) {
    float got[N];
    const uint32_t inf[] = {0x7F800000u};
    const int at[] = {2};
    f32_with(got, inf, at, 1);
    kb_accuracy acc = judge(KB_F32, got, 0);
    KB_EXPECT(!acc.pass && acc.mismatches == 1 && acc.nans == 0 && acc.unwritten == 0);
    KB_EXPECT_STR_CONTAINS(acc.note, "1 infinite element(s)");
}

KB_TEST(equal_outputs_pass) {
    float got[N];
    f32_with(got, NULL, NULL, 0);
    kb_accuracy acc = judge(KB_F32, got, 0);
    KB_EXPECT(acc.pass && acc.unwritten == 0 && acc.nans == 0 && acc.mismatches == 0);
}
