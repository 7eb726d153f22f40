/* Sweep specs are data: lists, inclusive ranges, pow2, errors that name the
 * axis, and the cartesian expansion of sweep lines into validated cases. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, mkdtemp, chdir, getcwd */
#include "run/sweep.h"
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

/* ---- sweep files: what they must hold, and where their paths lead ---- */

/* A fresh folder under /tmp, for the files one test makes. */
static const char *scratch_dir(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/kbench_test_sweep_XXXXXX");
    return mkdtemp(dir);
}

static void write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    KB_EXPECT(f && fwrite(bytes, 1, n, f) == n);
    if (f) fclose(f);
}

/* The sweep of preprocess expanded from FILE: KB_ERR's message, or "" on success. */
static const char *expand_file_err(const char *path, kb_case_list *list) {
    static kb_error e;
    e.msg[0] = '\0';
    if (kb_expand_sweep(&kb_op_preprocess, path, NULL, 0, list, &e) == KB_OK) e.msg[0] = '\0';
    return e.msg;
}

KB_TEST(a_sweep_file_without_cases_is_an_error_naming_it) {
    const char *dir = scratch_dir();
    char empty[128], comments[128];
    snprintf(empty, sizeof empty, "%s/empty.txt", dir);
    snprintf(comments, sizeof comments, "%s/comments.txt", dir);
    write_file(empty, "", 0);
    write_file(comments, "# only a comment\n\n   # and another\n", 35);
    kb_case_list list = {0};
    KB_EXPECT_STR_CONTAINS(expand_file_err(empty, &list), "empty.txt: no cases: the file is empty");
    KB_EXPECT_STR_CONTAINS(expand_file_err(comments, &list),
                           "comments.txt: no cases: the file holds only comments");
    KB_EXPECT_STR_CONTAINS(expand_file_err("/dev/null", &list), "/dev/null: no cases");
    KB_EXPECT(list.count == 0);
    remove(empty);
    remove(comments);
    rmdir(dir);
}

KB_TEST(a_directory_as_sweep_file_is_named_a_directory) {
    kb_case_list list = {0};
    KB_EXPECT_STR_CONTAINS(expand_file_err("/tmp", &list), "--sweep /tmp: is a directory");
}

KB_TEST(a_sweep_file_with_a_nul_byte_is_a_binary_file) {
    const char *dir = scratch_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/bin.txt", dir);
    write_file(path, "n=1\nn=2\0junk\n", 13);
    kb_case_list list = {0};
    const char *msg = expand_file_err(path, &list);
    KB_EXPECT_STR_CONTAINS(msg, "bin.txt:2: a binary file");
    KB_EXPECT(!strstr(msg, "longer than"));
    kb_case_list_free(&list);
    remove(path);
    rmdir(dir);
}

/* Only the magic bytes are read before the run: 8 are an image to validation. */
static void write_png_magic(const char *path) {
    write_file(path, "\x89PNG\r\n\x1a\n", 8);
}

KB_TEST(a_relative_image_in_a_sweep_file_resolves_against_its_folder) {
    const char *dir = scratch_dir();
    char sweep[128], img[128], path[600];
    snprintf(sweep, sizeof sweep, "%s/s.txt", dir);
    snprintf(img, sizeof img, "%s/photo.png", dir);
    write_png_magic(img);
    write_file(sweep, "image=photo.png in_h=8 in_w=8\n", 30);
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_sweep(&kb_op_preprocess, sweep, NULL, 0, &list, &e) == KB_OK);
    KB_EXPECT(list.count == 1);
    if (list.count == 1) {
        KB_EXPECT(kb_case_path(&list.cases[0], "image", path, sizeof path, &e) == KB_OK);
        KB_EXPECT(strcmp(path, img) == 0);
        char params[1024];
        kb_case_format(&list.cases[0], params, sizeof params);
        KB_EXPECT_STR_CONTAINS(params, " image=photo.png"); /* the identity is the text */
    }
    kb_case_list_free(&list);
    /* one missing: the message says both places it looked */
    write_file(sweep, "image=none.png\n", 15);
    const char *msg = expand_file_err(sweep, &list);
    KB_EXPECT_STR_CONTAINS(msg, "image=none.png: cannot open: No such file or directory");
    KB_EXPECT_STR_CONTAINS(msg, "(looked for none.png and /tmp/kbench_test_sweep_");
    kb_case_list_free(&list);
    remove(sweep);
    remove(img);
    rmdir(dir);
}

KB_TEST(a_sweep_file_path_is_looked_for_in_the_working_directory_first) {
    const char *dir = scratch_dir(), *cwd_dir;
    char here[4096], sweep[128], img[128], cwd_img[160], path[600];
    KB_EXPECT(getcwd(here, sizeof here) != NULL);
    static char second[64];
    snprintf(second, sizeof second, "/tmp/kbench_test_cwd_XXXXXX");
    cwd_dir = mkdtemp(second);
    snprintf(sweep, sizeof sweep, "%s/s.txt", dir);
    snprintf(img, sizeof img, "%s/photo.png", dir);
    snprintf(cwd_img, sizeof cwd_img, "%s/photo.png", cwd_dir);
    write_png_magic(img);
    write_png_magic(cwd_img);
    write_file(sweep, "image=photo.png in_h=8 in_w=8\n", 30);
    KB_EXPECT(chdir(cwd_dir) == 0);
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_sweep(&kb_op_preprocess, sweep, NULL, 0, &list, &e) == KB_OK);
    KB_EXPECT(list.count == 1 &&
              kb_case_path(&list.cases[0], "image", path, sizeof path, &e) == KB_OK &&
              strcmp(path, "photo.png") == 0);
    KB_EXPECT(chdir(here) == 0);
    kb_case_list_free(&list);
    remove(sweep);
    remove(img);
    remove(cwd_img);
    rmdir(dir);
    rmdir(cwd_dir);
}

KB_TEST(an_image_given_with_dash_a_is_relative_to_the_working_directory_only) {
    const char *dir = scratch_dir();
    char sweep[128], img[128];
    snprintf(sweep, sizeof sweep, "%s/s.txt", dir);
    snprintf(img, sizeof img, "%s/photo.png", dir);
    write_png_magic(img);
    write_file(sweep, "in_h=8 in_w=8\n", 14);
    kb_spec o;
    kb_error e;
    KB_EXPECT(kb_spec_parse("image=photo.png", &o, &e) == KB_OK);
    kb_case_list list = {0};
    KB_EXPECT(kb_expand_sweep(&kb_op_preprocess, sweep, &o, 1, &list, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "image=photo.png: cannot open: No such file or directory");
    KB_EXPECT(!strstr(e.msg, "looked for")); /* the sweep file's folder is not the value's */
    kb_spec_free(&o);
    kb_case_list_free(&list);
    remove(sweep);
    remove(img);
    rmdir(dir);
}

KB_TEST(built_in_sweeps_find_their_images_from_any_working_directory) {
    char here[4096];
    KB_EXPECT(getcwd(here, sizeof here) != NULL);
    KB_EXPECT(chdir("/") == 0);
    kb_case_list list = {0};
    kb_error e = {""};
    int rc = kb_expand_sweep(&kb_op_preprocess, "smoke", NULL, 0, &list, &e);
    if (rc != KB_OK) fprintf(stderr, "  %s\n", e.msg);
    KB_EXPECT(rc == KB_OK);
    int with_image = 0;
    for (int i = 0; i < list.count; i++) {
        char path[600];
        if (strcmp(kb_str(&list.cases[i], "image"), "synthetic") == 0) continue;
        with_image++;
        KB_EXPECT(kb_case_path(&list.cases[i], "image", path, sizeof path, &e) == KB_OK &&
                  path[0] == '/');
    }
    KB_EXPECT(with_image > 0);
    KB_EXPECT(chdir(here) == 0);
    kb_case_list_free(&list);
}
