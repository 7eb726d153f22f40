/* faulty.cu — the deliberately broken variants of faulty.h. Each wraps
 * preprocess/nearest_naive (correct results) and adds one fault. */
#include "faulty.h"
#include "preprocess.h"

#include <stdint.h>

/* nearest_naive as the registry holds it: what every fault wraps. */
static const kb_variant_impl &good_impl() {
    return *kb_find_variant("preprocess", "nearest_naive")->impl;
}

static const size_t PIB = (size_t)1 << 50;

typedef struct faulty_state {
    void *good;  /* nearest_naive's state */
    void *extra; /* the fault's own device memory */
} faulty_state;

static int wrap_setup(const kb_case *c, const kb_tensors *in, faulty_state **fs, kb_error *e) {
    *fs = (faulty_state *)calloc(1, sizeof **fs);
    if (!*fs) return kb_fail(e, "out of host memory");
    int rc = good_impl().setup(c, in, &(*fs)->good, e);
    if (rc != KB_OK) free(*fs);
    return rc;
}

static int good_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                    kb_error *e) {
    return good_impl().run(((faulty_state *)state)->good, in, out, s, e);
}

static void free_teardown(void *state) {
    faulty_state *fs = (faulty_state *)state;
    good_impl().teardown(fs->good);
    cudaFree(fs->extra);
    free(fs);
}

static int good_supports(const kb_case *c, kb_error *why) {
    return good_impl().supports(c, why);
}

static size_t no_workspace(const kb_case *c) {
    return 0;
}

static int plain_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    faulty_state *fs;
    if (wrap_setup(c, in, &fs, e) != KB_OK) return KB_ERR;
    *state = fs;
    return KB_OK;
}

/* ---- oob_write: 1 TiB past the end of the output, far from any mapping ---- */

__global__ void write_far(float *out) {
    out[(size_t)1 << 38] = 1.0f;
}

static int oob_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                   kb_error *e) {
    if (good_run(state, in, out, s, e) != KB_OK) return KB_ERR;
    write_far<<<1, 1, 0, s>>>((float *)out->t[0].data);
    return kb_cuda_check(cudaGetLastError(), "write_far launch", e);
}

/* ---- hang: volatile reads of a zeroed word; nothing ever writes it ---- */

__global__ void spin(const volatile int *flag) {
    while (*flag == 0) {
    }
}

static size_t word(const kb_case *c) {
    return sizeof(int);
}

/* nearest_naive's setup, and one device word (extra) of bytes all `byte`. */
static int word_setup(const kb_case *c, const kb_tensors *in, int byte, faulty_state **fs,
                      kb_error *e) {
    if (wrap_setup(c, in, fs, e) != KB_OK) return KB_ERR;
    if (kb_cuda_check(cudaMalloc(&(*fs)->extra, sizeof(int)), "cudaMalloc", e) != KB_OK ||
        kb_cuda_check(cudaMemset((*fs)->extra, byte, sizeof(int)), "cudaMemset", e) != KB_OK) {
        free_teardown(*fs);
        return KB_ERR;
    }
    return KB_OK;
}

static int hang_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    faulty_state *fs;
    if (word_setup(c, in, 0, &fs, e) != KB_OK) return KB_ERR;
    *state = fs;
    return KB_OK;
}

static int hang_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                    kb_error *e) {
    spin<<<1, 1, 0, s>>>((const int *)((faulty_state *)state)->extra);
    return kb_cuda_check(cudaGetLastError(), "spin launch", e);
}

/* ---- huge_workspace: the harness must refuse it before setup ---- */

static size_t pib(const kb_case *c) {
    return PIB;
}

/* ---- oom_in_setup: the allocation fails mid-run; a row, not an abort ---- */

static int oom_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    faulty_state *fs;
    if (wrap_setup(c, in, &fs, e) != KB_OK) return KB_ERR;
    cudaError_t rc = cudaMalloc(&fs->extra, PIB);
    if (rc == cudaSuccess) {
        *state = fs;
        return KB_OK;
    }
    cudaGetLastError();
    free_teardown(fs);
    kb_fail(e, "cudaMalloc(%zu) in setup: %s", PIB, cudaGetErrorString(rc));
    return KB_OUT_OF_MEMORY;
}

/* ---- leak: 64 MiB per setup that teardown forgets ---- */

static int leak_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    faulty_state *fs;
    if (wrap_setup(c, in, &fs, e) != KB_OK) return KB_ERR;
    void *lost;
    if (cudaMalloc(&lost, (size_t)64 << 20) != cudaSuccess) {
        free_teardown(fs);
        return KB_OUT_OF_MEMORY;
    }
    *state = fs;
    return KB_OK;
}

static void leak_teardown(void *state) {
    faulty_state *fs = (faulty_state *)state;
    good_impl().teardown(fs->good);
    free(fs);
}

/* ---- setup_fails: hands back a state holding 256 MiB, then fails ---- */

static const size_t SETUP_FAILS_BYTES = (size_t)256 << 20;

static int setup_fails(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    faulty_state *fs;
    if (wrap_setup(c, in, &fs, e) != KB_OK) return KB_ERR;
    if (kb_cuda_check(cudaMalloc(&fs->extra, SETUP_FAILS_BYTES), "cudaMalloc", e) != KB_OK) {
        free_teardown(fs);
        return KB_ERR;
    }
    *state = fs; /* against kbench.h's rule for setup, on purpose: the runner's half */
    return kb_fail(e, "setup fails on purpose, holding %zu bytes of device memory",
                   SETUP_FAILS_BYTES);
}

/* ---- index_limit: claims a limit it does not have, for --force ---- */

static int refuse(const kb_case *c, kb_error *why) {
    int s = good_impl().supports(c, why);
    if (s != KB_OK) return s;
    kb_fail(why, "pretends its indices need %lld > INT32_MAX", (long long)INT32_MAX + 1);
    return KB_UNSUPPORTED;
}

/* ---- setup_async: setup's last step still running when it returns ---- */

/* The factor the run needs starts as NaN bytes; setup's last launch, on the
 * legacy stream, spins ~0.1 s (200M cycles at 1-2 GHz) before it writes 1.
 * The variant is correct under kbench.h's rule for setup (its device work
 * may go on any stream); a runner that starts the run on its non-blocking
 * stream without waiting for that work spoils the output. */
__global__ void slow_ready(float *ready, long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    *ready = 1.0f;
}

/* NaN bytes over the output's first element unless the factor is ready. */
__global__ void spoil_unless_ready(unsigned char *out, const float *ready) {
    if (*ready != 1.0f)
        for (int i = 0; i < 4; i++) out[i] = 0xFF;
}

static int setup_async_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    faulty_state *fs;
    if (word_setup(c, in, 0xFF, &fs, e) != KB_OK) return KB_ERR;
    *state = fs;
    slow_ready<<<1, 1>>>((float *)fs->extra, 200000000ll);
    return kb_cuda_check(cudaGetLastError(), "slow_ready launch", e);
}

static int setup_async_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                           kb_error *e) {
    if (good_run(state, in, out, s, e) != KB_OK) return KB_ERR;
    spoil_unless_ready<<<1, 1, 0, s>>>((unsigned char *)out->t[0].data,
                                       (const float *)((faulty_state *)state)->extra);
    return kb_cuda_check(cudaGetLastError(), "spoil_unless_ready launch", e);
}

extern "C" {
const kb_variant_impl kb_faulty_oob_write = {good_supports, no_workspace, plain_setup, oob_run,
                                             free_teardown};
const kb_variant_impl kb_faulty_hang = {good_supports, word, hang_setup, hang_run, free_teardown};
const kb_variant_impl kb_faulty_huge_workspace = {good_supports, pib, plain_setup, good_run,
                                                  free_teardown};
const kb_variant_impl kb_faulty_oom_in_setup = {good_supports, no_workspace, oom_setup, good_run,
                                                free_teardown};
const kb_variant_impl kb_faulty_leak = {good_supports, no_workspace, leak_setup, good_run,
                                        leak_teardown};
const kb_variant_impl kb_faulty_setup_fails = {good_supports, no_workspace, setup_fails, good_run,
                                               free_teardown};
const kb_variant_impl kb_faulty_index_limit = {refuse, no_workspace, plain_setup, good_run,
                                               free_teardown};
const kb_variant_impl kb_faulty_setup_async = {good_supports, word, setup_async_setup,
                                               setup_async_run, free_teardown};
}
