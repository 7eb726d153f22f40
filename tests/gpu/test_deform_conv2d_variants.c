/* test_deform_conv2d_variants.c — every deform_conv2d variant, called directly
 * (supports/setup/run/teardown), against the CPU reference on the correctness
 * matrix (by the op's compare: a KB_INEXACT variant, explicit_torchvision_half,
 * against the reference of its own rule); outputs poisoned before each run;
 * the checked run follows a run on other inputs, and a run after it on the
 * same state must be bit-identical. Each
 * case names the variants that must run it (their supports() accept it): a
 * refusal by one of them fails; the others may refuse, and run when they
 * accept.
 *   ./test_deform_conv2d_variants [test_name]      (exits 77 with no GPU)
 */
#include "deform_conv2d.h"
#include "kbtest.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>

/* Who must run a case, from the variants' supports(): a dtype picks the
 * variants of its data (explicit_gemm_i32/_i64 and implicit_gemm take every
 * dtype; *_tf32, *_3xtf32, nhwc_gemm and explicit_torchvision f32 only; *_f16 / *_bf16
 * and explicit_torchvision_half their own), and the NHWC variants need c_in/groups and
 * c_in/offset_groups to be multiples of a 16-byte vector (4 f32 or 8 16-bit channels). The wgmma
 * and ws variants need a 9.0 device and an sm_90a build: must_run() drops them elsewhere. */
#define NCHW_F32                                                                                   \
    "explicit_torchvision explicit_gemm_i64 explicit_gemm_i32 explicit_gemm_tf32 implicit_gemm "   \
    "implicit_gemm_tf32 "
#define NHWC_F32                                                                                   \
    "explicit_nhwc explicit_nhwc_tf32 nhwc_gemm nhwc_fused_tf32 nhwc_wgmma_tf32 nhwc_ws_tf32 "     \
    "nhwc_ws_3xtf32 "
#define NCHW_F16                                                                                   \
    "explicit_torchvision_half explicit_gemm_i64 explicit_gemm_i32 implicit_gemm "                 \
    "implicit_gemm_f16 "
#define NHWC_F16  "explicit_nhwc nhwc_fused_f16 nhwc_wgmma_f16 nhwc_ws_f16 "
#define NCHW_BF16 "explicit_gemm_i64 explicit_gemm_i32 implicit_gemm implicit_gemm_bf16 "
#define NHWC_BF16 "explicit_nhwc nhwc_fused_bf16 nhwc_wgmma_bf16 nhwc_ws_bf16 "
#define ALL_F32   NCHW_F32 NHWC_F32
#define ALL_F16   NCHW_F16 NHWC_F16
#define ALL_BF16  NCHW_BF16 NHWC_BF16

/* The wgmma kernels exist in this build (tests/CMakeLists.txt says so) and
 * the device is compute capability 9.0. */
static int wgmma_here(void) {
#ifdef KBT_HAVE_SM90A
    int dev = 0, major = 0, minor = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
           major == 9 && minor == 0;
#else
    return 0;
#endif
}

/* Whether `name` is a word of the list `must`. */
static int listed(const char *must, const char *name) {
    size_t n = strlen(name);
    for (const char *p = strstr(must, name); p; p = strstr(p + 1, name))
        if ((p == must || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static int must_run(const char *must, const char *name) {
    if (!listed(must, name)) return 0;
    return (strncmp(name, "nhwc_wgmma_", 11) != 0 && strncmp(name, "nhwc_ws_", 8) != 0) ||
           wgmma_here();
}

/* Every name of the list is a deform_conv2d variant (a typo would require nothing). */
static void expect_known_names(const char *must) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", must);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        const kb_variant *v = kb_find_variant("deform_conv2d", tok);
        if (!v) fprintf(stderr, "  the list names '%s', which is no deform_conv2d variant\n", tok);
        KB_EXPECT(v != NULL);
    }
}

static kb_precision precision_of(const kb_variant *v, const kb_dcn_params *p) {
    if (v->flags & KB_TF32) return KB_PREC_TF32;
    return p->dtype == KB_F16 ? KB_PREC_F16 : p->dtype == KB_BF16 ? KB_PREC_BF16 : KB_PREC_F32;
}

/* Runs one variant on the device copy of `in`; the output lands in `got`. */
/* Three runs on one state (as the timed loop calls it), the outputs
 * poisoned before each: first on `other` inputs, then twice on `dev_in`
 * (`got`, `again`). A variant that leaves state behind (split-K or
 * transposition counters, cached buffers) and skips or spoils work on a
 * repeated call shows in `got` (it kept what it made of the other inputs)
 * or in `again`. */
static int run_variant(const kb_variant *v, const kb_case *c, kb_tensors *other, kb_tensors *dev_in,
                       kb_tensors *dev_out, kb_tensors *got, kb_tensors *again) {
    kb_error e;
    void *state = NULL;
    const size_t bytes = kb_nbytes(&got->t[0]);
    int rc = v->impl->setup(c, dev_in, &state, &e);
    for (int r = 0; r < 3 && rc == KB_OK; r++) {
        cudaMemset(dev_out->t[0].data, 0xFF, bytes);
        rc = v->impl->run(state, r ? dev_in : other, dev_out, 0, &e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaDeviceSynchronize(), "run", &e);
        if (r)
            cudaMemcpy((r == 2 ? again : got)->t[0].data, dev_out->t[0].data, bytes,
                       cudaMemcpyDeviceToHost);
    }
    if (rc != KB_OK) fprintf(stderr, "  %s: %s\n", v->name, e.msg);
    v->impl->teardown(state);
    return rc;
}

/* Every variant that accepts the case runs it; those of `must` must accept it. */
static void check_case(const char *spec, const char *must) {
    kb_case c;
    kb_error e;
    kb_dcn_params p;
    kb_tensors in = {0}, ref = {0}, got = {0}, dev_in = {0}, dev_out = {0}, again = {0};
    kb_tensors in2 = {0}, dev_in2 = {0};
    expect_known_names(must);
    if (kbt_case_from(&c, &kb_op_deform_conv2d, spec) != KB_OK) return;
    KB_EXPECT(kb_dcn_params_from_case(&c, &p, &e) == KB_OK);
    kb_op_deform_conv2d.describe(&c, &in, &ref, &e);
    got = again = ref;
    in2 = in;
    KB_EXPECT(kb_tensors_alloc_host(&in, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&in2, &e) == KB_OK);
    KB_EXPECT(kb_tensors_alloc_host(&ref, &e) == KB_OK);
    kb_tensors_alloc_host(&got, &e);
    kb_tensors_alloc_host(&again, &e);
    kb_op_deform_conv2d.make_inputs(&c, 42, &in, &e);
    kb_op_deform_conv2d.make_inputs(&c, 43, &in2, &e);
    kb_deform_conv2d_reference(&c, &in, &ref, &e);
    dev_in = in;
    dev_in2 = in2;
    dev_out = ref;
    for (int i = 0; i < in.count; i++) {
        cudaMalloc(&dev_in.t[i].data, kb_nbytes(&in.t[i]) + 1);
        cudaMemcpy(dev_in.t[i].data, in.t[i].data, kb_nbytes(&in.t[i]), cudaMemcpyHostToDevice);
        cudaMalloc(&dev_in2.t[i].data, kb_nbytes(&in2.t[i]) + 1);
        cudaMemcpy(dev_in2.t[i].data, in2.t[i].data, kb_nbytes(&in2.t[i]), cudaMemcpyHostToDevice);
    }
    cudaMalloc(&dev_out.t[0].data, kb_nbytes(&ref.t[0]) + 1);
    int ran = 0;
    for (int i = 0; kb_variants[i].op; i++) {
        const kb_variant *v = &kb_variants[i];
        if (strcmp(v->op, "deform_conv2d") != 0) continue;
        int s = v->impl->supports(&c, &e);
        if (s != KB_OK) {
            if (must_run(must, v->name))
                fprintf(stderr, "  %s refused %s, which it must run: %s\n", v->name, spec, e.msg);
            KB_EXPECT(!must_run(must, v->name));
            continue;
        }
        kb_accuracy acc;
        kb_accuracy_init(&acc);
        const kb_check_ctx chk = {precision_of(v, &p), v->flags};
        KB_EXPECT(run_variant(v, &c, &dev_in2, &dev_in, &dev_out, &got, &again) == KB_OK);
        KB_EXPECT(kb_op_deform_conv2d.compare(&c, &chk, &in, &ref, &got, &acc) == KB_OK);
        if (!acc.pass) fprintf(stderr, "  %s on %s: %s\n", v->name, spec, acc.note);
        KB_EXPECT(acc.pass);
        if (memcmp(got.t[0].data, again.t[0].data, kb_nbytes(&got.t[0])) != 0)
            fprintf(stderr, "  %s on %s: a second run on the same state differs\n", v->name, spec);
        KB_EXPECT(memcmp(got.t[0].data, again.t[0].data, kb_nbytes(&got.t[0])) == 0);
        ran++;
    }
    KB_EXPECT(ran > 0);
    for (int i = 0; i < in.count; i++) cudaFree(dev_in.t[i].data), cudaFree(dev_in2.t[i].data);
    cudaFree(dev_out.t[0].data);
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&in2);
    kb_tensors_free_host(&ref);
    kb_tensors_free_host(&got);
    kb_tensors_free_host(&again);
}

KB_TEST(groups_that_do_not_nest_match_the_reference) {
    KB_REQUIRE_DEVICE();
    /* c_in/groups = 3: no 16-byte channel vectors, the NCHW variants only */
    check_case("n=3 c_in=6 c_out=4 h=7 w=9 groups=2 offset_groups=3 dtype=f32", NCHW_F32);
    check_case("n=3 c_in=6 c_out=4 h=7 w=9 groups=2 offset_groups=3 dtype=f16", NCHW_F16);
    check_case("n=3 c_in=6 c_out=4 h=7 w=9 groups=2 offset_groups=3 dtype=bf16", NCHW_BF16);
}

KB_TEST(batch_edges_match_the_reference) {
    KB_REQUIRE_DEVICE();
    const char *ns[] = {"0", "1", "31", "32", "33", "37"};
    for (int i = 0; i < 6; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=%s c_in=16 c_out=24 h=6 w=5 offset_groups=2", ns[i]);
        check_case(spec, ALL_F32);
    }
}

KB_TEST(depthwise_and_asymmetric_geometry_match_the_reference) {
    KB_REQUIRE_DEVICE();
    check_case("n=2 c_in=8 c_out=8 h=9 w=11 kh=3 kw=2 stride_h=2 pad_w=0 dil_w=2 groups=8 "
               "offset_groups=8",
               NCHW_F32); /* one channel per group */
    check_case("n=2 c_in=16 c_out=8 h=11 w=13 kh=5 kw=5 pad_h=2 pad_w=2 stride_w=2 dil_h=2 "
               "dtype=f16",
               ALL_F16);
    check_case("n=3 c_in=40 c_out=36 h=12 w=10 kh=1 kw=1 stride_h=2 stride_w=2 pad_h=0 pad_w=0",
               ALL_F32);
}

/* A kernel past the padded input: torchvision's output size in C division,
 * (2 - 3)/2 + 1 = 1 row along h, (3 - 5)/3 + 1 = 1 column along w with
 * dilation 2; the taps past the input sample zeros. */
KB_TEST(kernel_past_the_padded_input_matches_the_reference) {
    KB_REQUIRE_DEVICE();
    const char *geometry[] = {
        "h=2 w=9 kh=3 kw=3 stride_h=2 stride_w=2 pad_h=0 pad_w=1",
        "h=5 w=3 kh=3 kw=3 pad_h=1 pad_w=0 dil_w=2 stride_w=3 offsets=edges",
    };
    const char *dtypes[][2] = {{"f32", ALL_F32}, {"f16", ALL_F16}, {"bf16", ALL_BF16}};
    for (int g = 0; g < 2; g++)
        for (int t = 0; t < 3; t++) {
            char spec[256];
            snprintf(spec, sizeof spec, "n=2 c_in=16 c_out=8 %s dtype=%s", geometry[g],
                     dtypes[t][0]);
            check_case(spec, dtypes[t][1]);
        }
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
    };
    for (int i = 0; i < 7; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=2 c_in=32 c_out=40 h=10 w=12 %s", cases[i]);
        check_case(spec, ALL_F32);
    }
    check_case("n=2 c_in=32 c_out=40 h=10 w=12 bias=0 dtype=bf16 offsets=edges", ALL_BF16);
}

/* explicit_nhwc*'s windowed im2col, forced (im2col=window) on cases too small
 * to pick it: tiles of 64 pixels across a wide row (the last one short,
 * w % 4 != 0 too), samples inside the +-5 pixel margin and beyond it (uniform
 * +-7, +-20, out of bounds, edges), stride and dilation that change the
 * window, batch and mask edges, 16-bit data. Only explicit_nhwc* take a
 * forced im2col. */
#define WINDOW_F32 "explicit_nhwc explicit_nhwc_tf32 "
#define WINDOW_16  "explicit_nhwc "
KB_TEST(sampling_window_borders_match_the_reference) {
    KB_REQUIRE_DEVICE();
    check_case("n=2 c_in=16 c_out=8 h=12 w=140 offsets=uniform offset_scale=7 im2col=window",
               WINDOW_F32);
    check_case("n=1 c_in=32 c_out=8 h=10 w=130 offsets=uniform offset_scale=7 dtype=f16 "
               "im2col=window",
               WINDOW_16);
    check_case("n=2 c_in=16 c_out=8 h=17 w=71 stride_h=2 dil_w=3 pad_w=3 offsets=uniform "
               "offset_scale=6 im2col=window",
               WINDOW_F32);
    check_case("n=2 c_in=16 c_out=24 h=11 w=13 kh=5 kw=5 pad_h=2 pad_w=2 offsets=uniform "
               "offset_scale=20 dtype=bf16 im2col=window",
               WINDOW_16);
    const char *cases[] = {"offsets=out_of_bounds", "offsets=edges", "mask=0 bias=0",
                           "mask_values=zeros", "n=33 offset_groups=2"};
    for (int i = 0; i < 5; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "n=2 c_in=32 c_out=40 h=10 w=12 %s im2col=window", cases[i]);
        check_case(spec, WINDOW_F32);
    }
}

KB_TEST(large_identity_cases_match_the_reference) {
    KB_REQUIRE_DEVICE();
    /* zero offsets, mask 1: a plain convolution; integer offsets: a shifted one */
    check_case("n=4 c_in=128 c_out=256 h=40 w=56 offsets=zero mask_values=ones", ALL_F32);
    check_case("n=4 c_in=128 c_out=256 h=40 w=56 offsets=integer dtype=f16", ALL_F16);
    check_case("n=2 c_in=256 c_out=256 h=50 w=84", ALL_F32);
}

/* nhwc_ws_*'s split-K and ring (shapes as picked on a device of 132 SMs):
 * 120 pixels (one output tile) over K tiles split so that ranges start
 * inside a chunk's taps and cross the offset groups' boundary (the
 * producers rebuild the table mid-range), in 128- and 64-channel tiles;
 * c_out not a multiple of the channel tile; c_out = 72 with chunks that
 * span offset groups (weights inline); 135 pixel tiles of 128 x 256, the
 * shape without split K; more K tiles than ring slots at every shape. */
KB_TEST(split_k_and_ring_edges_match_the_reference) {
    KB_REQUIRE_DEVICE();
    check_case("n=1 c_in=256 c_out=256 h=10 w=12 offset_groups=2", ALL_F32);
    check_case("n=1 c_in=256 c_out=256 h=10 w=12 offset_groups=2 dtype=f16", ALL_F16);
    check_case("n=1 c_in=256 c_out=64 h=8 w=8 offset_groups=2 dtype=bf16", ALL_BF16);
    check_case("n=1 c_in=128 c_out=200 h=9 w=9 dtype=bf16", ALL_BF16);
    check_case("n=2 c_in=64 c_out=72 h=11 w=7 offset_groups=4 dtype=f16", ALL_F16);
    check_case("n=3 c_in=32 c_out=48 h=13 w=17 offset_groups=4", ALL_F32);
    /* groups of 40 channels: a group's K chunk spans two 32-channel blocks
     * of the input the ws kernel transposes as it runs */
    check_case("n=2 c_in=80 c_out=64 h=10 w=12 groups=2 offset_groups=2", NHWC_F32);
    check_case("n=1 c_in=8 c_out=136 h=2160 w=8 kh=1 kw=1 pad_h=0 pad_w=0", ALL_F32);
}
