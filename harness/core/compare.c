/* compare.c — dense output comparison by precision class.
 *
 * A row passes when rel-L2 = ||got - ref|| / ||ref|| is under its class's
 * bound AND the worst element is under a bound relative to the largest
 * reference magnitude: rel-L2 alone dilutes one wrong element among millions.
 * Unwritten elements (still holding the poison, every byte 0xFF) and NaN/Inf
 * where the reference is finite always fail, each named for what it is. A NaN
 * in the reference means "not computed" (a sampled reference) and is skipped.
 *
 *   class  rel-L2   max-abs / max|ref|   why
 *   f32    1e-5     1e-4                 fp32 arithmetic vs a double reference
 *   tf32   2e-3     2e-2                 10-bit mantissa operands (u = 4.9e-4)
 *   f16    2e-3     2e-2                 11-bit operands and/or f16 storage
 *   bf16   1e-2     5e-2                 8-bit operands (u = 3.9e-3)
 */
#include "kbench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    double rel_l2, max_abs_frac;
} bounds[] = {
    [KB_PREC_F32] = {1e-5, 1e-4},
    [KB_PREC_TF32] = {2e-3, 2e-2},
    [KB_PREC_F16] = {2e-3, 2e-2},
    [KB_PREC_BF16] = {1e-2, 5e-2},
};

kb_precision kb_case_precision(const kb_case *c, unsigned flags) {
    if (flags & KB_TF32) return KB_PREC_TF32;
    if (kb_axis_index(c->op, "dtype") >= 0) {
        const char *d = kb_str(c, "dtype");
        if (strcmp(d, "f16") == 0) return KB_PREC_F16;
        if (strcmp(d, "bf16") == 0) return KB_PREC_BF16;
    }
    return KB_PREC_F32;
}

void kb_accuracy_init(kb_accuracy *acc) {
    memset(acc, 0, sizeof *acc);
    acc->pass = 1;
    acc->dropped = -1;
}

double kb_rel_l2_bound(kb_precision prec) {
    return bounds[prec].rel_l2;
}

/* Element i still holds the runner's poison: every byte 0xFF. No arithmetic
 * produces that bit pattern (CUDA's canonical NaN is 0x7FFFFFFF, x86's
 * 0xFFC00000), so a NaN with other bits is one the variant computed. */
static int is_poison(const void *data, kb_dtype t, int64_t i) {
    size_t size = kb_dtype_size(t);
    const unsigned char *b = (const unsigned char *)data + (size_t)i * size;
    for (size_t k = 0; k < size; k++)
        if (b[k] != 0xFF) return 0;
    return 1;
}

void kb_compare_dense(const kb_tensor *ref, const kb_tensor *got, kb_precision prec,
                      kb_accuracy *acc) {
    int64_t n = kb_numel(ref);
    double num = 0, den = 0, max_abs = 0, max_rel = 0, ref_max = 0;
    int64_t unwritten = 0, nans = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double r = kb_load_as_double(ref->data, ref->dtype, i);
        double g = kb_load_as_double(got->data, got->dtype, i);
        if (isnan(r)) continue; /* a sampled reference marks what it did not compute */
        if (isnan(g)) {
            if (!acc->not_poisoned && is_poison(got->data, got->dtype, i))
                unwritten++;
            else
                nans++;
            continue;
        }
        if (!isfinite(g) && isfinite(r)) {
            bad++;
            continue;
        }
        double d = fabs(g - r);
        num += d * d;
        den += r * r;
        if (d > max_abs) max_abs = d;
        if (fabs(r) > ref_max) ref_max = fabs(r);
        double rel = d / (fabs(r) > 1e-30 ? fabs(r) : 1e-30);
        if (d > 0 && rel > max_rel) max_rel = rel;
    }
    double rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
    /* Several tensors accumulate into one accuracy: keep the worst. */
    if (rel_l2 > acc->rel_l2) acc->rel_l2 = rel_l2;
    if (max_abs > acc->max_abs) acc->max_abs = max_abs;
    if (max_rel > acc->max_rel) acc->max_rel = max_rel;
    acc->unwritten += unwritten;
    acc->nans += nans;
    acc->mismatches += bad;
    acc->tolerance = bounds[prec].rel_l2;
    int ok = unwritten == 0 && nans == 0 && bad == 0 && rel_l2 <= bounds[prec].rel_l2 &&
             max_abs <= bounds[prec].max_abs_frac * (ref_max > 0 ? ref_max : 1.0);
    if (!ok && acc->note[0] == '\0') {
        if (unwritten)
            snprintf(acc->note, sizeof acc->note, "%s: %lld of %lld elements never written",
                     ref->name, (long long)unwritten, (long long)n);
        else if (nans)
            snprintf(acc->note, sizeof acc->note, "%s: %lld of %lld element(s) are NaN", ref->name,
                     (long long)nans, (long long)n);
        else if (bad)
            snprintf(acc->note, sizeof acc->note, "%s: %lld infinite element(s)", ref->name,
                     (long long)bad);
        else
            snprintf(acc->note, sizeof acc->note,
                     "%s: rel-L2 %.3g (bound %.1g), max abs %.3g (bound %.3g)", ref->name, rel_l2,
                     bounds[prec].rel_l2, max_abs, bounds[prec].max_abs_frac * ref_max);
    }
    if (!ok) acc->pass = 0; /* the harness starts every check with pass = 1 */
}
