/* test_topk_reference.c — the CPU reference and the case plumbing of topk
 * state the contract of include/kbench/ops/topk.h. */
#include "kbtest.h"
#include "topk.h"

#include <stdlib.h>

typedef struct {
    kb_case c;
    kb_tensors in, out;
} topk_run;

/* Describe the case, fill values (NULL: from the seed), run the reference. */
static int run_reference(topk_run *r, const char *segments, const char *k, const float *values) {
    kb_error e;
    memset(r, 0, sizeof *r);
    kb_case_defaults(&r->c, &kb_op_topk);
    if (kb_case_set(&r->c, "segments", segments, &e) || kb_case_set(&r->c, "k", k, &e) ||
        kb_op_topk.validate(&r->c, &e) || kb_op_topk.describe(&r->c, &r->in, &r->out, &e) ||
        kb_tensors_alloc_host(&r->in, &e) || kb_tensors_alloc_host(&r->out, &e) ||
        kb_op_topk.make_inputs(&r->c, 1, &r->in, &e))
        return KB_ERR;
    if (values) memcpy(r->in.t[0].data, values, kb_nbytes(&r->in.t[0]));
    return kb_topk_reference(&r->c, &r->in, &r->out, &e);
}

static const int32_t *indices(topk_run *r) {
    return kb_tensors_get(&r->out, "topk_indices")->data;
}
static const float *vals(topk_run *r) {
    return kb_tensors_get(&r->out, "topk_values")->data;
}
static const int32_t *counts(topk_run *r) {
    return kb_tensors_get(&r->out, "counts")->data;
}
static void done(topk_run *r) {
    kb_tensors_free_host(&r->in);
    kb_tensors_free_host(&r->out);
}

KB_TEST(topk_ties_across_k_boundary_take_lower_index) {
    const float v[] = {1, 2, 3, 2, 2, 0};
    topk_run r;
    KB_EXPECT(run_reference(&r, "6", "3", v) == KB_OK);
    KB_EXPECT(indices(&r)[0] == 2 && indices(&r)[1] == 1 && indices(&r)[2] == 3);
    done(&r);
}

KB_TEST(topk_k_above_length_pads_with_sentinel) {
    const float v[] = {0.5f, 0.25f};
    topk_run r;
    KB_EXPECT(run_reference(&r, "2", "4", v) == KB_OK);
    KB_EXPECT(counts(&r)[0] == 2 && indices(&r)[0] == 0 && indices(&r)[1] == 1);
    KB_EXPECT(indices(&r)[2] == -1 && indices(&r)[3] == -1 && isinf(vals(&r)[3]) &&
              vals(&r)[3] < 0);
    done(&r);
}

KB_TEST(topk_k_zero_counts_zero) {
    topk_run r;
    KB_EXPECT(run_reference(&r, "3+4", "0", NULL) == KB_OK);
    KB_EXPECT(counts(&r)[0] == 0 && counts(&r)[1] == 0);
    done(&r);
}

KB_TEST(topk_empty_segment_counts_zero_and_neighbours_unaffected) {
    const float v[] = {1, 3, 2, 7};
    topk_run r;
    KB_EXPECT(run_reference(&r, "3+0+1", "2", v) == KB_OK);
    KB_EXPECT(counts(&r)[0] == 2 && counts(&r)[1] == 0 && counts(&r)[2] == 1);
    KB_EXPECT(indices(&r)[0] == 1 && indices(&r)[2] == -1 && indices(&r)[4] == 0);
    done(&r);
}

KB_TEST(topk_negative_zero_equals_positive_zero_lower_index_first) {
    const float v[] = {-1.0f, -0.0f, 0.0f, -0.0f};
    topk_run r;
    KB_EXPECT(run_reference(&r, "4", "2", v) == KB_OK);
    KB_EXPECT(indices(&r)[0] == 1 && indices(&r)[1] == 2);
    KB_EXPECT(signbit(vals(&r)[0]) && !signbit(vals(&r)[1])); /* the elements themselves */
    done(&r);
}

KB_TEST(topk_key_orders_like_floats_and_merges_zeros) {
    const float v[] = {-INFINITY, -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 0.5f, 1.0f, INFINITY};
    KB_EXPECT(kb_topk_key(-0.0f) == kb_topk_key(0.0f));
    for (int i = 0; i + 1 < (int)(sizeof v / sizeof v[0]); i++)
        KB_EXPECT(v[i] == v[i + 1] ? kb_topk_key(v[i]) == kb_topk_key(v[i + 1])
                                   : kb_topk_key(v[i]) < kb_topk_key(v[i + 1]));
}

KB_TEST(topk_rpn5_layout_has_the_five_levels_per_image) {
    kb_case c;
    kb_case_defaults(&c, &kb_op_topk);
    kbt_set(&c, "batch", "2");
    int64_t n = 0, total = 0;
    int64_t *len = kb_topk_lengths(&c, &n, &total, NULL);
    KB_EXPECT(len && n == 10 && total == 2 * 268569 && len[0] == 201600 && len[9] == 819);
    free(len);
}

KB_TEST(topk_malformed_layout_is_rejected_by_name) {
    kb_case c;
    kb_error e = {{0}};
    kb_case_defaults(&c, &kb_op_topk);
    kbt_set(&c, "segments", "12x");
    KB_EXPECT(kb_op_topk.validate(&c, &e) != KB_OK);
    KB_EXPECT_STR_CONTAINS(e.msg, "segments=12x");
}

KB_TEST(topk_ties_inputs_hold_both_zeros) {
    topk_run r;
    kb_error e;
    KB_EXPECT(run_reference(&r, "1x4000", "10", NULL) == KB_OK);
    kbt_set(&r.c, "dist", "ties");
    kb_op_topk.make_inputs(&r.c, 3, &r.in, &e);
    const float *v = r.in.t[0].data;
    int neg = 0, pos = 0;
    for (int i = 0; i < 4000; i++) {
        neg += v[i] == 0 && signbit(v[i]);
        pos += v[i] == 0 && !signbit(v[i]);
    }
    KB_EXPECT(neg > 0 && pos > 0);
    done(&r);
}
