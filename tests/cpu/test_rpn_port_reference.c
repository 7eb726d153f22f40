/* test_rpn_port_reference.c — the rule of the common CUDA port of the RPN
 * proposal step (include/kbench/ops/rpn_proposals.h, "the common CUDA port"), on inputs
 * made by hand, and how the op's compare holds the KB_INEXACT cuda_port to it
 * and counts where it departs from the exact op. */
#include "kbtest.h"
#include "rpn_proposals.h"

typedef struct {
    kb_case c;
    kb_tensors in, exact, port; /* port: kb_rpn_port_reference's outputs */
} port_case;

/* The case's inputs from the generator; the tests overwrite them. */
static void make(port_case *t, const char *settings) {
    memset(t, 0, sizeof *t);
    kbt_case_from(&t->c, &kb_op_rpn_proposals, settings);
    kb_op_rpn_proposals.describe(&t->c, &t->in, &t->exact, NULL);
    t->port = t->exact;
    kb_tensors *const all[] = {&t->in, &t->exact, &t->port};
    for (int i = 0; i < 3; i++) kb_tensors_alloc_host(all[i], NULL);
    kb_op_rpn_proposals.make_inputs(&t->c, 9, &t->in, NULL);
}

/* Both references on the (edited) inputs. */
static void run_both(port_case *t) {
    kb_error e = {{0}};
    KB_EXPECT(kb_rpn_reference(&t->c, &t->in, &t->exact, &e) == KB_OK);
    KB_EXPECT(kb_rpn_port_reference(&t->c, &t->in, &t->port, &e) == KB_OK);
}

static void done(port_case *t) {
    kb_tensors *const all[] = {&t->in, &t->exact, &t->port};
    for (int i = 0; i < 3; i++) kb_tensors_free_host(all[i]);
}

static float *input(port_case *t, const char *name) {
    return kb_tensors_find(&t->in, name)->data;
}
static int32_t count_of(kb_tensors *out) {
    return *(int32_t *)kb_tensors_find(out, "count")->data;
}
static const float *row(kb_tensors *out, int r) {
    return (const float *)kb_tensors_find(out, "proposals")->data + 5 * r;
}
static int64_t level_start(port_case *t, int l) {
    return ((int32_t *)kb_tensors_find(&t->in, "level_offsets")->data)[l];
}

/* Anchor i is box b with zero deltas (so delta2bbox returns b), score s. */
static void put(port_case *t, int64_t i, float x1, float y1, float x2, float y2, float s) {
    float *a = input(t, "anchors") + 4 * i, *d = input(t, "deltas") + 4 * i;
    a[0] = x1, a[1] = y1, a[2] = x2, a[3] = y2;
    d[0] = d[1] = d[2] = d[3] = 0;
    input(t, "scores")[i] = s;
}

/* out holds these n rows, bit for bit, then zero rows up to max_per_img. */
static void expect_rows(port_case *t, kb_tensors *out, int n, const float want[][5]) {
    KB_EXPECT(count_of(out) == n);
    for (int r = 0; r < kb_rpn_params_of(&t->c).max_per_img; r++)
        for (int d = 0; d < 5; d++) KB_EXPECT(row(out, r)[d] == (r < n ? want[r][d] : 0.0f));
}

static kb_accuracy judge(port_case *t, kb_tensors *got, unsigned flags) {
    const kb_check_ctx chk = {KB_PREC_F32, flags};
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    kb_op_rpn_proposals.compare(&t->c, &chk, &t->in, &t->exact, got, &acc);
    return acc;
}

/* 32x32, two levels: level 0 has 192 anchors (8 x 8 x 3), level 1 48, fewer
 * than nms_pre = 50 (two pads). Level 0: box A = (2,2,12,12) everywhere but
 * anchor 1, (20,20,20.5,21) of width 0.5 <= min_bbox_size 1, and anchor 2,
 * C = (16,2,30,12); level 1: A everywhere, overlapping level 0's A (IoU 1).
 * Scores distinct and falling within each level. */
static void hand_case(port_case *t, float *s) {
    make(t, "img_h=32 img_w=32 levels=2 nms_pre=50 max_per_img=10 iou=0.5 min_bbox_size=1 "
            "objects=0");
    const int64_t l1 = level_start(t, 1), end = level_start(t, 2);
    for (int64_t i = 0; i < l1; i++) put(t, i, 2, 2, 12, 12, 0.9f - 0.001f * (float)i);
    for (int64_t i = l1; i < end; i++) put(t, i, 2, 2, 12, 12, 0.5f - 0.001f * (float)(i - l1));
    put(t, 1, 20, 20, 20.5f, 21, 0.9f - 0.001f);
    put(t, 2, 16, 2, 30, 12, 0.9f - 0.002f);
    s[0] = input(t, "scores")[0], s[1] = input(t, "scores")[1], s[2] = input(t, "scores")[2];
    s[3] = input(t, "scores")[l1];
    run_both(t);
}

KB_TEST(rpn_port_pads_short_levels_keeps_small_boxes_and_levels_apart) {
    port_case t;
    float s[4];
    hand_case(&t, s);
    /* Level 0's A suppresses its other 47 A's; the 0.5 px box stays in as the
     * square (20,20,20.5,20.5); M = 30, so level 1 is shifted by 31 and its A
     * is kept beside level 0's; of its two pads (0,0,0.5,0.5) score 0 the
     * first is kept (it overlaps nothing), the second is suppressed by it. */
    const float want[5][5] = {{2, 2, 12, 12, s[0]},
                              {20, 20, 20.5f, 20.5f, s[1]},
                              {16, 2, 30, 12, s[2]},
                              {2, 2, 12, 12, s[3]},
                              {0, 0, 0.5f, 0.5f, 0}};
    expect_rows(&t, &t.port, 5, want);
    done(&t);
}

KB_TEST(rpn_port_differs_from_the_exact_op_by_the_small_box_and_the_pad) {
    port_case t;
    float s[4];
    hand_case(&t, s);
    /* The exact op removes the small box and has no pads: A, C, level 1's A. */
    const float want[3][5] = {{2, 2, 12, 12, s[0]}, {16, 2, 30, 12, s[2]}, {2, 2, 12, 12, s[3]}};
    expect_rows(&t, &t.exact, 3, want);
    kb_accuracy acc = judge(&t, &t.port, KB_INEXACT);
    KB_EXPECT(acc.pass && acc.mismatches == 0 && acc.dropped == 0);
    KB_EXPECT_STR_CONTAINS(acc.note, "port rule, 5 proposals; vs the exact op's 3: drops 0, adds 2 "
                                     "(1 zero-score pads), 0 moved");
    done(&t);
}

KB_TEST(rpn_port_subtracts_the_offset_so_coordinates_round) {
    /* Six levels of 192, 48, 12, 3, 3, 3 anchors, nms_pre 3: no pads. Level
     * 0's best box (0,0,32,32) makes M = 32, so level 5 is shifted by 165,
     * where fp32 keeps 2^-16 px: its box's coordinates come back rounded. */
    port_case t;
    make(&t, "img_h=32 img_w=32 levels=6 nms_pre=3 max_per_img=100 objects=0");
    for (int64_t i = 0; i < level_start(&t, 6); i++)
        put(&t, i, 2, 2, 12, 12, 0.8f - 0.001f * (float)i);
    put(&t, 0, 0, 0, 32, 32, 0.99f);
    const int64_t a = level_start(&t, 5);
    put(&t, a, 1.1f, 1.3f, 9.3f, 9.7f, 0.95f);
    run_both(&t);
    float box[4];
    kb_rpn_delta2bbox(input(&t, "anchors") + 4 * a, input(&t, "deltas") + 4 * a, 32, 32, box);
    int at = -1;
    for (int r = 0; r < count_of(&t.port); r++)
        if (row(&t.port, r)[4] == 0.95f) at = r;
    KB_EXPECT(at == 1);
    int rounded = 0;
    for (int d = 0; at >= 0 && d < 4; d++) {
        const float got = row(&t.port, at)[d], sum = box[d] + 165.0f;
        KB_EXPECT(got == sum - 165.0f);
        KB_EXPECT(fabsf(got - box[d]) <= 0x1p-17f);
        rounded += got != box[d];
    }
    KB_EXPECT(rounded > 0);
    KB_EXPECT(memcmp(row(&t.exact, 1), box, sizeof box) == 0); /* the exact op: c itself */
    kb_accuracy acc = judge(&t, &t.port, KB_INEXACT);
    KB_EXPECT(acc.pass && acc.dropped == 0);
    KB_EXPECT_STR_CONTAINS(acc.note, "drops 0, adds 0 (0 zero-score pads), 1 moved");
    done(&t);
}

KB_TEST(rpn_compare_holds_the_port_to_its_own_rule_and_the_rest_to_the_exact_op) {
    port_case t;
    float s[4];
    hand_case(&t, s);
    KB_EXPECT(!judge(&t, &t.exact, KB_INEXACT).pass); /* the exact rows: not the port's */
    kb_accuracy acc = judge(&t, &t.port, 0);          /* the port's rows: not the op's */
    KB_EXPECT(!acc.pass && acc.dropped == -1);
    KB_EXPECT_STR_CONTAINS(acc.note, "count 5, reference 3");
    KB_EXPECT(judge(&t, &t.exact, 0).pass);
    done(&t);
}

/* Is row r a zero-score pad or a 0.5 px square (to the offset's rounding)? */
static int port_only(kb_tensors *out, int r) {
    const float *p = row(out, r);
    return p[4] == 0.0f ||
           (fabsf(p[2] - p[0] - 0.5f) <= 1e-3f && fabsf(p[3] - p[1] - 0.5f) <= 1e-3f);
}

KB_TEST(rpn_port_on_a_detector_case_adds_only_pads_and_small_boxes) {
    /* Level 2 has 240 anchors < nms_pre: 60 pads; min_bbox_size 16 turns
     * many boxes into 0.5 px squares, which overlap no kept box above the
     * threshold (IoU <= 0.25 / 256): every exact proposal is the port's. */
    port_case t;
    make(&t, "img_h=128 img_w=160 levels=3 nms_pre=300 max_per_img=2000 min_bbox_size=16 iou=0.5 "
             "objects=5");
    run_both(&t);
    int extra = 0;
    for (int r = 0; r < count_of(&t.port); r++) extra += port_only(&t.port, r);
    KB_EXPECT(extra > 0 && count_of(&t.exact) > 0);
    KB_EXPECT(count_of(&t.port) - extra == count_of(&t.exact));
    kb_accuracy acc = judge(&t, &t.port, KB_INEXACT);
    KB_EXPECT(acc.pass && acc.dropped == 0);
    done(&t);
}
