/* host_device.h — "CPU or GPU at this size?" for a view that has host rows
 * (KB_HOST variants: the CSV's `where` is host), in host_device.c: per case
 * the fastest host and the fastest device variant that PASSed, and the axis
 * along which the winner is read (`kbench report`'s text, `kbench plot`'s
 * cpu_vs_gpu). CPU only.
 *
 *   kb_host_device hd;
 *   kb_host_device_build(view, along, &hd, &e);   hd.any: it has host rows
 *   kb_host_device_along(&hd, panel, text, sizeof text);
 *   kb_host_device_free(&hd);
 */
#ifndef KB_HOST_DEVICE_H
#define KB_HOST_DEVICE_H

#include "results.h"

#include <stddef.h>

/* A variant the tables rank: ours (not a peer), of the op's own semantics
 * (not KB_INEXACT), not a test-only fault. */
int kb_view_ranked(const kb_op_view *v, int k);
/* The variant to ship on case c: the fastest ranked variant that PASSed (on
 * the host or not), -1 when none did; *second (when not NULL) the runner-up
 * or -1. */
int kb_view_ship(const kb_op_view *v, int c, int *second);
/* The row ran on the CPU (its `where` is host). */
int kb_result_on_host(const kb_result *r);

typedef struct kb_host_device {
    int any;            /* the view has a host row */
    int *host, *device; /* per case of the view: the fastest ranked variant that PASSed on
                           the host (on the device); -1 when none did */
    int *has_host;      /* per case of the view: a host row, whatever its status */
    /* The cases where both PASSed, as a view of two variants: 0 is the
     * fastest on the CPU, 1 the fastest on the GPU (its cells are their rows). */
    kb_op_view both;
    int has_along;  /* an axis along which two of both's cases share a panel */
    kb_along along; /* of `both`: `along` when it varies there, else kb_along_pick_joined's */
} kb_host_device;

/* Fill hd from v (hd->any 0 when v has no host row). KB_ERR only for memory. */
int kb_host_device_build(const kb_op_view *v, const char *along, kb_host_device *hd, kb_error *e);
void kb_host_device_free(kb_host_device *hd);
/* The CPU's time over the GPU's on case c of hd->both (below 1: the CPU wins). */
double kb_host_device_ratio(const kb_host_device *hd, int c);
/* "CPU 1.51× faster" or "GPU 212× faster". */
void kb_host_device_verdict(double ratio, char *buf, size_t n);
/* What panel p of hd->along says, e.g. "GPU faster at every n measured (from
 * n=1000 to n=100000)" or "CPU faster at n=1000; GPU faster from n=4000 to
 * n=100000 (the winner changes between n=1000 and n=4000)". Returns the
 * number of changes, or -1 (buf "") for a panel of fewer than 2 positions. */
int kb_host_device_along(const kb_host_device *hd, int p, char *buf, size_t n);

#endif
