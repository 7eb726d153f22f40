/* format.h — numbers and text as people read them, in tables, reports and
 * metadata lines (format.c). */
#ifndef KB_FORMAT_H
#define KB_FORMAT_H

#include <stddef.h>

/* "12.34 us", "1.234 ms", "1.234 s"; "-" when not positive (or NaN). */
void kb_format_us(double us, char *buf, size_t n);
/* Bytes: "512 B", "1.5 KiB", "53.7 MiB", "1.25 GiB"; "-" when negative or
 * NaN. compact: the human table's 8-character column instead: "0", "0.5K",
 * "53.7M", "1.25G". */
void kb_format_bytes(double bytes, int compact, char *buf, size_t n);
/* text with each control character (below 0x20, and DEL) written as an
 * escape one can read: \r, \n, \t, else \xNN; a table cell or a '#' line
 * that shows it stays one line (a CR ends a line for CSV readers and
 * Markdown). Cut to n - 1 bytes, never inside an escape. */
void kb_format_visible(const char *text, char *buf, size_t n);

#endif
