/* cli_list.c — `kbench list [OP]`: what can be run, without a device; and
 * `kbench list --columns`: the columns of the results files. */
#include "cli.h"

#include "kbench.h"
#include "results/result.h"
#include "run/loaded.h"
#include "run/printer.h" /* kb_json_put_str */
#include "run/sweep.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct list_args {
    const char *opname;
    int names, test_only, host, columns, json;
    kb_ext_args ext;
} list_args;

const kb_opt kb_list_opts[] = {
    KB_OPT_SWITCH("--names", "one line per op and per op/variant (for scripts and CTest)",
                  list_args, names),
    KB_OPT_SWITCH("--columns",
                  "the columns of the CSV a run writes, in order: name, type (text,\n"
                  "number, status, yes/no) and meaning, tab-separated; what a\n"
                  "script reads a results file by",
                  list_args, columns),
    KB_OPT_SWITCH("--json", "with --columns: one JSON array of {name, type, required, meaning}",
                  list_args, json),
    KB_OPT_SWITCH("--test-only",
                  "with --names: only the op/variant lines of the deliberately\n"
                  "broken variants of a test build (never listed otherwise)",
                  list_args, test_only),
    KB_OPT_SWITCH("--host",
                  "with --names: only the op/variant lines of the variants that\n"
                  "run on the CPU ([host]: they need no device)",
                  list_args, host),
    KB_EXT_OPTS(list_args, ext),
    KB_OPT_END,
};

static int list_op(void *dst, const char *arg, kb_error *e) {
    list_args *a = dst;
    if (a->opname) return kb_fail(e, "unexpected argument '%s' (one OP)", arg);
    a->opname = arg;
    return KB_OK;
}

static void list_help(void) {
    fputs("usage: kbench list [OP] [--names [--test-only | --host]] [--plugin PATH.so]...\n"
          "                   [--py FILE.py]... [--python PATH] [--peers]\n"
          "       kbench list --columns [--json]\n\n"
          "Without OP: every op with its variants. With OP: its axes (kind, default, valid\n"
          "range), named sweeps with their lines, input/output tensor names, and variants\n"
          "with one-line summaries, flags and the file that implements each (a plugin's\n"
          "or Python file's variants after the built-in ones, with their source).\n\n",
          stdout);
    kb_opts_help(stdout, kb_list_opts);
    puts("  -h, --help");
}

/* The variants of op: the built-in ones, then the loaded ones (k counts on
 * past the built-in table). NULL past the end. */
static const kb_variant *variant_at(int k) {
    static int builtin = -1;
    if (builtin < 0)
        for (builtin = 0; kb_variants[builtin].op; builtin++) continue;
    if (k < builtin) return &kb_variants[k];
    return k - builtin < kb_loaded_count() ? &kb_loaded_at(k - builtin)->v : NULL;
}

static void flags_text(unsigned f, char *buf, size_t n) {
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{KB_INDEX32, "int32-index"},
                 {KB_INDEX64, "int64-index"},
                 {KB_TENSOR_CORES, "tensor-cores"},
                 {KB_TF32, "tf32"},
                 {KB_NONDETERMINISTIC, "nondeterministic"},
                 {KB_HOST_SYNC, "host-sync"},
                 {KB_TEST_ONLY, "test-only"},
                 {KB_INEXACT, "other-semantics"},
                 {KB_HOST, "host"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit) {
            strncat(buf, buf[0] ? "," : "", n - strlen(buf) - 1);
            strncat(buf, names[i].name, n - strlen(buf) - 1);
        }
}

static void print_tensor_names(const char *label, const char *const *names) {
    printf("  %s:", label);
    for (int i = 0; names && names[i]; i++) printf(" %s", names[i]);
    putchar('\n');
}

static void print_op(const kb_op *op) {
    printf("%s — %s\n", op->name, op->summary);
    print_tensor_names("inputs ", op->inputs);
    print_tensor_names("outputs", op->outputs);
    puts("  axes:");
    for (int i = 0; op->axes[i].name; i++) {
        const kb_axis *a = &op->axes[i];
        char range[300];
        switch (a->kind) {
        case KB_AXIS_INT:
            snprintf(range, sizeof range, "int [%.0f, %.0f]", a->min, a->max);
            break;
        case KB_AXIS_FLOAT:
            snprintf(range, sizeof range, "real [%g, %g]", a->min, a->max);
            break;
        case KB_AXIS_ENUM:
            snprintf(range, sizeof range, "{%s}", a->choices);
            break;
        default:
            snprintf(range, sizeof range, "text");
            break;
        }
        printf("    %-14s = %-10s %-26s %s\n", a->name, a->def, range, a->help);
    }
    puts("  sweeps:");
    for (int i = 0; op->sweeps && op->sweeps[i].name; i++) {
        printf("    %-12s %s\n", op->sweeps[i].name, op->sweeps[i].summary);
        for (int l = 0; op->sweeps[i].lines[l]; l++)
            printf("                   %s\n", op->sweeps[i].lines[l]);
    }
    puts("  variants:");
    for (int i = 0; variant_at(i); i++) {
        const kb_variant *v = variant_at(i);
        if (strcmp(v->op, op->name) != 0) continue;
        char flags[200];
        flags_text(v->flags, flags, sizeof flags);
        printf("    %-24s %s%s%s%s%s\n", v->name, v->summary, flags[0] ? " [" : "", flags,
               flags[0] ? "]" : "",
               strcmp(v->name, op->baseline ? op->baseline : "") == 0 ? " (baseline)" : "");
        if (kb_loaded_of(v))
            printf("    %-24s %s (%s)\n", "", kb_variant_origin(v), v->source);
        else if (v->source)
            printf("    %-24s %s\n", "", v->source);
    }
}

/* The column table (results/result.h), as lines or as one JSON array. */
static int print_columns(int json) {
    for (int c = 0; c < KB_NCOLUMNS; c++) {
        const kb_column *col = &kb_columns[c];
        if (!json) {
            printf("%s\t%s\t%s\n", col->name, kb_column_type_name(col->type), col->meaning);
            continue;
        }
        fputs(c ? ",\n {\"name\":" : "[{\"name\":", stdout);
        kb_json_put_str(stdout, col->name);
        fputs(",\"type\":", stdout);
        kb_json_put_str(stdout, kb_column_type_name(col->type));
        printf(",\"required\":%s,\"meaning\":", col->required ? "true" : "false");
        kb_json_put_str(stdout, col->meaning);
        fputc('}', stdout);
    }
    if (json) puts("]");
    return KB_EXIT_OK;
}

int kb_cmd_list(int argc, char **argv) {
    list_args args = {0};
    int rc = kb_opts_parse("list", kb_list_opts, &args, argc, argv, list_op);
    if (rc == KB_OPTS_HELP) {
        list_help();
        return KB_EXIT_OK;
    }
    if (rc != KB_EXIT_OK) return rc;
    const char *opname = args.opname;
    int names = args.names, test_only = args.test_only, host = args.host;
    int columns = args.columns, json = args.json;
    kb_ext_args ext = args.ext;
    if (test_only && !names) return kb_usage_error("list", "--test-only needs --names");
    if (host && !names) return kb_usage_error("list", "--host needs --names");
    if (json && !columns) return kb_usage_error("list", "--json needs --columns");
    if (columns && (opname || names))
        return kb_usage_error("list", "--columns takes no OP and no --names");
    if (columns) return print_columns(json);
    if (json && !columns) return kb_usage_error("list", "--json needs --columns");
    if (columns && (opname || names))
        return kb_usage_error("list", "--columns takes no OP and no --names");
    if (columns) return print_columns(json);
    if (opname && !kb_find_op(opname)) {
        char all[512] = "";
        for (int i = 0; kb_ops[i]; i++) {
            strncat(all, i ? ", " : "", sizeof all - strlen(all) - 1);
            strncat(all, kb_ops[i]->name, sizeof all - strlen(all) - 1);
        }
        return kb_usage_error("list", "unknown op '%s' (ops: %s)", opname, all);
    }
    if (kb_ext_load("list", &ext) != KB_EXIT_OK) return KB_EXIT_USAGE;
    for (int i = 0; i < kb_sources_count(); i++)
        if (kb_source_at(i)->failed)
            fprintf(stderr, "kbench list: %s: %s\n", kb_source_at(i)->path, kb_source_at(i)->why);
    for (int i = 0; kb_ops[i]; i++) {
        const kb_op *op = kb_ops[i];
        if (opname && strcmp(op->name, opname) != 0) continue;
        if (names) {
            if (!test_only && !host) printf("%s\n", op->name);
            for (int k = 0; variant_at(k); k++)
                if (strcmp(variant_at(k)->op, op->name) == 0 &&
                    !(variant_at(k)->flags & KB_TEST_ONLY) == !test_only &&
                    (!host || (variant_at(k)->flags & KB_HOST)))
                    printf("%s/%s\n", op->name, variant_at(k)->name);
        } else if (opname) {
            print_op(op);
        } else {
            printf("%-16s %s\n", op->name, op->summary);
            for (int k = 0; variant_at(k); k++)
                if (strcmp(variant_at(k)->op, op->name) == 0)
                    printf("    %-24s %s%s%s%s\n", variant_at(k)->name, variant_at(k)->summary,
                           kb_loaded_of(variant_at(k)) ? " [" : "",
                           kb_loaded_of(variant_at(k)) ? kb_variant_origin(variant_at(k)) : "",
                           kb_loaded_of(variant_at(k)) ? "]" : "");
        }
    }
    if (!opname && !names) puts("\n(kbench list OP for axes, sweeps and tensors)");
    return KB_EXIT_OK;
}
