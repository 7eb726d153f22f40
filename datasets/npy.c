/* npy.c — NumPy .npy reader and writer (format spec: numpy/lib/format.py).
 *
 * A file is: the magic "\x93NUMPY", major and minor version bytes, the header
 * length (uint16 LE in 1.x, uint32 LE in 2.x/3.x), the header — a Python dict
 * literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded
 * with spaces and ended by '\n' — then the raw data.
 *
 * Every byte here may come from a hostile file (this is fuzzed): the header is
 * parsed with an explicit end pointer, never past it; dimensions are checked
 * for sign and overflow; the data size is checked against what the file holds
 * before anything of that size is allocated.
 */
#include "npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NPY_PREFIX_V1 = 10, /* magic 6 + version 2 + uint16 length */
    NPY_PREFIX_V2 = 12, /* magic 6 + version 2 + uint32 length */
    NPY_ALIGN = 64,     /* data starts at a multiple of this (NumPy's ARRAY_ALIGN) */
    /* NumPy itself refuses headers over 10000 bytes unless told otherwise; a
     * header of ours is under 200. The bound keeps a hostile length from
     * allocating gigabytes. */
    NPY_MAX_HEADER = 1 << 20,
    NPY_MAX_DESCR = 32,
    NPY_SHAPE_TEXT = 8 + KB_MAX_NDIM * 22, /* "(d, d, ...)" with 20-digit dims */
};

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* The first row of a dtype is what the writer uses. */
static const struct {
    const char *descr;
    kb_dtype dtype;
} npy_dtypes[] = {
    {"|u1", KB_U8},  {"<u1", KB_U8},  {"u1", KB_U8},   {"<f2", KB_F16},
    {"<f4", KB_F32}, {"<f8", KB_F64}, {"<i4", KB_I32}, {"<i8", KB_I64},
};
enum { NPY_NDTYPES = sizeof npy_dtypes / sizeof npy_dtypes[0] };
static const char npy_supported[] = "|u1, <f2, <f4, <f8, <i4, <i8";

/* Python's spelling of a shape: "()", "(5,)", "(3, 4)". */
static void format_shape(int ndim, const int64_t *shape, char *buf, size_t size) {
    size_t n = (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < ndim && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (n < size) snprintf(buf + n, size - n, ndim == 1 ? ",)" : ")");
}

/* Elements and bytes of a shape, or KB_ERR when a dimension is negative or
 * the total does not fit in int64/size_t. */
static int shape_bytes(int ndim, const int64_t *shape, size_t elem, int64_t *numel, size_t *bytes) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0) return KB_ERR;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0) {
            n = 0;
            break;
        }
        if (n > INT64_MAX / shape[d]) return KB_ERR;
        n *= shape[d];
    }
    if ((uint64_t)n > SIZE_MAX / elem) return KB_ERR;
    *numel = n;
    *bytes = (size_t)n * elem;
    return KB_OK;
}

/* ---- reading ------------------------------------------------------------ */

/* Where the bytes come from: a file or a buffer, with its total size known
 * up front so that a shape can be checked before its data is allocated. */
typedef struct npy_src {
    FILE *f;
    const unsigned char *bytes;
    uint64_t size, pos;
    const char *label;
} npy_src;

static size_t src_read(npy_src *s, void *dst, size_t n) {
    if (n > s->size - s->pos) n = (size_t)(s->size - s->pos);
    if (n == 0) return 0;
    size_t got = n;
    if (s->f)
        got = fread(dst, 1, n, s->f);
    else
        memcpy(dst, s->bytes + s->pos, n);
    s->pos += got;
    return got;
}

/* The header dict, parsed from [p, end) and never beyond. */
typedef struct npy_parser {
    const char *begin, *p, *end;
    const char *label;
    kb_error *e;
} npy_parser;

static void skip_space(npy_parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int accept(npy_parser *ps, char c) {
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == c) {
        ps->p++;
        return 1;
    }
    return 0;
}

static int expect(npy_parser *ps, char c, const char *where) {
    if (accept(ps, c)) return KB_OK;
    if (ps->p >= ps->end)
        return kb_fail(ps->e, "%s: malformed .npy header: it ends where '%c' was expected %s",
                       ps->label, c, where);
    return kb_fail(ps->e, "%s: malformed .npy header: '%c' expected %s, found '%c' at offset %ld",
                   ps->label, c, where, (*ps->p >= 32 && *ps->p < 127) ? *ps->p : '?',
                   (long)(ps->p - ps->begin));
}

/* A quoted Python string without escapes (keys and dtype names have none);
 * unprintable bytes become '?' so that the message stays readable. */
static int parse_string(npy_parser *ps, char *out, size_t cap, const char *what) {
    skip_space(ps);
    if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
        return kb_fail(ps->e, "%s: malformed .npy header: a quoted string expected for %s",
                       ps->label, what);
    char quote = *ps->p++;
    size_t n = 0;
    while (ps->p < ps->end && *ps->p != quote) {
        if (n + 1 >= cap)
            return kb_fail(ps->e, "%s: malformed .npy header: %s is longer than %zu characters",
                           ps->label, what, cap - 1);
        char c = *ps->p++;
        out[n++] = (c >= 32 && c < 127) ? c : '?';
    }
    if (ps->p >= ps->end)
        return kb_fail(ps->e, "%s: malformed .npy header: unterminated string in %s", ps->label,
                       what);
    ps->p++;
    out[n] = '\0';
    return KB_OK;
}

static int parse_bool(npy_parser *ps, int *v) {
    skip_space(ps);
    size_t left = (size_t)(ps->end - ps->p);
    if (left >= 4 && memcmp(ps->p, "True", 4) == 0) {
        ps->p += 4;
        *v = 1;
        return KB_OK;
    }
    if (left >= 5 && memcmp(ps->p, "False", 5) == 0) {
        ps->p += 5;
        *v = 0;
        return KB_OK;
    }
    return kb_fail(ps->e, "%s: malformed .npy header: fortran_order must be True or False",
                   ps->label);
}

static int parse_dim(npy_parser *ps, int64_t *v) {
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '-')
        return kb_fail(ps->e, "%s: negative dimension in the .npy shape", ps->label);
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return kb_fail(ps->e, "%s: malformed .npy header: a dimension must be an integer",
                       ps->label);
    int64_t n = 0;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        int digit = *ps->p++ - '0';
        if (n > (INT64_MAX - digit) / 10)
            return kb_fail(ps->e, "%s: a dimension of the .npy shape overflows int64", ps->label);
        n = n * 10 + digit;
    }
    if (ps->p < ps->end && *ps->p == 'L') ps->p++; /* Python 2 wrote longs as 3L */
    *v = n;
    return KB_OK;
}

/* "()", "(5,)", "(3, 4)" or "(3, 4,)". */
static int parse_shape(npy_parser *ps, int *ndim, int64_t *shape) {
    if (expect(ps, '(', "to open the shape tuple") != KB_OK) return KB_ERR;
    int n = 0;
    while (!accept(ps, ')')) {
        if (n == KB_MAX_NDIM)
            return kb_fail(ps->e, "%s: the .npy shape has more than %d dimensions (KB_MAX_NDIM)",
                           ps->label, KB_MAX_NDIM);
        if (parse_dim(ps, &shape[n++]) != KB_OK) return KB_ERR;
        if (accept(ps, ')')) break;
        if (expect(ps, ',', "between dimensions") != KB_OK) return KB_ERR;
    }
    *ndim = n;
    return KB_OK;
}

typedef struct npy_header {
    char descr[NPY_MAX_DESCR];
    int fortran_order;
    int ndim;
    int64_t shape[KB_MAX_NDIM];
} npy_header;

static int parse_header(npy_parser *ps, npy_header *h) {
    int seen_descr = 0, seen_order = 0, seen_shape = 0;
    if (expect(ps, '{', "to open the header dict") != KB_OK) return KB_ERR;
    while (!accept(ps, '}')) {
        char key[32];
        if (parse_string(ps, key, sizeof key, "a header key") != KB_OK) return KB_ERR;
        if (expect(ps, ':', "after a header key") != KB_OK) return KB_ERR;
        int *seen;
        if (strcmp(key, "descr") == 0) {
            skip_space(ps);
            if (ps->p < ps->end && *ps->p == '[')
                return kb_fail(ps->e, "%s: structured dtype (a list descr) is not supported",
                               ps->label);
            seen = &seen_descr;
            if (parse_string(ps, h->descr, sizeof h->descr, "descr") != KB_OK) return KB_ERR;
        } else if (strcmp(key, "fortran_order") == 0) {
            seen = &seen_order;
            if (parse_bool(ps, &h->fortran_order) != KB_OK) return KB_ERR;
        } else if (strcmp(key, "shape") == 0) {
            seen = &seen_shape;
            if (parse_shape(ps, &h->ndim, h->shape) != KB_OK) return KB_ERR;
        } else {
            return kb_fail(ps->e, "%s: unexpected key '%s' in the .npy header", ps->label, key);
        }
        if (*seen)
            return kb_fail(ps->e, "%s: key '%s' appears twice in the .npy header", ps->label, key);
        *seen = 1;
        if (accept(ps, '}')) break;
        if (expect(ps, ',', "between header entries") != KB_OK) return KB_ERR;
    }
    skip_space(ps);
    if (ps->p != ps->end)
        return kb_fail(ps->e, "%s: malformed .npy header: text after the closing '}'", ps->label);
    const char *missing = !seen_descr   ? "descr"
                          : !seen_order ? "fortran_order"
                          : !seen_shape ? "shape"
                                        : NULL;
    if (missing) return kb_fail(ps->e, "%s: the .npy header lacks '%s'", ps->label, missing);
    return KB_OK;
}

static int lookup_descr(const char *label, const char *descr, kb_dtype *dtype, kb_error *e) {
    for (int i = 0; i < NPY_NDTYPES; i++)
        if (strcmp(descr, npy_dtypes[i].descr) == 0) {
            *dtype = npy_dtypes[i].dtype;
            return KB_OK;
        }
    if (descr[0] == '>')
        return kb_fail(e,
                       "%s: big-endian dtype '%s' is not supported: only little-endian files are "
                       "read (convert with a.astype(a.dtype.newbyteorder('<')))",
                       label, descr);
    return kb_fail(e, "%s: unsupported dtype '%s' (supported: %s)", label, descr, npy_supported);
}

/* The header: dtype, ndim and shape into t (data untouched), *bytes the data
 * size the shape needs, checked against what the source holds after it. */
static int read_npy_header(npy_src *s, kb_tensor *t, size_t *bytes_out, kb_error *e) {
    unsigned char pre[NPY_PREFIX_V2];
    size_t got = src_read(s, pre, NPY_PREFIX_V1);
    if (got < sizeof npy_magic || memcmp(pre, npy_magic, sizeof npy_magic) != 0)
        return kb_fail(e, "%s: not a .npy file (bad magic: it does not start with \\x93NUMPY)",
                       s->label);
    if (got < 8) return kb_fail(e, "%s: truncated .npy file: no format version", s->label);
    int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
        return kb_fail(e, "%s: unsupported .npy format version %d.%d (1.0, 2.0, 3.0 are read)",
                       s->label, major, minor);
    size_t prefix = major == 1 ? NPY_PREFIX_V1 : NPY_PREFIX_V2;
    if (got < NPY_PREFIX_V1 || src_read(s, pre + got, prefix - got) != prefix - got)
        return kb_fail(e, "%s: truncated .npy header: the header length is missing", s->label);
    uint32_t hlen = major == 1 ? (uint32_t)pre[8] | (uint32_t)pre[9] << 8
                               : (uint32_t)pre[8] | (uint32_t)pre[9] << 8 |
                                     (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    if (hlen > NPY_MAX_HEADER)
        return kb_fail(e, "%s: .npy header length %lu exceeds the %d-byte limit", s->label,
                       (unsigned long)hlen, NPY_MAX_HEADER);
    char *text = malloc(hlen ? hlen : 1);
    if (!text) return kb_fail(e, "%s: out of host memory for the .npy header", s->label);
    got = src_read(s, text, hlen);
    if (got != hlen) {
        free(text);
        return kb_fail(e, "%s: truncated .npy header: %lu bytes promised, %zu present", s->label,
                       (unsigned long)hlen, got);
    }
    npy_header h;
    memset(&h, 0, sizeof h);
    npy_parser ps = {text, text, text + hlen, s->label, e};
    int rc = parse_header(&ps, &h);
    free(text);
    if (rc != KB_OK) return KB_ERR;

    kb_dtype dtype = KB_U8;
    if (lookup_descr(s->label, h.descr, &dtype, e) != KB_OK) return KB_ERR;
    if (h.fortran_order)
        return kb_fail(e,
                       "%s: fortran_order is True: only C-order arrays are read "
                       "(save np.ascontiguousarray(a))",
                       s->label);
    char shape_text[NPY_SHAPE_TEXT];
    format_shape(h.ndim, h.shape, shape_text, sizeof shape_text);
    int64_t numel;
    size_t bytes;
    if (shape_bytes(h.ndim, h.shape, kb_dtype_size(dtype), &numel, &bytes) != KB_OK)
        return kb_fail(e, "%s: shape %s of dtype '%s' overflows the addressable size", s->label,
                       shape_text, h.descr);
    uint64_t left = s->size - s->pos;
    if (bytes > left)
        return kb_fail(e,
                       "%s: data shorter than the shape says: shape %s of '%s' needs %zu bytes, "
                       "the file has %llu after the header",
                       s->label, shape_text, h.descr, bytes, (unsigned long long)left);
    t->dtype = dtype;
    t->ndim = h.ndim;
    memset(t->shape, 0, sizeof t->shape);
    memcpy(t->shape, h.shape, sizeof h.shape);
    *bytes_out = bytes;
    return KB_OK;
}

static int read_npy(npy_src *s, kb_tensor *t, kb_error *e) {
    kb_tensor h = *t;
    size_t bytes;
    if (read_npy_header(s, &h, &bytes, e) != KB_OK) return KB_ERR;
    char shape_text[NPY_SHAPE_TEXT];
    format_shape(h.ndim, h.shape, shape_text, sizeof shape_text);
    void *data = malloc(bytes ? bytes : 1);
    if (!data)
        return kb_fail(e, "%s: out of host memory: shape %s needs %zu bytes", s->label, shape_text,
                       bytes);
    size_t got = src_read(s, data, bytes);
    if (got != bytes) {
        free(data);
        return kb_fail(e, "%s: read error: %zu of %zu data bytes read", s->label, got, bytes);
    }
    h.data = data;
    *t = h;
    return KB_OK;
}

static int open_src(const char *path, npy_src *s, kb_error *e) {
    memset(s, 0, sizeof *s);
    s->label = path;
    s->f = fopen(path, "rb");
    if (!s->f) return kb_fail(e, "%s: cannot open for reading: %s", path, strerror(errno));
    long size = -1;
    if (fseek(s->f, 0, SEEK_END) == 0) size = ftell(s->f);
    if (size < 0 || fseek(s->f, 0, SEEK_SET) != 0) {
        fclose(s->f);
        return kb_fail(e, "%s: cannot determine the file size (not a regular file?)", path);
    }
    s->size = (uint64_t)size;
    return KB_OK;
}

int kb_npy_read(const char *path, kb_tensor *t, kb_error *e) {
    npy_src s;
    if (open_src(path, &s, e) != KB_OK) return KB_ERR;
    int rc = read_npy(&s, t, e);
    fclose(s.f);
    return rc;
}

int kb_npy_read_header(const char *path, kb_tensor *t, kb_error *e) {
    npy_src s;
    if (open_src(path, &s, e) != KB_OK) return KB_ERR;
    kb_tensor h = *t;
    size_t bytes;
    int rc = read_npy_header(&s, &h, &bytes, e);
    fclose(s.f);
    if (rc == KB_OK) {
        h.data = NULL;
        *t = h;
    }
    return rc;
}

/* ---- a case's tensor from a file ------------------------------------------ */

void kb_bf16_widen(const uint16_t *src, float *dst, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = kb_bf16_to_f32(src[i]);
}

int kb_bf16_narrow_exact(const float *src, uint16_t *dst, int64_t n, int64_t *bad) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &src[i], 4);
        if (u & 0xFFFFu) { /* bits a bf16 does not have: rounding would change the data */
            if (bad) *bad = i;
            return KB_ERR;
        }
        dst[i] = (uint16_t)(u >> 16);
    }
    return KB_OK;
}

int kb_npy_fits(const char *path, const kb_tensor *file, const kb_tensor *want, kb_error *e) {
    int64_t n_file = kb_numel(file), n_want = kb_numel(want);
    int same = (file->dtype == want->dtype || (want->dtype == KB_BF16 && file->dtype == KB_F32)) &&
               n_file == n_want && (file->ndim == want->ndim || n_want == 0);
    for (int d = 0; same && d < want->ndim && file->ndim == want->ndim; d++)
        same = file->shape[d] == want->shape[d];
    if (same) return KB_OK;
    char a[160], b[160];
    kb_tensor_shape_text(file, a, sizeof a);
    kb_tensor_shape_text(want, b, sizeof b);
    return kb_fail(e, "%s: %s, but the case's %s is %s%s", path, a, want->name, b,
                   want->dtype == KB_BF16 ? " (a bf16 tensor is read from an f32 file)" : "");
}

int kb_npy_read_into(const char *path, kb_tensor *want, kb_error *e) {
    kb_tensor file;
    memset(&file, 0, sizeof file);
    if (kb_npy_read(path, &file, e) != KB_OK) return KB_ERR;
    int rc = kb_npy_fits(path, &file, want, e);
    int64_t bad = 0;
    if (rc == KB_OK && want->dtype == KB_BF16 && file.dtype == KB_F32 &&
        kb_bf16_narrow_exact(file.data, want->data, kb_numel(want), &bad) != KB_OK) {
        float v;
        memcpy(&v, (const char *)file.data + 4 * bad, 4);
        rc = kb_fail(e,
                     "%s: element %lld (%.9g) is not a bf16 value: the case's %s is bf16, and "
                     "its f32 file must hold bf16 values exactly (the low 16 bits zero)",
                     path, (long long)bad, (double)v, want->name);
    } else if (rc == KB_OK && want->dtype == file.dtype) {
        memcpy(want->data, file.data, kb_nbytes(want));
    }
    free(file.data);
    return rc;
}

int kb_npy_read_buffer(const void *bytes, size_t size, const char *label, kb_tensor *t,
                       kb_error *e) {
    npy_src s = {0};
    s.bytes = bytes;
    s.size = bytes ? size : 0;
    s.label = label ? label : "<buffer>";
    return read_npy(&s, t, e);
}

/* ---- writing ------------------------------------------------------------ */

/* t as a .npy file: onto out when it is not NULL, else into a file at path
 * (created once t is known to be writable, removed when a write fails);
 * path names the file in messages either way. */
static int npy_write(FILE *out, const char *path, const kb_tensor *t, kb_error *e) {
    if (t->dtype == KB_BF16) { /* NumPy has no bf16: f32 holds every bf16 value exactly */
        kb_tensor wide = *t;
        wide.dtype = KB_F32;
        int64_t n;
        size_t bytes;
        if (t->ndim < 0 || t->ndim > KB_MAX_NDIM ||
            shape_bytes(t->ndim, t->shape, 4, &n, &bytes) != KB_OK || (bytes && !t->data))
            return npy_write(out, path, &wide, e); /* the same checks, the same messages */
        wide.data = malloc(bytes ? bytes : 1);
        if (!wide.data)
            return kb_fail(e, "%s: out of host memory widening bf16 tensor '%s' to f32", path,
                           t->name);
        kb_bf16_widen(t->data, wide.data, n);
        int rc = npy_write(out, path, &wide, e);
        free(wide.data);
        return rc;
    }
    const char *descr = NULL;
    for (int i = 0; i < NPY_NDTYPES && !descr; i++)
        if (npy_dtypes[i].dtype == t->dtype) descr = npy_dtypes[i].descr;
    if (!descr)
        return kb_fail(e, "%s: tensor '%s' is %s, which has no NumPy dtype", path, t->name,
                       kb_dtype_name(t->dtype));
    if (t->ndim < 0 || t->ndim > KB_MAX_NDIM)
        return kb_fail(e, "%s: tensor '%s' has ndim %d (0 to %d allowed)", path, t->name, t->ndim,
                       KB_MAX_NDIM);
    char shape_text[NPY_SHAPE_TEXT];
    format_shape(t->ndim, t->shape, shape_text, sizeof shape_text);
    int64_t numel;
    size_t bytes;
    if (shape_bytes(t->ndim, t->shape, kb_dtype_size(t->dtype), &numel, &bytes) != KB_OK)
        return kb_fail(e, "%s: tensor '%s' has an invalid shape %s", path, t->name, shape_text);
    if (bytes && !t->data) return kb_fail(e, "%s: tensor '%s' has no data", path, t->name);

    char dict[64 + NPY_SHAPE_TEXT];
    int dict_len =
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
                 shape_text);
    /* The header (dict, space padding, '\n') fills the prefix up to a multiple
     * of 64; format 2.0 only when that needs more than 16 bits of length. */
    size_t prefix = NPY_PREFIX_V1;
    size_t total = (prefix + (size_t)dict_len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total - prefix > 0xFFFF) {
        prefix = NPY_PREFIX_V2;
        total = (prefix + (size_t)dict_len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    }
    size_t hlen = total - prefix;
    unsigned char head[NPY_PREFIX_V2 + sizeof dict + NPY_ALIGN];
    memcpy(head, npy_magic, sizeof npy_magic);
    head[6] = prefix == NPY_PREFIX_V1 ? 1 : 2;
    head[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++) head[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(head + prefix, dict, (size_t)dict_len);
    memset(head + prefix + dict_len, ' ', hlen - (size_t)dict_len - 1);
    head[total - 1] = '\n';

    FILE *f = out ? out : fopen(path, "wb");
    if (!f) return kb_fail(e, "%s: cannot open for writing", path);
    int ok =
        fwrite(head, 1, total, f) == total && (bytes == 0 || fwrite(t->data, 1, bytes, f) == bytes);
    ok = (out ? fflush(f) == 0 && !ferror(f) : fclose(f) == 0) && ok;
    if (!ok) {
        if (!out) remove(path);
        return kb_fail(e, "%s: write failed (%zu bytes of tensor '%s'); disk full?", path,
                       total + bytes, t->name);
    }
    return KB_OK;
}

int kb_npy_write(const char *path, const kb_tensor *t, kb_error *e) {
    return npy_write(NULL, path, t, e);
}

int kb_npy_write_stream(FILE *f, const char *label, const kb_tensor *t, kb_error *e) {
    return npy_write(f, label, t, e);
}
