/* measure_hot.c — hot mode: a batch of launches back to back between two
 * events; a sample is the batch time over its size. Inputs that fit in L2
 * stay there: the best case, and the launch gaps are included. */
#include "measure.h"

typedef struct hot_ctx {
    kb_launch_fn fn;
    void *ctx;
    int batch;
} hot_ctx;

static int batch_of_launches(void *p, cudaStream_t s, kb_error *e) {
    hot_ctx *h = p;
    int rc = KB_OK;
    for (int i = 0; i < h->batch && rc == KB_OK; i++) rc = h->fn(h->ctx, s, e);
    return rc;
}

int kb_measure_hot(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    double one;
    if (kb_warmup(m, fn, ctx, s, &one, e) != KB_OK) return KB_ERR;
    hot_ctx h = {fn, ctx, kb_batch_size(one)};
    kb_sampler sp = {NULL, batch_of_launches, &h, h.batch};
    return kb_sample_loop(m, &sp, s, e);
}
