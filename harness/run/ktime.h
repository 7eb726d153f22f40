/* ktime.h — kernel time from CUPTI's activity records, beside the event time
 * (`kbench run --timer kernels`). The event pair around a sample also times
 * its own launch gap (+1.5% to +5% on 20-300 us kernels, +20% on a 6 us one
 * cold); the GPU's start and end stamps of each kernel do not. Two halves:
 * the attribution of records to samples (ktime.c: plain arithmetic, tested
 * on synthetic records) and CUPTI itself (ktime_cupti.c: libcupti loaded
 * with dlopen at run time, never linked, so
 * that a machine without it, or a virtualised GPU that refuses it, still runs
 * every row, with the kernel columns empty and `kbench info` saying why).
 *
 *   kb_ktime_open(&e);                      // once a process, after the device
 *   kb_ktime_begin();                       // before a row's samples
 *   kb_ktime_mark(&w, 0); ... kb_ktime_mark(&w, 1);   // around each sample
 *   kb_ktime_collect(wins, n, launches, sum, span, count, 0, &e);  // after them
 */
#ifndef KB_KTIME_H
#define KB_KTIME_H

#include "kbench.h"

#include <stddef.h>
#include <stdint.h>

/* What counts as the variant's work on the GPU: its kernels, and its
 * memsets and copies (a variant that clears a buffer does that work). */
typedef enum kb_krec_kind { KB_KREC_KERNEL, KB_KREC_MEMSET, KB_KREC_MEMCPY } kb_krec_kind;

/* One activity record, as much of it as the attribution needs. Times are
 * CUPTI's nanoseconds; correlation is the id of the API call that enqueued
 * it (a graph's kernels carry the cudaGraphLaunch's). */
typedef struct kb_krec {
    uint64_t start, end;
    uint32_t correlation, context;
    int kind; /* kb_krec_kind */
} kb_krec;

/* One sample's API calls: correlation ids in (lo, hi] made in context
 * `context`. lo is the id of the call that recorded the start event, hi that
 * of the stop event's: ids grow with every API call of the process, so the
 * flush and the output poisoning before the start event, and the next
 * sample's work, fall outside. */
typedef struct kb_kwindow {
    uint32_t lo, hi, context;
} kb_kwindow;

/* Per sample i of nsamples (windows in sample order, ids increasing): sum_s[i]
 * the sum of the durations of the records in window i (overlapping kernels
 * count each), span_s[i] the last end minus the first start, both divided by
 * launches (the launches a sample times: hot and graph batches), and
 * count[i] the records. Records of another context, or of no window, are
 * ignored; they may come in any order. A sample with no record has 0, 0, 0.
 * KB_ERR only when out of host memory. */
int kb_ktime_attribute(const kb_krec *recs, size_t nrecs, const kb_kwindow *wins, int nsamples,
                       int launches, double *sum_s, double *span_s, int *count);

/* ---- CUPTI (ktime_cupti.c) ---- */

/* Load libcupti ($KB_CUPTI_LIB, else libcupti.so from the loader's path and
 * the toolkit kbench was built with), subscribe to the callbacks of the
 * event records, runtime and driver (for the correlation ids of
 * kb_ktime_mark: the samples' start and stop events), and enable the
 * CONCURRENT_KERNEL, MEMSET and MEMCPY activity kinds (KIND_KERNEL would
 * serialise the kernels it times). Once a process: later calls return the
 * first outcome. KB_ERR with the dlopen or CUPTI error in e. */
int kb_ktime_open(kb_error *e);
/* What kb_ktime_open said: "" after success, the reason otherwise, NULL when
 * it was not called. */
const char *kb_ktime_unavailable(void);
/* Drop every record collected so far (the check's runs, the warm-up). */
void kb_ktime_begin(void);
/* The id of the latest event record of the process: w->lo (and the
 * context) when end is 0, w->hi when 1; called right after a sample's start
 * and stop event records, so the ids of those two. Host memory only: no CUDA
 * call, so it can sit right after an event record without adding to the
 * timed region. */
void kb_ktime_mark(kb_kwindow *w, int end);
/* Flush CUPTI's buffers (after the samples, never among them) and attribute
 * the records to the n windows; keep: leave the records for another
 * variant's windows of the same rounds (--interleave), else drop them. KB_ERR when records were
 * dropped or the flush failed: the row then has no kernel time rather than a wrong one. */
int kb_ktime_collect(const kb_kwindow *wins, int n, int launches, double *sum_s, double *span_s,
                     int *count, int keep, kb_error *e);

#endif
