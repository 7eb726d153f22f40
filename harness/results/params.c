/* params.c — a case's params as text: split into axis=value tokens, the
 * short form tables print, and the key rows are matched by. */
#include "params.h"

#include "core/format.h" /* kb_format_visible */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_text(char *dst, size_t size, const char *src, size_t len) {
    if (len >= size) len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* The next "axis=value" token of params at *p; 0 at the end or when the
 * rest holds no '='. A token runs to the next " name=", so that a path with
 * spaces stays whole. */
int kb_param_next(const char **p, kb_param_token *t) {
    const char *s = *p;
    while (*s == ' ') s++;
    const char *eq = strchr(s, '='), *end = s;
    if (!*s || !eq) return 0;
    for (const char *q = eq + 1;; q++) {
        if (!*q) {
            end = q;
            break;
        }
        if (*q == ' ') {
            const char *w = q + 1;
            while (*w && *w != ' ' && *w != '=') w++;
            if (*w == '=') {
                end = q;
                break;
            }
        }
    }
    *t = (kb_param_token){s, eq + 1, (size_t)(eq - s), (size_t)(end - eq - 1)};
    while (t->value_len && t->value[t->value_len - 1] == ' ') t->value_len--;
    *p = end;
    return 1;
}

void kb_params_short(const kb_op *op, const char *params, char *buf, size_t n) {
    if (!op) {
        kb_format_visible(params, buf, n);
        return;
    }
    kb_case def, c;
    kb_case_defaults(&def, op);
    c = def;
    size_t used = 0;
    buf[0] = '\0';
    const char *p = params;
    kb_param_token t;
    while (used < n && kb_param_next(&p, &t)) {
        char axis[KB_NAME], value[KB_STR];
        copy_text(axis, sizeof axis, t.axis, t.axis_len);
        copy_text(value, sizeof value, t.value, t.value_len);
        int i = kb_axis_index(op, axis);
        kb_error e;
        int is_default = i >= 0 && kb_case_set(&c, axis, value, &e) == KB_OK &&
                         strcmp(c.v[i].s, def.v[i].s) == 0;
        if (!is_default)
            used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", axis, value);
    }
    if (!buf[0]) snprintf(buf, n, "(defaults)");
    char raw[4096]; /* a CR or tab in a value (image=...) would break a table's line */
    snprintf(raw, sizeof raw, "%s", buf);
    kb_format_visible(raw, buf, n);
}

/* A number as one text per value: an integer in full, else the shortest
 * "%.Ng" that reads back to the same double, so that 0.50, 0.5 and 5e-1 are
 * all "0.5" and 16.0 is "16" (and -0 is 0). */
static int canonical_number(const char *text, char *out, size_t n) {
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v)) return KB_ERR;
    if (v == floor(v) && fabs(v) < 9007199254740992.0) { /* 1000, not %g's 1e+03 */
        snprintf(out, n, "%.0f", v == 0 ? 0.0 : v);
        return KB_OK;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, n, "%.*g", digits, v);
        if (strtod(out, NULL) == v) break;
    }
    return KB_OK;
}

typedef struct key_token {
    kb_param_token t;
    int order;       /* the axis's index in the op; unknown axes after every known one */
    int seen;        /* position in params: ties (unknown axes, a repeated axis) keep it */
    char number[40]; /* the canonical value of an INT or FLOAT axis; "" for text */
} key_token;

static int cmp_key_token(const void *a, const void *b) {
    const key_token *x = a, *y = b;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return x->seen - y->seen;
}

void kb_params_key(const kb_op *op, const char *params, char *buf, size_t n) {
    enum { MAX_TOKENS = 64 };
    key_token tokens[MAX_TOKENS];
    int count = 0;
    const char *p = params;
    kb_param_token t;
    while (op && count < MAX_TOKENS && kb_param_next(&p, &t)) {
        key_token *k = &tokens[count];
        char axis[KB_NAME], value[KB_STR];
        copy_text(axis, sizeof axis, t.axis, t.axis_len);
        copy_text(value, sizeof value, t.value, t.value_len);
        int i = t.axis_len < sizeof axis ? kb_axis_index(op, axis) : -1;
        int numeric = i >= 0 && t.value_len < sizeof value &&
                      (op->axes[i].kind == KB_AXIS_INT || op->axes[i].kind == KB_AXIS_FLOAT);
        k->t = t;
        k->order = i >= 0 ? i : INT32_MAX;
        k->seen = count++;
        if (!numeric || canonical_number(value, k->number, sizeof k->number) != KB_OK)
            k->number[0] = '\0';
    }
    while (*p == ' ') p++;
    if (!op || *p) { /* an unknown op, or params this rule cannot read whole: as written */
        snprintf(buf, n, "%s", params);
        return;
    }
    /* An axis the row does not name has its default: files written before the
     * op gained an axis still match the rows that write it. */
    kb_case def;
    kb_case_defaults(&def, op);
    for (int a = 0; a < def.naxes && count < MAX_TOKENS; a++) {
        int named = 0;
        for (int i = 0; i < count && !named; i++) named = tokens[i].order == a;
        if (named) continue;
        key_token *k = &tokens[count];
        k->t = (kb_param_token){.axis = op->axes[a].name,
                                .value = op->axes[a].def,
                                .axis_len = strlen(op->axes[a].name),
                                .value_len = strlen(op->axes[a].def)};
        k->order = a;
        k->seen = count++;
        int numeric = op->axes[a].kind == KB_AXIS_INT || op->axes[a].kind == KB_AXIS_FLOAT;
        if (!numeric || canonical_number(def.v[a].s, k->number, sizeof k->number) != KB_OK)
            k->number[0] = '\0';
    }
    qsort(tokens, (size_t)count, sizeof *tokens, cmp_key_token);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < n; i++) {
        const key_token *k = &tokens[i];
        if (k->number[0])
            used += (size_t)snprintf(buf + used, n - used, "%s%.*s=%s", i ? " " : "",
                                     (int)k->t.axis_len, k->t.axis, k->number);
        else
            used +=
                (size_t)snprintf(buf + used, n - used, "%s%.*s=%.*s", i ? " " : "",
                                 (int)k->t.axis_len, k->t.axis, (int)k->t.value_len, k->t.value);
    }
}
