/* test_deform_conv2d_variants.c — every deform_conv2d variant, called directly
 * (supports/setup/run/teardown), against the CPU reference on the correctness
 * matrix; outputs poisoned first; a second run must be bit-identical.
 *   ./test_deform_conv2d_variants [test_name]      (exits 77 with no GPU)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "deform_conv2d.h"
#include "kbtest.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>

static void set_spec(kb_case *c, const char *spec) {
    char buf[512];
    kb_error e;
    kb_case_defaults(c, &kb_op_deform_conv2d);
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = '\0';
        if (kb_case_set(c, tok, eq + 1, &e) != KB_OK) fprintf(stderr, "  %s\n", e.msg);
    }
}

static kb_precision precision_of(const kb_variant *v, const kb_dcn_params *p) {
    if (v->flags & KB_TF32) return KB_PREC_TF32;
    return p->dtype == KB_F16 ? KB_PREC_F16 : p->dtype == KB_BF16 ? KB_PREC_BF16 : KB_PREC_F32;
}

/* Runs one variant on the device copy of `in`; the output lands in `got`. */
static int run_variant(const kb_variant *v, const kb_case *c, const kb_tensors *in,
                       kb_tensors *dev_in, kb_tensors *dev_out, kb_tensors *got) {
    kb_error e;
    void *state = NULL;
    int rc = v->impl->setup(c, dev_in, &state, &e);
    if (rc == KB_OK) {
        cudaMemset(dev_out->t[0].data, 0xFF, kb_nbytes(&dev_out->t[0]));
        rc = v->impl->run(state, dev_in, dev_out, 0, &e);
    }
    if (rc == KB_OK) rc = kb_cuda_check(cudaDeviceSynchronize(), "run", &e);
    if (rc != KB_OK) fprintf(stderr, "  %s: %s\n", v->name, e.msg);
    v->impl->teardown(state);
    cudaMemcpy(got->t[0].data, dev_out->t[0].data, kb_nbytes(&got->t[0]), cudaMemcpyDeviceToHost);
    (void)in;
    return rc;
}

/* Every applicable variant on one case; returns how many ran. */
static int check_case(const char *spec) {
    kb_case c;
    kb_error e;
    kb_dcn_params p;
    kb_tensors in = {0}, ref = {0}, got = {0}, dev_in = {0}, dev_out = {0}, again = {0};
    set_spec(&c, spec);
    KB_EXPECT(kb_dcn_params_from_case(&c, &p, &e) == KB_OK);
    kb_op_deform_conv2d.describe(&c, &in, &ref, &e);
    got = again = ref;
    KB_EXPECT(kb_tensors_alloc_host(&in, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&ref, &e) == KB_OK);
    kb_tensors_alloc_host(&got, &e);
    kb_tensors_alloc_host(&again, &e);
    kb_op_deform_conv2d.make_inputs(&c, 42, &in, &e);
    kb_deform_conv2d_reference(&c, &in, &ref, &e);
    dev_in = in;
    dev_out = ref;
    for (int i = 0; i < in.count; i++) {
        cudaMalloc(&dev_in.t[i].data, kb_nbytes(&in.t[i]) + 1);
        cudaMemcpy(dev_in.t[i].data, in.t[i].data, kb_nbytes(&in.t[i]), cudaMemcpyHostToDevice);
    }
    cudaMalloc(&dev_out.t[0].data, kb_nbytes(&ref.t[0]) + 1);
    int ran = 0;
    for (int i = 0; kb_variants[i].op; i++) {
        const kb_variant *v = &kb_variants[i];
        if (strcmp(v->op, "deform_conv2d") != 0) continue;
        int s = v->impl->supports(&c, &e);
        if (s == KB_NOT_APPLICABLE) continue;
        if (s != KB_OK) {
            fprintf(stderr, "  %s unsupported on %s: %s\n", v->name, spec, e.msg);
            continue;
        }
        kb_accuracy acc;
        memset(&acc, 0, sizeof acc);
        acc.pass = 1;
        KB_EXPECT(run_variant(v, &c, &in, &dev_in, &dev_out, &got) == KB_OK);
        kb_compare_dense(&ref.t[0], &got.t[0], precision_of(v, &p), &acc);
        if (!acc.pass) fprintf(stderr, "  %s on %s: %s\n", v->name, spec, acc.note);
        KB_EXPECT(acc.pass);
        KB_EXPECT(run_variant(v, &c, &in, &dev_in, &dev_out, &again) == KB_OK);
        KB_EXPECT(memcmp(got.t[0].data, again.t[0].data, kb_nbytes(&got.t[0])) == 0);
        ran++;
    }
    for (int i = 0; i < in.count; i++) cudaFree(dev_in.t[i].data);
    cudaFree(dev_out.t[0].data);
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&ref);
    kb_tensors_free_host(&got);
    kb_tensors_free_host(&again);
    return ran;
}

KB_TEST(groups_that_do_not_nest_match_the_reference) {
    KB_REQUIRE_DEVICE();
    const char *dt[] = {"f32", "f16", "bf16"};
    for (int i = 0; i < 3; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=3 c_in=6 c_out=4 h=7 w=9 groups=2 offset_groups=3 dtype=%s",
                 dt[i]);
        KB_EXPECT(check_case(spec) >= 3);
    }
}

KB_TEST(batch_edges_match_the_reference) {
    KB_REQUIRE_DEVICE();
    const char *ns[] = {"0", "1", "31", "32", "33", "37"};
    for (int i = 0; i < 6; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=%s c_in=16 c_out=24 h=6 w=5 offset_groups=2", ns[i]);
        KB_EXPECT(check_case(spec) >= 4);
    }
}

KB_TEST(depthwise_and_asymmetric_geometry_match_the_reference) {
    KB_REQUIRE_DEVICE();
    KB_EXPECT(check_case("n=2 c_in=8 c_out=8 h=9 w=11 kh=3 kw=2 stride_h=2 pad_w=0 dil_w=2 "
                         "groups=8 offset_groups=8") >= 4);
    KB_EXPECT(check_case("n=2 c_in=16 c_out=8 h=11 w=13 kh=5 kw=5 pad_h=2 pad_w=2 stride_w=2 "
                         "dil_h=2 dtype=f16") >= 3);
    KB_EXPECT(check_case("n=3 c_in=40 c_out=36 h=12 w=10 kh=1 kw=1 stride_h=2 stride_w=2 pad_h=0 "
                         "pad_w=0") >= 4);
}

KB_TEST(offset_distributions_and_masks_match_the_reference) {
    KB_REQUIRE_DEVICE();
    const char *cases[] = {
        "offsets=uniform offset_scale=20",
        "offsets=integer offset_scale=5",
        "offsets=out_of_bounds",
        "offsets=edges",
        "mask=0",
        "mask_values=zeros",
        "mask_values=ones offsets=zero",
        "bias=0 dtype=bf16 offsets=edges",
    };
    for (int i = 0; i < 8; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=2 c_in=32 c_out=40 h=10 w=12 %s", cases[i]);
        KB_EXPECT(check_case(spec) >= 2);
    }
}

/* explicit_nhwc*'s windowed im2col, forced on cases too small to pick it:
 * tiles of 64 pixels across a wide row (the last one short, w % 4 != 0 too),
 * samples inside the +-5 pixel margin and beyond it (uniform +-7, +-20, out of
 * bounds, edges), stride and dilation that change the window, batch and
 * mask edges, 16-bit data. */
KB_TEST(sampling_window_borders_match_the_reference) {
    KB_REQUIRE_DEVICE();
    setenv("KB_DCN_IM2COL", "window", 1);
    KB_EXPECT(check_case("n=2 c_in=16 c_out=8 h=12 w=140 offsets=uniform offset_scale=7") >= 4);
    KB_EXPECT(check_case("n=1 c_in=32 c_out=8 h=10 w=130 offsets=uniform offset_scale=7 "
                         "dtype=f16") >= 3);
    KB_EXPECT(check_case("n=2 c_in=16 c_out=8 h=17 w=71 stride_h=2 dil_w=3 pad_w=3 "
                         "offsets=uniform offset_scale=6") >= 4);
    KB_EXPECT(check_case("n=2 c_in=16 c_out=24 h=11 w=13 kh=5 kw=5 pad_h=2 pad_w=2 "
                         "offsets=uniform offset_scale=20 dtype=bf16") >= 3);
    const char *cases[] = {"offsets=out_of_bounds", "offsets=edges", "mask=0 bias=0",
                           "mask_values=zeros", "n=33 offset_groups=2"};
    for (int i = 0; i < 5; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=2 c_in=32 c_out=40 h=10 w=12 %s", cases[i]);
        KB_EXPECT(check_case(spec) >= 2);
    }
    unsetenv("KB_DCN_IM2COL");
}

KB_TEST(large_identity_cases_match_the_reference) {
    KB_REQUIRE_DEVICE();
    /* zero offsets, mask 1: a plain convolution; integer offsets: a shifted one */
    KB_EXPECT(check_case("n=4 c_in=128 c_out=256 h=40 w=56 offsets=zero mask_values=ones") >= 4);
    KB_EXPECT(check_case("n=4 c_in=128 c_out=256 h=40 w=56 offsets=integer dtype=f16") >= 3);
    KB_EXPECT(check_case("n=2 c_in=256 c_out=256 h=50 w=84") >= 4);
}
