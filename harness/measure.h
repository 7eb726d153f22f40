/* measure.h — pieces shared by measure_cold.c, measure_hot.c, measure_graph.c. */
#ifndef KB_MEASURE_H
#define KB_MEASURE_H

#include "harness.h"

typedef struct kb_events {
    cudaEvent_t start, stop;
} kb_events;

int kb_events_create(kb_events *ev, kb_error *e);
void kb_events_destroy(kb_events *ev);
/* Waits for stop; the time between the two records. */
int kb_events_elapsed(kb_events *ev, double *seconds, kb_error *e);
/* What one sample times. before (may be NULL) runs outside the events (the
 * L2 flush); body runs between them and counts as `launches` launches. */
typedef struct kb_sampler {
    int (*before)(void *ctx, cudaStream_t s, kb_error *e);
    int (*body)(void *ctx, cudaStream_t s, kb_error *e);
    void *ctx;
    int launches;
} kb_sampler;

/* The loop every mode shares: sample until the stopping rule says enough,
 * recording seconds per launch in m->samples, inside an NVTX "samples" range. */
int kb_sample_loop(kb_measure *m, const kb_sampler *sp, cudaStream_t s, kb_error *e);
/* Launches per sample for hot and graph modes: enough that one sample spans
 * ~200 us, so event resolution (~0.5 us) and the gap before the first launch
 * stay under 1% of it. */
int kb_batch_size(double per_launch_s);

#endif
