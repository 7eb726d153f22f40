/* test_registry.c — the variant table (harness/registry.c) as a reader uses
 * it: every row names the file that defines its implementation, that file
 * exists in variants/<op>/ and defines kb_<op>_<name>, and no two rows of an
 * op share a name.
 *   ./test_registry [test_name]
 */
#include "kbtest.h"

#include "kbench.h"

#include <stdlib.h>

/* The whole file, NUL-terminated (NULL when it cannot be read). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

KB_TEST(every_variant_names_the_file_that_defines_it) {
    int rows = 0;
    for (int i = 0; kb_variants[i].op; i++) {
        const kb_variant *v = &kb_variants[i];
        rows++;
        if (!v->source) {
            fprintf(stderr, "  %s/%s names no source file\n", v->op, v->name);
            kbt_current_failed = 1;
            continue;
        }
        char folder[128], symbol[256];
        snprintf(folder, sizeof folder, "variants/%s/", v->op);
        KB_EXPECT(strncmp(v->source, folder, strlen(folder)) == 0);
        snprintf(symbol, sizeof symbol, "kb_%s_%s =", v->op, v->name);
        char *text = slurp(kbt_src(v->source));
        if (!text || !strstr(text, symbol)) {
            fprintf(stderr, "  %s/%s: %s %s\n", v->op, v->name, v->source,
                    text ? "does not define its implementation" : "cannot be read");
            kbt_current_failed = 1;
        }
        free(text);
    }
    KB_EXPECT(rows > 0);
}

KB_TEST(variant_names_are_unique_within_an_op) {
    for (int i = 0; kb_variants[i].op; i++)
        for (int k = i + 1; kb_variants[k].op; k++)
            if (strcmp(kb_variants[i].op, kb_variants[k].op) == 0 &&
                strcmp(kb_variants[i].name, kb_variants[k].name) == 0) {
                fprintf(stderr, "  %s/%s is listed twice\n", kb_variants[i].op,
                        kb_variants[i].name);
                kbt_current_failed = 1;
            }
}
