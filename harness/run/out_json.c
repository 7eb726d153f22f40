/* out_json.c — JSON lines: a first line of metadata, then one object per row
 * with every statistic and the raw samples (microseconds). */
#include "printer.h"

#include "loaded.h"

void kb_json_put_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_begin(kb_printer *p, const kb_meta *m) {
    FILE *f = p->f;
    fputs("{\"meta\":{\"kbench_commit\":", f);
    kb_json_put_str(f, m->commit);
    fputs(",\"command\":", f);
    kb_json_put_str(f, m->command);
    fputs(",\"time\":", f);
    kb_json_put_str(f, m->time);
    fputs(",\"host\":", f);
    kb_json_put_str(f, m->host);
    if (m->shard[0]) {
        fputs(",\"shard\":", f);
        kb_json_put_str(f, m->shard);
    }
    fprintf(f, ",\"omp_threads\":%d", m->omp_threads);
    if (m->l2_flush[0]) {
        fputs(",\"l2_flush\":", f);
        kb_json_put_str(f, m->l2_flush);
    }
    if (m->dev) {
        const kb_device *d = m->dev;
        fputs(",\"gpu\":", f);
        kb_json_put_str(f, d->name);
        fputs(",\"uuid\":", f);
        kb_json_put_str(f, d->uuid);
        fprintf(f,
                ",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%zu,\"mem_bytes\":%zu,"
                "\"sm_clock_max_mhz\":%d,\"mem_clock_max_mhz\":%d,\"sm_clock_now_mhz\":%d,"
                "\"driver\":%d,\"runtime\":%d,\"peak_copy_gbps\":%.1f,"
                "\"peak_sgemm_gflops\":%.1f",
                d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes, d->mem_bytes, d->sm_clock_mhz,
                d->mem_clock_mhz, m->sm_clock_now_mhz, d->driver_version, d->runtime_version,
                d->peak_copy_gbps, d->peak_sgemm_gflops);
        /* Every GPU of the run; rows name theirs by UUID ("device"). */
        fputs(",\"devices\":[", f);
        for (int i = 0; i < m->ndev; i++) {
            fputs(i ? ",{\"gpu\":" : "{\"gpu\":", f);
            kb_json_put_str(f, m->dev[i].name);
            fputs(",\"uuid\":", f);
            kb_json_put_str(f, m->dev[i].uuid);
            fputc('}', f);
        }
        fputc(']', f);
    }
    /* The plugins and Python files whose variants are in the table. */
    fputs(",\"sources\":[", f);
    for (int i = 0; i < kb_sources_count(); i++) {
        const kb_source *src = kb_source_at(i);
        fputs(i ? ",{\"source\":" : "{\"source\":", f);
        kb_json_put_str(f, src->label);
        fprintf(f, ",\"sha256\":\"%s\",\"path\":", src->sha256);
        kb_json_put_str(f, src->path);
        fputc('}', f);
    }
    fputs("]}}\n", f);
    fflush(f);
}

static void json_row(kb_printer *p, const kb_row *r) {
    FILE *f = p->f;
    const kb_stats *s = &r->stats;
    fputs("{\"op\":", f);
    kb_json_put_str(f, r->op);
    fputs(",\"variant\":", f);
    kb_json_put_str(f, r->variant);
    fputs(",\"params\":", f);
    kb_json_put_str(f, r->params);
    fprintf(f, ",\"mode\":\"%s\",\"status\":\"%s\",\"reason\":", kb_mode_name(r->mode),
            kb_status_name(r->status));
    kb_json_put_str(f, r->reason);
    fprintf(f,
            ",\"samples\":%d,\"median_us\":%.4f,\"min_us\":%.4f,\"max_us\":%.4f,\"p10_us\":%.4f,"
            "\"p90_us\":%.4f,\"mean_us\":%.4f,\"stddev_us\":%.4f,\"noise_pct\":%.3f,"
            "\"bytes\":%.0f,\"flops\":%.0f,\"gbps\":%.3f,\"gflops\":%.3f,\"pct_peak_bw\":%.2f,"
            "\"pct_peak_flops\":%.2f,\"workspace_bytes\":%zu,\"throttled\":%d",
            s->n, s->median * 1e6, s->min * 1e6, s->max * 1e6, s->p10 * 1e6, s->p90 * 1e6,
            s->mean * 1e6, s->stddev * 1e6, s->noise * 100, r->cost.bytes, r->cost.flops, r->gbps,
            r->gflops, r->pct_peak_bw, r->pct_peak_flops, r->workspace_bytes, r->throttled);
    if (r->checked)
        fprintf(f, ",\"rel_l2\":%.4e,\"max_abs\":%.4e,\"max_rel\":%.4e,\"tolerance\":%.1e",
                r->acc.rel_l2, r->acc.max_abs, r->acc.max_rel, r->acc.tolerance);
    if (r->deterministic >= 0)
        fprintf(f, ",\"deterministic\":%s", r->deterministic ? "true" : "false");
    fputs(",\"note\":", f);
    kb_json_put_str(f, r->acc.note);
    if (r->checked && r->acc.dropped >= 0)
        fprintf(f, ",\"dropped\":%lld", (long long)r->acc.dropped);
    fputs(",\"device\":", f);
    kb_json_put_str(f, r->device);
    fprintf(f, ",\"pair\":%d", r->pair);
    fprintf(f, ",\"where\":\"%s\"", r->flags & KB_HOST ? "host" : "device");
    fputs(",\"source\":", f);
    kb_json_put_str(f, r->source);
    if (r->kn > 0)
        fprintf(f,
                ",\"kernel_us\":%.4f,\"kernel_p10_us\":%.4f,\"kernel_p90_us\":%.4f,"
                "\"span_us\":%.4f,\"kernels\":%.2f",
                r->ksum_median * 1e6, r->ksum_p10 * 1e6, r->ksum_p90 * 1e6, r->kspan_median * 1e6,
                r->krecords);
    if (r->repeats > 0)
        fprintf(f, ",\"repeats\":%d,\"repeat_spread_pct\":%.2f", r->repeats,
                r->repeat_spread * 100);
    fputs(",\"samples_us\":[", f);
    for (int i = 0; i < s->n && r->samples; i++)
        fprintf(f, "%s%.4f", i ? "," : "", r->samples[i] * 1e6);
    fputs("]}\n", f);
    fflush(f);
}

static void json_end(kb_printer *p) {
    fflush(p->f);
}

void kb_printer_json(kb_printer *p) {
    p->begin = json_begin;
    p->row = json_row;
    p->end = json_end;
}
