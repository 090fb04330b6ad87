/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * html.h: text made safe for HTML and inline SVG. The report (report.h)
 * writes code, paths, critiques and model output into a page; every
 * such string goes through mc_html_esc(), which escapes the five
 * characters that can end a text node or an attribute value
 * (& < > " ') and replaces control characters that HTML forbids, so
 * that a value is the same text in an element, in a double- or
 * single-quoted attribute, and in an SVG <title>.
 */
#ifndef MC_HTML_H
#define MC_HTML_H

#include <stddef.h>
#include "buf.h"

/* Append the LEN bytes at S to B, escaped: & < > " ' as entities, C0
 * controls other than tab, newline and carriage return (and DEL) as
 * U+FFFD. Errors as mc_buf_add() (sticky MC_ENOMEM). */
enum mc_code mc_html_esc(struct mc_buf *b, const char *s, size_t len);

/* mc_html_esc() of the string S; NULL is the empty string. */
enum mc_code mc_html_escs(struct mc_buf *b, const char *s);

/* Append <TAG ATTRS>TEXT</TAG> to B: TAG and ATTRS (NULL: none) are the
 * caller's literals, written as they are; TEXT (NULL: empty) is
 * escaped. */
enum mc_code mc_html_elem(struct mc_buf *b, const char *tag,
                          const char *attrs, const char *text);

#endif /* MC_HTML_H */
