/* A growing HTML buffer. Text from the dump goes through hp_html_text(), which
 * escapes it; hp_html_raw()/hp_html_fmt() are for the page's own markup. */
#ifndef HPROF_CLI_SERVE_HTML_H
#define HPROF_CLI_SERVE_HTML_H

#include <stddef.h>

typedef struct {
    char *buf;
    size_t len, cap;
    int oom; /* an allocation failed; the page is incomplete */
} hp_html;

void hp_html_raw(hp_html *h, const char *s);
void hp_html_fmt(hp_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Escapes & < > " ' so the text is inert in element content and attribute values. */
void hp_html_text(hp_html *h, const char *s);
/* Hands the buffer over (caller frees); NULL if an allocation failed. */
char *hp_html_take(hp_html *h, size_t *len);
void hp_html_free(hp_html *h);

#endif
