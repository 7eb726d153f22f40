/* plot.h — the plots of a view (cli_plot.c): gnuplot scripts and data
 * written, then rendered where gnuplot exists. */
#ifndef KB_PLOT_H
#define KB_PLOT_H

#include "results.h"

typedef struct kb_plot_opts {
    const char *dir;      /* where scripts, data and images go */
    const char *baseline; /* --baseline, or NULL for the registry's rule */
    const char *along;    /* --along: the axis time, speedup and GB/s are drawn against in
                             the views that have it; NULL: kb_along_pick's choice */
    int png, svg;
} kb_plot_opts;

enum { KB_PLOT_MAX_FILES = 64 };

/* The command line of `kbench plot` and `kbench report`: the options and the
 * result files, in the order given. */
typedef struct kb_plot_args {
    kb_plot_opts o;
    const char *files[KB_PLOT_MAX_FILES];
    int nfiles;
} kb_plot_args;

/* kb_opts_parse's positional callback: arg is one more file. dst is a
 * kb_plot_args, or a command's struct that begins with one. */
int kb_plot_args_add_file(void *dst, const char *arg, kb_error *e);

/* One plot: DIR/<stem>.gp and .dat, and the images gnuplot renders from them. */
typedef struct kb_plot {
    char base[512];     /* "<csvstem>.<op>[.<mode>].<kind>", no folder, no extension */
    char kind[48];      /* time, speedup, roofline, workspace, index_cost, <variant>_vs_exact */
    char caption[1536]; /* what it shows, for the report */
    char note[2048];    /* what it could not show (cases with no baseline, ...); may be "" */
    int rendered;       /* gnuplot ran on it without error */
} kb_plot;

typedef struct kb_plot_list {
    kb_plot *items;
    int count, cap;
} kb_plot_list;

/* Write the scripts and data of every plot that applies to v into o->dir
 * (which must exist), appending them to out. */
int kb_plot_view(const kb_results *res, const kb_op_view *v, const kb_plot_opts *o,
                 kb_plot_list *out, kb_error *e);
/* 1 when a gnuplot executable is on PATH. */
int kb_gnuplot_available(void);
/* Run gnuplot on DIR/<base>.gp with DIR as its working directory. */
int kb_plot_render(const kb_plot_opts *o, kb_plot *p, kb_error *e);

#endif
