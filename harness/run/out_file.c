/* out_file.c — output files that a failed run leaves as they were.
 *
 * A run can end before its first row for many reasons (no device, no driver,
 * a worker that cannot start, Ctrl-C during the peaks' measurement), and
 * opening FILE for writing up front would empty it in every one of them. So
 * each file is written to FILE.kbench-tmp-PID in FILE's folder (the same file
 * system, so rename() is atomic) and renamed onto FILE right after its first
 * row is flushed: FILE is either what it was, or the new header with at least
 * one row. Later rows go into FILE directly (the stream follows the renamed
 * inode), each flushed as it completes. A file written whole (kbench merge)
 * is renamed once its last byte is written. One writer at a time: a lock
 * file beside FILE (take_lock says why there). A temporary that a killed run
 * left (SIGKILL: no handler ran) is found, and removed only when provably
 * stale, by the next run on FILE (stale_temporaries).
 */
#define _POSIX_C_SOURCE 200809L
#include "out_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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
        for (int i = 0; i < KB_MAX_PRINTERS; i++) {
            if (open_files[i] && open_files[i]->tmp[0]) unlink(open_files[i]->tmp);
            if (open_files[i] && open_files[i]->lock[0]) unlink(open_files[i]->lock);
        }
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

/* ---- paths ---- */

static void folder_of(const char *path, char *dir, size_t n) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

kb_out_failure kb_out_failure_of(int err) {
    switch (err) {
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case ENOSPC:
    case EDQUOT:
    case EIO:
    case ENOBUFS:
    case EAGAIN:
        return KB_OUT_RESOURCES;
    default:
        return KB_OUT_PATH;
    }
}

/* o->target: where path leads through symbolic links at its last name
 * (folders on the way are the kernel's to follow), which may not exist yet:
 * renaming onto the link would replace the link, not the file it names. */
static int resolve_target(kb_out_file *o, kb_error *e) {
    char cur[1024], to[1024], dir[1024];
    snprintf(cur, sizeof cur, "%s", o->path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            snprintf(o->target, sizeof o->target, "%s", cur);
            return KB_OK;
        }
        ssize_t n = readlink(cur, to, sizeof to - 1);
        if (n < 0 || n >= (ssize_t)sizeof to - 1)
            return kb_fail(e, "%s: cannot read the symbolic link %s: %s", o->path, cur,
                           n < 0 ? strerror(errno) : "its target is too long");
        to[n] = '\0';
        folder_of(cur, dir, sizeof dir);
        int len = to[0] == '/' ? snprintf(cur, sizeof cur, "%s", to)
                               : snprintf(cur, sizeof cur, "%s/%s", dir, to);
        if (len >= (int)sizeof cur) return kb_fail(e, "%s: its link's target is too long", o->path);
    }
    return kb_fail(e, "%s: %s", o->path, strerror(ELOOP));
}

/* ---- the lock ---- */

static void drop_lock(kb_out_file *o) {
    if (o->lock_fd < 0) return;
    /* Removed while still held: a run that opened it meanwhile finds the name gone. */
    if (o->lock[0]) unlink(o->lock);
    close(o->lock_fd); /* the lock goes with the descriptor */
    o->lock_fd = -1;
    o->lock[0] = '\0';
}

/* One writer at a time. Two runs writing one FILE at once would each rename
 * their temporary onto it, and the rows of the first would be lost without a
 * word. What to lock: not FILE, which may not exist yet, and whose inode the
 * rename replaces (a lock on the old one guards nothing); not the folder,
 * which would refuse two runs writing two files of it. A lock file beside
 * the target, FILE.kbench-lock, locked with fcntl (POSIX record locks: the
 * kernel says who holds one, so the refusal names the holder's pid, and
 * they work over NFS where flock may not). It is removed when the file
 * closes; a run that took it after its holder removed it finds the name no
 * longer its inode and takes it again. A killed run's lock dies with it;
 * the empty file it leaves is taken and removed by the next run.
 *
 * The lock on o->target.kbench-lock, or KB_OUT_BUSY naming who holds it. A
 * file system without locks (ENOLCK) is said on stderr, and the run goes on
 * unguarded rather than not at all. */
static int take_lock(kb_out_file *o, kb_error *e) {
    char lock[sizeof o->lock];
    if (snprintf(lock, sizeof lock, "%s.kbench-lock", o->target) >= (int)sizeof lock)
        return kb_fail(e, "%.200s...: path too long", o->path);
    /* POSIX locks never conflict within one process: a second open of the
     * same lock here would take it again, and closing it would drop both. */
    struct stat st;
    for (int i = 0; i < KB_MAX_PRINTERS && lstat(lock, &st) == 0; i++) {
        const kb_out_file *other = open_files[i];
        struct stat ost;
        if (other && other->lock_fd >= 0 && fstat(other->lock_fd, &ost) == 0 &&
            ost.st_dev == st.st_dev && ost.st_ino == st.st_ino)
            return kb_fail(e, "%s: the same file as %s, which this run writes already", o->path,
                           other->path);
    }
    for (int tries = 0; tries < 100; tries++) {
        /* O_NOFOLLOW: never a link planted under the lock's name */
        int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int err = errno;
            char dir[1024];
            folder_of(o->target, dir, sizeof dir);
            o->failure = kb_out_failure_of(err);
            if (lstat(lock, &st) == 0) /* there, but not ours to open (another user's) */
                return kb_fail(e, "%s: cannot open its lock %s: %s", o->path, lock, strerror(err));
            /* the first file made in the folder: said as open_tmp would */
            return kb_fail(e, "%s: cannot create a file in its folder %s: %s", o->path, dir,
                           strerror(err));
        }
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int err = errno;
            if (err == EACCES || err == EAGAIN) {
                struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
                int asked = fcntl(fd, F_GETLK, &who);
                close(fd);
                if (asked == 0 && who.l_type == F_UNLCK) continue; /* let go meanwhile */
                o->failure = KB_OUT_BUSY;
                if (asked == 0 && who.l_pid > 0)
                    return kb_fail(e,
                                   "%s: another process is writing it: pid %ld holds its lock %s "
                                   "(two writers of one file lose rows; wait for it to end, or "
                                   "write another file)",
                                   o->path, (long)who.l_pid, lock);
                return kb_fail(e,
                               "%s: another process is writing it (of another host or container: "
                               "its lock %s is held; wait for it to end, or write another file)",
                               o->path, lock);
            }
            close(fd);
            if (err != ENOLCK && err != EINVAL && err != EOPNOTSUPP) {
                o->failure = kb_out_failure_of(err);
                return kb_fail(e, "%s: cannot lock %s: %s", o->path, lock, strerror(err));
            }
            fprintf(stderr,
                    "kbench: %s: cannot lock %s (%s): a second run writing this file at once "
                    "would not be refused\n",
                    o->path, lock, strerror(err));
            return KB_OK;
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && lstat(lock, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            o->lock_fd = fd;
            snprintf(o->lock, sizeof o->lock, "%s", lock);
            return KB_OK;
        }
        close(fd); /* its holder removed it after we opened it: take the new one */
    }
    o->failure = KB_OUT_BUSY;
    return kb_fail(e, "%s: its lock %s changes hands too fast to take", o->path, lock);
}

/* ---- temporaries that killed runs left ---- */

/* The pid in a temporary's name after "FILE.kbench-tmp-": digits, or
 * digits-digits (open_tmp's names); 0 for anything else. */
static long tmp_pid(const char *suffix) {
    char *end;
    if (*suffix < '0' || *suffix > '9') return 0;
    long pid = strtol(suffix, &end, 10);
    if (*end == '-' && end[1] >= '0' && end[1] <= '9') strtol(end + 1, &end, 10);
    return *end == '\0' && pid > 0 ? pid : 0;
}

/* A line of TMP that holds no result: what a printer writes before its first
 * row. CSV: '#' lines and a column header (FILE's own lines are matched by
 * the caller); JSON lines: the metadata line; Markdown and the text table: a
 * row's table opens with an empty line, the metadata has none. */
static int header_line(kb_format fmt, const char *line) {
    switch (fmt) {
    case KB_FMT_CSV:
        return line[0] == '#' || strncmp(line, "op,", 3) == 0;
    case KB_FMT_JSON:
        return strncmp(line, "{\"meta\":", 8) == 0;
    default:
        return line[0] != '\n' && line[0] != '\r';
    }
}

/* 1 when tmp holds no row that file lacks: every line a header line, or (a
 * CSV: the --resume copy) a line of file, in file's order. A last line that
 * a kill cut short may be the start of file's line. */
static int holds_nothing_new(const char *tmp, const char *file, kb_format fmt) {
    FILE *t = fopen(tmp, "r"), *f = fmt == KB_FMT_CSV ? fopen(file, "r") : NULL;
    if (!t) {
        if (f) fclose(f);
        return 0;
    }
    char *line = NULL, *fline = NULL;
    size_t cap = 0, fcap = 0;
    ssize_t n, fn = 0;
    int nothing = 1;
    while (nothing && (n = getline(&line, &cap, t)) > 0) {
        if (header_line(fmt, line)) continue;
        nothing = 0;
        while (f && !nothing && (fn = getline(&fline, &fcap, f)) > 0)
            nothing = line[n - 1] == '\n' ? fn == n && memcmp(line, fline, (size_t)n) == 0
                                          : fn >= n && memcmp(line, fline, (size_t)n) == 0;
    }
    nothing = nothing && !ferror(t);
    free(line);
    free(fline);
    fclose(t);
    if (f) fclose(f);
    return nothing;
}

/* Every FILE.kbench-tmp-PID[-K] beside o->target, named on stderr. One is
 * kbench's own stale temporary, and removed, only when all of these hold:
 * this run holds FILE's lock (no kbench writes FILE now), no process PID
 * runs (on this host), it is a regular file (not a link) of this user, and
 * it holds nothing FILE lacks (a run killed before its first row). Anything
 * else is left for the user: a temporary kept with rows when its rename
 * failed, or one another host's run may still be writing. */
static void stale_temporaries(const kb_out_file *o) {
    char dir[1024], prefix[1100], tmp[2200];
    folder_of(o->target, dir, sizeof dir);
    const char *slash = strrchr(o->target, '/');
    int n = snprintf(prefix, sizeof prefix, "%s.kbench-tmp-", slash ? slash + 1 : o->target);
    kb_format fmt;
    if (kb_format_from_path(o->target, &fmt) != KB_OK) fmt = KB_FMT_CSV;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strncmp(de->d_name, prefix, (size_t)n) != 0) continue;
        long pid = tmp_pid(de->d_name + n);
        if (!pid) continue;
        snprintf(tmp, sizeof tmp, "%s/%s", dir, de->d_name);
        struct stat st;
        const char *kept = NULL;
        if (o->lock_fd < 0)
            kept = "without the lock, this run cannot tell that no run is writing it";
        else if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            kept = "a process of its pid is running";
        else if (lstat(tmp, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            kept = "not a regular file of this user";
        else if (!holds_nothing_new(tmp, o->target, fmt))
            kept = "it holds rows that the file lacks";
        if (!kept && unlink(tmp) == 0)
            fprintf(stderr,
                    "kbench: %s: removed a temporary that a killed run (pid %ld) left, before its "
                    "first row: it held nothing %s lacks\n",
                    tmp, pid, o->path);
        else
            fprintf(stderr,
                    "kbench: warning: %s: a temporary that another run (pid %ld) left beside %s: "
                    "left as it is (%s); look at it, then remove it\n",
                    tmp, pid, o->path, kept ? kept : strerror(errno));
    }
    if (d) closedir(d);
}

/* ---- the file ---- */

/* The first row is on disk: the temporary becomes FILE. */
static void commit_row(kb_printer *p, const kb_row *r) {
    kb_out_file *o = (kb_out_file *)p;
    o->format_row(p, r);
    if (o->failed) return;
    if (fflush(p->f) != 0 || ferror(p->f)) {
        int err = errno;
        o->failed = 1;
        if (o->tmp[0]) { /* a full disk before the first row: FILE stays as it was */
            kb_fail(&o->err, "%s: write error: %s (the file is as it was)", o->path, strerror(err));
            unlink(o->tmp);
            o->tmp[0] = '\0';
        } else {
            kb_fail(&o->err, "%s: write error: %s", o->path, strerror(err));
        }
        return;
    }
    if (!o->tmp[0]) return;
    if (rename(o->tmp, o->target) != 0) {
        o->failed = 1;
        kb_fail(&o->err, "cannot rename %s onto %s: %s (its rows are in %s)", o->tmp, o->target,
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
            snprintf(o->tmp, sizeof o->tmp, "%s.kbench-tmp-%ld", o->target, (long)getpid());
        else
            snprintf(o->tmp, sizeof o->tmp, "%s.kbench-tmp-%ld-%d", o->target, (long)getpid(), k);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        char dir[1024];
        folder_of(o->target, dir, sizeof dir);
        int err = errno;
        o->tmp[0] = '\0';
        o->failure = kb_out_failure_of(err);
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
        o->failure = kb_out_failure_of(err);
        return kb_fail(e, "%s: %s", o->path, strerror(err));
    }
    o->p.f = f;
    return KB_OK;
}

/* The temporary (or, for a path that is not a regular file, the path
 * itself) opened for writing, in o->p.f, with the lock held. */
static int open_stream(kb_out_file *o, const char *path, kb_error *e) {
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    o->failure = KB_OUT_PATH;
    if (strlen(path) >= sizeof o->path) return kb_fail(e, "%.200s...: path too long", path);
    snprintf(o->path, sizeof o->path, "%s", path);
    if (resolve_target(o, e) != KB_OK) return KB_ERR;
    struct stat st;
    int exists = stat(o->target, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return kb_fail(e, "%s: is a folder", path);
    if (exists && !S_ISREG(st.st_mode)) {
        o->p.f = fopen(o->target, "w");
        if (!o->p.f) {
            int err = errno;
            o->failure = kb_out_failure_of(err);
            return kb_fail(e, "%s: %s", path, strerror(err));
        }
        return KB_OK;
    }
    if (take_lock(o, e) != KB_OK) return KB_ERR;
    stale_temporaries(o);
    /* FILE as it is now that no other run writes it */
    exists = stat(o->target, &st) == 0;
    if (open_tmp(o, exists ? &st : NULL, e) != KB_OK) {
        drop_lock(o);
        return KB_ERR;
    }
    return KB_OK;
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
    drop_lock(o);
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
    else if (keep && o->tmp[0] && rename(o->tmp, o->target) != 0)
        rc = kb_fail(e, "cannot rename %s onto %s: %s", o->tmp, o->target, strerror(errno));
    if (o->tmp[0] && (!keep || rc != KB_OK)) unlink(o->tmp);
    o->tmp[0] = '\0';
    drop_lock(o);
    track(o, 0);
    return rc;
}
