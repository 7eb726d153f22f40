/* cli_plot.c — `kbench plot FILE.csv` (being written). */
#include "cli.h"

int kb_cmd_plot(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return kb_usage_error("plot", "not available in this build");
}
