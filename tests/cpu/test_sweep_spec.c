/* Sweep specs are data: lists, inclusive ranges, pow2, errors that name the
 * axis, and the cartesian expansion of sweep lines into validated cases. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, chdir */
#include "harness.h"
#include "kbtest.h"
#include "preprocess.h"

#include <stdlib.h>
#include <unistd.h>

static kb_spec parse_ok(const char *text) {
    kb_spec s;
    kb_error e;
    int rc = kb_spec_parse(text, &s, &e);
    if (rc != KB_OK) fprintf(stderr, "  unexpected error: %s\n", e.msg);
    KB_EXPECT(rc == KB_OK);
    return s;
}

static const char *parse_err(const char *text) {
    static kb_error e;
    kb_spec s;
    e.msg[0] = '\0';
    KB_EXPECT(kb_spec_parse(text, &s, &e) == KB_ERR);
    return e.msg;
}

KB_TEST(single_value_is_one_value) {
    kb_spec s = parse_ok("n=16");
    KB_EXPECT(strcmp(s.axis, "n") == 0 && s.count == 1 && strcmp(s.values[0], "16") == 0);
    kb_spec_free(&s);
}

KB_TEST(list_keeps_order_and_text) {
    kb_spec s = parse_ok("dtype=[f32,f16,bf16]");
    KB_EXPECT(s.count == 3 && strcmp(s.values[2], "bf16") == 0);
    kb_spec_free(&s);
}

KB_TEST(range_is_inclusive_with_step) {
    kb_spec s = parse_ok("h=[32:512:32]");
    KB_EXPECT(s.count == 16);
    KB_EXPECT(strcmp(s.values[0], "32") == 0 && strcmp(s.values[15], "512") == 0);
    kb_spec_free(&s);
    s = parse_ok("k=[1:4]");
    KB_EXPECT(s.count == 4 && strcmp(s.values[3], "4") == 0);
    kb_spec_free(&s);
}

KB_TEST(range_of_reals_reaches_its_end) {
    kb_spec s = parse_ok("iou=[0.1:0.5:0.1]");
    KB_EXPECT(s.count == 5);
    kb_spec_free(&s);
}

KB_TEST(descending_range_needs_negative_step) {
    kb_spec s = parse_ok("n=[8:2:-2]");
    KB_EXPECT(s.count == 4 && strcmp(s.values[3], "2") == 0);
    kb_spec_free(&s);
    KB_EXPECT_STR_CONTAINS(parse_err("n=[8:2]"), "never reaches its end");
}

KB_TEST(pow2_gives_powers_of_two) {
    kb_spec s = parse_ok("n[pow2]=[0:5]");
    KB_EXPECT(strcmp(s.axis, "n") == 0 && s.count == 6);
    KB_EXPECT(strcmp(s.values[0], "1") == 0 && strcmp(s.values[5], "32") == 0);
    kb_spec_free(&s);
    s = parse_ok("n[pow2]=10");
    KB_EXPECT(strcmp(s.values[0], "1024") == 0);
    kb_spec_free(&s);
}

KB_TEST(malformed_specs_name_the_problem) {
    KB_EXPECT_STR_CONTAINS(parse_err("n"), "expected AXIS=VALUES");
    KB_EXPECT_STR_CONTAINS(parse_err("=3"), "axis name");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[1,2"), "does not close");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[1:x]"), "bad range");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[1:5:0]"), "never reaches");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[1,,2]"), "empty value");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[1,2,]"), "trailing comma");
    KB_EXPECT_STR_CONTAINS(parse_err("n=1,2"), "must be in brackets");
    KB_EXPECT_STR_CONTAINS(parse_err("n[log]=3"), "[pow2]");
    KB_EXPECT_STR_CONTAINS(parse_err("n[pow2]=[0:70]"), "not an exponent");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[]"), "axis n: no values");
    KB_EXPECT_STR_CONTAINS(parse_err("n=[0:1000000]"), "more than");
}

KB_TEST(line_expands_to_cartesian_product_of_valid_cases) {
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_line(&kb_op_preprocess, "n=[1,2,3] interp=[nearest,bilinear]", NULL, 0,
                             &list, &e) == KB_OK);
    KB_EXPECT(list.count == 6);
    KB_EXPECT(kb_int(&list.cases[5], "n") == 3);
    KB_EXPECT(strcmp(kb_str(&list.cases[5], "interp"), "bilinear") == 0);
    KB_EXPECT(kb_int(&list.cases[0], "in_h") == 1080); /* defaults elsewhere */
    kb_case_list_free(&list);
}

KB_TEST(overrides_replace_the_lines_axis) {
    kb_case_list list = {0};
    kb_error e;
    kb_spec o = parse_ok("n=[4,5]");
    KB_EXPECT(kb_expand_line(&kb_op_preprocess, "n=[1,2,3] in_h=100", &o, 1, &list, &e) == KB_OK);
    KB_EXPECT(list.count == 2 && kb_int(&list.cases[1], "n") == 5);
    KB_EXPECT(kb_int(&list.cases[1], "in_h") == 100);
    kb_case_list_free(&list);
    kb_spec_free(&o);
}

/* Found by fuzz_sweep_spec: the second override of an axis took its count
 * but borrowed the first one's values (one value read as two). */
KB_TEST(two_overrides_of_one_axis_the_later_wins) {
    kb_case_list list = {0};
    kb_error e;
    kb_spec o[2] = {parse_ok("n=4"), parse_ok("n=[6,7]")};
    KB_EXPECT(kb_expand_line(&kb_op_preprocess, "n=[1,2,3] in_h=100", o, 2, &list, &e) == KB_OK);
    KB_EXPECT(list.count == 2);
    KB_EXPECT(list.count == 2 && kb_int(&list.cases[0], "n") == 6 &&
              kb_int(&list.cases[1], "n") == 7);
    kb_case_list_free(&list);
    KB_EXPECT(kb_expand_line(&kb_op_preprocess, "in_h=100", o, 2, &list, &e) == KB_OK);
    KB_EXPECT(list.count == 2 && kb_int(&list.cases[1], "n") == 7);
    kb_case_list_free(&list);
    kb_spec_free(&o[0]);
    kb_spec_free(&o[1]);
}

KB_TEST(unknown_axis_and_out_of_range_are_named) {
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_line(&kb_op_preprocess, "bogus=3", NULL, 0, &list, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "no axis 'bogus'");
    KB_EXPECT(kb_expand_line(&kb_op_preprocess, "n=[1,999]", NULL, 0, &list, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "n=999: out of range");
    kb_case_list_free(&list);
}

/* Named sweeps may name repository files (preprocess: image=datasets/...)
 * relative to the root, where kbench runs (scripts/main.sh cds there): they
 * expand from there, whatever directory the test itself runs in. */
KB_TEST(every_named_sweep_of_every_op_expands) {
    char cwd[4096];
    KB_EXPECT(getcwd(cwd, sizeof cwd) != NULL);
    KB_EXPECT(chdir(KBT_SOURCE_DIR) == 0);
    for (int i = 0; kb_ops[i]; i++)
        for (int s = 0; kb_ops[i]->sweeps[s].name; s++) {
            kb_case_list list = {0};
            kb_error e;
            int rc = kb_expand_sweep(kb_ops[i], kb_ops[i]->sweeps[s].name, NULL, 0, &list, &e);
            if (rc != KB_OK)
                fprintf(stderr, "  %s/%s: %s\n", kb_ops[i]->name, kb_ops[i]->sweeps[s].name, e.msg);
            KB_EXPECT(rc == KB_OK && list.count > 0);
            kb_case_list_free(&list);
        }
    KB_EXPECT(chdir(cwd) == 0);
}

/* A temporary sweep file holding text (its path in path, removed by the caller). */
static int write_sweep_file(char *path, const char *text) {
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "  cannot create a temporary file from %s\n", path);
        if (fd >= 0) close(fd);
        return 0;
    }
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

KB_TEST(sweep_file_lines_and_comments) {
    char path[] = "/tmp/kb_test_sweep_XXXXXX";
    KB_EXPECT(write_sweep_file(
        path, "# a comment line\nn=1 interp=nearest\n\n  n=[2,3]   # trailing comment\n"));
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_sweep(&kb_op_preprocess, path, NULL, 0, &list, &e) == KB_OK);
    KB_EXPECT(list.count == 3);
    kb_case_list_free(&list);
    remove(path);
}

KB_TEST(sweep_file_error_names_the_file_line_and_setting) {
    char path[] = "/tmp/kb_test_sweep_XXXXXX";
    KB_EXPECT(write_sweep_file(path, "n=1\nn=oops\n"));
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_sweep(&kb_op_preprocess, path, NULL, 0, &list, &e) == KB_ERR);
    char want[64];
    snprintf(want, sizeof want, "%s:2: n=oops", path);
    KB_EXPECT_STR_CONTAINS(e.msg, want);
    kb_case_list_free(&list);
    remove(path);
}
