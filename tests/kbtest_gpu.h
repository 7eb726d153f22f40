/* kbtest_gpu.h — what the GPU suites share: build a case from "axis=value"
 * settings with its inputs and reference, and run one variant through
 * supports/setup/run/teardown the way the harness does (inputs copied in,
 * outputs poisoned with 0xFF first), copying its outputs back.
 */
#ifndef KBTEST_GPU_H
#define KBTEST_GPU_H

#include "kbench.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    kb_case c;
    kb_tensors in, out; /* host inputs; host reference outputs */
} kbt_case;

/* settings: "axis=value" tokens separated by spaces, applied over the op's
 * defaults. With `reference` 0 the reference is left to the caller (who may
 * edit the inputs first). */
static void kbt_make_case(kbt_case *t, const kb_op *op, const char *settings, uint64_t seed,
                          int reference) {
    memset(t, 0, sizeof *t);
    kb_case_defaults(&t->c, op);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", settings);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        kb_case_set(&t->c, tok, eq + 1, NULL);
    }
    op->describe(&t->c, &t->in, &t->out, NULL);
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->out, NULL);
    op->make_inputs(&t->c, seed, &t->in, NULL);
    if (reference) op->reference(&t->c, &t->in, &t->out, NULL);
}

static void kbt_free_case(kbt_case *t) {
    kb_tensors_free_host(&t->in);
    kb_tensors_free_host(&t->out);
}

/* Runs impl on t; *got receives host copies of its outputs (free with
 * kb_tensors_free_host). 0 when it failed to run (the message printed). */
static int kbt_run_variant(const kb_variant_impl *impl, const kbt_case *t, kb_tensors *got) {
    kb_error e = {{0}};
    kb_tensors dev_in = t->in, dev_out = t->out;
    *got = t->out;
    kb_tensors_alloc_host(got, NULL);
    int ok = impl->supports(&t->c, &e) == KB_OK;
    for (int i = 0; ok && i < dev_in.count; i++) {
        size_t b = kb_nbytes(&dev_in.t[i]);
        ok =
            cudaMalloc(&dev_in.t[i].data, b ? b : 4) == cudaSuccess &&
            cudaMemcpy(dev_in.t[i].data, t->in.t[i].data, b, cudaMemcpyHostToDevice) == cudaSuccess;
    }
    for (int i = 0; ok && i < dev_out.count; i++) {
        size_t b = kb_nbytes(&dev_out.t[i]);
        ok = cudaMalloc(&dev_out.t[i].data, b ? b : 4) == cudaSuccess &&
             cudaMemset(dev_out.t[i].data, 0xFF, b ? b : 4) == cudaSuccess;
    }
    void *state = NULL;
    ok = ok && impl->setup(&t->c, &dev_in, &state, &e) == KB_OK;
    ok = ok && impl->run(state, &dev_in, &dev_out, 0, &e) == KB_OK;
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    for (int i = 0; ok && i < dev_out.count; i++)
        ok = cudaMemcpy(got->t[i].data, dev_out.t[i].data, kb_nbytes(&got->t[i]),
                        cudaMemcpyDeviceToHost) == cudaSuccess;
    if (state) impl->teardown(state);
    for (int i = 0; i < dev_in.count; i++) cudaFree(dev_in.t[i].data);
    for (int i = 0; i < dev_out.count; i++) cudaFree(dev_out.t[i].data);
    if (!ok) printf("  run failed: %s %s\n", e.msg, cudaGetErrorString(cudaGetLastError()));
    return ok;
}

#endif
