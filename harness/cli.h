/* cli.h — the kbench program: its subcommands (one cli_<command>.c each:
 * list, info and merge here, run and verify in run/, plot, report and compare
 * in analysis/; their table in cli.c), and the options they share. Exit codes
 * and the option tables they parse with: cli_opts.h. */
#ifndef KB_CLI_H
#define KB_CLI_H

#include "cli_opts.h"

int kb_cmd_list(int argc, char **argv);
int kb_cmd_run(int argc, char **argv); /* run and check */
int kb_cmd_info(int argc, char **argv);
int kb_cmd_plot(int argc, char **argv);
int kb_cmd_report(int argc, char **argv); /* results read back (results/csv_read.c) */
int kb_cmd_compare(int argc, char **argv);
int kb_cmd_merge(int argc, char **argv);  /* the parts of run --shard, one file */
int kb_cmd_verify(int argc, char **argv); /* a peer's .npy outputs against a --dump case */

/* The subcommands, in --help's order (cli.c); opts: the command's option
 * table (cli_opts.h), that its parser and its --help both read; NULL for
 * a command that parses its arguments itself. */
typedef struct kb_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
    const kb_opt *opts;
} kb_command;
extern const kb_command kb_commands[];
extern const kb_opt kb_list_opts[], kb_info_opts[], kb_run_table[], kb_check_table[],
    kb_compare_opts[], kb_merge_opts[], kb_verify_opts[], kb_plot_opts_table[], kb_report_opts[];

/* --plugin, --py, --python, --peers (cli_ext.c): what run, check and list share. */
enum { KB_EXT_MAX = 32 };
typedef struct kb_ext_args {
    const char *plugins[KB_EXT_MAX], *pys[KB_EXT_MAX];
    int nplugins, npys;
    const char *python; /* NULL: python3 */
    int peers;
} kb_ext_args;
/* Their rows of a command's option table, T's field f the kb_ext_args. */
int kb_ext_set(const kb_opt *o, void *dst, const char *v, kb_error *e);
#define KB_EXT_OPTS(T, f)                                                                          \
    KB_OPT_HEAD("variants from outside the tree (docs/plugins.md, docs/python.md):"),              \
        {"--plugin",                                                                               \
         "PATH.so",                                                                                \
         "load a C/CUDA plugin's variants (repeatable): a shared library\n"                        \
         "exporting kb_plugin_entry (KB_PLUGIN(rows), include/kbench/);\n"                         \
         "refused (exit 2) when it is not one, lacks the entry, was built\n"                       \
         "for another ABI major, or names a variant that exists already",                          \
         kb_ext_set,                                                                               \
         offsetof(T, f),                                                                           \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
        {"--py",                                                                                   \
         "FILE.py",                                                                                \
         "the variants of a Python file's KBENCH dict (repeatable), run\n"                         \
         "by a Python worker that kbench starts, on the same inputs,\n"                            \
         "timed by the same rules and judged by the same check",                                   \
         kb_ext_set,                                                                               \
         offsetof(T, f),                                                                           \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
        {"--python",                                                                               \
         "PATH",                                                                                   \
         "the interpreter for --py and --peers (default python3)",                                 \
         kb_ext_set,                                                                               \
         offsetof(T, f),                                                                           \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
    {                                                                                              \
        "--peers", NULL,                                                                           \
            "also run the peers: the library files of peers/ (torchvision,\n"                      \
            "PyTorch, torch.compile, OpenCV, CV-CUDA, kornia), rows\n"                             \
            "named peer:NAME",                                                                     \
            kb_ext_set, offsetof(T, f), 0, 0, NULL                                                 \
    }
/* Loads them, in the parent: KB_EXIT_OK or KB_EXIT_USAGE (said). */
int kb_ext_load(const char *cmd, const kb_ext_args *x);
int kb_ext_any(const kb_ext_args *x);

#endif
