/* kbench/gpu.h — the current device's facts, for supports() and launch
 * shapes. Users' GPUs are not ours: SM counts, shared memory and features
 * are queried at run time, never literals, so that a variant tuned on an
 * H100 sizes its grid right on an L4 and refuses, with the feature's name,
 * what a device cannot do:
 *
 *   const kb_gpu *g = kb_gpu_current();      NULL without a device
 *   if (kb_gpu_require(80, "cp.async", why) != KB_OK) return KB_UNSUPPORTED;
 *
 * "The build" below is kbench's; a plugin built by kbench_add_plugin() is
 * compiled for the same architectures.
 */
#ifndef KBENCH_GPU_H
#define KBENCH_GPU_H

#include "kbench/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_gpu {
    int ordinal;
    int cc;            /* compute capability as 10 * major + minor: 90 on an H100 */
    int code_cc;       /* the architecture the variants' code on it was compiled for
                        * (their PTX version): below cc where the build lacks the
                        * device's own; 0 where the build holds no code for it */
    int sm_count;      /* multiprocessors */
    size_t smem_optin; /* shared memory a block may opt in to, bytes */
    int cooperative;   /* cooperative launch (grid-wide barriers) supported */
    size_t l2_bytes;
    char name[256];
} kb_gpu;

/* The current device's facts (queried once per device), or NULL where there
 * is none: supports() then refuses nothing for device reasons, since nothing
 * can run (the CPU-only tests call it so). */
const kb_gpu *kb_gpu_current(void);
/* The current device's SM count; `fallback` where there is no device. */
int kb_gpu_sms(int fallback);
/* KB_OK, or KB_UNSUPPORTED when a feature of compute capability cc_min
 * (10 * major + minor) is missing: from the device ("needs cp.async (compute
 * capability 8.0 or newer); this Tesla T4 is 7.5"), or from the code built
 * for it (a list whose newest PTX is older than cc_min). */
int kb_gpu_require(int cc_min, const char *feature, kb_error *why);
/* The same judgement on given facts (NULL: no device, KB_OK). */
int kb_gpu_require_on(const kb_gpu *g, int cc_min, const char *feature, kb_error *why);
/* KB_OK, or KB_UNSUPPORTED naming the device's compute capability and the
 * architectures this kbench was built for, when the build holds no code
 * that runs on the current device. */
int kb_gpu_have_code(kb_error *why);
/* The CUDA architectures this kbench was built for ("80-real,90"). */
extern const char kb_cuda_architectures[];

#ifdef __cplusplus
}
#endif
#endif
