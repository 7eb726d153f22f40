/* Output files (harness/run/out_file.c): a run that ends before its first row
 * leaves FILE byte-identical (or absent), the first row puts the new file in
 * its place at once, and nothing is left beside it. */
#define _GNU_SOURCE
#include "run/out_file.h"
#include "kbtest.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/kbench-test-out-file-XXXXXX";

static void path_of(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The whole file, or "(absent)". */
static const char *read_text(const char *path) {
    static char buf[8192];
    FILE *f = fopen(path, "r");
    if (!f) return "(absent)";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Files in the folder other than those named FILE itself (temporaries). */
static int strays(void) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += strstr(de->d_name, ".kbench-tmp-") != NULL;
    if (d) closedir(d);
    return n;
}

static kb_meta meta(void) {
    kb_meta m;
    char *argv[] = {"kbench", "run", "nms"};
    kb_meta_init(&m, NULL, 3, argv);
    return m;
}

static kb_row row(const char *variant) {
    kb_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.op, sizeof r.op, "nms");
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.params, sizeof r.params, "n=1");
    r.deterministic = -1;
    return r;
}

KB_TEST(a_file_that_gets_no_row_is_left_byte_identical) {
    char p[512];
    path_of(p, sizeof p, "kept.csv");
    write_text(p, "old results\n");
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, p, KB_FMT_CSV, &e) == KB_OK);
    kb_meta m = meta();
    o.p.begin(&o.p, &m); /* the header goes to the temporary */
    KB_EXPECT(strcmp(read_text(p), "old results\n") == 0);
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
    KB_EXPECT(strcmp(read_text(p), "old results\n") == 0);
    KB_EXPECT(strays() == 0);
}

KB_TEST(a_new_file_that_gets_no_row_is_not_created) {
    char p[512];
    path_of(p, sizeof p, "never.jsonl");
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, p, KB_FMT_JSON, &e) == KB_OK);
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
    KB_EXPECT(access(p, F_OK) != 0);
    KB_EXPECT(strays() == 0);
}

KB_TEST(the_first_row_replaces_the_file_at_once) {
    char p[512];
    path_of(p, sizeof p, "replaced.csv");
    write_text(p, "old results\n");
    chmod(p, 0640);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, p, KB_FMT_CSV, &e) == KB_OK);
    kb_meta m = meta();
    o.p.begin(&o.p, &m);
    kb_row r = row("first");
    o.p.row(&o.p, &r);
    /* a run killed now keeps this row: it is in FILE, not in a temporary */
    KB_EXPECT_STR_CONTAINS(read_text(p), "\nnms,first,n=1,");
    KB_EXPECT(strstr(read_text(p), "old results") == NULL);
    KB_EXPECT(strays() == 0);
    r = row("second");
    o.p.row(&o.p, &r);
    KB_EXPECT_STR_CONTAINS(read_text(p), "\nnms,second,n=1,");
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
    KB_EXPECT_STR_CONTAINS(read_text(p), "op,variant,params,mode,status");
    struct stat st;
    KB_EXPECT(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640);
}

KB_TEST(a_missing_folder_is_an_error_naming_it) {
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, "/nonexistent-kbench/x.csv", KB_FMT_CSV, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "/nonexistent-kbench/x.csv: cannot create a file in its folder "
                                  "/nonexistent-kbench: No such file or directory");
}

KB_TEST(a_folder_is_not_an_output_file) {
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, dir, KB_FMT_CSV, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "is a folder");
}

KB_TEST(a_device_file_is_written_directly) {
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, "/dev/null", KB_FMT_CSV, &e) == KB_OK);
    KB_EXPECT(o.tmp[0] == '\0');
    kb_meta m = meta();
    o.p.begin(&o.p, &m);
    kb_row r = row("first");
    o.p.row(&o.p, &r);
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
}

KB_TEST(a_signal_before_the_first_row_removes_the_temporary) {
    char p[512];
    path_of(p, sizeof p, "signalled.csv");
    write_text(p, "old results\n");
    pid_t pid = fork();
    if (pid == 0) {
        kb_out_file o;
        kb_error e;
        kb_out_file_cleanup_on_signal();
        if (kb_out_file_open(&o, p, KB_FMT_CSV, &e) != KB_OK) _exit(2);
        kb_meta m = meta();
        o.p.begin(&o.p, &m);
        fflush(o.p.f);
        raise(SIGTERM);
        _exit(3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    KB_EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    KB_EXPECT(strcmp(read_text(p), "old results\n") == 0);
    KB_EXPECT(strays() == 0);
}

KB_TEST(output_formats_come_from_known_extensions_only) {
    kb_format f;
    KB_EXPECT(kb_format_from_path("a/b.jsonl", &f) == KB_OK && f == KB_FMT_JSON);
    KB_EXPECT(kb_format_from_path("b.txt", &f) == KB_OK && f == KB_FMT_TABLE);
    KB_EXPECT(kb_format_from_path("x.xlsx", &f) == KB_ERR);
    KB_EXPECT(kb_format_from_path("results", &f) == KB_ERR);
    KB_EXPECT(kb_format_from_path("v1.2/results", &f) == KB_ERR);
}

__attribute__((constructor)) static void make_dir(void) {
    if (!mkdtemp(dir)) perror("mkdtemp");
}

__attribute__((destructor)) static void remove_dir(void) {
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        char p[512];
        if (de->d_name[0] == '.') continue;
        path_of(p, sizeof p, de->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(dir);
}
