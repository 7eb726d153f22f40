/* page_text.c — file text into Markdown and HTML as text (page_text.h).
 *
 * Markdown (CommonMark, GitHub's too) reads raw HTML wherever a '<' starts
 * a tag, links from '[', code from '`' and emphasis from '*'; any ASCII
 * punctuation may be backslash-escaped, so each of those is. The backslash
 * itself is escaped too: otherwise a file's "\<" would become "\\<", an
 * escaped backslash and a raw '<'.
 */
#include "page_text.h"

void kb_md_text(FILE *f, const char *s, int in_table) {
    for (; *s; s++) {
        if (*s == '\n')
            fputs(in_table ? "<br>" : " ", f);
        else if (*s == '\r')
            continue;
        else if (*s == '\\' || *s == '`' || *s == '*' || *s == '[' || *s == ']' || *s == '<' ||
                 (in_table && *s == '|'))
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

void kb_html_text(FILE *f, const char *s) {
    for (; *s; s++) {
        const char *entity = *s == '&'   ? "&amp;"
                             : *s == '<' ? "&lt;"
                             : *s == '>' ? "&gt;"
                             : *s == '"' ? "&quot;"
                                         : NULL;
        if (entity)
            fputs(entity, f);
        else
            fputc(*s, f);
    }
}
