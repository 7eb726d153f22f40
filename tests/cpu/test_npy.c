/* test_npy.c — the .npy reader and writer: round trips of every dtype, the
 * exact header NumPy writes, format 2.0, and malformed files that must each
 * be refused with a message naming the problem (never a crash).
 *
 *   ./test_npy [TEST_NAME]
 */
#define _POSIX_C_SOURCE 200809L
#include "kbtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "npy.h"

/* ---- helpers ---- */

/* A temporary path for this process; each test removes the file it makes. */
static const char *scratch(const char *name) {
    static char path[128];
    snprintf(path, sizeof path, "/tmp/kbench_test_npy_%ld_%s", (long)getpid(), name);
    return path;
}

/* A tensor of the given dtype and shape whose bytes are all distinct-ish. */
static kb_tensor make_tensor(kb_dtype dtype, int ndim, const int64_t *shape) {
    kb_tensor t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "x");
    t.dtype = dtype;
    t.ndim = ndim;
    for (int d = 0; d < ndim; d++) t.shape[d] = shape[d];
    size_t n = kb_nbytes(&t);
    t.data = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) ((uint8_t *)t.data)[i] = (uint8_t)(i * 37 + 11);
    return t;
}

static int round_trips(kb_dtype dtype, int ndim, const int64_t *shape) {
    kb_tensor a = make_tensor(dtype, ndim, shape);
    kb_tensor b;
    memset(&b, 0, sizeof b);
    snprintf(b.name, sizeof b.name, "kept");
    kb_error e = {""};
    const char *path = scratch("rt.npy");
    int ok = kb_npy_write(path, &a, &e) == KB_OK && kb_npy_read(path, &b, &e) == KB_OK &&
             b.dtype == a.dtype && b.ndim == a.ndim && strcmp(b.name, "kept") == 0 &&
             memcmp(a.shape, b.shape, sizeof a.shape) == 0 &&
             memcmp(a.data, b.data, kb_nbytes(&a)) == 0;
    if (!ok) fprintf(stderr, "  %s %s: %s\n", kb_dtype_name(dtype), path, e.msg);
    remove(path);
    free(a.data);
    free(b.data);
    return ok;
}

/* The bytes kb_npy_write puts in a file for t (0 when it fails). */
static size_t written_bytes(const kb_tensor *t, char *buf, size_t cap) {
    kb_error e = {""};
    const char *path = scratch("written.npy");
    size_t n = 0;
    FILE *f = kb_npy_write(path, t, &e) == KB_OK ? fopen(path, "rb") : NULL;
    if (f) {
        n = fread(buf, 1, cap, f);
        fclose(f);
    }
    remove(path);
    return n;
}

/* Read `size` bytes as a .npy file; returns the message ("" on success). */
static const char *read_error(const void *bytes, size_t size) {
    static kb_error e;
    kb_tensor t;
    memset(&t, 0, sizeof t);
    e.msg[0] = '\0';
    int rc = kb_npy_read_buffer(bytes, size, "bad.npy", &t, &e);
    if (rc == KB_OK) {
        free(t.data);
        return "";
    }
    if (t.data) return "error but t.data was set";
    return e.msg;
}

/* A v1.0 file with `dict` as header (padded to 64) and `data_bytes` zero bytes. */
static size_t npy_v1(char *buf, const char *dict, size_t data_bytes) {
    size_t dict_len = strlen(dict);
    size_t total = (10 + dict_len + 1 + 63) / 64 * 64;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)((total - 10) & 0xFF);
    buf[9] = (char)((total - 10) >> 8);
    memcpy(buf + 10, dict, dict_len);
    memset(buf + 10 + dict_len, ' ', total - 10 - dict_len - 1);
    buf[total - 1] = '\n';
    memset(buf + total, 0, data_bytes);
    return total + data_bytes;
}

static const char *dict_error(const char *dict, size_t data_bytes) {
    static char buf[4096];
    return read_error(buf, npy_v1(buf, dict, data_bytes));
}

/* ---- round trips ---- */

KB_TEST(every_dtype_round_trips_as_3d) {
    const int64_t shape[3] = {2, 3, 5};
    const kb_dtype dtypes[] = {KB_U8, KB_I32, KB_I64, KB_F16, KB_F32, KB_F64};
    for (int i = 0; i < 6; i++) KB_EXPECT(round_trips(dtypes[i], 3, shape));
}

KB_TEST(zero_d_array_round_trips_with_one_element) {
    KB_EXPECT(round_trips(KB_F64, 0, NULL));
    KB_EXPECT(round_trips(KB_U8, 0, NULL));
}

KB_TEST(one_d_six_d_and_empty_arrays_round_trip) {
    const int64_t one[1] = {7}, six[6] = {1, 2, 1, 3, 2, 2}, empty[2] = {0, 4};
    KB_EXPECT(round_trips(KB_I32, 1, one));
    KB_EXPECT(round_trips(KB_F32, 6, six));
    KB_EXPECT(round_trips(KB_F16, 2, empty));
}

KB_TEST(writer_header_is_byte_identical_to_numpy_save) {
    /* np.save(f, np.zeros((2, 3), np.float32)) with NumPy 2.4 */
    static const char numpy_head[] =
        "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    const int64_t shape[2] = {2, 3};
    kb_tensor a = make_tensor(KB_F32, 2, shape);
    char buf[256] = {0};
    KB_EXPECT(written_bytes(&a, buf, sizeof buf) == 128 + 24); /* data at 128: 64-aligned */
    KB_EXPECT(memcmp(buf, numpy_head, sizeof numpy_head - 1) == 0);
    KB_EXPECT(buf[127] == '\n' && buf[126] == ' ');
    KB_EXPECT(memcmp(buf + 128, a.data, 24) == 0);
    free(a.data);
}

KB_TEST(u8_is_written_as_pipe_u1_and_read_from_every_u1_spelling) {
    const int64_t shape[1] = {2};
    kb_tensor a = make_tensor(KB_U8, 1, shape);
    char head[65] = {0};
    KB_EXPECT(written_bytes(&a, head, 64) == 64);
    KB_EXPECT_STR_CONTAINS(head + 10, "'descr': '|u1'");
    free(a.data);
    const char *spellings[] = {"{'descr': 'u1', 'fortran_order': False, 'shape': (2,), }",
                               "{'descr': '<u1', 'fortran_order': False, 'shape': (2,), }"};
    for (int i = 0; i < 2; i++) KB_EXPECT(strcmp(dict_error(spellings[i], 2), "") == 0);
}

KB_TEST(format_2_0_header_is_read) {
    static const char dict[] = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
    unsigned char buf[128 + 12];
    size_t dict_len = sizeof dict - 1, hlen = 128 - 12;
    memcpy(buf, "\x93NUMPY\x02\x00", 8);
    buf[8] = (unsigned char)hlen;
    buf[9] = buf[10] = buf[11] = 0;
    memcpy(buf + 12, dict, dict_len);
    memset(buf + 12 + dict_len, ' ', hlen - dict_len - 1);
    buf[127] = '\n';
    const int32_t values[3] = {-5, 7, 1 << 30};
    memcpy(buf + 128, values, sizeof values);
    const char *path = scratch("v2.npy");
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, 128 + sizeof values, f);
    fclose(f);
    kb_tensor t;
    memset(&t, 0, sizeof t);
    kb_error e = {""};
    KB_EXPECT(kb_npy_read(path, &t, &e) == KB_OK);
    KB_EXPECT(t.dtype == KB_I32 && t.ndim == 1 && t.shape[0] == 3);
    KB_EXPECT(t.data && memcmp(t.data, values, sizeof values) == 0);
    free(t.data);
    remove(path);
}

KB_TEST(python2_long_dims_and_double_quotes_are_read) {
    KB_EXPECT(strcmp(dict_error("{\"descr\": \"<f8\", \"fortran_order\": False, "
                                "\"shape\": (2L, 1L)}",
                                16),
                     "") == 0);
}

/* ---- refusals ---- */

KB_TEST(bad_magic_is_named) {
    KB_EXPECT_STR_CONTAINS(read_error("\x93NUMPX\x01\x00\x10\x00", 10), "bad magic");
    KB_EXPECT_STR_CONTAINS(read_error("PK\x03\x04", 4), "bad magic");
    KB_EXPECT_STR_CONTAINS(read_error("", 0), "bad magic");
}

KB_TEST(unsupported_version_is_named) {
    KB_EXPECT_STR_CONTAINS(read_error("\x93NUMPY\x04\x00\x10\x00", 10), "version 4.0");
}

KB_TEST(truncated_header_is_named) {
    char buf[256];
    size_t n = npy_v1(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
    KB_EXPECT_STR_CONTAINS(read_error(buf, 9), "truncated");
    KB_EXPECT_STR_CONTAINS(read_error(buf, 40), "truncated .npy header");
    KB_EXPECT(strcmp(read_error(buf, n), "") == 0);
}

KB_TEST(header_length_beyond_limit_is_refused) {
    KB_EXPECT_STR_CONTAINS(read_error("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13), "exceeds");
}

KB_TEST(fortran_order_is_refused) {
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16),
        "fortran_order");
}

KB_TEST(big_endian_is_refused) {
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8),
        "big-endian dtype '>f4'");
}

KB_TEST(unknown_descr_is_named) {
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16),
        "unsupported dtype '<c8'");
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", 2),
        "unsupported dtype '|b1'");
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8),
        "structured");
}

KB_TEST(data_shorter_than_shape_is_named) {
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 47),
        "data shorter than the shape says");
}

KB_TEST(absurd_dims_are_refused_before_allocating) {
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                   8),
        "overflows");
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                   8),
        "overflows int64");
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 8),
        "negative dimension");
    /* fits in size_t but the file is far shorter: refused without a 1 TB malloc */
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776,), }", 8),
        "data shorter");
}

KB_TEST(more_than_max_ndim_is_refused) {
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1), }", 4),
        "more than 6 dimensions");
}

KB_TEST(malformed_dicts_are_named) {
    KB_EXPECT_STR_CONTAINS(dict_error("{'descr': '<f4', 'shape': (2,), }", 8),
                           "lacks 'fortran_order'");
    KB_EXPECT_STR_CONTAINS(dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8),
                           "malformed");
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8),
        "unexpected key 'x'");
    KB_EXPECT_STR_CONTAINS(
        dict_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8),
        "twice");
    KB_EXPECT_STR_CONTAINS(dict_error("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", 8),
                           "True or False");
    KB_EXPECT_STR_CONTAINS(read_error("\x93NUMPY\x01\x00\x05\x00{'abc", 15), "unterminated");
    KB_EXPECT_STR_CONTAINS(dict_error("{'descr': '<f4                                        ", 8),
                           "descr is longer than 31 characters");
}

KB_TEST(missing_file_is_named) {
    kb_tensor t;
    memset(&t, 0, sizeof t);
    kb_error e = {""};
    KB_EXPECT(kb_npy_read("no/such/file.npy", &t, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "no/such/file.npy");
    KB_EXPECT(t.data == NULL);
}

KB_TEST(truncated_file_on_disk_is_named) {
    const int64_t shape[2] = {4, 4};
    kb_tensor a = make_tensor(KB_F32, 2, shape);
    kb_tensor b;
    memset(&b, 0, sizeof b);
    kb_error e = {""};
    const char *path = scratch("cut.npy");
    KB_EXPECT(kb_npy_write(path, &a, &e) == KB_OK);
    KB_EXPECT(truncate(path, 128 + 60) == 0);
    KB_EXPECT(kb_npy_read(path, &b, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "cut.npy: data shorter than the shape says");
    KB_EXPECT_STR_CONTAINS(e.msg, "needs 64 bytes, the file has 60");
    remove(path);
    free(a.data);
}

/* ---- bf16: NumPy has no such dtype, so its tensors travel as f32 ---- */

KB_TEST(every_bf16_bit_pattern_widens_and_narrows_back_exactly) {
    enum { N = 65536 };
    uint16_t *bits = malloc(N * sizeof *bits), *back = malloc(N * sizeof *back);
    float *wide = malloc(N * sizeof *wide);
    for (int i = 0; i < N; i++) bits[i] = (uint16_t)i; /* NaNs, infinities, -0, subnormals */
    kb_bf16_widen(bits, wide, N);
    int64_t bad = -1;
    KB_EXPECT(kb_bf16_narrow_exact(wide, back, N, &bad) == KB_OK);
    KB_EXPECT(memcmp(bits, back, N * sizeof *bits) == 0);
    free(bits);
    free(back);
    free(wide);
}

KB_TEST(an_f32_that_is_not_a_bf16_value_is_refused_at_its_index) {
    const float v[4] = {1.0f, -2.5f, 1.0f + 0x1.0p-20f, 3.0f}; /* v[2] needs 20 mantissa bits */
    uint16_t out[4];
    int64_t bad = -1;
    KB_EXPECT(kb_bf16_narrow_exact(v, out, 4, &bad) == KB_ERR);
    KB_EXPECT(bad == 2);
    uint32_t nan_payload = 0x7FC00001u; /* a NaN whose payload lies in the low 16 bits */
    float q;
    memcpy(&q, &nan_payload, 4);
    KB_EXPECT(kb_bf16_narrow_exact(&q, out, 1, &bad) == KB_ERR && bad == 0);
}

KB_TEST(bf16_is_written_as_f32_and_read_back_bit_for_bit) {
    const int64_t shape[2] = {3, 5};
    kb_tensor a = make_tensor(KB_BF16, 2, shape); /* arbitrary bits: NaNs among them */
    kb_error e = {""};
    const char *path = scratch("bf16.npy");
    KB_EXPECT(kb_npy_write(path, &a, &e) == KB_OK);
    kb_tensor h;
    memset(&h, 0, sizeof h);
    KB_EXPECT(kb_npy_read_header(path, &h, &e) == KB_OK);
    KB_EXPECT(h.dtype == KB_F32 && h.ndim == 2 && h.shape[0] == 3 && h.shape[1] == 5 && !h.data);
    kb_tensor b = a;
    b.data = calloc(15, 2);
    KB_EXPECT(kb_npy_read_into(path, &b, &e) == KB_OK);
    KB_EXPECT(memcmp(a.data, b.data, 15 * 2) == 0);
    remove(path);
    free(a.data);
    free(b.data);
}

KB_TEST(reading_a_bf16_tensor_from_inexact_f32_values_is_refused_by_name) {
    const int64_t shape[1] = {3};
    kb_tensor f = make_tensor(KB_F32, 1, shape);
    float v[3] = {0.5f, 0.1f, 2.0f}; /* 0.1 is no bf16 value */
    memcpy(f.data, v, sizeof v);
    kb_error e = {""};
    const char *path = scratch("inexact.npy");
    KB_EXPECT(kb_npy_write(path, &f, &e) == KB_OK);
    kb_tensor want = f;
    snprintf(want.name, sizeof want.name, "offset");
    want.dtype = KB_BF16;
    want.data = calloc(3, 2);
    KB_EXPECT(kb_npy_read_into(path, &want, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "inexact.npy: element 1 (0.100000001) is not a bf16 value");
    KB_EXPECT_STR_CONTAINS(e.msg, "offset is bf16");
    remove(path);
    free(f.data);
    free(want.data);
}

KB_TEST(reading_into_a_case_tensor_of_another_shape_or_dtype_is_refused) {
    const int64_t shape[1] = {4}, other[1] = {5};
    kb_tensor f = make_tensor(KB_I32, 1, shape);
    kb_error e = {""};
    const char *path = scratch("shape.npy");
    KB_EXPECT(kb_npy_write(path, &f, &e) == KB_OK);
    kb_tensor want = make_tensor(KB_I32, 1, other);
    snprintf(want.name, sizeof want.name, "keep");
    KB_EXPECT(kb_npy_read_into(path, &want, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "shape.npy: i32[4], but the case's keep is i32[5]");
    want.dtype = KB_BF16; /* only f32 stands in for bf16 */
    want.shape[0] = 4;
    KB_EXPECT(kb_npy_read_into(path, &want, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "i32[4], but the case's keep is bf16[4]");
    remove(path);
    free(f.data);
    free(want.data);
}

KB_TEST(write_with_negative_dim_is_refused) {
    kb_tensor a;
    memset(&a, 0, sizeof a);
    a.dtype = KB_F32;
    a.ndim = 2;
    a.shape[0] = 3;
    a.shape[1] = -1;
    kb_error e = {""};
    KB_EXPECT(kb_npy_write(scratch("neg.npy"), &a, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "invalid shape (3, -1)");
}

KB_TEST(stream_writer_writes_the_bytes_of_the_file_writer_and_leaves_the_stream_open) {
    const int64_t shape[2] = {3, 5};
    kb_dtype dtypes[2] = {KB_F32, KB_BF16};
    for (int d = 0; d < 2; d++) {
        kb_tensor a = make_tensor(dtypes[d], 2, shape);
        char want[512], got[512];
        size_t nwant = written_bytes(&a, want, sizeof want);
        FILE *f = tmpfile();
        kb_error e = {""};
        KB_EXPECT(f && kb_npy_write_stream(f, "label.npy", &a, &e) == KB_OK);
        KB_EXPECT(f && fputc('!', f) == '!'); /* still open for writing */
        size_t ngot = 0;
        if (f) {
            rewind(f);
            ngot = fread(got, 1, sizeof got, f);
            fclose(f);
        }
        KB_EXPECT(nwant > 0 && ngot == nwant + 1 && memcmp(got, want, nwant) == 0);
        a.shape[1] = -1; /* refused before a byte is written, naming the label */
        f = tmpfile();
        KB_EXPECT(f && kb_npy_write_stream(f, "label.npy", &a, &e) == KB_ERR && ftell(f) == 0);
        KB_EXPECT_STR_CONTAINS(e.msg, "label.npy");
        if (f) fclose(f);
        free(a.data);
    }
}

/* The message of a refused buffer names the file and the problem: one of
 * these phrases, each a check of read_npy (a message of another kind, or an
 * empty one, names nothing). */
static int names_a_problem(const char *msg) {
    static const char *const problems[] = {
        "not a .npy file (bad magic",
        "unsupported .npy format version",
        "truncated .npy",
        "malformed .npy header",
        "header length",
        "unsupported dtype",
        "big-endian",
        "fortran_order",
        "negative dimension",
        "overflows",
        "more than",
        "in the .npy header",
        "the .npy header lacks",
        "structured dtype",
        "data shorter than the shape says",
    };
    if (strncmp(msg, "bad.npy: ", 9) != 0) return 0;
    for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++)
        if (strstr(msg + 9, problems[i])) return 1;
    return 0;
}

/* Every prefix and every single-byte corruption of a valid file is either
 * read or refused with a message naming the problem: a miniature of the
 * libFuzzer run. */
KB_TEST(every_truncation_and_byte_flip_is_handled) {
    char buf[256];
    size_t n = npy_v1(buf, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 48);
    KB_EXPECT(n == 128 + 48); /* a 60-character dict pads the header to 128 */
    /* Each proper prefix misses a part, and the message says which: the magic
     * (6 bytes), the version (2), the header length (2), the header (118),
     * the data (48). */
    for (size_t len = 0; len < n; len++) {
        const char *msg = read_error(buf, len);
        const char *want = len < 6   ? "bad.npy: not a .npy file (bad magic"
                           : len < 8 ? "bad.npy: truncated .npy file: no format version"
                           : len < 10
                               ? "bad.npy: truncated .npy header: the header length is missing"
                           : len < 128 ? "bad.npy: truncated .npy header: 118 bytes promised"
                                       : "bad.npy: data shorter than the shape says";
        if (strncmp(msg, want, strlen(want)) != 0)
            fprintf(stderr, "  prefix of %zu bytes: \"%s\", wanted \"%s...\"\n", len, msg, want);
        KB_EXPECT(strncmp(msg, want, strlen(want)) == 0);
    }
    static const unsigned char values[] = {0x00, 0x20, 0x27, 0x28, 0x29, 0x2c, 0x2d,
                                           0x30, 0x39, 0x3a, 0x7b, 0x7d, 0x80, 0xff};
    int refused = 0;
    for (size_t i = 0; i < 128; i++)
        for (size_t v = 0; v < sizeof values; v++) {
            char mutated[256];
            memcpy(mutated, buf, n);
            mutated[i] = (char)values[v];
            const char *msg = read_error(mutated, n);
            if (msg[0] == '\0') continue; /* read: still a valid file */
            refused++;
            int named = i < 6    ? strstr(msg, "bad magic") != NULL
                        : i < 8  ? strstr(msg, "format version") != NULL
                        : i < 10 ? strstr(msg, ".npy header") != NULL && names_a_problem(msg)
                                 : names_a_problem(msg);
            if (!named) fprintf(stderr, "  byte %zu = 0x%02x: \"%s\"\n", i, values[v], msg);
            KB_EXPECT(named);
        }
    KB_EXPECT(refused > 128); /* most corruptions break the file */
}
