/* test_device_facts.c — how a variant refuses a device that lacks a feature
 * (kb_gpu_require_on), on facts written here: an older GPU, and a GPU that
 * has the feature but runs code built for an older architecture. */
#include "kbench.h"
#include "kbtest.h"

static kb_gpu gpu(const char *name, int cc, int code_cc) {
    kb_gpu g = {.cc = cc, .code_cc = code_cc, .sm_count = 40, .smem_optin = 65536};
    snprintf(g.name, sizeof g.name, "%s", name);
    return g;
}

KB_TEST(older_device_is_refused_naming_feature_and_both_capabilities) {
    kb_gpu t4 = gpu("Tesla T4", 75, 75);
    kb_error why = {{0}};
    KB_EXPECT(kb_gpu_require_on(&t4, 80, "cp.async", &why) == KB_UNSUPPORTED);
    KB_EXPECT_STR_CONTAINS(why.msg, "needs cp.async");
    KB_EXPECT_STR_CONTAINS(why.msg, "8.0 or newer");
    KB_EXPECT_STR_CONTAINS(why.msg, "Tesla T4 is 7.5");
}

KB_TEST(device_at_the_minimum_is_accepted) {
    kb_gpu a100 = gpu("A100", 80, 80), h100 = gpu("H100", 90, 90);
    kb_error why = {{0}};
    KB_EXPECT(kb_gpu_require_on(&a100, 80, "cp.async", &why) == KB_OK);
    KB_EXPECT(kb_gpu_require_on(&h100, 90, "thread block clusters", &why) == KB_OK);
    KB_EXPECT(kb_gpu_require_on(&h100, 80, "cp.async", &why) == KB_OK);
    KB_EXPECT(why.msg[0] == '\0');
}

/* An H100 running PTX of compute_80 (a build for "80" alone) has clusters,
 * but the code compiled for it does not: refused, saying how to rebuild. */
KB_TEST(new_device_running_older_code_is_refused_with_the_rebuild) {
    kb_gpu h100 = gpu("H100", 90, 80);
    kb_error why = {{0}};
    KB_EXPECT(kb_gpu_require_on(&h100, 90, "thread block clusters", &why) == KB_UNSUPPORTED);
    KB_EXPECT_STR_CONTAINS(why.msg, "needs thread block clusters");
    KB_EXPECT_STR_CONTAINS(why.msg, "compute_80 code");
    KB_EXPECT_STR_CONTAINS(why.msg, "-DCMAKE_CUDA_ARCHITECTURES=90");
    /* what that code does have still runs */
    KB_EXPECT(kb_gpu_require_on(&h100, 80, "cp.async", &why) == KB_OK);
}

KB_TEST(no_device_refuses_nothing) {
    kb_error why = {{0}};
    KB_EXPECT(kb_gpu_require_on(NULL, 120, "anything", &why) == KB_OK);
    if (!kb_gpu_current()) { /* this machine has no device: the same through the current one */
        KB_EXPECT(kb_gpu_require(120, "anything", &why) == KB_OK);
        KB_EXPECT(kb_gpu_sms(7) == 7);
        KB_EXPECT(kb_gpu_have_code(&why) == KB_OK);
    }
}

KB_TEST(build_names_its_architectures) {
    KB_EXPECT(kb_cuda_architectures[0] != '\0');
    KB_EXPECT(strcmp(kb_cuda_architectures, "unknown") != 0);
}
