/* py_bridge.h — Python variants (--py FILE, --peers): what a file registers,
 * learnt from its interpreter before the plan; and one (case, variant) pair
 * run through a Python worker that kbench starts, fed the case's input
 * bytes as .npy files, timed there by kbench's rules, its outputs handed
 * back as .npy files for the runner to judge by the op's own comparison.
 * The worker (harness/py/kbench_worker.py, embedded in the binary) and the
 * user's contract are in docs/python.md. */
#ifndef KB_PY_BRIDGE_H
#define KB_PY_BRIDGE_H

#include "loaded.h"
#include "measure.h"
#include "row.h"

/* The interpreter that lists and runs Python files (--python; "python3"). */
void kb_py_set_python(const char *python);

/* Lists FILE's variants (KBENCH) with the interpreter. A file that cannot
 * be listed (no interpreter, an import error, a malformed KBENCH) is still
 * a source, marked failed with the reason: its rows are ERROR rows. KB_ERR
 * only for what is usage (no such file, a name that clashes). */
int kb_py_add_file(const char *path, kb_error *e);

/* Where the case files and outputs of this run's Python pairs go: a folder
 * made once by the parent (before workers fork) and removed at its end. */
int kb_py_make_root(kb_error *e);
void kb_py_remove_root(void);

/* One pair. in, ref (NULL: no reference) and outs describe the case; the
 * reply's sets a (checked run), b (second run) and t (last timed run) are
 * host tensors shaped as outs when written. */
typedef struct kb_py_request {
    const kb_loaded *lv;
    const kb_case *c;
    int case_index;
    const kb_tensors *in, *ref, *outs;
    const char *nvtx;
    int check, timing;
    kb_mode mode;
    const char *flush;
    size_t l2_bytes;
    kb_stop_rule rule;
    double warmup_s;
} kb_py_request;

typedef struct kb_py_reply {
    kb_status status; /* PASS: it ran (the runner judges); FAIL, UNSUPPORTED, ERROR, CRASH */
    char reason[1024];
    char note[256];
    int nsamples;
    int have[3]; /* a, b, t */
    kb_tensors set[3];
} kb_py_reply;

/* Runs the request; samples (cap of them) get the timed samples. KB_OK with
 * the reply's status set in every case but a host error (e: no memory). */
int kb_py_run(const kb_py_request *q, kb_py_reply *rep, double *samples, int cap, kb_error *e);
void kb_py_reply_free(kb_py_reply *rep);
/* The case's files, once no pair of it is left in this process. */
void kb_py_release_case(int case_index);
/* Ends this process's Python workers. */
void kb_py_shutdown(void);

#endif
