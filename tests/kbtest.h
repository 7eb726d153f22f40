/* kbtest.h — the smallest test framework that reads as a specification.
 *
 *   KB_TEST(nms_ties_keep_lower_index) { ... KB_EXPECT(keep[0] == 3); }
 *
 * Each tests/cpu/test_*.c and tests/gpu/test_*.c file is one executable and
 * one CTest entry (tests/CMakeLists.txt); `./test_x NAME` runs one test.
 * A GPU test calls KB_REQUIRE_DEVICE() first: with no device the executable
 * exits 77, which CTest reports as skipped, not passed.
 *
 *   kbt_case_from(&c, &kb_op_nms, "n=64 iou=0.5")   a case; a bad setting fails the test
 *   kbt_src("tests/data/nms.csv")                   a repository file from any directory
 */
#ifndef KBTEST_H
#define KBTEST_H

#include "kbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*kbt_fn)(void);
typedef struct {
    const char *name;
    kbt_fn fn;
} kbt_entry;

enum { KBT_MAX = 256, KBT_SKIP = 77 };
static kbt_entry kbt_tests[KBT_MAX];
static int kbt_count, kbt_failures, kbt_current_failed;

#define KB_TEST(name)                                                                              \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void kbt_register_##name(void) {                           \
        if (kbt_count < KBT_MAX) kbt_tests[kbt_count++] = (kbt_entry){#name, name};                \
    }                                                                                              \
    static void name(void)

#define KB_EXPECT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  %s:%d: expected %s\n", __FILE__, __LINE__, #cond);                  \
            kbt_current_failed = 1;                                                                \
        }                                                                                          \
    } while (0)

#define KB_EXPECT_NEAR(a, b, tol)                                                                  \
    do {                                                                                           \
        double kbt_a = (a), kbt_b = (b);                                                           \
        if (!(fabs(kbt_a - kbt_b) <= (tol))) {                                                     \
            fprintf(stderr, "  %s:%d: expected %s ~ %s (%.9g vs %.9g, tol %g)\n", __FILE__,        \
                    __LINE__, #a, #b, kbt_a, kbt_b, (double)(tol));                                \
            kbt_current_failed = 1;                                                                \
        }                                                                                          \
    } while (0)

#define KB_EXPECT_STR_CONTAINS(haystack, needle)                                                   \
    do {                                                                                           \
        const char *kbt_h = (haystack);                                                            \
        if (!kbt_h || !strstr(kbt_h, (needle))) {                                                  \
            fprintf(stderr, "  %s:%d: expected \"%s\" to contain \"%s\"\n", __FILE__, __LINE__,    \
                    kbt_h ? kbt_h : "(null)", (needle));                                           \
            kbt_current_failed = 1;                                                                \
        }                                                                                          \
    } while (0)

/* A file of the repository by its path from the root (tests/CMakeLists.txt
 * passes the root as KBT_SOURCE_DIR), so that tests pass from any directory.
 * Four buffers in turn: up to four paths live at once. */
static inline const char *kbt_src(const char *relative) {
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", KBT_SOURCE_DIR, relative);
    return p;
}

/* One setting of a test's case: a value the op refuses fails the running test
 * (a typo must not quietly test the default instead). */
static inline int kbt_set(kb_case *c, const char *axis, const char *value) {
    kb_error e = {{0}};
    if (kb_case_set(c, axis, value, &e) == KB_OK) return KB_OK;
    fprintf(stderr, "  bad setting %s=%s: %s\n", axis, value, e.msg);
    kbt_current_failed = 1;
    return KB_ERR;
}

/* A case of op from "axis=value axis=value ..." over its defaults. A token
 * without '=' or a value the op refuses fails the running test; KB_ERR then. */
static inline int kbt_case_from(kb_case *c, const struct kb_op *op, const char *settings) {
    char buf[1024];
    int rc = KB_OK;
    kb_case_defaults(c, op);
    if (snprintf(buf, sizeof buf, "%s", settings) >= (int)sizeof buf) {
        fprintf(stderr, "  settings longer than %zu characters: %s\n", sizeof buf - 1, settings);
        kbt_current_failed = 1;
        return KB_ERR;
    }
    for (char *tok = buf + strspn(buf, " "); *tok; tok += strspn(tok, " ")) {
        size_t len = strcspn(tok, " ");
        char *next = tok + len + (tok[len] != '\0');
        tok[len] = '\0';
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            fprintf(stderr, "  bad setting '%s' in \"%s\": expected axis=value\n", tok, settings);
            kbt_current_failed = 1;
            rc = KB_ERR;
        } else {
            *eq = '\0';
            if (kbt_set(c, tok, eq + 1) != KB_OK) rc = KB_ERR;
        }
        tok = next;
    }
    return rc;
}

#define KB_REQUIRE_DEVICE()                                                                        \
    do {                                                                                           \
        int kbt_n = 0;                                                                             \
        if (cudaGetDeviceCount(&kbt_n) != cudaSuccess || kbt_n == 0) {                             \
            printf("no CUDA device: skipped\n");                                                   \
            exit(KBT_SKIP);                                                                        \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    int ran = 0;
    for (int i = 0; i < kbt_count; i++) {
        if (argc > 1 && strcmp(argv[1], kbt_tests[i].name) != 0) continue;
        kbt_current_failed = 0;
        kbt_tests[i].fn();
        printf("%s %s\n", kbt_current_failed ? "FAIL" : "ok  ", kbt_tests[i].name);
        kbt_failures += kbt_current_failed;
        ran++;
    }
    printf("%d passed, %d failed\n", ran - kbt_failures, kbt_failures);
    return kbt_failures ? 1 : (ran ? 0 : 1);
}

#endif
