/* files.h — folders made for outputs: what the run side (--dump) and the
 * analysis side (plot, report) both need (files.c). */
#ifndef KB_FILES_H
#define KB_FILES_H

#include "kbench.h"

/* mkdir -p: dir and its missing parents; KB_ERR naming the one that could not
 * be made, or dir when it is not a folder. */
int kb_make_dirs(const char *dir, kb_error *e);

#endif
