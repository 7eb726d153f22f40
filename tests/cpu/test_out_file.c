/* Output files (harness/run/out_file.c): a run that ends before its first row
 * leaves FILE byte-identical (or absent), the first row puts the new file in
 * its place at once, and nothing is left beside it; one writer at a time;
 * a killed run's temporary is named (and removed when provably stale); a
 * symbolic link is written through. */
#define _GNU_SOURCE
#include "run/out_file.h"
#include "kbtest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
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

/* Lock files (FILE.kbench-lock) in the folder. */
static int locks(void) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += strstr(de->d_name, ".kbench-lock") != NULL;
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
    KB_EXPECT(locks() == 0);
}

/* ---- one writer at a time ---- */

/* A child process that opens path as an output file and holds it until told
 * (write a byte to *go); *pid gets its pid, once it holds the file. */
static int hold_in_child(const char *path, pid_t *pid, int *go) {
    int ready[2], cont[2];
    if (pipe(ready) != 0 || pipe(cont) != 0) return KB_ERR;
    fflush(NULL);
    *pid = fork();
    if (*pid == 0) {
        kb_out_file o;
        kb_error e;
        char c = kb_out_file_open(&o, path, KB_FMT_CSV, &e) == KB_OK ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(cont[0], &c, 1) != 1) _exit(3);
        kb_out_file_close(&o, &e);
        _exit(0);
    }
    char c = 0;
    close(ready[1]);
    close(cont[0]);
    int ok = read(ready[0], &c, 1) == 1 && c == 'y';
    close(ready[0]);
    *go = cont[1];
    return ok ? KB_OK : KB_ERR;
}

static void release_child(pid_t pid, int go) {
    char c = 'g';
    if (write(go, &c, 1) != 1) kill(pid, SIGKILL);
    close(go);
    waitpid(pid, NULL, 0);
}

KB_TEST(a_second_writer_is_refused_naming_the_holders_pid_and_touches_nothing) {
    char p[512], want[64];
    path_of(p, sizeof p, "busy.csv");
    write_text(p, "old results\n");
    pid_t holder;
    int go;
    KB_EXPECT(hold_in_child(p, &holder, &go) == KB_OK);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, p, KB_FMT_CSV, &e) == KB_ERR);
    KB_EXPECT(o.failure == KB_OUT_BUSY);
    snprintf(want, sizeof want, "pid %ld", (long)holder);
    KB_EXPECT_STR_CONTAINS(e.msg, want);
    KB_EXPECT_STR_CONTAINS(e.msg, "busy.csv");
    KB_EXPECT(strays() == 1); /* the holder's temporary only */
    release_child(holder, go);
    KB_EXPECT(strcmp(read_text(p), "old results\n") == 0);
    KB_EXPECT(strays() == 0 && locks() == 0); /* the holder's lock went with it */
    KB_EXPECT(kb_out_file_open(&o, p, KB_FMT_CSV, &e) == KB_OK); /* free again */
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
    KB_EXPECT(locks() == 0);
}

KB_TEST(a_new_file_is_locked_before_it_exists) {
    char p[512];
    path_of(p, sizeof p, "busy-new.csv");
    pid_t holder;
    int go;
    KB_EXPECT(hold_in_child(p, &holder, &go) == KB_OK);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open_whole(&o, p, &e) == KB_ERR && o.failure == KB_OUT_BUSY);
    release_child(holder, go);
    KB_EXPECT(access(p, F_OK) != 0);
}

KB_TEST(a_link_and_its_target_are_one_file_to_lock) {
    char p[512], link[512];
    path_of(p, sizeof p, "target.csv");
    path_of(link, sizeof link, "link-to-target.csv");
    write_text(p, "old results\n");
    KB_EXPECT(symlink("target.csv", link) == 0);
    pid_t holder;
    int go;
    KB_EXPECT(hold_in_child(p, &holder, &go) == KB_OK);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, link, KB_FMT_CSV, &e) == KB_ERR && o.failure == KB_OUT_BUSY);
    release_child(holder, go);
    unlink(link);
}

/* ---- symbolic links are written through ---- */

KB_TEST(a_link_is_written_through_to_its_target_and_stays_a_link) {
    char p[512], link[512];
    path_of(p, sizeof p, "real.csv");
    path_of(link, sizeof link, "via-link.csv");
    write_text(p, "old results\n");
    KB_EXPECT(symlink("real.csv", link) == 0);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, link, KB_FMT_CSV, &e) == KB_OK);
    kb_meta m = meta();
    o.p.begin(&o.p, &m);
    kb_row r = row("first");
    o.p.row(&o.p, &r);
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
    struct stat st;
    KB_EXPECT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    KB_EXPECT_STR_CONTAINS(read_text(p), "\nnms,first,n=1,");
    KB_EXPECT(strays() == 0 && locks() == 0);
    unlink(link);
}

KB_TEST(a_dangling_link_gets_its_target_made) {
    char p[512], link[512];
    path_of(p, sizeof p, "made-by-link.csv");
    path_of(link, sizeof link, "dangling.csv");
    KB_EXPECT(symlink("made-by-link.csv", link) == 0);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, link, KB_FMT_CSV, &e) == KB_OK);
    kb_meta m = meta();
    o.p.begin(&o.p, &m);
    kb_row r = row("first");
    o.p.row(&o.p, &r);
    KB_EXPECT(kb_out_file_close(&o, &e) == KB_OK);
    struct stat st;
    KB_EXPECT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    KB_EXPECT_STR_CONTAINS(read_text(p), "\nnms,first,n=1,");
    unlink(link);
}

/* ---- a full disk, too few descriptors ---- */

KB_TEST(a_full_disk_before_the_first_row_leaves_no_temporary) {
    char p[512];
    path_of(p, sizeof p, "full.csv");
    write_text(p, "old results\n");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) { /* a file-size limit stands in for the full disk: EFBIG, not SIGXFSZ */
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {64, 64};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(9);
        kb_out_file o;
        kb_error e;
        if (kb_out_file_open(&o, p, KB_FMT_CSV, &e) != KB_OK) _exit(2);
        kb_meta m = meta();
        o.p.begin(&o.p, &m); /* more than 64 bytes */
        kb_row r = row("first");
        o.p.row(&o.p, &r);
        int rc = kb_out_file_close(&o, &e);
        _exit(rc == KB_ERR && strstr(e.msg, "write error") ? 0 : 3);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    KB_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    KB_EXPECT(strcmp(read_text(p), "old results\n") == 0);
    KB_EXPECT(strays() == 0 && locks() == 0);
}

KB_TEST(too_few_file_descriptors_is_a_resource_failure_not_the_paths) {
    char p[512];
    path_of(p, sizeof p, "fds.csv");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd;
        while ((fd = open("/dev/null", O_RDONLY)) >= 0) continue; /* every descriptor taken */
        kb_out_file o;
        kb_error e;
        int rc = kb_out_file_open(&o, p, KB_FMT_CSV, &e);
        _exit(rc == KB_ERR && o.failure == KB_OUT_RESOURCES ? 0 : 3);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    KB_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    KB_EXPECT(access(p, F_OK) != 0 && strays() == 0 && locks() == 0);
    kb_out_file o;
    kb_error e;
    KB_EXPECT(kb_out_file_open(&o, "/nonexistent-kbench/x.csv", KB_FMT_CSV, &e) == KB_ERR);
    KB_EXPECT(o.failure == KB_OUT_PATH);
}

/* ---- temporaries that a killed run left ---- */

/* stderr into a file while fn runs; the text, or "" */
static const char *stderr_of(void (*fn)(const char *), const char *arg) {
    static char text[8192];
    char log[512];
    path_of(log, sizeof log, "stderr.log");
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    snprintf(text, sizeof text, "%s", read_text(log));
    unlink(log);
    return text;
}

/* open and close path, as a run that makes no row */
static void open_close(const char *path) {
    kb_out_file o;
    kb_error e;
    if (kb_out_file_open(&o, path, KB_FMT_CSV, &e) != KB_OK) fprintf(stderr, "open: %s\n", e.msg);
    kb_out_file_close(&o, &e);
}

/* A pid that no process has now: a child's, once reaped. */
static pid_t dead_pid(void) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

KB_TEST(a_temporary_of_a_killed_run_is_named_and_removed) {
    char p[512], tmp[600];
    path_of(p, sizeof p, "killed.csv");
    write_text(p, "old results\n");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        kb_out_file o;
        kb_error e;
        if (kb_out_file_open(&o, p, KB_FMT_CSV, &e) != KB_OK) _exit(2);
        kb_meta m = meta();
        o.p.begin(&o.p, &m);
        fflush(o.p.f);
        raise(SIGKILL); /* no handler runs: the temporary stays */
    }
    waitpid(pid, NULL, 0);
    snprintf(tmp, sizeof tmp, "%s.kbench-tmp-%ld", p, (long)pid);
    KB_EXPECT(access(tmp, F_OK) == 0);
    const char *err = stderr_of(open_close, p);
    KB_EXPECT_STR_CONTAINS(err, tmp);
    KB_EXPECT_STR_CONTAINS(err, "removed");
    KB_EXPECT(access(tmp, F_OK) != 0);
    KB_EXPECT(strcmp(read_text(p), "old results\n") == 0);
    KB_EXPECT(strays() == 0 && locks() == 0);
}

KB_TEST(a_resumed_files_temporary_that_holds_only_the_files_lines_is_removed) {
    char p[512], tmp[600];
    path_of(p, sizeof p, "resumed.csv");
    write_text(p, "# kbench x\nop,variant\nnms,a\nnms,b\n");
    snprintf(tmp, sizeof tmp, "%s.kbench-tmp-%ld", p, (long)dead_pid());
    write_text(tmp, "# kbench x\nop,variant\nnms,a\nnms,b\n# resumed: kbench y\n");
    KB_EXPECT_STR_CONTAINS(stderr_of(open_close, p), "removed");
    KB_EXPECT(access(tmp, F_OK) != 0);
}

/* open and close path as a JSON lines file, as a run that makes no row */
static void open_close_json(const char *path) {
    kb_out_file o;
    kb_error e;
    if (kb_out_file_open(&o, path, KB_FMT_JSON, &e) != KB_OK) fprintf(stderr, "open: %s\n", e.msg);
    kb_out_file_close(&o, &e);
}

KB_TEST(a_json_temporary_is_removed_with_its_metadata_alone_and_kept_with_a_row) {
    char p[512], tmp[600];
    path_of(p, sizeof p, "killed.jsonl");
    snprintf(tmp, sizeof tmp, "%s.kbench-tmp-%ld", p, (long)dead_pid());
    write_text(tmp, "{\"meta\":{\"kbench_commit\":\"x\"}}\n");
    KB_EXPECT_STR_CONTAINS(stderr_of(open_close_json, p), "removed");
    KB_EXPECT(access(tmp, F_OK) != 0);
    write_text(tmp, "{\"meta\":{\"kbench_commit\":\"x\"}}\n{\"op\":\"nms\"}\n");
    KB_EXPECT_STR_CONTAINS(stderr_of(open_close_json, p), "left as it is");
    KB_EXPECT(access(tmp, F_OK) == 0);
    unlink(tmp);
}

KB_TEST(a_temporary_that_holds_a_row_the_file_lacks_is_named_and_kept) {
    char p[512], tmp[600];
    path_of(p, sizeof p, "kept-rows.csv");
    write_text(p, "old results\n");
    snprintf(tmp, sizeof tmp, "%s.kbench-tmp-%ld", p, (long)dead_pid());
    write_text(tmp, "# kbench x\nop,variant\nnms,first\n"); /* a rename that failed */
    const char *err = stderr_of(open_close, p);
    KB_EXPECT_STR_CONTAINS(err, tmp);
    KB_EXPECT_STR_CONTAINS(err, "left as it is");
    KB_EXPECT(strcmp(read_text(tmp), "# kbench x\nop,variant\nnms,first\n") == 0);
    unlink(tmp);
}

KB_TEST(a_temporary_whose_process_runs_is_kept) {
    char p[512], tmp[600];
    path_of(p, sizeof p, "live.csv");
    snprintf(tmp, sizeof tmp, "%s.kbench-tmp-%ld", p, (long)getppid()); /* a live process */
    write_text(tmp, "# kbench x\n");
    KB_EXPECT_STR_CONTAINS(stderr_of(open_close, p), "left as it is");
    KB_EXPECT(access(tmp, F_OK) == 0);
    unlink(tmp);
}

KB_TEST(a_file_that_only_looks_like_a_temporary_is_not_touched) {
    char p[512], a[600], b[600];
    path_of(p, sizeof p, "look.csv");
    snprintf(a, sizeof a, "%s.kbench-tmp-notes", p);
    snprintf(b, sizeof b, "%s.kbench-tmp-%ldx", p, (long)dead_pid());
    write_text(a, "");
    write_text(b, "");
    KB_EXPECT(strcmp(stderr_of(open_close, p), "") == 0);
    KB_EXPECT(access(a, F_OK) == 0 && access(b, F_OK) == 0);
    unlink(a);
    unlink(b);
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
