/* test_yolo_decode_reference.c — the yolo_decode CPU reference on constructed
 * predictions: argmax ties, the threshold, the letterbox map back (clipped),
 * the max_det cap, zero candidates, batches of different images. */
#include "kbtest.h"
#include "preprocess.h"
#include "yolo_decode.h"

#include <stdint.h>

typedef struct {
    kb_case c;
    kb_tensors in, out;
    int stride;
} yolo_case;

/* A case whose predictions all start as background (objectness 0.001). */
static void make_case(yolo_case *t, const char *b, const char *n, const char *c) {
    memset(t, 0, sizeof *t);
    kb_case_defaults(&t->c, &kb_op_yolo_decode);
    kbt_set(&t->c, "b", b);
    kbt_set(&t->c, "n", n);
    kbt_set(&t->c, "c", c);
    kb_op_yolo_decode.describe(&t->c, &t->in, &t->out, NULL);
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->out, NULL);
    t->stride = 5 + (int)kb_int(&t->c, "c");
    float *pred = kb_tensors_find(&t->in, "pred")->data;
    int64_t rows = kb_int(&t->c, "b") * kb_int(&t->c, "n");
    for (int64_t i = 0; i < rows; i++) {
        float *r = pred + i * t->stride;
        r[0] = r[1] = 320;
        r[2] = r[3] = 10;
        r[4] = 0.001f;
        for (int k = 0; k < t->stride - 5; k++) r[5 + k] = 0.01f;
    }
    float *d2i = kb_tensors_find(&t->in, "d2i")->data;
    for (int img = 0; img < kb_int(&t->c, "b"); img++)
        kb_pp_letterbox_d2i(1920, 1080, 640, 640, d2i + 6 * img);
}

static float *row(yolo_case *t, int img, int i) {
    float *pred = kb_tensors_find(&t->in, "pred")->data;
    return pred + ((int64_t)img * kb_int(&t->c, "n") + i) * t->stride;
}

static void set_pred(yolo_case *t, int img, int i, float cx, float cy, float w, float h, float obj,
                     int cls, float score) {
    float *r = row(t, img, i);
    r[0] = cx;
    r[1] = cy;
    r[2] = w;
    r[3] = h;
    r[4] = obj;
    r[5 + cls] = score;
}

static int count_of(yolo_case *t, int img) {
    return ((int32_t *)kb_tensors_find(&t->out, "count")->data)[img];
}
static float *det(yolo_case *t, int img, int k) {
    return (float *)kb_tensors_find(&t->out, "dets")->data +
           ((int64_t)img * kb_int(&t->c, "max_out") + k) * 6;
}
static int run_ref(yolo_case *t) {
    return kb_op_yolo_decode.reference(&t->c, &t->in, &t->out, NULL) == KB_OK;
}
static void free_case(yolo_case *t) {
    kb_tensors_free_host(&t->in);
    kb_tensors_free_host(&t->out);
}

KB_TEST(argmax_ties_take_the_lowest_class) {
    yolo_case t;
    make_case(&t, "1", "10", "80");
    set_pred(&t, 0, 3, 320, 320, 50, 50, 0.9f, 41, 0.8f);
    row(&t, 0, 3)[5 + 17] = 0.8f;
    row(&t, 0, 3)[5 + 63] = 0.8f;
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) == 1);
    KB_EXPECT(det(&t, 0, 0)[5] == 17.0f);
    KB_EXPECT(det(&t, 0, 0)[4] == 0.9f * 0.8f);
    free_case(&t);
}

KB_TEST(objectness_exactly_at_the_threshold_is_kept) {
    yolo_case t;
    make_case(&t, "1", "10", "4");
    kbt_set(&t.c, "conf", "0.25");
    set_pred(&t, 0, 0, 100, 320, 20, 20, 0.25f, 1, 1.0f);   /* obj = conf, score = conf */
    set_pred(&t, 0, 1, 300, 320, 20, 20, 0.2499f, 1, 1.0f); /* just below */
    set_pred(&t, 0, 2, 500, 320, 20, 20, 0.5f, 2, 0.49f);   /* obj * cls below */
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) == 1);
    KB_EXPECT(det(&t, 0, 0)[4] == 0.25f && det(&t, 0, 0)[5] == 1.0f);
    free_case(&t);
}

KB_TEST(boxes_map_back_by_the_letterbox_and_clip_to_the_source) {
    yolo_case t;
    make_case(&t, "1", "10", "2");
    /* 1920x1080 -> 640: s = 1/3, image rows y' in [140, 500). */
    set_pred(&t, 0, 0, 320, 320, 60, 30, 0.9f, 0, 0.9f); /* inside */
    set_pred(&t, 0, 1, 100, 140, 40, 40, 0.8f, 1, 0.9f); /* straddles the top padding */
    set_pred(&t, 0, 2, 630, 495, 40, 40, 0.7f, 0, 0.9f); /* past the right and bottom */
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) == 3);
    /* The inverse of x' = x/3 + (640 - 640)/2 + (1/3 - 1)/2 = x/3 - 1/3 and
     * y' = y/3 + (640 - 360)/2 - 1/3 = y/3 + 139 + 2/3 is x = 3x' + 1,
     * y = 3y' - 419. Box a: corners (290, 305) (350, 335) -> (871, 496) (1051, 586). */
    float *a = det(&t, 0, 0);
    KB_EXPECT_NEAR(a[0], 871, 1e-3);
    KB_EXPECT_NEAR(a[1], 496, 1e-3);
    KB_EXPECT_NEAR(a[2], 1051, 1e-3);
    KB_EXPECT_NEAR(a[3], 586, 1e-3);
    /* b, score 0.72: (80, 120) (120, 160) -> (241, -59 clipped to 0) (361, 61) */
    float *b = det(&t, 0, 1);
    KB_EXPECT_NEAR(b[0], 241, 1e-3);
    KB_EXPECT(b[1] == 0.0f);
    KB_EXPECT_NEAR(b[2], 361, 1e-3);
    KB_EXPECT_NEAR(b[3], 61, 1e-3);
    /* c, score 0.63: (610, 475) (650, 515) -> (1831, 1006) (1951 clipped to 1920,
     * 1126 clipped to 1080) */
    float *c = det(&t, 0, 2);
    KB_EXPECT_NEAR(c[0], 1831, 1e-3);
    KB_EXPECT_NEAR(c[1], 1006, 1e-3);
    KB_EXPECT(c[2] == 1920.0f && c[3] == 1080.0f);
    free_case(&t);
}

KB_TEST(more_than_max_det_keeps_the_highest_scoring) {
    yolo_case t;
    make_case(&t, "1", "100", "3");
    kbt_set(&t.c, "max_det", "5");
    /* 20 disjoint boxes, scores rising with the index; two tie at the cut. */
    for (int i = 0; i < 20; i++)
        set_pred(&t, 0, 10 + i, 20 + 30 * (float)i, 320, 10, 10, 0.3f + 0.03f * (float)i, 0, 1.0f);
    row(&t, 0, 10 + 14)[4] = row(&t, 0, 10 + 15)[4]; /* a tie for the 5th place */
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) == 5);
    KB_EXPECT(det(&t, 0, 0)[4] == row(&t, 0, 29)[4]);
    /* ranks: 29, 28, 27, 26, then 24 and 25 tie: the lower index (24) is 5th */
    /* box 24 (i = 14): x1' = 20 + 30 * 14 - 10/2 = 435, x1 = 3 * 435 + 1 = 1306 */
    KB_EXPECT_NEAR(det(&t, 0, 4)[0], 1306, 1e-3);
    free_case(&t);
}

KB_TEST(greedy_nms_suppresses_only_within_a_class) {
    yolo_case t;
    make_case(&t, "1", "10", "3");
    set_pred(&t, 0, 0, 320, 320, 100, 100, 0.9f, 0, 0.9f);
    set_pred(&t, 0, 1, 322, 320, 100, 100, 0.8f, 0, 0.9f); /* suppressed */
    set_pred(&t, 0, 2, 321, 320, 100, 100, 0.7f, 2, 0.9f); /* other class: kept */
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) == 2);
    KB_EXPECT(det(&t, 0, 1)[5] == 2.0f);
    free_case(&t);
}

KB_TEST(zero_candidates_give_count_zero) {
    yolo_case t;
    make_case(&t, "2", "500", "80");
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) == 0 && count_of(&t, 1) == 0);
    free_case(&t);
}

KB_TEST(images_of_a_batch_are_decoded_independently) {
    yolo_case one, many;
    make_case(&many, "32", "6300", "80");
    kb_op_yolo_decode.make_inputs(&many.c, 11, &many.in, NULL);
    KB_EXPECT(run_ref(&many));
    int differ = 0;
    for (int img = 1; img < 32; img++) differ += count_of(&many, img) != count_of(&many, 0);
    KB_EXPECT(differ > 0); /* different images */
    for (int img = 0; img < 32; img += 31) {
        make_case(&one, "1", "6300", "80");
        memcpy(row(&one, 0, 0), row(&many, img, 0), (size_t)6300 * one.stride * sizeof(float));
        KB_EXPECT(run_ref(&one));
        KB_EXPECT(count_of(&one, 0) == count_of(&many, img));
        KB_EXPECT(count_of(&one, 0) > 0);
        KB_EXPECT(memcmp(det(&one, 0, 0), det(&many, img, 0),
                         (size_t)count_of(&one, 0) * 6 * sizeof(float)) == 0);
        free_case(&one);
    }
    free_case(&many);
}

KB_TEST(realistic_inputs_have_clusters_and_dense_more_than_max_det) {
    yolo_case t;
    make_case(&t, "1", "25200", "80");
    kb_op_yolo_decode.make_inputs(&t.c, 3, &t.in, NULL);
    int64_t q = kb_yolo_qualifying(&t.c, &t.in, 0);
    KB_EXPECT(q >= 5 && q <= 1024);
    KB_EXPECT(run_ref(&t));
    KB_EXPECT(count_of(&t, 0) >= 3 && count_of(&t, 0) < q);
    free_case(&t);
    make_case(&t, "1", "25200", "80");
    kbt_set(&t.c, "dist", "dense");
    kb_op_yolo_decode.make_inputs(&t.c, 3, &t.in, NULL);
    KB_EXPECT(kb_yolo_qualifying(&t.c, &t.in, 0) > 1024);
    free_case(&t);
}

KB_TEST(validate_rejects_int32_overflow) {
    kb_case c;
    kb_case_defaults(&c, &kb_op_yolo_decode);
    kbt_set(&c, "b", "32");
    kbt_set(&c, "n", "1000000");
    kb_error e = {{0}};
    KB_EXPECT(kb_op_yolo_decode.validate(&c, &e) != KB_OK);
    KB_EXPECT(strstr(e.msg, "n=1000000") != NULL);
}
