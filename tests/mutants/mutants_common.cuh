/* mutants_common.cuh — how a mutant is made, shared by the mutants of every op.
 * Most mutants are an op's real variant with one bug put in around it, so
 * that the bug is the only thing wrong with them:
 *   edit_case    the bug is a changed parameter (IoU >= thr is IoU > the float
 *                below thr; class-blind NMS is classes=1);
 *   edit_inputs  the bug is a changed view of the inputs, on copies the real
 *                variant reads instead (ties by higher index = the real variant
 *                on the reversed input, indices mapped back);
 *   perturb      the bug is what it does to the outputs (the last keep lost,
 *                the last partial tile never written, a store past the end);
 *   cache_after  the bug is a result cache: after that many calls, a call
 *                returns without launching (the outputs keep what is there).
 * A mutant is a mut_spec and one line: KB_MUTANT(nms_last_lost, spec).
 * The rest are small self-contained kernels in their op's file.
 */
#ifndef KB_MUTANTS_COMMON_CUH
#define KB_MUTANTS_COMMON_CUH

#include "mutants.h"

#include <stdint.h>
#include <stdlib.h>

typedef const kb_variant_impl *(*mut_pick_fn)(const kb_case *c);
typedef void (*mut_edit_case_fn)(kb_case *c);
/* in: the real device inputs; tin: the same, with the edited ones replaced by
 * copies to fill. c is the real case. Returns cudaGetLastError() after its launches. */
typedef cudaError_t (*mut_edit_inputs_fn)(const kb_case *c, const kb_tensors *in, kb_tensors *tin,
                                          cudaStream_t s);
typedef cudaError_t (*mut_perturb_fn)(const kb_case *c, const kb_tensors *in, kb_tensors *out,
                                      cudaStream_t s);

struct mut_spec {
    mut_pick_fn good;               /* the real variant it wraps (per case: preprocess's interp) */
    mut_edit_case_fn edit_case;     /* or NULL */
    unsigned edited_inputs;         /* bit i: input i is a copy that edit_inputs fills */
    mut_edit_inputs_fn edit_inputs; /* or NULL */
    mut_perturb_fn perturb;         /* or NULL */
    int cache_after;                /* 0, or the calls that compute before the cache */
};

/* ---- small helpers (mutants_common.cu) ---- */

/* Set an axis of a case copy without the range check (prevfloat(0) < 0). */
void mut_set_int(kb_case *c, const char *axis, int64_t v);
void mut_set_float(kb_case *c, const char *axis, double v);
void mut_set_str(kb_case *c, const char *axis, const char *v);

/* dst = src with the rows of each segment reversed: `rows` rows of row_bytes
 * in all, in segments of seg_rows rows, or (offsets: device i32, nseg + 1)
 * rows offsets[s] .. offsets[s+1]. */
void mut_reverse_rows(const void *src, void *dst, size_t row_bytes, int64_t rows, int64_t seg_rows,
                      const int32_t *offsets, int64_t nseg, cudaStream_t s);
/* Each index i (i32) in slots [0, counts[seg]) of segment seg (k slots each)
 * becomes len(seg) - 1 - i: the indices of a reversed input, mapped back.
 * counts: device i32 per segment; a segment's length is len, or from
 * offsets (device i32, nseg + 1) where given. */
void mut_unreverse_indices(int32_t *idx, int64_t nseg, int64_t k, const int32_t *counts,
                           const int32_t *offsets, int64_t len, cudaStream_t s);
/* counts[i] -= 1 where positive: the last element of each list lost. */
void mut_drop_last(int32_t *counts, int64_t n, cudaStream_t s);
/* Each count recounted by counts[i] non-atomic increments from as many
 * threads (a compaction counter bumped with a plain load and store). */
void mut_racy_recount(int32_t *counts, int64_t n, cudaStream_t s);
/* `bytes` zero bytes stored right after the end of t (a store past the end). */
void mut_store_past_end(const kb_tensor *t, size_t bytes, cudaStream_t s);
/* Re-poison (0xFF, as the harness does) bytes [keep, row) of every row of t
 * viewed as `rows` rows of `row` bytes: their writes never happened. */
cudaError_t mut_unwrite_row_tails(const kb_tensor *t, int64_t rows, size_t row, size_t keep,
                                  cudaStream_t s);

/* ---- the wrapper ---- */

struct mut_state {
    const kb_variant_impl *good;
    void *good_state;
    unsigned edited;
    kb_case c; /* the case the real variant sees (edited) */
    kb_case real;
    kb_tensors tin; /* the inputs it reads */
    int calls;      /* run() calls so far (cache_after) */
};

void mut_state_free(mut_state *m); /* the copies and m; not the real variant's state */
int mut_state_new(const kb_case *c, const kb_tensors *in, const kb_variant_impl *good,
                  mut_edit_case_fn edit_case, unsigned edited, mut_state **out, kb_error *e);
size_t mut_edited_bytes(const kb_case *c, unsigned edited);
void mut_teardown(void *state);

template <const mut_spec &S> static kb_case mut_case(const kb_case *c) {
    kb_case ec = *c;
    if (S.edit_case) S.edit_case(&ec);
    return ec;
}

template <const mut_spec &S> static int mut_supports(const kb_case *c, kb_error *why) {
    kb_case ec = mut_case<S>(c);
    return S.good(c)->supports(&ec, why);
}

template <const mut_spec &S> static size_t mut_workspace(const kb_case *c) {
    kb_case ec = mut_case<S>(c);
    return S.good(c)->workspace_bytes(&ec) + mut_edited_bytes(c, S.edited_inputs);
}

template <const mut_spec &S>
static int mut_setup(const kb_case *c, const kb_tensors *in, void **state, kb_error *e) {
    mut_state *m;
    int rc = mut_state_new(c, in, S.good(c), S.edit_case, S.edited_inputs, &m, e);
    if (rc != KB_OK) return rc;
    rc = m->good->setup(&m->c, &m->tin, &m->good_state, e);
    if (rc != KB_OK) {
        mut_state_free(m);
        return rc;
    }
    *state = m;
    return KB_OK;
}

template <const mut_spec &S>
static int mut_run(void *state, const kb_tensors *in, kb_tensors *out, cudaStream_t s,
                   kb_error *e) {
    mut_state *m = (mut_state *)state;
    if (S.cache_after && m->calls++ >= S.cache_after) return KB_OK;
    if (S.edit_inputs &&
        kb_cuda_check(S.edit_inputs(&m->real, in, &m->tin, s), "mutant: edit inputs", e) != KB_OK)
        return KB_ERR;
    if (m->good->run(m->good_state, &m->tin, out, s, e) != KB_OK) return KB_ERR;
    if (S.perturb)
        return kb_cuda_check(S.perturb(&m->real, in, out, s), "mutant: perturb outputs", e);
    return KB_OK;
}

/* One line per mutant: the exported kb_variant_impl that mutants.h names. */
#define KB_MUTANT(name, spec)                                                                      \
    extern "C" const kb_variant_impl kb_mut_##name = {                                             \
        mut_supports<spec>, mut_workspace<spec>, mut_setup<spec>, mut_run<spec>, mut_teardown};

#endif
