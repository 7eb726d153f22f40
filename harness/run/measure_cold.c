/* measure_cold.c — cold mode (the default): before each sample, empty L2 by
 * going through a buffer twice its size (--flush: which way, l2_flush.h) so
 * that no input is served from cache; one launch per sample between two
 * events. This is the time a kernel takes inside a network, where the
 * previous layer has pushed its inputs out of L2. */
#include "measure.h"

typedef struct cold_ctx {
    kb_measure *m;
    kb_launch_fn fn;
    void *ctx;
} cold_ctx;

static int flush_l2(void *p, cudaStream_t s, kb_error *e) {
    kb_measure *m = ((cold_ctx *)p)->m;
    return kb_l2_flush(m->flush, m->l2_flush, m->l2_flush_bytes, m->nsamples, s, e);
}

static int one_launch(void *p, cudaStream_t s, kb_error *e) {
    cold_ctx *c = p;
    return c->fn(c->ctx, s, e);
}

int kb_measure_cold(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    double one;
    if (kb_warmup(m, fn, ctx, s, &one, e) != KB_OK) return KB_ERR;
    cold_ctx c = {m, fn, ctx};
    kb_sampler sp = {flush_l2, one_launch, &c, 1};
    return kb_sample_loop(m, &sp, s, e);
}
