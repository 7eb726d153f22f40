/* measure_cold.c — cold mode (the default): before each sample, empty L2 by
 * going through a buffer twice its size (--flush: which way, l2_flush.h) so
 * that no input is served from cache; one launch per sample between two
 * events. This is the time a kernel takes inside a network, where the
 * previous layer has pushed its inputs out of L2. */
#include "measure.h"

static int flush_l2(void *p, cudaStream_t s, kb_error *e) {
    kb_measure *m = ((kb_timer *)p)->m;
    return kb_l2_flush(m->flush, m->l2_flush, m->l2_flush_bytes, m->nsamples, s, e);
}

static int one_launch(void *p, cudaStream_t s, kb_error *e) {
    kb_timer *t = p;
    return t->fn(t->ctx, s, e);
}

int kb_timer_cold(kb_timer *t, kb_error *e) {
    double one;
    if (kb_warmup(t->m, t->fn, t->ctx, t->s, &one, e) != KB_OK) return KB_ERR;
    t->before = flush_l2;
    t->body = one_launch;
    t->batch = 1;
    return KB_OK;
}
