/* loaded.h — variants from outside the tree, in the same table as the
 * built-in ones: C/CUDA plugins (--plugin; loaded.c) and Python files (--py,
 * --peers; py_bridge.c). Each file is a source; each variant it registers is
 * a kb_loaded, whose first member is the kb_variant the runner plans with.
 *
 * User code runs only where the pairs run. The parent learns what a plugin
 * registers from a child process that loads it (kb_loaded_add_plugin) and
 * what a Python file registers from its interpreter; a worker loads a
 * plugin for real at its first pair (kb_loaded_bind), and a worker that has
 * loaded one runs no pair of another source (isolate.c), so a plugin that
 * faults, hangs or corrupts memory costs its own rows only. */
#ifndef KB_LOADED_H
#define KB_LOADED_H

#include "kbench.h"

#include <stdio.h>
#include <sys/types.h>

enum { KB_MAX_SOURCES = 32, KB_MAX_LOADED = 512 };

typedef enum kb_source_kind { KB_SOURCE_PLUGIN, KB_SOURCE_PY } kb_source_kind;

typedef struct kb_source {
    kb_source_kind kind;
    char path[4096]; /* resolved (absolute) */
    char label[300]; /* the rows' source column: "plugin:<file name>" or "py:<file name>" */
    char sha256[65];
    int failed; /* py: the file could not be listed (its rows are ERROR, why) */
    char why[1024];
    void *handle;     /* plugin: loaded in this process (a worker), else NULL */
    const void *rows; /* plugin: its kb_variant rows once loaded */
} kb_source;

typedef struct kb_loaded {
    kb_variant v; /* first: what the runner holds a pointer to */
    int source;   /* index of its kb_source */
    char op[64], name[80], summary[256];
    /* Python entries */
    char py_key[80]; /* the name in its file's KBENCH key ("op/<py_key>") */
    int check;       /* 0: other work, a reference point: UNCHECKED rows */
    int precision;   /* the class its outputs are judged in; -1: the case's */
    int peer;        /* a library's implementation (peers/): the rows' peer column */
} kb_loaded;

/* The sources and variants loaded so far (this process's table). */
int kb_sources_count(void);
const kb_source *kb_source_at(int i);
int kb_loaded_count(void);
const kb_loaded *kb_loaded_at(int i);

/* A plugin: its variants from a child process that loads it, checked (a
 * shared library with the entry symbol, the ABI major of these headers,
 * rows of known ops, names that clash with no other variant); KB_ERR with a
 * one-line reason otherwise, and nothing is added. */
int kb_loaded_add_plugin(const char *path, kb_error *e);
/* A variant of a Python file, as its worker listed it (py_bridge.c). */
int kb_loaded_add_source(kb_source_kind kind, const char *path, kb_error *e);
kb_loaded *kb_loaded_new(int source, const char *op, const char *name, kb_error *e);

/* NULL for a built-in variant. */
const kb_loaded *kb_loaded_of(const kb_variant *v);
/* "builtin", "plugin:<file>" or "py:<file>": the row's source column. */
const char *kb_variant_origin(const kb_variant *v);
/* The source index of v, -1 for a built-in. */
int kb_variant_source_index(const kb_variant *v);

/* A plugin variant's implementation, loaded in this process (a worker) at
 * its first pair: KB_ERR (the pair's ERROR row) when the library no longer
 * loads, changed since the run began, or lost the variant. KB_OK at once
 * for every other variant. */
int kb_loaded_bind(const kb_variant *v, kb_error *e);

/* "# plugin: FILE sha256 HEX PATH" (and "py:") lines of the sources that a
 * plan's variants come from (all loaded sources). */
void kb_loaded_meta_lines(FILE *f, const char *prefix);

/* A child's whole answer on fd (at most cap - 1 bytes, NUL-terminated) within
 * limit_s, then its exit status: 1 when it was killed for the limit. */
int kb_child_answer(int fd, pid_t pid, double limit_s, char *buf, size_t cap, int *status);

/* A name a variant may take: letters, digits, '_', '-', '.' (no ',' or
 * '/', which -v lists and op/name split on), at most 63 characters. */
int kb_variant_name_ok(const char *name);
/* A file's name up to its first '.', what cannot stand in a name made '_'. */
void kb_variant_name_of_file(const char *path, char *out, size_t n);

#endif
