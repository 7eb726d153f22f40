/* common.c — the small pieces every op and the harness share: error values,
 * tensor descriptions, cases (axis values), a seedable RNG, f16/bf16. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "kbench.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int kb_fail(kb_error *e, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return KB_ERR;
}

int kb_cuda_check(cudaError_t rc, const char *what, kb_error *e) {
    if (rc == cudaSuccess) return KB_OK;
    kb_fail(e, "%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
    return KB_ERR;
}

/* ---- dtypes and tensors ---- */

static const struct {
    const char *name;
    size_t size;
} dtype_info[] = {
    [KB_U8] = {"u8", 1},     [KB_I32] = {"i32", 4}, [KB_I64] = {"i64", 8}, [KB_F16] = {"f16", 2},
    [KB_BF16] = {"bf16", 2}, [KB_F32] = {"f32", 4}, [KB_F64] = {"f64", 8},
};

size_t kb_dtype_size(kb_dtype t) {
    return dtype_info[t].size;
}
const char *kb_dtype_name(kb_dtype t) {
    return dtype_info[t].name;
}

int kb_dtype_parse(const char *name, kb_dtype *t) {
    for (int i = 0; i < (int)(sizeof dtype_info / sizeof dtype_info[0]); i++)
        if (strcmp(name, dtype_info[i].name) == 0) {
            *t = (kb_dtype)i;
            return KB_OK;
        }
    return KB_ERR;
}

int kb_mul_i64(int64_t a, int64_t b, int64_t *out) {
    if (a < 0 || b < 0 || (b != 0 && a > INT64_MAX / b)) return KB_ERR;
    *out = a * b;
    return KB_OK;
}

int kb_prod_i64(const int64_t *factors, int n, int64_t *out) {
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (factors[i] < 0) return KB_ERR;
    for (int i = 0; i < n; i++) /* a zero factor makes any other product harmless */
        if (factors[i] == 0) {
            *out = 0;
            return KB_OK;
        }
    for (int i = 0; i < n; i++)
        if (kb_mul_i64(p, factors[i], &p) != KB_OK) return KB_ERR;
    *out = p;
    return KB_OK;
}

int kb_bytes_of(int64_t numel, size_t elem_size, size_t *out) {
    if (numel < 0 || (elem_size && (uint64_t)numel > SIZE_MAX / elem_size)) return KB_ERR;
    *out = (size_t)numel * elem_size;
    return KB_OK;
}

int64_t kb_numel(const kb_tensor *t) {
    int64_t n;
    return kb_prod_i64(t->shape, t->ndim, &n) == KB_OK ? n : INT64_MAX;
}

size_t kb_nbytes(const kb_tensor *t) {
    size_t b;
    int64_t n;
    if (kb_prod_i64(t->shape, t->ndim, &n) != KB_OK ||
        kb_bytes_of(n, kb_dtype_size(t->dtype), &b) != KB_OK)
        return SIZE_MAX;
    return b;
}

int kb_tensors_check_size(const kb_tensors *ts, kb_error *e) {
    size_t total = 0;
    for (int i = 0; i < ts->count; i++) {
        const kb_tensor *t = &ts->t[i];
        char shape[200];
        kb_tensor_shape_text(t, shape, sizeof shape);
        int64_t n;
        size_t b;
        if (kb_prod_i64(t->shape, t->ndim, &n) != KB_OK)
            return kb_fail(e, "tensor %s %s: the element count passes INT64_MAX (%lld)", t->name,
                           shape, (long long)INT64_MAX);
        if (kb_bytes_of(n, kb_dtype_size(t->dtype), &b) != KB_OK)
            return kb_fail(e, "tensor %s %s: %lld elements of %zu bytes pass SIZE_MAX bytes",
                           t->name, shape, (long long)n, kb_dtype_size(t->dtype));
        if (b > SIZE_MAX - total)
            return kb_fail(e, "tensor %s %s: the tensors' bytes together pass SIZE_MAX", t->name,
                           shape);
        total += b;
    }
    return KB_OK;
}

void kb_tensor_shape_text(const kb_tensor *t, char *buf, size_t n) {
    size_t used = (size_t)snprintf(buf, n, "%s[", kb_dtype_name(t->dtype));
    for (int d = 0; d < t->ndim && used < n; d++)
        used +=
            (size_t)snprintf(buf + used, n - used, "%s%lld", d ? "," : "", (long long)t->shape[d]);
    if (used < n) snprintf(buf + used, n - used, "]");
}

kb_tensor *kb_tensors_add(kb_tensors *ts, const char *name, kb_dtype dtype, int ndim,
                          const int64_t *shape) {
    assert(ts->count < KB_MAX_TENSORS && ndim <= KB_MAX_NDIM);
    kb_tensor *t = &ts->t[ts->count++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->dtype = dtype;
    t->ndim = ndim;
    for (int d = 0; d < ndim; d++) t->shape[d] = shape[d];
    return t;
}

kb_tensor *kb_tensors_find(kb_tensors *ts, const char *name) {
    for (int i = 0; i < ts->count; i++)
        if (strcmp(ts->t[i].name, name) == 0) return &ts->t[i];
    return NULL;
}

const kb_tensor *kb_tensors_get(const kb_tensors *ts, const char *name) {
    return kb_tensors_find((kb_tensors *)ts, name);
}

size_t kb_tensors_bytes(const kb_tensors *ts) {
    size_t b = 0;
    for (int i = 0; i < ts->count; i++) {
        size_t one = kb_nbytes(&ts->t[i]);
        b = one > SIZE_MAX - b ? SIZE_MAX : b + one; /* saturates, as kb_nbytes */
    }
    return b;
}

int kb_tensors_alloc_host(kb_tensors *ts, kb_error *e) {
    for (int i = 0; i < ts->count; i++) {
        size_t n = kb_nbytes(&ts->t[i]);
        ts->t[i].data = calloc(n ? n : 1, 1);
        if (!ts->t[i].data) {
            kb_tensors_free_host(ts);
            return kb_fail(e, "out of host memory: tensor %s needs %zu bytes", ts->t[i].name, n);
        }
    }
    return KB_OK;
}

void kb_tensors_free_host(kb_tensors *ts) {
    for (int i = 0; i < ts->count; i++) {
        free(ts->t[i].data);
        ts->t[i].data = NULL;
    }
}

/* ---- cases ---- */

int kb_axis_index(const kb_op *op, const char *axis) {
    for (int i = 0; op->axes[i].name; i++)
        if (strcmp(op->axes[i].name, axis) == 0) return i;
    return -1;
}

static int parse_number(const char *text, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) return KB_ERR;
    *out = v;
    return KB_OK;
}

static void format_range(const kb_axis *a, char *buf, size_t n) {
    if (a->kind == KB_AXIS_ENUM)
        snprintf(buf, n, "one of %s", a->choices);
    else if (a->kind == KB_AXIS_INT)
        snprintf(buf, n, "an integer in [%.0f, %.0f]", a->min, a->max);
    else if (a->kind == KB_AXIS_FLOAT)
        snprintf(buf, n, "a number in [%g, %g]", a->min, a->max);
    else
        snprintf(buf, n, "text");
}

static int enum_has(const char *choices, const char *v) {
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0) return 1;
        if (!q) break;
        p = q + 1;
    }
    return 0;
}

int kb_case_set(kb_case *c, const char *axis, const char *text, kb_error *e) {
    int i = kb_axis_index(c->op, axis);
    if (i < 0) {
        char names[512] = "";
        for (int k = 0; c->op->axes[k].name; k++) {
            if (k) strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, c->op->axes[k].name, sizeof names - strlen(names) - 1);
        }
        return kb_fail(e, "op %s has no axis '%s' (axes: %s)", c->op->name, axis, names);
    }
    const kb_axis *a = &c->op->axes[i];
    kb_value *v = &c->v[i];
    char range[300];
    format_range(a, range, sizeof range);
    if (strlen(text) >= sizeof v->s)
        return kb_fail(e, "%s: value is longer than %d characters", axis, KB_STR - 1);
    double num = 0;
    switch (a->kind) {
    case KB_AXIS_INT:
        if (parse_number(text, &num) != KB_OK || num != floor(num))
            return kb_fail(e, "%s=%s: not an integer (expected %s)", axis, text, range);
        if (num < a->min || num > a->max)
            return kb_fail(e, "%s=%s: out of range (expected %s)", axis, text, range);
        v->i = (int64_t)num;
        v->f = num;
        snprintf(v->s, sizeof v->s, "%lld", (long long)v->i);
        return KB_OK;
    case KB_AXIS_FLOAT:
        if (parse_number(text, &num) != KB_OK)
            return kb_fail(e, "%s=%s: not a number (expected %s)", axis, text, range);
        if (num < a->min || num > a->max)
            return kb_fail(e, "%s=%s: out of range (expected %s)", axis, text, range);
        v->f = num;
        v->i = (int64_t)num;
        snprintf(v->s, sizeof v->s, "%g", num);
        return KB_OK;
    case KB_AXIS_ENUM:
        if (!enum_has(a->choices, text))
            return kb_fail(e, "%s=%s: unknown value (expected %s)", axis, text, range);
        break;
    case KB_AXIS_STRING:
        break;
    }
    snprintf(v->s, sizeof v->s, "%s", text);
    v->i = 0;
    v->f = 0;
    v->dir = NULL; /* text as given: the caller says where else a path may lie */
    v->dir_first = 0;
    return KB_OK;
}

void kb_case_defaults(kb_case *c, const kb_op *op) {
    memset(c, 0, sizeof *c);
    c->op = op;
    for (int i = 0; op->axes[i].name; i++) {
        kb_error e;
        c->naxes = i + 1;
        int rc = kb_case_set(c, op->axes[i].name, op->axes[i].def, &e);
        assert(rc == KB_OK && "an axis default is outside its own range");
        (void)rc;
    }
}

static const kb_value *value_of(const kb_case *c, const char *axis) {
    int i = kb_axis_index(c->op, axis);
    assert(i >= 0 && "unknown axis name in an op's accessor");
    return &c->v[i < 0 ? 0 : i];
}

int64_t kb_int(const kb_case *c, const char *axis) {
    return value_of(c, axis)->i;
}
double kb_float(const kb_case *c, const char *axis) {
    return value_of(c, axis)->f;
}
const char *kb_str(const kb_case *c, const char *axis) {
    return value_of(c, axis)->s;
}

int kb_case_path(const kb_case *c, const char *axis, char *buf, size_t n, kb_error *e) {
    const kb_value *v = value_of(c, axis);
    char cand[2][2 * KB_STR + 2];
    int ncand = 0;
    if (v->s[0] == '/' || !v->dir || !v->dir_first)
        snprintf(cand[ncand++], sizeof cand[0], "%s", v->s);
    if (v->s[0] != '/' && v->dir) snprintf(cand[ncand++], sizeof cand[0], "%s/%s", v->dir, v->s);
    int err = ENOENT;
    for (int k = 0; k < ncand; k++) {
        struct stat st;
        if (stat(cand[k], &st) != 0) {
            if (err == ENOENT) err = errno; /* a reason other than absence says more */
            continue;
        }
        if (strlen(cand[k]) >= n)
            return kb_fail(e, "%s=%s: the path %s is longer than %zu characters", axis, v->s,
                           cand[k], n - 1);
        snprintf(buf, n, "%s", cand[k]);
        return KB_OK;
    }
    if (ncand == 1 && strcmp(cand[0], v->s) == 0)
        return kb_fail(e, "%s=%s: cannot open: %s", axis, v->s, strerror(err));
    return kb_fail(e, "%s=%s: cannot open: %s (looked for %s%s%s)", axis, v->s, strerror(err),
                   cand[0], ncand > 1 ? " and " : "", ncand > 1 ? cand[1] : "");
}

void kb_case_format(const kb_case *c, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->naxes && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", i ? " " : "",
                                 c->op->axes[i].name, c->v[i].s);
}

/* ---- rng: splitmix64 ---- */

uint64_t kb_rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double kb_rng_uniform(uint64_t *s) {
    return (double)(kb_rng_next(s) >> 11) * 0x1.0p-53;
}

double kb_rng_normal(uint64_t *s) {
    double u1 = kb_rng_uniform(s), u2 = kb_rng_uniform(s);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int64_t kb_rng_int(uint64_t *s, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(span ? kb_rng_next(s) % span : kb_rng_next(s));
}

/* ---- f16 / bf16 ---- */

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t kb_f32_to_bf16(float f) {
    uint32_t u = f32_bits(f);
    if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7FFF + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float kb_bf16_to_f32(uint16_t h) {
    return bits_f32((uint32_t)h << 16);
}

uint16_t kb_f32_to_f16(float f) {
    uint32_t u = f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7FFFFFFFu;
    if (a >= 0x7F800000u) return (uint16_t)(sign | 0x7C00u | (a > 0x7F800000u ? 0x200u : 0));
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds past 65504 */
    if (a < 0x38800000u) {                                   /* subnormal or zero */
        float m = bits_f32(a) * 0x1.0p24f;                   /* in units of 2^-24 */
        return (uint16_t)(sign | (uint32_t)nearbyintf(m));
    }
    uint32_t r = a + 0xFFFu + ((a >> 13) & 1u) - (112u << 23);
    return (uint16_t)(sign | (r >> 13));
}

float kb_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0) return (sign ? -1.0f : 1.0f) * (float)m * 0x1.0p-24f;
    if (e == 31) return bits_f32(sign | 0x7F800000u | (m << 13));
    return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

double kb_load_as_double(const void *data, kb_dtype t, int64_t i) {
    switch (t) {
    case KB_U8:
        return ((const uint8_t *)data)[i];
    case KB_I32:
        return ((const int32_t *)data)[i];
    case KB_I64:
        return (double)((const int64_t *)data)[i];
    case KB_F16:
        return kb_f16_to_f32(((const uint16_t *)data)[i]);
    case KB_BF16:
        return kb_bf16_to_f32(((const uint16_t *)data)[i]);
    case KB_F32:
        return ((const float *)data)[i];
    case KB_F64:
        return ((const double *)data)[i];
    }
    return NAN;
}
