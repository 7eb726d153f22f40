/* out_file.c — output files that a failed run leaves as they were.
 *
 * A run can end before its first row for many reasons (no device, no driver,
 * a worker that cannot start, Ctrl-C during the peaks' measurement). Opening
 * FILE for writing up front would empty a results file in every one of those
 * cases. So each file is written to FILE.kbench-tmp-PID in FILE's folder (the
 * same file system, so rename() is atomic) and renamed onto FILE right after
 * its first row is flushed: FILE is either what it was, or the new header
 * with at least one row. Rows after the first go into FILE directly (the
 * stream follows the renamed inode), each flushed as it completes. A file
 * written whole (kbench merge) is renamed once its last byte is written.
 */
#define _POSIX_C_SOURCE 200809L
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- temporaries to remove if a signal ends the run before their first row ---- */

static kb_out_file *open_files[KB_MAX_PRINTERS];
static pid_t owner; /* forked workers inherit the handler, not the files */

static void track(kb_out_file *o, int on) {
    for (int i = 0; i < KB_MAX_PRINTERS; i++)
        if (on ? !open_files[i] : open_files[i] == o) {
            open_files[i] = on ? o : NULL;
            return;
        }
}

static void on_signal(int sig) {
    if (getpid() == owner)
        for (int i = 0; i < KB_MAX_PRINTERS; i++)
            if (open_files[i] && open_files[i]->tmp[0]) unlink(open_files[i]->tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

void kb_out_file_cleanup_on_signal(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    owner = getpid();
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        /* A signal the caller ignores (nohup) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- the file ---- */

static void folder_of(const char *path, char *dir, size_t n) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* The first row is on disk: the temporary becomes FILE. */
static void commit_row(kb_printer *p, const kb_row *r) {
    kb_out_file *o = (kb_out_file *)p;
    o->format_row(p, r);
    if (o->failed) return;
    if (fflush(p->f) != 0 || ferror(p->f)) {
        o->failed = 1;
        kb_fail(&o->err, "%s: write error: %s", o->tmp[0] ? o->tmp : o->path, strerror(errno));
        return;
    }
    if (!o->tmp[0]) return;
    if (rename(o->tmp, o->path) != 0) {
        o->failed = 1;
        kb_fail(&o->err, "cannot rename %s onto %s: %s (its rows are in %s)", o->tmp, o->path,
                strerror(errno), o->tmp);
        return;
    }
    o->tmp[0] = '\0';
}

static int open_tmp(kb_out_file *o, const struct stat *old, kb_error *e) {
    int fd = -1;
    /* O_EXCL: never follow a link planted under the temporary's name. */
    for (int k = 0; k < 100 && fd < 0; k++) {
        if (k == 0)
            snprintf(o->tmp, sizeof o->tmp, "%s.kbench-tmp-%ld", o->path, (long)getpid());
        else
            snprintf(o->tmp, sizeof o->tmp, "%s.kbench-tmp-%ld-%d", o->path, (long)getpid(), k);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        char dir[1024];
        folder_of(o->path, dir, sizeof dir);
        int err = errno;
        o->tmp[0] = '\0';
        return kb_fail(e, "%s: cannot create a file in its folder %s: %s", o->path, dir,
                       strerror(err));
    }
    if (old) fchmod(fd, old->st_mode & 07777); /* replacing FILE keeps who may read it */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return kb_fail(e, "%s: %s", o->path, strerror(err));
    }
    o->p.f = f;
    return KB_OK;
}

/* The temporary (or, for a path that is not a regular file, the path
 * itself) opened for writing, in o->p.f. */
static int open_stream(kb_out_file *o, const char *path, kb_error *e) {
    memset(o, 0, sizeof *o);
    if (strlen(path) >= sizeof o->path) return kb_fail(e, "%.200s...: path too long", path);
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return kb_fail(e, "%s: is a folder", path);
    if (exists && !S_ISREG(st.st_mode)) {
        o->p.f = fopen(path, "w");
        if (!o->p.f) return kb_fail(e, "%s: %s", path, strerror(errno));
        return KB_OK;
    }
    return open_tmp(o, exists ? &st : NULL, e);
}

int kb_out_file_open(kb_out_file *o, const char *path, kb_format fmt, kb_error *e) {
    if (open_stream(o, path, e) != KB_OK) return KB_ERR;
    kb_printer_init(&o->p, fmt, o->p.f);
    o->format_row = o->p.row;
    o->p.row = commit_row;
    track(o, 1);
    return KB_OK;
}

int kb_out_file_close(kb_out_file *o, kb_error *e) {
    if (!o->p.f) return KB_OK;
    int rows = !o->tmp[0] || o->failed; /* FILE has rows, or the temporary keeps them */
    if (rows) o->p.end(&o->p);
    int bad = ferror(o->p.f);
    if (fclose(o->p.f) != 0) bad = 1;
    o->p.f = NULL;
    if (bad && rows && !o->failed) {
        o->failed = 1;
        kb_fail(&o->err, "%s: write error: %s", o->path, strerror(errno));
    }
    if (o->tmp[0] && !o->failed) unlink(o->tmp); /* no row: FILE is as it was */
    track(o, 0);
    if (o->failed) {
        *e = o->err;
        return KB_ERR;
    }
    return KB_OK;
}

int kb_out_file_keep_empty(kb_out_file *o, kb_error *e) {
    if (!o->p.f || !o->tmp[0] || o->failed) return KB_OK;
    if (fflush(o->p.f) != 0 || ferror(o->p.f))
        return kb_fail(e, "%s: write error: %s", o->tmp, strerror(errno));
    if (rename(o->tmp, o->path) != 0)
        return kb_fail(e, "cannot rename %s onto %s: %s", o->tmp, o->path, strerror(errno));
    o->tmp[0] = '\0';
    return KB_OK;
}

int kb_out_file_open_whole(kb_out_file *o, const char *path, kb_error *e) {
    if (open_stream(o, path, e) != KB_OK) return KB_ERR;
    track(o, 1);
    return KB_OK;
}

int kb_out_file_close_whole(kb_out_file *o, int keep, kb_error *e) {
    if (!o->p.f) return KB_OK;
    int bad = fflush(o->p.f) != 0 || ferror(o->p.f), err = errno;
    if (fclose(o->p.f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    o->p.f = NULL;
    int rc = KB_OK;
    if (keep && bad)
        rc = kb_fail(e, "%s: write error: %s", o->tmp[0] ? o->tmp : o->path, strerror(err));
    else if (keep && o->tmp[0] && rename(o->tmp, o->path) != 0)
        rc = kb_fail(e, "cannot rename %s onto %s: %s", o->tmp, o->path, strerror(errno));
    if (o->tmp[0] && (!keep || rc != KB_OK)) unlink(o->tmp);
    o->tmp[0] = '\0';
    track(o, 0);
    return rc;
}

/* mkdir -p; 0777 less the umask, as mkdir(1) makes folders. */
int kb_make_dirs(const char *dir, kb_error *e) {
    char path[2048];
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0') continue;
        *s = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return kb_fail(e, "cannot create %s: %s", path, strerror(errno));
        *s = c;
        if (!c) break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return kb_fail(e, "%s: not a folder", dir);
    return KB_OK;
}
