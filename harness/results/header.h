/* header.h — the run's facts that head every results file, as one struct:
 * the writers print it as '#' lines (kb_header_print, through
 * kb_meta_print_lines) and the reader reads the same lines back into it
 * (kb_header_read_line, results/csv_read.c), so that the two cannot drift.
 * A device's lines ("gpu: ...", "peaks: ...") follow it, one per device. */
#ifndef KB_RESULTS_HEADER_H
#define KB_RESULTS_HEADER_H

#include <stdio.h>

typedef struct kb_run_header {
    char commit[64];     /* the kbench build ("kbench COMMIT | ...") */
    char sources[80];    /* the build's sources, SHA-256 hex (source-digest.sh); "" */
    char time[64];       /* when the run began, ISO 8601 UTC */
    char host[128];      /* the machine's host name */
    char command[2048];  /* the command line, as typed */
    char shard[256];     /* --shard: "I/N of OP: K of the sweep's P pairs, sweep HASH"; "" */
    char cpu[128];       /* what host rows and the CPU references ran on; "" unknown */
    int omp_threads;     /* omp_get_max_threads() of the run; 0 not said */
    char l2_flush[16];   /* how cold mode emptied L2 (kb_flush_name); "" nothing flushed */
    char interleave[96]; /* --interleave: "yes (...)"; "" the variants were timed one by one */
} kb_run_header;

/* The interleave line's text (kb_run_header.interleave) of a --interleave run. */
#define KB_INTERLEAVE_FACT "yes (a case's variants timed in turns: one sample of each per round)"

/* h as '#' lines, each after prefix ("# " in a CSV, "> " in Markdown). */
void kb_header_print(FILE *f, const char *prefix, const kb_run_header *h);
/* One '#' line's text (without "# ") read into h where it is one of
 * kb_header_print's lines: 1, else 0 and h as it was. */
int kb_header_read_line(const char *line, kb_run_header *h);

#endif
