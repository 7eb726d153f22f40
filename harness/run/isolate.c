/* isolate.c — the sweep in worker processes: a variant that faults or hangs
 * costs its own row, never the sweep (README "Reliability"), and several
 * GPUs share one sweep (README "When one machine is not enough").
 *
 * The parent never touches CUDA or NVML. It forks one worker per device of
 * the set; each opens its device, says what it is, and then runs the pairs
 * the parent hands it one at a time, from one queue (the order: above
 * next_pair). A worker sends back a STAGE as it begins each stage of
 * preparing a case (inputs, CPU reference: once per case it holds), a START
 * before each pair's device work, and the row; the parent buffers rows that
 * complete early and writes them, and flushes them, in plan order. What a
 * crash, a death or a timeout costs: above settle. Fork without exec is safe
 * here because the parent created no CUDA context and no NVML handle; the
 * worker inherits the cases, variants and options as they are (a plan of
 * host variants only runs in workers too, which then open no device). */
#define _GNU_SOURCE
#include "runner.h"

#include "loaded.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the messages a worker sends ---- */

enum { MSG_DEVICE, MSG_FAIL, MSG_STAGE, MSG_START, MSG_SKIP, MSG_ROW };

typedef struct msg_head {
    int type, pair, code;
    unsigned bytes; /* payload that follows */
} msg_head;

typedef struct device_msg {
    kb_device dev;
    int sm_clock_now_mhz;
    int opened; /* 0: a plan of host variants, which opens no device */
} device_msg;

/* Where a worker is in a case's turns (--interleave): the pair whose check,
 * warm-up or sample runs now, and a count of turns taken. Memory the parent
 * shares (mapped before the fork), so that a turn costs a store, not a
 * message; the parent reads it to blame a death or a hang on the right
 * pair, and to restart --case-timeout at each turn. */
typedef struct turn_beat {
    int pair;
    unsigned beat;
} turn_beat;

/* What the parent hands a worker: pairs first .. first+n-1, timed in turns
 * when n > 1 (kb_runner_run_group). */
typedef struct handed {
    int first, n;
} handed;

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
        if (got <= 0) return KB_ERR; /* the other end is gone */
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
    turn_beat *beat;
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

static void on_stage(kb_runner *r, int pair, const char *stage) {
    const worker_out *w = r->hook_ctx;
    send_msg(w->fd, MSG_STAGE, pair, 0, stage, strlen(stage) + 1, NULL, 0);
}

static void on_turn(kb_runner *r, int pair) {
    turn_beat *b = ((const worker_out *)r->hook_ctx)->beat;
    __atomic_store_n(&b->pair, pair, __ATOMIC_RELAXED);
    __atomic_add_fetch(&b->beat, 1, __ATOMIC_RELEASE);
}

static void on_skip(kb_runner *r, int pair) {
    const worker_out *w = r->hook_ctx;
    send_msg(w->fd, MSG_SKIP, pair, 0, NULL, 0, NULL, 0);
}

static void fail(int fd, int code, const kb_error *e) {
    send_msg(fd, MSG_FAIL, -1, code, e->msg, strlen(e->msg) + 1, NULL, 0);
    _exit(WORKER_FAILED);
}

/* Runs the pairs that arrive on cmd until it closes. */
static void worker(kb_runner *r, int device, const char *uuid, int first, int cmd, int fd,
                   pid_t parent_pid, turn_beat *beat) {
    setpgid(0, 0);                    /* a timeout kills this group */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* and so does the parent's end */
    if (getppid() != parent_pid) _exit(WORKER_FAILED);
    kb_error e = {{0}};
    device_msg dm;
    memset(&dm, 0, sizeof dm);
    dm.opened = r->needs_device;
    int rc = dm.opened ? kb_device_open(device, &dm.dev, &e) : KB_OK;
    if (rc != KB_OK) fail(fd, rc, &e);
    if (dm.opened && uuid[0] && strcmp(uuid, dm.dev.uuid) != 0) {
        kb_fail(&e, "device %d is now %s (%s), not %s as when the sweep began", device, dm.dev.uuid,
                dm.dev.name, uuid);
        fail(fd, KB_ERR, &e);
    }
    if (dm.opened && r->opts.timing && kb_device_peaks(&dm.dev, 0, &e) != KB_OK && first)
        fprintf(stderr, "kbench: peaks not measured (%s): %% columns are 0\n", e.msg);
    dm.sm_clock_now_mhz = dm.opened ? kb_device_sm_clock_now(&dm.dev) : -1;
    /* Attached before the device is reported: a device that cannot take the
     * run (no room for the L2 flush buffer, a --flush kind it lacks) fails
     * the start, before any output file is begun. */
    if (dm.opened && kb_runner_attach(r, &dm.dev, &e) != KB_OK) fail(fd, KB_ERR, &e);
    send_msg(fd, MSG_DEVICE, -1, 0, &dm, sizeof dm, NULL, 0);
    worker_out out = {.fd = fd, .r = r, .beat = beat};
    out.p.begin = pipe_begin;
    out.p.row = pipe_row;
    out.p.end = pipe_nothing;
    r->printers[0] = &out.p;
    r->nprinters = 1;
    r->on_start = on_start;
    r->on_skip = on_skip;
    r->on_stage = on_stage;
    r->on_turn = on_turn;
    r->hook_ctx = &out;
    handed hd;
    while (read_all(cmd, &hd, sizeof hd) == KB_OK && hd.first >= 0 && hd.n >= 1 &&
           hd.first + hd.n <= r->npairs) {
        kb_runner_run_group(r, hd.first, hd.n); /* one pair: as alone */
        /* every later row would fail for its reason; and the parent reads a
         * CRASH row as this worker's end */
        if (r->context_lost || r->retire) _exit(WORKER_LOST);
    }
    kb_runner_finish(r);
    _exit(WORKER_DONE);
}

/* ---- the parent ---- */

typedef struct slot { /* one device of the set, and its current worker */
    int device;       /* ordinal */
    char uuid[64];    /* what its first worker opened: a new one must open the same */
    pid_t pid;        /* 0: no worker */
    int rfd, wfd;     /* rows from it, pairs to it */
    int ready;        /* its device is open (MSG_DEVICE) */
    int assigned;     /* the (first) pair handed to it, no row yet; -1 */
    int group_n;      /* pairs handed with it, timed in turns: assigned .. assigned+group_n-1 */
    int cur;          /* of those, the one it runs now (START, or its turn_beat) */
    int crashed;      /* of those, one whose CRASH row came; -1 */
    turn_beat *beat;  /* shared with its worker (mapped before the fork) */
    unsigned seen_beat;
    int started; /* that pair's START came */
    double t_start;
    int preparing;     /* its case's preparation is under way (a STAGE came, not ended) */
    double t_prepare;  /* when it began: the preparation has --case-timeout of its own */
    char stage[200];   /* the stage it is in */
    char forced[1024]; /* the started pair's --force limit, or "" */
    int last;          /* the last pair it ran: its case is held; -1 */
    int failed;        /* MSG_FAIL: it could not open the device */
    int fail_code;
    kb_error fail_msg;
    int dead;   /* no worker starts on it again */
    int ending; /* its last row was a CRASH: the worker lost its context and
                   exits (WORKER_LOST) without reading another pair */
    int plugin; /* the plugin whose code the worker has loaded; -1 none */
} slot;

enum { QUEUED, HANDED, DONE };

typedef struct parent {
    kb_runner *r;
    slot slots[KB_MAX_DEVICES];
    int nslots;
    kb_device devs[KB_MAX_DEVICES]; /* per slot, once ready */
    int clock_mhz;
    int begun;
    char *state;         /* per pair: QUEUED, HANDED, DONE */
    char **alone;        /* per pair: why it runs alone after its case's turns ended, or NULL */
    kb_row **row;        /* per pair: its row while earlier rows are missing; NULL for a skip */
    int next_emit, head; /* the first pair not written; not handed out */
    char *buf;           /* one message's payload */
    size_t cap;
} parent;

static int spawn(parent *pa, slot *s, kb_error *e) {
    int up[2], down[2];
    /* Close-on-exec: a helper the driver execs must not hold a pipe open. */
    if (pipe2(up, O_CLOEXEC) != 0) return kb_fail(e, "pipe: %s", strerror(errno));
    if (pipe2(down, O_CLOEXEC) != 0) {
        close(up[0]);
        close(up[1]);
        return kb_fail(e, "pipe: %s", strerror(errno));
    }
    turn_beat *beat =
        mmap(NULL, sizeof *beat, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (beat == MAP_FAILED) {
        close(up[0]), close(up[1]), close(down[0]), close(down[1]);
        return kb_fail(e, "mmap: %s", strerror(errno));
    }
    memset(beat, 0, sizeof *beat);
    fflush(NULL); /* the worker never flushes what the parent had buffered */
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(up[0]), close(up[1]), close(down[0]), close(down[1]);
        munmap(beat, sizeof *beat);
        return kb_fail(e, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        for (int i = 0; i < pa->nslots; i++) /* other workers' pipes: their EOF is theirs */
            if (pa->slots[i].pid > 0) close(pa->slots[i].rfd), close(pa->slots[i].wfd);
        close(up[0]);
        close(down[1]);
        worker(pa->r, s->device, s->uuid, !pa->begun && s == &pa->slots[0], down[0], up[1], self,
               beat);
    }
    setpgid(pid, pid); /* also here: no window in which a timeout misses it */
    close(up[1]);
    close(down[0]);
    s->pid = pid;
    s->rfd = up[0];
    s->wfd = down[1];
    s->ready = s->started = s->failed = s->ending = s->preparing = 0;
    s->assigned = s->last = s->crashed = -1;
    s->group_n = 0;
    s->plugin = -1;
    s->beat = beat;
    s->seen_beat = 0;
    return KB_OK;
}

/* Rows in plan order: those that wait for an earlier one stay buffered. */
static void flush_rows(parent *pa) {
    kb_runner *r = pa->r;
    while (pa->next_emit < r->npairs && pa->state[pa->next_emit] == DONE) {
        kb_row *row = pa->row[pa->next_emit];
        if (row) {
            kb_runner_emit(r, row);
            free(row);
            pa->row[pa->next_emit] = NULL;
        } else {
            r->skipped_na++;
        }
        pa->next_emit++;
    }
}

/* Pair p is done: row (with its samples) or NULL for a skip. */
static int finish_pair(parent *pa, int p, const kb_row *row, const double *samples, int ns) {
    if (row) {
        kb_row *copy = malloc(sizeof *copy + (size_t)ns * sizeof(double));
        if (!copy) return KB_ERR;
        *copy = *row;
        if (ns) memcpy(copy + 1, samples, (size_t)ns * sizeof(double));
        copy->samples = ns ? (const double *)(copy + 1) : NULL;
        pa->row[p] = copy;
    }
    pa->state[p] = DONE;
    return KB_OK;
}

/* A row the parent makes for pair p (CRASH, TIMEOUT, not run), as measured
 * on slot s's device. */
static void status_row(parent *pa, const slot *s, int p, kb_status st, const char *why,
                       const char *forced) {
    kb_row row;
    kb_runner_status_row(pa->r, p, st, why, forced, &row);
    if (s) snprintf(row.device, sizeof row.device, "%s", s->uuid);
    if (finish_pair(pa, p, &row, NULL, 0) != KB_OK) { /* no memory to wait: write it now */
        pa->state[p] = DONE;
        kb_runner_emit(pa->r, &row);
    }
}

static int busy_with_case(const parent *pa, const slot *self, int c) {
    for (int i = 0; i < pa->nslots; i++) {
        const slot *o = &pa->slots[i];
        if (o != self && o->pid > 0 && o->last >= 0 && pa->r->pairs[o->last].c == c) return 1;
    }
    return 0;
}

/* The pair a free worker takes next, or -1 when none is left: the next pair
 * of the case it holds (its inputs and reference are made once), else the
 * first pair of a case no busy worker holds, else the first pair left. Pair
 * times differ by orders of magnitude, so no split is fixed in advance. */
static int next_pair(parent *pa, const slot *s) {
    const kb_runner *r = pa->r;
    if (s->last >= 0) /* the rest of its case: inputs and reference are made */
        for (int q = s->last + 1; q < r->npairs && r->pairs[q].c == r->pairs[s->last].c; q++)
            if (pa->state[q] == QUEUED) return q;
    while (pa->head < r->npairs && pa->state[pa->head] != QUEUED) pa->head++;
    for (int q = pa->head; q < r->npairs; q++)
        if (pa->state[q] == QUEUED && !busy_with_case(pa, s, r->pairs[q].c)) return q;
    return pa->head < r->npairs ? pa->head : -1;
}

/* The plugin pair p's variant comes from, or -1 (built-in, Python). */
static int plugin_of(const kb_runner *r, int p) {
    if (!r->variants) return -1; /* a plan without a variant table (the isolation tests') */
    int src = kb_variant_source_index(r->variants[r->pairs[p].v]);
    return src >= 0 && kb_source_at(src)->kind == KB_SOURCE_PLUGIN ? src : -1;
}

/* How many pairs from p a worker takes to time in turns (--interleave): p
 * and the queued pairs after it of the same case and source, less those that
 * an earlier case's turns sent to run alone; 1 without --interleave. */
static int turns_from(const parent *pa, int p) {
    const kb_runner *r = pa->r;
    int n = 1;
    if (!r->opts.interleave || !r->opts.timing || !r->variants || pa->alone[p]) return 1;
    while (p + n < r->npairs && pa->state[p + n] == QUEUED && !pa->alone[p + n] &&
           kb_runner_same_turns(r, p, p + n))
        n++;
    return n;
}

/* Hand the next pair to every ready, free worker; one that has none left
 * gets its pipe closed, and ends. So does one that has loaded a plugin when
 * its next pair is of another source: a plugin's code shares a process
 * with its own variants only, and a fresh worker takes that pair. */
static void dispatch(parent *pa) {
    if (!pa->begun) return;
    for (int i = 0; i < pa->nslots; i++) {
        slot *s = &pa->slots[i];
        if (s->pid <= 0 || !s->ready || s->ending || s->assigned >= 0 || s->wfd < 0) continue;
        int p = next_pair(pa, s);
        if (p >= 0 && s->plugin >= 0 && plugin_of(pa->r, p) != s->plugin) {
            close(s->wfd);
            s->wfd = -1;
            continue;
        }
        if (p >= 0 && plugin_of(pa->r, p) >= 0) s->plugin = plugin_of(pa->r, p);
        handed hd = {p, p >= 0 ? turns_from(pa, p) : 0};
        if (p < 0 || write_all(s->wfd, &hd, sizeof hd) != KB_OK) {
            close(s->wfd); /* nothing left (or it is gone: its end shows on rfd) */
            s->wfd = -1;
            continue;
        }
        for (int q = p; q < p + hd.n; q++) pa->state[q] = HANDED;
        s->assigned = s->cur = p;
        s->group_n = hd.n;
        s->crashed = -1;
        s->seen_beat = __atomic_load_n(&s->beat->beat, __ATOMIC_ACQUIRE);
        s->started = s->preparing = 0;
        s->last = p + hd.n - 1;
    }
}

/* One message from slot s's worker; KB_ERR at the end of its output (or garbage). */
static int receive(parent *pa, slot *s) {
    kb_runner *r = pa->r;
    msg_head h;
    if (read_all(s->rfd, &h, sizeof h) != KB_OK || h.bytes > pa->cap) return KB_ERR;
    if (h.bytes && read_all(s->rfd, pa->buf, h.bytes) != KB_OK) return KB_ERR;
    if (h.type != MSG_DEVICE && h.type != MSG_FAIL &&
        (s->assigned < 0 || h.pair < s->assigned || h.pair >= s->assigned + s->group_n ||
         pa->state[h.pair] != HANDED))
        return KB_ERR;
    switch (h.type) {
    case MSG_DEVICE: {
        if (h.bytes != sizeof(device_msg)) return KB_ERR;
        const device_msg *dm = (const device_msg *)(void *)pa->buf;
        pa->devs[s - pa->slots] = dm->dev;
        if (!s->uuid[0]) snprintf(s->uuid, sizeof s->uuid, "%s", dm->dev.uuid);
        if (s == &pa->slots[0] && !pa->begun) pa->clock_mhz = dm->sm_clock_now_mhz;
        s->ready = 1;
        return KB_OK;
    }
    case MSG_FAIL:
        s->failed = 1;
        s->fail_code = h.code;
        snprintf(s->fail_msg.msg, sizeof s->fail_msg.msg, "%.*s", (int)h.bytes, pa->buf);
        return KB_OK;
    case MSG_STAGE:
        if (h.bytes > 1 && !s->preparing) {
            s->preparing = 1;
            s->t_prepare = kb_now_s();
        } else if (h.bytes <= 1) {
            s->preparing = 0;
        }
        snprintf(s->stage, sizeof s->stage, "%.*s", (int)h.bytes, pa->buf);
        return KB_OK;
    case MSG_START:
        s->preparing = 0;
        s->started = 1;
        s->cur = h.pair;
        s->t_start = kb_now_s();
        snprintf(s->forced, sizeof s->forced, "%.*s", (int)h.bytes, pa->buf);
        return KB_OK;
    case MSG_SKIP:
        finish_pair(pa, h.pair, NULL, NULL, 0);
        break;
    case MSG_ROW: {
        if (h.bytes < sizeof(kb_row)) return KB_ERR;
        kb_row row;
        memcpy(&row, pa->buf, sizeof row);
        int ns = (int)((h.bytes - sizeof row) / sizeof(double));
        /* A CRASH row is a lost context: the worker is on its way out, and a
         * pair handed to it now would be charged to its death. */
        if (row.status == KB_ROW_CRASH) s->ending = 1, s->crashed = h.pair;
        if (pa->alone[h.pair] && row.stats.n > 0) { /* why it was not timed in turns */
            size_t used = strlen(row.acc.note);
            snprintf(row.acc.note + used, sizeof row.acc.note - used, "%s%s", used ? "; " : "",
                     pa->alone[h.pair]);
        }
        memcpy(r->measure.samples, pa->buf + sizeof row, (size_t)ns * sizeof(double));
        if (finish_pair(pa, h.pair, &row, r->measure.samples, ns) != KB_OK) {
            row.samples = ns ? r->measure.samples : NULL; /* no memory to wait: write it now */
            pa->state[h.pair] = DONE;
            kb_runner_emit(r, &row);
        }
        break;
    }
    default:
        return KB_ERR;
    }
    for (int q = s->assigned; q < s->assigned + s->group_n; q++)
        if (pa->state[q] == HANDED) { /* its turns go on */
            flush_rows(pa);
            return KB_OK;
        }
    s->assigned = -1;
    /* The next pair first, then the files: the GPU need not wait for them. */
    dispatch(pa);
    flush_rows(pa);
    return KB_OK;
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

/* The worker of slot s was killed while preparing the case of its pair:
 * every pair of that case without a row is a TIMEOUT row naming the stage
 * (the case's inputs and reference would be made again for each, and
 * overrun again), and the sweep goes on with the next case. The plan holds
 * a case's pairs side by side. */
static void prepare_timed_out(parent *pa, slot *s) {
    const kb_runner *r = pa->r;
    char why[1200];
    snprintf(why, sizeof why,
             "%.200s did not finish within %g s (--case-timeout): the worker process was killed; "
             "no variant of the case ran",
             s->stage, r->opts.case_timeout_s);
    int c = r->pairs[s->assigned].c, lo = s->assigned, hi = s->assigned;
    while (lo > 0 && r->pairs[lo - 1].c == c) lo--;
    while (hi + 1 < r->npairs && r->pairs[hi + 1].c == c) hi++;
    status_row(pa, s, s->assigned, KB_ROW_TIMEOUT, why, "");
    for (int q = lo; q <= hi; q++) /* with the rest of its turns (--interleave) */
        if (pa->state[q] == QUEUED ||
            (pa->state[q] == HANDED && q > s->assigned && q < s->assigned + s->group_n))
            status_row(pa, s, q, KB_ROW_TIMEOUT, why, "");
}

/* Slot s's worker ended (timed_out: killed for it): reap it, and make the
 * row its end costs:
 *   - a sticky CUDA error: the worker has sent the CRASH row and exited;
 *   - a worker that dies (a signal, an unexpected exit): a CRASH row for the
 *     pair it held, saying how it died;
 *   - a pair still running --case-timeout seconds after its START: SIGKILL
 *     to the worker's process group (pump), a TIMEOUT row; a case still
 *     being prepared --case-timeout seconds after its first STAGE: the
 *     same, and a TIMEOUT row for each of its pairs (prepare_timed_out);
 * and a new worker on the same device carries on (it must open the device
 * of the same UUID). A CPU variant that faults or hangs costs its row just
 * the same. */
static char alone_short[] = "timed alone, not in turns";

/* A worker's end in the middle of its case's turns: the pairs of them that
 * have no row yet run again, alone, in a fresh worker; their rows say why
 * (guilty: the pair whose turn it was). */
static void turns_ended(parent *pa, slot *s, int guilty, const char *how) {
    const kb_runner *r = pa->r;
    char why[300];
    const kb_variant *v = guilty >= 0 && r->variants ? r->variants[r->pairs[guilty].v] : NULL;
    snprintf(why, sizeof why, "timed alone, not in turns: its case's turns ended when %.64s %s",
             v ? v->name : "a variant", how);
    for (int q = s->assigned; q < s->assigned + s->group_n; q++) {
        if (pa->state[q] != HANDED) continue;
        pa->state[q] = QUEUED;
        if (pa->alone[q] != alone_short) free(pa->alone[q]);
        pa->alone[q] = strdup(why);
        if (!pa->alone[q]) pa->alone[q] = alone_short; /* no memory for the whole note */
        if (q < pa->head) pa->head = q;
    }
}

static void settle(parent *pa, slot *s, int timed_out) {
    kb_runner *r = pa->r;
    int status = 0;
    close(s->rfd);
    if (s->wfd >= 0) close(s->wfd);
    s->wfd = -1;
    while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR) continue;
    s->pid = 0;
    /* the turn it died in: the beat's last word, newer than pump's last look */
    if (__atomic_load_n(&s->beat->beat, __ATOMIC_ACQUIRE) != s->seen_beat)
        s->cur = __atomic_load_n(&s->beat->pair, __ATOMIC_RELAXED);
    munmap(s->beat, sizeof *s->beat);
    s->beat = NULL;
    char why[1200];
    if (s->assigned >= 0 && s->group_n > 1 && !(timed_out && s->preparing)) {
        /* the turn's pair is to blame; a CRASH row it sent is its row */
        int guilty = s->crashed >= 0 ? s->crashed : s->cur;
        if (pa->state[guilty] == HANDED) {
            if (timed_out)
                snprintf(why, sizeof why,
                         "did not finish a turn (its check, warm-up or one sample) within %g s "
                         "(--case-timeout): the worker process was killed",
                         r->opts.case_timeout_s);
            else
                death_text(status, why, sizeof why);
            status_row(pa, s, guilty, timed_out ? KB_ROW_TIMEOUT : KB_ROW_CRASH, why,
                       s->started ? s->forced : "");
        }
        turns_ended(pa, s, guilty, timed_out ? "ran past --case-timeout" : "crashed");
        s->assigned = -1;
        flush_rows(pa);
        return;
    }
    if (timed_out && s->preparing) {
        prepare_timed_out(pa, s);
    } else if (timed_out) {
        snprintf(why, sizeof why,
                 "did not finish within %g s (--case-timeout): the worker process was killed",
                 r->opts.case_timeout_s);
        status_row(pa, s, s->assigned, KB_ROW_TIMEOUT, why, s->forced);
    } else if (s->assigned >= 0) {
        death_text(status, why, sizeof why);
        status_row(pa, s, s->assigned, KB_ROW_CRASH, why, s->started ? s->forced : "");
    } else if (!s->ready) { /* it never opened the device: no new worker would either */
        s->dead = 1;
        if (!s->failed) {
            death_text(status, why, sizeof why);
            kb_fail(&s->fail_msg, "%s before it opened device %d", why, s->device);
            s->fail_code = KB_ERR;
        }
    }
    s->assigned = -1;
    flush_rows(pa);
}

static int all_done(const parent *pa) {
    return pa->next_emit >= pa->r->npairs;
}

static int any_queued(parent *pa) {
    while (pa->head < pa->r->npairs && pa->state[pa->head] != QUEUED) pa->head++;
    return pa->head < pa->r->npairs;
}

/* Every pair without a row once no device is left: a NOT_RUN row each. */
static void give_up(parent *pa, const slot *s) {
    char why[1200];
    snprintf(why, sizeof why, KB_NOT_RUN "a new worker process failed to start: %.900s",
             s ? s->fail_msg.msg : "no worker is left");
    for (int p = 0; p < pa->r->npairs; p++)
        if (pa->state[p] != DONE) status_row(pa, s, p, KB_ROW_NOT_RUN, why, "");
    flush_rows(pa);
}

/* Wait for the next message of any worker, or the first timeout. */
static void pump(parent *pa) {
    double limit = pa->r->opts.case_timeout_s;
    struct pollfd pf[KB_MAX_DEVICES];
    slot *who[KB_MAX_DEVICES];
    int n = 0, wait_ms = -1;
    for (int i = 0; i < pa->nslots; i++) {
        slot *s = &pa->slots[i];
        if (s->pid <= 0) continue;
        /* In turns, each turn (a check, a warm-up, a sample) restarts the
         * limit; the beat is read at least once a second. */
        unsigned beat = __atomic_load_n(&s->beat->beat, __ATOMIC_ACQUIRE);
        if (s->group_n > 1 && s->assigned >= 0 && beat != s->seen_beat) {
            s->seen_beat = beat;
            s->cur = __atomic_load_n(&s->beat->pair, __ATOMIC_RELAXED);
            s->started = 1;
            s->preparing = 0;
            s->t_start = kb_now_s();
        }
        if (s->assigned >= 0 && (s->started || s->preparing) && limit > 0) {
            double left = (s->started ? s->t_start : s->t_prepare) + limit - kb_now_s();
            if (left <= 0) {
                kill(-s->pid, SIGKILL);
                kill(s->pid, SIGKILL);
                settle(pa, s, 1);
                return;
            }
            int ms = (int)(left * 1000) + 1;
            if (s->group_n > 1 && ms > 1000) ms = 1000;
            if (wait_ms < 0 || ms < wait_ms) wait_ms = ms;
        }
        pf[n] = (struct pollfd){s->rfd, POLLIN, 0};
        who[n++] = s;
    }
    if (n == 0) return;
    int got = poll(pf, (nfds_t)n, wait_ms);
    if (got < 0) return; /* EINTR: the caller comes back */
    for (int k = 0; k < n; k++)
        if (pf[k].revents && receive(pa, who[k]) != KB_OK) settle(pa, who[k], 0);
}

/* Before the first pair: every worker has opened its device, or one could
 * not (KB_NO_DEVICE / KB_ERR). --devices all learns the count from the
 * first worker. */
static int start(parent *pa, const kb_device_set *set, kb_error *e) {
    int all = set->n == 0;
    pa->nslots = all ? 1 : set->n;
    for (int i = 0; i < pa->nslots; i++) pa->slots[i].device = all ? 0 : set->ordinals[i];
    for (int i = 0; i < pa->nslots; i++)
        if (spawn(pa, &pa->slots[i], e) != KB_OK) return KB_ERR;
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < pa->nslots; i++) {
            slot *s = &pa->slots[i];
            if (s->dead || s->failed) {
                *e = s->fail_msg;
                return s->fail_code == KB_NO_DEVICE ? KB_NO_DEVICE : KB_ERR;
            }
            waiting += !s->ready;
        }
        if (!waiting && all && pa->nslots == 1) {
            int count = pa->devs[0].visible > 0 ? pa->devs[0].visible : 1;
            if (count > KB_MAX_DEVICES) count = KB_MAX_DEVICES;
            for (int i = 1; i < count; i++) {
                pa->slots[i].device = i;
                pa->nslots = i + 1;
                if (spawn(pa, &pa->slots[i], e) != KB_OK) return KB_ERR;
            }
            all = 0;
            continue;
        }
        if (!waiting) return KB_OK;
        pump(pa);
    }
}

int kb_isolated_run(kb_runner *r, const kb_device_set *set, kb_begin_fn begin, void *begin_ctx,
                    kb_error *e) {
    static parent zero;
    parent *pa = malloc(sizeof *pa);
    if (!pa) return kb_fail(e, "out of host memory");
    *pa = zero;
    pa->r = r;
    pa->cap = sizeof(kb_row) + (size_t)r->opts.rule.max_samples * sizeof(double);
    pa->buf = malloc(pa->cap);
    pa->state = calloc((size_t)r->npairs + 1, 1);
    pa->row = calloc((size_t)r->npairs + 1, sizeof *pa->row);
    pa->alone = calloc((size_t)r->npairs + 1, sizeof *pa->alone);
    if (!pa->buf || !pa->state || !pa->row || !pa->alone) {
        free(pa->buf), free(pa->state), free(pa->row), free(pa->alone), free(pa);
        return kb_fail(e, "out of host memory for %d pairs", r->npairs);
    }
    /* An inherited SIG_IGN (or SA_NOCLDWAIT) would reap the workers itself:
     * waitpid would fail and a crash would read as a clean exit. A worker
     * that dies leaves a pipe that would SIGPIPE the next write to it. */
    struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN}, old, oldpipe;
    sigemptyset(&dfl.sa_mask);
    sigemptyset(&ign.sa_mask);
    sigaction(SIGCHLD, &dfl, &old);
    sigaction(SIGPIPE, &ign, &oldpipe);
    int rc = start(pa, set, e);
    if (rc == KB_OK) {
        /* Each distinct device once, in the order of the set. */
        kb_device uniq[KB_MAX_DEVICES];
        int nu = 0;
        for (int i = 0; i < pa->nslots; i++) {
            int seen = 0;
            for (int k = 0; k < nu; k++) seen |= strcmp(uniq[k].uuid, pa->devs[i].uuid) == 0;
            if (!seen) uniq[nu++] = pa->devs[i];
        }
        /* a plan of host variants opened no device: no GPU to name */
        if (begin(begin_ctx, r->needs_device ? uniq : NULL, r->needs_device ? nu : 0,
                  r->needs_device ? pa->clock_mhz : -1, e) != KB_OK)
            rc = KB_REFUSED;
    }
    if (rc == KB_OK) {
        pa->begun = 1;
        dispatch(pa);
        while (!all_done(pa)) {
            int live = 0;
            slot *lost = NULL;
            for (int i = 0; i < pa->nslots; i++) {
                slot *s = &pa->slots[i];
                if (s->pid <= 0 && !s->dead && any_queued(pa) && spawn(pa, s, e) != KB_OK) {
                    s->dead = 1; /* no new worker: this device is done */
                    s->fail_msg = *e;
                }
                if (s->dead && s->pid <= 0) lost = s;
                live += s->pid > 0;
            }
            if (!live) {
                give_up(pa, lost);
                break;
            }
            dispatch(pa);
            pump(pa);
        }
    }
    /* The workers end once their pipe closes (after the leak report). */
    for (int i = 0; i < pa->nslots; i++) {
        slot *s = &pa->slots[i];
        if (s->pid <= 0) continue;
        if (rc != KB_OK) kill(-s->pid, SIGKILL), kill(s->pid, SIGKILL);
        if (s->wfd >= 0) close(s->wfd);
        s->wfd = -1;
        char drain[4096];
        ssize_t got;
        do got = rc == KB_OK ? read(s->rfd, drain, sizeof drain) : 0;
        while (got > 0 || (got < 0 && errno == EINTR));
        settle(pa, s, 0);
    }
    sigaction(SIGPIPE, &oldpipe, NULL);
    sigaction(SIGCHLD, &old, NULL);
    for (int p = 0; p < r->npairs; p++) free(pa->row[p]);
    for (int p = 0; p < r->npairs; p++)
        if (pa->alone[p] != alone_short) free(pa->alone[p]);
    free(pa->alone);
    free(pa->row);
    free(pa->state);
    free(pa->buf);
    free(pa);
    return rc;
}
