/* kbtest.h — the smallest test framework that reads as a specification.
 *
 *   KB_TEST(nms_ties_keep_lower_index) { ... KB_EXPECT(keep[0] == 3); }
 *
 * Each tests/cpu/test_*.c and tests/gpu/test_*.c file is one executable and
 * one CTest entry (tests/CMakeLists.txt); `./test_x NAME` runs one test.
 * A GPU test calls KB_REQUIRE_DEVICE() first: with no device the executable
 * exits 77, which CTest reports as skipped, not passed.
 */
#ifndef KBTEST_H
#define KBTEST_H

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
        if (!strstr((haystack), (needle))) {                                                       \
            fprintf(stderr, "  %s:%d: expected \"%s\" to contain \"%s\"\n", __FILE__, __LINE__,    \
                    (haystack), (needle));                                                         \
            kbt_current_failed = 1;                                                                \
        }                                                                                          \
    } while (0)

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
