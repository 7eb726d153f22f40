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
/* Record one sample; 1 when the stopping rule says enough (t0: sampling start). */
int kb_measure_push(kb_measure *m, double seconds, double t0);
/* Launches per sample for hot and graph modes: enough that one sample spans
 * ~200 us, so event resolution (~0.5 us) and the gap before the first launch
 * stay under 1% of it. */
int kb_batch_size(double per_launch_s);

#endif
