/* test_yolo_decode_variants.c — every yolo_decode variant against the CPU
 * reference through the op's compare: exact for scan_greedy and fused_batch
 * always, for the atomic variants while at most max_det qualify; the fast-NMS
 * variant against the fast-NMS reference. Calls setup/run/teardown directly. */
#include "kbtest.h"
#include "yolo_decode.h"

#include <stdint.h>

static const struct {
    const char *name;
    const kb_variant_impl *impl;
    unsigned flags;
} variants[] = {
    {"atomic_bitmask", &kb_yolo_decode_atomic_bitmask, KB_NONDETERMINISTIC},
    {"atomic_fastnms", &kb_yolo_decode_atomic_fastnms, KB_NONDETERMINISTIC | KB_INEXACT},
    {"scan_greedy", &kb_yolo_decode_scan_greedy, 0},
    {"fused_batch", &kb_yolo_decode_fused_batch, 0},
};

typedef struct {
    kb_case c;
    kb_tensors in, out;
} yolo_case;

/* settings: "axis=value" tokens separated by spaces. */
static void make_case(yolo_case *t, const char *settings, uint64_t seed) {
    memset(t, 0, sizeof *t);
    kb_case_defaults(&t->c, &kb_op_yolo_decode);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", settings);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = 0;
        kb_case_set(&t->c, tok, eq + 1, NULL);
    }
    kb_op_yolo_decode.describe(&t->c, &t->in, &t->out, NULL);
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->out, NULL);
    kb_op_yolo_decode.make_inputs(&t->c, seed, &t->in, NULL);
    kb_op_yolo_decode.reference(&t->c, &t->in, &t->out, NULL);
}

/* Run one variant; 0 when it failed to run (the message printed). */
static int run_variant(const kb_variant_impl *impl, yolo_case *t, kb_tensors *got) {
    kb_error e = {{0}};
    kb_tensors dev_in = t->in, dev_out = t->out;
    *got = t->out;
    kb_tensors_alloc_host(got, NULL);
    int ok = impl->supports(&t->c, &e) == KB_OK;
    for (int i = 0; ok && i < dev_in.count; i++) {
        size_t b = kb_nbytes(&dev_in.t[i]);
        ok =
            cudaMalloc(&dev_in.t[i].data, b ? b : 4) == cudaSuccess &&
            cudaMemcpy(dev_in.t[i].data, t->in.t[i].data, b, cudaMemcpyHostToDevice) == cudaSuccess;
    }
    for (int i = 0; ok && i < dev_out.count; i++) {
        size_t b = kb_nbytes(&dev_out.t[i]);
        ok = cudaMalloc(&dev_out.t[i].data, b ? b : 4) == cudaSuccess &&
             cudaMemset(dev_out.t[i].data, 0xFF, b ? b : 4) == cudaSuccess;
    }
    void *state = NULL;
    ok = ok && impl->setup(&t->c, &dev_in, &state, &e) == KB_OK;
    ok = ok && impl->run(state, &dev_in, &dev_out, 0, &e) == KB_OK;
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    for (int i = 0; ok && i < dev_out.count; i++)
        ok = cudaMemcpy(got->t[i].data, dev_out.t[i].data, kb_nbytes(&got->t[i]),
                        cudaMemcpyDeviceToHost) == cudaSuccess;
    if (state) impl->teardown(state);
    for (int i = 0; i < dev_in.count; i++) cudaFree(dev_in.t[i].data);
    for (int i = 0; i < dev_out.count; i++) cudaFree(dev_out.t[i].data);
    if (!ok) printf("  run failed: %s %s\n", e.msg, cudaGetErrorString(cudaGetLastError()));
    return ok;
}

/* Every variant on the case; exact ones must pass outright. */
static void expect_all_variants_match(yolo_case *t, const char *what) {
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        kb_tensors got;
        int ran = run_variant(variants[v].impl, t, &got);
        kb_accuracy acc = {.pass = 1};
        kb_check_flags = variants[v].flags;
        if (ran) kb_op_yolo_decode.compare(&t->c, KB_PREC_F32, &t->in, &t->out, &got, &acc);
        kb_check_flags = 0;
        if (!ran || !acc.pass) printf("  %s on %s: %s\n", variants[v].name, what, acc.note);
        KB_EXPECT(ran && acc.pass);
        kb_tensors_free_host(&got);
    }
    kb_tensors_free_host(&t->in);
    kb_tensors_free_host(&t->out);
}

KB_TEST(yolo_variants_match_on_one_realistic_image) {
    KB_REQUIRE_DEVICE();
    yolo_case t;
    make_case(&t, "b=1 n=25200", 1);
    expect_all_variants_match(&t, "b=1 n=25200");
}

KB_TEST(yolo_variants_match_on_32_different_images) {
    KB_REQUIRE_DEVICE();
    yolo_case t;
    make_case(&t, "b=32 n=6300", 2);
    expect_all_variants_match(&t, "b=32 n=6300");
}

KB_TEST(yolo_variants_match_with_zero_candidates) {
    KB_REQUIRE_DEVICE();
    yolo_case t;
    make_case(&t, "b=3 n=2000 conf=0.999", 3);
    expect_all_variants_match(&t, "conf 0.999");
}

KB_TEST(yolo_exact_variants_keep_the_best_max_det_when_more_qualify) {
    KB_REQUIRE_DEVICE();
    yolo_case t;
    make_case(&t, "b=2 n=5000 dist=dense max_det=200 max_out=100 c=5", 4);
    expect_all_variants_match(&t, "dense, max_det 200");
    make_case(&t, "b=2 n=25200 dist=dense", 5);
    expect_all_variants_match(&t, "dense, 25200");
}

KB_TEST(yolo_variants_match_with_small_caps_and_thresholds) {
    KB_REQUIRE_DEVICE();
    yolo_case t;
    make_case(&t, "b=4 n=3000 max_det=64 max_out=10 iou=0.3", 6);
    expect_all_variants_match(&t, "max_det 64, max_out 10");
    make_case(&t, "b=2 n=6300 max_det=4096 max_out=4096 conf=0.05 iou=0.7", 7);
    expect_all_variants_match(&t, "max_det 4096, conf 0.05");
}
