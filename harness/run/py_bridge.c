/* py_bridge.c — Python variants through a worker process per file (py_bridge.h).
 *
 * Listing: `PYTHON -u -c SCRIPT list FILE` in a child with a time limit; its
 * stdout lines are the file's variants (docs/python.md "Protocol").
 * Running: `PYTHON -u -c SCRIPT serve FILE IN OUT`, started at the first pair
 * of the file in this process and kept; a request is one JSON line on IN,
 * the reply lines on OUT up to "end". Inputs travel as .npy files written
 * once per case, outputs come back the same way. The worker dies with this
 * process (PR_SET_PDEATHSIG), so a --case-timeout that kills an isolated
 * worker kills its Python too; a Python that dies is a CRASH row and the
 * next pair starts another. */
#define _GNU_SOURCE
#include "py_bridge.h"

#include "npy.h"
#include "printer.h" /* kb_json_put_str */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern const char kb_py_worker_script[]; /* harness/py/kbench_worker.py, embedded by the build */

static const char *python = "python3";
static char root[4096];

void kb_py_set_python(const char *p) {
    python = p;
}

/* ---- children ---- */

/* exec python with args; on failure the reason goes to fd `report` (if >= 0)
 * as the listing's error line. Never returns. */
static void exec_python(char **args, int report) {
    execvp(python, args);
    if (report >= 0) {
        char msg[512];
        int n = snprintf(msg, sizeof msg, "error\t%s: cannot be run: %s\nend\n", python,
                         strerror(errno));
        if (write(report, msg, (size_t)n) < 0) _exit(127);
    }
    _exit(127);
}

static int precision_of(const char *s) {
    static const char *const names[] = {"f32", "tf32", "f16", "bf16"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

/* One "variant\tOP\tNAME\tWHERE\tDET\tSEMANTICS\tPEER\tCHECK\tPRECISION\tSUMMARY" line. */
static int add_listed(int src, char *line, kb_error *e) {
    char *f[10] = {line};
    for (int k = 1; k < 10; k++) {
        f[k] = f[k - 1] ? strchr(f[k - 1], '\t') : NULL;
        if (f[k]) *f[k]++ = '\0';
    }
    if (!f[9]) return kb_fail(e, "%s: a malformed line from its worker", kb_source_at(src)->path);
    char name[80];
    snprintf(name, sizeof name, "%s%s", strcmp(f[6], "1") == 0 ? "peer:" : "", f[2]);
    /* the peer: prefix is the table's, the name after it must be a name */
    if (!kb_variant_name_ok(f[2]))
        return kb_fail(e,
                       "%s: KBENCH[\"%s/%s\"]: a name is 1 to 63 letters, digits, '_', '-' "
                       "or '.'",
                       kb_source_at(src)->path, f[1], f[2]);
    kb_loaded *l = kb_loaded_new(src, f[1], name, e);
    if (!l) return KB_ERR;
    snprintf(l->py_key, sizeof l->py_key, "%s", f[2]);
    l->v.flags = (strcmp(f[3], "host") == 0 ? KB_HOST : 0) |
                 (strcmp(f[4], "1") != 0 ? KB_NONDETERMINISTIC : 0) |
                 (strcmp(f[5], "other") == 0 ? KB_INEXACT : 0);
    l->check = strcmp(f[7], "1") == 0;
    l->peer = strcmp(f[6], "1") == 0;
    l->precision = precision_of(f[8]);
    if (l->precision == 1) l->v.flags |= KB_TF32;
    snprintf(l->summary, sizeof l->summary, "%s", f[9]);
    return KB_OK;
}

int kb_py_add_file(const char *path, kb_error *e) {
    int src = kb_loaded_add_source(KB_SOURCE_PY, path, e);
    if (src < 0) return KB_ERR;
    kb_source *s = (kb_source *)kb_source_at(src);
    int fds[2];
    if (pipe(fds) != 0) return kb_fail(e, "%s: pipe: %s", path, strerror(errno));
    fflush(NULL);
    pid_t self = getpid(), pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self) _exit(1);
        close(fds[0]);
        dup2(fds[1], 1);
        close(fds[1]);
        char *args[] = {(char *)python, "-u",    "-c", (char *)kb_py_worker_script,
                        "list",         s->path, NULL};
        exec_python(args, 1);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return kb_fail(e, "%s: fork: %s", path, strerror(errno));
    }
    static char answer[KB_MAX_LOADED * 600];
    int status = 0;
    int timed_out = kb_child_answer(fds[0], pid, 120.0, answer, sizeof answer, &status);
    close(fds[0]);
    s->failed = 1;
    if (timed_out) {
        snprintf(s->why, sizeof s->why, "%s did not list %s within 120 s", python, path);
    } else if (strncmp(answer, "error\t", 6) == 0) {
        snprintf(s->why, sizeof s->why, "%.*s", (int)strcspn(answer + 6, "\n"), answer + 6);
    } else if (!strstr(answer, "end\n")) {
        if (WIFSIGNALED(status))
            snprintf(s->why, sizeof s->why, "%s died listing %s: signal %d (%s)", python, path,
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            snprintf(s->why, sizeof s->why, "%s did not list %s (exit %d)", python, path,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    } else {
        s->failed = 0;
    }
    for (char *line = answer; !s->failed && strncmp(line, "variant\t", 8) == 0;) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        if (add_listed(src, line, e) != KB_OK) return KB_ERR;
        line = nl + 1;
    }
    return KB_OK;
}

/* ---- the run's folder ---- */

int kb_py_make_root(kb_error *e) {
    if (root[0]) return KB_OK;
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/kbench-py.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        int err = errno;
        root[0] = '\0';
        return kb_fail(e, "cannot make a folder for the Python variants' files: %s", strerror(err));
    }
    return KB_OK;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path) {
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void kb_py_remove_root(void) {
    if (root[0]) remove_tree(root);
    root[0] = '\0';
}

/* This process's folder under the root: workers of one run never share files. */
static const char *own_dir(kb_error *e) {
    static char dir[4200];
    static pid_t made_for;
    if (made_for == getpid()) return dir;
    if (!root[0] && kb_py_make_root(e) != KB_OK) return NULL;
    snprintf(dir, sizeof dir, "%s/w%ld", root, (long)getpid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        kb_fail(e, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    made_for = getpid();
    return dir;
}

/* ---- the case's files ---- */

static int written_case = -1;
static char case_dir[4400];

void kb_py_release_case(int case_index) {
    if (written_case != case_index || !case_dir[0]) return;
    remove_tree(case_dir);
    written_case = -1;
}

static int write_set(const char *dir, const char *prefix, const kb_tensors *ts, kb_error *e) {
    for (int i = 0; i < ts->count; i++) {
        char path[4600];
        snprintf(path, sizeof path, "%s/%s%s.npy", dir, prefix, ts->t[i].name);
        if (kb_npy_write(path, &ts->t[i], e) != KB_OK) return KB_ERR;
    }
    return KB_OK;
}

static int write_case(const kb_py_request *q, const char *dir, kb_error *e) {
    if (written_case == q->case_index) return KB_OK;
    if (written_case >= 0) kb_py_release_case(written_case);
    snprintf(case_dir, sizeof case_dir, "%s/case%d", dir, q->case_index);
    if (mkdir(case_dir, 0700) != 0 && errno != EEXIST)
        return kb_fail(e, "%s: %s", case_dir, strerror(errno));
    if (write_set(case_dir, "", q->in, e) != KB_OK ||
        (q->ref && write_set(case_dir, "reference.", q->ref, e) != KB_OK)) {
        remove_tree(case_dir);
        return KB_ERR;
    }
    written_case = q->case_index;
    return KB_OK;
}

/* ---- workers ---- */

typedef struct worker {
    pid_t pid;
    FILE *req, *resp;
} worker;

static worker workers[KB_MAX_SOURCES];

static void end_worker(worker *w, int *status) {
    if (w->req) fclose(w->req);
    if (w->resp) fclose(w->resp);
    int st = 0;
    if (w->pid > 0) {
        if (!status) kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) continue;
    }
    if (status) *status = st;
    memset(w, 0, sizeof *w);
}

void kb_py_shutdown(void) {
    for (int i = 0; i < KB_MAX_SOURCES; i++)
        if (workers[i].pid > 0) end_worker(&workers[i], NULL);
    if (written_case >= 0) kb_py_release_case(written_case);
}

static int start_worker(int src, worker *w, kb_error *e) {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0) return kb_fail(e, "pipe: %s", strerror(errno));
    if (pipe2(up, O_CLOEXEC) != 0) {
        close(down[0]), close(down[1]);
        return kb_fail(e, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t self = getpid(), pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self) _exit(1);
        /* F_DUPFD keeps no close-on-exec: only these two cross the exec */
        int in = fcntl(down[0], F_DUPFD, 10), out = fcntl(up[1], F_DUPFD, 10);
        char fin[16], fout[16];
        snprintf(fin, sizeof fin, "%d", in);
        snprintf(fout, sizeof fout, "%d", out);
        char *args[] = {(char *)python,
                        "-u",
                        "-c",
                        (char *)kb_py_worker_script,
                        "serve",
                        (char *)kb_source_at(src)->path,
                        fin,
                        fout,
                        NULL};
        exec_python(args, -1);
    }
    close(down[0]);
    close(up[1]);
    if (pid < 0) {
        close(down[1]), close(up[0]);
        return kb_fail(e, "fork: %s", strerror(errno));
    }
    w->pid = pid;
    w->req = fdopen(down[1], "w");
    w->resp = fdopen(up[0], "r");
    if (!w->req || !w->resp) {
        end_worker(w, NULL);
        return kb_fail(e, "fdopen: %s", strerror(errno));
    }
    return KB_OK;
}

static const char *const dtype_names[] = {"u8", "i32", "i64", "f16", "bf16", "f32", "f64"};

static void put_tensor_list(FILE *f, const kb_tensors *ts, int shapes) {
    fputc('[', f);
    for (int i = 0; i < ts->count; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        kb_json_put_str(f, ts->t[i].name);
        fprintf(f, ", \"dtype\": \"%s\"", dtype_names[ts->t[i].dtype]);
        if (shapes) {
            fputs(", \"shape\": [", f);
            for (int d = 0; d < ts->t[i].ndim; d++)
                fprintf(f, "%s%lld", d ? ", " : "", (long long)ts->t[i].shape[d]);
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

static void put_request(FILE *f, const kb_py_request *q, const char *out_dir) {
    fputs("{\"name\": ", f);
    kb_json_put_str(f, q->lv->py_key);
    fputs(", \"op\": ", f);
    kb_json_put_str(f, q->lv->op);
    fputs(", \"case_dir\": ", f);
    kb_json_put_str(f, case_dir);
    fputs(", \"out_dir\": ", f);
    kb_json_put_str(f, out_dir);
    fputs(", \"inputs\": ", f);
    put_tensor_list(f, q->in, 0);
    fputs(", \"outputs\": ", f);
    put_tensor_list(f, q->outs, 1);
    fprintf(f, ", \"reference\": %s, \"axes\": {", q->ref ? "true" : "false");
    const kb_op *op = q->c->op;
    for (int i = 0; op->axes[i].name; i++) {
        fputs(i ? ", " : "", f);
        kb_json_put_str(f, op->axes[i].name);
        fputs(": ", f);
        const kb_value *v = &q->c->v[i];
        if (op->axes[i].kind == KB_AXIS_INT)
            fprintf(f, "%lld", (long long)v->i);
        else if (op->axes[i].kind == KB_AXIS_FLOAT)
            fprintf(f, "%.17g", v->f);
        else
            kb_json_put_str(f, v->s);
    }
    fprintf(f,
            "}, \"check\": %s, \"timing\": %s, \"mode\": \"%s\", \"flush\": \"%s\", "
            "\"l2_bytes\": %zu, \"rule\": {\"min_samples\": %d, \"max_noise\": %.17g, "
            "\"max_time_s\": %.17g, \"max_samples\": %d}, \"warmup_s\": %.17g, \"nvtx\": ",
            q->check ? "true" : "false", q->timing ? "true" : "false", kb_mode_name(q->mode),
            q->flush, q->l2_bytes, q->rule.min_samples, q->rule.max_noise, q->rule.max_time_s,
            q->rule.max_samples, q->warmup_s);
    kb_json_put_str(f, q->nvtx);
    fputs("}\n", f);
}

static void set_reason(kb_py_reply *rep, kb_status st, const char *fmt, const char *a,
                       const char *b) {
    rep->status = st;
    snprintf(rep->reason, sizeof rep->reason, fmt, a, b);
}

/* The reply's lines; KB_ERR at the end of the worker's output. */
static int read_reply(worker *w, kb_py_reply *rep, double *samples, int cap) {
    char *line = NULL;
    size_t n = 0;
    int ended = 0;
    while (getline(&line, &n, w->resp) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line, "end") == 0) {
            ended = 1;
            break;
        }
        char *val = strchr(line, ' ');
        val = val ? val + 1 : line + strlen(line);
        if (strncmp(line, "status ", 7) == 0) {
            static const struct {
                const char *name;
                kb_status st;
            } map[] = {{"ok", KB_ROW_PASS},
                       {"fail", KB_ROW_FAIL},
                       {"unsupported", KB_ROW_UNSUPPORTED},
                       {"error", KB_ROW_ERROR}};
            rep->status = KB_ROW_ERROR;
            for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
                if (strcmp(val, map[i].name) == 0) rep->status = map[i].st;
        } else if (strncmp(line, "reason ", 7) == 0) {
            snprintf(rep->reason, sizeof rep->reason, "%s", val);
        } else if (strncmp(line, "note ", 5) == 0) {
            snprintf(rep->note, sizeof rep->note, "%s", val);
        } else if (strncmp(line, "samples", 7) == 0) {
            char *p = val, *end;
            for (double x = strtod(p, &end); end != p && rep->nsamples < cap;
                 x = strtod(p = end, &end))
                samples[rep->nsamples++] = x;
        } else if (strncmp(line, "written", 7) == 0) {
            rep->have[0] = strchr(val, 'a') != NULL;
            rep->have[1] = strchr(val, 'b') != NULL;
            rep->have[2] = strchr(val, 't') != NULL;
        }
    }
    free(line);
    return ended ? KB_OK : KB_ERR;
}

static const char set_names[3] = {'a', 'b', 't'};

/* The sets the worker wrote, into host tensors shaped as the op's outputs:
 * a file that does not fit (shape, dtype, a bf16 value that is not one) is
 * the function's fault: a FAIL. */
static int read_sets(const kb_py_request *q, const char *out_dir, kb_py_reply *rep, kb_error *e) {
    for (int s = 0; s < 3; s++) {
        if (!rep->have[s]) continue;
        rep->set[s] = *q->outs;
        if (kb_tensors_alloc_host(&rep->set[s], e) != KB_OK) return KB_ERR;
        for (int i = 0; i < q->outs->count; i++) {
            char path[4600];
            snprintf(path, sizeof path, "%s/%c.%s.npy", out_dir, set_names[s], q->outs->t[i].name);
            kb_error why;
            if (kb_npy_read_into(path, &rep->set[s].t[i], &why) != KB_OK) {
                set_reason(rep, KB_ROW_FAIL, "its outputs do not fit the op's: %.980s%s", why.msg,
                           "");
                return KB_OK;
            }
        }
    }
    return KB_OK;
}

static void clear_outputs(const char *out_dir, const kb_tensors *outs) {
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < outs->count; i++) {
            char path[4600];
            snprintf(path, sizeof path, "%s/%c.%s.npy", out_dir, set_names[s], outs->t[i].name);
            unlink(path);
        }
}

int kb_py_run(const kb_py_request *q, kb_py_reply *rep, double *samples, int cap, kb_error *e) {
    memset(rep, 0, sizeof *rep);
    const kb_source *src = kb_source_at(q->lv->source);
    if (src->failed) {
        set_reason(rep, KB_ROW_ERROR, "%.1000s%s", src->why, "");
        return KB_OK;
    }
    kb_error why;
    const char *dir = own_dir(&why);
    if (!dir || write_case(q, dir, &why) != KB_OK) {
        set_reason(rep, KB_ROW_ERROR, "the case's files for Python: %.980s%s", why.msg, "");
        return KB_OK;
    }
    char out_dir[4300];
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    if (mkdir(out_dir, 0700) != 0 && errno != EEXIST) {
        set_reason(rep, KB_ROW_ERROR, "%.900s: %.100s", out_dir, strerror(errno));
        return KB_OK;
    }
    clear_outputs(out_dir, q->outs);
    worker *w = &workers[q->lv->source];
    if (w->pid <= 0 && start_worker(q->lv->source, w, &why) != KB_OK) {
        set_reason(rep, KB_ROW_ERROR, "the Python worker did not start: %.980s%s", why.msg, "");
        return KB_OK;
    }
    put_request(w->req, q, out_dir);
    int sent = fflush(w->req) == 0;
    if (!sent || read_reply(w, rep, samples, cap) != KB_OK) {
        int status = 0;
        end_worker(w, &status);
        char how[200];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else
            snprintf(how, sizeof how, "exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        set_reason(rep, WIFSIGNALED(status) ? KB_ROW_CRASH : KB_ROW_ERROR,
                   "the Python worker (%.600s) died before its reply: %.200s", python, how);
        return KB_OK;
    }
    if (rep->status == KB_ROW_PASS) return read_sets(q, out_dir, rep, e);
    return KB_OK;
}

void kb_py_reply_free(kb_py_reply *rep) {
    for (int s = 0; s < 3; s++)
        if (rep->have[s]) kb_tensors_free_host(&rep->set[s]);
}
