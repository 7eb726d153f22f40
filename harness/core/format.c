/* format.c — numbers as people read them: the times and byte counts of the
 * human table (run/out_table.c), the report and compare (analysis/). */
#include "format.h"

#include <stdio.h>

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
    if (compact) { /* the table's column: K, M, G without a space or unit */
        if (b == 0)
            snprintf(buf, n, "0");
        else if (b < 1048576)
            snprintf(buf, n, "%.1fK", b / 1024);
        else if (b < 1073741824)
            snprintf(buf, n, "%.1fM", b / 1048576);
        else
            snprintf(buf, n, "%.2fG", b / 1073741824);
    } else if (!(b >= 0))
        snprintf(buf, n, "-");
    else if (b < 1024)
        snprintf(buf, n, "%.0f B", b);
    else if (b < 1048576)
        snprintf(buf, n, "%.1f KiB", b / 1024);
    else if (b < 1073741824)
        snprintf(buf, n, "%.1f MiB", b / 1048576);
    else
        snprintf(buf, n, "%.2f GiB", b / 1073741824);
}
