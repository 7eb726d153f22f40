/* main.c — kbench: correctness and honest timing of the hot kernels of
 * vision detection models. `kbench --help` lists the subcommands; each has
 * its own --help. Exit codes: cli.h (KB_EXIT_*) and README.md. */
#include "cli.h"

#include "run/row.h" /* kb_git_commit */

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"list", kb_cmd_list, "ops, their axes, sweeps, tensors and variants"},
    {"run", kb_cmd_run, "check and time variants over a sweep"},
    {"check", kb_cmd_run, "correctness only, over a sweep and random cases"},
    {"info", kb_cmd_info, "the device, its clocks and measured peaks"},
    {"plot", kb_cmd_plot, "draw a results CSV with gnuplot (PNG + SVG)"},
    {"report", kb_cmd_report, "Markdown + HTML report of results CSVs, plots embedded"},
    {"compare", kb_cmd_compare, "judge two results CSVs: FASTER / SLOWER / SAME / UNSURE"},
    {"merge", kb_cmd_merge, "join the CSVs of run --shard I/N into the sweep's one file"},
    {"verify", kb_cmd_verify, "judge another program's outputs on a --dump case (peers/)"},
};

static void usage(FILE *f) {
    fputs("usage: kbench COMMAND [options]   (kbench COMMAND --help for each)\n\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].summary);
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
        printf("kbench %s\n", kb_git_commit);
        return KB_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "kbench: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return KB_EXIT_USAGE;
}
