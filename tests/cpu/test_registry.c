/* test_registry.c — the variant table (harness/registry.c) as a reader uses
 * it: every row names the file that defines its implementation
 * (KB_DEFINE_VARIANT in variants/<op>/), that file is the one the naming
 * rule picks from the variant's name (harness/registry.c, at the top), every
 * definition in variants/ has its line in its op's variants.def (a line
 * without a definition fails the link instead), no two rows of an op share a
 * name, and every op's baseline is one of its variants.
 *   ./test_registry [test_name]
 */
#include "kbtest.h"

#include "kbench.h"

#include <dirent.h>
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

/* The next KB_DEFINE_VARIANT(op, name) in text from *p on (spaces and line
 * breaks allowed inside): 1 with op and name filled and *p past it, else 0. */
static int next_definition(const char **p, char op[64], char name[64]) {
    static const char ident[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    for (const char *q; *p && (q = strstr(*p, "KB_DEFINE_VARIANT("));) {
        q += strlen("KB_DEFINE_VARIANT(");
        *p = q;
        q += strspn(q, " \t\n");
        size_t n = strspn(q, ident);
        if (n == 0 || n >= 64) continue;
        snprintf(op, 64, "%.*s", (int)n, q);
        q += n + strspn(q + n, " \t\n");
        if (*q++ != ',') continue;
        q += strspn(q, " \t\n");
        n = strspn(q, ident);
        if (n == 0 || n >= 64) continue;
        snprintf(name, 64, "%.*s", (int)n, q);
        q += n + strspn(q + n, " \t\n");
        if (*q != ')') continue;
        *p = q;
        return 1;
    }
    return 0;
}

/* Whether text defines op/name. */
static int defines(const char *text, const char *op, const char *name) {
    char o[64], n[64];
    for (const char *p = text; next_definition(&p, o, n);)
        if (strcmp(o, op) == 0 && strcmp(n, name) == 0) return 1;
    return 0;
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
        char folder[128];
        snprintf(folder, sizeof folder, "variants/%s/", v->op);
        KB_EXPECT(strncmp(v->source, folder, strlen(folder)) == 0);
        char *text = slurp(kbt_src(v->source));
        if (!text || !defines(text, v->op, v->name)) {
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

/* The file the naming rule picks for variant `name` of `op`: among the .c and
 * .cu files of variants/<op>/, the one whose stem is the longest that equals
 * name or is a prefix of it ending at an '_'. 0 with the file name in out;
 * -1 when no file fits, -2 when two files share the picked stem. */
static int rule_pick(const char *op, const char *name, char *out, size_t size) {
    char folder[256];
    snprintf(folder, sizeof folder, "variants/%s", op);
    DIR *d = opendir(kbt_src(folder));
    if (!d) return -1;
    size_t best = 0;
    int ties = 0;
    for (struct dirent *de; (de = readdir(d));) {
        const char *dot = strrchr(de->d_name, '.');
        if (!dot || (strcmp(dot, ".c") != 0 && strcmp(dot, ".cu") != 0)) continue;
        size_t stem = (size_t)(dot - de->d_name);
        if (stem == 0 || strncmp(name, de->d_name, stem) != 0) continue;
        if (name[stem] != '\0' && name[stem] != '_') continue;
        if (stem > best) {
            best = stem, ties = 0;
            snprintf(out, size, "%s", de->d_name);
        } else if (stem == best) {
            ties = 1;
        }
    }
    closedir(d);
    return best == 0 ? -1 : ties ? -2 : 0;
}

KB_TEST(each_variant_lives_in_the_file_its_name_picks) {
    int checked = 0;
    for (int i = 0; kb_variants[i].op; i++) {
        const kb_variant *v = &kb_variants[i];
        if (!v->source) continue; /* the test above fails such a row */
        char picked[256] = "", want[512];
        int rc = rule_pick(v->op, v->name, picked, sizeof picked);
        if (rc != 0) {
            fprintf(stderr, "  %s/%s: %s in variants/%s/\n", v->op, v->name,
                    rc == -1 ? "no .c/.cu file is named after it (a stem that is the name or "
                               "its prefix ending at '_')"
                             : "two files share the stem its name picks",
                    v->op);
            kbt_current_failed = 1;
            continue;
        }
        snprintf(want, sizeof want, "variants/%s/%s", v->op, picked);
        if (strcmp(v->source, want) != 0) {
            fprintf(stderr, "  %s/%s is in %s, where its name points at %s\n", v->op, v->name,
                    v->source, want);
            kbt_current_failed = 1;
        }
        checked++;
    }
    KB_EXPECT(checked > 0);
}

/* Each KB_DEFINE_VARIANT of the files of variants/<op>/ against the table:
 * the count of definitions; one with no row of its op and name whose source
 * is that file is printed and fails the test. */
static int definitions_have_rows(const char *op) {
    char folder[256], file[512];
    snprintf(folder, sizeof folder, "variants/%s", op);
    DIR *d = opendir(kbt_src(folder));
    if (!d) return 0;
    int found = 0;
    for (struct dirent *de; (de = readdir(d));) {
        const char *dot = strrchr(de->d_name, '.');
        if (!dot || (strcmp(dot, ".c") != 0 && strcmp(dot, ".cu") != 0)) continue;
        snprintf(file, sizeof file, "%s/%s", folder, de->d_name);
        char *text = slurp(kbt_src(file));
        char o[64], n[64];
        for (const char *p = text; next_definition(&p, o, n);) {
            found++;
            const kb_variant *v = strcmp(o, op) == 0 ? kb_find_variant(o, n) : NULL;
            if (!v || !v->source || strcmp(v->source, file) != 0) {
                fprintf(stderr, "  %s defines %s/%s, which no line of %s/variants.def declares\n",
                        file, o, n, folder);
                kbt_current_failed = 1;
            }
        }
        free(text);
    }
    closedir(d);
    return found;
}

KB_TEST(every_variant_defined_in_variants_has_its_line_in_the_list) {
    int found = 0;
    for (int i = 0; kb_ops[i]; i++) found += definitions_have_rows(kb_ops[i]->name);
    int builtin = 0;
    for (int i = 0; kb_variants[i].op; i++)
        builtin += strncmp(kb_variants[i].source ? kb_variants[i].source : "", "variants/", 9) == 0;
    KB_EXPECT(found > 0);
    KB_EXPECT(found == builtin); /* no row without a definition, none defined twice */
}

KB_TEST(every_baseline_is_a_variant_of_its_op) {
    for (int i = 0; kb_ops[i]; i++) {
        const char *list = kb_ops[i]->baseline;
        KB_EXPECT(list && list[0]);
        for (const char *p = list; p && *p;) {
            size_t len = strcspn(p, ",");
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)len, p);
            if (!kb_find_variant(kb_ops[i]->name, name)) {
                fprintf(stderr, "  %s's baseline '%s' is not one of its variants\n",
                        kb_ops[i]->name, name);
                kbt_current_failed = 1;
            }
            p += len + (p[len] == ',');
        }
    }
}
