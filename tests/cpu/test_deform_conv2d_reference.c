/* test_deform_conv2d_reference.c — the CPU reference against identities that
 * need no bilinear sampling (plain and shifted convolution), the sampling
 * rule's boundaries, the sampled path against the full one, and the inputs.
 *   ./test_deform_conv2d_reference [test_name]
 */
#include "deform_conv2d.h"
#include "kbtest.h"

#include <stdint.h>

typedef struct {
    kb_case c;
    kb_dcn_params p;
    kb_tensors in, out;
} dcn_run;

/* "axis=value ..." over the defaults (a bad setting fails the test): the
 * case's tensors, allocated and zero. */
static void dcn_blank(dcn_run *r, const char *spec) {
    kb_error e;
    kbt_case_from(&r->c, &kb_op_deform_conv2d, spec);
    memset(&r->in, 0, sizeof r->in);
    memset(&r->out, 0, sizeof r->out);
    KB_EXPECT(kb_dcn_params_from_case(&r->c, &r->p, &e) == KB_OK);
    KB_EXPECT(kb_op_deform_conv2d.describe(&r->c, &r->in, &r->out, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&r->in, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&r->out, &e) == KB_OK);
}

/* The case's inputs from seed 1, the reference run. */
static void dcn_make(dcn_run *r, const char *spec) {
    kb_error e;
    dcn_blank(r, spec);
    KB_EXPECT(kb_op_deform_conv2d.make_inputs(&r->c, 1, &r->in, &e) == KB_OK);
    KB_EXPECT(kb_deform_conv2d_reference(&r->c, &r->in, &r->out, &e) == KB_OK);
}

static void dcn_free(dcn_run *r) {
    kb_tensors_free_host(&r->in);
    kb_tensors_free_host(&r->out);
}

static double at(const kb_tensors *ts, const char *name, int64_t i) {
    const kb_tensor *t = kb_tensors_get(ts, name);
    return kb_load_as_double(t->data, t->dtype, i);
}

/* Convolution with an integer displacement per (image, offset group, tap,
 * pixel) read from the offset tensor, zero outside: what deformable sampling
 * must reduce to when every offset is an integer. */
static double shifted_conv(const dcn_run *r, int64_t n, int64_t co, int64_t oy, int64_t ox) {
    const kb_dcn_params *p = &r->p;
    int64_t K = p->kh * p->kw, P = p->ho * p->wo, pix = oy * p->wo + ox;
    int64_t cin_g = p->c_in / p->groups, g = co / (p->c_out / p->groups);
    double acc = p->bias ? at(&r->in, "bias", co) : 0;
    for (int64_t cl = 0; cl < cin_g; cl++) {
        int64_t ci = g * cin_g + cl, og = ci / (p->c_in / p->offset_groups);
        for (int64_t k = 0; k < K; k++) {
            int64_t o = ((n * p->offset_groups + og) * 2 * K + 2 * k) * P + pix;
            int64_t y = oy * p->stride_h - p->pad_h + (k / p->kw) * p->dil_h +
                        (int64_t)at(&r->in, "offset", o);
            int64_t x = ox * p->stride_w - p->pad_w + (k % p->kw) * p->dil_w +
                        (int64_t)at(&r->in, "offset", o + P);
            if (y < 0 || y >= p->h || x < 0 || x >= p->w) continue;
            double m =
                p->mask ? at(&r->in, "mask", ((n * p->offset_groups + og) * K + k) * P + pix) : 1.0;
            acc += at(&r->in, "weight", (co * cin_g + cl) * K + k) * m *
                   at(&r->in, "input", ((n * p->c_in + ci) * p->h + y) * p->w + x);
        }
    }
    return acc;
}

static double max_rel_to_shifted_conv(const dcn_run *r) {
    double worst = 0;
    const kb_dcn_params *p = &r->p;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t co = 0; co < p->c_out; co++)
            for (int64_t oy = 0; oy < p->ho; oy++)
                for (int64_t ox = 0; ox < p->wo; ox++) {
                    double want = shifted_conv(r, n, co, oy, ox);
                    double got =
                        at(&r->out, "output", ((n * p->c_out + co) * p->ho + oy) * p->wo + ox);
                    double d = fabs(got - want) / (fabs(want) > 1 ? fabs(want) : 1);
                    if (!(d <= worst)) worst = d; /* NaN counts as the worst */
                }
    return worst;
}

KB_TEST(zero_offsets_with_mask_one_equal_plain_convolution) {
    dcn_run r;
    dcn_make(&r, "n=2 c_in=6 c_out=4 h=9 w=11 kh=3 kw=2 stride_h=2 pad_w=2 "
                 "dil_w=2 groups=2 "
                 "offset_groups=3 offsets=zero mask_values=ones");
    KB_EXPECT(max_rel_to_shifted_conv(&r) < 1e-6);
    dcn_free(&r);
}

KB_TEST(integer_offsets_equal_shifted_convolution) {
    dcn_run r;
    dcn_make(&r, "n=3 c_in=8 c_out=6 h=10 w=7 kh=3 kw=3 groups=2 offset_groups=4 "
                 "offsets=integer offset_scale=6");
    KB_EXPECT(max_rel_to_shifted_conv(&r) < 1e-6);
    dcn_free(&r);
}

KB_TEST(all_samples_out_of_bounds_leave_only_the_bias) {
    dcn_run r;
    dcn_make(&r, "n=2 c_in=4 c_out=5 h=6 w=6 offsets=out_of_bounds");
    int64_t P = r.p.ho * r.p.wo;
    for (int64_t i = 0; i < kb_numel(&r.out.t[0]); i++)
        KB_EXPECT_NEAR(at(&r.out, "output", i), at(&r.in, "bias", (i / P) % 5), 1e-7);
    dcn_free(&r);
}

KB_TEST(mask_zeros_leave_only_the_bias) {
    dcn_run r;
    dcn_make(&r, "n=1 c_in=4 c_out=3 h=5 w=8 mask_values=zeros");
    int64_t P = r.p.ho * r.p.wo;
    for (int64_t i = 0; i < kb_numel(&r.out.t[0]); i++)
        KB_EXPECT_NEAR(at(&r.out, "output", i), at(&r.in, "bias", (i / P) % 3), 1e-7);
    dcn_free(&r);
}

KB_TEST(samples_at_minus_one_and_at_h_are_zero) {
    int64_t base;
    double wt[4];
    KB_EXPECT(kb_dcn_corners_f64(-1.0, 2.0, 5, 5, &base, wt) == 0);
    KB_EXPECT(kb_dcn_corners_f64(5.0, 2.0, 5, 5, &base, wt) == 0);
    KB_EXPECT(kb_dcn_corners_f64(2.0, -1.0, 5, 5, &base, wt) == 0);
    KB_EXPECT(kb_dcn_corners_f64(2.0, 5.0, 5, 5, &base, wt) == 0);
}

KB_TEST(sample_on_last_row_takes_only_inside_neighbours) {
    int64_t base;
    double wt[4];
    KB_EXPECT(kb_dcn_corners_f64(4.0, 1.25, 5, 5, &base, wt) == 1);
    KB_EXPECT(base == 4 * 5 + 1);
    KB_EXPECT_NEAR(wt[0], 0.75, 0);
    KB_EXPECT_NEAR(wt[1], 0.25, 0);
    KB_EXPECT(wt[2] == 0 && wt[3] == 0); /* row 5 is outside */
    KB_EXPECT(kb_dcn_corners_f64(-0.5, -0.5, 5, 5, &base, wt) == 1);
    KB_EXPECT(wt[0] == 0 && wt[1] == 0 && wt[2] == 0);
    KB_EXPECT_NEAR(wt[3], 0.25, 0); /* only (0, 0) is inside */
}

KB_TEST(sampled_reference_points_equal_the_full_reference) {
    dcn_run r;
    kb_error e;
    dcn_make(&r, "n=2 c_in=12 c_out=8 h=9 w=10 groups=2 offset_groups=3");
    kb_tensors part;
    memset(&part, 0, sizeof part);
    kb_tensors_add(&part, "output", r.out.t[0].dtype, 4, r.out.t[0].shape);
    kb_tensors_alloc_host(&part, &e);
    KB_EXPECT(kb_deform_conv2d_reference_points(&r.c, &r.in, &part, 300, &e) == KB_OK);
    int64_t computed = 0;
    for (int64_t i = 0; i < kb_numel(&part.t[0]); i++) {
        double v = at(&part, "output", i);
        if (isnan(v)) continue;
        computed++;
        KB_EXPECT(v == at(&r.out, "output", i));
    }
    KB_EXPECT(computed > 200 && computed <= 300);
    kb_tensors_free_host(&part);
    dcn_free(&r);
}

KB_TEST(empty_batch_gives_empty_output) {
    dcn_run r;
    dcn_make(&r, "n=0 c_in=4 c_out=4 h=5 w=5");
    KB_EXPECT(kb_numel(&r.out.t[0]) == 0);
    dcn_free(&r);
}

KB_TEST(inputs_repeat_for_a_seed_and_are_not_zero) {
    dcn_run a, b;
    dcn_make(&a, "n=2 c_in=4 c_out=4 h=6 w=6 dtype=bf16");
    dcn_make(&b, "n=2 c_in=4 c_out=4 h=6 w=6 dtype=bf16");
    for (int t = 0; t < a.in.count; t++) {
        KB_EXPECT(memcmp(a.in.t[t].data, b.in.t[t].data, kb_nbytes(&a.in.t[t])) == 0);
        int nonzero = 0;
        for (int64_t i = 0; i < kb_numel(&a.in.t[t]); i++)
            nonzero += at(&a.in, a.in.t[t].name, i) != 0;
        KB_EXPECT(nonzero > kb_numel(&a.in.t[t]) / 2);
    }
    dcn_free(&a);
    dcn_free(&b);
}

KB_TEST(edge_offsets_put_samples_exactly_on_the_boundaries) {
    dcn_run r;
    dcn_make(&r, "n=1 c_in=1 c_out=1 h=6 w=7 kh=1 kw=1 pad_h=0 pad_w=0 offsets=edges");
    int64_t P = r.p.ho * r.p.wo;
    int hits = 0;
    for (int64_t pix = 0; pix < P; pix++) {
        double y = (double)(pix / r.p.wo) + at(&r.in, "offset", pix);
        KB_EXPECT(y == -1 || y == -0.5 || y == 0 || y == 5 || y == 5.5 || y == 6);
        hits += y == -1 || y == 6;
    }
    KB_EXPECT(hits > 0);
    dcn_free(&r);
}

/* ---- inputs written by hand ---- */

static void put(dcn_run *r, const char *name, int64_t i, double v) {
    kb_tensor *t = kb_tensors_find(&r->in, name);
    if (t->dtype == KB_F16)
        ((uint16_t *)t->data)[i] = kb_f32_to_f16((float)v);
    else
        ((float *)t->data)[i] = (float)v;
}

/* A 3x3 kernel, stride 2, no padding, on a 2x2 input: torchvision's output
 * size (2 - 3)/2 + 1 = 1 in C division, one pixel whose taps of row 2 and
 * column 2 lie past the input. input [[1, 2], [3, 4]], weight 1..9 row-major,
 * bias 0.5, mask 1, every tap's offset (dy, dx):
 *   (0, 0):   taps (0,0) (0,1) (1,0) (1,1) read 1 2 3 4, the rest 0 (outside):
 *             1*1 + 2*2 + 4*3 + 5*4 + 0.5 = 37.5
 *   (0.5, 0): row 0 taps sample y = 0.5: (1+3)/2 = 2 and (2+4)/2 = 3; row 1
 *             taps y = 1.5: only row 1 is inside, 0.5*3 = 1.5 and 0.5*4 = 2;
 *             row 2 taps y = 2.5 >= h: 0. 1*2 + 2*3 + 4*1.5 + 5*2 + 0.5 = 24.5
 * Every value is exact in f16, so torchvision's f16 rule gives the same. */
static double kernel_past_the_input(const char *dtype, double dy, int tv_f16) {
    char spec[256];
    snprintf(spec, sizeof spec,
             "n=1 c_in=1 c_out=1 h=2 w=2 kh=3 kw=3 stride_h=2 stride_w=2 pad_h=0 "
             "pad_w=0 "
             "dtype=%s",
             dtype);
    dcn_run r;
    kb_error e;
    dcn_blank(&r, spec);
    KB_EXPECT(r.p.ho == 1 && r.p.wo == 1);
    if (r.p.ho != 1 || r.p.wo != 1) {
        dcn_free(&r);
        return NAN;
    }
    for (int i = 0; i < 4; i++) put(&r, "input", i, i + 1);
    for (int k = 0; k < 9; k++) {
        put(&r, "weight", k, k + 1);
        put(&r, "mask", k, 1);
        put(&r, "offset", 2 * k, dy);
        put(&r, "offset", 2 * k + 1, 0);
    }
    put(&r, "bias", 0, 0.5);
    int rc = tv_f16 ? kb_deform_conv2d_reference_tv_f16(&r.c, &r.in, &r.out, &e)
                    : kb_deform_conv2d_reference(&r.c, &r.in, &r.out, &e);
    KB_EXPECT(rc == KB_OK);
    double v = at(&r.out, "output", 0);
    dcn_free(&r);
    return v;
}

KB_TEST(kernel_past_the_padded_input_samples_zeros_beyond_it) {
    KB_EXPECT_NEAR(kernel_past_the_input("f32", 0, 0), 37.5, 0);
    KB_EXPECT_NEAR(kernel_past_the_input("f32", 0.5, 0), 24.5, 0);
    KB_EXPECT_NEAR(kernel_past_the_input("f16", 0.5, 0), 24.5, 0);
    KB_EXPECT_NEAR(kernel_past_the_input("f16", 0.5, 1), 24.5, 0);
}

/* ---- torchvision's f16 rule ---- */

/* One column of h = 200 rows, input[y] = 16 * (y - 168), a 1x1 kernel of
 * weight 1, no mask, no bias, every dy = 0.07 (f16: 0.0700073...). At row
 * 168 the exact rule samples y = 168.07: 16 * 0.0700073 = 1.1201 (f16
 * 1.1201171875). In f16, Half(168) + 0.07 rounds to 168.125 (its spacing
 * there is 0.125): the blend is 0.875 * 0 + 0.125 * 16 = 2 exactly. */
static void ramp_168(dcn_run *r) {
    dcn_blank(r, "n=1 c_in=1 c_out=1 h=200 w=1 kh=1 kw=1 pad_h=0 pad_w=0 mask=0 bias=0 "
                 "dtype=f16");
    put(r, "weight", 0, 1);
    for (int y = 0; y < 200; y++) {
        put(r, "input", y, 16.0 * (y - 168));
        put(r, "offset", y, 0.07);      /* dy of output row y */
        put(r, "offset", 200 + y, 0.0); /* dx */
    }
}

KB_TEST(f16_rule_rounds_the_coordinate_to_f16) {
    dcn_run r;
    kb_error e;
    ramp_168(&r);
    KB_EXPECT(kb_deform_conv2d_reference(&r.c, &r.in, &r.out, &e) == KB_OK);
    KB_EXPECT_NEAR(at(&r.out, "output", 168), 1.1201171875, 0);
    KB_EXPECT(kb_deform_conv2d_reference_tv_f16(&r.c, &r.in, &r.out, &e) == KB_OK);
    KB_EXPECT_NEAR(at(&r.out, "output", 168), 2.0, 0);
    dcn_free(&r);
}

/* Each at::Half operation rounds: 1 - 0.0700073 = 0.9299927 rounds to
 * 0.93017578125 (spacing 2^-11 in [0.5, 1)); the products and sums of
 * kb_dcn_blend_f16 likewise, the mask product last. */
KB_TEST(f16_rule_rounds_every_weight_product_and_sum) {
    int64_t base;
    float wt[4];
    float dy = kb_f16_to_f32(kb_f32_to_f16(0.07f));
    KB_EXPECT(kb_dcn_coord_f16(0, dy) == dy);
    KB_EXPECT(kb_dcn_corners_f16(kb_dcn_coord_f16(0, dy), 0.5f, 5, 5, &base, wt) == 1);
    KB_EXPECT(base == 0);
    /* ly = 0.0700073, hy = 0.93017578125, lx = hx = 0.5 */
    KB_EXPECT(wt[0] == kb_dcn_round_f16(0.93017578125f * 0.5f));
    KB_EXPECT(wt[0] == 0.465087890625f);
    KB_EXPECT(wt[2] == kb_dcn_round_f16(dy * 0.5f));
    /* 0.75 * 3 + 0.25 * 5 = 3.5, times 1/3 (f16: 0.333251953125) = 1.16638...
     * -> 1.166015625 */
    const float w2[4] = {0.75f, 0.25f, 0, 0}, v[4] = {3, 5, 0, 0};
    KB_EXPECT(kb_dcn_blend_f16(w2, v, kb_dcn_round_f16(1.0f / 3)) == 1.166015625f);
    /* 2049 is no f16: the int part of a coordinate rounds too (to 2048), and
     * so does Half(2) + 0.07 (spacing 2^-9 in [2, 4)) */
    KB_EXPECT(kb_dcn_coord_f16(2049, 0) == 2048.0f);
    KB_EXPECT(kb_dcn_coord_f16(2, dy) == 2.0703125f);
}

/* The compare of a KB_INEXACT variant: held to its own rule's reference,
 * its note measuring that rule against the exact one. Far along w (x up to
 * 400, f16 spacing 0.25) the rule's outputs fail the exact f16 check. */
KB_TEST(f16_rule_output_passes_its_own_check_and_fails_the_exact_one) {
    dcn_run r;
    kb_error e;
    dcn_make(&r, "n=1 c_in=8 c_out=8 h=4 w=400 dtype=f16 offsets=uniform offset_scale=1");
    kb_tensors own = {0};
    kb_tensors_add(&own, "output", KB_F16, 4, r.out.t[0].shape);
    KB_EXPECT(kb_tensors_alloc_host(&own, &e) == KB_OK);
    KB_EXPECT(kb_deform_conv2d_reference_tv_f16(&r.c, &r.in, &own, &e) == KB_OK);
    const kb_check_ctx inexact = {KB_PREC_F16, KB_INEXACT}, exact = {KB_PREC_F16, 0};
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    KB_EXPECT(kb_op_deform_conv2d.compare(&r.c, &inexact, &r.in, &r.out, &own, &acc) == KB_OK);
    KB_EXPECT(acc.pass);
    KB_EXPECT(acc.rel_l2 == 0);
    KB_EXPECT_STR_CONTAINS(acc.note, "vs the exact reference: rel-L2");
    KB_EXPECT_STR_CONTAINS(acc.note, "fails it");
    kb_accuracy_init(&acc);
    KB_EXPECT(kb_op_deform_conv2d.compare(&r.c, &exact, &r.in, &r.out, &own, &acc) == KB_OK);
    KB_EXPECT(!acc.pass);
    kb_accuracy_init(&acc);
    KB_EXPECT(kb_op_deform_conv2d.compare(&r.c, &inexact, &r.in, &own, &r.out, &acc) == KB_OK);
    KB_EXPECT(!acc.pass); /* the exact outputs are not the rule's */
    KB_EXPECT_STR_CONTAINS(acc.note, "vs torchvision's f16 rule");
    kb_tensors_free_host(&own);
    dcn_free(&r);
}

KB_TEST(f16_rule_reference_refuses_other_dtypes) {
    dcn_run r;
    kb_error e;
    dcn_make(&r, "n=1 c_in=4 c_out=4 h=5 w=5 dtype=f32");
    KB_EXPECT(kb_deform_conv2d_reference_tv_f16(&r.c, &r.in, &r.out, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "dtype=f32");
    dcn_free(&r);
}
