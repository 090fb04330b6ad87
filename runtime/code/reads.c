/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reads.c: scanners for the files a compile reads (see reads.h): a small
 * preprocessor lexer for directives and assembler strings, the make-rule
 * reader for `cc -M` output, and the path-like words of diagnostics.
 */
#include "mc_setup.h"
#include "reads.h"
#include "buf.h"

#include <ctype.h>

#define RAW_DELIM_MAX 16 /* a raw string's delimiter, as C++ allows */

/* A C identifier character ('$' too, as GCC allows). */
static int
ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '$';
}

/* TEXT with every backslash-newline (and "??/" newline, the trigraph
 * form) removed, into OUT: the lines the preprocessor sees. */
static void
splice(const char *text, size_t len, struct mc_buf *out)
{
    size_t i = 0;

    mc_buf_grow(out, len + 1);
    while (i < len) {
        size_t k = 0;

        if (text[i] == '\\')
            k = 1;
        else if (i + 2 < len && text[i] == '?' && text[i + 1] == '?' &&
                 text[i + 2] == '/')
            k = 3;
        if (k && i + k < len && text[i + k] == '\n') {
            i += k + 1;
            continue;
        }
        if (k && i + k + 1 < len && text[i + k] == '\r' &&
            text[i + k + 1] == '\n') {
            i += k + 2;
            continue;
        }
        mc_buf_addc(out, text[i++]);
    }
}

/* Past blanks and comments from S[I], not past a newline (a block
 * comment may hold some). */
static size_t
skip_blank(const char *s, size_t n, size_t i)
{
    while (i < n) {
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\f' || s[i] == '\v' ||
            s[i] == '\r') {
            i++;
        } else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            const char *end = memmem(s + i + 2, n - i - 2, "*/", 2);
            i = end ? (size_t)(end - s) + 2 : n;
        } else {
            break;
        }
    }
    return i;
}

/* Push the name that starts at S[I] ('"' or '<') up to its closing
 * character on the same line. */
static void
push_name(struct mc_strv *out, const char *s, size_t n, size_t i)
{
    char close = s[i] == '<' ? '>' : '"';
    size_t k = i + 1;

    while (k < n && s[k] != close && s[k] != '\n')
        k++;
    if (k < n && s[k] == close && k > i + 1)
        mc_strv_pushn(out, s + i + 1, k - i - 1);
}

/* The directive that may start at S[I] (a line's first character): the
 * file it names into OUT. */
static void
directive(struct mc_strv *out, const char *s, size_t n, size_t i)
{
    static const char *const reading[] = {"include", "include_next",
                                          "import", "embed"};
    size_t k, w;

    i = skip_blank(s, n, i);
    if (i < n && s[i] == '#')
        i++;
    else if (i + 1 < n && s[i] == '%' && s[i + 1] == ':')
        i += 2;
    else if (i + 2 < n && s[i] == '?' && s[i + 1] == '?' && s[i + 2] == '=')
        i += 3;
    else
        return;
    i = skip_blank(s, n, i);
    for (w = i; w < n && ident_char((unsigned char)s[w]); w++)
        ;
    for (k = 0; k < MC_ARRAY_SIZE(reading); k++)
        if (w - i == strlen(reading[k]) &&
            !memcmp(s + i, reading[k], w - i)) {
            i = skip_blank(s, n, w);
            if (i < n && (s[i] == '"' || s[i] == '<'))
                push_name(out, s, n, i);
            return;
        }
    /* #line N "NAME", and the line marker # N "NAME". */
    if (w - i == 4 && !memcmp(s + i, "line", 4))
        i = skip_blank(s, n, w);
    else if (w == i || !isdigit((unsigned char)s[i]))
        return;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    i = skip_blank(s, n, i);
    if (i < n && s[i] == '"')
        push_name(out, s, n, i);
}

/* Decode the escape at S[I] (after the backslash) into B; the index past
 * it. */
static size_t
decode_escape(const char *s, size_t n, size_t i, struct mc_buf *b)
{
    static const char from[] = "ntrvfab", to[] = "\n\t\r\v\f\a\b";
    const char *p;
    unsigned v = 0;
    size_t k;

    if (i >= n)
        return i;
    if (s[i] == 'x') {
        for (k = i + 1; k < n && isxdigit((unsigned char)s[k]); k++)
            v = v * 16 + (unsigned)(isdigit((unsigned char)s[k])
                                        ? s[k] - '0'
                                        : tolower((unsigned char)s[k]) -
                                              'a' + 10);
        mc_buf_addc(b, (char)(v & 0xff));
        return k;
    }
    if (s[i] >= '0' && s[i] <= '7') {
        for (k = i; k < n && k < i + 3 && s[k] >= '0' && s[k] <= '7'; k++)
            v = v * 8 + (unsigned)(s[k] - '0');
        mc_buf_addc(b, (char)(v & 0xff));
        return k;
    }
    p = strchr(from, s[i]);
    mc_buf_addc(b, p && *p ? to[p - from] : s[i]);
    return i + 1;
}

/* The assembler directives that read a file, in the decoded string
 * literal LIT: their file names into OUT. */
static void
asm_reads(struct mc_strv *out, const struct mc_buf *lit)
{
    static const char *const reading[] = {".incbin", ".include"};
    size_t i, k, n = lit->len;
    const char *s = lit->s;

    for (i = 0; i < n; i++) {
        for (k = 0; k < MC_ARRAY_SIZE(reading); k++) {
            size_t len = strlen(reading[k]), j;

            if (i + len > n || strncasecmp(s + i, reading[k], len) ||
                (i + len < n && ident_char((unsigned char)s[i + len])))
                continue;
            for (j = i + len; j < n && isspace((unsigned char)s[j]); j++)
                ;
            if (j < n && s[j] == '"')
                push_name(out, s, n, j);
        }
    }
}

/* Whether identifier S (LEN bytes) is a string literal's prefix; *RAW
 * tells a raw string's. */
static int
string_prefix(const char *s, size_t len, int *raw)
{
    static const char *const prefixes[] = {"L", "u", "U", "u8", "R",
                                           "LR", "uR", "UR", "u8R"};
    size_t k;

    for (k = 0; k < MC_ARRAY_SIZE(prefixes); k++)
        if (len == strlen(prefixes[k]) && !memcmp(s, prefixes[k], len)) {
            *raw = s[len - 1] == 'R';
            return 1;
        }
    return 0;
}

/* The string literal at S[I] ('"'), decoded and appended to LIT (raw
 * when RAW); the index past it. */
static size_t
string_literal(const char *s, size_t n, size_t i, int raw,
               struct mc_buf *lit)
{
    if (raw) {
        char end[RAW_DELIM_MAX + 3];
        size_t d = i + 1, k;
        const char *close;

        while (d < n && d - i - 1 <= RAW_DELIM_MAX && s[d] != '(')
            d++;
        if (d >= n || s[d] != '(')
            return d;
        end[0] = ')';
        memcpy(end + 1, s + i + 1, d - i - 1);
        end[d - i] = '"';
        k = d - i + 1;
        close = memmem(s + d + 1, n - d - 1, end, k);
        if (!close)
            return n;
        mc_buf_add(lit, s + d + 1, (size_t)(close - s) - d - 1);
        return (size_t)(close - s) + k;
    }
    for (i++; i < n && s[i] != '"' && s[i] != '\n';) {
        if (s[i] == '\\')
            i = decode_escape(s, n, i + 1, lit);
        else
            mc_buf_addc(lit, s[i++]);
    }
    return i < n && s[i] == '"' ? i + 1 : i;
}

enum mc_code
mc_reads_directives(const char *text, size_t len, struct mc_strv *out)
{
    struct mc_buf sp = MC_BUF_INIT, lit = MC_BUF_INIT;
    enum mc_code rc;
    int line_start = 1, joined = 0;
    size_t i = 0, n;
    const char *s;

    splice(text, len, &sp);
    s = sp.s ? sp.s : "";
    n = sp.len;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];

        if (line_start) {
            directive(out, s, n, i);
            line_start = 0;
        }
        if (c == '\n') {
            line_start = 1;
            i++;
        } else if (isspace(c)) {
            i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            size_t end = skip_blank(s, n, i);
            line_start = memchr(s + i, '\n', end - i) != NULL;
            i = end;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '"' || ident_char(c)) {
            size_t w = i;
            int raw = 0;

            while (c != '"' && w < n && ident_char((unsigned char)s[w]))
                w++;
            if (c == '"' || (w < n && s[w] == '"' &&
                             string_prefix(s + i, w - i, &raw))) {
                /* Adjacent literals are one string. */
                if (!joined)
                    mc_buf_reset(&lit);
                i = string_literal(s, n, w, raw, &lit);
                joined = 1;
                continue;
            }
            if (isdigit(c)) /* a pp-number: 1'000'000, 1e+5 */
                while (w < n && (ident_char((unsigned char)s[w]) ||
                                 s[w] == '.' || s[w] == '\'' ||
                                 ((s[w] == '+' || s[w] == '-') &&
                                  s[w - 1] && strchr("eEpP", s[w - 1]))))
                    w++;
            if (joined)
                asm_reads(out, &lit);
            joined = 0;
            i = w;
        } else if (c == '\'') {
            for (i++; i < n && s[i] != '\'' && s[i] != '\n'; i++)
                if (s[i] == '\\')
                    i++;
            i += i < n && s[i] == '\'';
        } else {
            if (joined)
                asm_reads(out, &lit);
            joined = 0;
            i++;
        }
    }
    if (joined)
        asm_reads(out, &lit);
    rc = mc_buf_status(&sp) || mc_buf_status(&lit) ? MC_ENOMEM
                                                   : mc_strv_status(out);
    mc_buf_release(&sp);
    mc_buf_release(&lit);
    return rc;
}

enum mc_code
mc_reads_deps(const char *text, size_t len, struct mc_strv *out)
{
    struct mc_buf w = MC_BUF_INIT;
    enum mc_code rc;
    size_t i = 0;

    while (i <= len) {
        char c = i < len ? text[i] : ' ';

        if (c == '\\' && i + 1 < len &&
            (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            i += 2; /* a continuation: a blank */
            c = ' ';
        } else if (c == '\\' && i + 1 < len &&
                   (text[i + 1] == ' ' || text[i + 1] == '#')) {
            mc_buf_addc(&w, text[i + 1]);
            i += 2;
            continue;
        } else if (c == '$' && i + 1 < len && text[i + 1] == '$') {
            mc_buf_addc(&w, '$');
            i += 2;
            continue;
        } else {
            i++;
        }
        if (!isspace((unsigned char)c)) {
            mc_buf_addc(&w, c);
            continue;
        }
        /* A word ends; a target ends in ':'. */
        if (w.len && w.s[w.len - 1] != ':')
            mc_strv_push(out, w.s);
        mc_buf_reset(&w);
    }
    rc = mc_buf_status(&w) ? MC_ENOMEM : mc_strv_status(out);
    mc_buf_release(&w);
    return rc;
}

enum mc_code
mc_reads_paths_in(const char *text, size_t len, struct mc_strv *out)
{
    static const char cut[] = " \t\r\n'\"`()[]{}<>,;|=";
    size_t i = 0;

    while (i < len) {
        size_t k = i, end;

        while (k < len && !memchr(cut, text[k], sizeof(cut) - 1))
            k++;
        /* "PATH:12:3:" or "PATH:": the location's path. */
        end = i;
        while (end < k && text[end] != ':')
            end++;
        if (end > i && (memchr(text + i, '/', end - i) ||
                        memchr(text + i, '.', end - i)))
            mc_strv_pushn(out, text + i, end - i);
        i = k + 1;
    }
    return mc_strv_status(out);
}
