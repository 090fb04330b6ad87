/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * html.c: escaping text for HTML and SVG (html.h).
 */
#include "mc_setup.h"
#include "html.h"

/* The entity for byte C, or NULL when C stands for itself. */
static const char *
entity(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    case '\t':
    case '\n':
    case '\r':
        return NULL;
    default:
        /* HTML allows no other C0 control, nor DEL, even as a
         * reference: U+FFFD, as a browser shows them. */
        return c < 0x20 || c == 0x7f ? "\xef\xbf\xbd" : NULL;
    }
}

enum mc_code
mc_html_esc(struct mc_buf *b, const char *s, size_t len)
{
    size_t i, run = 0;

    for (i = 0; i < len; i++) {
        const char *e = entity((unsigned char)s[i]);

        if (!e)
            continue;
        mc_buf_add(b, s + run, i - run);
        mc_buf_adds(b, e);
        run = i + 1;
    }
    return mc_buf_add(b, s + run, len - run);
}

enum mc_code
mc_html_escs(struct mc_buf *b, const char *s)
{
    return mc_html_esc(b, s ? s : "", s ? strlen(s) : 0);
}

enum mc_code
mc_html_elem(struct mc_buf *b, const char *tag, const char *attrs,
             const char *text)
{
    mc_buf_addf(b, "<%s%s%s>", tag, attrs ? " " : "", attrs ? attrs : "");
    mc_html_escs(b, text);
    return mc_buf_addf(b, "</%s>", tag);
}
