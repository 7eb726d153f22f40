/* test_cli_opts.c — options declared once (harness/cli_opts.c): the parser
 * takes --opt=value and --opt value alike, "--" ends the options, a bad
 * value is refused naming the option; and every option of every command's
 * table is in that command's --help and in the README's CLI synopsis.
 *
 *   ./test_cli_opts [TEST_NAME]
 */
#include "cli.h"
#include "kbtest.h"
#include "run/l2_flush.h"
#include "run/printer.h"
#include "run/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct args {
    int fast, mode;
    long n;
    double pct;
    const char *out, *pos[4];
    int npos;
} args;

static int add(void *dst, const char *arg, kb_error *e) {
    args *a = dst;
    if (a->npos == 4) return kb_fail(e, "too many");
    a->pos[a->npos++] = arg;
    return KB_OK;
}

static const kb_opt table[] = {
    KB_OPT_SWITCH("--fast", "a switch", args, fast),
    KB_OPT_CHOICE("--mode", "M", "cold, hot or graph", args, mode, "cold|hot|graph"),
    KB_OPT_LONG("-n, --count", "N", "a whole number", args, n, 1, 100),
    KB_OPT_DOUBLE("--pct", "PCT", "a real number\nsecond line", args, pct, 0, 50),
    KB_OPT_STRING("-o", "FILE", "a file", args, out),
    KB_OPT_END,
};

/* Parse the words of line (at most 16) into *a; the exit code. stderr goes
 * to err (cleared first) so the message can be checked. */
static char err[4096];
static int parse(const char *line, args *a) {
    char buf[512], *argv[17] = {"cmd"};
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 17; w = strtok(NULL, " ")) argv[argc++] = w;
    memset(a, 0, sizeof *a);
    FILE *tmp = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = kb_opts_parse("cmd", table, a, argc, argv, add);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err, 1, sizeof err - 1, tmp);
    err[n] = '\0';
    fclose(tmp);
    return rc;
}

KB_TEST(equals_and_space_forms_set_the_same_fields) {
    args a;
    KB_EXPECT(parse("--fast --mode=hot -n 7 --pct=2.5 -o x.csv p1", &a) == KB_EXIT_OK);
    KB_EXPECT(a.fast == 1 && a.mode == 1 && a.n == 7 && a.pct == 2.5);
    KB_EXPECT(strcmp(a.out, "x.csv") == 0 && a.npos == 1 && strcmp(a.pos[0], "p1") == 0);
    KB_EXPECT(parse("--mode graph --count=9 --pct 50", &a) == KB_EXIT_OK);
    KB_EXPECT(a.mode == 2 && a.n == 9 && a.pct == 50);
}

KB_TEST(double_dash_ends_the_options) {
    args a;
    KB_EXPECT(parse("p1 -- --fast -n", &a) == KB_EXIT_OK);
    KB_EXPECT(a.fast == 0 && a.npos == 3 && strcmp(a.pos[1], "--fast") == 0);
    KB_EXPECT(strcmp(a.pos[2], "-n") == 0);
}

KB_TEST(a_value_may_start_with_a_dash_or_hold_an_equals_sign) {
    args a;
    KB_EXPECT(parse("-o -weird --pct=1e1", &a) == KB_EXIT_OK);
    KB_EXPECT(strcmp(a.out, "-weird") == 0 && a.pct == 10);
    KB_EXPECT(parse("-o a=b", &a) == KB_EXIT_OK && strcmp(a.out, "a=b") == 0);
    /* the next word is one of the table's options: the value was forgotten */
    KB_EXPECT(parse("-o --fast", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "-o needs a value (FILE)");
}

KB_TEST(help_is_reported_not_parsed_further) {
    args a;
    KB_EXPECT(parse("--fast --help --bogus", &a) == KB_OPTS_HELP);
    KB_EXPECT(parse("-- --help", &a) == KB_EXIT_OK && a.npos == 1);
}

KB_TEST(every_bad_value_is_one_error_that_names_its_option) {
    args a;
    KB_EXPECT(parse("--pct", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "--pct needs a value (PCT)");
    KB_EXPECT(parse("--pct=", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "--pct : expected a number in [0, 50]");
    KB_EXPECT(parse("--pct 51", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "--pct 51: expected a number in [0, 50]");
    KB_EXPECT(parse("--count=7x", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "--count 7x: expected an integer in [1, 100]");
    KB_EXPECT(parse("-n 0", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "-n 0: expected an integer");
    KB_EXPECT(parse("--mode=warm", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "--mode warm: expected cold, hot or graph");
    KB_EXPECT(parse("--fast=1", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "--fast takes no value");
    KB_EXPECT(parse("--fas", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "unknown option '--fas'");
    KB_EXPECT(parse("-o", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "-o needs a value (FILE)");
    KB_EXPECT(parse("1 2 3 4 5", &a) == KB_EXIT_USAGE);
    KB_EXPECT_STR_CONTAINS(err, "too many");
    /* one line of error, one line of hint */
    KB_EXPECT(strchr(err, '\n') && strchr(strchr(err, '\n') + 1, '\n'));
    KB_EXPECT(!strchr(strchr(strchr(err, '\n') + 1, '\n') + 1, '\n'));
}

KB_TEST(help_lines_align_and_continue) {
    char buf[2048];
    FILE *f = tmpfile();
    kb_opts_help(f, table);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    KB_EXPECT_STR_CONTAINS(buf, "  --fast         a switch\n");
    KB_EXPECT_STR_CONTAINS(buf, "  -n, --count N  a whole number\n");
    KB_EXPECT_STR_CONTAINS(buf, "  --pct PCT      a real number\n                 second line\n");
}

/* ---- every command's table against its --help and the README ---- */

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void help_of(const kb_command *c, char *buf, size_t size) {
    char name[32], help[] = "--help";
    snprintf(name, sizeof name, "%s", c->name);
    char *argv[] = {name, help, NULL};
    FILE *tmp = tmpfile();
    fflush(stdout);
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    c->fn(2, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, size - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
}

/* The README's synopsis of cmd: every line of its CLI block that starts
 * "kbench CMD ", each with its continuation lines (up to the next "kbench "
 * line), joined. */
static void synopsis_of(const char *readme, const char *cmd, char *buf, size_t size) {
    buf[0] = '\0';
    const char *block = strstr(readme, "## The CLI\n\n```\n");
    if (!block) return;
    const char *end = strstr(block + 16, "```");
    char head[64];
    snprintf(head, sizeof head, "\nkbench %s ", cmd);
    size_t used = 0;
    for (const char *p = strstr(block, head); p && p < end; p = strstr(p + 1, head)) {
        const char *q = strstr(p + 1, "\nkbench ");
        if (!q || q > end) q = end;
        used += (size_t)snprintf(buf + used, size - used, "%.*s", (int)(q - p), p);
        if (used >= size) return;
    }
}

/* w in text as a word of its own: "--all" is not in "--allow-removed". */
static int is_word_char(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_';
}
static int has_word(const char *text, const char *w) {
    size_t n = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w))
        if ((p == text || !is_word_char(p[-1])) && !is_word_char(p[n])) return 1;
    return 0;
}

KB_TEST(every_option_of_every_table_is_in_its_help_and_the_readme) {
    char *readme = slurp(KBT_SOURCE_DIR "/README.md");
    KB_EXPECT(readme != NULL);
    if (!readme) return;
    int tables = 0;
    for (const kb_command *c = kb_commands; c->name; c++) {
        if (!c->opts) continue;
        tables++;
        static char help[1 << 16];
        char syn[4096];
        help_of(c, help, sizeof help);
        synopsis_of(readme, c->name, syn, sizeof syn);
        if (strcmp(c->name, "check") == 0) { /* "check OP|all [run's options but ...]" */
            size_t used = strlen(syn);
            synopsis_of(readme, "run  ", syn + used, sizeof syn - used);
        }
        if (!syn[0]) fprintf(stderr, "README: no synopsis line for kbench %s\n", c->name);
        KB_EXPECT(syn[0] != '\0');
        for (const kb_opt *o = c->opts; o->names; o++) {
            if (!o->set) continue; /* a heading */
            char names[128];
            snprintf(names, sizeof names, "%s", o->names);
            for (char *w = strtok(names, ", "); w; w = strtok(NULL, ", ")) {
                int in_help = has_word(help, w), in_readme = has_word(syn, w);
                if (!in_help || !in_readme)
                    fprintf(stderr, "kbench %s %s: %s\n", c->name, w,
                            !in_help ? "not in its --help" : "not in the README's synopsis");
                KB_EXPECT(in_help && in_readme);
            }
        }
    }
    /* every command parses from a table: one without is a parser of its own */
    for (const kb_command *c = kb_commands; c->name; c++) {
        if (!c->opts) fprintf(stderr, "kbench %s: no option table\n", c->name);
        KB_EXPECT(c->opts != NULL);
    }
    KB_EXPECT(tables >= 9);
}

/* Numbers that --help states in words are the code's. */
KB_TEST(run_and_check_help_state_the_codes_limits) {
    static char help[1 << 16];
    char want[128];
    for (const kb_command *c = kb_commands; c->name; c++) {
        if (strcmp(c->name, "check") != 0 && strcmp(c->name, "run") != 0) continue;
        help_of(c, help, sizeof help);
        if (strcmp(c->name, "check") == 0) {
            snprintf(want, sizeof want, "holds at most %d cases", KB_MAX_CASES);
            KB_EXPECT_STR_CONTAINS(help, want);
        } else {
            snprintf(want, sizeof want, "Default: %s.", kb_flush_name(KB_FLUSH_DEFAULT));
            KB_EXPECT_STR_CONTAINS(help, want);
            snprintf(want, sizeof want, "at most %d)", KB_MAX_OUTPUTS);
            KB_EXPECT_STR_CONTAINS(help, want);
        }
    }
}
