/* kbench/case.h — one case: the values of an op's axes (its parameters,
 * named in kbench/ops/<op>.h), as a variant's hooks receive it. Read an axis
 * by name, or once through the op's typed decoder (kb_topk_params_of, ...).
 *
 *   int64_t n = kb_int(c, "n");            an INT axis
 *   double iou = kb_float(c, "iou");       an INT or FLOAT axis
 *   const char *d = kb_str(c, "dist");     an ENUM or STRING axis, as text
 *
 * The op a case belongs to is opaque here: the harness knows its axes.
 */
#ifndef KBENCH_CASE_H
#define KBENCH_CASE_H

#include "kbench/error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KB_MAX_AXES = 32,
    KB_STR = 256, /* one axis value as text, an image path included */
};

typedef struct kb_value {
    int64_t i; /* INT */
    double f;  /* INT and FLOAT */
    char s[KB_STR];
    /* STRING: the folder a relative path in s is also looked for in (the
     * sweep file's, or the source tree for a built-in sweep; kb_case_path);
     * NULL for a value given on the command line: the working directory only.
     * Not part of the case's identity (kb_case_format prints s as written). */
    const char *dir;
    int dir_first; /* 1: dir only (built-in sweeps); 0: the working directory, then dir */
} kb_value;

struct kb_op;

typedef struct kb_case {
    const struct kb_op *op; /* opaque to a variant */
    int naxes;
    kb_value v[KB_MAX_AXES]; /* in the order of the op's axes */
} kb_case;

/* Accessors by axis name; an unknown name is a programming error (asserted). */
int64_t kb_int(const kb_case *c, const char *axis);
double kb_float(const kb_case *c, const char *axis);
const char *kb_str(const kb_case *c, const char *axis);
/* The file a path-valued STRING axis (image=...) names, to open: an absolute
 * path as it is; a relative one by the value's rule (kb_value.dir), the first
 * candidate that exists. KB_ERR naming the axis, the value and every place
 * looked in when none exists. */
int kb_case_path(const kb_case *c, const char *axis, char *buf, size_t n, kb_error *e);
/* "n=16 in_h=1080 ..." — every axis, in table order; the case's identity in outputs. */
void kb_case_format(const kb_case *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
