/* kbtest_gpu.h — what the GPU suites share: one variant run the way `kbench check` runs it (inputs
 * copied in, outputs poisoned with 0xFF first, supports / setup / run /
 * teardown), its outputs copied back.
 *
 *   kbt_fixture + kbt_run_variant    the suite compares the outputs itself
 *   kbt_check_variant                inputs from the seed, the op's compare
 *   kbt_next_device_variant          the op's device variants, from the registry
 *   kbt_expect_all_pass              each of them passes a case, as kbench check judges
 */
#ifndef KBTEST_GPU_H
#define KBTEST_GPU_H

#include "kbench.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Device copies of host tensors: their data (copy) or the 0xFF poison. */
static inline int kbt_device_tensors(const kb_tensors *host, kb_tensors *dev, int copy) {
    *dev = *host;
    for (int i = 0; i < dev->count; i++) dev->t[i].data = NULL;
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

static inline void kbt_free_device(kb_tensors *dev) {
    for (int i = 0; i < dev->count; i++) cudaFree(dev->t[i].data);
}

/* The registry's implementation of op/name, as kbench reaches it; NULL (and
 * the test failed) when the registry has no such variant. */
static inline const kb_variant_impl *kbt_impl(const char *op, const char *name) {
    const kb_variant *v = kb_find_variant(op, name);
    if (!v) {
        fprintf(stderr, "  the registry has no variant %s/%s\n", op, name);
        kbt_current_failed = 1;
    }
    return v ? v->impl : NULL;
}

/* The outputs poisoned (0xFF bytes), then one run, waited for. */
static inline int kbt_run_once(const kb_variant_impl *impl, void *state, const kb_tensors *din,
                               kb_tensors *dout, kb_error *e) {
    for (int i = 0; i < dout->count; i++) {
        size_t n = kb_nbytes(&dout->t[i]);
        if (n && cudaMemset(dout->t[i].data, 0xFF, n) != cudaSuccess)
            return kb_fail(e, "poisoning %s failed", dout->t[i].name);
    }
    if (impl->run(state, din, dout, 0, e) != KB_OK) return KB_ERR;
    return kb_cuda_check(cudaDeviceSynchronize(), "run", e);
}

/* impl on case c: host inputs in, outputs into got (allocated like out).
 * The variant runs twice on one setup, as kbench runs it many times, and got
 * holds the second run's outputs: a run must leave its state fit for the
 * next (the first run's outputs are what `kbench check` judges).
 * Returns supports' or setup's status when not KB_OK, KB_ERR when a run or
 * a copy failed (e says why), else KB_OK. */
static inline int kbt_run(const kb_variant_impl *impl, const kb_case *c, const kb_tensors *in,
                          const kb_tensors *out, kb_tensors *got, kb_error *e) {
    kb_tensors din = {0}, dout = {0};
    void *state = NULL;
    if (!impl) return kb_fail(e, "no implementation");
    int status = impl->supports(c, e);
    if (status == KB_OK && (kbt_device_tensors(in, &din, 1) || kbt_device_tensors(out, &dout, 0)))
        status = kb_fail(e, "device allocation failed");
    if (status == KB_OK) status = impl->setup(c, &din, &state, e);
    for (int r = 0; r < 2 && status == KB_OK; r++)
        if (kbt_run_once(impl, state, &din, &dout, e) != KB_OK) status = KB_ERR;
    for (int i = 0; status == KB_OK && i < got->count; i++)
        if (cudaMemcpy(got->t[i].data, dout.t[i].data, kb_nbytes(&got->t[i]),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            status = kb_fail(e, "copying %s back failed", got->t[i].name);
    if (state) impl->teardown(state);
    kbt_free_device(&din);
    kbt_free_device(&dout);
    return status;
}

typedef struct {
    kb_case c;
    kb_tensors in, out; /* host inputs; host reference outputs */
} kbt_fixture;

/* settings over the op's defaults (a bad one fails the test), inputs from
 * seed. With `reference` 0 the reference is left to the caller (who may edit
 * the inputs first). */
static inline void kbt_make_case(kbt_fixture *t, const kb_op *op, const char *settings,
                                 uint64_t seed, int reference) {
    memset(t, 0, sizeof *t);
    kbt_case_from(&t->c, op, settings);
    op->describe(&t->c, &t->in, &t->out, NULL);
    kb_tensors_alloc_host(&t->in, NULL);
    kb_tensors_alloc_host(&t->out, NULL);
    op->make_inputs(&t->c, seed, &t->in, NULL);
    if (reference) op->reference(&t->c, &t->in, &t->out, NULL);
}

static inline void kbt_free_case(kbt_fixture *t) {
    kb_tensors_free_host(&t->in);
    kb_tensors_free_host(&t->out);
}

/* Runs impl on t; *got receives host copies of its outputs (free with
 * kb_tensors_free_host). 0 when it did not run (the message printed). */
static inline int kbt_run_variant(const kb_variant_impl *impl, const kbt_fixture *t,
                                  kb_tensors *got) {
    kb_error e = {{0}};
    *got = t->out;
    kb_tensors_alloc_host(got, NULL);
    int ok = kbt_run(impl, &t->c, &t->in, &t->out, got, &e) == KB_OK;
    if (!ok) printf("  run failed: %s %s\n", e.msg, cudaGetErrorString(cudaGetLastError()));
    return ok;
}

/* One case the way `kbench check` runs it: inputs from the seed, the CPU
 * reference, the op's compare into acc, judged as the runner judges a
 * variant of these flags (a KB_INEXACT one against its own rule). Returns
 * the variant's status (KB_OK, KB_UNSUPPORTED, ...); a failure to run is
 * KB_ERR with the message printed. */
static inline int kbt_check_variant(const kb_variant_impl *impl, unsigned flags, const kb_case *c,
                                    uint64_t seed, kb_accuracy *acc) {
    const kb_op *op = c->op;
    kb_tensors in = {0}, ref = {0}, got = {0};
    kb_error e = {{0}};
    int rc = KB_ERR;
    kb_accuracy_init(acc);
    acc->pass = 0;
    if (op->validate(c, &e) || op->describe(c, &in, &ref, &e) || kb_tensors_alloc_host(&in, &e))
        goto done;
    got = ref;
    if (kb_tensors_alloc_host(&ref, &e) || kb_tensors_alloc_host(&got, &e) ||
        op->make_inputs(c, seed, &in, &e) || op->reference(c, &in, &ref, &e))
        goto done;
    rc = kbt_run(impl, c, &in, &ref, &got, &e);
    if (rc == KB_OK) {
        const kb_check_ctx chk = {kb_case_precision(c, flags), flags};
        acc->pass = 1;
        op->compare(c, &chk, &in, &ref, &got, acc);
    }
done:
    if (rc == KB_ERR) fprintf(stderr, "  check failed: %s\n", e.msg);
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&ref);
    kb_tensors_free_host(&got);
    return rc;
}

/* The next device variant of op in the registry's table after row *i (start
 * at 0): neither KB_HOST (host tensors; kbt_run is the device path) nor
 * KB_TEST_ONLY. NULL past the end. The suites walk the table, never a list
 * of their own, so that a variant added to its op's list is tested. */
static inline const kb_variant *kbt_next_device_variant(const char *op, int *i) {
    for (; kb_variants[*i].op; ++*i) {
        const kb_variant *v = &kb_variants[*i];
        if (strcmp(v->op, op) == 0 && !(v->flags & (KB_HOST | KB_TEST_ONLY))) {
            ++*i;
            return v;
        }
    }
    return NULL;
}

/* Whether name is one of the NULL-terminated names (NULL: none). */
static inline int kbt_named(const char *const *names, const char *name) {
    for (int i = 0; names && names[i]; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* Every device variant of the op runs the case and passes it, judged by its
 * registry flags as `kbench check` judges it. A refusal fails the test,
 * except by a variant of may_refuse (NULL-terminated, or NULL: one that
 * declines such cases by design), which runs where it accepts: a suite cannot
 * pass with nothing run. */
static inline void kbt_expect_all_pass(const kb_op *op, const char *const *may_refuse,
                                       const char *axes, uint64_t seed) {
    kb_case c;
    if (kbt_case_from(&c, op, axes) != KB_OK) return;
    int ran = 0;
    const kb_variant *v;
    for (int i = 0; (v = kbt_next_device_variant(op->name, &i));) {
        kb_accuracy acc;
        int rc = kbt_check_variant(v->impl, v->flags, &c, seed, &acc);
        int refused = rc == KB_UNSUPPORTED || rc == KB_NOT_APPLICABLE;
        if (refused && kbt_named(may_refuse, v->name)) continue;
        if (rc != KB_OK || !acc.pass || acc.unwritten)
            fprintf(stderr, "  %s on %s: rc %d (%s), %lld mismatches: %s\n", v->name, axes, rc,
                    refused ? "refused" : "ran", (long long)acc.mismatches, acc.note);
        KB_EXPECT(rc == KB_OK && acc.pass && acc.unwritten == 0);
        ran++;
    }
    KB_EXPECT(ran > 0);
}

#endif
