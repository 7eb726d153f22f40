/* Worker isolation (harness/run/isolate.c) without a GPU: this file stands in for the device and
 * the runner (kb_device_open, kb_runner_run_one, kb_runner_emit, ...), so the real fork / pipe /
 * queue / timeout / crash bookkeeping runs against scripted workers, one or several. One letter
 * per pair of the plan, each pair a case of its own unless a case map says otherwise:
 *   r  START, then a PASS row with max_samples samples (larger than a pipe)
 *   w  the same after 300 ms (a slow pair: later pairs finish first)
 *   u  an UNSUPPORTED row, no START        s  skipped (another function)
 *   c  START, then SIGSEGV                 d  SIGSEGV before its START
 *   l  START, a CRASH row, the context lost (the worker ends by itself)
 *   x  START, then a clean _exit(0)        h  START, then hangs (with a child)
 *   p  START, then dies (SIGALRM) halfway through writing its row
 *   i  preparing its case: stalls 5 s making the inputs, then START and a PASS row
 *   f  preparing its case: makes the inputs, stalls 5 s in the CPU reference, ...
 *   q  preparing its case for 200 ms, then START and a PASS row 200 ms later
 */
#define _GNU_SOURCE
#include "run/runner.h"
#include "kbtest.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { NSAMPLES = 20000, MAXGOT = 64 };

static const char *script;
static const char *case_map; /* per pair, its case as a digit; NULL: pair p is case p */
static int device_rc = KB_OK;
static pid_t test_pid;
static int device_in_parent;       /* a device or runner call in the process that isolates */
static int pid_pipe[2] = {-1, -1}; /* 'h' writes its worker's and child's pids here */
static int eintr_storm;            /* workers interrupt themselves with SIGALRM */
static int visible = 1;            /* devices a worker sees (--devices all) */
static int other_model = -1;       /* this ordinal is another model */
static int refuse;                 /* on_begin refuses the devices */
static double samples[NSAMPLES];

static struct {
    int pair;
    kb_status st;
    char why[1200];
    int samples_ok;
} got[MAXGOT];
static int ngot, begun, begun_without_device;
static int host_plan;            /* the next run's plan holds host variants only */
static size_t worker_of[MAXGOT]; /* per pair: the pid of the worker that ran it */

/* ---- the device and the runner, as a worker sees them ---- */

static void note_device_call(void) {
    if (getpid() == test_pid) device_in_parent = 1;
}

int kb_device_open(int ordinal, kb_device *d, kb_error *e) {
    note_device_call();
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    d->visible = visible;
    snprintf(d->name, sizeof d->name, "%s", ordinal == other_model ? "other model" : "stub device");
    snprintf(d->uuid, sizeof d->uuid, "GPU-stub-%d", ordinal);
    if (device_rc != KB_OK) {
        kb_fail(e, "stub: no device here");
        return device_rc;
    }
    return KB_OK;
}

int kb_device_peaks(kb_device *d, int force, kb_error *e) {
    (void)d, (void)force, (void)e;
    note_device_call();
    return KB_OK;
}

int kb_device_sm_clock_now(const kb_device *d) {
    (void)d;
    note_device_call();
    return -1;
}

int kb_runner_attach(kb_runner *r, kb_device *dev, kb_error *e) {
    (void)e;
    note_device_call();
    r->dev = dev;
    return KB_OK;
}

static void send_row(kb_runner *r, int p, kb_status st) {
    kb_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.params, sizeof row.params, "p=%d", p);
    row.status = st;
    snprintf(row.reason, sizeof row.reason, "%s", st == KB_ROW_CRASH ? "stub: context lost" : "");
    row.workspace_bytes = (size_t)getpid(); /* which worker ran it */
    if (st == KB_ROW_PASS) {
        for (int i = 0; i < NSAMPLES; i++) samples[i] = p * 1e6 + i;
        row.stats.n = NSAMPLES;
        row.samples = samples;
    }
    r->printers[0]->row(r->printers[0], &row);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) continue;
}

static void die(int sig) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none); /* no core file in the working directory */
    signal(sig, SIG_DFL);          /* a sanitizer's handler would exit(1) instead */
    raise(sig);
}

static void on_alarm(int sig) {
    (void)sig;
}

static void every_100us(void) {
    struct itimerval t = {{0, 100}, {0, 100}};
    setitimer(ITIMER_REAL, &t, NULL);
}

void kb_runner_finish(kb_runner *r) {
    (void)r;
    note_device_call();
}

void kb_runner_run_one(kb_runner *r, int p) {
    note_device_call();
    if (eintr_storm) every_100us(); /* the handler is inherited, the timer is not */
    {
        r->pair = p;
        switch (script[p]) {
        case 'w': {
            r->on_start(r, p, "");
            struct timespec ts = {0, 300000000};
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR) continue;
            send_row(r, p, KB_ROW_PASS);
            break;
        }
        case 'r':
            r->on_start(r, p, "");
            send_row(r, p, KB_ROW_PASS);
            break;
        case 'u':
            send_row(r, p, KB_ROW_UNSUPPORTED);
            break;
        case 's':
            r->on_skip(r, p);
            break;
        case 'c':
            r->on_start(r, p, "");
            die(SIGSEGV);
            break;
        case 'd':
            die(SIGSEGV);
            break;
        case 'l':
            r->on_start(r, p, "");
            send_row(r, p, KB_ROW_CRASH);
            r->context_lost = 1;
            return;
        case 'x':
            r->on_start(r, p, "");
            _exit(0);
        case 'h': {
            r->on_start(r, p, "");
            pid_t pids[2] = {getpid(), fork()};
            if (pids[1] == 0) { /* holds the pipe too: only the group's death ends it */
                close(1);       /* a survivor must not hold the test's output open */
                close(2);
                for (;;) pause();
            }
            if (write(pid_pipe[1], pids, sizeof pids) != (ssize_t)sizeof pids) _exit(3);
            for (;;) pause();
        }
        case 'i':
        case 'f':
            /* 5 s: past every timeout here, and a bounded wait where none applies */
            r->on_stage(r, p, "making the case's inputs");
            if (script[p] == 'f') r->on_stage(r, p, "the case's CPU reference");
            sleep_ms(5000);
            r->on_stage(r, p, "");
            r->on_start(r, p, "");
            send_row(r, p, KB_ROW_PASS);
            break;
        case 'q':
            r->on_stage(r, p, "making the case's inputs");
            sleep_ms(200);
            r->on_stage(r, p, "");
            r->on_start(r, p, "");
            sleep_ms(200);
            send_row(r, p, KB_ROW_PASS);
            break;
        case 'p': {
            r->on_start(r, p, "");
            struct itimerval t = {{0, 0}, {0, 100000}}; /* default action: the worker dies */
            signal(SIGALRM, SIG_DFL);
            setitimer(ITIMER_REAL, &t, NULL);
            send_row(r, p, KB_ROW_PASS); /* blocks: the parent is not reading yet */
            pause();
            break;
        }
        }
    }
}

/* ---- the rows, as the parent receives them ---- */

/* --interleave's entry points: the scripted plans have no variant table,
 * so the parent never hands out turns (tests/cli/test_interleave.sh). */
void kb_runner_run_group(kb_runner *r, int first, int n) {
    for (int q = first; q < first + n; q++) kb_runner_run_one(r, q);
}

int kb_runner_same_turns(const kb_runner *r, int p, int q) {
    (void)r, (void)p, (void)q;
    return 0;
}

void kb_runner_emit(kb_runner *r, const kb_row *row) {
    r->counts[row->status]++;
    if (ngot == MAXGOT) return;
    int p = atoi(row->params + 2), ok = row->status != KB_ROW_PASS || row->stats.n == NSAMPLES;
    for (int i = 0; ok && row->status == KB_ROW_PASS && i < NSAMPLES; i++)
        ok = row->samples[i] == p * 1e6 + i;
    got[ngot].pair = p;
    got[ngot].st = row->status;
    snprintf(got[ngot].why, sizeof got[ngot].why, "%s", row->reason);
    got[ngot++].samples_ok = ok;
    if (p >= 0 && p < MAXGOT) worker_of[p] = row->workspace_bytes;
    /* 'p' next: let its worker fill the pipe and die before anything is read. */
    if (p + 1 < r->npairs && script[p + 1] == 'p') {
        struct timespec ts = {0, 300000000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) continue;
    }
}

void kb_runner_status_row(const kb_runner *r, int p, kb_status st, const char *why,
                          const char *forced_limit, kb_row *row) {
    (void)r, (void)forced_limit;
    memset(row, 0, sizeof *row);
    snprintf(row->params, sizeof row->params, "p=%d", p);
    row->status = st;
    snprintf(row->reason, sizeof row->reason, "%s", why);
}

static int ndevs_begun;

static int on_begin(void *ctx, const kb_device *devs, int ndevs, int sm_clock_now_mhz,
                    kb_error *e) {
    (void)ctx, (void)sm_clock_now_mhz;
    if (!devs || ndevs == 0) {
        begun_without_device++;
        return KB_OK;
    }
    begun += strcmp(devs[0].name, "stub device") == 0;
    ndevs_begun = ndevs;
    return refuse ? kb_fail(e, "stub: refused") : KB_OK;
}

static kb_runner last; /* the last run's */
static kb_error last_e;

/* The script on the devices of set ("0", "0,0", "" for all); each pair its own case. */
static int run_on(const char *s, double timeout_s, const char *set) {
    memset(&last, 0, sizeof last);
    memset(&last_e, 0, sizeof last_e);
    last.opts.rule.max_samples = NSAMPLES;
    last.opts.case_timeout_s = timeout_s;
    last.npairs = (int)strlen(s);
    last.needs_device = !host_plan;
    last.measure.samples = malloc(NSAMPLES * sizeof(double));
    last.pairs = malloc((size_t)last.npairs * sizeof *last.pairs);
    for (int p = 0; p < last.npairs; p++)
        last.pairs[p] = (kb_pair){case_map ? case_map[p] - '0' : p, 0, p};
    kb_device_set devices = {{0}, 0};
    for (const char *c = set; *c; c++)
        if (*c != ',') devices.ordinals[devices.n++] = *c - '0';
    script = s;
    ngot = begun = begun_without_device = device_in_parent = ndevs_begun = 0;
    memset(worker_of, 0, sizeof worker_of);
    test_pid = getpid();
    int rc = kb_isolated_run(&last, &devices, on_begin, NULL, &last_e);
    free(last.measure.samples);
    free(last.pairs);
    return rc;
}

static int run(const char *s, double timeout_s) {
    return run_on(s, timeout_s, "0");
}

/* The rows in order, one per pair: want[k] is the status of pair k ('-' none). */
static int rows_are(const char *want) {
    static const char *names = "PFUECTN"; /* kb_status order */
    int k = 0;
    for (int p = 0; want[p]; p++) {
        if (want[p] == '-') continue;
        if (k >= ngot || got[k].pair != p || names[got[k].st] != want[p] || !got[k].samples_ok) {
            fprintf(stderr, "  pair %d: want %c, got row %d of %d\n", p, want[p], k, ngot);
            return 0;
        }
        k++;
    }
    return k == ngot;
}

static int sweep_ok(const char *s, double timeout_s, const char *want) {
    return run(s, timeout_s) == KB_OK && rows_are(want);
}

static const char *why_of(int pair) {
    for (int k = 0; k < ngot; k++)
        if (got[k].pair == pair) return got[k].why;
    return "";
}

static int gone(pid_t pid) {
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')');
    return paren && paren[1] == ' ' && paren[2] == 'Z'; /* a zombie: dead, not reaped yet */
}

static int gone_within(pid_t pid, double seconds) {
    for (int i = 0; i < seconds * 100; i++) {
        if (gone(pid)) return 1;
        usleep(10000);
    }
    return gone(pid);
}

KB_TEST(rows_stream_in_order_and_rows_larger_than_the_pipe_arrive_whole) {
    KB_EXPECT(sweep_ok("rrusr", 0, "PPU-P"));
    KB_EXPECT(last.skipped_na == 1);
    KB_EXPECT(begun == 1);
    KB_EXPECT(!device_in_parent);
}

KB_TEST(a_crash_costs_its_own_row_and_the_sweep_goes_on) {
    KB_EXPECT(sweep_ok("rcrcr", 0, "PCPCP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "signal 11");
    KB_EXPECT(begun == 1);
}

KB_TEST(a_death_between_pairs_is_the_next_pairs_row) {
    KB_EXPECT(sweep_ok("rdr", 0, "PCP"));
}

KB_TEST(a_lost_context_keeps_the_workers_own_row_only) {
    KB_EXPECT(sweep_ok("rlr", 0, "PCP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "stub: context lost");
}

KB_TEST(an_exit_mid_pair_is_one_crash_row) {
    KB_EXPECT(sweep_ok("rxr", 0, "PCP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "exited with code 0");
}

KB_TEST(a_death_halfway_through_a_row_loses_no_row_and_doubles_none) {
    KB_EXPECT(sweep_ok("rpr", 0, "PCP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "signal 14");
}

KB_TEST(a_hang_is_a_timeout_and_its_whole_process_group_dies) {
    KB_EXPECT(pipe(pid_pipe) == 0);
    double t0 = kb_now_s();
    KB_EXPECT(run("rhr", 0.3) == KB_OK);
    double took = kb_now_s() - t0;
    KB_EXPECT(rows_are("PTP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "did not finish within 0.3 s");
    KB_EXPECT(took >= 0.3 && took < 10);
    pid_t pids[2] = {0, 0};
    KB_EXPECT(read(pid_pipe[0], pids, sizeof pids) == (ssize_t)sizeof pids);
    KB_EXPECT(pids[1] > 0 && gone_within(pids[1], 5)); /* the worker's own child too */
    if (pids[1] > 0 && !gone(pids[1])) kill(pids[1], SIGKILL);
    close(pid_pipe[0]);
    close(pid_pipe[1]);
}

/* Pairs 0-1 are case 0, 2-3 case 1, 4 case 2. */
static int run_cases(const char *s, double timeout_s) {
    case_map = "00112";
    int rc = run(s, timeout_s);
    case_map = NULL;
    return rc;
}

KB_TEST(inputs_that_overrun_the_timeout_are_a_timeout_row_for_every_variant_of_the_case) {
    double t0 = kb_now_s();
    KB_EXPECT(run_cases("irrrr", 0.3) == KB_OK);
    KB_EXPECT(kb_now_s() - t0 < 4);
    KB_EXPECT(rows_are("TTPPP")); /* the next case runs */
    for (int p = 0; p < 2; p++)
        KB_EXPECT_STR_CONTAINS(why_of(p), "making the case's inputs did not finish within 0.3 s "
                                          "(--case-timeout");
}

KB_TEST(a_reference_that_overruns_the_timeout_names_the_reference) {
    KB_EXPECT(run_cases("rrfrr", 0.3) == KB_OK);
    KB_EXPECT(rows_are("PPTTP"));
    KB_EXPECT_STR_CONTAINS(why_of(2), "the case's CPU reference did not finish within 0.3 s");
    KB_EXPECT_STR_CONTAINS(why_of(3), "the case's CPU reference did not finish within 0.3 s");
    KB_EXPECT_STR_CONTAINS(why_of(3), "no variant of the case ran");
}

KB_TEST(preparing_a_case_and_running_a_pair_each_have_the_timeout) {
    KB_EXPECT(run("qq", 0.3) == KB_OK); /* 200 ms + 200 ms each, under 0.3 s apiece */
    KB_EXPECT(rows_are("PP"));
}

KB_TEST(interrupted_reads_writes_and_waits_are_retried) {
    struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART: every call sees EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    eintr_storm = 1;
    every_100us();
    KB_EXPECT(run("rrrrrrrrcr", 0) == KB_OK);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    eintr_storm = 0;
    signal(SIGALRM, SIG_DFL);
    KB_EXPECT(rows_are("PPPPPPPPCP"));
}

KB_TEST(no_device_runs_nothing) {
    device_rc = KB_NO_DEVICE;
    int rc = run("rr", 0);
    device_rc = KB_OK;
    KB_EXPECT(rc == KB_NO_DEVICE);
    KB_EXPECT(ngot == 0 && begun == 0);
    KB_EXPECT_STR_CONTAINS(last_e.msg, "stub: no device here");
}

KB_TEST(a_plan_of_host_variants_runs_in_workers_that_open_no_device) {
    device_rc = KB_NO_DEVICE; /* opening one would fail the run */
    host_plan = 1;
    int rc = run("rcr", 0);
    host_plan = 0;
    device_rc = KB_OK;
    KB_EXPECT(rc == KB_OK);
    KB_EXPECT(rows_are("PCP")); /* a crash still costs only its row */
    KB_EXPECT(begun == 0 && begun_without_device == 1);
}

KB_TEST(an_inherited_ignored_sigchld_still_tells_how_a_worker_died) {
    signal(SIGCHLD, SIG_IGN);
    KB_EXPECT(run("rcr", 0) == KB_OK);
    struct sigaction now;
    sigaction(SIGCHLD, NULL, &now);
    KB_EXPECT(now.sa_handler == SIG_IGN); /* given back as it was */
    signal(SIGCHLD, SIG_DFL);
    KB_EXPECT(rows_are("PCP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "signal 11");
}

KB_TEST(a_worker_dies_with_the_process_that_isolates) {
    KB_EXPECT(pipe(pid_pipe) == 0);
    fflush(NULL);
    pid_t main_pid = fork();
    if (main_pid == 0) {
        run("h", 0); /* no --case-timeout: only its parent's death ends it */
        _exit(0);
    }
    pid_t pids[2] = {0, 0};
    KB_EXPECT(read(pid_pipe[0], pids, sizeof pids) == (ssize_t)sizeof pids);
    kill(main_pid, SIGKILL);
    waitpid(main_pid, NULL, 0);
    KB_EXPECT(pids[0] > 0 && gone_within(pids[0], 5));
    if (pids[0] > 0 && !gone(pids[0])) kill(-pids[0], SIGKILL);
    if (pids[1] > 0) kill(pids[1], SIGKILL); /* its child is not the group's leader's */
    close(pid_pipe[0]);
    close(pid_pipe[1]);
}

/* ---- several workers, one queue ---- */

KB_TEST(two_workers_share_the_queue_and_rows_keep_sweep_order) {
    /* Pair 0 takes 300 ms on one worker while the other runs 1..5: their rows
     * wait for it, and come out in sweep order. */
    KB_EXPECT(run_on("wrrrrr", 0, "0,0") == KB_OK);
    KB_EXPECT(rows_are("PPPPPP"));
    KB_EXPECT(worker_of[0] != 0 && worker_of[1] != 0 && worker_of[0] != worker_of[1]);
    for (int p = 2; p < 6; p++) KB_EXPECT(worker_of[p] == worker_of[1]);
    KB_EXPECT(begun == 1 && ndevs_begun == 1); /* one GPU, listed once */
    KB_EXPECT(!device_in_parent);
}

KB_TEST(a_crash_on_one_worker_costs_its_pair_only) {
    KB_EXPECT(run_on("wcrrcr", 0, "0,1") == KB_OK);
    KB_EXPECT(rows_are("PCPPCP"));
    KB_EXPECT_STR_CONTAINS(why_of(1), "signal 11");
    KB_EXPECT(ndevs_begun == 2);
}

KB_TEST(a_hang_on_one_worker_is_a_timeout_while_the_other_goes_on) {
    KB_EXPECT(pipe(pid_pipe) == 0);
    KB_EXPECT(run_on("hrrrr", 0.5, "0,1") == KB_OK);
    KB_EXPECT(rows_are("TPPPP"));
    KB_EXPECT(worker_of[1] == worker_of[4]); /* the other worker ran them all */
    pid_t pids[2] = {0, 0};
    KB_EXPECT(read(pid_pipe[0], pids, sizeof pids) == (ssize_t)sizeof pids);
    KB_EXPECT(pids[1] > 0 && gone_within(pids[1], 5));
    if (pids[1] > 0 && !gone(pids[1])) kill(pids[1], SIGKILL);
    close(pid_pipe[0]);
    close(pid_pipe[1]);
}

KB_TEST(devices_all_starts_a_worker_per_visible_device) {
    visible = 3;
    int rc = run_on("rrrrrrrr", 0, "");
    visible = 1;
    KB_EXPECT(rc == KB_OK);
    KB_EXPECT(rows_are("PPPPPPPP"));
    KB_EXPECT(ndevs_begun == 3);
}

KB_TEST(a_refused_device_set_runs_nothing) {
    refuse = 1;
    other_model = 1;
    int rc = run_on("rr", 0, "0,1");
    refuse = 0;
    other_model = -1;
    KB_EXPECT(rc == KB_REFUSED);
    KB_EXPECT(ngot == 0);
    KB_EXPECT_STR_CONTAINS(last_e.msg, "stub: refused");
}

KB_TEST(one_device_that_cannot_open_runs_nothing_on_the_others) {
    device_rc = KB_NO_DEVICE;
    int rc = run_on("rr", 0, "0,0");
    device_rc = KB_OK;
    KB_EXPECT(rc == KB_NO_DEVICE);
    KB_EXPECT(ngot == 0 && begun == 0);
}
