/* along.h — a view's cases laid out along one axis (along.c). */
#ifndef KB_ALONG_H
#define KB_ALONG_H

#include "views.h"

/* A view's cases laid out along one axis (`kbench plot --along AXIS`): x is
 * the axis's distinct values, in order; one panel per combination of the
 * other axes that vary, except the axes the along-axis determines (a layer
 * sweep's c_in, c_out and w move with its h: they name the x positions
 * instead of splitting panels). */
enum { KB_ALONG_MAX_PANELS = 16, KB_ALONG_LABEL = 256 };
typedef struct kb_along {
    char axis[KB_NAME];
    char with[512];                 /* the axes that move with it, ", "-separated; "" when none */
    int numeric;                    /* x is the value (an INT or FLOAT axis nothing moves with);
                                       else the position 0, 1, ... (categorical) */
    int log_x;                      /* numeric, every value > 0, spanning more than 30x */
    int nx, npanels;                /* x positions; panels (1 when nothing else varies) */
    double *x;                      /* per position: where it is drawn */
    char (*xlabel)[KB_ALONG_LABEL]; /* per position: "32", or "h=25 w=42 c_in=512" */
    char (*panel)[KB_ALONG_LABEL];  /* per panel: "dtype=f16"; "" when one panel */
    int *case_x, *case_panel;       /* per case of the view */
    int min_points;                 /* fewest x positions a panel holds */
} kb_along;

/* Lay v's cases out along `axis`. KB_ERR, naming the op's axes, when it has
 * no such axis; naming the axes that do vary, when this one takes one value
 * only; or when the other axes make more than KB_ALONG_MAX_PANELS panels. */
int kb_along_build(const kb_op_view *v, const char *axis, kb_along *a, kb_error *e);
/* 1 when v has the axis (the registry's, or a params token of an op this
 * build does not know). */
int kb_view_has_axis(const kb_op_view *v, const char *axis);
/* The axis a view's time plot is drawn along by default: the varying axis
 * whose layout has at most 4 panels, each with 2 x positions or more (the
 * fewest panels, then the most positions, then the op's axis order); 0 when
 * none qualifies (a set of scenarios, not a sweep), 1 and *a built. */
int kb_along_pick(const kb_op_view *v, kb_along *a);
/* The varying axis along which the most cases share a panel with another
 * position (a line joins them; up to KB_ALONG_MAX_PANELS panels, some of one
 * case), then the fewest panels, the most positions, the op's axis order: for
 * reading a trend off cases that are not one sweep. 0 when no axis joins two
 * cases. */
int kb_along_pick_joined(const kb_op_view *v, kb_along *a);
void kb_along_free(kb_along *a);

#endif
