/* test_topk_check.h — run one variant on one case the way `kbench check`
 * does (inputs from the seed, CPU reference, poisoned outputs, setup / run /
 * teardown, the op's compare), for the GPU suites of topk and rpn_proposals
 * that must not wait for the harness. Returns the variant's status (KB_OK,
 * KB_UNSUPPORTED, ...) and fills acc; a harness-side failure is KB_ERR with
 * the message printed.
 */
#ifndef TEST_TOPK_CHECK_H
#define TEST_TOPK_CHECK_H

#include "kbench.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

static int kbt_device_tensors(const kb_tensors *host, kb_tensors *dev, int copy) {
    *dev = *host;
    for (int i = 0; i < dev->count; i++) {
        size_t n = kb_nbytes(&host->t[i]);
        if (cudaMalloc(&dev->t[i].data, n ? n : 1) != cudaSuccess) return KB_ERR;
        if (copy && n &&
            cudaMemcpy(dev->t[i].data, host->t[i].data, n, cudaMemcpyHostToDevice) != cudaSuccess)
            return KB_ERR;
        if (!copy && cudaMemset(dev->t[i].data, 0xFF, n ? n : 1) != cudaSuccess) return KB_ERR;
    }
    return KB_OK;
}

static void kbt_free_device(kb_tensors *dev) {
    for (int i = 0; i < dev->count; i++) cudaFree(dev->t[i].data);
}

static int kbt_check_variant(const kb_variant_impl *impl, const kb_case *c, uint64_t seed,
                             kb_accuracy *acc) {
    const kb_op *op = c->op;
    kb_tensors in = {0}, ref = {0}, got = {0}, din = {0}, dout = {0};
    kb_error e = {{0}};
    void *state = NULL;
    int rc = KB_ERR, status = KB_ERR;
    memset(acc, 0, sizeof *acc);
    if (op->validate(c, &e) || op->describe(c, &in, &ref, &e) || kb_tensors_alloc_host(&in, &e))
        goto done;
    got = ref;
    if (kb_tensors_alloc_host(&ref, &e) || kb_tensors_alloc_host(&got, &e) ||
        op->make_inputs(c, seed, &in, &e) || op->reference(c, &in, &ref, &e))
        goto done;
    status = impl->supports(c, &e);
    if (status != KB_OK) {
        rc = status;
        goto done;
    }
    if (kbt_device_tensors(&in, &din, 1) || kbt_device_tensors(&ref, &dout, 0)) {
        snprintf(e.msg, sizeof e.msg, "device allocation failed");
        goto done;
    }
    status = impl->setup(c, &din, &state, &e);
    if (status != KB_OK) {
        rc = status;
        goto done;
    }
    if (impl->run(state, &din, &dout, 0, &e) != KB_OK ||
        kb_cuda_check(cudaDeviceSynchronize(), "run", &e) != KB_OK)
        goto done;
    for (int i = 0; i < got.count; i++)
        cudaMemcpy(got.t[i].data, dout.t[i].data, kb_nbytes(&got.t[i]), cudaMemcpyDeviceToHost);
    acc->pass = 1;
    op->compare(c, KB_PREC_F32, &in, &ref, &got, acc);
    rc = KB_OK;
done:
    if (rc == KB_ERR) fprintf(stderr, "  check failed: %s\n", e.msg);
    if (state) impl->teardown(state);
    kbt_free_device(&din);
    kbt_free_device(&dout);
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&ref);
    kb_tensors_free_host(&got);
    return rc;
}

/* Set axes from "name=value name=value ..." on the op's defaults. */
static void kbt_case(kb_case *c, const kb_op *op, const char *axes) {
    kb_case_defaults(c, op);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", axes);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        kb_error e;
        if (!eq) continue;
        *eq = '\0';
        if (kb_case_set(c, tok, eq + 1, &e) != KB_OK) fprintf(stderr, "  %s\n", e.msg);
    }
}

typedef struct {
    const char *name;
    const kb_variant_impl *impl;
} kbt_variant;

/* Every variant of the table passes the case (or declares it unsupported). */
static void kbt_expect_all_pass(const kb_op *op, const kbt_variant *v, size_t count,
                                const char *axes, uint64_t seed) {
    kb_case c;
    kbt_case(&c, op, axes);
    for (size_t i = 0; i < count; i++) {
        kb_accuracy acc;
        int rc = kbt_check_variant(v[i].impl, &c, seed, &acc);
        if (rc == KB_UNSUPPORTED) continue;
        if (rc != KB_OK || !acc.pass || acc.unwritten)
            fprintf(stderr, "  %s on %s: rc %d, %lld mismatches: %s\n", v[i].name, axes, rc,
                    (long long)acc.mismatches, acc.note);
        KB_EXPECT(rc == KB_OK && acc.pass && acc.unwritten == 0);
    }
}

#endif
