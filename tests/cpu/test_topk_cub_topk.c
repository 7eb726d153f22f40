/* test_topk_cub_topk.c — what topk/cub_topk says about the CCCL it was built
 * with, on the CPU: in a build without CCCL 3.5 (the toolkit's alone) every
 * case is UNSUPPORTED with a reason naming the CCCL it was compiled against
 * and the one it needs; in a build that found one (cmake/KbCccl.cmake), it
 * takes the op's cases, so the include order reached the file. */
#include "kbtest.h"

#include "kbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cub_supports(const char *segments, kb_error *why) {
    const kb_variant *v = kb_find_variant("topk", "cub_topk");
    KB_EXPECT(v != NULL);
    if (!v) return KB_ERR;
    kb_case c;
    kb_case_defaults(&c, kb_find_op("topk"));
    kb_error e = {""};
    KB_EXPECT(kb_case_set(&c, "segments", segments, &e) == KB_OK);
    return v->impl->supports(&c, why);
}

#ifndef KBT_HAVE_CCCL_TOPK
KB_TEST(cub_topk_without_cccl_35_names_the_cccl_it_has_and_the_one_it_needs) {
    const char *cases[] = {"rpn5", "32x4096", "1x16777216"};
    for (int i = 0; i < 3; i++) {
        kb_error why = {""};
        KB_EXPECT(cub_supports(cases[i], &why) == KB_UNSUPPORTED);
        /* the CUB_VERSION the file saw, older than 3.5.0, and the same as "CCCL M.m.p" */
        const char *at = strstr(why.msg, "CUB_VERSION ");
        KB_EXPECT(at != NULL);
        const long seen = at ? strtol(at + strlen("CUB_VERSION "), NULL, 10) : 0;
        KB_EXPECT(seen >= 100000 && seen < 300500);
        char built[64];
        snprintf(built, sizeof built, "built with CCCL %ld.%ld.%ld", seen / 100000,
                 seen / 100 % 1000, seen % 100);
        KB_EXPECT_STR_CONTAINS(why.msg, built);
        KB_EXPECT_STR_CONTAINS(why.msg, "CCCL 3.5.0 or newer");
        KB_EXPECT_STR_CONTAINS(why.msg, "cub::DeviceTopK");
        KB_EXPECT_STR_CONTAINS(why.msg, "pip install nvidia-cuda-cccl");
    }
}
#else
KB_TEST(cub_topk_with_cccl_35_takes_the_ops_cases) {
    const char *cases[] = {"rpn5", "32x4096", "1x16777216", "5+0+3+2000"};
    for (int i = 0; i < 4; i++) {
        kb_error why = {""};
        KB_EXPECT(cub_supports(cases[i], &why) == KB_OK);
        KB_EXPECT(why.msg[0] == '\0');
    }
}
#endif

KB_TEST(cub_topk_refuses_a_malformed_layout_naming_it) {
    kb_error why = {""};
    KB_EXPECT(cub_supports("3x", &why) != KB_OK);
    KB_EXPECT(why.msg[0] != '\0');
}
