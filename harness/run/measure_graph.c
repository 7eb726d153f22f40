/* measure_graph.c — graph mode: a batch of launches captured once into a
 * CUDA graph and replayed; launch gaps mostly vanish, so this is the time a
 * graph-launched engine (TensorRT, CUDA-graph PyTorch) would see. A variant
 * that synchronises with the host (KB_HOST_SYNC) cannot be captured. */
#include "measure.h"

static int capture(kb_launch_fn fn, void *ctx, cudaStream_t s, int batch, cudaGraphExec_t *exec,
                   kb_error *e) {
    cudaGraph_t graph = NULL;
    KB_CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), e);
    int rc = KB_OK;
    for (int i = 0; i < batch && rc == KB_OK; i++) rc = fn(ctx, s, e);
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (rc != KB_OK) {
        if (graph) cudaGraphDestroy(graph);
        return KB_ERR;
    }
    if (kb_cuda_check(end, "graph capture of the variant", e) != KB_OK) return KB_ERR;
    rc = kb_cuda_check(cudaGraphInstantiate(exec, graph, 0), "cudaGraphInstantiate", e);
    cudaGraphDestroy(graph);
    return rc;
}

static int replay(void *p, cudaStream_t s, kb_error *e) {
    return kb_cuda_check(cudaGraphLaunch(((kb_timer *)p)->exec, s), "cudaGraphLaunch", e);
}

int kb_timer_graph(kb_timer *t, kb_error *e) {
    double one;
    if (kb_warmup(t->m, t->fn, t->ctx, t->s, &one, e) != KB_OK) return KB_ERR;
    t->batch = kb_batch_size(one);
    if (capture(t->fn, t->ctx, t->s, t->batch, &t->exec, e) != KB_OK) return KB_ERR;
    t->have_exec = 1;
    t->body = replay;
    /* one replay first: it uploads the graph */
    if (replay(t, t->s, e) != KB_OK) return KB_ERR;
    return kb_cuda_check(cudaStreamSynchronize(t->s), "graph replay", e);
}

void kb_timer_graph_release(kb_timer *t) {
    if (t->have_exec) cudaGraphExecDestroy(t->exec);
    t->have_exec = 0;
}
