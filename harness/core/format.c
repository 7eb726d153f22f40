/* format.c — numbers as people read them: the times and byte counts of the
 * human table (run/out_table.c), the report and compare (analysis/); text
 * with its control characters made visible, for the cells and metadata
 * lines that must stay one line. */
#include "format.h"

#include <stdio.h>
#include <string.h>

void kb_format_visible(const char *text, char *buf, size_t n) {
    size_t used = 0;
    if (!n) return;
    for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
        char esc[8];
        if (*s >= 0x20 && *s != 0x7f) {
            esc[0] = (char)*s;
            esc[1] = '\0';
        } else if (*s == '\r' || *s == '\n' || *s == '\t') {
            snprintf(esc, sizeof esc, "\\%c", *s == '\r' ? 'r' : *s == '\n' ? 'n' : 't');
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", *s);
        }
        size_t len = strlen(esc);
        if (used + len >= n) break;
        memcpy(buf + used, esc, len);
        used += len;
    }
    buf[used] = '\0';
}

void kb_format_us(double us, char *buf, size_t n) {
    if (!(us > 0))
        snprintf(buf, n, "-");
    else if (us < 1000)
        snprintf(buf, n, "%.2f us", us);
    else if (us < 1e6)
        snprintf(buf, n, "%.3f ms", us / 1e3);
    else
        snprintf(buf, n, "%.3f s", us / 1e6);
}

void kb_format_bytes(double b, int compact, char *buf, size_t n) {
    static const struct {
        double size;
        const char *full, *compact;
    } units[] = {{1073741824, "%.2f GiB", "%.2fG"},
                 {1048576, "%.1f MiB", "%.1fM"},
                 {1024, "%.1f KiB", "%.1fK"}};
    if (compact ? b == 0 : !(b >= 0)) {
        snprintf(buf, n, compact ? "0" : "-");
        return;
    }
    /* the largest unit b reaches; the table's column counts in K below that */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (b >= units[i].size || (compact && i + 1 == sizeof units / sizeof units[0])) {
            snprintf(buf, n, compact ? units[i].compact : units[i].full, b / units[i].size);
            return;
        }
    snprintf(buf, n, "%.0f B", b);
}
