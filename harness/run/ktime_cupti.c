/* ktime_cupti.c — CUPTI for the kernel columns (ktime.h), loaded with
 * dlopen so that kbench never depends on libcupti at link time.
 *
 * The callbacks of the event records alone (runtime and driver: the
 * samples' start and stop events) keep the correlation id of the latest
 * (kb_ktime_mark reads it: a load, no CUDA call). A callback on every API
 * call would cost every launch of a variant some host time, which the event
 * pair around a launch-bound sample would time. The activity
 * buffers CUPTI fills are parsed into kb_krec records as CUPTI hands them
 * back, on its own thread, under a mutex; kb_ktime_collect flushes them
 * after a row's samples and attributes them (ktime.c). The record layouts
 * are those of the cupti_activity.h kbench was built with: the library
 * loaded should be of the same toolkit (the default search looks there). */
#define _GNU_SOURCE
#include "run/ktime.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KB_CUPTI_DIRS
#define KB_CUPTI_DIRS ""
#endif

static struct {
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                      CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                   CUpti_CallbackId);
    CUptiResult (*result_string)(CUptiResult, const char **);
} cupti;

static int opened; /* 0 not tried, 1 loaded, -1 refused */
static char why[1024];
static _Atomic uint32_t last_corr, last_ctx;
static atomic_size_t dropped_recs;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kb_krec *recs;
static size_t nrecs, caprecs;
/* A bound on what a row may collect: 8M records (256 MiB) is 8 s of 1 us
 * kernels, past any row's --max-time; a row over it has no kernel time. */
enum { MAX_RECS = 8 << 20, BUFFER_BYTES = 8 << 20 };

static void CUPTIAPI on_api(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *p) {
    (void)u, (void)d, (void)id;
    const CUpti_CallbackData *cb = p;
    if (cb->callbackSite != CUPTI_API_ENTER) return;
    /* ids grow with every call; a nested driver call may take the next one */
    uint32_t c = cb->correlationId, cur = atomic_load(&last_corr);
    while (c > cur && !atomic_compare_exchange_weak(&last_corr, &cur, c)) {
    }
    atomic_store(&last_ctx, cb->contextUid);
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
    *buf = aligned_alloc(8, BUFFER_BYTES);
    *size = *buf ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void keep(uint64_t start, uint64_t end, uint32_t corr, uint32_t ctx, int kind) {
    if (nrecs == caprecs) {
        size_t cap = caprecs ? 2 * caprecs : 65536;
        kb_krec *p = cap <= MAX_RECS ? realloc(recs, cap * sizeof *p) : NULL;
        if (!p) {
            atomic_fetch_add(&dropped_recs, 1);
            return;
        }
        recs = p;
        caprecs = cap;
    }
    recs[nrecs++] = (kb_krec){start, end, corr, ctx, kind};
}

static void CUPTIAPI buffer_completed(CUcontext c, uint32_t stream, uint8_t *buf, size_t size,
                                      size_t valid) {
    (void)c, (void)stream, (void)size;
    CUpti_Activity *a = NULL;
    pthread_mutex_lock(&lock);
    while (cupti.next_record(buf, valid, &a) == CUPTI_SUCCESS) {
        if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const void *)a;
            keep(k->start, k->end, k->correlationId, k->contextId, KB_KREC_KERNEL);
        } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const void *)a;
            keep(m->start, m->end, m->correlationId, m->contextId, KB_KREC_MEMSET);
        } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const void *)a;
            keep(m->start, m->end, m->correlationId, m->contextId, KB_KREC_MEMCPY);
        }
    }
    size_t lost = 0;
    if (cupti.dropped && cupti.dropped(c, stream, &lost) == CUPTI_SUCCESS && lost)
        atomic_fetch_add(&dropped_recs, lost);
    pthread_mutex_unlock(&lock);
    free(buf);
}

static const char *result_text(CUptiResult r) {
    const char *s = NULL;
    if (cupti.result_string && cupti.result_string(r, &s) == CUPTI_SUCCESS && s) return s;
    return "unknown CUPTI error";
}

static void *try_open(const char *path, char *tried, size_t n) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    const char *err = dlerror();
    size_t used = strlen(tried);
    snprintf(tried + used, n - used, "%sdlopen %.200s: %.200s", used ? "; " : "", path,
             err ? err : "failed");
    return NULL;
}

/* $KB_CUPTI_LIB alone when set; else the loader's path (by the development
 * name, then by this toolkit's major version), then the toolkit's folders. */
static void *load(char *tried, size_t n) {
    tried[0] = '\0';
    const char *env = getenv("KB_CUPTI_LIB");
    if (env && env[0]) return try_open(env, tried, n);
    char path[1200];
    snprintf(path, sizeof path, "libcupti.so.%d", CUDA_VERSION / 1000);
    void *h = try_open("libcupti.so", tried, n);
    if (!h) h = try_open(path, tried, n);
    char dirs[1024];
    snprintf(dirs, sizeof dirs, "%s", KB_CUPTI_DIRS);
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d && !h; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof path, "%s/libcupti.so", d);
        h = try_open(path, tried, n);
    }
    if (h) tried[0] = '\0';
    return h;
}

#define CUPTI_SYM(field, name)                                                                     \
    if (!(*(void **)&cupti.field = dlsym(h, name))) {                                              \
        snprintf(why, sizeof why, "libcupti has no %s", name);                                     \
        goto refused;                                                                              \
    }

#define CUPTI_CALL(call, what)                                                                     \
    if ((rc = (call)) != CUPTI_SUCCESS) {                                                          \
        snprintf(why, sizeof why, "%s: %s", what, result_text(rc));                                \
        goto refused;                                                                              \
    }

/* Every way a stream's event gets recorded, runtime and driver (the runtime's
 * call makes a nested driver call, whose id may be the next). */
static const struct {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId id;
} event_records[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecord},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz},
};

int kb_ktime_open(kb_error *e) {
    if (opened) return opened > 0 ? KB_OK : kb_fail(e, "%s", why);
    opened = -1;
    void *h = load(why, sizeof why);
    if (!h) return kb_fail(e, "%s", why);
    CUptiResult rc;
    CUpti_SubscriberHandle sub;
    CUPTI_SYM(result_string, "cuptiGetResultString");
    CUPTI_SYM(enable, "cuptiActivityEnable");
    CUPTI_SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
    CUPTI_SYM(flush_all, "cuptiActivityFlushAll");
    CUPTI_SYM(next_record, "cuptiActivityGetNextRecord");
    CUPTI_SYM(subscribe, "cuptiSubscribe");
    CUPTI_SYM(enable_callback, "cuptiEnableCallback");
    *(void **)&cupti.dropped = dlsym(h, "cuptiActivityGetNumDroppedRecords");
    CUPTI_CALL(cupti.subscribe(&sub, on_api, NULL), "cuptiSubscribe");
    for (size_t i = 0; i < sizeof event_records / sizeof event_records[0]; i++)
        CUPTI_CALL(cupti.enable_callback(1, sub, event_records[i].domain, event_records[i].id),
                   "cuptiEnableCallback(an event record)");
    CUPTI_CALL(cupti.register_callbacks(buffer_requested, buffer_completed),
               "cuptiActivityRegisterCallbacks");
    CUPTI_CALL(cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
               "cuptiActivityEnable(CONCURRENT_KERNEL)");
    CUPTI_CALL(cupti.enable(CUPTI_ACTIVITY_KIND_MEMSET), "cuptiActivityEnable(MEMSET)");
    CUPTI_CALL(cupti.enable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityEnable(MEMCPY)");
    opened = 1;
    why[0] = '\0';
    return KB_OK;
refused:
    /* the library stays loaded: a subscriber or callbacks may point into it */
    return kb_fail(e, "%s", why);
}

const char *kb_ktime_unavailable(void) {
    return opened ? why : NULL;
}

void kb_ktime_begin(void) {
    if (opened <= 0) return;
    cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&lock);
    nrecs = 0;
    atomic_store(&dropped_recs, 0);
    pthread_mutex_unlock(&lock);
}

void kb_ktime_mark(kb_kwindow *w, int end) {
    if (end) {
        w->hi = atomic_load(&last_corr);
    } else {
        w->lo = atomic_load(&last_corr);
        w->context = atomic_load(&last_ctx);
    }
}

int kb_ktime_collect(const kb_kwindow *wins, int n, int launches, double *sum_s, double *span_s,
                     int *count, int keep, kb_error *e) {
    if (opened <= 0) return kb_fail(e, "CUPTI is not loaded");
    CUptiResult rc = cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (rc != CUPTI_SUCCESS) return kb_fail(e, "cuptiActivityFlushAll: %s", result_text(rc));
    pthread_mutex_lock(&lock);
    size_t lost = atomic_load(&dropped_recs), collected = nrecs;
    int ok = lost == 0 &&
             kb_ktime_attribute(recs, nrecs, wins, n, launches, sum_s, span_s, count) == KB_OK;
    int attributed = 0;
    for (int i = 0; ok && i < n; i++) attributed += count[i];
    if (!keep) {
        nrecs = 0;
        atomic_store(&dropped_recs, 0);
    }
    pthread_mutex_unlock(&lock);
    if (lost) return kb_fail(e, "CUPTI dropped %zu activity records", lost);
    if (!ok) return kb_fail(e, "out of host memory attributing kernel records");
    /* A variant always launches something: none in any window means the
     * windows missed the records, and a 0 would read as a time. */
    if (!attributed)
        return kb_fail(e,
                       "none of the %zu activity records collected fell in a sample's API "
                       "window (%d samples)",
                       collected, n);
    return KB_OK;
}
