/* kbench.h — the contract between the harness, the ops and the variants.
 *
 * An op (kernels/<op>.c) knows its parameters, how to make inputs, how to
 * check an output and what it costs; a variant (variants/<op>/ .cu files) knows how
 * to compute it on the GPU; the harness (harness/) knows the CLI, timing,
 * checks and output, and nothing about any op. Both tables that join them are
 * in harness/registry.c. See ../DESIGN.md in the shared folder and README.md.
 *
 * Plain C11; included from CUDA files too (everything is extern "C").
 */
#ifndef KBENCH_H
#define KBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* Functions shared by a CPU reference and its kernels (one formula, one
 * rounding): `KB_HD float iou(...)` in an op's header. */
#ifndef KB_HD
#ifdef __CUDACC__
#define KB_HD __host__ __device__ __forceinline__
#else
#define KB_HD static inline
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KB_MAX_AXES = 32,
    KB_MAX_TENSORS = 8,
    KB_MAX_NDIM = 6,
    KB_STR = 256, /* one axis value as text, an image path included */
    KB_NAME = 48,
};

/* ---- errors are values ------------------------------------------------ */

typedef struct kb_error {
    char msg[1024];
} kb_error;

/* Fill e (may be NULL) with a printf-style message; returns KB_ERR. */
int kb_fail(kb_error *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* KB_ERR with "what: <cuda error string>" when rc is not cudaSuccess, else KB_OK. */
int kb_cuda_check(cudaError_t rc, const char *what, kb_error *e);
#define KB_CUDA_TRY(call, e)                                                                       \
    do {                                                                                           \
        if (kb_cuda_check((call), #call, (e)) != KB_OK) return KB_ERR;                             \
    } while (0)

/* Return codes of every kb_ function and op/variant hook. */
enum {
    KB_OK = 0,
    KB_ERR = -1,
    KB_UNSUPPORTED = 1,    /* supports(): a real limit of the variant; the reason says which */
    KB_NOT_APPLICABLE = 2, /* supports(): another function of the op (e.g. nearest vs bilinear) */
    KB_NO_DEVICE = 3,      /* no CUDA device or no driver */
    KB_OUT_OF_MEMORY = 4,  /* a device allocation failed: the row is UNSUPPORTED, not an error */
};

/* ---- tensors ------------------------------------------------------------ */

typedef enum kb_dtype { KB_U8, KB_I32, KB_I64, KB_F16, KB_BF16, KB_F32, KB_F64 } kb_dtype;

size_t kb_dtype_size(kb_dtype t);
const char *kb_dtype_name(kb_dtype t);
int kb_dtype_parse(const char *name, kb_dtype *t); /* "f32" etc.; KB_ERR if unknown */

typedef struct kb_tensor {
    char name[KB_NAME];
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_NDIM];
    void *data; /* host or device memory, as the owner says; NULL until allocated */
} kb_tensor;

typedef struct kb_tensors {
    int count;
    kb_tensor t[KB_MAX_TENSORS];
} kb_tensors;

/* Checked size arithmetic, for every product of sizes an op forms from its
 * axes: KB_ERR (and *out untouched) when a factor is negative or the result
 * passes INT64_MAX (kb_mul_i64, kb_prod_i64) or SIZE_MAX (kb_bytes_of). */
int kb_mul_i64(int64_t a, int64_t b, int64_t *out);
int kb_prod_i64(const int64_t *factors, int n, int64_t *out);
int kb_bytes_of(int64_t numel, size_t elem_size, size_t *out);

/* Elements and bytes of a tensor. A shape whose product does not fit
 * saturates (INT64_MAX elements, SIZE_MAX bytes) rather than wrapping, so an
 * allocation of it fails instead of succeeding small; kb_tensors_check_size
 * says which tensor it is. */
int64_t kb_numel(const kb_tensor *t);
size_t kb_nbytes(const kb_tensor *t);
/* KB_ERR naming the tensor, its shape and the limit when a tensor's element
 * count passes INT64_MAX or its bytes (or all the tensors' bytes together)
 * pass SIZE_MAX. */
int kb_tensors_check_size(const kb_tensors *ts, kb_error *e);
/* "f32[2,3,4]": dtype and shape, for messages. */
void kb_tensor_shape_text(const kb_tensor *t, char *buf, size_t n);
/* Append a tensor description (no data); shape has ndim entries. */
kb_tensor *kb_tensors_add(kb_tensors *ts, const char *name, kb_dtype dtype, int ndim,
                          const int64_t *shape);
kb_tensor *kb_tensors_find(kb_tensors *ts, const char *name);
const kb_tensor *kb_tensors_get(const kb_tensors *ts, const char *name);
size_t kb_tensors_bytes(const kb_tensors *ts);
int kb_tensors_alloc_host(kb_tensors *ts, kb_error *e); /* zeroed host memory for each */
void kb_tensors_free_host(kb_tensors *ts);

/* ---- axes, values and cases -------------------------------------------- */

typedef enum kb_axis_kind {
    KB_AXIS_INT,    /* integer in [min, max] */
    KB_AXIS_FLOAT,  /* real in [min, max] */
    KB_AXIS_ENUM,   /* one of `choices`, comma separated */
    KB_AXIS_STRING, /* free text (a path); validate() judges it */
} kb_axis_kind;

typedef struct kb_axis {
    const char *name;
    kb_axis_kind kind;
    const char *def; /* default value as text */
    double min, max; /* INT and FLOAT */
    const char *choices;
    const char *help;
} kb_axis; /* an op's axes end with a row whose name is NULL */

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
    const struct kb_op *op;
    int naxes;
    kb_value v[KB_MAX_AXES]; /* in the order of op->axes */
} kb_case;

void kb_case_defaults(kb_case *c, const struct kb_op *op);
/* Set one axis from text, checking its kind and range: the error names both. */
int kb_case_set(kb_case *c, const char *axis, const char *text, kb_error *e);
int kb_axis_index(const struct kb_op *op, const char *axis); /* -1 if none */
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

/* ---- what an op reports ------------------------------------------------- */

typedef struct kb_cost {
    double flops; /* useful arithmetic, by the op's model */
    double bytes; /* fewest bytes that must cross device memory */
} kb_cost;

/* Precision classes: thresholds of the dense comparison (harness/core/compare.c). */
typedef enum kb_precision { KB_PREC_F32, KB_PREC_TF32, KB_PREC_F16, KB_PREC_BF16 } kb_precision;

typedef struct kb_accuracy {
    int pass;
    double rel_l2, max_abs, max_rel;
    double tolerance;  /* the rel-L2 bound that applied */
    int64_t unwritten; /* elements still holding the poison after the run */
    int64_t nans;      /* elements NaN where the reference is a number, not the poison */
    int64_t mismatches;
    char note[256]; /* op-specific finding, e.g. "fast NMS drops 3 boxes greedy keeps" */
    /* Results the op's exact semantics keep that this variant's own (KB_INEXACT,
     * e.g. fast NMS) drop, on a row that matched its own reference: the number
     * the note states; -1 where not counted. */
    int64_t dropped;
    int not_poisoned; /* in: the outputs were never poisoned (kbench verify judging another
                         program's): every NaN is one it wrote, none means "unwritten" */
} kb_accuracy;

/* An accuracy before op->compare: everything 0, pass 1, dropped -1. */
void kb_accuracy_init(kb_accuracy *acc);

/* The precision class a variant's output is checked in: tf32 for a KB_TF32
 * variant, else the case's dtype axis (f16, bf16), else f32. */
kb_precision kb_case_precision(const kb_case *c, unsigned flags);

/* What op->compare judges with besides the tensors. */
typedef struct kb_check_ctx {
    kb_precision prec; /* the variant's precision class on this case (kb_case_precision) */
    unsigned flags;    /* the judged variant's flags: a KB_INEXACT one is held to the
                          reference of its own semantics; 0 for a peer (kbench verify) */
} kb_check_ctx;

typedef struct kb_sweep {
    const char *name;
    const char *summary;
    const char *const *lines; /* each line: axis=spec ...; NULL-terminated */
} kb_sweep;                   /* an op's sweeps end with a row whose name is NULL */

typedef struct kb_op {
    const char *name;
    const char *summary;
    const kb_axis *axes;
    const kb_sweep *sweeps;     /* "smoke" and "default" at least */
    const char *const *inputs;  /* tensor names, NULL-terminated */
    const char *const *outputs; /* tensor names, NULL-terminated */
    const char *baseline;       /* variant(s) speedups are measured against: a comma list, the
                                 * first that ran on a case is that case's baseline */
    /* A clear message naming the parameters; never aborts. */
    int (*validate)(const kb_case *c, kb_error *e);
    /* Names, dtypes and shapes of inputs and outputs; no data. */
    int (*describe)(const kb_case *c, kb_tensors *in, kb_tensors *out, kb_error *e);
    /* Fill allocated host inputs from the seed (realistic, never zeros). */
    int (*make_inputs)(const kb_case *c, uint64_t seed, kb_tensors *in, kb_error *e);
    /* CPU truth into allocated host outputs. */
    int (*reference)(const kb_case *c, const kb_tensors *in, kb_tensors *out, kb_error *e);
    /* Judge got against ref, as chk says (precision class, the variant's flags). */
    int (*compare)(const kb_case *c, const kb_check_ctx *chk, const kb_tensors *in,
                   const kb_tensors *ref, const kb_tensors *got, kb_accuracy *acc);
    kb_cost (*cost)(const kb_case *c);
    /* Optional, for ops whose tensors hold indices or lengths (offsets, class
     * ids, counts, keep lists): KB_ERR naming the tensor, the element, its
     * value and the bound when one does not fit the case, so that tensors
     * read from files (--inputs, kbench verify) never make the reference, a
     * variant or compare read out of bounds. in: the inputs; ref: outputs
     * taken as the truth (verify's dumped reference), or NULL. O(elements);
     * generated inputs and computed references fit by construction. */
    int (*check_indices)(const kb_case *c, const kb_tensors *in, const kb_tensors *ref,
                         kb_error *e);
    /* Optional: a random small valid case for `kbench check --fuzz`. */
    void (*fuzz_case)(uint64_t *rng, kb_case *c);
} kb_op;

/* ---- what a variant implements ------------------------------------------ */

/* A KB_HOST variant's tensors live in host memory: setup and run get host
 * pointers in dev_in / dev_out, run gets a NULL stream and computes the whole
 * op before it returns, and none of its hooks touches CUDA (the run may have
 * no device at all). The runner checks it as any other and times it by the
 * wall clock under the same stopping rule. */
typedef struct kb_variant_impl {
    /* KB_OK, KB_UNSUPPORTED (reason in why, with the numbers) or KB_NOT_APPLICABLE. */
    int (*supports)(const kb_case *c, kb_error *why);
    size_t (*workspace_bytes)(const kb_case *c);
    /* Allocate workspace and handles; KB_OUT_OF_MEMORY when an allocation fails.
     * Contract: a setup that fails leaves nothing allocated and *state NULL.
     * Behind it, the runner tears down any non-NULL *state once setup has
     * returned, failed or not, on every path: so a state handed back before a
     * failure must be one teardown can release (the members not yet built
     * NULL). Device work it starts (a cudaMemset of counters, say) may go on
     * any stream: the runner waits for the device before the first run, whose
     * stream is non-blocking and so not ordered after the legacy stream. */
    int (*setup)(const kb_case *c, const kb_tensors *dev_in, void **state, kb_error *e);
    /* Enqueue the whole op on the stream; no host synchronisation unless the
     * variant is flagged KB_HOST_SYNC. Checks its launches. */
    int (*run)(void *state, const kb_tensors *dev_in, kb_tensors *dev_out, cudaStream_t s,
               kb_error *e);
    /* Releases a state from setup, whole or partly built; never called with NULL. */
    void (*teardown)(void *state);
} kb_variant_impl;

enum kb_variant_flags {
    KB_INDEX32 = 1u << 0, /* forms 32-bit linear indices: supports() bounds them */
    KB_INDEX64 = 1u << 1,
    KB_TENSOR_CORES = 1u << 2,
    KB_TF32 = 1u << 3,             /* f32 data through tf32 tensor cores: tf32 precision class */
    KB_NONDETERMINISTIC = 1u << 4, /* may differ run to run by design (atomics) */
    KB_HOST_SYNC = 1u << 5,        /* synchronises with the host: no graph capture */
    KB_TEST_ONLY = 1u << 6,        /* a deliberately faulty variant for the harness tests */
    KB_INEXACT = 1u << 7, /* other semantics by design (fast NMS): checked against its own */
    KB_HOST = 1u << 8,    /* runs on the CPU: host tensors, no CUDA (see kb_variant_impl) */
};

typedef struct kb_variant {
    const char *op;
    const char *name;
    const char *summary;
    unsigned flags;
    const kb_variant_impl *impl;
    const char *source; /* the file that defines impl, from the repository root */
} kb_variant;

/* ---- the registry (harness/registry.c) ----------------------------------- */

extern const kb_op *const kb_ops[];    /* NULL-terminated */
extern const kb_variant kb_variants[]; /* ends with a row whose op is NULL */

const kb_op *kb_find_op(const char *name);
const kb_variant *kb_find_variant(const char *op, const char *name);

/* ---- the current device, for supports() and launch shapes ---------------
 *
 * Users' GPUs are not ours: SM counts, shared memory and features are
 * queried at run time (variants/common/device_facts.cu), never literals. */

typedef struct kb_gpu {
    int ordinal;
    int cc;            /* compute capability as 10 * major + minor: 90 on an H100 */
    int code_cc;       /* the architecture the variants' code on it was compiled for
                        * (their PTX version): below cc where the build lacks the
                        * device's own; 0 where the build holds no code for it */
    int sm_count;      /* multiprocessors */
    size_t smem_optin; /* shared memory a block may opt in to, bytes */
    int cooperative;   /* cooperative launch (grid-wide barriers) supported */
    size_t l2_bytes;
    char name[256];
} kb_gpu;

/* The current device's facts (queried once per device), or NULL where there
 * is none: supports() then refuses nothing for device reasons, since nothing
 * can run (the CPU-only tests call it so). */
const kb_gpu *kb_gpu_current(void);
/* The current device's SM count; `fallback` where there is no device. */
int kb_gpu_sms(int fallback);
/* KB_OK, or KB_UNSUPPORTED when a feature of compute capability cc_min
 * (10 * major + minor) is missing: from the device ("needs cp.async (compute
 * capability 8.0 or newer); this Tesla T4 is 7.5"), or from the code built
 * for it (a list whose newest PTX is older than cc_min). */
int kb_gpu_require(int cc_min, const char *feature, kb_error *why);
/* The same judgement on given facts (NULL: no device, KB_OK). */
int kb_gpu_require_on(const kb_gpu *g, int cc_min, const char *feature, kb_error *why);
/* KB_OK, or KB_UNSUPPORTED naming the device's compute capability and the
 * architectures this kbench was built for, when the build holds no code
 * that runs on the current device. */
int kb_gpu_have_code(kb_error *why);
/* The CUDA architectures this kbench was built for ("80-real,90"). */
extern const char kb_cuda_architectures[];

/* ---- helpers shared by ops --------------------------------------------- */

/* splitmix64: small, seedable, the same on every platform. */
uint64_t kb_rng_next(uint64_t *state);
double kb_rng_uniform(uint64_t *state);                      /* [0, 1) */
double kb_rng_normal(uint64_t *state);                       /* N(0, 1) */
int64_t kb_rng_int(uint64_t *state, int64_t lo, int64_t hi); /* [lo, hi] */

/* Dense comparison of one output tensor against its reference (any dtypes;
 * converted to double), accumulating into acc. Counts the poison's bytes
 * (all 0xFF) as unwritten and any other NaN as a NaN (every NaN, when
 * acc->not_poisoned). Clears acc->pass (which the harness sets to 1 before
 * op->compare) when the class's thresholds are exceeded. */
void kb_compare_dense(const kb_tensor *ref, const kb_tensor *got, kb_precision prec,
                      kb_accuracy *acc);
double kb_rel_l2_bound(kb_precision prec);

/* f16/bf16 conversions for host code (round to nearest even). */
uint16_t kb_f32_to_f16(float f);
float kb_f16_to_f32(uint16_t h);
uint16_t kb_f32_to_bf16(float f);
float kb_bf16_to_f32(uint16_t h);
double kb_load_as_double(const void *data, kb_dtype t, int64_t i);

/* NVTX ranges (nvtx3); cheap no-ops when no tool is attached. */
void kb_nvtx_push(const char *name);
void kb_nvtx_pop(void);

#ifdef __cplusplus
}
#endif
#endif
