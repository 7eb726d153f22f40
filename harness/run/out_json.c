/* out_json.c — JSON lines: a first line of metadata, then one object per row
 * with the columns of results/result.h and the raw samples (microseconds). */
#include "printer.h"

#include "loaded.h"

#include <string.h>

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
    kb_json_put_str(f, m->run.commit);
    if (m->run.sources[0]) {
        fputs(",\"kbench_sources_sha256\":", f);
        kb_json_put_str(f, m->run.sources);
    }
    fputs(",\"command\":", f);
    kb_json_put_str(f, m->run.command);
    fputs(",\"time\":", f);
    kb_json_put_str(f, m->run.time);
    fputs(",\"host\":", f);
    kb_json_put_str(f, m->run.host);
    if (m->run.shard[0]) {
        fputs(",\"shard\":", f);
        kb_json_put_str(f, m->run.shard);
    }
    fprintf(f, ",\"omp_threads\":%d", m->run.omp_threads);
    if (m->run.l2_flush[0]) {
        fputs(",\"l2_flush\":", f);
        kb_json_put_str(f, m->run.l2_flush);
    }
    if (m->run.interleave[0]) {
        fputs(",\"interleave\":", f);
        kb_json_put_str(f, m->run.interleave);
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

/* Every column of results/result.h under its name, as the CSV spells it:
 * text and status as strings, yes/no as true/false, numbers bare; a field
 * the CSV leaves empty (a NAN number, an unknown yes/no) is left out. */
static void json_row(kb_printer *p, const kb_row *r) {
    FILE *f = p->f;
    kb_result res;
    char text[sizeof res.reason];
    kb_row_result(r, &res);
    for (int c = 0; c < KB_NCOLUMNS; c++) {
        const kb_column *col = &kb_columns[c];
        kb_result_field(&res, c, text, sizeof text);
        if (!text[0] && (col->type == KB_COL_NUMBER || col->type == KB_COL_YESNO)) continue;
        fprintf(f, "%s\"%s\":", c ? "," : "{", col->name);
        if (col->type == KB_COL_NUMBER)
            fputs(text, f);
        else if (col->type == KB_COL_YESNO)
            fputs(strcmp(text, "yes") == 0 ? "true" : "false", f);
        else
            kb_json_put_str(f, text);
    }
    fputs(",\"samples_us\":[", f);
    for (int i = 0; i < r->stats.n && r->samples; i++)
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
