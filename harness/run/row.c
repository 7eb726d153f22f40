/* row.c — result rows: status names, and the metadata every output file
 * records (kb_meta), as the '#' lines the printers open with. */
#define _POSIX_C_SOURCE 200809L
#include "row.h"

#include "loaded.h"
#include "core/format.h"

#include <omp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void kb_row_result(const kb_row *r, kb_result *out) {
    const kb_stats *s = &r->stats;
    kb_result_init(out);
    snprintf(out->op, sizeof out->op, "%s", r->op);
    snprintf(out->variant, sizeof out->variant, "%s", r->variant);
    snprintf(out->params, sizeof out->params, "%s", r->params);
    snprintf(out->mode, sizeof out->mode, "%s", kb_mode_name(r->mode));
    out->status = r->status;
    snprintf(out->reason, sizeof out->reason, "%s", r->reason);
    out->samples = s->n;
    out->median_us = s->median * 1e6;
    out->min_us = s->min * 1e6;
    out->max_us = s->max * 1e6;
    out->p10_us = s->p10 * 1e6;
    out->p90_us = s->p90 * 1e6;
    out->mean_us = s->mean * 1e6;
    out->stddev_us = s->stddev * 1e6;
    out->noise_pct = s->noise * 100;
    out->bytes = r->cost.bytes;
    out->flops = r->cost.flops;
    out->gbps = r->gbps;
    out->gflops = r->gflops;
    out->pct_peak_bw = r->pct_peak_bw;
    out->pct_peak_flops = r->pct_peak_flops;
    out->workspace_bytes = (double)r->workspace_bytes;
    if (r->checked) {
        out->rel_l2 = r->acc.rel_l2;
        out->max_abs = r->acc.max_abs;
        out->max_rel = r->acc.max_rel;
        out->tolerance = r->acc.tolerance;
        if (r->acc.dropped >= 0) out->dropped = (double)r->acc.dropped;
    }
    out->deterministic = r->deterministic < 0 ? -1 : r->deterministic != 0;
    out->throttled = r->throttled;
    snprintf(out->note, sizeof out->note, "%s", r->acc.note);
    snprintf(out->device, sizeof out->device, "%s", r->device);
    out->pair = r->pair;
    snprintf(out->where, sizeof out->where, "%s", r->flags & KB_HOST ? "host" : "device");
    snprintf(out->source, sizeof out->source, "%s", r->source);
    out->forced = r->forced != 0;
    out->peer = r->peer != 0;
    out->interleaved = r->interleaved != 0;
    if (r->kn > 0) {
        out->kernel_us = r->ksum_median * 1e6;
        out->kernel_p10_us = r->ksum_p10 * 1e6;
        out->kernel_p90_us = r->ksum_p90 * 1e6;
        out->span_us = r->kspan_median * 1e6;
        out->kernels = r->krecords;
    }
    if (r->repeats > 0) {
        out->repeats = r->repeats;
        out->repeat_spread_pct = r->repeat_spread * 100;
    }
}

/* The first "model name" of /proc/cpuinfo (Linux); "" where there is none. */
static void cpu_model(char *buf, size_t n) {
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            const char *v = strchr(line, ':') + 1;
            v += strspn(v, " \t");
            snprintf(buf, n, "%.*s", (int)strcspn(v, "\n"), v);
            break;
        }
    fclose(f);
}

void kb_meta_init(kb_meta *meta, const kb_device *dev, int argc, char **argv) {
    memset(meta, 0, sizeof *meta);
    meta->dev = dev;
    meta->ndev = dev ? 1 : 0;
    snprintf(meta->run.commit, sizeof meta->run.commit, "%s", kb_git_commit);
    snprintf(meta->run.sources, sizeof meta->run.sources, "%s", kb_source_sha256);
    meta->sm_clock_now_mhz = -1; /* the caller reads it where the device is open */
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof meta->run.command; i++)
        used += (size_t)snprintf(meta->run.command + used, sizeof meta->run.command - used, "%s%s",
                                 i ? " " : "", argv[i]);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(meta->run.time, sizeof meta->run.time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(meta->run.host, sizeof meta->run.host) != 0)
        snprintf(meta->run.host, 8, "unknown");
    meta->run.omp_threads = omp_get_max_threads();
    cpu_model(meta->run.cpu, sizeof meta->run.cpu);
}

void kb_meta_print_lines(FILE *f, const kb_meta *m, const char *prefix) {
    kb_header_print(f, prefix, &m->run);
    kb_loaded_meta_lines(f, prefix);
    for (int i = 0; m->dev && i < m->ndev; i++) {
        const kb_device *d = &m->dev[i];
        fprintf(f,
                "%sgpu: %s (%s) cc %d.%d, %d SMs, L2 %.0f MiB | driver %d.%d runtime %d.%d | "
                "clocks max SM %d MHz mem %d MHz, SM now %d MHz | peaks: copy %.0f GB/s, "
                "sgemm %.0f GFLOP/s\n",
                prefix, d->name, d->uuid, d->cc_major, d->cc_minor, d->sm_count,
                d->l2_bytes / 1048576.0, d->driver_version / 1000, (d->driver_version % 1000) / 10,
                d->runtime_version / 1000, (d->runtime_version % 1000) / 10, d->sm_clock_mhz,
                d->mem_clock_mhz, m->sm_clock_now_mhz, d->peak_copy_gbps, d->peak_sgemm_gflops);
        kb_header_print_peaks(f, prefix, d->uuid, d->peak_copy_gbps, d->peak_sgemm_gflops);
    }
}
