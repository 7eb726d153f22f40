/* main.c — kbench: correctness and honest timing of the hot kernels of
 * vision detection models. `kbench --help` lists the subcommands; each has
 * its own --help. Exit codes: cli.h (KB_EXIT_*) and README.md. */
#include "cli.h"

#include "run/row.h" /* kb_git_commit, kb_source_sha256 */

#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
    fputs("usage: kbench COMMAND [options]   (kbench COMMAND --help for each)\n\n", f);
    for (const kb_command *c = kb_commands; c->name; c++)
        fprintf(f, "  %-7s %s\n", c->name, c->summary);
    fputs("  --version  the git commit and the digest of the sources it was built from\n", f);
    fputs("\nexit codes: 0 every row PASS (or UNSUPPORTED); 1 a row FAILed, ERRORed, CRASHed or\n"
          "            TIMEd OUT; 2 bad usage or input; 3 no CUDA device (run, check); 4 runtime\n"
          "            error (an output file could not be written, a worker could not start, out\n"
          "            of host memory; plot and report: no gnuplot on PATH); 5 compare: a row\n"
          "            SLOWER, or PASS -> FAIL\n"
          "examples:\n"
          "  kbench list preprocess\n"
          "  kbench run preprocess --sweep default -o results/preprocess.csv --overwrite\n"
          "  kbench run preprocess -v bilinear_vec -a n=[1,8,16] -a interp=bilinear\n"
          "  kbench check all --fuzz 50\n",
          f);
}

int main(int argc, char **argv) {
    if (argc < 2 || kb_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? KB_EXIT_USAGE : KB_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("kbench %s\nsources sha256 %s (scripts/source-digest.sh)\n", kb_git_commit,
               kb_source_sha256[0] ? kb_source_sha256 : "unknown");
        return KB_EXIT_OK;
    }
    for (const kb_command *c = kb_commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0) return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "kbench: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return KB_EXIT_USAGE;
}
