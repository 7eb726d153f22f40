/* measure_hot.c — hot mode: a batch of launches back to back between two
 * events; a sample is the batch time over its size. Inputs that fit in L2
 * stay there: the best case, and the launch gaps are included. */
#include "measure.h"

int kb_measure_hot(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    double one;
    if (kb_warmup(m, fn, ctx, s, &one, e) != KB_OK) return KB_ERR;
    int batch = kb_batch_size(one);
    kb_events ev;
    if (kb_events_create(&ev, e) != KB_OK) return KB_ERR;
    int rc = KB_OK, done = 0;
    double t0 = kb_now_s();
    m->nsamples = 0;
    kb_nvtx_push("samples");
    while (rc == KB_OK && !done) {
        rc = kb_cuda_check(cudaEventRecord(ev.start, s), "cudaEventRecord", e);
        for (int i = 0; i < batch && rc == KB_OK; i++) rc = fn(ctx, s, e);
        if (rc == KB_OK) rc = kb_cuda_check(cudaEventRecord(ev.stop, s), "cudaEventRecord", e);
        double t = 0;
        if (rc == KB_OK) rc = kb_events_elapsed(&ev, &t, e);
        if (rc == KB_OK) done = kb_measure_push(m, t / batch, t0);
    }
    kb_nvtx_pop();
    kb_events_destroy(&ev);
    return rc;
}
