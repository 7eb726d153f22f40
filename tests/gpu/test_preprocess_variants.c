/* test_preprocess_variants.c — every preprocess variant, called directly
 * (supports/setup/run/teardown, outputs poisoned first), against the CPU
 * reference element by element: borders and odd sizes (rows that end inside
 * a vec thread's 4 pixels), upscale and downscale, batches, f16 output, the
 * letterbox (wide, tall, exact fit, upscaled), a photo; and pixels worked by
 * hand. Each case must be run by every variant of its rule: the registry's
 * device variants of the op's semantics that do not decline it.
 *   ./test_preprocess_variants [test_name]      (exits 77 with no GPU)
 */
#include "kbtest.h"
#include "kbtest_gpu.h"
#include "preprocess.h"

#include <math.h>
#include <stdint.h>

/* The next variant after row *i of the registry that computes the case's
 * rule: a device variant of the op's own semantics (a KB_INEXACT one, the
 * CUDA ports' nearest, has a rule of its own) whose supports() does not
 * decline the case as another function. NULL past the end. */
static const kb_variant *next_of_rule(const kb_case *c, int *i) {
    for (const kb_variant *v; (v = kbt_next_device_variant("preprocess", i));) {
        kb_error e = {{0}};
        if (!(v->flags & KB_INEXACT) && v->impl->supports(c, &e) != KB_NOT_APPLICABLE) return v;
    }
    return NULL;
}

static const char *const interps[] = {"nearest", "bilinear", "letterbox"};

/* How far an element may sit from the reference. The kernels sample with the
 * reference's own float rules (include/kbench/ops/preprocess.h) and normalise in float
 * where the reference does it in double: a few f32 ulps, and an f16 output
 * may then round to the neighbouring f16 (one f16 ulp). One level of the
 * 0..255 input moves an element by 1/255/std >= 0.0039: a wrong source
 * pixel or blend is far outside either bound. */
static double tolerance(kb_dtype dtype, double ref) {
    if (dtype != KB_F16) return 1e-5;
    /* The f32 bound, then one f16 rounding: near 0 ((v/255 - mean) / std
     * cancels) the f32 error of the operands is many f16 subnormal steps. */
    int exp2;
    frexp(fabs(ref), &exp2); /* |ref| = m * 2^exp2, m in [0.5, 1): an f16 ulp is 2^(exp2 - 11) */
    double ulp = ldexp(1.0, exp2 - 11);
    return 1e-5 + (ulp > ldexp(1.0, -24) ? ulp : ldexp(1.0, -24));
}

/* got equals ref element by element; the first difference is printed. */
static void expect_same_elements(const char *variant, const char *what, const kb_tensor *ref,
                                 const kb_tensor *got) {
    int64_t n = kb_numel(ref), bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++) {
        double r = kb_load_as_double(ref->data, ref->dtype, i);
        double g = kb_load_as_double(got->data, got->dtype, i);
        if (!(fabs(g - r) <= tolerance(ref->dtype, r))) { /* NaN: the poison, never written */
            if (first < 0) first = i;
            bad++;
        }
    }
    if (bad) {
        int64_t w = ref->shape[3], h = ref->shape[2];
        fprintf(stderr,
                "  %s on %s: %lld of %lld elements differ, first [%lld,%lld,%lld,%lld]: "
                "%.9g, reference %.9g\n",
                variant, what, (long long)bad, (long long)n, (long long)(first / (3 * h * w)),
                (long long)(first / (h * w) % 3), (long long)(first / w % h),
                (long long)(first % w), kb_load_as_double(got->data, got->dtype, first),
                kb_load_as_double(ref->data, ref->dtype, first));
    }
    KB_EXPECT(bad == 0);
}

/* The variants of the case's rule run it and match the reference in t->out
 * (the other rules' variants decline it: every_variant_computes_one_rule). */
static void expect_variants_match_fixture(kbt_fixture *t, const char *what) {
    int ran = 0;
    const kb_variant *v;
    for (int i = 0; (v = next_of_rule(&t->c, &i));) {
        kb_error e = {{0}};
        int s = v->impl->supports(&t->c, &e);
        if (s != KB_OK) fprintf(stderr, "  %s refused %s: %s\n", v->name, what, e.msg);
        KB_EXPECT(s == KB_OK);
        kb_tensors got;
        int ok = kbt_run_variant(v->impl, t, &got);
        KB_EXPECT(ok);
        if (ok) {
            expect_same_elements(v->name, what, &t->out.t[0], &got.t[0]);
            ran++;
        }
        kb_tensors_free_host(&got);
    }
    KB_EXPECT(ran > 0);
}

/* settings with each rule in turn; inputs from seed, the reference on them. */
static void expect_variants_match(const char *settings, uint64_t seed) {
    for (int i = 0; i < 3; i++) {
        char what[512];
        snprintf(what, sizeof what, "%s interp=%s", settings, interps[i]);
        kbt_fixture t;
        kbt_make_case(&t, &kb_op_preprocess, what, seed, 1);
        expect_variants_match_fixture(&t, what);
        kbt_free_case(&t);
    }
}

/* Each variant of the op's semantics computes one of the three rules and
 * declines the other two as another function (KB_NOT_APPLICABLE). */
KB_TEST(every_variant_computes_one_rule) {
    KB_REQUIRE_DEVICE();
    kb_case c[3];
    for (int r = 0; r < 3; r++) {
        char what[64];
        snprintf(what, sizeof what, "interp=%s", interps[r]);
        KB_EXPECT(kbt_case_from(&c[r], &kb_op_preprocess, what) == KB_OK);
    }
    const kb_variant *v;
    for (int i = 0; (v = kbt_next_device_variant("preprocess", &i));) {
        if (v->flags & KB_INEXACT) continue;
        int rules = 0;
        for (int r = 0; r < 3; r++) {
            kb_error e = {{0}};
            rules += v->impl->supports(&c[r], &e) != KB_NOT_APPLICABLE;
        }
        if (rules != 1) fprintf(stderr, "  %s computes %d of the 3 rules\n", v->name, rules);
        KB_EXPECT(rules == 1);
    }
}

KB_TEST(variants_match_at_borders_and_odd_sizes) {
    KB_REQUIRE_DEVICE();
    expect_variants_match("in_h=1 in_w=7 out_h=3 out_w=2", 1);     /* one source row */
    expect_variants_match("in_h=7 in_w=1 out_h=5 out_w=1", 2);     /* one column in and out */
    expect_variants_match("in_h=2 in_w=2 out_h=3 out_w=5", 3);     /* every pixel an edge */
    expect_variants_match("in_h=37 in_w=53 out_h=17 out_w=29", 4); /* rows end mid-group */
    expect_variants_match("in_h=61 in_w=3 out_h=9 out_w=6", 5);
}

KB_TEST(variants_match_upscale_and_downscale) {
    KB_REQUIRE_DEVICE();
    expect_variants_match("in_h=128 in_w=96 out_h=160 out_w=250", 6);
    expect_variants_match("in_h=20 in_w=30 out_h=64 out_w=64", 7);
    expect_variants_match("in_h=500 in_w=500 out_h=480 out_w=480", 8);
    expect_variants_match("in_h=1080 in_w=1920 out_h=64 out_w=100", 9);
    expect_variants_match("in_h=64 in_w=64 out_h=64 out_w=64", 10); /* identity sizes */
}

KB_TEST(variants_match_on_batches_of_different_images) {
    KB_REQUIRE_DEVICE();
    expect_variants_match("n=3 in_h=333 in_w=517 out_h=256 out_w=252", 11);
    expect_variants_match("n=5 in_h=17 in_w=23 out_h=31 out_w=13", 12);
}

KB_TEST(variants_match_with_f16_output) {
    KB_REQUIRE_DEVICE();
    expect_variants_match("dtype=f16 in_h=37 in_w=53 out_h=17 out_w=29", 13);
    expect_variants_match("dtype=f16 n=2 in_h=720 in_w=1280 out_h=640 out_w=640", 14);
    expect_variants_match("dtype=f16 norm=unit in_h=2 in_w=2 out_h=3 out_w=5", 15);
    expect_variants_match("dtype=f16 norm=unit n=3 in_h=128 in_w=96 out_h=160 out_w=250", 16);
}

KB_TEST(letterbox_variants_match_wide_tall_and_padded_cases) {
    KB_REQUIRE_DEVICE();
    static const char *const cases[] = {
        "in_h=1080 in_w=1920 out_h=640 out_w=640", /* bars above and below */
        "in_h=517 in_w=333 out_h=256 out_w=252",   /* bars left and right */
        "in_h=3 in_w=1 out_h=11 out_w=7",          /* upscaled, mostly border */
        "n=2 in_h=480 in_w=640 out_h=384 out_w=640 dtype=f16",
    };
    for (int i = 0; i < 4; i++) {
        char what[256];
        snprintf(what, sizeof what, "%s interp=letterbox", cases[i]);
        kbt_fixture t;
        kbt_make_case(&t, &kb_op_preprocess, what, 20 + (uint64_t)i, 1);
        expect_variants_match_fixture(&t, what);
        kbt_free_case(&t);
    }
}

#ifdef KB_HAVE_IMAGE_IO /* a build without libjpeg/libpng reads no photo */
KB_TEST(variants_match_on_a_photo) {
    KB_REQUIRE_DEVICE();
    char settings[4200];
    snprintf(settings, sizeof settings, "n=2 in_h=333 in_w=517 out_h=256 out_w=252 image=%s",
             kbt_src("datasets/images/astronaut.jpg"));
    expect_variants_match(settings, 30);
}
#endif

/* Grey image whose value encodes the position: v(y, x) = 10*y + x + 1. */
static kbt_fixture ramp_case(const char *settings, int h, int w) {
    kbt_fixture t;
    kbt_make_case(&t, &kb_op_preprocess, settings, 1, 0);
    uint8_t *px = t.in.t[0].data;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) memset(px + (y * w + x) * 3, 10 * y + x + 1, 3);
    kb_op_preprocess.reference(&t.c, &t.in, &t.out, NULL);
    return t;
}

/* Output element (channel c, y, x) of the first image times 255 (norm=unit). */
static double level(const kb_tensor *o, int c, int y, int x) {
    int64_t i = ((int64_t)c * o->shape[2] + y) * o->shape[3] + x;
    return kb_load_as_double(o->data, o->dtype, i) * 255;
}

/* The variants of the case's rule produce `want` (levels, row-major, every channel). */
static void expect_levels(kbt_fixture *t, const char *what, const double *want) {
    int h = (int)t->out.t[0].shape[2], w = (int)t->out.t[0].shape[3];
    const kb_variant *v;
    for (int i = 0; (v = next_of_rule(&t->c, &i));) {
        kb_tensors got;
        KB_EXPECT(kbt_run_variant(v->impl, t, &got));
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    double g = level(&got.t[0], c, y, x), r = level(&t->out.t[0], c, y, x);
                    if (fabs(g - want[y * w + x]) > 1e-3 || fabs(r - want[y * w + x]) > 1e-3)
                        fprintf(stderr, "  %s on %s: (%d,%d,%d) = %g, reference %g, by hand %g\n",
                                v->name, what, c, y, x, g, r, want[y * w + x]);
                    KB_EXPECT_NEAR(g, want[y * w + x], 1e-3);
                    KB_EXPECT_NEAR(r, want[y * w + x], 1e-3);
                }
        kb_tensors_free_host(&got);
    }
}

KB_TEST(hand_worked_pixels_nearest_bilinear_letterbox) {
    KB_REQUIRE_DEVICE();
    /* nearest 4x4 -> 2x2: src = floor(2d) = 0, 2: v(0,0) v(0,2) v(2,0) v(2,2) */
    const char *s1 = "norm=unit interp=nearest in_h=4 in_w=4 out_h=2 out_w=2";
    kbt_fixture t = ramp_case(s1, 4, 4);
    expect_levels(&t, s1, (const double[]){1, 3, 21, 23});
    kbt_free_case(&t);
    /* bilinear 4x4 -> 2x2: src = (d + 0.5) * 2 - 0.5 = 0.5, 2.5: the mean of
     * each 2x2 block, (1+2+11+12)/4 = 6.5, 8.5, 26.5, 28.5 */
    const char *s2 = "norm=unit interp=bilinear in_h=4 in_w=4 out_h=2 out_w=2";
    t = ramp_case(s2, 4, 4);
    expect_levels(&t, s2, (const double[]){6.5, 8.5, 26.5, 28.5});
    kbt_free_case(&t);
    /* letterbox 2x4 -> 4x4: s = min(4/4, 4/2) = 1, ty = (4 - 2)/2 = 1: rows 0
     * and 3 are the border 114, rows 1 and 2 the image itself */
    const char *s3 = "norm=unit interp=letterbox in_h=2 in_w=4 out_h=4 out_w=4";
    t = ramp_case(s3, 2, 4);
    expect_levels(
        &t, s3,
        (const double[]){114, 114, 114, 114, 1, 2, 3, 4, 11, 12, 13, 14, 114, 114, 114, 114});
    kbt_free_case(&t);
}
