/* test_plugin.c — plugins that the loader's tests load (tests/cli/test_plugins.sh):
 * host topk variants that are right (plug_sort: a full sort per segment),
 * wrong (plug_reversed: ascending), abort in setup (plug_abort) or never
 * return (plug_hang), or change their process for whatever runs after
 * them there (plug_threads). Compile definitions make the refused ones:
 * KB_TEST_ABI (another ABI major), KB_TEST_NO_ENTRY (no entry symbol),
 * KB_TEST_CLASH (a name a built-in variant has). */
#include "kbench/variant.h"
#include "host_topk.h"

#include <stdlib.h>
#include <unistd.h>

static int ok(const kb_case *c, kb_error *why) {
    (void)c, (void)why;
    return KB_OK;
}
static int hang_supports(const kb_case *c, kb_error *why) {
    (void)c, (void)why;
    for (;;) pause();
    return KB_ERR;
}
static size_t no_bytes(const kb_case *c) {
    (void)c;
    return 0;
}
static int no_state(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)c, (void)in, (void)e;
    *state = NULL;
    return KB_OK;
}
static int abort_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    (void)c, (void)in, (void)state, (void)e;
    abort();
}
/* What a plugin may do to its process: the OpenMP threads every later
 * variant of that process would get (cpu_select's workspace counts them). */
void omp_set_num_threads(int n);
static int one_thread_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    omp_set_num_threads(1);
    return no_state(c, in, state, e);
}
static void nothing(void *state) {
    (void)state;
}

/* Every segment sorted whole; reversed: ascending, the wrong order. */
static int sort_run(void *state, const kb_tensors *in, kb_tensors *out, int reversed) {
    (void)state;
    return kbt_sort_topk(in, out, reversed);
}
static int sort_ok(void *st, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    (void)s, (void)e;
    return sort_run(st, in, out, 0);
}
static int sort_reversed(void *st, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                         kb_error *e) {
    (void)s, (void)e;
    return sort_run(st, in, out, 1);
}
static int hang(void *st, const kb_tensors *in, kb_tensors *out, cudaStream_t s, kb_error *e) {
    (void)st, (void)in, (void)out, (void)s, (void)e;
    for (;;) pause();
    return KB_ERR;
}

static const kb_variant_impl impl_sort = {ok, no_bytes, no_state, sort_ok, nothing};
static const kb_variant_impl impl_reversed = {ok, no_bytes, no_state, sort_reversed, nothing};
static const kb_variant_impl impl_abort = {ok, no_bytes, abort_setup, sort_ok, nothing};
static const kb_variant_impl impl_threads = {ok, no_bytes, one_thread_setup, sort_ok, nothing};
static const kb_variant_impl impl_hang_supports = {hang_supports, no_bytes, no_state, sort_ok,
                                                   nothing};
static const kb_variant_impl impl_hang = {ok, no_bytes, no_state, hang, nothing};

static const kb_variant rows[] = {
#ifdef KB_TEST_CLASH
    {"topk", "cpu_select", "a name the built-in variant has", KB_HOST, &impl_sort, NULL},
#endif
    {"topk", "plug_sort", "every segment sorted whole", KB_HOST, &impl_sort, NULL},
    {"topk", "plug_reversed", "ascending: the wrong order", KB_HOST, &impl_reversed, NULL},
    {"topk", "plug_abort", "aborts in setup", KB_HOST, &impl_abort, NULL},
    {"topk", "plug_hang", "never returns from run", KB_HOST, &impl_hang, NULL},
    {"topk", "plug_hang_supports", "never returns from supports", KB_HOST, &impl_hang_supports,
     NULL},
    {"topk", "plug_threads", "sets its process to one OpenMP thread", KB_HOST, &impl_threads, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL},
};

#if defined(KB_TEST_NO_ENTRY)
/* the rows exist, under another name than the entry's */
__attribute__((visibility("default"))) const kb_variant *kbt_rows(void) {
    return rows;
}
#elif defined(KB_TEST_ABI)
__attribute__((visibility("default"))) const kb_plugin *kb_plugin_entry(void) {
    static const kb_plugin p = {KB_TEST_ABI, KB_ABI_MINOR, rows};
    return &p;
}
#else
KB_PLUGIN(rows)
#endif
