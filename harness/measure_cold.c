/* measure_cold.c — cold mode (the default): before each sample, write a
 * buffer larger than L2 so no input is served from cache; one launch per
 * sample between two events. This is the time a kernel takes inside a
 * network, where the previous layer has pushed its inputs out of L2. */
#include "measure.h"

int kb_measure_cold(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    double one;
    if (kb_warmup(m, fn, ctx, s, &one, e) != KB_OK) return KB_ERR;
    kb_events ev;
    if (kb_events_create(&ev, e) != KB_OK) return KB_ERR;
    int rc = KB_OK, done = 0;
    double t0 = kb_now_s();
    m->nsamples = 0;
    kb_nvtx_push("samples");
    while (rc == KB_OK && !done) {
        rc = kb_cuda_check(cudaMemsetAsync(m->l2_flush, m->nsamples & 0xFF, m->l2_flush_bytes, s),
                           "L2 flush (cudaMemsetAsync)", e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(ev.start, s), "cudaEventRecord", e);
        if (rc == KB_OK) rc = fn(ctx, s, e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(ev.stop, s), "cudaEventRecord", e);
        double t = 0;
        if (rc == KB_OK) rc = kb_events_elapsed(&ev, &t, e);
        if (rc == KB_OK) done = kb_measure_push(m, t, t0);
    }
    kb_nvtx_pop();
    kb_events_destroy(&ev);
    return rc;
}
