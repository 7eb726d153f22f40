/* test_rpn_reference.c — the float formulas and the CPU reference of
 * rpn_proposals state the contract of include/kbench/ops/rpn_proposals.h. */
#include "kbtest.h"
#include "rpn_proposals.h"

#include <stdlib.h>

typedef struct {
    kb_case c;
    kb_tensors in, out;
} rpn_run;

/* A case with generated inputs (reference not yet run). */
static int prepare(rpn_run *r, const char *h, const char *w, const char *levels) {
    kb_error e;
    memset(r, 0, sizeof *r);
    kb_case_defaults(&r->c, &kb_op_rpn_proposals);
    if (kb_case_set(&r->c, "img_h", h, &e) || kb_case_set(&r->c, "img_w", w, &e) ||
        kb_case_set(&r->c, "levels", levels, &e) ||
        kb_op_rpn_proposals.describe(&r->c, &r->in, &r->out, &e) ||
        kb_tensors_alloc_host(&r->in, &e) || kb_tensors_alloc_host(&r->out, &e))
        return KB_ERR;
    return kb_op_rpn_proposals.make_inputs(&r->c, 5, &r->in, &e);
}

static int reference(rpn_run *r) {
    kb_error e;
    return kb_rpn_reference(&r->c, &r->in, &r->out, &e);
}

static float *in_f(rpn_run *r, const char *name) {
    return kb_tensors_find(&r->in, name)->data;
}
static int64_t n_anchors(rpn_run *r) {
    return kb_tensors_find(&r->in, "scores")->shape[0];
}
static int32_t count(rpn_run *r) {
    return *(int32_t *)kb_tensors_find(&r->out, "count")->data;
}
static const float *rows(rpn_run *r) {
    return kb_tensors_find(&r->out, "proposals")->data;
}
static void done(rpn_run *r) {
    kb_tensors_free_host(&r->in);
    kb_tensors_free_host(&r->out);
}

/* Every anchor the same box with zero deltas, scores distinct and falling. */
static void identical_boxes(rpn_run *r) {
    float *a = in_f(r, "anchors"), *d = in_f(r, "deltas"), *s = in_f(r, "scores");
    for (int64_t i = 0; i < n_anchors(r); i++) {
        a[4 * i] = 8, a[4 * i + 1] = 8, a[4 * i + 2] = 40, a[4 * i + 3] = 30;
        d[4 * i] = d[4 * i + 1] = d[4 * i + 2] = d[4 * i + 3] = 0;
        s[i] = 0.9f - 1e-4f * (float)i;
    }
}

KB_TEST(rpn_expf_within_two_ulp_of_exp_over_the_clamped_range) {
    double worst = 0;
    for (float x = -4.2f; x <= 4.2f; x += 0.001f) {
        double want = exp((double)x), got = kb_rpn_expf(x);
        double ulp = nextafterf((float)want, INFINITY) - (float)want;
        worst = fmax(worst, fabs(got - want) / ulp);
    }
    KB_EXPECT(worst <= 2.0);
}

KB_TEST(rpn_delta2bbox_zero_deltas_return_the_anchor) {
    const float anchor[4] = {10.5f, 20.25f, 50, 80}, delta[4] = {0, 0, 0, 0};
    float box[4];
    kb_rpn_delta2bbox(anchor, delta, 100, 100, box);
    for (int d = 0; d < 4; d++) KB_EXPECT(box[d] == anchor[d]);
}

KB_TEST(rpn_delta2bbox_clamps_dw_to_max_ratio_and_box_to_image) {
    const float anchor[4] = {500, 500, 504, 504}, delta[4] = {0, 0, 10, -10};
    float box[4];
    kb_rpn_delta2bbox(anchor, delta, 1000, 1000, box);
    KB_EXPECT_NEAR(box[2] - box[0], 4 * 1000.0 / 16, 0.01); /* exp(4.135) = 62.5 */
    KB_EXPECT_NEAR(box[3] - box[1], 4 * 16.0 / 1000, 1e-4); /* ulp(502) = 3e-5 */
    kb_rpn_delta2bbox(anchor, (const float[]){-200, 0, 0, 0}, 1000, 1000, box);
    KB_EXPECT(box[0] == 0 && box[2] == 0);
}

KB_TEST(rpn_levels_never_suppress_each_other) {
    rpn_run r;
    KB_EXPECT(prepare(&r, "64", "64", "3") == KB_OK);
    identical_boxes(&r);
    KB_EXPECT(reference(&r) == KB_OK);
    KB_EXPECT(count(&r) == 3); /* one box per level survives */
    done(&r);
}

KB_TEST(rpn_kept_rows_are_sorted_by_score_and_unshifted) {
    rpn_run r;
    KB_EXPECT(prepare(&r, "256", "320", "4") == KB_OK);
    KB_EXPECT(reference(&r) == KB_OK);
    const float *p = rows(&r);
    KB_EXPECT(count(&r) > 10);
    for (int i = 0; i < count(&r); i++) {
        KB_EXPECT(p[5 * i + 2] <= 320 && p[5 * i + 3] <= 256 && p[5 * i] >= 0);
        if (i) KB_EXPECT(p[5 * i + 4] <= p[5 * (i - 1) + 4]);
    }
    KB_EXPECT(count(&r) == 1000 || p[5 * count(&r) + 4] == 0); /* rows past the count: zero */
    done(&r);
}

KB_TEST(rpn_equal_scores_keep_the_lower_level_first) {
    rpn_run r;
    KB_EXPECT(prepare(&r, "64", "64", "2") == KB_OK);
    identical_boxes(&r);
    float *s = in_f(&r, "scores");
    for (int64_t i = 0; i < n_anchors(&r); i++) s[i] = 0.5f;
    KB_EXPECT(reference(&r) == KB_OK);
    KB_EXPECT(count(&r) == 2 && rows(&r)[1] == 8.0f && rows(&r)[4] == 0.5f);
    done(&r);
}

KB_TEST(rpn_boxes_not_above_min_size_are_removed) {
    rpn_run r;
    KB_EXPECT(prepare(&r, "64", "64", "2") == KB_OK);
    identical_boxes(&r); /* 32 x 22 boxes */
    kbt_set(&r.c, "min_bbox_size", "22");
    KB_EXPECT(reference(&r) == KB_OK);
    KB_EXPECT(count(&r) == 0 && rows(&r)[0] == 0);
    done(&r);
}

KB_TEST(rpn_default_case_has_the_mmdet_level_sizes) {
    kb_case c;
    kb_case_defaults(&c, &kb_op_rpn_proposals);
    const kb_rpn_params p = kb_rpn_params_of(&c);
    const int64_t *n = p.level_size;
    KB_EXPECT(p.levels == 5);
    KB_EXPECT(n[0] == 201600 && n[1] == 50400 && n[2] == 12600 && n[3] == 3150 && n[4] == 819);
}

KB_TEST(rpn_max_per_img_caps_the_count) {
    rpn_run r;
    KB_EXPECT(prepare(&r, "256", "320", "4") == KB_OK);
    kbt_set(&r.c, "max_per_img", "7");
    kb_tensors_free_host(&r.out);
    r.out.count = 0;
    kb_error e;
    kb_tensors in2 = {0};
    kb_op_rpn_proposals.describe(&r.c, &in2, &r.out, &e);
    kb_tensors_alloc_host(&r.out, &e);
    KB_EXPECT(reference(&r) == KB_OK);
    KB_EXPECT(count(&r) == 7);
    done(&r);
}
