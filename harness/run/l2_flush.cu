/* l2_flush.cu — what cold mode does before each sample to empty L2 of the
 * inputs and outputs (l2_flush.h names the kinds). The buffer is twice L2
 * (runner.c), so that whatever a kind leaves in L2 is the buffer's.
 *
 * The memset (write) is what kbench always did; it leaves L2 full of dirty
 * lines, and a bandwidth-bound kernel then pays their write-back inside its
 * timed region. Nsight Compute's --cache-control all instead flushes and
 * invalidates; read, write-read and discard are three ways to come close. */
#include "l2_flush.h"
#include "variants/common/arch.cuh"

#include <stdint.h>
#include <string.h>

/* The compute capability (10 * major + minor) each kind needs beyond a memset. */
enum { KB_CC_DISCARD_L2 = 80, KB_CC_PERSISTING_L2 = 80 };

static const char *const flush_names[] = {"write", "read", "write-read", "discard", "reset"};

extern "C" const char *kb_flush_name(kb_flush f) {
    return flush_names[f];
}

extern "C" int kb_flush_parse(const char *s, kb_flush *f) {
    for (int i = 0; i < (int)(sizeof flush_names / sizeof *flush_names); i++)
        if (strcmp(s, flush_names[i]) == 0) {
            *f = (kb_flush)i;
            return KB_OK;
        }
    return KB_ERR;
}

extern "C" int kb_flush_supported(kb_flush f, kb_error *why) {
    if (f == KB_FLUSH_DISCARD) return kb_gpu_require(KB_CC_DISCARD_L2, "discard.global.L2", why);
    if (f == KB_FLUSH_RESET)
        return kb_gpu_require(KB_CC_PERSISTING_L2, "persisting L2 lines (the reset flush)", why);
    return KB_OK;
}

/* Reads every 16 bytes of the buffer through L2 (ld.global.cg: not L1). The
 * XOR of what it read is stored only when it equals key, which the kernel
 * cannot know, so the compiler must keep every load; should it match, one
 * word of the buffer itself is written. */
__global__ void l2_read(const uint4 *__restrict__ buf, size_t n, unsigned key, unsigned *sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(buf + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == key) *sink = acc;
}

/* Drops each 128-byte line of the buffer from L2 without writing it back
 * (its contents become undefined: the buffer holds nothing of value). */
__global__ void l2_discard(char *buf, size_t lines) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines;
         i += (size_t)gridDim.x * blockDim.x) {
#if KB_SM80
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + i * KB_FLUSH_ALIGN) : "memory");
#else
        __trap();
#endif
    }
}

/* 4 blocks of 256 threads per SM: enough loads in flight to stream the
 * buffer at close to the memory's bandwidth. */
static dim3 grid_for(void) {
    return dim3((unsigned)(4 * kb_gpu_sms(128)));
}

extern "C" int kb_l2_flush(kb_flush f, void *buf, size_t bytes, int pass, cudaStream_t s,
                           kb_error *e) {
    if (f == KB_FLUSH_WRITE || f == KB_FLUSH_WRITE_READ || f == KB_FLUSH_DISCARD)
        if (kb_cuda_check(cudaMemsetAsync(buf, pass & 0xFF, bytes, s), "L2 flush (cudaMemsetAsync)",
                          e) != KB_OK)
            return KB_ERR;
    if (f == KB_FLUSH_RESET &&
        kb_cuda_check(cudaCtxResetPersistingL2Cache(), "L2 flush (cudaCtxResetPersistingL2Cache)",
                      e) != KB_OK)
        return KB_ERR;
    if (f == KB_FLUSH_READ || f == KB_FLUSH_WRITE_READ || f == KB_FLUSH_RESET) {
        l2_read<<<grid_for(), 256, 0, s>>>((const uint4 *)buf, bytes / sizeof(uint4),
                                           0x9E3779B9u ^ (unsigned)pass, (unsigned *)buf);
        if (kb_cuda_check(cudaGetLastError(), "L2 flush (read kernel launch)", e) != KB_OK)
            return KB_ERR;
    }
    if (f == KB_FLUSH_DISCARD) {
        l2_discard<<<grid_for(), 256, 0, s>>>((char *)buf, bytes / KB_FLUSH_ALIGN);
        if (kb_cuda_check(cudaGetLastError(), "L2 flush (discard kernel launch)", e) != KB_OK)
            return KB_ERR;
    }
    return KB_OK;
}
