/* params.h — a case's params as the files hold them ("axis=value" tokens,
 * space-separated; kb_case_format writes them): split, shortened for a
 * table, and turned into the key that rows of one case share (params.c). */
#ifndef KB_PARAMS_H
#define KB_PARAMS_H

#include "kbench.h"

#include <stddef.h>

typedef struct kb_param_token {
    const char *axis, *value;
    size_t axis_len, value_len;
} kb_param_token;

/* The next "axis=value" token of params at *p; 0 at the end or when the
 * rest holds no '='. A token runs to the next " name=", so that a path with
 * spaces stays whole. */
int kb_param_next(const char **p, kb_param_token *t);

/* params as the key rows are matched by: each axis=value token with the
 * op's axis kind applied (INT and FLOAT by numeric value, in the shortest
 * text that reads back to the same double: "iou=0.50" and "iou=0.5" are
 * one case), tokens in the op's axis order. ENUM and STRING values, axes
 * the op does not have, and ops this build does not know stay as text. */
void kb_params_key(const kb_op *op, const char *params, char *buf, size_t n);
/* params with only the axes whose value differs from op's default (as the
 * tables print a case); "(defaults)" when none; params as they are when op is
 * NULL (an op this build does not know). Control characters as escapes
 * (kb_format_visible): a label, never a key. */
void kb_params_short(const kb_op *op, const char *params, char *buf, size_t n);

#endif
