/* cli_opts.h — a command's options declared once: one table of (names,
 * argument, help, setter) rows that both the parser and --help read.
 *
 * The parser takes "--opt value" and "--opt=value" alike, "-o value" for a
 * short name, "--" to end the options, and hands every other argument to the
 * command's positional callback. A missing or malformed value, an unknown
 * option, or "=value" on a switch is one line on stderr that names the
 * option (kb_usage_error), and KB_EXIT_USAGE. The program's exit codes and
 * the usage-error helpers every subcommand shares are declared here too.
 */
#ifndef KB_CLI_OPTS_H
#define KB_CLI_OPTS_H

#include "kbench/error.h"

#include <stddef.h>
#include <stdio.h>

/* Exit codes of the kbench program (README "Exit codes"). */
enum {
    KB_EXIT_OK = 0,        /* every row PASS (or UNSUPPORTED) */
    KB_EXIT_FAILED = 1,    /* a row FAILed, ERRORed, CRASHed or TIMEd OUT */
    KB_EXIT_USAGE = 2,     /* bad command line, unknown op/axis/value, unreadable file */
    KB_EXIT_NO_DEVICE = 3, /* run/check with no CUDA device or driver */
    KB_EXIT_RUNTIME = 4,   /* could not write output, out of host memory, ... */
    KB_EXIT_SLOWER = 5,    /* compare: a row SLOWER, BROKEN, STILL FAILING, INVALID, REMOVED */
};

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

typedef struct kb_opt kb_opt;
/* Store value (NULL for a switch) into the command's argument struct dst.
 * KB_OK, or KB_ERR with e saying what is wrong with the value (the parser
 * adds the option's name and the value in front). */
typedef int (*kb_opt_set)(const kb_opt *o, void *dst, const char *value, kb_error *e);

struct kb_opt {
    const char *names;   /* "--threshold", or "-o, --out": short name first */
    const char *arg;     /* "PCT"; NULL for a switch */
    const char *help;    /* one line; '\n' starts a continuation line */
    kb_opt_set set;      /* kb_set_* below, or the command's own */
    size_t at;           /* offsetof(the command's struct, the field set) */
    double lo, hi;       /* kb_set_long, kb_set_double: the accepted range */
    const char *choices; /* kb_set_choice: "table|md"; the index is stored */
};

/* A table's rows, every field given (T: the command's argument struct). */
#define KB_OPT_SWITCH(names, help, T, f)                                                           \
    { names, NULL, help, kb_set_switch, offsetof(T, f), 0, 0, NULL }
#define KB_OPT_STRING(names, arg, help, T, f)                                                      \
    { names, arg, help, kb_set_string, offsetof(T, f), 0, 0, NULL }
#define KB_OPT_LONG(names, arg, help, T, f, lo, hi)                                                \
    { names, arg, help, kb_set_long, offsetof(T, f), lo, hi, NULL }
#define KB_OPT_DOUBLE(names, arg, help, T, f, lo, hi)                                              \
    { names, arg, help, kb_set_double, offsetof(T, f), lo, hi, NULL }
#define KB_OPT_CHOICE(names, arg, help, T, f, choices)                                             \
    { names, arg, help, kb_set_choice, offsetof(T, f), 0, 0, choices }
/* An option with its own setter, which finds its field itself. */
#define KB_OPT_CALL(names, arg, help, setter)                                                      \
    { names, arg, help, setter, 0, 0, 0, NULL }
/* A heading line of --help ("timing:"); the parser passes over it. */
#define KB_OPT_HEAD(title)                                                                         \
    { title, NULL, NULL, NULL, 0, 0, 0, NULL }
#define KB_OPT_END                                                                                 \
    { NULL, NULL, NULL, NULL, 0, 0, 0, NULL }

/* The setters most options need; dst + o->at is the field they set. */
int kb_set_switch(const kb_opt *o, void *dst, const char *value, kb_error *e); /* int = 1 */
int kb_set_string(const kb_opt *o, void *dst, const char *value, kb_error *e); /* const char * */
int kb_set_long(const kb_opt *o, void *dst, const char *value, kb_error *e);   /* long */
int kb_set_double(const kb_opt *o, void *dst, const char *value, kb_error *e); /* double */
int kb_set_choice(const kb_opt *o, void *dst, const char *value, kb_error *e); /* int index */

/* An argument that is not an option (or any argument after "--"). */
typedef int (*kb_opt_positional)(void *dst, const char *arg, kb_error *e);

enum { KB_OPTS_HELP = -1 }; /* kb_opts_parse: -h or --help was given */

/* Parse argv[1 .. argc-1] against table (ended by a row with names NULL)
 * into dst. KB_EXIT_OK, KB_OPTS_HELP, or KB_EXIT_USAGE (said on stderr). */
int kb_opts_parse(const char *cmd, const kb_opt *table, void *dst, int argc, char **argv,
                  kb_opt_positional positional);
/* The table as --help prints it: "  NAMES ARG   help", aligned. */
void kb_opts_help(FILE *f, const kb_opt *table);
/* Does table name flag ("--out" or "-o")? The row, or NULL. */
const kb_opt *kb_opts_find(const kb_opt *table, const char *flag);

#endif
