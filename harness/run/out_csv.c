/* out_csv.c — one CSV row per case, flushed as it completes. The file opens
 * with '#' lines of metadata (gnuplot and csv_read.c skip them). Times are
 * microseconds; `where` says whether the variant ran on the device or the
 * host (a KB_HOST variant). The column list is the schema that csv_read.c,
 * `kbench plot`, `report` and `compare` read, and that peers/ write. */
#include "printer.h"

#include <string.h>

const char *const kb_csv_columns[] = {
    "op",
    "variant",
    "params",
    "mode",
    "status",
    "reason",
    "samples",
    "median_us",
    "min_us",
    "max_us",
    "p10_us",
    "p90_us",
    "mean_us",
    "stddev_us",
    "noise_pct",
    "bytes",
    "flops",
    "gbps",
    "gflops",
    "pct_peak_bw",
    "pct_peak_flops",
    "workspace_bytes",
    "rel_l2",
    "max_abs",
    "max_rel",
    "tolerance",
    "deterministic",
    "throttled",
    "note",
    "dropped",
    "device",
    "pair",
    "where",
    "source",
    /* --timer kernels (ktime.h): CUPTI's kernel time per launch beside the
     * event time, empty where there is none (no CUPTI, a host or Python row) */
    "kernel_us",
    "kernel_p10_us",
    "kernel_p90_us",
    "span_us",
    "kernels",
    /* a host row's repeats (measure_host.c) and the spread of their medians */
    "repeats",
    "repeat_spread_pct",
    NULL,
};

/* Quote a field when it holds a comma, a quote or any control character
 * (RFC 4180 names CR and LF; a reader that ends lines at a lone CR, as
 * csv_read.c does, would split an unquoted one). A newline becomes a space,
 * so that each row stays one line for line-based tools (gnuplot, --resume's
 * copy, merge): params never hold one (sweep_spec.c refuses it), and a
 * reason or note loses nothing a reader needs. */
static int needs_quotes(const char *s) {
    for (; *s; s++)
        if (*s == ',' || *s == '"' || (unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

static void put_field(FILE *f, const char *s) {
    if (!needs_quotes(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_begin(kb_printer *p, const kb_meta *meta) {
    /* --resume: say who added the rows below; the header is there already,
     * unless it is of an older schema (fewer columns): then the current one
     * again, which csv_read.c takes as the header of the rows after it */
    kb_meta_print_lines(p->f, meta, p->append ? "# resumed: " : "# ");
    if (p->append && !p->new_header) {
        fflush(p->f);
        return;
    }
    for (int i = 0; kb_csv_columns[i]; i++) fprintf(p->f, "%s%s", i ? "," : "", kb_csv_columns[i]);
    fputc('\n', p->f);
    fflush(p->f);
}

static void csv_row(kb_printer *p, const kb_row *r) {
    FILE *f = p->f;
    const kb_stats *s = &r->stats;
    put_field(f, r->op);
    fputc(',', f);
    put_field(f, r->variant);
    fputc(',', f);
    put_field(f, r->params);
    fprintf(f, ",%s,%s,", kb_mode_name(r->mode), kb_status_name(r->status));
    put_field(f, r->reason);
    fprintf(f, ",%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.0f,%.0f,%.3f,%.3f,%.2f,%.2f,%zu,",
            s->n, s->median * 1e6, s->min * 1e6, s->max * 1e6, s->p10 * 1e6, s->p90 * 1e6,
            s->mean * 1e6, s->stddev * 1e6, s->noise * 100, r->cost.bytes, r->cost.flops, r->gbps,
            r->gflops, r->pct_peak_bw, r->pct_peak_flops, r->workspace_bytes);
    if (r->checked)
        fprintf(f, "%.3e,%.3e,%.3e,%.1e,", r->acc.rel_l2, r->acc.max_abs, r->acc.max_rel,
                r->acc.tolerance);
    else
        fputs(",,,,", f);
    fprintf(f, "%s,%d,", r->deterministic < 0 ? "" : r->deterministic ? "yes" : "no", r->throttled);
    put_field(f, r->acc.note);
    if (r->checked && r->acc.dropped >= 0)
        fprintf(f, ",%lld", (long long)r->acc.dropped);
    else
        fputc(',', f);
    fputc(',', f);
    put_field(f, r->device);
    fprintf(f, ",%d", r->pair);
    fprintf(f, ",%s,", r->flags & KB_HOST ? "host" : "device");
    put_field(f, r->source);
    if (r->kn > 0)
        fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%.2f", r->ksum_median * 1e6, r->ksum_p10 * 1e6,
                r->ksum_p90 * 1e6, r->kspan_median * 1e6, r->krecords);
    else
        fputs(",,,,,", f);
    if (r->repeats > 0)
        fprintf(f, ",%d,%.2f", r->repeats, r->repeat_spread * 100);
    else
        fputs(",,", f);
    fputc('\n', f);
    fflush(f);
}

static void csv_end(kb_printer *p) {
    fflush(p->f);
}

void kb_printer_csv(kb_printer *p) {
    p->begin = csv_begin;
    p->row = csv_row;
    p->end = csv_end;
}
