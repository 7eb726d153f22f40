/* host_device.c — "CPU or GPU at this size?" (host_device.h): the fastest
 * host and device variants per case, the cases where both ran as a view of
 * two variants (so that kb_along and plot_along lay them out as they do any
 * view), and the crossover read along an axis of it.
 */
#include "host_device.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kb_view_ranked(const kb_op_view *v, int k) {
    if (v->variant_peer[k]) return 0;
    const kb_variant *var = kb_find_variant(v->op, v->variants[k]);
    return !var || !(var->flags & (KB_INEXACT | KB_TEST_ONLY));
}

int kb_view_ship(const kb_op_view *v, int c, int *second) {
    int best = -1, next = -1;
    for (int k = 0; k < v->nvariants; k++) {
        const kb_result *r = kb_view_cell(v, c, k);
        if (!kb_view_ranked(v, k) || !r || r->status != KB_ROW_PASS || !(r->median_us > 0))
            continue;
        double t = r->median_us;
        if (best < 0 || t < kb_view_cell(v, c, best)->median_us) {
            next = best;
            best = k;
        } else if (next < 0 || t < kb_view_cell(v, c, next)->median_us) {
            next = k;
        }
    }
    if (second) *second = next;
    return best;
}

int kb_result_on_host(const kb_result *r) {
    return r && strcmp(r->where, "host") == 0;
}

/* The fastest ranked variant that PASSed on case c, on the host or not; -1. */
static int fastest(const kb_op_view *v, int c, int host) {
    int best = -1;
    for (int k = 0; k < v->nvariants; k++) {
        const kb_result *r = kb_view_cell(v, c, k);
        if (!kb_view_ranked(v, k) || !r || r->status != KB_ROW_PASS || !(r->median_us > 0) ||
            kb_result_on_host(r) != host)
            continue;
        if (best < 0 || r->median_us < kb_view_cell(v, c, best)->median_us) best = k;
    }
    return best;
}

void kb_host_device_free(kb_host_device *hd) {
    free(hd->host);
    free(hd->device);
    free(hd->has_host);
    free(hd->both.variants);
    free(hd->both.variant_rank);
    free(hd->both.variant_peer);
    free(hd->both.cases);
    free(hd->both.bytes);
    free(hd->both.cells);
    kb_along_free(&hd->along);
    memset(hd, 0, sizeof *hd);
}

/* The case of `both` at position i of panel p of hd->along; -1 when none. */
static int case_at(const kb_host_device *hd, int p, int i) {
    for (int c = 0; c < hd->both.ncases; c++)
        if (hd->along.case_panel[c] == p && hd->along.case_x[c] == i) return c;
    return -1;
}

static int panel_cases(const kb_host_device *hd, int p) {
    int n = 0;
    for (int i = 0; i < hd->along.nx; i++) n += case_at(hd, p, i) >= 0;
    return n;
}

/* A trend needs a panel where two cases lie along the axis. */
static int joins_cases(const kb_host_device *hd) {
    for (int p = 0; p < hd->along.npanels; p++)
        if (panel_cases(hd, p) >= 2) return 1;
    return 0;
}

int kb_host_device_build(const kb_op_view *v, const char *along, kb_host_device *hd, kb_error *e) {
    static const char *const series[2] = {"CPU: fastest host variant",
                                          "GPU: fastest device variant"};
    memset(hd, 0, sizeof *hd);
    size_t nc = (size_t)v->ncases + 1;
    hd->host = calloc(nc, sizeof *hd->host);
    hd->device = calloc(nc, sizeof *hd->device);
    hd->has_host = calloc(nc, sizeof *hd->has_host);
    kb_op_view *b = &hd->both;
    b->variants = calloc(2, sizeof *b->variants);
    b->variant_rank = calloc(2, sizeof *b->variant_rank);
    b->variant_peer = calloc(2, sizeof *b->variant_peer); /* the two series are ours */
    b->cases = calloc(nc, sizeof *b->cases);
    b->bytes = calloc(nc, sizeof *b->bytes);
    b->cells = calloc(2 * nc, sizeof *b->cells);
    if (!hd->host || !hd->device || !hd->has_host || !b->variants || !b->variant_rank ||
        !b->variant_peer || !b->cases || !b->bytes || !b->cells) {
        kb_host_device_free(hd);
        return kb_fail(e, "out of host memory comparing %s's host and device rows", v->op);
    }
    snprintf(b->op, sizeof b->op, "%s", v->op);
    snprintf(b->mode, sizeof b->mode, "%s", v->mode);
    b->def = v->def;
    b->mode_in_name = v->mode_in_name;
    b->first_file = v->first_file;
    b->nvariants = 2;
    for (int k = 0; k < 2; k++) {
        b->variants[k] = series[k];
        b->variant_rank[k] = k;
    }
    for (int c = 0; c < v->ncases; c++) {
        /* A peer on the CPU (OpenCV) is not one of ours: it makes no section. */
        for (int k = 0; k < v->nvariants; k++)
            hd->has_host[c] |= !v->variant_peer[k] && kb_result_on_host(kb_view_cell(v, c, k));
        hd->any |= hd->has_host[c];
        hd->host[c] = fastest(v, c, 1);
        hd->device[c] = fastest(v, c, 0);
        if (hd->host[c] < 0 || hd->device[c] < 0) continue;
        b->cases[b->ncases] = v->cases[c];
        b->bytes[b->ncases] = v->bytes[c];
        b->cells[2 * b->ncases] = kb_view_cell(v, c, hd->host[c]);
        b->cells[2 * b->ncases + 1] = kb_view_cell(v, c, hd->device[c]);
        b->ncases++;
    }
    /* The axis asked for where it lays out the cases of both; else the one
     * that joins the most of them. */
    if (along && kb_view_has_axis(b, along) && kb_along_build(b, along, &hd->along, NULL) == KB_OK)
        hd->has_along = joins_cases(hd);
    if (!hd->has_along) {
        kb_along_free(&hd->along);
        hd->has_along = hd->any && kb_along_pick_joined(b, &hd->along);
    }
    return KB_OK;
}

double kb_host_device_ratio(const kb_host_device *hd, int c) {
    return kb_view_cell(&hd->both, c, 0)->median_us / kb_view_cell(&hd->both, c, 1)->median_us;
}

void kb_host_device_verdict(double ratio, char *buf, size_t n) {
    double f = ratio < 1 ? 1 / ratio : ratio;
    snprintf(buf, n, f < 10 ? "%s %.2f× faster" : "%s %.0f× faster", ratio < 1 ? "CPU" : "GPU", f);
}

static void append(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void append(char *buf, size_t n, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, n - used, fmt, ap);
    va_end(ap);
}

/* "n=1000" for a number; a categorical position names itself
 * ("segments=rpn5", "img_h=512 img_w=512"). */
static void position(const kb_along *a, int i, char *buf, size_t n) {
    if (a->numeric)
        snprintf(buf, n, "%s=%s", a->axis, a->xlabel[i]);
    else
        snprintf(buf, n, "%s", a->xlabel[i]);
}

int kb_host_device_along(const kb_host_device *hd, int p, char *buf, size_t n) {
    const kb_along *a = &hd->along;
    buf[0] = '\0';
    if (panel_cases(hd, p) < 2) return -1;
    /* The runs of one winner, in the axis's order. */
    int run_start = -1, prev = -1, changes = 0, cpu_run = 0;
    char from[KB_ALONG_LABEL + 64], to[KB_ALONG_LABEL + 64], between[1024] = "";
    for (int i = 0; i <= a->nx; i++) {
        int c = i < a->nx ? case_at(hd, p, i) : -1;
        if (i < a->nx && c < 0) continue;
        int cpu = c >= 0 && kb_host_device_ratio(hd, c) < 1;
        if (run_start >= 0 && (c < 0 || cpu != cpu_run)) {
            position(a, run_start, from, sizeof from);
            position(a, prev, to, sizeof to);
            if (c >= 0 || changes)
                append(buf, n, "%s%s faster %s %s%s%s", changes ? "; " : "",
                       cpu_run ? "CPU" : "GPU", prev == run_start ? "at" : "from", from,
                       prev == run_start ? "" : " to ", prev == run_start ? "" : to);
            else
                append(buf, n, "%s faster at every %s measured (from %s to %s)",
                       cpu_run ? "CPU" : "GPU", a->axis, from, to);
            if (c >= 0) {
                char next[KB_ALONG_LABEL + 64];
                position(a, i, next, sizeof next);
                append(between, sizeof between, "%s%s and %s", changes ? ", and between " : "", to,
                       next);
                changes++;
            }
            run_start = -1;
        }
        if (c < 0) break;
        if (run_start < 0) {
            run_start = i;
            cpu_run = cpu;
        }
        prev = i;
    }
    if (changes) append(buf, n, " (the winner changes between %s)", between);
    return changes;
}
