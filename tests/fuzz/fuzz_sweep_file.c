/* fuzz_sweep_file.c — libFuzzer target: kb_expand_sweep on a sweep file
 * holding the input, against every op in kb_ops. The file is written once per
 * input to a private temporary path. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/sweep.h"

enum { KB_FUZZ_MAX_INPUT = 16384 };

static char path[64];

static void remove_file(void) {
    if (path[0]) unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > KB_FUZZ_MAX_INPUT) return 0;
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/kbench_fuzz_sweep_%ld.txt", (long)getpid());
        atexit(remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();

    for (int k = 0; kb_ops[k]; k++) {
        kb_case_list list = {0};
        kb_error e;
        if (kb_expand_sweep(kb_ops[k], path, NULL, 0, &list, &e) == KB_OK)
            for (int i = 0; i < list.count; i++)
                if (list.cases[i].op != kb_ops[k]) abort();
        kb_case_list_free(&list);
    }
    return 0;
}
