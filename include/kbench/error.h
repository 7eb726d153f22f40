/* kbench/error.h — errors are values: every kb_ function and every hook of a
 * variant returns one of the codes below and, on failure, fills a kb_error
 * with a message that names the parameter and its value ("nms: n=4000000:
 * the walk's removed bits need 500000 bytes of shared memory > 49152"), so a
 * row says why. Nothing in a variant calls exit() or abort().
 *
 *   return kb_fail(e, "my_variant: k=%lld > %d", (long long)k, KB_MY_MAX);
 *   KB_CUDA_TRY(cudaMemsetAsync(p, 0, bytes, stream), e);   returns KB_ERR on failure
 */
#ifndef KBENCH_ERROR_H
#define KBENCH_ERROR_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_error {
    char msg[1024];
} kb_error;

/* Return codes of every kb_ function and op/variant hook. */
enum {
    KB_OK = 0,
    KB_ERR = -1,
    KB_UNSUPPORTED = 1,    /* supports(): a real limit of the variant; the reason says which */
    KB_NOT_APPLICABLE = 2, /* supports(): another function of the op (e.g. nearest vs bilinear) */
    KB_NO_DEVICE = 3,      /* no CUDA device or no driver */
    KB_OUT_OF_MEMORY = 4,  /* a device allocation failed: the row is UNSUPPORTED, not an error */
};

/* Fill e (may be NULL) with a printf-style message; returns KB_ERR. */
int kb_fail(kb_error *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* KB_ERR with "what: <cuda error string>" when rc is not cudaSuccess, else KB_OK. */
int kb_cuda_check(cudaError_t rc, const char *what, kb_error *e);
#define KB_CUDA_TRY(call, e)                                                                       \
    do {                                                                                           \
        if (kb_cuda_check((call), #call, (e)) != KB_OK) return KB_ERR;                             \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
