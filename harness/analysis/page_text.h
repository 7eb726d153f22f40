/* page_text.h — text from a results file (variants, ops, params, notes, the
 * '#' lines) written into a Markdown or HTML page so that it stays text
 * there (page_text.c). A CSV is mailed and committed: what it holds must
 * not open a tag, a link, a code span or a table cell of its own in the
 * report that `kbench report` or `kbench compare --format md` writes. */
#ifndef KB_PAGE_TEXT_H
#define KB_PAGE_TEXT_H

#include <stdio.h>

/* Markdown: the characters that would start markup backslash-escaped
 * (\ ` * [ ] < and, in a table cell, |); a line break is <br> in a table
 * cell, else a space. */
void kb_md_text(FILE *f, const char *s, int in_table);
/* HTML text or a double-quoted attribute value (the pages quote every
 * attribute so): & < > ". */
void kb_html_text(FILE *f, const char *s);

#endif
