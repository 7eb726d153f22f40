/* device_facts.cu — the current device's facts for variants: SM count,
 * opt-in shared memory, L2, compute capability, and the architecture of the
 * code this build runs on it, queried once per device. Variants size their
 * grids and refuse what the device cannot do from these, so that they behave
 * on an L4 or a B200 as on the H100 they were tuned on.
 *
 * Every variant file is compiled for the same CMAKE_CUDA_ARCHITECTURES (the
 * wgmma file for 90a where the list says 90), so one empty kernel answers
 * for all of them: cudaFuncGetAttributes fails on it when the device has
 * neither machine code nor PTX it can compile in this binary, and its
 * ptxVersion is the architecture the variants were compiled for on this
 * device (older than the device when only older PTX is there). */
#include "kbench/gpu.h"

#include <stdio.h>

#ifndef KB_CUDA_ARCHS
#define KB_CUDA_ARCHS "unknown"
#endif

extern "C" const char kb_cuda_architectures[] = KB_CUDA_ARCHS;

static __global__ void kb_arch_probe_kernel() {}

enum { KB_GPU_CACHE = 64 };

extern "C" const kb_gpu *kb_gpu_current(void) {
    static kb_gpu cache[KB_GPU_CACHE];
    static int known[KB_GPU_CACHE];
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= KB_GPU_CACHE) {
        cudaGetLastError(); /* no device: not an error of the caller's next call */
        return NULL;
    }
    if (known[dev]) return &cache[dev];
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    kb_gpu *g = &cache[dev];
    g->ordinal = dev;
    g->cc = 10 * p.major + p.minor;
    g->sm_count = p.multiProcessorCount;
    g->smem_optin = p.sharedMemPerBlockOptin;
    g->cooperative = p.cooperativeLaunch;
    g->l2_bytes = (size_t)p.l2CacheSize;
    snprintf(g->name, sizeof g->name, "%s", p.name);
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, kb_arch_probe_kernel) == cudaSuccess)
        g->code_cc = a.ptxVersion ? a.ptxVersion : a.binaryVersion ? a.binaryVersion : g->cc;
    else
        cudaGetLastError(); /* no code for this device: code_cc stays 0 */
    known[dev] = 1;
    return g;
}

extern "C" int kb_gpu_sms(int fallback) {
    const kb_gpu *g = kb_gpu_current();
    return g && g->sm_count > 0 ? g->sm_count : fallback;
}

extern "C" int kb_gpu_require_on(const kb_gpu *g, int cc_min, const char *feature, kb_error *why) {
    if (!g) return KB_OK;
    if (g->cc < cc_min) {
        kb_fail(why, "needs %s (compute capability %d.%d or newer); this %s is %d.%d", feature,
                cc_min / 10, cc_min % 10, g->name, g->cc / 10, g->cc % 10);
        return KB_UNSUPPORTED;
    }
    if (g->code_cc && g->code_cc < cc_min) {
        kb_fail(why,
                "needs %s (compute capability %d.%d): this kbench runs compute_%d code on this "
                "%s (built for %s); -DCMAKE_CUDA_ARCHITECTURES=%d in a new build folder builds it",
                feature, cc_min / 10, cc_min % 10, g->code_cc, g->name, kb_cuda_architectures,
                g->cc);
        return KB_UNSUPPORTED;
    }
    return KB_OK;
}

extern "C" int kb_gpu_require(int cc_min, const char *feature, kb_error *why) {
    return kb_gpu_require_on(kb_gpu_current(), cc_min, feature, why);
}

extern "C" int kb_gpu_have_code(kb_error *why) {
    const kb_gpu *g = kb_gpu_current();
    if (!g || g->code_cc) return KB_OK;
    kb_fail(why,
            "this kbench holds no code for compute capability %d.%d (%s): it was built for CUDA "
            "architectures %s; -DCMAKE_CUDA_ARCHITECTURES=%d in a new build folder builds it",
            g->cc / 10, g->cc % 10, g->name, kb_cuda_architectures, g->cc);
    return KB_UNSUPPORTED;
}
