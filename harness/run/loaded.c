/* loaded.c — the table of variants from outside the tree (loaded.h), and the
 * C/CUDA plugins: the probe that learns a plugin's rows in a child process,
 * and the bind that loads it for real in the process that runs its pairs. */
#define _GNU_SOURCE
#include "loaded.h"

#include "measure.h" /* kb_now_s */
#include "sha256.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static kb_source sources[KB_MAX_SOURCES];
static int nsources;
static kb_loaded loaded[KB_MAX_LOADED];
static int nloaded;

int kb_sources_count(void) {
    return nsources;
}
const kb_source *kb_source_at(int i) {
    return &sources[i];
}
int kb_loaded_count(void) {
    return nloaded;
}
const kb_loaded *kb_loaded_at(int i) {
    return &loaded[i];
}

const kb_loaded *kb_loaded_of(const kb_variant *v) {
    const kb_loaded *l = (const kb_loaded *)(const void *)v;
    return l >= loaded && l < loaded + nloaded ? l : NULL;
}

int kb_variant_source_index(const kb_variant *v) {
    const kb_loaded *l = kb_loaded_of(v);
    return l ? l->source : -1;
}

const char *kb_variant_origin(const kb_variant *v) {
    const kb_loaded *l = kb_loaded_of(v);
    return l ? sources[l->source].label : "builtin";
}

void kb_variant_name_of_file(const char *path, char *out, size_t n) {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(out, n, "%.*s", (int)strcspn(base, "."), base);
    for (char *c = out; *c; c++)
        if (!kb_variant_name_ok((char[]){*c, 0})) *c = '_';
}

int kb_variant_name_ok(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > 63) return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return 0;
    return 1;
}

int kb_loaded_add_source(kb_source_kind kind, const char *path, kb_error *e) {
    if (nsources == KB_MAX_SOURCES)
        return kb_fail(e, "%s: at most %d plugin and Python files in one run", path,
                       KB_MAX_SOURCES);
    struct stat st;
    if (stat(path, &st) != 0) return kb_fail(e, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return kb_fail(e, "%s: not a regular file", path);
    char *abs = realpath(path, NULL);
    if (!abs) return kb_fail(e, "%s: %s", path, strerror(errno));
    kb_source *s = &sources[nsources];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    snprintf(s->path, sizeof s->path, "%s", abs);
    free(abs);
    const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
    for (int i = 0; i < nsources; i++)
        if (strcmp(sources[i].path, s->path) == 0)
            return kb_fail(e, "%s: given twice (as %s)", path, sources[i].path);
    snprintf(s->label, sizeof s->label, "%s:%s", kind == KB_SOURCE_PLUGIN ? "plugin" : "py", base);
    if (kb_sha256_file(s->path, s->sha256, e) != KB_OK) return KB_ERR;
    return nsources++;
}

kb_loaded *kb_loaded_new(int source, const char *op, const char *name, kb_error *e) {
    const char *file = sources[source].path;
    int bad = KB_OK;
    if (!kb_find_op(op))
        bad = kb_fail(e, "%s: variant %s/%s: no op '%s'", file, op, name, op);
    else if (!kb_variant_name_ok(strncmp(name, "peer:", 5) == 0 ? name + 5 : name))
        bad = kb_fail(e, "%s: variant %s/'%s': a name is 1 to 63 letters, digits, '_', '-' or '.'",
                      file, op, name);
    else if (kb_find_variant(op, name))
        bad = kb_fail(e, "%s: variant %s/%s clashes with the built-in variant of that name", file,
                      op, name);
    else if (nloaded == KB_MAX_LOADED)
        bad = kb_fail(e, "%s: at most %d variants from outside the tree", file, KB_MAX_LOADED);
    for (int i = 0; bad == KB_OK && i < nloaded; i++)
        if (strcmp(loaded[i].op, op) == 0 && strcmp(loaded[i].name, name) == 0)
            bad = kb_fail(e, "%s: variant %s/%s clashes with the one of that name in %s", file, op,
                          name, sources[loaded[i].source].path);
    if (bad != KB_OK) return NULL;
    kb_loaded *l = &loaded[nloaded++];
    memset(l, 0, sizeof *l);
    l->source = source;
    l->precision = -1;
    l->check = 1;
    snprintf(l->op, sizeof l->op, "%s", op);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->v.op = l->op;
    l->v.name = l->name;
    l->v.summary = l->summary;
    l->v.source = sources[source].path;
    return l;
}

/* ---- plugins: the probe ---- */

/* The flags a plugin may set (KB_TEST_ONLY is the harness's own). */
#define KB_PLUGIN_FLAGS                                                                            \
    (KB_INDEX32 | KB_INDEX64 | KB_TENSOR_CORES | KB_TF32 | KB_NONDETERMINISTIC | KB_HOST_SYNC |    \
     KB_INEXACT | KB_HOST)

/* The library's rows, or NULL with the reason: what both the probe and the
 * bind check. */
static const kb_variant *open_plugin(const char *path, void **handle, char *why, size_t n) {
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *d = dlerror();
        snprintf(why, n, "not a shared library kbench can load: %s", d ? d : "dlopen failed");
        return NULL;
    }
    kb_plugin_entry_fn entry;
    void *sym = dlsym(h, KB_PLUGIN_ENTRY);
    memcpy(&entry, &sym, sizeof entry);
    if (!sym) {
        snprintf(why, n, "no entry symbol %s (define it with KB_PLUGIN(rows))", KB_PLUGIN_ENTRY);
        dlclose(h);
        return NULL;
    }
    const kb_plugin *p = entry();
    if (!p) {
        snprintf(why, n, "%s() returned NULL", KB_PLUGIN_ENTRY);
        dlclose(h);
        return NULL;
    }
    if (p->abi_major != KB_ABI_MAJOR) {
        snprintf(why, n,
                 "built against kbench ABI %d.%d, this kbench is ABI %d.%d: rebuild it "
                 "against this kbench's headers",
                 p->abi_major, p->abi_minor, KB_ABI_MAJOR, KB_ABI_MINOR);
        dlclose(h);
        return NULL;
    }
    if (!p->variants) {
        snprintf(why, n, "%s() returned no rows", KB_PLUGIN_ENTRY);
        dlclose(h);
        return NULL;
    }
    *handle = h;
    return p->variants;
}

static int row_ok(const kb_variant *v, int i, char *why, size_t n) {
    const kb_variant_impl *m = v->impl;
    if (!v->name || !v->summary) return snprintf(why, n, "row %d: no name or summary", i), 0;
    if (!m || !m->supports || !m->workspace_bytes || !m->setup || !m->run || !m->teardown)
        return snprintf(why, n, "row %d (%s/%s): every hook of its kb_variant_impl must be set", i,
                        v->op, v->name),
               0;
    if (v->flags & ~(unsigned)KB_PLUGIN_FLAGS)
        return snprintf(why, n, "row %d (%s/%s): unknown flags 0x%x", i, v->op, v->name,
                        v->flags & ~(unsigned)KB_PLUGIN_FLAGS),
               0;
    return 1;
}

/* In the child: load, check, and write each row as "op\tname\tflags\tsummary\n",
 * then "end\n"; or "error\t<why>\n". */
static void probe_child(const char *path, int fd) {
    char why[1024];
    void *h = NULL;
    FILE *out = fdopen(fd, "w");
    if (!out) _exit(1);
    const kb_variant *rows = open_plugin(path, &h, why, sizeof why);
    if (!rows) {
        fprintf(out, "error\t%s\n", why);
        fclose(out);
        _exit(0);
    }
    int i = 0;
    for (; rows[i].op && i < KB_MAX_LOADED; i++) {
        if (!row_ok(&rows[i], i, why, sizeof why)) {
            fprintf(out, "error\t%s\n", why);
            fclose(out);
            _exit(0);
        }
        char summary[256];
        snprintf(summary, sizeof summary, "%s", rows[i].summary);
        for (char *c = summary; *c; c++)
            if ((unsigned char)*c < 0x20) *c = ' ';
        fprintf(out, "%s\t%s\t%u\t%s\n", rows[i].op, rows[i].name, rows[i].flags, summary);
    }
    if (i == 0) fprintf(out, "error\t%s() returned no rows\n", KB_PLUGIN_ENTRY);
    fputs("end\n", out);
    fclose(out);
    _exit(0);
}

int kb_child_answer(int fd, pid_t pid, double limit_s, char *buf, size_t cap, int *status) {
    size_t used = 0;
    double t0 = kb_now_s();
    int timed_out = 0;
    for (;;) {
        int left = (int)((t0 + limit_s - kb_now_s()) * 1000);
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        int got = poll(&pf, 1, left);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) continue;
        ssize_t r = read(fd, buf + used, cap - 1 - used);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        used += (size_t)r;
        if (used == cap - 1) break;
    }
    buf[used] = '\0';
    if (timed_out) kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) continue;
    return timed_out;
}

int kb_loaded_add_plugin(const char *path, kb_error *e) {
    kb_error added;
    int src = kb_loaded_add_source(KB_SOURCE_PLUGIN, path, &added);
    if (src < 0) return kb_fail(e, "--plugin %s", added.msg);
    const char *abs = sources[src].path;
    int fds[2];
    if (pipe(fds) != 0) {
        nsources--;
        return kb_fail(e, "--plugin %s: pipe: %s", path, strerror(errno));
    }
    fflush(NULL);
    pid_t self = getpid(), pid = fork();
    if (pid == 0) {
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self) _exit(1);
        probe_child(abs, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        nsources--;
        return kb_fail(e, "--plugin %s: fork: %s", path, strerror(errno));
    }
    static char answer[KB_MAX_LOADED * 400];
    int status = 0;
    int timed_out = kb_child_answer(fds[0], pid, 30.0, answer, sizeof answer, &status);
    close(fds[0]);
    int before = nloaded;
    const char *fail = NULL;
    char why[1200] = "";
    if (timed_out) {
        fail = "did not finish loading within 30 s (its constructors or kb_plugin_entry hang)";
    } else if (WIFSIGNALED(status)) {
        snprintf(why, sizeof why, "crashed while loading: signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
        fail = why;
    } else if (strncmp(answer, "error\t", 6) == 0) {
        snprintf(why, sizeof why, "%.*s", (int)strcspn(answer + 6, "\n"), answer + 6);
        fail = why;
    } else if (!strstr(answer, "end\n")) {
        snprintf(why, sizeof why, "its loader process ended without an answer (status %d)", status);
        fail = why;
    }
    for (char *line = answer; !fail && *line && strncmp(line, "end\n", 4) != 0;) {
        char *nl = strchr(line, '\n');
        if (!nl) break;
        *nl = '\0';
        char *f[4] = {line, NULL, NULL, NULL};
        for (int k = 1; k < 4; k++) {
            f[k] = f[k - 1] ? strchr(f[k - 1], '\t') : NULL;
            if (f[k]) *f[k]++ = '\0';
        }
        if (!f[3]) {
            fail = "malformed answer from its loader process";
            break;
        }
        kb_error le;
        kb_loaded *l = kb_loaded_new(src, f[0], f[1], &le);
        if (!l) {
            snprintf(why, sizeof why, "%s", le.msg);
            fail = why;
            break;
        }
        l->v.flags = (unsigned)strtoul(f[2], NULL, 10);
        snprintf(l->summary, sizeof l->summary, "%s", f[3]);
        line = nl + 1;
    }
    if (fail) {
        nloaded = before;
        nsources--;
        return kb_fail(e, "--plugin %s: %s", path, fail);
    }
    return KB_OK;
}

/* ---- plugins: the bind, in the process that runs the pairs ---- */

int kb_loaded_bind(const kb_variant *v, kb_error *e) {
    const kb_loaded *cl = kb_loaded_of(v);
    if (!cl || sources[cl->source].kind != KB_SOURCE_PLUGIN || v->impl) return KB_OK;
    kb_loaded *l = &loaded[cl - loaded];
    kb_source *s = &sources[l->source];
    char why[1024];
    if (!s->rows) {
        char now[65];
        if (kb_sha256_file(s->path, now, e) != KB_OK) return KB_ERR;
        if (strcmp(now, s->sha256) != 0)
            return kb_fail(e, "%s changed since the run began (sha256 %.12s, now %.12s)", s->path,
                           s->sha256, now);
        void *h = NULL;
        s->rows = open_plugin(s->path, &h, why, sizeof why);
        if (!s->rows) return kb_fail(e, "%s: %s", s->path, why);
        s->handle = h;
    }
    for (const kb_variant *r = s->rows; r->op; r++)
        if (strcmp(r->op, l->op) == 0 && strcmp(r->name, l->name) == 0) {
            if (r->flags != l->v.flags || !row_ok(r, 0, why, sizeof why))
                return kb_fail(e, "%s: variant %s/%s is not the one its first load listed", s->path,
                               l->op, l->name);
            l->v.impl = r->impl;
            return KB_OK;
        }
    return kb_fail(e, "%s: variant %s/%s is gone from its rows", s->path, l->op, l->name);
}

void kb_loaded_meta_lines(FILE *f, const char *prefix) {
    for (int i = 0; i < nsources; i++) {
        const kb_source *s = &sources[i];
        const char *colon = strchr(s->label, ':');
        fprintf(f, "%s%.*s: %s sha256 %s %s\n", prefix, (int)(colon - s->label), s->label,
                colon + 1, s->sha256, s->path);
    }
}
