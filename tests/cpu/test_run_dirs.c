/* test_run_dirs.c — --inputs and --dump are checked before the device is
 * touched (kb_runner_check_dirs): a missing or wrong folder, or inputs that
 * do not fit a case, are usage errors naming the option, the path and the
 * problem, never rows that fail one by one on the GPU.
 *   ./test_run_dirs [test_name]
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "deform_conv2d.h"
#include "run/runner.h"
#include "kbtest.h"
#include "nms.h"
#include "npy.h"
#include "topk.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *scratch_dir(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/kbench_test_run_dirs_XXXXXX");
    return mkdtemp(dir);
}

/* The inputs of op's case `line` written into dir, as --dump writes them. */
static void dump_inputs(const kb_op *op, const char *line, const char *dir) {
    kb_case_list list = {0};
    kb_error e;
    KB_EXPECT(kb_expand_line(op, line, NULL, 0, &list, &e) == KB_OK);
    kb_tensors in = {0}, out = {0};
    KB_EXPECT(op->describe(&list.cases[0], &in, &out, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&in, &e) == KB_OK);
    for (int i = 0; i < in.count; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.npy", dir, in.t[i].name);
        KB_EXPECT(kb_npy_write(path, &in.t[i], &e) == KB_OK);
    }
    kb_tensors_free_host(&in);
    kb_case_list_free(&list);
}

static void remove_inputs(const kb_op *op, const char *dir) {
    for (int i = 0; op->inputs[i]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.npy", dir, op->inputs[i]);
        remove(path);
    }
    rmdir(dir);
}

/* kb_runner_check_dirs on op's cases of `line`: its message, or "" when KB_OK. */
static const char *check(const kb_op *op, const char *line, const char *inputs, const char *dump) {
    static kb_error e;
    kb_case_list list = {0};
    KB_EXPECT(kb_expand_line(op, line, NULL, 0, &list, &e) == KB_OK);
    kb_run_opts o = {.inputs_dir = inputs, .dump_dir = dump};
    int rc = kb_runner_check_dirs(&o, &list, &e);
    kb_case_list_free(&list);
    return rc == KB_OK ? "" : e.msg;
}

KB_TEST(inputs_that_are_not_a_folder_are_named) {
    KB_EXPECT_STR_CONTAINS(check(&kb_op_nms, "n=5", "/nonexistent", NULL),
                           "--inputs /nonexistent: No such file or directory");
    KB_EXPECT_STR_CONTAINS(check(&kb_op_nms, "n=5", "/dev/null", NULL),
                           "--inputs /dev/null: not a directory");
}

KB_TEST(inputs_must_fit_every_case_of_the_sweep) {
    const char *dir = scratch_dir();
    dump_inputs(&kb_op_nms, "n=5", dir);
    KB_EXPECT(strcmp(check(&kb_op_nms, "n=5", dir, NULL), "") == 0);
    const char *msg = check(&kb_op_nms, "n=[5,6]", dir, NULL);
    KB_EXPECT_STR_CONTAINS(msg, "--inputs: case {n=6 ");
    KB_EXPECT_STR_CONTAINS(msg, "/boxes.npy: f32[5,4], but the case's boxes is f32[6,4]");
    remove_inputs(&kb_op_nms, dir);
}

KB_TEST(a_missing_input_file_is_named) {
    const char *dir = scratch_dir();
    dump_inputs(&kb_op_nms, "n=5", dir);
    char path[256];
    snprintf(path, sizeof path, "%s/scores.npy", dir);
    remove(path);
    KB_EXPECT_STR_CONTAINS(check(&kb_op_nms, "n=5", dir, NULL),
                           "/scores.npy: cannot open for reading: No such file");
    remove_inputs(&kb_op_nms, dir);
}

KB_TEST(index_values_are_checked_against_every_case_before_the_device) {
    /* all-zero offsets: the layout of 3 empty segments, not of 3 of 4 values */
    const char *dir = scratch_dir();
    dump_inputs(&kb_op_topk, "segments=0+0+0", dir);
    KB_EXPECT(strcmp(check(&kb_op_topk, "segments=0+0+0", dir, NULL), "") == 0);
    remove_inputs(&kb_op_topk, dir);
    dir = scratch_dir();
    dump_inputs(&kb_op_topk, "segments=3x4", dir);
    const char *msg = check(&kb_op_topk, "segments=3x4 k=[1,2]", dir, NULL);
    KB_EXPECT_STR_CONTAINS(msg, "--inputs ");
    KB_EXPECT_STR_CONTAINS(msg, ": case {segments=3x4 k=1 ");
    KB_EXPECT_STR_CONTAINS(msg, "}: offsets[1] = 0, expected 4: segment 0 of segments=3x4 holds 4 "
                                "values");
    remove_inputs(&kb_op_topk, dir);
}

KB_TEST(bf16_inputs_are_read_from_the_f32_files_dump_writes) {
    const char *dir = scratch_dir();
    const char *line = "n=1 c_in=4 c_out=4 h=5 w=5 dtype=bf16";
    dump_inputs(&kb_op_deform_conv2d, line, dir);
    KB_EXPECT(strcmp(check(&kb_op_deform_conv2d, line, dir, NULL), "") == 0);
    remove_inputs(&kb_op_deform_conv2d, dir);
}

KB_TEST(dump_folder_is_created_up_front_or_refused_by_name) {
    const char *dir = scratch_dir();
    char nested[128], file[128], under_file[160];
    snprintf(nested, sizeof nested, "%s/a/b", dir);
    KB_EXPECT(strcmp(check(&kb_op_nms, "n=5", NULL, nested), "") == 0);
    struct stat st;
    KB_EXPECT(stat(nested, &st) == 0 && S_ISDIR(st.st_mode));
    snprintf(file, sizeof file, "%s/file", dir);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    KB_EXPECT_STR_CONTAINS(check(&kb_op_nms, "n=5", NULL, file),
                           "/file: exists and is not a directory");
    snprintf(under_file, sizeof under_file, "%s/x", file);
    KB_EXPECT_STR_CONTAINS(check(&kb_op_nms, "n=5", NULL, under_file), "Not a directory");
    KB_EXPECT_STR_CONTAINS(check(&kb_op_nms, "n=5", NULL, "/proc/nope"),
                           "--dump /proc/nope: cannot create /proc/nope");
    remove(file);
    rmdir(nested);
    snprintf(nested, sizeof nested, "%s/a", dir);
    rmdir(nested);
    rmdir(dir);
}
