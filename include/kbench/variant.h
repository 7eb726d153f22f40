/* kbench/variant.h — what a variant implements, the row that names it, and
 * the plugin entry that hands rows to kbench; includes the rest of the
 * contract (error.h, tensor.h, case.h, gpu.h, util.h).
 *
 * A variant is five hooks (kb_variant_impl) and a row (kb_variant: op, name,
 * summary, flags, impl). Built-in rows are in harness/registry.c; a plugin's
 * come from its one exported function, which KB_PLUGIN(rows) defines:
 *
 *   static const kb_variant rows[] = {
 *       {"topk", "my_select", "what it changes, in one line", KB_HOST, &my_select, __FILE__},
 *       {0}, // the end: a row whose op is NULL
 *   };
 *   KB_PLUGIN(rows)
 */
#ifndef KBENCH_VARIANT_H
#define KBENCH_VARIANT_H

#include "kbench/case.h"
#include "kbench/error.h"
#include "kbench/gpu.h"
#include "kbench/tensor.h"
#include "kbench/util.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A KB_HOST variant's tensors live in host memory: setup and run get host
 * pointers in dev_in / dev_out, run gets a NULL stream and computes the whole
 * op before it returns, and none of its hooks touches CUDA (the run may have
 * no device at all). The runner checks it as any other and times it by the
 * wall clock under the same stopping rule. */
typedef struct kb_variant_impl {
    /* KB_OK, KB_UNSUPPORTED (reason in why, with the numbers) or KB_NOT_APPLICABLE. */
    int (*supports)(const kb_case *c, kb_error *why);
    size_t (*workspace_bytes)(const kb_case *c);
    /* Allocate workspace and handles; KB_OUT_OF_MEMORY when an allocation fails.
     * Contract: a setup that fails leaves nothing allocated and *state NULL.
     * Behind it, the runner tears down any non-NULL *state once setup has
     * returned, failed or not, on every path: so a state handed back before a
     * failure must be one teardown can release (the members not yet built
     * NULL). Device work it starts (a cudaMemset of counters, say) may go on
     * any stream: the runner waits for the device before the first run, whose
     * stream is non-blocking and so not ordered after the legacy stream. */
    int (*setup)(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e);
    /* Enqueue the whole op on the stream; no host synchronisation unless the
     * variant is flagged KB_HOST_SYNC. Checks its launches. */
    int (*run)(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
               kb_error *e);
    /* Releases a state from setup, whole or partly built; never called with NULL. */
    void (*teardown)(void *state);
} kb_variant_impl;

enum kb_variant_flags {
    KB_INDEX32 = 1u << 0, /* forms 32-bit linear indices: supports() bounds them */
    KB_INDEX64 = 1u << 1,
    KB_TENSOR_CORES = 1u << 2,
    KB_TF32 = 1u << 3,             /* f32 data through tf32 tensor cores: tf32 precision class */
    KB_NONDETERMINISTIC = 1u << 4, /* may differ run to run by design (atomics) */
    KB_HOST_SYNC = 1u << 5,        /* synchronises with the host: no graph capture */
    KB_TEST_ONLY = 1u << 6,        /* a deliberately faulty variant for the harness tests */
    KB_INEXACT = 1u << 7, /* other semantics by design (fast NMS): checked against its own */
    KB_HOST = 1u << 8,    /* runs on the CPU: host tensors, no CUDA (see kb_variant_impl) */
};

typedef struct kb_variant {
    const char *op;
    const char *name;
    const char *summary;
    unsigned flags;
    const kb_variant_impl *impl;
    const char *source; /* the file that defines impl, from the repository root; a
                           plugin's may be NULL or __FILE__: the loader replaces it */
} kb_variant;

/* ---- the ABI of a plugin --------------------------------------------------
 * A plugin is built against these headers and loaded into a kbench built
 * against its own copy; the two numbers say whether they agree. */
#define KB_ABI_MAJOR 1 /* a layout change of any struct above: refused across majors */
#define KB_ABI_MINOR 0 /* functions added */

typedef struct kb_plugin {
    int abi_major, abi_minor;   /* KB_ABI_MAJOR, KB_ABI_MINOR of the headers it was built with */
    const kb_variant *variants; /* ends with a row whose op is NULL */
} kb_plugin;

#define KB_PLUGIN_ENTRY "kb_plugin_entry" /* the one symbol a plugin exports */
/* Its type: the loader reads abi_major first, so that field stays the first
 * of kb_plugin in every version. */
typedef const kb_plugin *(*kb_plugin_entry_fn)(void);

#ifdef __cplusplus
#define KB_PLUGIN_LINKAGE extern "C" __attribute__((visibility("default")))
#else
#define KB_PLUGIN_LINKAGE __attribute__((visibility("default")))
#endif
/* KB_PLUGIN(rows): defines kb_plugin_entry(), which returns
 * {KB_ABI_MAJOR, KB_ABI_MINOR, rows}; extern "C" and default visibility in
 * C, C++ and CUDA alike, so it is exported under -fvisibility=hidden too. */
#define KB_PLUGIN(rows)                                                                            \
    KB_PLUGIN_LINKAGE const kb_plugin *kb_plugin_entry(void);                                      \
    KB_PLUGIN_LINKAGE const kb_plugin *kb_plugin_entry(void) {                                     \
        static const kb_plugin kb_plugin_rows = {KB_ABI_MAJOR, KB_ABI_MINOR, rows};                \
        return &kb_plugin_rows;                                                                    \
    }

#ifdef __cplusplus
}
#endif
#endif
