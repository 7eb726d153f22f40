/* guard.h — guard bytes after device tensors: a variant that writes past
 * the end of an output changes them (guard.c). */
#ifndef KB_GUARD_H
#define KB_GUARD_H

#include <stddef.h>

/* The runner allocates every device tensor KB_GUARD_BYTES longer and fills
 * the tail of each output with kb_guard_fill's pattern before a check run;
 * kb_guard_changed counts the bytes that no longer hold it (0: intact). */
enum { KB_GUARD_BYTES = 256 };
void kb_guard_fill(unsigned char *g, size_t n);
size_t kb_guard_changed(const unsigned char *g, size_t n);

#endif
