/* test_nms_variants.c — every nms variant on constructed cases: greedy
 * variants equal the greedy reference keep list exactly, pairwise_fast equals
 * the fast-NMS reference. Calls each implementation's setup/run/teardown. */
#include "kbtest.h"
#include "kbtest_gpu.h"
#include "nms.h"

#include <math.h>
#include <stdint.h>

typedef kbt_fixture nms_case;

/* The reference is left to expect_all_variants_match: tests edit the inputs first. */
static void make_case(nms_case *t, const char *n, const char *dist, const char *classes,
                      const char *max_out, const char *iou) {
    char settings[256];
    snprintf(settings, sizeof settings, "n=%s dist=%s classes=%s max_out=%s iou=%s", n, dist,
             classes, max_out, iou);
    kbt_make_case(t, &kb_op_nms, settings, 7, 0);
}

static float *boxes_of(nms_case *t) {
    return kb_tensors_find(&t->in, "boxes")->data;
}

/* The variants that decline cases by design: rounds_unranked is rounds' one
 * launch alone (n <= 1024). */
static const char *const may_refuse[] = {"rounds_unranked", NULL};

/* Every device variant on the case, a KB_INEXACT one (fast NMS) by its own
 * rule; the reference recomputed from the (edited) inputs. */
static void expect_all_variants_match(nms_case *t, const char *what) {
    kb_op_nms.reference(&t->c, &t->in, &t->out, NULL);
    int count = 0;
    const kb_variant *v;
    for (int i = 0; (v = kbt_next_device_variant("nms", &i)); count++) {
        kb_error why = {{0}};
        if (kbt_named(may_refuse, v->name) && v->impl->supports(&t->c, &why) == KB_UNSUPPORTED)
            continue;
        kb_tensors got;
        int ran = kbt_run_variant(v->impl, t, &got);
        kb_accuracy acc;
        kb_accuracy_init(&acc);
        const kb_check_ctx chk = {KB_PREC_F32, v->flags & KB_INEXACT};
        if (ran) kb_op_nms.compare(&t->c, &chk, &t->in, &t->out, &got, &acc);
        if (!ran || !acc.pass) printf("  %s on %s: %s\n", v->name, what, acc.note);
        KB_EXPECT(ran && acc.pass);
        kb_tensors_free_host(&got);
    }
    KB_EXPECT(count > 0);
    kbt_free_case(t);
}

KB_TEST(nms_variants_match_at_block_edge_sizes) {
    KB_REQUIRE_DEVICE();
    static const char *const sizes[] = {"0", "1", "63", "64", "65", "1000", "4097"};
    for (int s = 0; s < 7; s++) {
        nms_case t;
        make_case(&t, sizes[s], "uniform", "1", "0", "0.5");
        expect_all_variants_match(&t, sizes[s]);
    }
}

KB_TEST(nms_variants_match_on_every_distribution) {
    KB_REQUIRE_DEVICE();
    /* 700: blockwalk's and rounds' one launch (<= 1024 boxes); 3000: their
     * launches for larger n. */
    static const char *const dists[] = {"clustered", "ties", "degenerate"};
    static const char *const sizes[] = {"700", "3000"};
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            nms_case t;
            char what[64];
            snprintf(what, sizeof what, "%s, %s boxes", dists[d], sizes[s]);
            make_case(&t, sizes[s], dists[d], "1", "0", "0.5");
            expect_all_variants_match(&t, what);
        }
}

KB_TEST(nms_variants_class_aware_match_the_reference) {
    KB_REQUIRE_DEVICE();
    nms_case t;
    make_case(&t, "5000", "clustered", "7", "0", "0.5");
    expect_all_variants_match(&t, "clustered, 7 classes");
    make_case(&t, "5000", "uniform", "3", "0", "0.3");
    expect_all_variants_match(&t, "uniform, 3 classes, iou 0.3");
    make_case(&t, "1000", "clustered", "7", "0", "0.5");
    expect_all_variants_match(&t, "1000 clustered, 7 classes");
}

KB_TEST(nms_variants_cap_at_max_out) {
    KB_REQUIRE_DEVICE();
    nms_case t;
    make_case(&t, "5000", "uniform", "1", "100", "0.7");
    expect_all_variants_match(&t, "max_out 100");
    make_case(&t, "5000", "clustered", "1", "77", "0.5");
    expect_all_variants_match(&t, "max_out 77, clustered");
    make_case(&t, "1000", "uniform", "1", "100", "0.5");
    expect_all_variants_match(&t, "max_out 100 of 1000");
}

/* Every row suppresses every later box: at 3000 each row's far words
 * overflow their list and are read from the dense mask. */
KB_TEST(nms_variants_keep_one_of_identical_boxes) {
    KB_REQUIRE_DEVICE();
    static const char *const sizes[] = {"300", "3000"};
    for (int s = 0; s < 2; s++) {
        nms_case t;
        make_case(&t, sizes[s], "ties", "1", "0", "0.5");
        float *b = boxes_of(&t);
        for (int i = 1; i < atoi(sizes[s]); i++) memcpy(b + 4 * i, b, 4 * sizeof *b);
        char what[64];
        snprintf(what, sizeof what, "%s identical boxes, tied scores", sizes[s]);
        expect_all_variants_match(&t, what);
    }
}

KB_TEST(nms_variants_keep_pairs_at_iou_exactly_the_threshold) {
    KB_REQUIRE_DEVICE();
    nms_case t;
    make_case(&t, "130", "uniform", "1", "0", "0.5");
    float *b = boxes_of(&t);
    for (int k = 0; k < 65; k++) { /* a 2x1 box and its left half: IoU 0.5 exactly */
        float x = (float)(10 * k);
        float pair[8] = {x, 0, x + 2, 1, x, 0, x + 1, 1};
        memcpy(b + 8 * k, pair, sizeof pair);
    }
    expect_all_variants_match(&t, "pairs at IoU 0.5");
}

/* The kernels screen IoU > thr by a cross-multiplied bound and divide only
 * near the threshold: pairs a few ulps either side must decide as the
 * division does. Pair k: a w x 10 box and its copy shifted by d, IoU =
 * (w - d) / (w + d) ~ 0.7, d moved by -4..4 ulps; pairs far apart. */
KB_TEST(nms_variants_decide_pairs_within_ulps_of_the_threshold) {
    KB_REQUIRE_DEVICE();
    nms_case t;
    make_case(&t, "1000", "uniform", "1", "0", "0.7");
    float *b = boxes_of(&t);
    for (int k = 0; k < 500; k++) {
        float x = (float)(40 * (k % 25)) + 0.37f, y = (float)(20 * (k / 25)) + 0.11f;
        float w = 7.0f + (float)(k % 13) * 0.731f;
        float d = w * 0.3f / 1.7f;
        for (int u = k % 9 - 4; u; u += u > 0 ? -1 : 1) d = nextafterf(d, u > 0 ? INFINITY : 0.0f);
        float pair[8] = {x, y, x + w, y + 10, x + d, y, x + w + d, y + 10};
        memcpy(b + 8 * k, pair, sizeof pair);
    }
    expect_all_variants_match(&t, "pairs within ulps of IoU 0.7");
}

KB_TEST(nms_variants_keep_zero_area_boxes) {
    KB_REQUIRE_DEVICE();
    nms_case t;
    make_case(&t, "200", "uniform", "1", "0", "0.0");
    float *b = boxes_of(&t);
    for (int i = 0; i < 200; i++) { /* points and lines on top of each other */
        float z[4] = {5, 5, 5, (float)(5 + (i % 2) * 10)};
        memcpy(b + 4 * i, z, sizeof z);
    }
    expect_all_variants_match(&t, "zero-area boxes");
}

/* Boxes first <= k < first + len in a row, each overlapping the next at IoU
 * 0.54 and the one after at 0.25, scores falling with k: greedy keeps every
 * other box of the row, and each decision waits on the one before (a chain of
 * len, within a 64-box block and across blocks); the other boxes lie far
 * apart. From first = 0 box 63 of each block is removed, so no kept box
 * reaches across a block edge; from first = 1 box 63 is kept and removes box
 * 64 of the next block (the walks' carry). */
static void expect_chain_matches(int n, int first, int len, const char *what) {
    nms_case t;
    char count[16];
    snprintf(count, sizeof count, "%d", n);
    make_case(&t, count, "uniform", "1", "0", "0.5");
    float *b = boxes_of(&t), *s = kb_tensors_find(&t.in, "scores")->data;
    for (int k = 0; k < n; k++) {
        const int in_row = k >= first && k < first + len;
        const float x = in_row ? 3.0f * (float)(k - first) : 40.0f * (float)(k % 50),
                    y = in_row ? 0.0f : 100.0f + 40.0f * (float)(k / 50);
        const float box[4] = {x, y, x + 10, y + 10};
        memcpy(b + 4 * k, box, sizeof box);
        s[k] = 1.0f - (float)k / 8192.0f;
    }
    expect_all_variants_match(&t, what);
}

KB_TEST(nms_variants_decide_suppression_chains_within_and_across_blocks) {
    KB_REQUIRE_DEVICE();
    expect_chain_matches(1000, 0, 40, "a chain of 40 boxes");
    expect_chain_matches(1000, 0, 1000, "a chain of 1000 boxes");
    expect_chain_matches(1000, 1, 999,
                         "a chain of 999 boxes from rank 1: kept boxes at block edges");
    expect_chain_matches(3000, 0, 3000, "a chain of 3000 boxes");
    expect_chain_matches(3000, 5, 2000, "a chain of 2000 boxes from rank 5");
}
