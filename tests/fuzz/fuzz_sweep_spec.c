/* fuzz_sweep_spec.c — libFuzzer target: the sweep-spec parser and the line
 * expander. The input's first line goes to kb_spec_parse and, as a sweep line,
 * to kb_expand_line against every op in kb_ops; each further line (up to four)
 * is parsed as an override spec (-a AXIS=SPEC) applied to that expansion. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/sweep.h"

enum { KB_FUZZ_MAX_INPUT = 8192, MAX_OVERRIDES = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > KB_FUZZ_MAX_INPUT) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    char *rest = strchr(text, '\n');
    if (rest) *rest++ = '\0';

    kb_error e;
    kb_spec spec;
    if (kb_spec_parse(text, &spec, &e) == KB_OK) {
        if (spec.count <= 0 || spec.count > KB_SPEC_MAX_VALUES) abort();
        for (int i = 0; i < spec.count; i++)
            if (strlen(spec.values[i]) >= KB_STR) abort();
        kb_spec_free(&spec);
    }

    kb_spec overrides[MAX_OVERRIDES];
    int noverrides = 0;
    while (rest && noverrides < MAX_OVERRIDES) {
        char *line = rest;
        rest = strchr(rest, '\n');
        if (rest) *rest++ = '\0';
        if (kb_spec_parse(line, &overrides[noverrides], &e) == KB_OK) noverrides++;
    }

    for (int k = 0; kb_ops[k]; k++) {
        kb_case_list list = {0};
        if (kb_expand_line(kb_ops[k], text, overrides, noverrides, &list, &e) == KB_OK)
            for (int i = 0; i < list.count; i++)
                if (list.cases[i].op != kb_ops[k]) abort();
        kb_case_list_free(&list);
    }
    for (int o = 0; o < noverrides; o++) kb_spec_free(&overrides[o]);
    free(text);
    return 0;
}
