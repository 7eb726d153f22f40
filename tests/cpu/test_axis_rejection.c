/* test_axis_rejection.c — every axis of every op in kb_ops refuses values it
 * cannot take, with a message that names the axis and the value: integers and
 * reals below min or above max, non-numbers, non-integers for INT axes, and
 * unknown ENUM values (whose message lists the choices). Each op's validate()
 * is probed with in-range extremes: it must never crash, and whatever it
 * rejects, its message must name a parameter as axis=value. Generic over the
 * registry, so a new op or axis is covered without a line here.
 *
 *   ./test_axis_rejection [TEST_NAME]
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "kbtest.h"

#include "kbench.h"

/* kb_case_set(axis, text) on the op's defaults must fail naming both. */
static void expect_rejected(const kb_op *op, const char *axis, const char *text) {
    kb_case c;
    kb_case_defaults(&c, op);
    kb_error e = {""};
    int rc = kb_case_set(&c, axis, text, &e);
    if (rc != KB_ERR) {
        fprintf(stderr, "  %s: %s=%s was accepted\n", op->name, axis, text);
        kbt_current_failed = 1;
        return;
    }
    char both[KB_STR + 64];
    snprintf(both, sizeof both, "%s=%s", axis, text);
    if (!strstr(e.msg, both)) {
        fprintf(stderr, "  %s: rejecting %s, the message does not name it: %s\n", op->name, both,
                e.msg);
        kbt_current_failed = 1;
    }
}

static void format_number(double v, int integer, char *buf, size_t n) {
    if (integer)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.17g", v);
}

KB_TEST(every_numeric_axis_rejects_out_of_range_and_non_numbers) {
    int axes = 0;
    for (int k = 0; kb_ops[k]; k++) {
        const kb_op *op = kb_ops[k];
        for (int i = 0; op->axes[i].name; i++) {
            const kb_axis *a = &op->axes[i];
            if (a->kind != KB_AXIS_INT && a->kind != KB_AXIS_FLOAT) continue;
            int integer = a->kind == KB_AXIS_INT;
            char buf[64];
            format_number(a->min - (integer ? 1 : 0.5), integer, buf, sizeof buf);
            expect_rejected(op, a->name, buf);
            format_number(a->max + 1, integer, buf, sizeof buf);
            expect_rejected(op, a->name, buf);
            expect_rejected(op, a->name, "abc");
            expect_rejected(op, a->name, "12abc");
            expect_rejected(op, a->name, "");
            expect_rejected(op, a->name, "nan");
            expect_rejected(op, a->name, "inf");
            expect_rejected(op, a->name, "1e999");
            if (integer && a->max > a->min) {
                format_number(a->min + 0.5, 0, buf, sizeof buf);
                expect_rejected(op, a->name, buf);
            }
            axes++;
        }
    }
    KB_EXPECT(axes > 0);
}

KB_TEST(every_numeric_axis_accepts_its_bounds_and_default) {
    for (int k = 0; kb_ops[k]; k++) {
        const kb_op *op = kb_ops[k];
        for (int i = 0; op->axes[i].name; i++) {
            const kb_axis *a = &op->axes[i];
            if (a->kind != KB_AXIS_INT && a->kind != KB_AXIS_FLOAT) continue;
            KB_EXPECT(a->min <= a->max);
            const double vals[] = {a->min, a->max};
            for (int j = 0; j < 2; j++) {
                char buf[64];
                format_number(vals[j], a->kind == KB_AXIS_INT, buf, sizeof buf);
                kb_case c;
                kb_case_defaults(&c, op);
                kb_error e = {""};
                if (kb_case_set(&c, a->name, buf, &e) != KB_OK) {
                    fprintf(stderr, "  %s: %s=%s refused: %s\n", op->name, a->name, buf, e.msg);
                    kbt_current_failed = 1;
                }
            }
        }
    }
}

KB_TEST(every_enum_axis_rejects_unknown_values_naming_the_choices) {
    for (int k = 0; kb_ops[k]; k++) {
        const kb_op *op = kb_ops[k];
        for (int i = 0; op->axes[i].name; i++) {
            const kb_axis *a = &op->axes[i];
            if (a->kind != KB_AXIS_ENUM) continue;
            KB_EXPECT(a->choices && a->choices[0]);
            const char *bogus[] = {"bogus_value", "", ",", "F32_x"};
            for (size_t b = 0; b < sizeof bogus / sizeof *bogus; b++) {
                expect_rejected(op, a->name, bogus[b]);
                kb_case c;
                kb_case_defaults(&c, op);
                kb_error e = {""};
                if (kb_case_set(&c, a->name, bogus[b], &e) == KB_OK) continue;
                /* Every choice is named. */
                char choices[512];
                snprintf(choices, sizeof choices, "%s", a->choices);
                for (char *save = NULL, *ch = strtok_r(choices, ",", &save); ch;
                     ch = strtok_r(NULL, ",", &save))
                    KB_EXPECT_STR_CONTAINS(e.msg, ch);
            }
            /* A prefix of a choice is not a choice. */
            char prefix[KB_STR];
            size_t len = strcspn(a->choices, ",");
            if (len > 1) {
                snprintf(prefix, sizeof prefix, "%.*s", (int)(len - 1), a->choices);
                int whole = 0; /* unless the prefix is itself a choice */
                for (const char *p = a->choices; *p;) {
                    size_t l = strcspn(p, ",");
                    whole |= l == len - 1 && strncmp(p, prefix, l) == 0;
                    p += l + (p[l] == ',');
                }
                if (!whole) expect_rejected(op, a->name, prefix);
            }
        }
    }
}

KB_TEST(unknown_axis_is_rejected_naming_it_and_the_axes) {
    for (int k = 0; kb_ops[k]; k++) {
        kb_case c;
        kb_case_defaults(&c, kb_ops[k]);
        kb_error e = {""};
        KB_EXPECT(kb_case_set(&c, "no_such_axis", "1", &e) == KB_ERR);
        KB_EXPECT_STR_CONTAINS(e.msg, "no_such_axis");
        KB_EXPECT_STR_CONTAINS(e.msg, kb_ops[k]->axes[0].name);
    }
}

/* 1 when msg names some axis of c as axis=value. */
static int names_a_parameter(const kb_case *c, const char *msg) {
    for (int i = 0; i < c->naxes; i++) {
        char both[KB_STR + 64];
        snprintf(both, sizeof both, "%s=%s", c->op->axes[i].name, c->v[i].s);
        if (strstr(msg, both)) return 1;
    }
    return 0;
}

static int probe(const kb_case *c, int *rejected) {
    kb_error e = {""};
    int rc = c->op->validate(c, &e);
    if (rc == KB_OK) return 1;
    (*rejected)++;
    if (rc != KB_ERR || !e.msg[0] || !names_a_parameter(c, e.msg)) {
        char params[1024];
        kb_case_format(c, params, sizeof params);
        fprintf(stderr, "  %s {%s}: validate returned %d, message does not name a parameter: %s\n",
                c->op->name, params, rc, e.msg);
        return 0;
    }
    return 1;
}

/* The values probed on an axis: its bounds, each ENUM choice, and for a
 * STRING axis (a path) a file that does not exist. */
static int probe_values(const kb_axis *a, char vals[][64], int cap) {
    int n = 0;
    if (a->kind == KB_AXIS_INT || a->kind == KB_AXIS_FLOAT) {
        format_number(a->min, a->kind == KB_AXIS_INT, vals[n++], 64);
        format_number(a->max, a->kind == KB_AXIS_INT, vals[n++], 64);
    } else if (a->kind == KB_AXIS_ENUM) {
        for (const char *p = a->choices; *p && n < cap;) {
            size_t l = strcspn(p, ",");
            snprintf(vals[n++], 64, "%.*s", (int)l, p);
            p += l + (p[l] == ',');
        }
    } else if (a->kind == KB_AXIS_STRING) {
        snprintf(vals[n++], 64, "/nonexistent/kbench_axis_probe");
    }
    return n;
}

KB_TEST(validate_names_the_parameters_of_what_it_rejects) {
    enum { CAP = 16 };
    for (int k = 0; kb_ops[k]; k++) {
        const kb_op *op = kb_ops[k];
        int rejected = 0, probed = 0;
        kb_case base;
        kb_case_defaults(&base, op);
        /* The defaults are a valid case. */
        kb_error e = {""};
        if (op->validate(&base, &e) != KB_OK) {
            fprintf(stderr, "  %s: the defaults are refused: %s\n", op->name, e.msg);
            kbt_current_failed = 1;
        }
        /* Every pair of axes at every pair of probe values (one axis alone when i == j). */
        for (int i = 0; op->axes[i].name; i++) {
            char vi[CAP][64];
            int ni = probe_values(&op->axes[i], vi, CAP);
            for (int j = i; op->axes[j].name; j++) {
                char vj[CAP][64];
                int nj = probe_values(&op->axes[j], vj, CAP);
                for (int x = 0; x < ni; x++)
                    for (int y = 0; y < (i == j ? 1 : nj); y++) {
                        kb_case c = base;
                        KB_EXPECT(kb_case_set(&c, op->axes[i].name, vi[x], NULL) == KB_OK);
                        if (i != j)
                            KB_EXPECT(kb_case_set(&c, op->axes[j].name, vj[y], NULL) == KB_OK);
                        if (!probe(&c, &rejected)) kbt_current_failed = 1;
                        probed++;
                    }
            }
        }
        /* Every numeric axis at its max, then at its min, at once. */
        for (int side = 0; side < 2; side++) {
            kb_case c = base;
            for (int i = 0; op->axes[i].name; i++) {
                const kb_axis *a = &op->axes[i];
                if (a->kind != KB_AXIS_INT && a->kind != KB_AXIS_FLOAT) continue;
                char buf[64];
                format_number(side ? a->min : a->max, a->kind == KB_AXIS_INT, buf, sizeof buf);
                KB_EXPECT(kb_case_set(&c, a->name, buf, NULL) == KB_OK);
            }
            if (!probe(&c, &rejected)) kbt_current_failed = 1;
            probed++;
        }
        printf("  %s: validate rejected %d of %d extreme cases\n", op->name, rejected, probed);
    }
}
