/* cli.h — the subcommands of the kbench program (one file each). */
#ifndef KB_CLI_H
#define KB_CLI_H

#include "harness.h"

int kb_cmd_list(int argc, char **argv);
int kb_cmd_run(int argc, char **argv); /* run and check */
int kb_cmd_info(int argc, char **argv);
int kb_cmd_plot(int argc, char **argv);
int kb_cmd_report(int argc, char **argv); /* results read back (csv_read.c) */
int kb_cmd_compare(int argc, char **argv);
int kb_cmd_verify(int argc, char **argv); /* a peer's .npy outputs against a --dump case */

/* "error: ..." on stderr, a hint to --help, and KB_EXIT_USAGE. */
int kb_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int kb_is_help(const char *arg);
/* Parse a whole number / real option value; the error names the option. */
int kb_opt_int(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);
int kb_opt_double(const char *cmd, const char *opt, const char *v, double lo, double hi,
                  double *out);

#endif
