/* device.h — the device a run measures on: its facts, its measured peaks
 * (cached per device), its current clock (device.c). */
#ifndef KB_DEVICE_H
#define KB_DEVICE_H

#include "kbench.h"

#include <stdio.h>

typedef struct kb_device {
    int ordinal;
    char name[256];
    char uuid[64];
    int cc_major, cc_minor, sm_count;
    size_t l2_bytes, mem_bytes;
    size_t l2_persist_max; /* the most of L2 that persisting lines may hold; 0: none */
    int sm_clock_mhz, mem_clock_mhz, bus_width_bits; /* maxima the device reports */
    int driver_version, runtime_version;
    int visible;              /* devices this process sees (CUDA_VISIBLE_DEVICES applied) */
    double peak_copy_gbps;    /* measured: device-to-device copy, read + write bytes */
    double peak_sgemm_gflops; /* measured: cuBLAS SGEMM 8192^3, fp32 FMA units */
} kb_device;

/* KB_NO_DEVICE with a message saying which: no driver, a driver older than
 * the runtime, no device, or no device of that ordinal. */
int kb_device_open(int ordinal, kb_device *d, kb_error *e);
/* Measured peaks, cached per device UUID under $XDG_CACHE_HOME/kbench
 * (or ~/.cache/kbench); force re-measures. */
int kb_device_peaks(kb_device *d, int force, kb_error *e);
/* Current SM clock in MHz through NVML (loaded at run time); -1 if unknown. */
int kb_device_sm_clock_now(const kb_device *d);
void kb_device_describe(const kb_device *d, FILE *f);

#endif
