/* test_check_indices.c — op->check_indices, the rule for index-like values
 * read from files (--inputs, kbench verify): what the ops generate and
 * compute always passes it, and each value that would make a reference, a
 * variant or compare index out of bounds is refused with the tensor, the
 * element, its value and the bound. The CLI paths: tests/cli/test_index_inputs.sh.
 *   ./test_check_indices [test_name]
 */
#include "kbtest.h"
#include "nms.h"
#include "rpn_proposals.h"
#include "run/sweep.h" /* kb_case_validate */
#include "topk.h"
#include "yolo_decode.h"

/* One case's generated inputs and computed reference. */
typedef struct {
    kb_case c;
    kb_tensors in, ref;
} made;

static int make(made *m, const kb_case *c) {
    kb_error e = {{0}};
    memset(m, 0, sizeof *m);
    m->c = *c;
    const kb_op *op = c->op;
    int rc = op->describe(c, &m->in, &m->ref, &e);
    if (rc == KB_OK) rc = kb_tensors_alloc_host(&m->in, &e);
    if (rc == KB_OK) rc = kb_tensors_alloc_host(&m->ref, &e);
    if (rc == KB_OK) rc = op->make_inputs(c, 7, &m->in, &e);
    if (rc == KB_OK) rc = op->reference(c, &m->in, &m->ref, &e);
    if (rc != KB_OK) fprintf(stderr, "  %s: %s\n", op->name, e.msg);
    return rc;
}

static made make_from(const kb_op *op, const char *settings) {
    made m;
    kb_case c;
    kbt_case_from(&c, op, settings);
    KB_EXPECT(make(&m, &c) == KB_OK);
    return m;
}

static void done(made *m) {
    kb_tensors_free_host(&m->in);
    kb_tensors_free_host(&m->ref);
}

static int32_t *i32(kb_tensors *ts, const char *name) {
    return kb_tensors_find(ts, name)->data;
}

/* check_indices' message on m (with its reference when with_ref), "" when it passes. */
static const char *judge(const made *m, int with_ref) {
    static kb_error e;
    e.msg[0] = '\0';
    if (m->c.op->check_indices(&m->c, &m->in, with_ref ? &m->ref : NULL, &e) == KB_OK) return "";
    return e.msg[0] ? e.msg : "(KB_ERR without a message)";
}

KB_TEST(generated_inputs_and_computed_references_pass_every_op) {
    for (int i = 0; kb_ops[i]; i++) {
        const kb_op *op = kb_ops[i];
        if (!op->check_indices || !op->fuzz_case) continue;
        uint64_t rng = 0x5EEDull + (uint64_t)i;
        for (int n = 0, tries = 0; n < 12 && tries < 200; tries++) {
            kb_case c;
            kb_error e;
            kb_case_defaults(&c, op);
            op->fuzz_case(&rng, &c);
            if (kb_case_validate(&c, &e) != KB_OK) continue;
            made m;
            if (make(&m, &c) == KB_OK) {
                const char *msg = judge(&m, 1);
                if (msg[0]) {
                    char params[1024];
                    kb_case_format(&c, params, sizeof params);
                    fprintf(stderr, "  %s {%s}: %s\n", op->name, params, msg);
                }
                KB_EXPECT(msg[0] == '\0');
            }
            done(&m);
            n++;
        }
    }
}

KB_TEST(ops_without_index_inputs_need_no_rule) {
    /* deform_conv2d's offsets are sampling displacements (a NaN or a far one
     * samples 0), preprocess reads pixels: neither indexes with a value */
    KB_EXPECT(kb_find_op("deform_conv2d")->check_indices == NULL);
    KB_EXPECT(kb_find_op("preprocess")->check_indices == NULL);
}

KB_TEST(topk_offsets_must_be_the_layout_of_the_case) {
    made m = make_from(&kb_op_topk, "segments=5+0+3 batch=2 k=4");
    int32_t *off = i32(&m.in, "offsets"); /* 0 5 5 8 13 13 16 */
    KB_EXPECT(strcmp(judge(&m, 1), "") == 0);
    off[2] = 4;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "offsets[2] = 4 < offsets[1] = 5: offsets never decrease");
    off[2] = 6;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "offsets[2] = 6, expected 5: segment 1 of "
                                         "segments=5+0+3 batch=2 holds 0 values");
    off[2] = 5;
    off[6] = 17;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "offsets[6] = 17 > 16, the length of values");
    off[6] = 16;
    off[0] = -1;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "offsets[0] = -1, expected 0");
    done(&m);
}

KB_TEST(topk_reference_counts_and_indices_stay_in_their_segment) {
    made m = make_from(&kb_op_topk, "segments=5+0+3 k=4");
    int32_t *cnt = i32(&m.ref, "counts"), *idx = i32(&m.ref, "topk_indices");
    KB_EXPECT(cnt[0] == 4 && cnt[1] == 0 && cnt[2] == 3);
    cnt[1] = 1;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "counts[1] = 1 outside [0, 0]");
    KB_EXPECT(strcmp(judge(&m, 0), "") == 0); /* the inputs alone still pass */
    cnt[1] = 0;
    idx[2 * 4 + 2] = 3; /* segment 2 holds 3 values */
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "topk_indices[2][2] = 3 outside [0, 3)");
    idx[2 * 4 + 2] = 2;
    idx[2 * 4 + 3] = 99; /* past the count: the sentinel's slot, not read */
    KB_EXPECT(strcmp(judge(&m, 1), "") == 0);
    done(&m);
}

KB_TEST(rpn_level_offsets_must_be_the_levels_of_the_image) {
    made m = make_from(&kb_op_rpn_proposals, "img_h=64 img_w=96 levels=3 nms_pre=5 max_per_img=7 "
                                             "objects=0");
    int32_t *off = i32(&m.in, "level_offsets"); /* 0 1152 1440 1512 */
    KB_EXPECT(off[3] == 1512 && strcmp(judge(&m, 1), "") == 0);
    off[3] = 1513;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "level_offsets[3] = 1513 > 1512, the length of scores");
    off[3] = 1500;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "level_offsets[3] = 1500, expected 1512: level 2 of "
                                         "img_h=64 img_w=96 holds 72 anchors");
    off[3] = 1512;
    i32(&m.ref, "count")[0] = -1;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "count[0] = -1 outside [0, 7] (max_per_img=7)");
    done(&m);
}

KB_TEST(nms_class_ids_lie_in_the_classes_axis_where_read) {
    made m = make_from(&kb_op_nms, "n=30 classes=4 dist=clustered max_out=10");
    int32_t *cls = i32(&m.in, "classes");
    cls[29] = 4;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "classes[29] = 4 outside [0, 4) (classes=4)");
    cls[29] = -2147483647 - 1;
    KB_EXPECT_STR_CONTAINS(judge(&m, 0), "classes[29] = -2147483648 outside [0, 4)");
    done(&m);
    made agnostic = make_from(&kb_op_nms, "n=30 classes=1");
    i32(&agnostic.in, "classes")[3] = 77; /* classes=1: nothing reads them */
    KB_EXPECT(strcmp(judge(&agnostic, 1), "") == 0);
    done(&agnostic);
}

KB_TEST(nms_reference_count_within_capacity_and_keeps_within_boxes) {
    made m = make_from(&kb_op_nms, "n=30 dist=clustered max_out=10");
    int32_t *count = i32(&m.ref, "count"), *keep = i32(&m.ref, "keep");
    KB_EXPECT(count[0] > 0 && strcmp(judge(&m, 1), "") == 0);
    const int32_t n = count[0];
    count[0] = 11;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "count[0] = 11 outside [0, 10] (n=30 max_out=10)");
    count[0] = n;
    keep[n - 1] = 30;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "outside [0, 30) (n=30 boxes)");
    keep[n - 1] = -1;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "= -1 outside [0, 30)");
    done(&m);
}

KB_TEST(yolo_reference_counts_and_class_ids_fit_the_case) {
    made m = make_from(&kb_op_yolo_decode, "b=2 n=2000 c=7 max_out=50");
    int32_t *count = i32(&m.ref, "count");
    float *dets = kb_tensors_find(&m.ref, "dets")->data;
    KB_EXPECT(count[1] > 0 && strcmp(judge(&m, 1), "") == 0);
    KB_EXPECT(strcmp(judge(&m, 0), "") == 0); /* no input holds an index */
    float *cls = dets + (50 + 0) * 6 + 5;     /* image 1, det 0 */
    const float keep = *cls;
    *cls = 7;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "dets[1][0][5] = 7: a class id is an integer in [0, 7)");
    *cls = NAN;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "dets[1][0][5] = nan");
    *cls = keep;
    count[0] = 51;
    KB_EXPECT_STR_CONTAINS(judge(&m, 1), "count[0] = 51 outside [0, 50] (max_out=50)");
    done(&m);
}
