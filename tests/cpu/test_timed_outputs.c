/* Timed work is checked work: every sample starts from poisoned outputs, and
 * the last timed launch's outputs are compared with the checked run's
 * (harness/run/runner.c, check_timed). Host (KB_HOST) variants need no
 * device, so the whole path runs here: topk/cpu_select as it is, and wrapped
 * into result caches that compute for their first calls only and then return
 * without touching the outputs. In this process (no isolation), no device.
 */
#include "run/runner.h"
#include "kbtest.h"

enum { MAX_ROWS = 4 };

typedef struct row_log {
    kb_printer p; /* first: the runner hands rows to &p */
    int n;
    kb_status status[MAX_ROWS];
    char reason[MAX_ROWS][1200];
    int deterministic[MAX_ROWS];
    int samples[MAX_ROWS];
} row_log;

static void log_row(kb_printer *p, const kb_row *r) {
    row_log *l = (row_log *)p;
    if (l->n == MAX_ROWS) return;
    l->status[l->n] = r->status;
    snprintf(l->reason[l->n], sizeof l->reason[0], "%s", r->reason);
    l->deterministic[l->n] = r->deterministic;
    l->samples[l->n++] = r->stats.n;
}

static void log_begin(kb_printer *p, const kb_meta *m) {
    (void)p, (void)m;
}

static void log_end(kb_printer *p) {
    (void)p;
}

/* ---- a result cache around cpu_select ---- */

static const kb_variant_impl *good(void) {
    return kb_find_variant("topk", "cpu_select")->impl;
}

typedef struct cache_state {
    void *good;
    int calls;
} cache_state;

static int cache_supports(const kb_case *c, kb_error *why) {
    return good()->supports(c, why);
}

static size_t cache_workspace(const kb_case *c) {
    return good()->workspace_bytes(c);
}

static int cache_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    cache_state *st = calloc(1, sizeof *st);
    if (!st) return kb_fail(e, "out of host memory");
    *state = st;
    return good()->setup(c, in, &st->good, e);
}

static void cache_teardown(void *state) {
    cache_state *st = state;
    if (st->good) good()->teardown(st->good);
    free(st);
}

/* Computes on its first `computed` calls; later calls return at once. */
static int cached_run(void *state, const kb_tensors *in, kb_tensors *out, int computed,
                      kb_error *e) {
    cache_state *st = state;
    if (st->calls++ >= computed) return KB_OK;
    return good()->run(st->good, in, out, NULL, e);
}

/* Two calls: the check's run and its bitwise re-run both see real work. */
static int run_two(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                   kb_error *e) {
    (void)s;
    return cached_run(state, in, out, 2, e);
}

/* One call: the re-run differs, which a nondeterministic variant may. */
static int run_one(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                   kb_error *e) {
    (void)s;
    return cached_run(state, in, out, 1, e);
}

static const kb_variant_impl cache_after_two = {cache_supports, cache_workspace, cache_setup,
                                                run_two, cache_teardown};
static const kb_variant_impl cache_after_one = {cache_supports, cache_workspace, cache_setup,
                                                run_one, cache_teardown};

static const kb_variant cached = {"topk",  "test_cached",    "computes twice, then skips",
                                  KB_HOST, &cache_after_two, "tests/cpu/test_timed_outputs.c"};
static const kb_variant cached_nondet = {"topk",
                                         "test_cached_nondet",
                                         "computes once, then skips",
                                         KB_HOST | KB_NONDETERMINISTIC,
                                         &cache_after_one,
                                         "tests/cpu/test_timed_outputs.c"};

/* ---- the runner on one small case ---- */

/* One row of v on a small topk case: checked, and timed when timing. */
static row_log run_one_row(const kb_variant *v, kb_mode mode, int timing) {
    row_log log = {.p = {.begin = log_begin, .row = log_row, .end = log_end}};
    kb_case_list cases = {0};
    kb_error e;
    KB_EXPECT(kb_expand_line(kb_find_op("topk"), "segments=2x500 k=16 dist=ties", NULL, 0, &cases,
                             &e) == KB_OK);
    const kb_variant *variants[] = {v, NULL};
    kb_run_opts opts = {
        .mode = mode,
        /* 3 samples, stopped by the noise bound (100%) rather than the clock: a
         * loaded machine (sanitizers, parallel tests) must not cut them short */
        .rule = {.max_noise = 1.0, .min_samples = 3, .max_time_s = 1.0, .max_samples = 100},
        .seed = 1,
        .check = 1,
        .timing = timing};
    kb_runner r;
    KB_EXPECT(kb_runner_init(&r, &opts, &e) == KB_OK);
    KB_EXPECT(kb_runner_plan(&r, &cases, variants, &e) == KB_OK);
    KB_EXPECT(!r.needs_device);
    r.printers[r.nprinters++] = &log.p;
    kb_runner_run(&r);
    kb_runner_free(&r);
    kb_case_list_free(&cases);
    KB_EXPECT(log.n == 1);
    return log;
}

KB_TEST(an_honest_host_variant_passes_in_cold_and_hot_mode) {
    const kb_variant *v = kb_find_variant("topk", "cpu_select");
    for (int hot = 0; hot < 2; hot++) {
        row_log l = run_one_row(v, hot ? KB_MODE_HOT : KB_MODE_COLD, 1);
        KB_EXPECT(l.status[0] == KB_ROW_PASS);
        KB_EXPECT(l.samples[0] >= 3);
    }
}

KB_TEST(the_check_alone_cannot_see_a_cache_that_computes_for_its_two_runs) {
    row_log l = run_one_row(&cached, KB_MODE_COLD, 0);
    KB_EXPECT(l.status[0] == KB_ROW_PASS);
    KB_EXPECT(l.deterministic[0] == 1);
}

KB_TEST(a_cached_result_fails_when_timed_in_cold_and_hot_mode) {
    for (int hot = 0; hot < 2; hot++) {
        row_log l = run_one_row(&cached, hot ? KB_MODE_HOT : KB_MODE_COLD, 1);
        KB_EXPECT(l.status[0] == KB_ROW_FAIL);
        KB_EXPECT_STR_CONTAINS(l.reason[0],
                               "the last timed launch wrote different outputs than the checked "
                               "run (a variant that caches its result or skips work");
    }
}

KB_TEST(a_nondeterministic_cache_fails_by_the_ops_check) {
    row_log l = run_one_row(&cached_nondet, KB_MODE_COLD, 1);
    KB_EXPECT(l.deterministic[0] == 0); /* the check's re-run left the poison: allowed */
    KB_EXPECT(l.status[0] == KB_ROW_FAIL);
    KB_EXPECT_STR_CONTAINS(l.reason[0],
                           "the last timed launch's outputs do not match the reference");
}
