/* turns_plugin.c — host topk variants that the --interleave tests load
 * (tests/cli/test_interleave.sh): turn_a, turn_b and turn_c are right (a
 * full sort per segment) and append their name to the file $KBT_TRACE at
 * every run, so that the test reads the order the runs took; turn_crash
 * aborts and turn_hang never returns at their 10th run, after the check's
 * two runs and the warm-up's (about 4 of 5 ms each), in the timed rounds;
 * turn_big's setup finds no memory while another variant is set up. */
#define _POSIX_C_SOURCE 200809L
#include "kbench/variant.h"
#include "host_topk.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *name;
    int calls, fail_at; /* fail_at: the run that aborts or hangs; 0 none */
    int hang;
} turn_state;

static int ok(const kb_case *c, kb_error *why) {
    (void)c, (void)why;
    return KB_OK;
}
static size_t no_bytes(const kb_case *c) {
    (void)c;
    return 0;
}

static int live; /* states set up and not torn down */

static int setup_as(void **state, const char *name, int fail_at, int hang) {
    turn_state *t = calloc(1, sizeof *t);
    if (!t) return KB_OUT_OF_MEMORY;
    *t = (turn_state){name, 0, fail_at, hang};
    *state = t;
    live++;
    return KB_OK;
}
#define SETUP(fn, name, fail_at, hang)                                                             \
    static int fn(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {             \
        (void)c, (void)in, (void)e;                                                                \
        return setup_as(state, name, fail_at, hang);                                               \
    }
SETUP(setup_a, "turn_a", 0, 0)
SETUP(setup_b, "turn_b", 0, 0)
SETUP(setup_c, "turn_c", 0, 0)
SETUP(setup_crash, "turn_crash", 10, 0)
SETUP(setup_hang, "turn_hang", 10, 1)

static int setup_big(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)c, (void)in;
    if (live > 0) {
        kb_fail(e, "turn_big: no room beside %d other variant(s)", live);
        return KB_OUT_OF_MEMORY;
    }
    return setup_as(state, "turn_big", 0, 0);
}

static void teardown(void *state) {
    live--;
    free(state);
}

/* One line "NAME" appended (O_APPEND: whole lines whatever the process). */
static void trace(const char *name) {
    const char *path = getenv("KBT_TRACE");
    if (!path) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    char line[64];
    size_t n = (size_t)snprintf(line, sizeof line, "%s\n", name);
    if (write(fd, line, n) < 0) n = 0;
    close(fd);
}

static int run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    (void)s, (void)e;
    turn_state *t = state;
    trace(t->name);
    if (++t->calls == t->fail_at) {
        if (!t->hang) abort();
        for (;;) pause();
    }
    struct timespec ms5 = {0, 5000000};
    nanosleep(&ms5, NULL);
    return kbt_sort_topk(in, out, 0);
}

static const kb_variant_impl impl_a = {ok, no_bytes, setup_a, run, teardown};
static const kb_variant_impl impl_b = {ok, no_bytes, setup_b, run, teardown};
static const kb_variant_impl impl_c = {ok, no_bytes, setup_c, run, teardown};
static const kb_variant_impl impl_crash = {ok, no_bytes, setup_crash, run, teardown};
static const kb_variant_impl impl_hang = {ok, no_bytes, setup_hang, run, teardown};
static const kb_variant_impl impl_big = {ok, no_bytes, setup_big, run, teardown};

static const kb_variant rows[] = {
    {"topk", "turn_a", "right; traces its runs", KB_HOST, &impl_a, NULL},
    {"topk", "turn_b", "right; traces its runs", KB_HOST, &impl_b, NULL},
    {"topk", "turn_crash", "aborts at its 10th run", KB_HOST, &impl_crash, NULL},
    {"topk", "turn_hang", "never returns from its 10th run", KB_HOST, &impl_hang, NULL},
    {"topk", "turn_big", "no memory beside another variant", KB_HOST, &impl_big, NULL},
    {"topk", "turn_c", "right; traces its runs", KB_HOST, &impl_c, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL},
};

KB_PLUGIN(rows)
