/* faulty.h — deliberately broken preprocess variants, for the reliability
 * tests only (tests/cli/test_isolation.sh, tests/faulty/test_setup_failure.c).
 * They exist in the kbench_faulty test binary, never in a user's kbench:
 * harness/registry.c adds KB_FAULTY_VARIANTS to its table only when built
 * with KB_WITH_FAULTY.
 * Each computes nearest preprocessing correctly (through nearest_naive)
 * where it computes anything, so that its fault is the only thing wrong.
 */
#ifndef KB_FAULTY_H
#define KB_FAULTY_H

#include "kbench.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const kb_variant_impl kb_faulty_oob_write;
extern const kb_variant_impl kb_faulty_hang;
extern const kb_variant_impl kb_faulty_huge_workspace;
extern const kb_variant_impl kb_faulty_oom_in_setup;
extern const kb_variant_impl kb_faulty_leak;
extern const kb_variant_impl kb_faulty_setup_fails;
extern const kb_variant_impl kb_faulty_index_limit;
extern const kb_variant_impl kb_faulty_setup_async;

#ifdef __cplusplus
}
#endif

#define KB_FAULTY_ROW(name, flags, summary)                                                        \
    {"preprocess",           "fault_" #name,    summary,                                           \
     KB_TEST_ONLY | (flags), &kb_faulty_##name, "tests/faulty/faulty.cu"},
#define KB_FAULTY_VARIANTS                                                                         \
    KB_FAULTY_ROW(oob_write, 0, "writes 1 TiB past its output: an illegal address")                \
    KB_FAULTY_ROW(hang, 0, "spins on a device word nothing sets: never finishes")                  \
    KB_FAULTY_ROW(huge_workspace, 0, "declares 1 PiB of workspace: refused up front")              \
    KB_FAULTY_ROW(oom_in_setup, 0, "declares none, asks cudaMalloc for 1 PiB in setup")            \
    KB_FAULTY_ROW(leak, 0, "correct, but never frees 64 MiB it takes in setup")                    \
    KB_FAULTY_ROW(setup_fails, 0, "setup takes 256 MiB, hands back its state, then fails")         \
    KB_FAULTY_ROW(index_limit, KB_INDEX32, "correct, but supports() refuses every case")           \
    KB_FAULTY_ROW(setup_async, 0, "correct, its setup's last kernel still on the legacy stream")

#endif
