/* test_plugin_entry.c — the example plugin (examples/plugin/) as a loader
 * sees it: dlopen the in-tree libkb_example_plugin.so, call its one entry
 * (KB_PLUGIN_ENTRY), check the ABI and its two rows, then run the host
 * variant on host cases against the topk reference. The plugin's calls into
 * kbench (kb_int, kb_tensors_get, ...) resolve against this test program,
 * which exports its kb_ functions as kbench does (tests/CMakeLists.txt).
 */
#include "kbtest.h"
#include "nms.h"
#include "topk.h"

#include <dlfcn.h>

static const kb_plugin *plugin(void) {
    static const kb_plugin *p;
    if (p) return p;
    void *so = dlopen(KBT_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "  dlopen %s: %s\n", KBT_PLUGIN, dlerror());
        return NULL;
    }
    kb_plugin_entry_fn entry = (kb_plugin_entry_fn)dlsym(so, KB_PLUGIN_ENTRY);
    if (!entry) fprintf(stderr, "  dlsym %s: %s\n", KB_PLUGIN_ENTRY, dlerror());
    return p = entry ? entry() : NULL;
}

static const kb_variant *row(const char *op, const char *name) {
    const kb_plugin *p = plugin();
    for (int i = 0; p && p->variants[i].op; i++)
        if (!strcmp(p->variants[i].op, op) && !strcmp(p->variants[i].name, name))
            return &p->variants[i];
    return NULL;
}

KB_TEST(plugin_entry_states_the_headers_abi) {
    const kb_plugin *p = plugin();
    KB_EXPECT(p != NULL);
    if (!p) return;
    KB_EXPECT(p->abi_major == KB_ABI_MAJOR);
    KB_EXPECT(p->abi_minor == KB_ABI_MINOR);
}

KB_TEST(plugin_rows_are_example_select_and_example_bitmask) {
    const kb_plugin *p = plugin();
    KB_EXPECT(p != NULL);
    if (!p) return;
    int rows = 0;
    while (p->variants[rows].op) rows++;
    KB_EXPECT(rows == 2);
    const kb_variant *sel = row("topk", "example_select"), *nms = row("nms", "example_bitmask");
    KB_EXPECT(sel && sel->flags == KB_HOST && sel->impl && sel->summary);
    KB_EXPECT(nms && nms->flags == 0 && nms->impl && nms->summary);
    for (int i = 0; i < rows; i++) {
        const kb_variant_impl *impl = p->variants[i].impl;
        KB_EXPECT(impl->supports && impl->workspace_bytes && impl->setup && impl->run &&
                  impl->teardown);
    }
}

/* example_bitmask's limit is the walk's shared memory (8 bytes per 64
 * boxes): no device needed to refuse a case past it, with the numbers. */
KB_TEST(example_bitmask_refuses_more_boxes_than_its_walk_holds) {
    const kb_variant *v = row("nms", "example_bitmask");
    KB_EXPECT(v != NULL);
    if (!v) return;
    kb_case c;
    kb_error why = {{0}};
    kbt_case_from(&c, &kb_op_nms, "n=1000");
    KB_EXPECT(v->impl->supports(&c, &why) == KB_OK);
    kbt_case_from(&c, &kb_op_nms, "n=4000000");
    KB_EXPECT(v->impl->supports(&c, &why) == KB_UNSUPPORTED);
    KB_EXPECT_STR_CONTAINS(why.msg, "n=4000000");
}

/* Run the host variant v on the case of `settings` (poisoned outputs, as the
 * runner does) and judge it by the op's comparison against the reference;
 * the values must also be the reference's bit for bit (-0 stays -0). */
static void expect_matches_reference(const kb_variant *v, const char *settings) {
    kb_case c;
    kb_error e = {{0}};
    kb_tensors in = {0}, ref = {0}, got = {0}, unused = {0};
    void *state = NULL;
    if (kbt_case_from(&c, &kb_op_topk, settings) != KB_OK) return;
    KB_EXPECT(kb_op_topk.validate(&c, &e) == KB_OK);
    KB_EXPECT(kb_op_topk.describe(&c, &in, &ref, &e) == KB_OK);
    KB_EXPECT(kb_op_topk.describe(&c, &unused, &got, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&in, &e) == KB_OK && kb_tensors_alloc_host(&ref, &e) == KB_OK &&
              kb_tensors_alloc_host(&got, &e) == KB_OK);
    KB_EXPECT(kb_op_topk.make_inputs(&c, 7, &in, &e) == KB_OK);
    KB_EXPECT(kb_op_topk.reference(&c, &in, &ref, &e) == KB_OK);
    for (int i = 0; i < got.count; i++) memset(got.t[i].data, 0xFF, kb_nbytes(&got.t[i]));
    KB_EXPECT(v->impl->supports(&c, &e) == KB_OK);
    KB_EXPECT(v->impl->setup(&c, &in, &state, &e) == KB_OK);
    KB_EXPECT(v->impl->run(state, &in, &got, NULL, &e) == KB_OK);
    if (state) v->impl->teardown(state);
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    kb_check_ctx chk = {KB_PREC_F32, v->flags};
    KB_EXPECT(kb_op_topk.compare(&c, &chk, &in, &ref, &got, &acc) == KB_OK);
    if (!acc.pass || acc.unwritten) fprintf(stderr, "  %s: %s\n", settings, acc.note);
    KB_EXPECT(acc.pass && acc.unwritten == 0);
    const kb_tensor *rv = kb_tensors_get(&ref, "topk_values"),
                    *gv = kb_tensors_get(&got, "topk_values");
    KB_EXPECT(memcmp(rv->data, gv->data, kb_nbytes(rv)) == 0);
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&ref);
    kb_tensors_free_host(&got);
}

KB_TEST(example_select_matches_the_topk_reference) {
    const kb_variant *v = row("topk", "example_select");
    KB_EXPECT(v != NULL);
    if (!v) return;
    /* ties on 9 levels with -0 and +0; an empty segment; k past a length */
    expect_matches_reference(v, "segments=5+0+3+2000 k=7 dist=ties");
    expect_matches_reference(v, "segments=3x1500 k=1024 dist=normal batch=2");
    expect_matches_reference(v, "segments=rpn5 k=0");
    expect_matches_reference(v, "segments=rpn5 k=1000");
}
