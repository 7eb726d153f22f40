/* test_image.c — photo loading (JPEG/PNG to BGR HWC uint8, conversions as
 * OpenCV's IMREAD_COLOR) and kb_image_fit's crop and mirror rules, checked on
 * hand-computed pixels. Runs from the repository root (CTest's working folder)
 * to find datasets/images/.
 *
 *   ./test_image [TEST_NAME]
 */
#define _POSIX_C_SOURCE 200809L
#include "kbtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "image.h"

/* ---- kb_image_fit (no decoder needed) ---- */

/* A BGR image whose pixel (y, x) is (y, x, 100). */
static uint8_t *coordinates_image(int h, int w) {
    uint8_t *p = malloc((size_t)h * w * 3);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *px = p + ((size_t)y * w + x) * 3;
            px[0] = (uint8_t)y;
            px[1] = (uint8_t)x;
            px[2] = 100;
        }
    return p;
}

/* 1 when fitting an sh x sw image to dh x dw makes every destination pixel
 * (y, x) the source pixel (rows[y], cols[x]). */
static int fits_as(int sh, int sw, int dh, int dw, const int *rows, const int *cols) {
    uint8_t *src = coordinates_image(sh, sw), *dst = malloc((size_t)dh * dw * 3);
    int all = kb_image_fit(src, sh, sw, dst, dh, dw) == KB_OK;
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
            const uint8_t *px = dst + ((size_t)y * dw + x) * 3;
            all &= px[0] == rows[y] && px[1] == cols[x] && px[2] == 100;
        }
    free(src);
    free(dst);
    return all;
}

KB_TEST(fit_smaller_takes_the_centred_window) {
    /* 4 x 5 -> 2 x 3: offsets (4 - 2) / 2 = 1 and (5 - 3) / 2 = 1 */
    const int rows[2] = {1, 2}, cols[3] = {1, 2, 3};
    KB_EXPECT(fits_as(4, 5, 2, 3, rows, cols));
}

KB_TEST(fit_odd_excess_rounds_the_offset_down) {
    /* 5 x 4 -> 2 x 1: offsets (5 - 2) / 2 = 1 and (4 - 1) / 2 = 1 */
    const int rows[2] = {1, 2}, cols[1] = {1};
    KB_EXPECT(fits_as(5, 4, 2, 1, rows, cols));
}

KB_TEST(fit_larger_mirror_tiles_with_the_edge_repeated) {
    /* 2 x 3 -> 5 x 7: rows 0 1 | 1 0 | 0, columns 0 1 2 | 2 1 0 | 0 */
    const int rows[5] = {0, 1, 1, 0, 0}, cols[7] = {0, 1, 2, 2, 1, 0, 0};
    KB_EXPECT(fits_as(2, 3, 5, 7, rows, cols));
}

KB_TEST(fit_crops_one_axis_while_mirroring_the_other) {
    /* 6 x 2 -> 2 x 5: rows from (6 - 2) / 2 = 2, columns 0 1 | 1 0 | 0 */
    const int rows[2] = {2, 3}, cols[5] = {0, 1, 1, 0, 0};
    KB_EXPECT(fits_as(6, 2, 2, 5, rows, cols));
}

KB_TEST(fit_same_size_is_a_copy) {
    const int rows[3] = {0, 1, 2}, cols[4] = {0, 1, 2, 3};
    KB_EXPECT(fits_as(3, 4, 3, 4, rows, cols));
}

KB_TEST(fit_one_pixel_source_fills_everything) {
    const int rows[4] = {0, 0, 0, 0}, cols[6] = {0, 0, 0, 0, 0, 0};
    KB_EXPECT(fits_as(1, 1, 4, 6, rows, cols));
}

KB_TEST(fit_refuses_empty_sizes) {
    uint8_t px[3] = {0};
    KB_EXPECT(kb_image_fit(px, 0, 1, px, 1, 1) == KB_ERR);
    KB_EXPECT(kb_image_fit(px, 1, 1, px, 1, -2) == KB_ERR);
    KB_EXPECT(kb_image_fit(NULL, 1, 1, px, 1, 1) == KB_ERR);
}

#ifndef KB_HAVE_IMAGE_IO

KB_TEST(load_says_it_was_built_without_decoders) {
    int h, w;
    uint8_t *bgr = NULL;
    kb_error e = {""};
    KB_EXPECT(kb_image_load(kbt_src("datasets/images/coffee.jpg"), &h, &w, &bgr, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "built without libjpeg/libpng");
}

#else

#include <jpeglib.h>
#include <png.h>

/* ---- helpers ---- */

/* A temporary path for this process; each test removes the file it makes. */
static const char *scratch(const char *name) {
    static char path[128];
    snprintf(path, sizeof path, "/tmp/kbench_test_image_%ld_%s", (long)getpid(), name);
    return path;
}

typedef struct loaded {
    int rc, h, w;
    uint8_t *bgr;
    kb_error e;
} loaded;

static loaded load(const char *path) {
    loaded l;
    memset(&l, 0, sizeof l);
    l.rc = kb_image_load(path, &l.h, &l.w, &l.bgr, &l.e);
    if (l.rc != KB_OK && l.bgr) l.rc = 99; /* an error must not hand back a buffer */
    return l;
}

static int is_bgr(const loaded *l, int y, int x, int b, int g, int r) {
    const uint8_t *p = l->bgr + ((size_t)y * l->w + x) * 3;
    return p[0] == b && p[1] == g && p[2] == r;
}

/* A small PNG to write: packed rows as libpng takes them (16-bit samples
 * big-endian), optionally a palette and a tRNS chunk. */
typedef struct png_spec {
    int w, h, color_type, depth, interlace;
    const uint8_t *rows;
    size_t row_bytes;
    const png_color *palette;
    int npalette;
    const uint8_t *trans;
    int ntrans;
} png_spec;

static void write_png(const char *path, const png_spec *p) {
    FILE *f = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) abort();
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)p->w, (png_uint_32)p->h, p->depth, p->color_type,
                 p->interlace, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (p->palette) png_set_PLTE(png, info, p->palette, p->npalette);
    if (p->trans) png_set_tRNS(png, info, p->trans, p->ntrans, NULL);
    png_write_info(png, info);
    png_set_interlace_handling(png);
    png_bytep row_ptrs[16];
    for (int y = 0; y < p->h; y++) row_ptrs[y] = (png_bytep)p->rows + (size_t)y * p->row_bytes;
    png_write_image(png, row_ptrs);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

/* 1 when the PNG of `p` loads as exactly the BGR pixels `bgr`. */
static int png_decodes_to(const png_spec *p, const uint8_t *bgr) {
    const char *path = scratch("fixture.png");
    write_png(path, p);
    loaded l = load(path);
    remove(path);
    if (l.rc != KB_OK) fprintf(stderr, "  %s\n", l.e.msg);
    int ok = l.rc == KB_OK && l.h == p->h && l.w == p->w &&
             memcmp(l.bgr, bgr, (size_t)p->h * p->w * 3) == 0;
    free(l.bgr);
    return ok;
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    fwrite(bytes, 1, n, f);
    fclose(f);
}

static size_t read_bytes(const char *path, uint8_t *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* The message of loading `n` bytes saved as `name` ("" when they load). */
static const char *load_error(const char *name, const void *bytes, size_t n) {
    static loaded l;
    const char *path = scratch(name);
    write_bytes(path, bytes, n);
    l = load(path);
    remove(path);
    free(l.bgr);
    return l.rc == KB_OK ? "" : l.rc == KB_ERR ? l.e.msg : "error with a buffer handed back";
}

/* ---- the committed photos ---- */

static int varied(const loaded *l) {
    size_t n = (size_t)l->h * l->w * 3;
    for (size_t i = 1; i < n; i++)
        if (l->bgr[i] != l->bgr[0]) return 1;
    return 0;
}

KB_TEST(committed_photos_load_with_their_sizes) {
    const struct {
        const char *path;
        int h, w;
    } photos[] = {{kbt_src("datasets/images/astronaut.jpg"), 512, 512},
                  {kbt_src("datasets/images/coffee.jpg"), 400, 600},
                  {kbt_src("datasets/images/chelsea.png"), 300, 451}};
    for (int i = 0; i < 3; i++) {
        loaded l = load(photos[i].path);
        KB_EXPECT(l.rc == KB_OK);
        if (l.rc != KB_OK) {
            fprintf(stderr, "  %s\n", l.e.msg);
            continue;
        }
        KB_EXPECT(l.h == photos[i].h && l.w == photos[i].w);
        KB_EXPECT(varied(&l));
        free(l.bgr);
    }
}

KB_TEST(png_photo_pixels_are_bgr_exactly) {
    /* RGB values from Pillow: chelsea[0,0] = (143,120,104), [150,200] = (125,64,35) */
    loaded l = load(kbt_src("datasets/images/chelsea.png"));
    KB_EXPECT(l.rc == KB_OK);
    if (l.rc != KB_OK) return;
    KB_EXPECT(is_bgr(&l, 0, 0, 104, 120, 143));
    KB_EXPECT(is_bgr(&l, 150, 200, 35, 64, 125));
    KB_EXPECT(is_bgr(&l, 299, 450, 128, 138, 162));
    free(l.bgr);
}

KB_TEST(jpeg_photo_channels_are_in_bgr_order) {
    /* the coffee photo is warm: mean R 158.5, G 85.8, B 51.6 (Pillow) */
    loaded l = load(kbt_src("datasets/images/coffee.jpg"));
    KB_EXPECT(l.rc == KB_OK);
    if (l.rc != KB_OK) return;
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < (size_t)l.h * l.w; i++)
        for (int c = 0; c < 3; c++) sum[c] += l.bgr[3 * i + c];
    double n = (double)l.h * l.w;
    KB_EXPECT_NEAR(sum[0] / n, 51.6, 1.0);
    KB_EXPECT_NEAR(sum[2] / n, 158.5, 1.0);
    free(l.bgr);
}

/* ---- conversions ---- */

KB_TEST(gray_png_replicates_into_three_equal_channels) {
    const uint8_t gray[2 * 3] = {0, 40, 80, 120, 200, 255};
    uint8_t bgr[2 * 3 * 3];
    for (int i = 0; i < 6 * 3; i++) bgr[i] = gray[i / 3];
    const png_spec p = {.w = 3,
                        .h = 2,
                        .color_type = PNG_COLOR_TYPE_GRAY,
                        .depth = 8,
                        .rows = gray,
                        .row_bytes = 3};
    KB_EXPECT(png_decodes_to(&p, bgr));
}

KB_TEST(one_bit_gray_png_expands_to_0_and_255) {
    const uint8_t bits[1] = {0xA0}; /* 1 0 1 0 */
    const uint8_t bgr[4 * 3] = {255, 255, 255, 0, 0, 0, 255, 255, 255, 0, 0, 0};
    const png_spec p = {.w = 4,
                        .h = 1,
                        .color_type = PNG_COLOR_TYPE_GRAY,
                        .depth = 1,
                        .rows = bits,
                        .row_bytes = 1};
    KB_EXPECT(png_decodes_to(&p, bgr));
}

KB_TEST(rgba_png_drops_alpha_without_blending) {
    const uint8_t rgba[2 * 4] = {10, 20, 30, 0, 200, 100, 50, 128};
    const uint8_t bgr[2 * 3] = {30, 20, 10, 50, 100, 200};
    const png_spec p = {.w = 2,
                        .h = 1,
                        .color_type = PNG_COLOR_TYPE_RGB_ALPHA,
                        .depth = 8,
                        .rows = rgba,
                        .row_bytes = 8};
    KB_EXPECT(png_decodes_to(&p, bgr));
}

KB_TEST(sixteen_bit_png_keeps_the_high_byte) {
    /* R 0x12ff, G 0xab01, B 0x0080 */
    const uint8_t rgb16[6] = {0x12, 0xff, 0xab, 0x01, 0x00, 0x80};
    const uint8_t bgr[3] = {0x00, 0xab, 0x12};
    const png_spec p = {.w = 1,
                        .h = 1,
                        .color_type = PNG_COLOR_TYPE_RGB,
                        .depth = 16,
                        .rows = rgb16,
                        .row_bytes = 6};
    KB_EXPECT(png_decodes_to(&p, bgr));
}

KB_TEST(palette_png_with_transparency_expands_to_its_colours) {
    const png_color palette[2] = {{255, 0, 0}, {0, 128, 255}};
    const uint8_t trans[1] = {0}, index[2] = {1, 0};
    const uint8_t bgr[2 * 3] = {255, 128, 0, 0, 0, 255};
    const png_spec p = {.w = 2,
                        .h = 1,
                        .color_type = PNG_COLOR_TYPE_PALETTE,
                        .depth = 8,
                        .rows = index,
                        .row_bytes = 2,
                        .palette = palette,
                        .npalette = 2,
                        .trans = trans,
                        .ntrans = 1};
    KB_EXPECT(png_decodes_to(&p, bgr));
}

KB_TEST(interlaced_png_is_read_whole) {
    uint8_t rgb[5 * 5 * 3], bgr[5 * 5 * 3];
    for (int i = 0; i < 5 * 5 * 3; i++) rgb[i] = (uint8_t)(i * 7);
    for (int i = 0; i < 5 * 5 * 3; i++) bgr[i] = rgb[i - i % 3 + 2 - i % 3];
    const png_spec p = {.w = 5,
                        .h = 5,
                        .color_type = PNG_COLOR_TYPE_RGB,
                        .depth = 8,
                        .interlace = PNG_INTERLACE_ADAM7,
                        .rows = rgb,
                        .row_bytes = 15};
    KB_EXPECT(png_decodes_to(&p, bgr));
}

KB_TEST(gray_jpeg_replicates_into_three_equal_channels) {
    enum { W = 16, H = 8 };
    uint8_t gray[W * H];
    for (int i = 0; i < W * H; i++) gray[i] = (uint8_t)(60 + (i % W) * 8);
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    const char *path = scratch("gray.jpg");
    FILE *f = fopen(path, "wb");
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = W;
    c.image_height = H;
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    for (int y = 0; y < H; y++) {
        JSAMPROW row = gray + y * W;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
    loaded l = load(path);
    KB_EXPECT(l.rc == KB_OK && l.h == H && l.w == W);
    if (l.rc == KB_OK) {
        int equal = 1, close = 1;
        for (int i = 0; i < W * H; i++) {
            const uint8_t *p = l.bgr + 3 * i;
            equal &= p[0] == p[1] && p[1] == p[2];
            close &= abs(p[0] - gray[i]) <= 3;
        }
        KB_EXPECT(equal);
        KB_EXPECT(close);
    }
    free(l.bgr);
    remove(path);
}

KB_TEST(format_comes_from_magic_bytes_not_the_name) {
    static uint8_t buf[300 * 1024];
    size_t n = read_bytes(kbt_src("datasets/images/chelsea.png"), buf, sizeof buf);
    KB_EXPECT(strcmp(load_error("really_a_png.jpg", buf, n), "") == 0);
    KB_EXPECT_STR_CONTAINS(load_error("text.png", "hello, not an image\n", 20),
                           "not a JPEG or PNG");
}

/* ---- corrupt files are errors ---- */

KB_TEST(truncated_jpeg_is_an_error_not_half_an_image) {
    static uint8_t buf[300 * 1024];
    size_t n = read_bytes(kbt_src("datasets/images/astronaut.jpg"), buf, sizeof buf);
    KB_EXPECT(n > 1000);
    const char *msg = load_error("cut.jpg", buf, n / 2);
    KB_EXPECT_STR_CONTAINS(msg, "corrupt JPEG");
    KB_EXPECT_STR_CONTAINS(msg, "cut.jpg");
}

KB_TEST(jpeg_with_garbage_after_the_magic_is_an_error) {
    uint8_t junk[512];
    for (int i = 0; i < 512; i++) junk[i] = (uint8_t)(i * 131 + 7);
    memcpy(junk, "\xff\xd8\xff", 3);
    KB_EXPECT_STR_CONTAINS(load_error("junk.jpg", junk, sizeof junk), "corrupt JPEG");
}

KB_TEST(truncated_or_damaged_png_is_an_error) {
    static uint8_t buf[300 * 1024];
    size_t n = read_bytes(kbt_src("datasets/images/chelsea.png"), buf, sizeof buf);
    KB_EXPECT_STR_CONTAINS(load_error("cut.png", buf, n / 3), "corrupt PNG");
    buf[20] ^= 0x55; /* inside IHDR: its CRC no longer matches */
    KB_EXPECT_STR_CONTAINS(load_error("crc.png", buf, n), "corrupt PNG");
}

KB_TEST(missing_file_is_named) {
    loaded l = load(kbt_src("datasets/images/no_such_photo.jpg"));
    KB_EXPECT(l.rc == KB_ERR);
    KB_EXPECT_STR_CONTAINS(l.e.msg, "no_such_photo.jpg");
}

/* ---- what validation asks before any decoding ---- */

static const char *probe_error(const char *name, const void *bytes, size_t n) {
    static kb_error e;
    const char *path = scratch(name);
    write_bytes(path, bytes, n);
    int rc = kb_image_probe(path, &e);
    remove(path);
    return rc == KB_OK ? "" : e.msg;
}

KB_TEST(probe_accepts_the_committed_photos) {
    kb_error e = {""};
    KB_EXPECT(kb_image_probe(kbt_src("datasets/images/astronaut.jpg"), &e) == KB_OK);
    KB_EXPECT(kb_image_probe(kbt_src("datasets/images/chelsea.png"), &e) == KB_OK);
}

KB_TEST(probe_and_load_name_a_directory_as_a_directory) {
    kb_error e = {""};
    KB_EXPECT(kb_image_probe("/tmp", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "/tmp: is a directory");
    loaded l = load("/tmp");
    KB_EXPECT(l.rc == KB_ERR);
    KB_EXPECT_STR_CONTAINS(l.e.msg, "/tmp: is a directory");
}

KB_TEST(probe_refuses_a_text_file_and_an_empty_file_by_their_bytes) {
    KB_EXPECT_STR_CONTAINS(probe_error("notes.jpg", "hello\n", 6),
                           "notes.jpg: not a JPEG or PNG image (first bytes 68 65 6c 6c;");
    KB_EXPECT_STR_CONTAINS(probe_error("empty.png", "", 0), "empty.png: not a JPEG or PNG image: "
                                                            "the file is empty");
    kb_error e = {""};
    KB_EXPECT(kb_image_probe("/no/such/photo.png", &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, "/no/such/photo.png: cannot open the image: No such file");
}

#endif
