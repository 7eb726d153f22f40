/* kbench/util.h — small helpers a variant and a reference share:
 *   KB_HD          a function for host and device alike (one formula, one
 *                  rounding): __host__ __device__ under nvcc, static inline in C
 *   kb_rng_*       splitmix64, seedable, the same on every platform
 *   kb_f32_to_f16  f16 / bf16 conversions for host code (round to nearest even)
 *   kb_nvtx_push   NVTX ranges inside a multi-stage variant ("sort", "mask"),
 *                  which nsys and ncu --nvtx-include find by name
 */
#ifndef KBENCH_UTIL_H
#define KBENCH_UTIL_H

#include <stdint.h>

#ifndef KB_HD
#ifdef __CUDACC__
#define KB_HD __host__ __device__ __forceinline__
#else
#define KB_HD static inline
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

uint64_t kb_rng_next(uint64_t *state);
double kb_rng_uniform(uint64_t *state);                      /* [0, 1) */
double kb_rng_normal(uint64_t *state);                       /* N(0, 1) */
int64_t kb_rng_int(uint64_t *state, int64_t lo, int64_t hi); /* [lo, hi] */

uint16_t kb_f32_to_f16(float f);
float kb_f16_to_f32(uint16_t h);
uint16_t kb_f32_to_bf16(float f);
float kb_bf16_to_f32(uint16_t h);

/* NVTX ranges (nvtx3); cheap no-ops when no tool is attached. */
void kb_nvtx_push(const char *name);
void kb_nvtx_pop(void);

#ifdef __cplusplus
}
#endif
#endif
