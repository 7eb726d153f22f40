/* files.c — folders made for outputs (files.h). */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p; 0777 less the umask, as mkdir(1) makes folders. */
int kb_make_dirs(const char *dir, kb_error *e) {
    char path[2048];
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0') continue;
        *s = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return kb_fail(e, "cannot create %s: %s", path, strerror(errno));
        *s = c;
        if (!c) break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return kb_fail(e, "%s: not a folder", dir);
    return KB_OK;
}
