/* cli.c — what every subcommand's option parsing shares: --help, usage
 * errors that name the command, numeric option values checked against
 * their range, and the table of subcommands. */
#include "cli.h"

#include "kbench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const kb_command kb_commands[] = {
    {"list", kb_cmd_list, "ops, their axes, sweeps, tensors and variants", kb_list_opts},
    {"run", kb_cmd_run, "check and time variants over a sweep", kb_run_table},
    {"check", kb_cmd_run, "correctness only, over a sweep and random cases", kb_check_table},
    {"info", kb_cmd_info, "the device, its clocks and measured peaks", NULL},
    {"plot", kb_cmd_plot, "draw a results CSV with gnuplot (PNG + SVG)", kb_plot_opts_table},
    {"report", kb_cmd_report, "Markdown + HTML report of results CSVs, plots embedded",
     kb_report_opts},
    {"compare", kb_cmd_compare, "judge two results CSVs: FASTER / SLOWER / SAME / UNSURE",
     kb_compare_opts},
    {"merge", kb_cmd_merge, "join the CSVs of run --shard I/N into the sweep's one file",
     kb_merge_opts},
    {"verify", kb_cmd_verify, "judge another program's outputs on a --dump case (peers/)",
     kb_verify_opts},
    {NULL, NULL, NULL, NULL},
};

int kb_is_help(const char *a) {
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

int kb_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "kbench %s: error: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see: kbench %s --help)\n", cmd);
    va_end(ap);
    return KB_EXIT_USAGE;
}

int kb_opt_int(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out) {
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || x < lo || x > hi) {
        kb_usage_error(cmd, "%s %s: expected an integer in [%ld, %ld]", opt, v ? v : "(missing)",
                       lo, hi);
        return KB_ERR;
    }
    *out = x;
    return KB_OK;
}

int kb_opt_double(const char *cmd, const char *opt, const char *v, double lo, double hi,
                  double *out) {
    char *end;
    double x = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || !(x >= lo && x <= hi)) {
        kb_usage_error(cmd, "%s %s: expected a number in [%g, %g]", opt, v ? v : "(missing)", lo,
                       hi);
        return KB_ERR;
    }
    *out = x;
    return KB_OK;
}
