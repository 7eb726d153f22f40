/* dump.c — --dump DIR: each case's inputs, reference and variants' outputs
 * as .npy files, and its case.txt, under DIR/case<k>/ (README "Dumped
 * tensors").
 *
 * A dump folder outlives runs and may be shared, so what lies under it is
 * not trusted: a symbolic link planted where a case folder or a file goes
 * would make an open() by name write wherever it points. So the case folder
 * is opened with O_NOFOLLOW, and each file is created exclusively beside its
 * name (O_EXCL | O_NOFOLLOW, relative to that folder's descriptor, as -o
 * creates its temporaries) and renamed onto the name once whole: rename()
 * replaces a link (or a hard link's name) rather than writing through it,
 * and a reader never sees half a tensor. An existing link is refused by
 * name instead of replaced: someone put it there, and deleting it would be
 * no less a surprise than following it.
 */
#define _POSIX_C_SOURCE 200809L /* openat, mkdirat, renameat */
#include "dump.h"

#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int link_refused(const char *path, kb_error *e) {
    return kb_fail(
        e, "%s is a symbolic link (not followed: remove it, or dump into another folder)", path);
}

/* DIR/case<k> (its path in path), made when missing and opened without
 * following a link: a descriptor, or -1 with e set. */
static int open_case_dir(const char *dir, int k, char *path, size_t n, kb_error *e) {
    char name[32];
    snprintf(name, sizeof name, "case%d", k);
    snprintf(path, n, "%s/%s", dir, name);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        kb_fail(e, "cannot open %s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    int fd = -1;
    if (mkdirat(dfd, name, 0777) != 0 && errno != EEXIST)
        kb_fail(e, "cannot create %s: %s", path, strerror(errno));
    else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        link_refused(path, e);
    else if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 &&
             errno == ELOOP)
        link_refused(path, e); /* planted since the look */
    else if (fd < 0)
        kb_fail(e, "cannot open %s: %s", path, strerror(errno));
    close(dfd);
    return fd;
}

typedef int (*write_fn)(FILE *f, const char *path, const void *what, kb_error *e);

/* The file `name` of the case folder cfd (at folder), written by put. */
static int write_file(int cfd, const char *folder, const char *name, write_fn put, const void *what,
                      kb_error *e) {
    char path[2300], tmp[256];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    struct stat st;
    if (fstatat(cfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return link_refused(path, e);
    int fd = -1;
    for (int i = 0; i < 100 && fd < 0; i++) {
        snprintf(tmp, sizeof tmp, ".%.100s.kbench-tmp-%ld-%d", name, (long)getpid(), i);
        fd = openat(cfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return kb_fail(e, "cannot create a file in %s: %s", folder, strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int err = errno;
        close(fd);
        unlinkat(cfd, tmp, 0);
        return kb_fail(e, "cannot write %s: %s", path, strerror(err));
    }
    int rc = put(f, path, what, e);
    if (fclose(f) != 0 && rc == KB_OK)
        rc = kb_fail(e, "%s: write failed: %s", path, strerror(errno));
    if (rc == KB_OK && renameat(cfd, tmp, cfd, name) != 0)
        rc = kb_fail(e, "cannot write %s: %s", path, strerror(errno));
    if (rc != KB_OK) unlinkat(cfd, tmp, 0);
    return rc;
}

static int put_npy(FILE *f, const char *path, const void *t, kb_error *e) {
    return kb_npy_write_stream(f, path, t, e);
}

typedef struct case_txt {
    const char *params;
    const kb_tensors *sets[2]; /* inputs, outputs */
} case_txt;

static int put_case_txt(FILE *f, const char *path, const void *what, kb_error *e) {
    const case_txt *c = what;
    fprintf(f, "%s\n", c->params);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < c->sets[s]->count; i++) {
            const kb_tensor *t = &c->sets[s]->t[i];
            char shape[200];
            kb_tensor_shape_text(t, shape, sizeof shape);
            fprintf(f, "%s %s %s%s\n", s ? "output" : "input", t->name, shape,
                    t->dtype == KB_BF16 ? " stored as f32 (every value exactly a bf16)" : "");
        }
    if (fflush(f) != 0 || ferror(f)) return kb_fail(e, "%s: write failed", path);
    return KB_OK;
}

int kb_dump_case_txt(const char *dir, int k, const char *params, const kb_tensors *in,
                     const kb_tensors *out, kb_error *e) {
    char folder[2048];
    int cfd = open_case_dir(dir, k, folder, sizeof folder, e);
    if (cfd < 0) return KB_ERR;
    const case_txt c = {params, {in, out}};
    int rc = write_file(cfd, folder, "case.txt", put_case_txt, &c, e);
    close(cfd);
    return rc;
}

int kb_dump_tensors(const char *dir, int k, const char *prefix, const kb_tensors *ts, kb_error *e) {
    char folder[2048];
    int cfd = open_case_dir(dir, k, folder, sizeof folder, e);
    if (cfd < 0) return KB_ERR;
    int rc = KB_OK;
    for (int i = 0; i < ts->count && rc == KB_OK; i++) {
        char name[200];
        snprintf(name, sizeof name, "%s%s%s.npy", prefix ? prefix : "", prefix ? "." : "",
                 ts->t[i].name);
        rc = write_file(cfd, folder, name, put_npy, &ts->t[i], e);
    }
    close(cfd);
    return rc;
}
