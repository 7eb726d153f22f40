/* cli_opts.c — the option-table parser and the --help lines it prints
 * (cli_opts.h). */
#include "cli_opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what every subcommand's parsing shares ---- */

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

/* ---- the table ---- */

static void *field(const kb_opt *o, void *dst) {
    return (char *)dst + o->at;
}

int kb_set_switch(const kb_opt *o, void *dst, const char *value, kb_error *e) {
    (void)value;
    (void)e;
    *(int *)field(o, dst) = 1;
    return KB_OK;
}

int kb_set_string(const kb_opt *o, void *dst, const char *value, kb_error *e) {
    if (!*value) return kb_fail(e, "expected a value, got an empty one");
    *(const char **)field(o, dst) = value;
    return KB_OK;
}

int kb_set_long(const kb_opt *o, void *dst, const char *value, kb_error *e) {
    char *end;
    errno = 0;
    long x = strtol(value, &end, 10);
    if (!*value || *end || errno || x < o->lo || x > o->hi)
        return kb_fail(e, "expected an integer in [%.0f, %.0f]", o->lo, o->hi);
    *(long *)field(o, dst) = x;
    return KB_OK;
}

int kb_set_double(const kb_opt *o, void *dst, const char *value, kb_error *e) {
    char *end;
    double x = strtod(value, &end);
    if (!*value || *end || !(x >= o->lo && x <= o->hi))
        return kb_fail(e, "expected a number in [%g, %g]", o->lo, o->hi);
    *(double *)field(o, dst) = x;
    return KB_OK;
}

int kb_set_choice(const kb_opt *o, void *dst, const char *value, kb_error *e) {
    size_t len = strlen(value);
    int index = 0;
    for (const char *p = o->choices; *p; index++) {
        size_t n = strcspn(p, "|");
        if (n == len && strncmp(p, value, n) == 0) {
            *(int *)field(o, dst) = index;
            return KB_OK;
        }
        p += n;
        if (*p) p++;
    }
    /* "table|md" -> "table or md"; "cold|hot|graph" -> "cold, hot or graph" */
    char list[256];
    size_t used = 0;
    int count = 0;
    for (const char *p = o->choices; *p; p++) count += *p == '|';
    for (const char *p = o->choices; *p && used + 4 < sizeof list; p++) {
        if (*p != '|') {
            list[used++] = *p;
            continue;
        }
        const char *sep = --count ? ", " : " or ";
        used += (size_t)snprintf(list + used, sizeof list - used, "%s", sep);
    }
    list[used < sizeof list ? used : sizeof list - 1] = '\0';
    return kb_fail(e, "expected %s", list);
}

/* Does the comma list names ("-o, --out") hold name (of len bytes)? */
static int names_has(const char *names, const char *name, size_t len) {
    for (const char *p = names; *p;) {
        p += strspn(p, ", ");
        size_t n = strcspn(p, ", ");
        if (n && n == len && strncmp(p, name, n) == 0) return 1;
        p += n;
    }
    return 0;
}

static const kb_opt *find(const kb_opt *table, const char *name, size_t len) {
    for (const kb_opt *o = table; o->names; o++)
        if (o->set && names_has(o->names, name, len)) return o;
    return NULL;
}

const kb_opt *kb_opts_find(const kb_opt *table, const char *flag) {
    return find(table, flag, strlen(flag));
}

/* One option at argv[*i]; its value from "=value" or the next argument. */
static int take_option(const char *cmd, const kb_opt *table, void *dst, int argc, char **argv,
                       int *i) {
    const char *arg = argv[*i];
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const kb_opt *o = find(table, arg, len);
    if (!o) return kb_usage_error(cmd, "unknown option '%.*s'", (int)len, arg);
    const char *value = NULL;
    if (!o->arg) {
        if (eq)
            return kb_usage_error(cmd, "%.*s takes no value (given '%s')", (int)len, arg, eq + 1);
    } else if (eq) {
        value = eq + 1;
    } else if (*i + 1 < argc && !(argv[*i + 1][0] == '-' && kb_opts_find(table, argv[*i + 1]))) {
        value = argv[++*i]; /* "-o -weird" is a value; "--along -o DIR" forgot the axis */
    } else {
        return kb_usage_error(cmd, "%s needs a value (%s)", arg, o->arg);
    }
    kb_error e = {{0}};
    if (o->set(o, dst, value, &e) != KB_OK)
        return kb_usage_error(cmd, "%.*s %s: %s", (int)len, arg, value ? value : "", e.msg);
    return KB_EXIT_OK;
}

int kb_opts_parse(const char *cmd, const kb_opt *table, void *dst, int argc, char **argv,
                  kb_opt_positional positional) {
    int options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = 1;
        } else if (!options_done && kb_is_help(arg)) {
            return KB_OPTS_HELP;
        } else if (!options_done && arg[0] == '-' && arg[1]) {
            int rc = take_option(cmd, table, dst, argc, argv, &i);
            if (rc != KB_EXIT_OK) return rc;
        } else {
            kb_error e = {{0}};
            if (!positional) return kb_usage_error(cmd, "unexpected argument '%s'", arg);
            if (positional(dst, arg, &e) != KB_OK) return kb_usage_error(cmd, "%s", e.msg);
        }
    }
    return KB_EXIT_OK;
}

void kb_opts_help(FILE *f, const kb_opt *table) {
    enum { MAX_LEFT = 18 }; /* a longer head takes a line of its own */
    size_t left = 0;
    for (const kb_opt *o = table; o->names; o++) {
        if (!o->set) continue;
        size_t n = strlen(o->names) + (o->arg ? strlen(o->arg) + 1 : 0);
        if (n > left && n <= MAX_LEFT) left = n;
    }
    for (const kb_opt *o = table; o->names; o++) {
        if (!o->set) { /* a heading */
            fprintf(f, "%s\n", o->names);
            continue;
        }
        char head[256];
        snprintf(head, sizeof head, "%s%s%s", o->names, o->arg ? " " : "", o->arg ? o->arg : "");
        const char *h = o->help;
        size_t line = strcspn(h, "\n");
        if (strlen(head) > left) /* too long for the column: help on the lines below */
            fprintf(f, "  %s\n  %*s  %.*s\n", head, (int)left, "", (int)line, h);
        else
            fprintf(f, "  %-*s  %.*s\n", (int)left, head, (int)line, h);
        for (h += line; *h == '\n'; h += line) {
            h++;
            line = strcspn(h, "\n");
            fprintf(f, "  %*s  %.*s\n", (int)left, "", (int)line, h);
        }
    }
}
