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

static const char *const status_names[] = {"PASS",  "FAIL",    "UNSUPPORTED", "ERROR",
                                           "CRASH", "TIMEOUT", "UNCHECKED"};

const char *kb_status_name(kb_status s) {
    return status_names[s];
}

int kb_status_parse(const char *s, kb_status *st) {
    for (int i = 0; i <= KB_ROW_UNCHECKED; i++)
        if (strcmp(s, status_names[i]) == 0) {
            *st = (kb_status)i;
            return KB_OK;
        }
    return KB_ERR;
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
    meta->commit = kb_git_commit;
    meta->sm_clock_now_mhz = -1; /* the caller reads it where the device is open */
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof meta->command; i++)
        used += (size_t)snprintf(meta->command + used, sizeof meta->command - used, "%s%s",
                                 i ? " " : "", argv[i]);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(meta->time, sizeof meta->time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(meta->host, sizeof meta->host) != 0) snprintf(meta->host, 8, "unknown");
    meta->omp_threads = omp_get_max_threads();
    cpu_model(meta->cpu, sizeof meta->cpu);
}

void kb_meta_print_lines(FILE *f, const kb_meta *m, const char *prefix) {
    fprintf(f, "%skbench %s | %s | host %s\n", prefix, m->commit, m->time, m->host);
    /* The command line holds what the user typed: a CR or LF in an argument
     * would end the '#' line early, and a reader take the rest for a row. */
    char command[4 * sizeof m->command];
    kb_format_visible(m->command, command, sizeof command);
    fprintf(f, "%scommand: %s\n", prefix, command);
    if (m->shard[0]) fprintf(f, "%sshard: %s\n", prefix, m->shard);
    fprintf(f, "%shost cpu: %s%s%d OpenMP threads\n", prefix, m->cpu, m->cpu[0] ? ", " : "",
            m->omp_threads);
    if (m->l2_flush[0]) fprintf(f, "%sl2 flush: %s\n", prefix, m->l2_flush);
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
    }
}
