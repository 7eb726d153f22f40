/* measure_hot.c — hot mode: a batch of launches back to back between two
 * events; a sample is the batch time over its size. Inputs that fit in L2
 * stay there: the best case, and the launch gaps are included. */
#include "measure.h"

static int batch_of_launches(void *p, cudaStream_t s, kb_error *e) {
    kb_timer *t = p;
    int rc = KB_OK;
    for (int i = 0; i < t->batch && rc == KB_OK; i++) rc = t->fn(t->ctx, s, e);
    return rc;
}

int kb_timer_hot(kb_timer *t, kb_error *e) {
    double one;
    if (kb_warmup(t->m, t->fn, t->ctx, t->s, &one, e) != KB_OK) return KB_ERR;
    t->batch = kb_batch_size(one);
    t->body = batch_of_launches;
    return KB_OK;
}
