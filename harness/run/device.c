/* device.c — what the device is, and its measured ceilings.
 *
 * Datasheet peaks are leads; the percentages kbench reports are of peaks
 * measured here once per device (METHOD.md): a device-to-device copy
 * (bytes read + bytes written) and a cuBLAS SGEMM. They are cached per
 * device UUID so that every run does not pay ~1 s for them.
 *
 * The current SM clock comes from NVML, opened with dlopen: the toolkit
 * ships no NVML stub to link, and kbench must start without a driver.
 */
#define _POSIX_C_SOURCE 200809L
#include "device.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Why cudaGetDeviceCount found no device, in the user's terms. The runtime
 * says "CUDA driver version is insufficient" both when the driver is older
 * than the runtime and when there is no driver at all: tell them apart by
 * loading the driver library and asking its version (0 without a driver). */
static int no_device(cudaError_t rc, kb_error *e) {
    int drv = 0, rt = 0;
    cudaRuntimeGetVersion(&rt);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        kb_fail(e, "no CUDA device: no NVIDIA driver is installed (%s)",
                why ? why : "libcuda.so.1 cannot be loaded");
        return KB_NO_DEVICE;
    }
    dlclose(lib);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    if (rc == cudaErrorInsufficientDriver && drv > 0 && drv < rt) {
        kb_fail(e,
                "no CUDA device: the NVIDIA driver is too old: it supports CUDA %d.%d, kbench "
                "was built with CUDA runtime %d.%d (update the driver)",
                drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    } else if (rc == cudaSuccess || rc == cudaErrorNoDevice) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        kb_fail(e, "no CUDA device: the driver (CUDA %d.%d) sees none%s%s%s", drv / 1000,
                (drv % 1000) / 10, vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "",
                vis ? ")" : "");
    } else {
        kb_fail(e, "no CUDA device: %s (%s; driver CUDA %d.%d, runtime %d.%d)",
                cudaGetErrorString(rc), cudaGetErrorName(rc), drv / 1000, (drv % 1000) / 10,
                rt / 1000, (rt % 1000) / 10);
    }
    return KB_NO_DEVICE;
}

int kb_device_open(int ordinal, kb_device *d, kb_error *e) {
    memset(d, 0, sizeof *d);
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        cudaGetLastError();
        return no_device(rc, e);
    }
    if (ordinal < 0 || ordinal >= count) { /* the device asked for is not there */
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        kb_fail(e, "no CUDA device %d (--device/--devices): there are %d, 0..%d%s%s%s", ordinal,
                count, count - 1, vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "",
                vis ? ")" : "");
        return KB_NO_DEVICE;
    }
    KB_CUDA_TRY(cudaSetDevice(ordinal), e);
    struct cudaDeviceProp p;
    KB_CUDA_TRY(cudaGetDeviceProperties(&p, ordinal), e);
    d->ordinal = ordinal;
    d->visible = count;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(d->uuid, sizeof d->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->l2_persist_max = p.persistingL2CacheMaxSize > 0 ? (size_t)p.persistingL2CacheMaxSize : 0;
    d->mem_bytes = p.totalGlobalMem;
    d->bus_width_bits = p.memoryBusWidth;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal) == cudaSuccess)
        d->sm_clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess)
        d->mem_clock_mhz = khz / 1000;
    cudaDriverGetVersion(&d->driver_version);
    cudaRuntimeGetVersion(&d->runtime_version);
    return KB_OK;
}

/* ---- measured peaks ---- */

static void cache_path(const kb_device *d, char *buf, size_t n) {
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(buf, n, "%s/kbench", xdg);
    else
        snprintf(buf, n, "%s/.cache/kbench", home && *home ? home : "/tmp");
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "/peaks-%s.txt", d->uuid);
}

static void mkdir_parents(const char *path) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
}

static int median_time(cudaEvent_t a, cudaEvent_t b, double *t, int reps, int (*op)(void *),
                       void *ctx, kb_error *e) {
    double best[16];
    for (int i = 0; i < reps; i++) {
        KB_CUDA_TRY(cudaEventRecord(a, 0), e);
        if (op(ctx) != KB_OK) return kb_fail(e, "peak measurement kernel failed");
        KB_CUDA_TRY(cudaEventRecord(b, 0), e);
        KB_CUDA_TRY(cudaEventSynchronize(b), e);
        float ms;
        KB_CUDA_TRY(cudaEventElapsedTime(&ms, a, b), e);
        best[i] = ms * 1e-3;
    }
    for (int i = 1; i < reps; i++) /* insertion sort, reps is tiny */
        for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
            double x = best[j];
            best[j] = best[j - 1];
            best[j - 1] = x;
        }
    *t = best[reps / 2];
    return KB_OK;
}

typedef struct {
    void *dst, *src;
    size_t bytes;
    cublasHandle_t h;
    float *a, *b, *c;
    int n;
} peak_ctx;

static int do_copy(void *p) {
    peak_ctx *c = p;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess
               ? KB_OK
               : KB_ERR;
}

static int do_sgemm(void *p) {
    peak_ctx *c = p;
    const float one = 1, zero = 0;
    return cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, c->n, c->n, c->n, &one, c->a, c->n, c->b,
                       c->n, &zero, c->c, c->n) == CUBLAS_STATUS_SUCCESS
               ? KB_OK
               : KB_ERR;
}

static int measure_peaks(kb_device *d, kb_error *e) {
    peak_ctx c = {0};
    cudaEvent_t a = NULL, b = NULL;
    int rc = KB_ERR;
    /* Copy: 1 GiB each way, far beyond L2; bytes counted read + write. */
    c.bytes = (size_t)1 << 30;
    if (c.bytes * 3 > d->mem_bytes) c.bytes = d->mem_bytes / 8;
    if (kb_cuda_check(cudaMalloc(&c.src, c.bytes), "cudaMalloc (peak copy)", e) ||
        kb_cuda_check(cudaMalloc(&c.dst, c.bytes), "cudaMalloc (peak copy)", e) ||
        kb_cuda_check(cudaMemset(c.src, 1, c.bytes), "cudaMemset", e) ||
        kb_cuda_check(cudaEventCreate(&a), "cudaEventCreate", e) ||
        kb_cuda_check(cudaEventCreate(&b), "cudaEventCreate", e))
        goto out;
    double t = 0;
    do_copy(&c);
    if (median_time(a, b, &t, 9, do_copy, &c, e) != KB_OK) goto out;
    d->peak_copy_gbps = 2.0 * (double)c.bytes / t * 1e-9;
    cudaFree(c.src);
    cudaFree(c.dst);
    c.src = c.dst = NULL;

    /* SGEMM 8192^3 on random-ish (non-zero) data: fp32 FMA ceiling. */
    c.n = 8192;
    size_t mat = (size_t)c.n * c.n * sizeof(float);
    if (cublasCreate(&c.h) != CUBLAS_STATUS_SUCCESS) {
        kb_fail(e, "cublasCreate failed");
        goto out;
    }
    cublasSetMathMode(c.h, CUBLAS_PEDANTIC_MATH); /* true fp32, no tf32 */
    if (kb_cuda_check(cudaMalloc((void **)&c.a, mat), "cudaMalloc (peak sgemm)", e) ||
        kb_cuda_check(cudaMalloc((void **)&c.b, mat), "cudaMalloc (peak sgemm)", e) ||
        kb_cuda_check(cudaMalloc((void **)&c.c, mat), "cudaMalloc (peak sgemm)", e) ||
        kb_cuda_check(cudaMemset(c.a, 0x3c, mat), "cudaMemset", e) ||
        kb_cuda_check(cudaMemset(c.b, 0x3b, mat), "cudaMemset", e))
        goto out;
    do_sgemm(&c);
    if (median_time(a, b, &t, 5, do_sgemm, &c, e) != KB_OK) goto out;
    d->peak_sgemm_gflops = 2.0 * c.n * (double)c.n * c.n / t * 1e-9;
    rc = KB_OK;
out:
    if (c.h) cublasDestroy(c.h);
    cudaFree(c.src);
    cudaFree(c.dst);
    cudaFree(c.a);
    cudaFree(c.b);
    cudaFree(c.c);
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    return rc;
}

int kb_device_peaks(kb_device *d, int force, kb_error *e) {
    char path[1024];
    cache_path(d, path, sizeof path);
    FILE *f = force ? NULL : fopen(path, "r");
    if (f) {
        int ok = fscanf(f, "copy_gbps %lf sgemm_gflops %lf", &d->peak_copy_gbps,
                        &d->peak_sgemm_gflops) == 2;
        fclose(f);
        if (ok && d->peak_copy_gbps > 0 && d->peak_sgemm_gflops > 0) return KB_OK;
    }
    kb_nvtx_push("kbench: measuring device peaks");
    int rc = measure_peaks(d, e);
    kb_nvtx_pop();
    if (rc != KB_OK) return rc;
    mkdir_parents(path);
    f = fopen(path, "w");
    if (f) { /* a cache that cannot be written is not an error: next run re-measures */
        fprintf(f, "copy_gbps %.3f sgemm_gflops %.3f\n", d->peak_copy_gbps, d->peak_sgemm_gflops);
        fclose(f);
    }
    return KB_OK;
}

/* ---- NVML, at run time ---- */

typedef int (*nvml_fn_void)(void);
typedef int (*nvml_fn_handle)(const char *, void **);
typedef int (*nvml_fn_clock)(void *, int, unsigned *);

int kb_device_sm_clock_now(const kb_device *d) {
    static void *lib;
    static nvml_fn_handle by_uuid;
    static nvml_fn_clock clock_info;
    static int tried;
    if (!tried) {
        tried = 1;
        lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        nvml_fn_void init = lib ? (nvml_fn_void)dlsym(lib, "nvmlInit_v2") : NULL;
        if (init && init() == 0) {
            by_uuid = (nvml_fn_handle)dlsym(lib, "nvmlDeviceGetHandleByUUID");
            clock_info = (nvml_fn_clock)dlsym(lib, "nvmlDeviceGetClockInfo");
        }
    }
    void *h;
    unsigned mhz;
    enum { NVML_CLOCK_SM = 1 };
    if (!by_uuid || !clock_info || by_uuid(d->uuid, &h) != 0 ||
        clock_info(h, NVML_CLOCK_SM, &mhz) != 0)
        return -1;
    return (int)mhz;
}

void kb_device_describe(const kb_device *d, FILE *f) {
    fprintf(f, "device %d: %s (%s)\n", d->ordinal, d->name, d->uuid);
    fprintf(f, "  compute capability %d.%d, %d SMs, L2 %.1f MiB, memory %.1f GiB\n", d->cc_major,
            d->cc_minor, d->sm_count, d->l2_bytes / 1048576.0, d->mem_bytes / 1073741824.0);
    if (d->l2_persist_max)
        fprintf(f, "  L2 persisting lines: up to %.1f MiB\n", d->l2_persist_max / 1048576.0);
    fprintf(f, "  clocks (max): SM %d MHz, memory %d MHz, bus %d bits\n", d->sm_clock_mhz,
            d->mem_clock_mhz, d->bus_width_bits);
    int now = kb_device_sm_clock_now(d);
    if (now > 0) fprintf(f, "  SM clock now: %d MHz (NVML)\n", now);
    fprintf(f, "  driver %d.%d, runtime %d.%d\n", d->driver_version / 1000,
            (d->driver_version % 1000) / 10, d->runtime_version / 1000,
            (d->runtime_version % 1000) / 10);
    if (d->peak_copy_gbps > 0)
        fprintf(f, "  measured peaks: copy %.0f GB/s (read + write), SGEMM fp32 %.1f TFLOP/s\n",
                d->peak_copy_gbps, d->peak_sgemm_gflops * 1e-3);
}
