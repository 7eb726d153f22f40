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
    return kb_cuda_check(cudaGraphLaunch(*(cudaGraphExec_t *)p, s), "cudaGraphLaunch", e);
}

int kb_measure_graph(kb_measure *m, kb_launch_fn fn, void *ctx, cudaStream_t s, kb_error *e) {
    double one;
    if (kb_warmup(m, fn, ctx, s, &one, e) != KB_OK) return KB_ERR;
    int batch = kb_batch_size(one);
    cudaGraphExec_t exec;
    if (capture(fn, ctx, s, batch, &exec, e) != KB_OK) return KB_ERR;
    /* one replay first: it uploads the graph */
    int rc = replay(&exec, s, e);
    if (rc == KB_OK) rc = kb_cuda_check(cudaStreamSynchronize(s), "graph replay", e);
    kb_sampler sp = {NULL, replay, &exec, batch};
    if (rc == KB_OK) rc = kb_sample_loop(m, &sp, s, e);
    cudaGraphExecDestroy(exec);
    return rc;
}
