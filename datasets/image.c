/* image.c — JPEG/PNG decoding to BGR HWC uint8, and fitting a photo to any
 * case size (see image.h for the rules).
 *
 * libjpeg and libpng report fatal errors through a callback that must not
 * return; both callbacks here longjmp back to the decoder, which frees what
 * it allocated and turns the library's message into a kb_error. Pointers
 * assigned after setjmp are volatile so that they survive the longjmp.
 */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- fitting ------------------------------------------------------------- */

/* The source index that destination index i of an axis reads. */
static int64_t fit_index(int64_t i, int64_t s, int64_t d) {
    if (d <= s) return (s - d) / 2 + i;
    int64_t m = i % (2 * s);
    return m < s ? m : 2 * s - 1 - m;
}

int kb_image_fit(const uint8_t *src, int sh, int sw, uint8_t *dst, int dh, int dw) {
    if (!src || !dst || sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return KB_ERR;
    for (int64_t y = 0; y < dh; y++) {
        const uint8_t *srow = src + fit_index(y, sh, dh) * sw * 3;
        uint8_t *drow = dst + y * dw * 3;
        for (int64_t x = 0; x < dw; x++) memcpy(drow + 3 * x, srow + 3 * fit_index(x, sw, dw), 3);
    }
    return KB_OK;
}

/* ---- telling the format ------------------------------------------------- */

typedef enum image_format { IMAGE_UNKNOWN, IMAGE_JPEG, IMAGE_PNG } image_format;

/* By the magic bytes, never the name: a .jpg may hold a PNG. */
static image_format sniff(const unsigned char *magic, size_t got) {
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    static const unsigned char jpeg_magic[3] = {0xFF, 0xD8, 0xFF};
    if (got >= sizeof jpeg_magic && memcmp(magic, jpeg_magic, sizeof jpeg_magic) == 0)
        return IMAGE_JPEG;
    if (got >= sizeof png_magic && memcmp(magic, png_magic, sizeof png_magic) == 0)
        return IMAGE_PNG;
    return IMAGE_UNKNOWN;
}

static int not_an_image(const char *path, const unsigned char *magic, size_t got, kb_error *e) {
    if (got == 0) return kb_fail(e, "%s: not a JPEG or PNG image: the file is empty", path);
    char hex[3 * 4 + 1] = "";
    for (size_t i = 0, used = 0; i < got && i < 4; i++)
        used += (size_t)snprintf(hex + used, sizeof hex - used, "%s%02x", i ? " " : "", magic[i]);
    return kb_fail(e,
                   "%s: not a JPEG or PNG image (first bytes %s; the format is told by its "
                   "magic bytes, not the name)",
                   path, hex);
}

/* Opens path for reading, refusing what is not a regular file by name. */
static FILE *open_image(const char *path, kb_error *e) {
    struct stat st;
    if (stat(path, &st) != 0) {
        kb_fail(e, "%s: cannot open the image: %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        kb_fail(e, "%s: is a directory, not an image", path);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) kb_fail(e, "%s: cannot open the image: %s", path, strerror(errno));
    return f;
}

int kb_image_probe(const char *path, kb_error *e) {
    FILE *f = open_image(path, e);
    if (!f) return KB_ERR;
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, f);
    int read_error = ferror(f);
    fclose(f);
    if (read_error) return kb_fail(e, "%s: cannot read the image", path);
    if (sniff(magic, got) == IMAGE_UNKNOWN) return not_an_image(path, magic, got, e);
#ifndef KB_HAVE_IMAGE_IO
    return kb_fail(e, "%s: cannot decode images: kbench was built without libjpeg/libpng", path);
#else
    return KB_OK;
#endif
}

#ifndef KB_HAVE_IMAGE_IO

int kb_image_load(const char *path, int *h, int *w, uint8_t **bgr, kb_error *e) {
    return kb_fail(e, "%s: cannot decode images: kbench was built without libjpeg/libpng", path);
}

#else

#include <setjmp.h>
#include <jpeglib.h>
#include <png.h>

enum { KB_IMAGE_MAX_PIXELS = 1 << 28 }; /* 805 MB of BGR: far above any case */

static int check_size(const char *path, const char *kind, uint64_t w, uint64_t h, kb_error *e) {
    if (w == 0 || h == 0 || w * h > KB_IMAGE_MAX_PIXELS)
        return kb_fail(e, "%s: %s of %llu x %llu pixels: outside 1 .. 2^28 pixels", path, kind,
                       (unsigned long long)w, (unsigned long long)h);
    return KB_OK;
}

/* ---- JPEG ---- */

typedef struct jpeg_failure {
    struct jpeg_error_mgr mgr; /* first: libjpeg hands back a pointer to it */
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_failure;

static void jpeg_on_error(j_common_ptr cinfo) {
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, f->msg);
    longjmp(f->jump, 1);
}

/* libjpeg reports corrupt data as a warning (level -1) and carries on with
 * gray blocks; a benchmark input must not be half an image, so it is fatal.
 * Trace messages (level > 0) are dropped. */
static void jpeg_on_message(j_common_ptr cinfo, int level) {
    if (level < 0) jpeg_on_error(cinfo);
}

static int load_jpeg(FILE *f, const char *path, int *h, int *w, uint8_t **out, kb_error *e) {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure fail;
    uint8_t *volatile bgr = NULL;
    uint8_t *volatile row = NULL;
    cinfo.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_on_error;
    fail.mgr.emit_message = jpeg_on_message;
    if (setjmp(fail.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(bgr);
        free(row);
        return kb_fail(e, "%s: corrupt JPEG: %s", path, fail.msg);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, f);
    jpeg_read_header(&cinfo, TRUE);
    int gray = cinfo.jpeg_color_space == JCS_GRAYSCALE;
    if (!gray && cinfo.num_components != 3) {
        jpeg_destroy_decompress(&cinfo);
        return kb_fail(e,
                       "%s: JPEG with %d colour components (CMYK?): only gray and colour "
                       "are read",
                       path, cinfo.num_components);
    }
    if (check_size(path, "JPEG", cinfo.image_width, cinfo.image_height, e) != KB_OK) {
        jpeg_destroy_decompress(&cinfo);
        return KB_ERR;
    }
    cinfo.out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    size_t width = cinfo.output_width, height = cinfo.output_height;
    int channels = cinfo.output_components;
    bgr = malloc(width * height * 3);
    row = malloc(width * (size_t)channels);
    if (!bgr || !row) {
        snprintf(fail.msg, sizeof fail.msg, "out of host memory for %zu x %zu pixels", width,
                 height);
        longjmp(fail.jump, 1);
    }
    while (cinfo.output_scanline < height) {
        uint8_t *d = bgr + (size_t)cinfo.output_scanline * width * 3;
        JSAMPROW r = row;
        jpeg_read_scanlines(&cinfo, &r, 1);
        for (size_t x = 0; x < width; x++, d += 3) {
            const uint8_t *s = row + x * (size_t)channels;
            d[0] = s[channels - 1]; /* gray: all three read s[0] */
            d[1] = s[channels / 2];
            d[2] = s[0];
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    *h = (int)height;
    *w = (int)width;
    *out = bgr;
    return KB_OK;
}

/* ---- PNG ---- */

typedef struct png_failure {
    char msg[256];
} png_failure;

static void png_on_error(png_structp png, png_const_charp msg) {
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->msg, sizeof f->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

static int load_png(FILE *f, const char *path, int *h, int *w, uint8_t **out, kb_error *e) {
    png_failure fail = {""};
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &fail, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return kb_fail(e, "%s: out of host memory for the PNG decoder", path);
    }
    uint8_t *volatile bgr = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(bgr);
        free(rows);
        return kb_fail(e, "%s: corrupt PNG: %s", path, fail.msg);
    }
    png_init_io(png, f);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (check_size(path, "PNG", width, height, e) != KB_OK) {
        png_destroy_read_struct(&png, &info, NULL);
        return KB_ERR;
    }
    /* To 8-bit BGR as OpenCV's IMREAD_COLOR: palette (and its tRNS) expanded,
     * alpha stripped afterwards, gray replicated, 16-bit reduced to the high byte. */
    int color_type = png_get_color_type(png, info);
    png_set_strip_16(png);
    png_set_expand(png);
    png_set_strip_alpha(png);
    if (!(color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    png_set_bgr(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8) {
        snprintf(fail.msg, sizeof fail.msg, "%d channels of %d bits after conversion, not 3 of 8",
                 png_get_channels(png, info), png_get_bit_depth(png, info));
        png_longjmp(png, 1);
    }
    bgr = malloc((size_t)width * height * 3);
    rows = malloc(height * sizeof *rows);
    if (!bgr || !rows) {
        snprintf(fail.msg, sizeof fail.msg, "out of host memory for %lu x %lu pixels",
                 (unsigned long)width, (unsigned long)height);
        png_longjmp(png, 1);
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = bgr + (size_t)y * width * 3;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    *h = (int)height;
    *w = (int)width;
    *out = bgr;
    return KB_OK;
}

int kb_image_load(const char *path, int *h, int *w, uint8_t **bgr, kb_error *e) {
    FILE *f = open_image(path, e);
    if (!f) return KB_ERR;
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, f);
    rewind(f);
    int rc;
    switch (sniff(magic, got)) {
    case IMAGE_JPEG:
        rc = load_jpeg(f, path, h, w, bgr, e);
        break;
    case IMAGE_PNG:
        rc = load_png(f, path, h, w, bgr, e);
        break;
    default:
        rc = not_an_image(path, magic, got, e);
        break;
    }
    fclose(f);
    return rc;
}

#endif
