/* sha256.h — SHA-256 (FIPS 180-4) of a file, as lowercase hex: what a results
 * file's header records for each plugin and Python file that made rows, so
 * that `kbench compare` can tell when the code behind a row changed. */
#ifndef KB_SHA256_H
#define KB_SHA256_H

#include "kbench.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} kb_sha256;

void kb_sha256_init(kb_sha256 *s);
void kb_sha256_add(kb_sha256 *s, const void *data, size_t n);
/* The digest as 64 hex digits and a NUL. */
void kb_sha256_hex(kb_sha256 *s, char hex[65]);
/* The file's digest; KB_ERR naming the path when it cannot be read. */
int kb_sha256_file(const char *path, char hex[65], kb_error *e);

#ifdef __cplusplus
}
#endif
#endif
