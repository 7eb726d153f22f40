/* runner.c — one row per (case, variant): inputs, reference, check, timing.
 *
 * The plan is every (case, variant) pair, case by case. Per case: describe ->
 * device-memory check -> host inputs (made from the seed, or read from
 * --inputs) -> CPU reference -> device inputs. Per variant: supports ->
 * device-memory check -> persisting L2 lines reset -> setup -> [check:
 * poison, run, compare; poison, run, compare bitwise] -> [timing, the outputs
 * poisoned before every sample] -> [the last timed launch's outputs against
 * the checked ones] -> teardown -> row, flushed to every printer.
 * A failure in one variant becomes that row's status; the sweep goes on. A
 * sticky CUDA error makes a CRASH row; in a worker process (isolate.c) the
 * worker then stops, and the next one continues with the next pair.
 * A KB_HOST variant takes the same steps on host memory (run_host_variant):
 * no device memory, the check on host buffers, wall-clock timing.
 */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include "dump.h"
#include "guard.h"
#include "loaded.h"
#include "py_bridge.h"
#include "out_file.h" /* kb_make_dirs */
#include "shard.h"
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A measure's sample buffers for ns samples, with the kernel-time ones
 * where ktime: 0, or 1 when the samples' failed, 2 when the kernel times'.
 * Every pointer is set (NULL where not allocated): measure_free frees them. */
static int measure_alloc(kb_measure *m, size_t ns, int ktime) {
    m->kwin = NULL, m->ksum = m->kspan = NULL, m->kcount = NULL;
    m->samples = malloc(ns * sizeof *m->samples);
    if (!m->samples) return 1;
    if (!ktime) return 0;
    m->kwin = malloc(ns * sizeof *m->kwin);
    m->ksum = malloc(ns * sizeof *m->ksum);
    m->kspan = malloc(ns * sizeof *m->kspan);
    m->kcount = malloc(ns * sizeof *m->kcount);
    return m->kwin && m->ksum && m->kspan && m->kcount ? 0 : 2;
}

static void measure_free(kb_measure *m) {
    free(m->samples), free(m->kwin), free(m->ksum), free(m->kspan), free(m->kcount);
    m->samples = NULL, m->kwin = NULL, m->ksum = m->kspan = NULL, m->kcount = NULL;
}

int kb_runner_init(kb_runner *r, const kb_run_opts *opts, kb_error *e) {
    memset(r, 0, sizeof *r);
    r->opts = *opts;
    kb_measure *m = &r->measure;
    m->mode = opts->mode;
    m->rule = opts->rule;
    m->flush = opts->flush;
    m->warmup_s = 0.02;
    m->throttle_frac = 0.75;
    switch (measure_alloc(m, (size_t)opts->rule.max_samples, opts->ktime && opts->timing)) {
    case 1:
        return kb_fail(e, "out of host memory for %d samples", opts->rule.max_samples);
    case 2:
        return kb_fail(e, "out of host memory for %d samples' kernel times",
                       opts->rule.max_samples);
    }
    return KB_OK;
}

int kb_runner_plan(kb_runner *r, const kb_case_list *cases, const kb_variant *const *variants,
                   kb_error *e) {
    int nvar = 0;
    while (variants[nvar]) nvar++;
    r->cases = cases;
    r->variants = variants;
    r->nvariants = nvar;
    r->mem = calloc((size_t)nvar + 1, sizeof *r->mem);
    r->pairs = malloc(((size_t)cases->count * (size_t)nvar + 1) * sizeof *r->pairs);
    if (!r->mem || !r->pairs)
        return kb_fail(e, "out of host memory for %d x %d pairs", cases->count, nvar);
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < cases->count; i++) {
        char params[1024], line[1200];
        kb_case_format(&cases->cases[i], params, sizeof params);
        for (int k = 0; k < nvar; k++) {
            if (strcmp(variants[k]->op, cases->cases[i].op->name) != 0) continue;
            r->pairs[r->npairs] = (kb_pair){i, k, r->npairs};
            r->npairs++;
            int n = snprintf(line, sizeof line, "%s\t%s\t%s\n", variants[k]->op, variants[k]->name,
                             params);
            for (int b = 0; b < n && b < (int)sizeof line; b++)
                h = (h ^ (unsigned char)line[b]) * 0x100000001b3ull;
        }
    }
    r->sweep_pairs = r->npairs;
    r->sweep_hash = h;
    int *shard_of = NULL;
    if (r->opts.shard_count > 1) {
        double *est = malloc((size_t)r->npairs * sizeof *est + 1);
        shard_of = malloc((size_t)r->npairs * sizeof *shard_of + 1);
        if (!est || !shard_of) {
            free(est);
            free(shard_of);
            return kb_fail(e, "out of host memory for the shards of %d pairs", r->npairs);
        }
        for (int p = 0; p < r->npairs; p++)
            est[p] = kb_shard_estimate(&cases->cases[r->pairs[p].c], variants[r->pairs[p].v]);
        kb_shard_assign(est, r->npairs, r->opts.shard_count, shard_of);
        free(est);
    }
    int kept = 0;
    for (int p = 0; p < r->npairs; p++) {
        const kb_pair pr = r->pairs[p];
        if (shard_of && shard_of[p] != r->opts.shard_index) continue;
        char params[1024];
        kb_case_format(&cases->cases[pr.c], params, sizeof params);
        if (r->already_done && r->already_done(r->done_ctx, variants[pr.v], params, r->opts.mode))
            r->resumed++;
        else
            r->pairs[kept++] = pr;
    }
    r->npairs = kept;
    free(shard_of);
    for (int p = 0; p < r->npairs; p++)
        if (!(variants[r->pairs[p].v]->flags & KB_HOST)) r->needs_device = 1;
    return KB_OK;
}

int kb_runner_attach(kb_runner *r, kb_device *dev, kb_error *e) {
    kb_measure *m = &r->measure;
    r->dev = dev;
    m->dev = dev;
    /* Twice L2 so that nothing of the inputs survives the flush; whole lines. */
    size_t bytes = 2 * (dev->l2_bytes ? dev->l2_bytes : ((size_t)64 << 20));
    m->l2_flush_bytes = (bytes + KB_FLUSH_ALIGN - 1) / KB_FLUSH_ALIGN * KB_FLUSH_ALIGN;
    kb_error why;
    if (r->opts.timing && m->mode == KB_MODE_COLD && kb_flush_supported(m->flush, &why) != KB_OK)
        return kb_fail(e, "--flush %s: %s", kb_flush_name(m->flush), why.msg);
    /* --timer kernels: CUPTI, or empty kernel columns and why, once */
    if (r->opts.ktime && r->opts.timing) {
        kb_error ke;
        m->ktime = kb_ktime_open(&ke) == KB_OK;
        if (!m->ktime)
            fprintf(stderr,
                    "kbench: --timer kernels: no kernel time in this run (%s); the kernel "
                    "columns stay empty (kbench info says the same)\n",
                    ke.msg);
    }
    KB_CUDA_TRY(cudaMalloc(&m->l2_flush, m->l2_flush_bytes), e);
    KB_CUDA_TRY(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking), e);
    /* Persisting L2 lines are reset before each pair (run_variant) where the
     * device has them and lets this context reset them (a virtualised or
     * partitioned GPU may not): else said once, and the rows run without. */
    r->reset_persisting = 0;
    if (dev->l2_persist_max) {
        cudaError_t err = cudaCtxResetPersistingL2Cache();
        if (err == cudaSuccess) {
            r->reset_persisting = 1;
        } else {
            (void)cudaGetLastError();
            fprintf(stderr,
                    "kbench: cannot reset persisting L2 lines (%s): a row may run with lines an "
                    "earlier row left persisting\n",
                    cudaGetErrorString(err));
        }
    }
    return KB_OK;
}

void kb_runner_free(kb_runner *r) {
    kb_runner_finish(r);
    if (r->dev) { /* only a process that attached touches CUDA here */
        if (r->stream) cudaStreamDestroy(r->stream);
        cudaFree(r->measure.l2_flush);
    }
    measure_free(&r->measure);
    free(r->mem);
    free(r->pairs);
    memset(r, 0, sizeof *r);
}

/* ---- small pieces ---- */

static void free_device(kb_tensors *ts) {
    for (int i = 0; i < ts->count; i++) {
        cudaFree(ts->t[i].data);
        ts->t[i].data = NULL;
    }
}

/* KB_OUT_OF_MEMORY when the device has no room: that is a row, not an error.
 * Each tensor gets KB_GUARD_BYTES after its end (guard.c). */
static int alloc_device(kb_tensors *ts, kb_error *e) {
    for (int i = 0; i < ts->count; i++) {
        size_t n = kb_nbytes(&ts->t[i]);
        cudaError_t rc = cudaMalloc(&ts->t[i].data, n + KB_GUARD_BYTES);
        if (rc != cudaSuccess) {
            cudaGetLastError();
            free_device(ts);
            kb_fail(e, "cudaMalloc(%zu) for %s: %s", n, ts->t[i].name, cudaGetErrorString(rc));
            return rc == cudaErrorMemoryAllocation ? KB_OUT_OF_MEMORY : KB_ERR;
        }
    }
    return KB_OK;
}

static int copy_tensors(kb_tensors *dst, const kb_tensors *src, enum cudaMemcpyKind kind,
                        cudaStream_t s, kb_error *e) {
    for (int i = 0; i < src->count; i++)
        KB_CUDA_TRY(cudaMemcpyAsync(dst->t[i].data, src->t[i].data, kb_nbytes(&src->t[i]), kind, s),
                    e);
    KB_CUDA_TRY(cudaStreamSynchronize(s), e);
    return KB_OK;
}

/* Every byte 0xFF: NaN in every float type, -1 in every signed integer. */
static int poison(kb_tensors *ts, cudaStream_t s, kb_error *e) {
    for (int i = 0; i < ts->count; i++)
        KB_CUDA_TRY(cudaMemsetAsync(ts->t[i].data, 0xFF, kb_nbytes(&ts->t[i]), s), e);
    return KB_OK;
}

/* The guard pattern into the KB_GUARD_BYTES after each tensor. */
static int guard_set(kb_tensors *ts, cudaStream_t s, kb_error *e) {
    static unsigned char pattern[KB_GUARD_BYTES]; /* static: the async copy may read it late */
    kb_guard_fill(pattern, sizeof pattern);
    for (int i = 0; i < ts->count; i++)
        KB_CUDA_TRY(cudaMemcpyAsync((char *)ts->t[i].data + kb_nbytes(&ts->t[i]), pattern,
                                    sizeof pattern, cudaMemcpyHostToDevice, s),
                    e);
    return KB_OK;
}

/* The first tensor whose guard changed (*which, with *changed bytes), or
 * *which left alone when every guard is intact. */
static int guard_check(const kb_tensors *ts, cudaStream_t s, int *which, size_t *changed,
                       kb_error *e) {
    for (int i = 0; i < ts->count; i++) {
        unsigned char g[KB_GUARD_BYTES];
        KB_CUDA_TRY(cudaMemcpyAsync(g, (const char *)ts->t[i].data + kb_nbytes(&ts->t[i]), sizeof g,
                                    cudaMemcpyDeviceToHost, s),
                    e);
        KB_CUDA_TRY(cudaStreamSynchronize(s), e);
        size_t n = kb_guard_changed(g, sizeof g);
        if (n && *which < 0) {
            *which = i;
            *changed = n;
        }
    }
    return KB_OK;
}

static int tensors_equal(const kb_tensors *a, const kb_tensors *b) {
    for (int i = 0; i < a->count; i++)
        if (memcmp(a->t[i].data, b->t[i].data, kb_nbytes(&a->t[i])) != 0) return 0;
    return 1;
}

static int load_inputs(const char *dir, kb_tensors *in, kb_error *e) {
    for (int i = 0; i < in->count; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s.npy", dir, in->t[i].name);
        if (kb_npy_read_into(path, &in->t[i], e) != KB_OK) return KB_ERR;
    }
    return KB_OK;
}

/* Index values read from a file (offsets, class ids: the reference and the
 * variants index with them) against case c, by the op's own rule. */
static int check_indices(const kb_case *c, const kb_tensors *in, kb_error *e) {
    return c->op->check_indices ? c->op->check_indices(c, in, NULL, e) : KB_OK;
}

int kb_runner_check_dirs(const kb_run_opts *o, const kb_case_list *cases, kb_error *e) {
    struct stat st;
    const char *in = o->inputs_dir;
    if (in && stat(in, &st) != 0) return kb_fail(e, "--inputs %s: %s", in, strerror(errno));
    if (in && !S_ISDIR(st.st_mode))
        return kb_fail(e, "--inputs %s: not a directory (expected a case<k> folder of --dump)", in);
    for (int i = 0; in && i < cases->count; i++) {
        const kb_case *c = &cases->cases[i];
        kb_tensors want = {0}, out = {0};
        if (c->op->describe(c, &want, &out, e) != KB_OK) return KB_ERR;
        for (int k = 0; k < want.count; k++) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s.npy", in, want.t[k].name);
            kb_tensor file;
            memset(&file, 0, sizeof file);
            kb_error why;
            if (kb_npy_read_header(path, &file, &why) != KB_OK ||
                kb_npy_fits(path, &file, &want.t[k], &why) != KB_OK) {
                char params[1024];
                kb_case_format(c, params, sizeof params);
                return kb_fail(e, "--inputs: case {%s}: %s", params, why.msg);
            }
        }
        /* Index values too, for ops that have them: a usage error now rather
         * than a row that reads out of bounds (the case checks them again as
         * it reads its inputs: the files may have changed since). */
        if (!c->op->check_indices) continue;
        if (kb_tensors_alloc_host(&want, e) != KB_OK) return KB_ERR;
        kb_error why;
        int read = load_inputs(in, &want, &why), rc = read;
        if (rc == KB_OK) rc = check_indices(c, &want, &why);
        kb_tensors_free_host(&want);
        if (rc == KB_OK) continue;
        char params[1024];
        kb_case_format(c, params, sizeof params);
        if (read != KB_OK) return kb_fail(e, "--inputs: case {%s}: %s", params, why.msg);
        return kb_fail(e, "--inputs %s: case {%s}: %s", in, params, why.msg);
    }
    const char *dump = o->dump_dir;
    if (!dump) return KB_OK;
    /* Made now, so that a path that cannot be a folder fails before the device. */
    kb_error why;
    if (stat(dump, &st) == 0 && !S_ISDIR(st.st_mode))
        return kb_fail(e, "--dump %s: exists and is not a directory", dump);
    if (kb_make_dirs(dump, &why) != KB_OK) return kb_fail(e, "--dump %s: %s", dump, why.msg);
    if (access(dump, W_OK | X_OK) != 0)
        return kb_fail(e, "--dump %s: cannot write in it: %s", dump, strerror(errno));
    return KB_OK;
}

/* A dump that fails is said on stderr; the row keeps the status its check
 * earned (a full disk is not the variant's fault). */
static void dump_failed(const char *what, const kb_error *e) {
    fprintf(stderr, "kbench: --dump: %s not written: %s\n", what, e->msg);
}

/* ---- one variant on one case ---- */

typedef struct launch_ctx {
    const kb_variant *v;
    void *state;
    const kb_tensors *dev_in;
    kb_tensors *dev_out;
} launch_ctx;

static int launch(void *p, cudaStream_t s, kb_error *e) {
    launch_ctx *c = p;
    return c->v->impl->run(c->state, c->dev_in, c->dev_out, s, e);
}

static int run_once(launch_ctx *lc, cudaStream_t s, kb_error *e) {
    if (launch(lc, s, e) != KB_OK) return KB_ERR;
    KB_CUDA_TRY(cudaStreamSynchronize(s), e);
    KB_CUDA_TRY(cudaGetLastError(), e);
    return KB_OK;
}

/* The outputs poisoned (poison() on host memory for a KB_HOST variant). */
static int poison_outputs(launch_ctx *lc, cudaStream_t s, kb_error *e) {
    if (!(lc->v->flags & KB_HOST)) return poison(lc->dev_out, s, e);
    for (int i = 0; i < lc->dev_out->count; i++)
        memset(lc->dev_out->t[i].data, 0xFF, kb_nbytes(&lc->dev_out->t[i]));
    return KB_OK;
}

/* kb_measure.before_sample: every sample starts from poisoned outputs. */
static int poison_before_sample(void *p, cudaStream_t s, kb_error *e) {
    return poison_outputs(p, s, e);
}

/* A KB_HOST variant's run into host outputs: poisoned, guarded, run, copied
 * into dst, guards checked (the device path's steps, on host memory). */
static int host_checked_run(launch_ctx *lc, kb_tensors *dst, int *which, size_t *changed,
                            kb_error *e) {
    kb_tensors *out = lc->dev_out;
    unsigned char pattern[KB_GUARD_BYTES];
    kb_guard_fill(pattern, sizeof pattern);
    poison_outputs(lc, NULL, e);
    for (int i = 0; i < out->count; i++)
        memcpy((char *)out->t[i].data + kb_nbytes(&out->t[i]), pattern, sizeof pattern);
    if (launch(lc, NULL, e) != KB_OK) return KB_ERR;
    for (int i = 0; i < out->count; i++) {
        size_t n = kb_nbytes(&out->t[i]);
        memcpy(dst->t[i].data, out->t[i].data, n);
        size_t c = kb_guard_changed((const unsigned char *)out->t[i].data + n, KB_GUARD_BYTES);
        if (c && *which < 0) {
            *which = i;
            *changed = c;
        }
    }
    return KB_OK;
}

/* Host outputs with KB_GUARD_BYTES after each, as alloc_device makes them. */
static int alloc_host_guarded(kb_tensors *ts, kb_error *e) {
    for (int i = 0; i < ts->count; i++) {
        size_t n = kb_nbytes(&ts->t[i]);
        ts->t[i].data = n + KB_GUARD_BYTES > n ? malloc(n + KB_GUARD_BYTES) : NULL;
        if (!ts->t[i].data) {
            kb_tensors_free_host(ts);
            kb_fail(e, "malloc(%zu) for %s", n, ts->t[i].name);
            return KB_OUT_OF_MEMORY;
        }
    }
    return KB_OK;
}

typedef struct case_data {
    int index;
    const kb_case *c;
    kb_tensors in, out_desc, ref, dev_in;
    int have_ref;
    char params[1024];
} case_data;

/* A row held back (r->holding) keeps a copy of its samples. */
static int hold_row(kb_runner *r, const kb_row *row) {
    size_t ns = row->samples ? (size_t)row->stats.n : 0;
    kb_row *rows = realloc(r->held_rows, (size_t)(r->nheld + 1) * sizeof *rows);
    if (!rows) return KB_ERR;
    r->held_rows = rows;
    double *copy = ns ? malloc(ns * sizeof *copy) : NULL;
    if (ns && !copy) return KB_ERR;
    if (ns) memcpy(copy, row->samples, ns * sizeof *copy);
    rows[r->nheld] = *row;
    rows[r->nheld++].samples = copy;
    return KB_OK;
}

void kb_runner_emit(kb_runner *r, const kb_row *row) {
    kb_row noted;
    if (r->row_note && r->row_note[0] && row->stats.n > 0) { /* a note on how it was timed */
        noted = *row;
        size_t used = strlen(noted.acc.note);
        snprintf(noted.acc.note + used, sizeof noted.acc.note - used, "%s%s", used ? "; " : "",
                 r->row_note);
        row = &noted;
    }
    if (r->holding && hold_row(r, row) == KB_OK) return; /* no memory to wait: written now */
    r->counts[row->status]++;
    for (int i = 0; i < r->nprinters; i++) r->printers[i]->row(r->printers[i], row);
}

static int by_pair(const void *a, const void *b) {
    const kb_row *x = a, *y = b;
    return (x->pair > y->pair) - (x->pair < y->pair);
}

/* The rows held back, in plan order. */
static void release_rows(kb_runner *r) {
    r->holding = 0;
    qsort(r->held_rows, (size_t)r->nheld, sizeof *r->held_rows, by_pair);
    for (int i = 0; i < r->nheld; i++) {
        kb_runner_emit(r, &r->held_rows[i]);
        free((void *)r->held_rows[i].samples);
    }
    free(r->held_rows);
    r->held_rows = NULL;
    r->nheld = 0;
}

/* The class v's outputs are judged in: a Python entry may name its own. */
static kb_check_ctx check_ctx(const case_data *cd, const kb_variant *v) {
    const kb_loaded *l = kb_loaded_of(v);
    kb_check_ctx chk = {kb_case_precision(cd->c, v->flags), v->flags};
    if (l && l->precision >= 0) chk.prec = (kb_precision)l->precision;
    return chk;
}

/* The checked run's outputs (got) and a second run's (again): bitwise
 * determinism, the dump, and the op's comparison against the reference. */
static void judge_checked(kb_runner *r, case_data *cd, const kb_variant *v, const kb_tensors *got,
                          const kb_tensors *again, kb_row *row) {
    row->deterministic = tensors_equal(got, again);
    kb_error de;
    if (r->opts.dump_dir &&
        kb_dump_tensors(r->opts.dump_dir, cd->index, v->name, got, &de) != KB_OK)
        dump_failed(v->name, &de);
    if (!cd->have_ref) return;
    kb_accuracy_init(&row->acc);
    const kb_check_ctx chk = check_ctx(cd, v);
    cd->c->op->compare(cd->c, &chk, &cd->in, &cd->ref, got, &row->acc);
    row->checked = 1;
    if (!row->acc.pass) {
        row->status = KB_ROW_FAIL;
        snprintf(row->reason, sizeof row->reason, "does not match the reference");
    } else if (!row->deterministic && !(v->flags & KB_NONDETERMINISTIC)) {
        row->status = KB_ROW_FAIL;
        snprintf(row->reason, sizeof row->reason,
                 "two runs differ bitwise, and the variant is not flagged nondeterministic");
    }
}

/* Fills row from the check; the status stays PASS only if everything holds.
 * On KB_OK, *checked gets the outputs of the checked run (host memory). */
static int check_variant(kb_runner *r, case_data *cd, launch_ctx *lc, kb_row *row,
                         kb_tensors *checked, kb_error *e) {
    kb_tensors got = cd->out_desc, again = cd->out_desc;
    int rc = KB_ERR, overrun = -1;
    size_t overrun_bytes = 0;
    if (kb_tensors_alloc_host(&got, e) != KB_OK) return KB_ERR;
    if (kb_tensors_alloc_host(&again, e) != KB_OK) goto out;
    kb_nvtx_push("check");
    if (lc->v->flags & KB_HOST) {
        if (host_checked_run(lc, &got, &overrun, &overrun_bytes, e) != KB_OK ||
            host_checked_run(lc, &again, &overrun, &overrun_bytes, e) != KB_OK) {
            kb_nvtx_pop();
            goto out;
        }
        goto ran;
    }
    if (poison(lc->dev_out, r->stream, e) != KB_OK ||
        guard_set(lc->dev_out, r->stream, e) != KB_OK || run_once(lc, r->stream, e) != KB_OK ||
        copy_tensors(&got, lc->dev_out, cudaMemcpyDeviceToHost, r->stream, e) != KB_OK ||
        guard_check(lc->dev_out, r->stream, &overrun, &overrun_bytes, e) != KB_OK ||
        poison(lc->dev_out, r->stream, e) != KB_OK ||
        guard_set(lc->dev_out, r->stream, e) != KB_OK || run_once(lc, r->stream, e) != KB_OK ||
        copy_tensors(&again, lc->dev_out, cudaMemcpyDeviceToHost, r->stream, e) != KB_OK ||
        guard_check(lc->dev_out, r->stream, &overrun, &overrun_bytes, e) != KB_OK) {
        kb_nvtx_pop();
        goto out;
    }
ran:
    kb_nvtx_pop();
    judge_checked(r, cd, lc->v, &got, &again, row);
    if (overrun >= 0) {
        row->status = KB_ROW_FAIL;
        snprintf(row->reason, sizeof row->reason,
                 "wrote past the end of output %s (%zu of the %d guard bytes after it changed)",
                 lc->dev_out->t[overrun].name, overrun_bytes, KB_GUARD_BYTES);
    }
    rc = KB_OK;
    *checked = got;
out:
    if (rc != KB_OK) kb_tensors_free_host(&got);
    kb_tensors_free_host(&again);
    return rc;
}

/* The kernel columns from the samples CUPTI's records were attributed to. */
static void kernel_time(const kb_measure *m, kb_row *row) {
    if (m->kn <= 0) return;
    kb_stats st;
    kb_stats_compute(m->ksum, m->kn, &st);
    row->ksum_median = st.median;
    row->ksum_p10 = st.p10;
    row->ksum_p90 = st.p90;
    kb_stats_compute(m->kspan, m->kn, &st);
    row->kspan_median = st.median;
    double recs = 0;
    for (int i = 0; i < m->kn; i++) recs += m->kcount[i];
    row->krecords = recs / m->kn / (m->klaunches > 0 ? m->klaunches : 1);
    row->kn = m->kn;
}

/* Host rows, and the variants that synchronise with the host mid-op (a walk
 * of a mask on the CPU between kernels), are timed in --host-repeats
 * repeats: the host's other load moves their time between runs, which the
 * samples of one run do not see (measure.h). Every other row: one. */
static int timed_in_repeats(const kb_variant *v) {
    return (v->flags & (KB_HOST | KB_HOST_SYNC)) != 0;
}

static int repeats_of(const kb_runner *r, const kb_variant *v) {
    if (!timed_in_repeats(v)) return 1;
    return r->opts.host_repeats > 0 ? r->opts.host_repeats : 1;
}

/* The row's statistics and rates from the measure's samples. */
static void timed_row(kb_runner *r, const kb_measure *m, const kb_variant *v, kb_row *row) {
    kb_stats_compute(m->samples, m->nsamples, &row->stats);
    row->samples = m->samples;
    /* A row taken in repeats is its lowest repeat's median: the repeat that
     * the host's other load disturbed least. */
    if (timed_in_repeats(v) && m->repeats_done > 0) {
        row->repeats = m->repeats_done;
        row->repeat_spread = m->repeat_spread;
        row->stats.median = m->repeat_min_median;
    }
    double t = row->stats.median;
    if (t <= 0) return;
    row->gbps = row->cost.bytes / t * 1e-9;
    row->gflops = row->cost.flops / t * 1e-9;
    /* The peaks are the GPU's: a host row's percentages of them would mislead. */
    if ((v->flags & KB_HOST) || !r->dev) return;
    kernel_time(m, row);
    if (r->dev->peak_copy_gbps > 0) row->pct_peak_bw = 100 * row->gbps / r->dev->peak_copy_gbps;
    if (r->dev->peak_sgemm_gflops > 0)
        row->pct_peak_flops = 100 * row->gflops / r->dev->peak_sgemm_gflops;
}

static int time_variant(kb_runner *r, launch_ctx *lc, kb_row *row, kb_error *e) {
    kb_measure *m = &r->measure;
    int rc;
    m->before_sample = poison_before_sample;
    m->before_sample_ctx = lc;
    m->repeats = repeats_of(r, lc->v);
    if (lc->v->flags & KB_HOST) { /* cold or hot: run_host_variant refuses graph mode */
        rc = kb_measure_host(m, launch, lc, e);
        goto measured;
    }
    switch (m->mode) {
    case KB_MODE_HOT:
        rc = kb_measure_hot(m, launch, lc, r->stream, e);
        break;
    case KB_MODE_GRAPH:
        rc = kb_measure_graph(m, launch, lc, r->stream, e);
        break;
    default:
        rc = kb_measure_cold(m, launch, lc, r->stream, e);
        break;
    }
measured:
    m->before_sample = NULL;
    m->before_sample_ctx = NULL;
    if (rc != KB_OK) return KB_ERR;
    row->throttled = m->throttled;
    timed_row(r, m, lc->v, row);
    return KB_OK;
}

/* The last timed launch's outputs (got) against the checked run's. */
static void judge_timed(case_data *cd, const kb_variant *v, const kb_tensors *checked,
                        const kb_tensors *got, kb_row *row) {
    int same;
    if (v->flags & KB_NONDETERMINISTIC) {
        kb_accuracy acc;
        kb_accuracy_init(&acc);
        const kb_check_ctx chk = check_ctx(cd, v);
        cd->c->op->compare(cd->c, &chk, &cd->in, &cd->ref, got, &acc);
        same = acc.pass;
    } else {
        same = tensors_equal(checked, got);
    }
    if (same) return;
    row->status = KB_ROW_FAIL;
    snprintf(row->reason, sizeof row->reason, "%s",
             v->flags & KB_NONDETERMINISTIC
                 ? "the last timed launch's outputs do not match the reference (a variant "
                   "that caches its result or skips work on repeated calls)"
                 : "the last timed launch wrote different outputs than the checked run (a "
                   "variant that caches its result or skips work on repeated calls, or "
                   "whose runs differ)");
}

/* The outputs of the last timed launch (every sample began from poisoned
 * outputs) against those of the checked run: bitwise for a deterministic
 * variant, by the op's check against the reference for one flagged
 * nondeterministic. What timing measured is then work whose result was
 * checked: a variant that caches its result, or skips work on repeated
 * calls, leaves the poison (or stale outputs) behind. In hot and graph mode
 * a sample is a batch: the outputs are those of its last launch, which every
 * launch of the batch wrote over (the check holds each run to writing every
 * element), so the batch's last launch is the one judged. */
static int check_timed(kb_runner *r, case_data *cd, launch_ctx *lc, const kb_tensors *checked,
                       kb_row *row, kb_error *e) {
    kb_tensors timed = cd->out_desc;
    const kb_tensors *got = lc->dev_out; /* a KB_HOST variant's outputs are host memory */
    if (!(lc->v->flags & KB_HOST)) {
        if (kb_tensors_alloc_host(&timed, e) != KB_OK) return KB_ERR;
        if (copy_tensors(&timed, lc->dev_out, cudaMemcpyDeviceToHost, r->stream, e) != KB_OK) {
            kb_tensors_free_host(&timed);
            return KB_ERR;
        }
        got = &timed;
    }
    judge_timed(cd, lc->v, checked, got, row);
    kb_tensors_free_host(&timed);
    return KB_OK;
}

/* The check, the timing, then the timed outputs against the checked ones
 * (only for a row that passed its check: a FAIL keeps its first reason). */
static int check_and_time(kb_runner *r, case_data *cd, launch_ctx *lc, kb_row *row, kb_error *e) {
    kb_tensors checked = cd->out_desc; /* descriptions: no data until the check */
    int rc = KB_OK;
    if (r->opts.check || r->opts.dump_dir) rc = check_variant(r, cd, lc, row, &checked, e);
    if (rc == KB_OK && r->opts.timing) rc = time_variant(r, lc, row, e);
    if (rc == KB_OK && r->opts.timing && row->checked && row->status == KB_ROW_PASS)
        rc = check_timed(r, cd, lc, &checked, row, e);
    kb_tensors_free_host(&checked);
    return rc;
}

static void set_status(kb_row *row, kb_status st, const char *why) {
    row->status = st;
    snprintf(row->reason, sizeof row->reason, "%s", why);
}

static void row_init(const kb_runner *r, const kb_case *c, const kb_variant *v, const char *params,
                     kb_row *row) {
    memset(row, 0, sizeof *row);
    snprintf(row->op, sizeof row->op, "%s", v->op);
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->params, sizeof row->params, "%s", params);
    row->mode = r->opts.mode;
    row->flags = v->flags;
    row->deterministic = -1;
    row->cost = c->op->cost(c);
    row->status = r->opts.check ? KB_ROW_PASS : KB_ROW_UNCHECKED;
    if (r->dev) snprintf(row->device, sizeof row->device, "%s", r->dev->uuid);
    snprintf(row->source, sizeof row->source, "%s", kb_variant_origin(v));
    const kb_loaded *lv = kb_loaded_of(v);
    row->peer = lv && lv->peer;
}

/* A sticky error (illegal address, launch failure) poisons the context for
 * the rest of the process: every later row would fail for the wrong reason. */
static const char not_run_lost[] = KB_NOT_RUN "the CUDA context was lost earlier in the sweep";

static int context_lost(void) {
    cudaError_t rc = cudaDeviceSynchronize();
    if (rc == cudaSuccess) rc = cudaGetLastError();
    return rc != cudaSuccess && rc != cudaErrorMemoryAllocation;
}

/* 0 in a runner with no device (a plan of host variants): nothing to watch,
 * and no CUDA call that would create a context. */
static size_t device_free(const kb_runner *r) {
    size_t free_b = 0, total_b = 0;
    if (!r->dev) return 0;
    return cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? free_b : 0;
}

static double gib(size_t b) {
    return (double)b / 1073741824.0;
}

/* What one row (or case) left in use. Growth under 1 MiB is allocator noise. */
static void watch(kb_mem_watch *w, size_t before, size_t after) {
    if (w->rows++ == 0 || !before || !after || after + ((size_t)1 << 20) >= before) return;
    w->grew++;
    w->regrown += before - after;
}

/* --force: the reason says what the row was forced past, then the outcome. */
static void mark_forced(kb_row *row, const char *limit) {
    char outcome[sizeof row->reason];
    snprintf(outcome, sizeof outcome, "%s", row->reason);
    snprintf(row->reason, sizeof row->reason, KB_FORCED_PREFIX " past its limit (%.600s)%s%.560s",
             limit, outcome[0] ? ": " : "", outcome);
}

void kb_runner_status_row(const kb_runner *r, int p, kb_status st, const char *why,
                          const char *forced_limit, kb_row *row) {
    const kb_case *c = &r->cases->cases[r->pairs[p].c];
    char params[1024];
    kb_case_format(c, params, sizeof params);
    row_init(r, c, r->variants[r->pairs[p].v], params, row);
    row->pair = r->pairs[p].index;
    set_status(row, st, why);
    if (forced_limit && forced_limit[0]) {
        row->forced = 1;
        mark_forced(row, forced_limit);
    }
}

void kb_runner_emit_status(kb_runner *r, int p, kb_status st, const char *why,
                           const char *forced_limit) {
    kb_row row;
    kb_runner_status_row(r, p, st, why, forced_limit, &row);
    kb_runner_emit(r, &row);
}

/* The pair's device work (or a loaded variant's code) begins: an isolated
 * worker's parent starts the pair's --case-timeout. Said once a pair, and
 * again only to name a --force limit. */
static void start_pair(kb_runner *r, int p, const char *forced_limit) {
    if (r->on_start && (r->started != p + 1 || forced_limit[0])) r->on_start(r, p, forced_limit);
    r->started = p + 1;
}

/* A KB_HOST variant's outputs (host memory with guard bytes) and state. */
static int host_setup(case_data *cd, const kb_variant *v, kb_tensors *out, void **state,
                      kb_error *e) {
    *out = cd->out_desc;
    int rc = alloc_host_guarded(out, e);
    if (rc == KB_OK) rc = v->impl->setup(cd->c, &cd->in, state, e);
    return rc;
}

/* The row's status from how the pair went: UNSUPPORTED where it found no
 * room in `memory` (host or device), ERROR where it failed otherwise. */
static void outcome(kb_row *row, int rc, const kb_error *e, const char *memory) {
    if (rc == KB_OUT_OF_MEMORY) {
        char why[1100];
        snprintf(why, sizeof why, "out of %s memory: %s", memory, e->msg);
        set_status(row, KB_ROW_UNSUPPORTED, why);
    } else if (rc != KB_OK) {
        set_status(row, KB_ROW_ERROR, e->msg);
    }
}

/* The row's status from how the pair went, and its state released. */
static void host_done(const kb_variant *v, kb_row *row, int rc, const kb_error *e, void *state,
                      kb_tensors *out) {
    outcome(row, rc, e, "host");
    if (state) v->impl->teardown(state);
    kb_tensors_free_host(out);
}

/* A KB_HOST variant, after supports(): the host inputs, host outputs with
 * guard bytes, the same check, wall-clock timing. No device memory and no
 * CUDA call, so no leak watch and no lost context either. */
static void run_host_variant(kb_runner *r, int p, case_data *cd, kb_row *row) {
    const kb_variant *v = r->variants[r->pairs[p].v];
    kb_error e = {{0}};
    start_pair(r, p, "");
    char range[1200];
    snprintf(range, sizeof range, "%s/%s {%s}", v->op, v->name, cd->params);
    kb_nvtx_push(range);
    kb_tensors out;
    void *state = NULL;
    int rc = host_setup(cd, v, &out, &state, &e);
    if (rc == KB_OK) {
        launch_ctx lc = {v, state, &cd->in, &out};
        rc = check_and_time(r, cd, &lc, row, &e);
    }
    host_done(v, row, rc, &e, state, &out);
    kb_nvtx_pop();
    kb_runner_emit(r, row);
}

/* A Python variant (py_bridge.c): the function runs, and is timed, in its
 * worker; its outputs come back to be judged here as any variant's are. */
static void run_py_variant(kb_runner *r, int p, case_data *cd, kb_row *row) {
    const kb_variant *v = r->variants[r->pairs[p].v];
    const kb_loaded *l = kb_loaded_of(v);
    kb_error e = {{0}};
    if (r->opts.mode == KB_MODE_GRAPH && r->opts.timing) {
        set_status(row, KB_ROW_UNSUPPORTED,
                   "a Python variant is not graph-captured (time it with --mode cold or hot)");
        kb_runner_emit(r, row);
        return;
    }
    start_pair(r, p, "");
    char range[1200];
    snprintf(range, sizeof range, "%s/%s {%s}", v->op, v->name, cd->params);
    kb_nvtx_push(range);
    const int check = (r->opts.check || r->opts.dump_dir) && l->check;
    const kb_py_request q = {
        .lv = l,
        .c = cd->c,
        .case_index = cd->index,
        .in = &cd->in,
        .ref = cd->have_ref ? &cd->ref : NULL,
        .outs = &cd->out_desc,
        .nvtx = range,
        .check = check,
        .timing = r->opts.timing,
        .mode = r->opts.mode,
        .flush = kb_flush_name(r->measure.flush),
        .l2_bytes = r->measure.l2_flush_bytes / 2,
        .rule = r->opts.rule,
        .warmup_s = r->measure.warmup_s,
    };
    kb_py_reply rep;
    kb_measure *m = &r->measure;
    if (kb_py_run(&q, &rep, m->samples, r->opts.rule.max_samples, &e) != KB_OK) {
        set_status(row, KB_ROW_ERROR, e.msg);
    } else if (rep.status != KB_ROW_PASS) {
        set_status(row, rep.status, rep.reason);
        if (rep.status == KB_ROW_CRASH) r->retire = 1;
    } else {
        if (!l->check) row->status = KB_ROW_UNCHECKED;
        if (check && rep.have[0] && rep.have[1])
            judge_checked(r, cd, v, &rep.set[0], &rep.set[1], row);
        if (r->opts.timing) {
            m->nsamples = rep.nsamples;
            m->throttled = 0;
            m->kn = 0; /* timed in the Python worker: no CUPTI there */
            m->repeats_done = 0;
            timed_row(r, m, v, row);
        }
        if (r->opts.timing && row->checked && row->status == KB_ROW_PASS && rep.have[2])
            judge_timed(cd, v, &rep.set[0], &rep.set[2], row);
    }
    if (rep.note[0]) {
        size_t used = strlen(row->acc.note);
        snprintf(row->acc.note + used, sizeof row->acc.note - used, "%s%s", used ? "; " : "",
                 rep.note);
    }
    kb_py_reply_free(&rep);
    kb_nvtx_pop();
    if (r->opts.interleave && r->opts.timing && row->status == KB_ROW_PASS) {
        size_t used = strlen(row->acc.note);
        snprintf(row->acc.note + used, sizeof row->acc.note - used, "%s%s", used ? "; " : "",
                 "timed alone, not in turns: a Python variant runs in its own worker");
    }
    kb_runner_emit(r, row);
}

/* A device variant's outputs (with guard bytes) and state: persisting L2
 * lines an earlier pair left (stored under an evict_last policy, or in an
 * access policy window) outlive its teardown and the cold flush, holding
 * part of L2 through this pair's check and timing, so each pair starts with
 * none; setup's device work, on whatever stream, is done before the first
 * run (the run stream is non-blocking: a cudaMemset on the legacy stream
 * could otherwise land in the middle of the checked run). A failed setup
 * may still hand back state: device_done releases it. */
static int device_setup(kb_runner *r, case_data *cd, const kb_variant *v, kb_tensors *dev_out,
                        void **state, kb_error *e) {
    *dev_out = cd->out_desc;
    int rc = alloc_device(dev_out, e);
    if (rc == KB_OK && r->reset_persisting)
        rc = kb_cuda_check(cudaCtxResetPersistingL2Cache(), "resetting persisting L2 lines", e);
    if (rc == KB_OK) rc = v->impl->setup(cd->c, &cd->dev_in, state, e);
    if (rc == KB_OK) rc = kb_cuda_check(cudaDeviceSynchronize(), "after setup", e);
    return rc;
}

/* The row's status from how pair p went (rc, e), its state and outputs
 * released, and what a fault costs: a row that passed its checks can still
 * have faulted afterwards (work left on another stream, teardown): the fault
 * is this pair's, not the next's (limit: what --force ran it past; free_b:
 * device memory free before it). */
static void device_done(kb_runner *r, int p, kb_row *row, int rc, kb_error *e, void *state,
                        kb_tensors *dev_out, const char *limit, size_t free_b) {
    const kb_variant *v = r->variants[r->pairs[p].v];
    outcome(row, rc, e, "device");
    if (state) v->impl->teardown(state);
    free_device(dev_out);
    cudaError_t late = rc == KB_OK ? cudaDeviceSynchronize() : cudaSuccess;
    if (late != cudaSuccess) {
        kb_fail(e, "after its run (work still in flight, or teardown): %s (%s)",
                cudaGetErrorString(late), cudaGetErrorName(late));
        set_status(row, KB_ROW_CRASH, e->msg);
        r->context_lost = 1;
    } else if (rc != KB_OK && rc != KB_OUT_OF_MEMORY && context_lost()) {
        set_status(row, KB_ROW_CRASH, e->msg);
        r->context_lost = 1;
    } else {
        watch(&r->mem[r->pairs[p].v], free_b, device_free(r));
    }
    if (row->forced) mark_forced(row, limit);
}

/* A device variant's pair after its refusals: setup, check, timing and
 * teardown in its NVTX range, then its row. */
static void run_device_variant(kb_runner *r, int p, case_data *cd, kb_row *rowp, const char *limit,
                               size_t free_b) {
    const kb_variant *v = r->variants[r->pairs[p].v];
    kb_row row = *rowp;
    kb_error e = {{0}};
    start_pair(r, p, limit);
    char range[1200];
    snprintf(range, sizeof range, "%s/%s {%s}", v->op, v->name, cd->params);
    kb_nvtx_push(range);
    kb_tensors dev_out;
    void *state = NULL;
    int rc = device_setup(r, cd, v, &dev_out, &state, &e);
    if (rc == KB_OK) {
        launch_ctx lc = {v, state, &cd->dev_in, &dev_out};
        rc = check_and_time(r, cd, &lc, &row, &e);
    }
    device_done(r, p, &row, rc, &e, state, &dev_out, limit, free_b);
    kb_nvtx_pop();
    kb_runner_emit(r, &row);
}

/* Pair p's refusals, in order: the plugin's load, a Python variant (run
 * here, its row made), supports(), a build without code for the device,
 * graph mode for what cannot be captured, memory that cannot fit. 1: the
 * pair is to run (limit: the supports() message --force ran it past; free_b:
 * device memory free before it); 0: its row is made (or it is skipped). */
static int admit(kb_runner *r, int p, case_data *cd, kb_row *row, char *limit, size_t *free_b) {
    const kb_variant *v = r->variants[r->pairs[p].v];
    kb_error e = {{0}};
    limit[0] = '\0';
    *free_b = 0;
    /* A plugin's variant is loaded into this process at its first pair. Its
     * code (the load, supports) is under the pair's --case-timeout already. */
    const kb_loaded *lv = kb_loaded_of(v);
    if (lv) start_pair(r, p, "");
    if (kb_loaded_bind(v, &e) != KB_OK) {
        set_status(row, KB_ROW_ERROR, e.msg);
        kb_runner_emit(r, row);
        return 0;
    }
    if (lv && kb_source_at(lv->source)->kind == KB_SOURCE_PY) {
        run_py_variant(r, p, cd, row);
        return 0;
    }
    int s = v->impl->supports(cd->c, &e);
    /* The parent plans a loaded variant's pairs without asking it (user code
     * runs only in workers): its "another function of the op" is a row. */
    if (s == KB_NOT_APPLICABLE && lv) {
        char why[sizeof e.msg];
        snprintf(why, sizeof why, "not applicable (another function of the op): %.960s", e.msg);
        set_status(row, KB_ROW_UNSUPPORTED, why);
        kb_runner_emit(r, row);
        return 0;
    }
    if (s == KB_NOT_APPLICABLE) {
        r->skipped_na++;
        if (r->on_skip) r->on_skip(r, p);
        return 0;
    }
    /* A build without code for this device: every row says how to rebuild. */
    if (s == KB_OK && !(v->flags & KB_HOST) && kb_gpu_have_code(&e) != KB_OK) s = KB_UNSUPPORTED;
    if (s != KB_OK && r->opts.force && (v->flags & KB_INDEX32)) {
        row->forced = 1;
        snprintf(limit, sizeof e.msg, "%s", e.msg);
        s = KB_OK;
    }
    const char *refused = s != KB_OK ? e.msg : NULL;
    if (!refused && r->opts.mode == KB_MODE_GRAPH && r->opts.timing)
        refused = v->flags & KB_HOST ? "runs on the host: no CUDA graph to replay (time it with "
                                       "--mode cold or hot)"
                  : v->flags & KB_HOST_SYNC ? "synchronises with the host: cannot be graph-captured"
                                            : NULL;
    if (refused) {
        set_status(row, KB_ROW_UNSUPPORTED, refused);
        kb_runner_emit(r, row);
        return 0;
    }
    row->workspace_bytes = v->impl->workspace_bytes(cd->c);
    if (v->flags & KB_HOST) return 1;

    /* Refuse up front what cannot fit, with the numbers. */
    size_t out_b = kb_tensors_bytes(&cd->out_desc);
    *free_b = device_free(r);
    if (*free_b && (out_b > *free_b || row->workspace_bytes > *free_b - out_b)) {
        char why[512];
        snprintf(why, sizeof why,
                 "out of device memory: outputs %.2f GiB + workspace %.2f GiB > %.2f GiB free "
                 "(inputs hold %.2f GiB)",
                 gib(out_b), gib(row->workspace_bytes), gib(*free_b),
                 gib(kb_tensors_bytes(&cd->in)));
        set_status(row, KB_ROW_UNSUPPORTED, why);
        if (row->forced) mark_forced(row, limit);
        kb_runner_emit(r, row);
        return 0;
    }
    return 1;
}

static void run_variant(kb_runner *r, int p, case_data *cd, kb_status case_status,
                        const char *case_err) {
    const kb_variant *v = r->variants[r->pairs[p].v];
    kb_row row;
    row_init(r, cd->c, v, cd->params, &row);
    row.pair = r->pairs[p].index;
    if (!case_err && r->context_lost) {
        case_status = KB_ROW_NOT_RUN;
        case_err = not_run_lost;
    }
    if (case_err) {
        set_status(&row, case_status, case_err);
        kb_runner_emit(r, &row);
        return;
    }
    char limit[1024];
    size_t free_b;
    if (!admit(r, p, cd, &row, limit, &free_b)) return;
    if (v->flags & KB_HOST)
        run_host_variant(r, p, cd, &row);
    else
        run_device_variant(r, p, cd, &row, limit, free_b);
}

/* ---- one case ---- */

/* Does a GPU variant run on case c? Host variants read the host inputs. The
 * plan holds the pairs case by case (kb_runner_plan): a bisection finds c's. */
static int case_needs_device(const kb_runner *r, int c) {
    int lo = 0, hi = r->npairs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r->pairs[mid].c < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int p = lo; p < r->npairs && r->pairs[p].c == c; p++)
        if (!(r->variants[r->pairs[p].v]->flags & KB_HOST)) return 1;
    return 0;
}

/* The stage of preparing a case that begins now, for --case-timeout's
 * message when it is the one that overruns (isolate.c). */
static void stage(kb_runner *r, const char *what) {
    if (r->on_stage) r->on_stage(r, r->pair, what);
}

static int prepare_case(kb_runner *r, case_data *cd, kb_error *e) {
    const kb_op *op = cd->c->op;
    const int on_device = r->dev && case_needs_device(r, cd->index);
    stage(r,
          r->opts.inputs_dir ? "reading the case's inputs (--inputs)" : "making the case's inputs");
    if (op->describe(cd->c, &cd->in, &cd->out_desc, e) != KB_OK) return KB_ERR;
    /* Before the inputs are made: a case that cannot fit costs no reference. */
    size_t free_b = on_device ? device_free(r) : 0, in_b = kb_tensors_bytes(&cd->in);
    if (free_b && in_b > free_b) {
        kb_fail(e, "inputs %.2f GiB > %.2f GiB free", gib(in_b), gib(free_b));
        return KB_OUT_OF_MEMORY;
    }
    if (kb_tensors_alloc_host(&cd->in, e) != KB_OK) return KB_ERR;
    uint64_t seed = r->opts.seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(cd->index + 1));
    const char *dir = r->opts.inputs_dir;
    int rc = dir ? load_inputs(dir, &cd->in, e) : op->make_inputs(cd->c, seed, &cd->in, e);
    if (rc != KB_OK) return KB_ERR;
    kb_error why;
    if (dir && check_indices(cd->c, &cd->in, &why) != KB_OK)
        return kb_fail(e, "--inputs %s: %s", dir, why.msg);
    if (r->opts.check || r->opts.dump_dir) {
        cd->ref = cd->out_desc;
        if (kb_tensors_alloc_host(&cd->ref, e) != KB_OK) return KB_ERR;
        stage(r, "the case's CPU reference");
        kb_nvtx_push("reference (CPU)");
        rc = op->reference(cd->c, &cd->in, &cd->ref, e);
        kb_nvtx_pop();
        if (rc != KB_OK) return KB_ERR;
        cd->have_ref = 1;
        if (r->opts.dump_dir) {
            const char *dump = r->opts.dump_dir;
            kb_error de;
            stage(r, "writing the case's inputs and reference (--dump)");
            if (kb_dump_tensors(dump, cd->index, NULL, &cd->in, &de) != KB_OK ||
                kb_dump_case_txt(dump, cd->index, cd->params, &cd->in, &cd->out_desc, &de) !=
                    KB_OK ||
                kb_dump_tensors(dump, cd->index, "reference", &cd->ref, &de) != KB_OK)
                dump_failed("the case's inputs and reference", &de);
        }
    }
    if (!on_device) return KB_OK;
    stage(r, "copying the case's inputs to the device");
    cd->dev_in = cd->in;
    rc = alloc_device(&cd->dev_in, e);
    if (rc != KB_OK) return rc;
    return copy_tensors(&cd->dev_in, &cd->in, cudaMemcpyHostToDevice, r->stream, e);
}

static void release_case(case_data *cd) {
    kb_py_release_case(cd->index);
    free_device(&cd->dev_in);
    kb_tensors_free_host(&cd->in);
    kb_tensors_free_host(&cd->ref);
}

static void progress(kb_runner *r, int i, int n, double t0, const char *what) {
    if (!r->opts.progress || kb_now_s() - t0 < 2.0) return;
    fprintf(stderr, "\r\033[K[%d/%d] %.1fs %.60s", i + 1, n, kb_now_s() - t0, what);
    fflush(stderr);
}

/* Loud, on stderr: device memory that stayed in use. The free memory read
 * is the device's, so another process starting on the GPU can disturb one
 * row: a leak must show on most rows after the first, over 16 MiB in all. */
static int leaks(const kb_mem_watch *w) {
    return w->regrown > ((size_t)16 << 20) && 2 * w->grew > w->rows - 1;
}

static void report_leaks(kb_runner *r, size_t free0) {
    size_t free1 = device_free(r);
    int named = 0;
    for (int k = 0; k <= r->nvariants; k++) {
        const kb_mem_watch *w = &r->mem[k];
        if (!leaks(w) || (k == r->nvariants && named)) continue;
        char who[200];
        if (k < r->nvariants)
            snprintf(who, sizeof who, "%s/%s", r->variants[k]->op, r->variants[k]->name);
        else
            snprintf(who, sizeof who, "the harness (inputs, outputs)");
        fprintf(stderr,
                "kbench: LEAK: %s: device memory in use grew by %.1f MiB over %d of its %d "
                "%s after the first (free: %.1f MiB when this process began the sweep, %.1f MiB "
                "at its end)\n",
                who, w->regrown / 1048576.0, w->grew, w->rows - 1,
                k < r->nvariants ? "row(s)" : "case(s)", free0 / 1048576.0, free1 / 1048576.0);
        named++;
    }
}

/* The case the last pair belonged to, kept prepared (inputs, reference,
 * device inputs) while the next pair is of the same case. */
struct kb_held_case {
    case_data cd;
    int cur;     /* its index, or -1 */
    int rc;      /* how preparing it went */
    int not_run; /* not prepared: the context was lost before its turn */
    kb_error ce;
    size_t case_free; /* free device memory before it was prepared */
    double t0;        /* when this process began its pairs */
    size_t free0;     /* free device memory then */
};

static void drop_case(kb_runner *r, struct kb_held_case *h) {
    if (h->cur < 0) return;
    release_case(&h->cd);
    if (!r->context_lost) watch(&r->mem[r->nvariants], h->case_free, device_free(r));
    h->cur = -1;
}

/* The held case, prepared for pair p's case (kept when it is already that
 * one); NULL when there is no host memory for it. */
static struct kb_held_case *hold_case(kb_runner *r, int p) {
    struct kb_held_case *h = r->held;
    if (!h) {
        h = r->held = calloc(1, sizeof *h);
        if (!h) return NULL;
        h->cur = -1;
        h->t0 = kb_now_s();
        h->free0 = device_free(r);
    }
    if (r->pairs[p].c != h->cur) {
        drop_case(r, h);
        h->case_free = r->context_lost ? 0 : device_free(r);
        h->cur = r->pairs[p].c;
        memset(&h->cd, 0, sizeof h->cd);
        h->cd.index = h->cur;
        h->cd.c = &r->cases->cases[h->cur];
        kb_case_format(h->cd.c, h->cd.params, sizeof h->cd.params);
        progress(r, h->cur, r->cases->count, h->t0, h->cd.params);
        memset(&h->ce, 0, sizeof h->ce);
        r->pair = p;
        h->not_run = r->context_lost;
        if (r->context_lost) {
            h->rc = kb_fail(&h->ce, "%s", not_run_lost);
        } else {
            h->rc = prepare_case(r, &h->cd, &h->ce);
            stage(r, "");
        }
    }
    return h;
}

static void run_one(kb_runner *r, int p);

/* --interleave, and no other pair of p's case can take turns with it (of its
 * source, built-in or one plugin; a Python variant's note is its own). */
static int lone(const kb_runner *r, int p) {
    if (!r->opts.interleave || !r->opts.timing || !kb_runner_interleavable(r, p)) return 0;
    for (int q = p - 1; q >= 0 && r->pairs[q].c == r->pairs[p].c; q--)
        if (kb_runner_same_turns(r, p, q)) return 0;
    for (int q = p + 1; q < r->npairs && r->pairs[q].c == r->pairs[p].c; q++)
        if (kb_runner_same_turns(r, p, q)) return 0;
    return 1;
}

void kb_runner_run_one(kb_runner *r, int p) {
    const char *note = r->row_note;
    if (!note && lone(r, p))
        r->row_note = "timed alone: no other variant of its source (the built-ins, or its "
                      "plugin) on this case to take turns with";
    run_one(r, p);
    r->row_note = note;
}

static void run_one(kb_runner *r, int p) {
    struct kb_held_case *h = hold_case(r, p);
    if (!h) { /* nothing can be prepared: the row says so */
        kb_runner_emit_status(r, p, KB_ROW_ERROR, "out of host memory for a case", "");
        return;
    }
    char why[1100];
    r->pair = p;
    if (h->rc == KB_OUT_OF_MEMORY) {
        snprintf(why, sizeof why, "out of device memory for the inputs: %s", h->ce.msg);
        run_variant(r, p, &h->cd, KB_ROW_UNSUPPORTED, why);
    } else {
        run_variant(r, p, &h->cd, h->not_run ? KB_ROW_NOT_RUN : KB_ROW_ERROR,
                    h->rc != KB_OK ? h->ce.msg : NULL);
    }
}

/* ---- a case's variants in turns (--interleave) ---- */

int kb_runner_interleavable(const kb_runner *r, int p) {
    const kb_loaded *l = kb_loaded_of(r->variants[r->pairs[p].v]);
    return !l || kb_source_at(l->source)->kind != KB_SOURCE_PY;
}

int kb_runner_same_turns(const kb_runner *r, int p, int q) {
    return r->pairs[p].c == r->pairs[q].c && kb_runner_interleavable(r, p) &&
           kb_runner_interleavable(r, q) &&
           kb_variant_source_index(r->variants[r->pairs[p].v]) ==
               kb_variant_source_index(r->variants[r->pairs[q].v]);
}

/* One variant of the case's turns: its row, outputs, state, the checked
 * outputs, and a measure and timer of its own. */
typedef struct turn {
    kb_runner *r;
    int p;
    const kb_variant *v;
    kb_row row;
    char limit[1024];
    size_t free_b;
    kb_tensors out, checked;
    void *state;
    launch_ctx lc;
    kb_measure m;
    kb_timer t;
    int rc;
    kb_error e;
    int alone;  /* its setup found no memory beside the others': run alone after them */
    int timing; /* its timer began */
} turn;

static void turn_on(kb_runner *r, const turn *tn) {
    r->pair = tn->p;
    if (r->on_turn) r->on_turn(r, tn->p);
}

/* Set up beside the others, and checked as kb_runner_run_one checks. */
static void turn_setup(kb_runner *r, case_data *cd, turn *tn) {
    const int host = (tn->v->flags & KB_HOST) != 0;
    start_pair(r, tn->p, tn->limit);
    turn_on(r, tn);
    char range[1200];
    snprintf(range, sizeof range, "%s/%s {%s}", tn->v->op, tn->v->name, cd->params);
    kb_nvtx_push(range);
    tn->checked = cd->out_desc;
    tn->rc = host ? host_setup(cd, tn->v, &tn->out, &tn->state, &tn->e)
                  : device_setup(r, cd, tn->v, &tn->out, &tn->state, &tn->e);
    if (tn->rc == KB_OUT_OF_MEMORY) { /* nothing of it stays: the others keep their room */
        if (tn->state) tn->v->impl->teardown(tn->state);
        tn->state = NULL;
        if (host)
            kb_tensors_free_host(&tn->out);
        else
            free_device(&tn->out);
        tn->alone = 1;
    }
    tn->lc = (launch_ctx){tn->v, tn->state, host ? &cd->in : &cd->dev_in, &tn->out};
    if (tn->rc == KB_OK && (r->opts.check || r->opts.dump_dir))
        tn->rc = check_variant(r, cd, &tn->lc, &tn->row, &tn->checked, &tn->e);
    kb_nvtx_pop();
}

/* Before each sample in turns: persisting L2 lines that another variant's
 * sample left (evict_last stores, an access policy window) are reset, as
 * before each pair alone, since another sample came between; then the
 * outputs are poisoned. */
static int turn_before_sample(void *p, cudaStream_t s, kb_error *e) {
    turn *tn = p;
    if (!(tn->v->flags & KB_HOST) && tn->r->reset_persisting &&
        kb_cuda_check(cudaCtxResetPersistingL2Cache(), "resetting persisting L2 lines", e) != KB_OK)
        return KB_ERR;
    return poison_outputs(&tn->lc, s, e);
}

/* Its own measure: the runner's settings, buffers of its own. */
static int turn_measure(kb_runner *r, turn *tn) {
    tn->m = r->measure;
    tn->m.before_sample = turn_before_sample;
    tn->m.before_sample_ctx = tn;
    tn->m.repeats = repeats_of(r, tn->v);
    if (measure_alloc(&tn->m, (size_t)r->opts.rule.max_samples, r->measure.kwin != NULL) == 0)
        return KB_OK;
    return kb_fail(&tn->e, "out of host memory for %d samples", r->opts.rule.max_samples);
}

/* A failed step: the variant's error, or a sticky CUDA error (its CRASH). */
static void turn_failed(kb_runner *r, turn *tn) {
    tn->rc = KB_ERR;
    if (!(tn->v->flags & KB_HOST) && context_lost()) {
        set_status(&tn->row, KB_ROW_CRASH, tn->e.msg);
        r->context_lost = 1;
    }
}

/* The rounds: every checked variant warmed up (graph mode: its own graph),
 * then one sample of each in turn while any is still sampling. Hot and graph
 * samples begin with one untimed launch of their own variant, so that their
 * caches hold what that variant's launches leave, as when it is timed alone. */
static void turns_time(kb_runner *r, case_data *cd, turn *ts, int nt) {
    int last = -1;
    for (int i = 0; i < nt && !r->context_lost; i++) {
        turn *tn = &ts[i];
        if (tn->rc != KB_OK || tn->alone) continue;
        turn_on(r, tn);
        const int host = (tn->v->flags & KB_HOST) != 0;
        if (turn_measure(r, tn) != KB_OK) {
            tn->rc = KB_ERR;
            continue;
        }
        if (kb_timer_begin(&tn->t, &tn->m, launch, &tn->lc, r->stream, host, 0, &tn->e) != KB_OK) {
            turn_failed(r, tn);
            continue;
        }
        tn->t.warm_each = r->opts.mode != KB_MODE_COLD;
        tn->timing = 1;
        last = i;
    }
    char range[1200];
    snprintf(range, sizeof range, "samples in turns {%s}", cd->params);
    kb_nvtx_push(range);
    for (int more = 1; more && !r->context_lost;) {
        more = 0;
        for (int i = 0; i < nt && !r->context_lost; i++) {
            turn *tn = &ts[i];
            if (!tn->timing || tn->t.done) continue;
            turn_on(r, tn);
            if (kb_timer_step(&tn->t, &tn->e) != KB_OK) turn_failed(r, tn);
            more |= !tn->t.done;
        }
    }
    kb_nvtx_pop();
    int timed = 0; /* one alone (the others refused or failed) took no turns */
    for (int i = 0; i < nt; i++) timed += ts[i].timing;
    for (int i = 0; i < nt; i++) {
        turn *tn = &ts[i];
        if (!tn->timing) continue;
        kb_error ee;
        int end = kb_timer_end(&tn->t, i != last, tn->rc == KB_OK ? &tn->e : &ee);
        if (tn->rc == KB_OK && end != KB_OK) tn->rc = KB_ERR;
        if (tn->rc != KB_OK || r->context_lost) continue;
        tn->row.throttled = tn->m.throttled;
        timed_row(r, &tn->m, tn->v, &tn->row);
        tn->row.interleaved = timed > 1;
    }
}

/* The timed outputs against the checked ones, the teardown, the row. After
 * a lost context only the CRASH row is made here: in a worker, the parent
 * runs the others again alone; in this process they are NOT_RUN. */
static void turn_finish(kb_runner *r, case_data *cd, turn *tn) {
    const int host = (tn->v->flags & KB_HOST) != 0;
    r->pair = tn->p; /* whose row it is, for a worker's parent */
    if (tn->rc == KB_OK && !r->context_lost && r->opts.timing && tn->row.checked &&
        tn->row.status == KB_ROW_PASS)
        tn->rc = check_timed(r, cd, &tn->lc, &tn->checked, &tn->row, &tn->e);
    kb_tensors_free_host(&tn->checked);
    const int crashed = tn->row.status == KB_ROW_CRASH, lost = r->context_lost && !crashed;
    if (host) {
        host_done(tn->v, &tn->row, tn->rc, &tn->e, tn->state, &tn->out);
    } else if (crashed || lost) {
        if (tn->state) tn->v->impl->teardown(tn->state);
        free_device(&tn->out);
        if (tn->row.forced) mark_forced(&tn->row, tn->limit);
    } else {
        /* no leak watch (free_b 0): the others' memory is still in use */
        device_done(r, tn->p, &tn->row, tn->rc, &tn->e, tn->state, &tn->out, tn->limit, 0);
    }
    if (lost) { /* its samples were cut short with the rounds */
        if (r->opts.isolate) return;
        memset(&tn->row.stats, 0, sizeof tn->row.stats);
        tn->row.samples = NULL;
        tn->row.interleaved = 0;
        set_status(&tn->row, KB_ROW_NOT_RUN, not_run_lost);
    }
    if (!tn->timing) tn->row.samples = NULL;
    kb_runner_emit(r, &tn->row);
}

/* The variants that found no memory beside the others, each alone now. */
static void run_alone(kb_runner *r, turn *ts, int nt) {
    for (int i = 0; i < nt; i++) {
        if (!ts[i].alone) continue;
        r->row_note = "timed alone, not in turns: out of memory with the case's other variants "
                      "set up";
        kb_runner_run_one(r, ts[i].p);
        r->row_note = NULL;
    }
}

void kb_runner_run_group(kb_runner *r, int first, int n) {
    struct kb_held_case *h = n > 1 ? hold_case(r, first) : NULL;
    turn *ts = h && h->rc == KB_OK && !r->context_lost ? calloc((size_t)n, sizeof *ts) : NULL;
    if (!ts) { /* one pair, or a case that could not be prepared: each row as alone */
        for (int q = first; q < first + n; q++) kb_runner_run_one(r, q);
        return;
    }
    case_data *cd = &h->cd;
    r->holding = !r->opts.isolate;
    int nt = 0;
    for (int q = first; q < first + n; q++) {
        turn *tn = &ts[nt];
        tn->r = r;
        tn->p = q;
        tn->v = r->variants[r->pairs[q].v];
        r->pair = q;
        row_init(r, cd->c, tn->v, cd->params, &tn->row);
        tn->row.pair = r->pairs[q].index;
        if (admit(r, q, cd, &tn->row, tn->limit, &tn->free_b)) nt++;
    }
    for (int i = 0; i < nt; i++) turn_setup(r, cd, &ts[i]);
    if (r->opts.timing) turns_time(r, cd, ts, nt);
    for (int i = 0; i < nt; i++) {
        if (!ts[i].alone) turn_finish(r, cd, &ts[i]);
        measure_free(&ts[i].m);
    }
    /* after a lost context a worker makes no more rows: its parent runs them */
    if (!r->context_lost || !r->opts.isolate) run_alone(r, ts, nt);
    release_rows(r);
    free(ts);
}

void kb_runner_finish(kb_runner *r) {
    struct kb_held_case *h = r->held;
    if (!h) return;
    drop_case(r, h);
    if (r->opts.progress && kb_now_s() - h->t0 >= 2.0) fprintf(stderr, "\r\033[K");
    if (!r->context_lost) report_leaks(r, h->free0);
    free(h);
    r->held = NULL;
    kb_py_shutdown();
}

void kb_runner_run(kb_runner *r) {
    for (int p = 0; p < r->npairs;) {
        int n = 1;
        while (r->opts.interleave && r->opts.timing && p + n < r->npairs &&
               kb_runner_same_turns(r, p, p + n))
            n++;
        kb_runner_run_group(r, p, n);
        p += n;
    }
    kb_runner_finish(r);
}
