/* isolate.c — the sweep in worker processes: a variant that faults or hangs
 * costs its own row, never the sweep (README "Reliability").
 *
 * The parent never touches CUDA or NVML. It forks a worker that opens the
 * device and runs the plan's pairs from where the last worker stopped,
 * sending back over a pipe: the device facts, a START before each pair's
 * device work, and each row, which the parent writes and flushes. Then:
 *   - a sticky CUDA error: the worker sends the CRASH row and exits;
 *   - a worker that dies (a signal, an unexpected exit): a CRASH row for the
 *     pair in flight, saying how it died;
 *   - a pair still running --case-timeout seconds after its START: SIGKILL
 *     to the worker's process group, a TIMEOUT row;
 * and a new worker continues with the next pair. Fork without exec is safe
 * here because the parent created no CUDA context and no NVML handle; the
 * worker inherits the cases, variants and options as they are. A plan of
 * host variants only (KB_HOST) runs in workers too, which then open no
 * device: a CPU variant that faults or hangs costs its row just the same.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the messages a worker sends ---- */

enum { MSG_DEVICE, MSG_FAIL, MSG_START, MSG_SKIP, MSG_ROW };

typedef struct msg_head {
    int type, pair, code;
    unsigned bytes; /* payload that follows */
} msg_head;

typedef struct device_msg {
    kb_device dev;
    int sm_clock_now_mhz;
    int opened; /* 0: a plan of host variants, which opens no device */
} device_msg;

/* Worker exit codes the parent tells apart from a death. */
enum { WORKER_DONE = 0, WORKER_LOST = 10, WORKER_FAILED = 11 };

static int write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return KB_ERR;
        p += w;
        n -= (size_t)w;
    }
    return KB_OK;
}

static int read_all(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return KB_ERR; /* the worker is gone */
        p += got;
        n -= (size_t)got;
    }
    return KB_OK;
}

/* A broken pipe means the parent is gone: nothing left to do. */
static void send_msg(int fd, int type, int pair, int code, const void *a, size_t na, const void *b,
                     size_t nb) {
    msg_head h = {type, pair, code, (unsigned)(na + nb)};
    if (write_all(fd, &h, sizeof h) != KB_OK || (na && write_all(fd, a, na) != KB_OK) ||
        (nb && write_all(fd, b, nb) != KB_OK))
        _exit(WORKER_FAILED);
}

/* ---- the worker ---- */

typedef struct worker_out {
    kb_printer p; /* first: the runner hands rows to &p */
    int fd;
    const kb_runner *r;
} worker_out;

static void pipe_row(kb_printer *p, const kb_row *row) {
    const worker_out *w = (const worker_out *)p;
    size_t ns = row->samples ? (size_t)row->stats.n * sizeof *row->samples : 0;
    send_msg(w->fd, MSG_ROW, w->r->pair, 0, row, sizeof *row, row->samples, ns);
}

static void pipe_nothing(kb_printer *p) {
    (void)p;
}

static void pipe_begin(kb_printer *p, const kb_meta *m) {
    (void)p;
    (void)m;
}

static void on_start(kb_runner *r, int pair, const char *forced_limit) {
    const worker_out *w = r->hook_ctx;
    send_msg(w->fd, MSG_START, pair, 0, forced_limit, strlen(forced_limit) + 1, NULL, 0);
}

static void on_skip(kb_runner *r, int pair) {
    const worker_out *w = r->hook_ctx;
    send_msg(w->fd, MSG_SKIP, pair, 0, NULL, 0, NULL, 0);
}

static void fail(int fd, int code, const kb_error *e) {
    send_msg(fd, MSG_FAIL, -1, code, e->msg, strlen(e->msg) + 1, NULL, 0);
    _exit(WORKER_FAILED);
}

static void worker(kb_runner *r, int device, int from, int first, int fd, pid_t parent_pid) {
    setpgid(0, 0);                    /* a timeout kills this group */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* and so does the parent's end */
    if (getppid() != parent_pid) _exit(WORKER_FAILED);
    kb_error e = {{0}};
    device_msg dm;
    memset(&dm, 0, sizeof dm);
    dm.opened = r->needs_device;
    int rc = dm.opened ? kb_device_open(device, &dm.dev, &e) : KB_OK;
    if (rc != KB_OK) fail(fd, rc, &e);
    if (dm.opened && r->opts.timing && kb_device_peaks(&dm.dev, 0, &e) != KB_OK && first)
        fprintf(stderr, "kbench: peaks not measured (%s): %% columns are 0\n", e.msg);
    dm.sm_clock_now_mhz = dm.opened ? kb_device_sm_clock_now(&dm.dev) : -1;
    send_msg(fd, MSG_DEVICE, -1, 0, &dm, sizeof dm, NULL, 0);
    if (dm.opened && kb_runner_attach(r, &dm.dev, &e) != KB_OK) fail(fd, KB_ERR, &e);
    worker_out out = {.fd = fd, .r = r};
    out.p.begin = pipe_begin;
    out.p.row = pipe_row;
    out.p.end = pipe_nothing;
    r->printers[0] = &out.p;
    r->nprinters = 1;
    r->stop_on_lost = 1;
    r->on_start = on_start;
    r->on_skip = on_skip;
    r->hook_ctx = &out;
    kb_runner_run(r, from);
    _exit(r->context_lost ? WORKER_LOST : WORKER_DONE);
}

/* ---- the parent ---- */

typedef struct parent {
    kb_runner *r;
    kb_begin_fn begin;
    void *begin_ctx;
    int begun; /* the first worker's device facts went to begin */
    int next;  /* the first pair with no row yet */
    char *buf; /* one message's payload */
    size_t cap;
} parent;

typedef struct worker_state {
    pid_t pid;
    int fd;
    int inflight;      /* the pair between its START and its row; -1 */
    char forced[1024]; /* the in-flight pair's --force limit, or "" */
    double started;    /* when the in-flight pair started */
    int progressed;    /* the worker made a row or a skip */
    int failed;        /* MSG_FAIL: it could not open the device */
    int fail_code;
    kb_error fail_msg;
} worker_state;

static int spawn(parent *pa, int device, worker_state *w, kb_error *e) {
    int fds[2];
    /* Close-on-exec: a helper the driver execs must not hold the pipe open. */
    if (pipe2(fds, O_CLOEXEC) != 0) return kb_fail(e, "pipe: %s", strerror(errno));
    fflush(NULL); /* the worker never flushes what the parent had buffered */
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return kb_fail(e, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        worker(pa->r, device, pa->next, !pa->begun, fds[1], self);
    }
    setpgid(pid, pid); /* also here: no window in which a timeout misses it */
    close(fds[1]);
    memset(w, 0, sizeof *w);
    w->pid = pid;
    w->fd = fds[0];
    w->inflight = -1;
    return KB_OK;
}

/* One message from the worker; KB_ERR at the end of its output (or garbage). */
static int receive(parent *pa, worker_state *w) {
    kb_runner *r = pa->r;
    msg_head h;
    if (read_all(w->fd, &h, sizeof h) != KB_OK || h.bytes > pa->cap) return KB_ERR;
    if (h.bytes && read_all(w->fd, pa->buf, h.bytes) != KB_OK) return KB_ERR;
    if (h.type != MSG_DEVICE && h.type != MSG_FAIL && (h.pair < pa->next || h.pair >= r->npairs))
        return KB_ERR;
    switch (h.type) {
    case MSG_DEVICE:
        if (!pa->begun && h.bytes == sizeof(device_msg)) {
            const device_msg *dm = (const device_msg *)(void *)pa->buf;
            pa->begin(pa->begin_ctx, dm->opened ? &dm->dev : NULL, dm->sm_clock_now_mhz);
            pa->begun = 1;
        }
        return KB_OK;
    case MSG_FAIL:
        w->failed = 1;
        w->fail_code = h.code;
        snprintf(w->fail_msg.msg, sizeof w->fail_msg.msg, "%.*s", (int)h.bytes, pa->buf);
        return KB_OK;
    case MSG_START:
        w->inflight = h.pair;
        w->started = kb_now_s();
        snprintf(w->forced, sizeof w->forced, "%.*s", (int)h.bytes, pa->buf);
        return KB_OK;
    case MSG_SKIP:
        r->skipped_na++;
        break;
    case MSG_ROW: {
        if (h.bytes < sizeof(kb_row)) return KB_ERR;
        kb_row row;
        memcpy(&row, pa->buf, sizeof row);
        size_t ns = (h.bytes - sizeof row) / sizeof(double);
        memcpy(r->measure.samples, pa->buf + sizeof row, ns * sizeof(double));
        row.samples = ns ? r->measure.samples : NULL;
        kb_runner_emit(r, &row);
        w->inflight = -1;
        break;
    }
    default:
        return KB_ERR;
    }
    pa->next = h.pair + 1;
    w->progressed = 1;
    return KB_OK;
}

/* Reads until the worker's output ends (0), or its pair overruns the
 * timeout: then kills its process group and returns 1. */
static int follow(parent *pa, worker_state *w) {
    double limit = pa->r->opts.case_timeout_s;
    for (;;) {
        int wait_ms = -1;
        if (w->inflight >= 0 && limit > 0) {
            double left = w->started + limit - kb_now_s();
            if (left <= 0) {
                kill(-w->pid, SIGKILL);
                kill(w->pid, SIGKILL);
                return 1;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd pf = {w->fd, POLLIN, 0};
        int n = poll(&pf, 1, wait_ms);
        if (n < 0 && errno != EINTR) return 0;
        if (n > 0 && receive(pa, w) != KB_OK) return 0;
    }
}

static void death_text(int status, char *buf, size_t n) {
    if (WIFSIGNALED(status))
        snprintf(buf, n, "the worker process died: signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, n, "the worker process exited with code %d before its row",
                 WEXITSTATUS(status));
    else
        snprintf(buf, n, "the worker process ended (wait status %d)", status);
}

/* After a worker ended: the row its end costs, if any. KB_NO_DEVICE or
 * KB_ERR when the first worker could not open the device. */
static int settle(parent *pa, worker_state *w, int timed_out, int status, kb_error *e) {
    kb_runner *r = pa->r;
    char why[1200];
    if (timed_out) {
        snprintf(why, sizeof why,
                 "did not finish within %g s (--case-timeout): the worker process was killed",
                 r->opts.case_timeout_s);
        kb_runner_emit_status(r, w->inflight, KB_ROW_TIMEOUT, why, w->forced);
        pa->next = w->inflight + 1;
    } else if (w->failed && !pa->begun) {
        *e = w->fail_msg;
        return w->fail_code == KB_NO_DEVICE ? KB_NO_DEVICE : KB_ERR;
    } else if (w->failed) { /* the device went away mid-sweep: every row left says so */
        snprintf(why, sizeof why, KB_NOT_RUN "a new worker process failed to start: %.900s",
                 w->fail_msg.msg);
        for (; pa->next < r->npairs; pa->next++)
            kb_runner_emit_status(r, pa->next, KB_ROW_ERROR, why, "");
    } else if (!pa->begun) {
        death_text(status, why, sizeof why);
        return kb_fail(e, "%s before it opened the device", why);
    } else if (pa->next < r->npairs &&
               !(WIFEXITED(status) && w->progressed &&
                 (WEXITSTATUS(status) == WORKER_DONE || WEXITSTATUS(status) == WORKER_LOST))) {
        int victim = w->inflight >= 0 ? w->inflight : pa->next;
        death_text(status, why, sizeof why);
        kb_runner_emit_status(r, victim, KB_ROW_CRASH, why, w->inflight >= 0 ? w->forced : "");
        pa->next = victim + 1;
    }
    return KB_OK;
}

int kb_isolated_run(kb_runner *r, int device, kb_begin_fn begin, void *begin_ctx, kb_error *e) {
    parent pa = {r, begin, begin_ctx, 0, 0, NULL, 0};
    pa.cap = sizeof(kb_row) + (size_t)r->opts.rule.max_samples * sizeof(double);
    pa.buf = malloc(pa.cap);
    if (!pa.buf) return kb_fail(e, "out of host memory for a %zu-byte message", pa.cap);
    /* An inherited SIG_IGN (or SA_NOCLDWAIT) would reap the workers itself:
     * waitpid would fail and a crash would read as a clean exit. */
    struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old);
    int rc = KB_OK;
    do { /* at least one worker: the device facts head every output file */
        worker_state w;
        rc = spawn(&pa, device, &w, e);
        if (rc != KB_OK) break;
        int timed_out = follow(&pa, &w);
        close(w.fd);
        int status = 0;
        while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) continue;
        rc = settle(&pa, &w, timed_out, status, e);
    } while (rc == KB_OK && pa.next < r->npairs);
    sigaction(SIGCHLD, &old, NULL);
    free(pa.buf);
    return rc;
}
