/* header.c — the run's '#' lines written and read back (header.h). */
#include "header.h"

#include "core/format.h" /* kb_format_visible */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void kb_header_print(FILE *f, const char *prefix, const kb_run_header *h) {
    fprintf(f, "%skbench %s | %s | host %s\n", prefix, h->commit, h->time, h->host);
    /* The command line holds what the user typed: a CR or LF in an argument
     * would end the '#' line early, and a reader take the rest for a row. */
    char command[4 * sizeof h->command];
    kb_format_visible(h->command, command, sizeof command);
    fprintf(f, "%scommand: %s\n", prefix, command);
    if (h->sources[0]) fprintf(f, "%ssources: sha256 %s\n", prefix, h->sources);
    if (h->shard[0]) fprintf(f, "%sshard: %s\n", prefix, h->shard);
    fprintf(f, "%shost cpu: %s%s%d OpenMP threads\n", prefix, h->cpu, h->cpu[0] ? ", " : "",
            h->omp_threads);
    if (h->l2_flush[0]) fprintf(f, "%sl2 flush: %s\n", prefix, h->l2_flush);
    if (h->interleave[0]) fprintf(f, "%sinterleave: %s\n", prefix, h->interleave);
}

static void copy_to(char *dst, size_t size, const char *src, size_t len) {
    while (len && (src[len - 1] == ' ' || src[len - 1] == '\n' || src[len - 1] == '\r')) len--;
    if (len >= size) len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* "MODEL, N OpenMP threads" or "N OpenMP threads". */
static int read_cpu(const char *s, kb_run_header *h) {
    const char *tail = strstr(s, " OpenMP threads");
    if (!tail) return 0;
    const char *num = tail;
    while (num > s && num[-1] >= '0' && num[-1] <= '9') num--;
    if (num == tail) return 0;
    h->omp_threads = atoi(num);
    size_t len = num - s >= 2 && num[-2] == ',' ? (size_t)(num - s - 2) : 0;
    copy_to(h->cpu, sizeof h->cpu, s, len);
    return 1;
}

int kb_header_read_line(const char *line, kb_run_header *h) {
    if (strncmp(line, "kbench ", 7) == 0 && strstr(line, " | ")) {
        const char *time = strstr(line, " | ") + 3, *host = strstr(time, " | ");
        copy_to(h->commit, sizeof h->commit, line + 7, (size_t)(time - 3 - (line + 7)));
        copy_to(h->time, sizeof h->time, time, host ? (size_t)(host - time) : strlen(time));
        if (host) {
            host += 3;
            if (strncmp(host, "host ", 5) == 0) host += 5;
            copy_to(h->host, sizeof h->host, host, strlen(host));
        }
        return 1;
    }
    static const struct {
        const char *key;
        size_t at, size;
    } text[] = {
        {"command: ", offsetof(kb_run_header, command), sizeof h->command},
        {"sources: sha256 ", offsetof(kb_run_header, sources), sizeof h->sources},
        {"shard: ", offsetof(kb_run_header, shard), sizeof h->shard},
        {"l2 flush: ", offsetof(kb_run_header, l2_flush), sizeof h->l2_flush},
        {"interleave: ", offsetof(kb_run_header, interleave), sizeof h->interleave},
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        size_t n = strlen(text[i].key);
        if (strncmp(line, text[i].key, n) != 0) continue;
        copy_to((char *)h + text[i].at, text[i].size, line + n, strlen(line + n));
        return 1;
    }
    if (strncmp(line, "host cpu: ", 10) == 0) return read_cpu(line + 10, h);
    return 0;
}
