/* test_along.c — a view's cases laid out along one axis (along.c's
 * kb_along_*, what `kbench plot --along` and the default time plot draw):
 * x positions sorted by value, the axes that move with the along-axis in the
 * x labels, a panel per value of the other varying axes (dtype), the
 * default axis picked only where every panel is a sweep, and usage errors
 * that name the op's axes or the axes that vary.
 * Fixtures: the CSVs in tests/data. */
#define _POSIX_C_SOURCE 200809L
#include "kbtest.h"

#include "analysis/results.h"

typedef struct fixture {
    kb_results res;
    kb_op_view *views;
    int nviews;
} fixture;

static void load(fixture *f, const char *path) {
    kb_error e;
    memset(f, 0, sizeof *f);
    KB_EXPECT(kb_results_read(&f->res, kbt_src(path), NULL, &e) == KB_OK);
    KB_EXPECT(kb_views_build(&f->res, &f->views, &f->nviews, &e) == KB_OK);
    KB_EXPECT(f->nviews == 1);
}

static void unload(fixture *f) {
    kb_views_free(f->views, f->nviews);
    kb_results_free(&f->res);
}

/* The case of view v at panel p and x position i, or -1. */
static int case_at(const kb_op_view *v, const kb_along *a, int p, int i) {
    for (int c = 0; c < v->ncases; c++)
        if (a->case_panel[c] == p && a->case_x[c] == i) return c;
    return -1;
}

KB_TEST(layers_along_h_sorted_by_value_a_panel_per_dtype) {
    fixture f;
    load(&f, "tests/data/deform_conv2d_dtypes.csv");
    const kb_op_view *v = &f.views[0];
    kb_along a;
    kb_error e;
    KB_EXPECT(v->ncases == 6);
    KB_EXPECT(kb_along_build(v, "h", &a, &e) == KB_OK);
    KB_EXPECT(a.nx == 3 && a.npanels == 2 && a.min_points == 3);
    /* c_in, c_out and w are set by h in this sweep: labels, not panels; x is
     * the position, as the labels say more than h's value. */
    KB_EXPECT(strcmp(a.with, "c_in, c_out, w") == 0);
    KB_EXPECT(!a.numeric && !a.log_x);
    KB_EXPECT(strcmp(a.xlabel[0], "h=25 c_in=512 c_out=512 w=42") == 0);
    KB_EXPECT(strcmp(a.xlabel[1], "h=50 c_in=256 c_out=256 w=84") == 0);
    KB_EXPECT(strcmp(a.xlabel[2], "h=100 c_in=128 c_out=128 w=168") == 0);
    KB_EXPECT(a.x[0] == 0 && a.x[1] == 1 && a.x[2] == 2);
    /* Panels in the enum's order (f32 before f16), whatever the rows' order. */
    KB_EXPECT(strcmp(a.panel[0], "dtype=f32") == 0);
    KB_EXPECT(strcmp(a.panel[1], "dtype=f16") == 0);
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 3; i++) {
            int c = case_at(v, &a, p, i);
            KB_EXPECT(c >= 0);
            if (c < 0) continue;
            KB_EXPECT_STR_CONTAINS(v->cases[c], p ? "dtype=f16" : "dtype=f32");
            KB_EXPECT_STR_CONTAINS(v->cases[c], i == 0 ? "h=25 " : i == 1 ? "h=50 " : "h=100 ");
        }
    kb_along_free(&a);
    unload(&f);
}

KB_TEST(default_axis_is_the_first_that_makes_complete_sweeps) {
    fixture f;
    load(&f, "tests/data/deform_conv2d_dtypes.csv");
    kb_along a;
    KB_EXPECT(kb_along_pick(&f.views[0], &a) == 1);
    KB_EXPECT(strcmp(a.axis, "c_in") == 0);
    KB_EXPECT(a.npanels == 2 && a.nx == 3);
    kb_along_free(&a);
    unload(&f);
}

KB_TEST(numeric_axis_with_nothing_moving_with_it_is_drawn_at_its_values) {
    fixture f;
    load(&f, "tests/data/nms.csv");
    const kb_op_view *v = &f.views[0];
    kb_along a;
    kb_error e;
    KB_EXPECT(kb_along_build(v, "n", &a, &e) == KB_OK);
    KB_EXPECT(a.numeric && a.log_x); /* 1000 .. 100000 */
    KB_EXPECT(a.nx == 3 && a.x[0] == 1000 && a.x[1] == 25200 && a.x[2] == 100000);
    KB_EXPECT(strcmp(a.xlabel[2], "100000") == 0);
    /* The n=25200 scenarios split panels: iou, classes and dist vary too. */
    KB_EXPECT(a.npanels == 3 && a.min_points == 1);
    KB_EXPECT(strcmp(a.panel[0], "iou=0.5 classes=1 dist=uniform") == 0);
    KB_EXPECT(case_at(v, &a, 0, 0) >= 0 && case_at(v, &a, 0, 2) >= 0);
    kb_along_free(&a);
    /* So no default axis: a set of scenarios, not a sweep. */
    KB_EXPECT(kb_along_pick(v, &a) == 0);
    unload(&f);
}

KB_TEST(an_axis_the_op_lacks_or_that_does_not_vary_is_an_error_that_names_the_axes) {
    fixture f;
    load(&f, "tests/data/nms.csv");
    kb_along a;
    kb_error e;
    KB_EXPECT(kb_along_build(&f.views[0], "nope", &a, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg,
                           "nms has no axis 'nope' (its axes: n, iou, classes, max_out, dist)");
    KB_EXPECT(!kb_view_has_axis(&f.views[0], "nope") && kb_view_has_axis(&f.views[0], "iou"));
    KB_EXPECT(kb_along_build(&f.views[0], "max_out", &a, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "'max_out' does not vary across nms's rows (every case has "
                                  "max_out=0); the axes that vary: n, iou, classes, dist");
    unload(&f);
}
