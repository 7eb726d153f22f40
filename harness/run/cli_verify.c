/* cli_verify.c — `kbench verify OP CASEDIR NAME`: judge outputs that another
 * program wrote (peers/: torchvision, PyTorch, OpenCV) by the op's own
 * compare, on a case that `kbench run|check --dump` wrote, so that a peer's
 * row says PASS only for the same work under the same rule as a variant's.
 *
 *   kbench check nms --sweep smoke -v bitmask_gpu --dump d   # d/case<k>/...
 *   python3 ... writes d/case0/peer_nms.keep.npy and .count.npy
 *   kbench verify nms d/case0 peer_nms                       # one JSON line
 *
 * CPU only: reads CASEDIR/case.txt (the params), CASEDIR/<input>.npy,
 * CASEDIR/reference.<output>.npy (computed here by the CPU reference when
 * absent) and CASEDIR/NAME.<output>.npy, each checked against the dtype and
 * shape the case describes. Prints the judgement and the case's cost model.
 */
#include "cli.h"
#include "cli_opts.h"

#include "kbench.h"
#include "printer.h" /* kb_json_put_str */
#include "sweep.h"

#include "npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_precision(const char *s, kb_precision *p) {
    static const char *const names[] = {"f32", "tf32", "f16", "bf16"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *p = (kb_precision)i;
            return KB_OK;
        }
    return KB_ERR;
}

typedef struct verify_args {
    const char *pos[3], *prec;
    int npos;
} verify_args;

static int set_precision(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    kb_precision p;
    (void)o;
    if (parse_precision(v, &p) != KB_OK) return kb_fail(e, "expected f32, tf32, f16 or bf16");
    ((verify_args *)dst)->prec = v;
    return KB_OK;
}

static int add_positional(void *dst, const char *arg, kb_error *e) {
    verify_args *a = dst;
    if (a->npos == 3) return kb_fail(e, "unexpected argument '%s'", arg);
    a->pos[a->npos++] = arg;
    return KB_OK;
}

const kb_opt kb_verify_opts[] = {
    KB_OPT_CALL("--precision", "P",
                "the precision class of the thresholds (default: the case's\n"
                "dtype axis, else f32; tf32 for a tf32 computation)",
                set_precision),
    KB_OPT_END,
};

static void verify_help(void) {
    fputs("usage: kbench verify OP CASEDIR NAME [--precision f32|tf32|f16|bf16]\n\n"
          "Judge the outputs CASEDIR/NAME.<output>.npy that another program computed from\n"
          "CASEDIR/<input>.npy, by the op's own comparison against CASEDIR/reference.\n"
          "<output>.npy (or, when that is absent, the CPU reference computed here). CASEDIR\n"
          "is one case<k> folder of `kbench run|check --dump DIR`; its case.txt holds the\n"
          "params. This is how peers/ checks torchvision / PyTorch / OpenCV on equal work.\n"
          "Prints one JSON line: status (PASS or FAIL), rel_l2, max_abs, max_rel, tolerance,\n"
          "mismatches, nan, unwritten, note, and the case's params, bytes and flops (cost\n"
          "model). Nothing is poisoned here, so a NaN in a dense output (deform_conv2d,\n"
          "preprocess) is one the program wrote: counted in nan and named in the note\n"
          "(\"out: 3 of 96 element(s) are NaN\"). Ops with a comparison of their own (nms,\n"
          "topk, rpn_proposals, yolo_decode) count the poison's value (NaN, -1) in unwritten.\n\n",
          stdout);
    kb_opts_help(stdout, kb_verify_opts);
    puts("  -h, --help\n"
         "exit codes: 0 PASS; 1 FAIL; 2 bad usage, an unreadable file, a tensor whose\n"
         "            dtype or shape is not the case's, or an index value of the inputs\n"
         "            or of the dumped reference that does not fit the case (topk's\n"
         "            offsets, rpn_proposals' level_offsets, nms's class ids; counts, keep\n"
         "            lists, indices, class ids of the reference), named with its bound.\n"
         "            The judged outputs' own are judged: out of range is a FAIL\n"
         "example:\n"
         "  kbench verify deform_conv2d dump/case3 peer_torchvision_f16");
}

/* The case of CASEDIR/case.txt: one line of name=value tokens. */
static int read_case(const kb_op *op, const char *dir, kb_case *c, kb_error *e) {
    char path[1100], line[4096];
    snprintf(path, sizeof path, "%s/case.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) return kb_fail(e, "%s: cannot open (is %s a case<k> folder of --dump?)", path, dir);
    int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got) return kb_fail(e, "%s: empty", path);
    line[strcspn(line, "\r\n")] = '\0';
    kb_case_list list = {0};
    int rc = kb_expand_line(op, line, NULL, 0, &list, e);
    if (rc == KB_OK && list.count != 1)
        rc = kb_fail(e, "%s: %d cases, expected one", path, list.count);
    if (rc == KB_OK) *c = list.cases[0];
    kb_case_list_free(&list);
    return rc;
}

/* Fill the allocated tensor want from DIR/[PREFIX.]<name>.npy; *missing set
 * (and KB_OK returned) when the file does not exist and missing is not NULL. */
static int read_tensor(const char *dir, const char *prefix, kb_tensor *want, int *missing,
                       kb_error *e) {
    char path[1300];
    snprintf(path, sizeof path, "%s/%s%s%s.npy", dir, prefix ? prefix : "", prefix ? "." : "",
             want->name);
    if (missing) {
        FILE *f = fopen(path, "rb");
        *missing = !f;
        if (f) fclose(f);
        if (*missing) return KB_OK;
    }
    return kb_npy_read_into(path, want, e);
}

static int read_all(const char *dir, const char *prefix, kb_tensors *ts, int *missing,
                    kb_error *e) {
    if (missing) *missing = 0;
    for (int i = 0; i < ts->count; i++) {
        int absent = 0;
        if (read_tensor(dir, prefix, &ts->t[i], missing ? &absent : NULL, e) != KB_OK)
            return KB_ERR;
        if (absent) {
            *missing = 1;
            return KB_OK;
        }
    }
    return KB_OK;
}

/* The index values of what was read (offsets, class ids; with ref, the
 * dumped reference's counts and keep lists, which compare takes as the
 * truth) against the case, by the op's rule: the reference and compare index
 * with them. The judged program's outputs are compare's to judge (a FAIL). */
static int check_indices(const kb_op *op, const kb_case *c, const char *dir, const kb_tensors *in,
                         const kb_tensors *ref, kb_error *e) {
    kb_error why;
    if (!op->check_indices || op->check_indices(c, in, ref, &why) == KB_OK) return KB_OK;
    return kb_fail(e, "%s: %s%s", dir, ref ? "the dumped reference: " : "", why.msg);
}

static void json_string(const char *key, const char *s) {
    printf(",\"%s\":", key);
    kb_json_put_str(stdout, s);
}

/* JSON has no NaN or infinity: null. */
static void json_number(const char *key, double v) {
    if (isfinite(v))
        printf(",\"%s\":%.6g", key, v);
    else
        printf(",\"%s\":null", key);
}

static int judge(const kb_op *op, const char *dir, const char *name, const char *prec_name,
                 kb_error *e) {
    kb_case c;
    kb_tensors in = {0}, ref = {0}, got = {0};
    int rc = read_case(op, dir, &c, e);
    if (rc == KB_OK) rc = op->describe(&c, &in, &ref, e);
    got = ref; /* the same descriptions; each allocates its own data below */
    if (rc == KB_OK) rc = kb_tensors_alloc_host(&in, e);
    if (rc == KB_OK) rc = kb_tensors_alloc_host(&ref, e);
    if (rc == KB_OK) rc = kb_tensors_alloc_host(&got, e);
    int no_ref = 0;
    if (rc == KB_OK) rc = read_all(dir, NULL, &in, NULL, e);
    if (rc == KB_OK) rc = check_indices(op, &c, dir, &in, NULL, e);
    if (rc == KB_OK) rc = read_all(dir, "reference", &ref, &no_ref, e);
    if (rc == KB_OK && no_ref) rc = op->reference(&c, &in, &ref, e);
    if (rc == KB_OK && !no_ref) rc = check_indices(op, &c, dir, &in, &ref, e);
    if (rc == KB_OK) rc = read_all(dir, name, &got, NULL, e);
    kb_precision prec = KB_PREC_F32;
    if (prec_name)
        parse_precision(prec_name, &prec);
    else if (rc == KB_OK)
        prec = kb_case_precision(&c, 0);
    kb_accuracy acc;
    kb_accuracy_init(&acc);
    if (rc == KB_OK) {
        acc.not_poisoned = 1; /* another program wrote every byte: its NaNs are its own */
        const kb_check_ctx chk = {prec, 0}; /* a peer claims the op's own semantics */
        op->compare(&c, &chk, &in, &ref, &got, &acc);
        char params[2048];
        kb_case_format(&c, params, sizeof params);
        kb_cost cost = op->cost(&c);
        printf("{\"status\":\"%s\"", acc.pass ? "PASS" : "FAIL");
        json_number("rel_l2", acc.rel_l2);
        json_number("max_abs", acc.max_abs);
        json_number("max_rel", acc.max_rel);
        json_number("tolerance", acc.tolerance);
        json_number("mismatches", (double)acc.mismatches);
        json_number("nan", (double)acc.nans);
        json_number("unwritten", (double)acc.unwritten);
        json_string("note", acc.note);
        json_string("params", params);
        json_number("bytes", cost.bytes);
        json_number("flops", cost.flops);
        json_string("reference", no_ref ? "computed" : "dumped");
        puts("}");
    }
    kb_tensors_free_host(&in);
    kb_tensors_free_host(&ref);
    kb_tensors_free_host(&got);
    if (rc != KB_OK) return KB_EXIT_USAGE;
    return acc.pass ? KB_EXIT_OK : KB_EXIT_FAILED;
}

int kb_cmd_verify(int argc, char **argv) {
    verify_args args = {{NULL, NULL, NULL}, NULL, 0};
    int rc = kb_opts_parse("verify", kb_verify_opts, &args, argc, argv, add_positional);
    if (rc == KB_OPTS_HELP) {
        verify_help();
        return KB_EXIT_OK;
    }
    if (rc != KB_EXIT_OK) return rc;
    const char **pos = args.pos, *prec = args.prec;
    int npos = args.npos;
    if (npos < 3) return kb_usage_error("verify", "expected OP CASEDIR NAME");
    const kb_op *op = kb_find_op(pos[0]);
    if (!op) return kb_usage_error("verify", "unknown op '%s' (kbench list shows them)", pos[0]);
    kb_error e;
    rc = judge(op, pos[1], pos[2], prec, &e);
    if (rc == KB_EXIT_USAGE) fprintf(stderr, "kbench verify: error: %s\n", e.msg);
    return rc;
}
