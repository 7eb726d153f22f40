/* cli.c — the table of subcommands (what they parse with: cli_opts.c). */
#include "cli.h"

#include <stddef.h>

const kb_command kb_commands[] = {
    {"list", kb_cmd_list, "ops, their axes, sweeps, tensors and variants", kb_list_opts},
    {"run", kb_cmd_run, "check and time variants over a sweep", kb_run_table},
    {"check", kb_cmd_run, "correctness only, over a sweep and random cases", kb_check_table},
    {"info", kb_cmd_info, "the device, its clocks and measured peaks", kb_info_opts},
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
