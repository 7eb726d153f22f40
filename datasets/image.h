/* image.h — real photos as benchmark input (`-a image=PATH`).
 *
 *   int h, w; uint8_t *bgr;
 *   if (kb_image_load("datasets/images/coffee.jpg", &h, &w, &bgr, &err) != KB_OK) ...
 *   kb_image_fit(bgr, h, w, case_pixels, 1080, 1920);   free(bgr);
 *
 * Images come out as interleaved BGR, HWC, uint8: what OpenCV's imread hands
 * the preprocessing op in the pipelines kbench imitates. JPEG (libjpeg-turbo)
 * and PNG (libpng), told apart by their magic bytes, not the file name.
 */
#ifndef KB_IMAGE_H
#define KB_IMAGE_H

#include <stdint.h>

#include "kbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decode a JPEG or PNG into a malloc'ed h x w x 3 BGR buffer (the caller
 * frees it). Converted as OpenCV's IMREAD_COLOR does: grayscale replicated to
 * three channels, palette expanded, alpha dropped (not blended), 16-bit PNG
 * samples reduced to their high byte. A corrupt or truncated file (libjpeg's
 * "corrupt data" warnings included) is an error, never half an image. Images
 * over 2^28 pixels are refused. Built without libjpeg/libpng
 * (KB_HAVE_IMAGE_IO undefined) it returns KB_ERR saying so. */
int kb_image_load(const char *path, int *h, int *w, uint8_t **bgr, kb_error *e);

/* What validation asks before any decoding: KB_OK when path is a regular
 * file that opens and starts with a JPEG's or a PNG's magic bytes (and
 * kbench has the decoders); else KB_ERR naming the path and the problem
 * ("is a directory", "not a JPEG or PNG image (first bytes ...)", the open
 * error). A file that passes may still turn out corrupt in kb_image_load. */
int kb_image_probe(const char *path, kb_error *e);

/* Fill a dh x dw BGR image from an sh x sw one, each axis on its own:
 *  - dst no larger than src along an axis: the centred window, starting at
 *    (s - d) / 2 (rounded down);
 *  - dst larger: mirror tiling from the top-left corner, the source followed
 *    by its reflection, edge pixel repeated (NumPy's 'symmetric' padding):
 *    dst index i reads src index m = i mod 2s, or 2s - 1 - m when m >= s.
 *    Along an axis of 3 pixels abc the row reads abccbaabccba...
 * So a photo gives seamless, realistic content at any case size.
 * KB_ERR when a size is not positive or a pointer is NULL, else KB_OK. */
int kb_image_fit(const uint8_t *src, int sh, int sw, uint8_t *dst, int dh, int dw);

#ifdef __cplusplus
}
#endif
#endif
