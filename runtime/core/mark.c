/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mark.c: finding '#pragma maxcode' marks in a source text, and checking
 * that a candidate kept the text outside the begin/end fences. The
 * grammar is in mark.h. Both jobs walk the text one logical line at a
 * time; only a line whose first non-blank byte is '#' is copied (with its
 * backslash-newlines removed) and parsed.
 */
#include "mc_setup.h"
#include "mark.h"
#include "ctext.h"
#include "alloc.h"
#include "buf.h"

/* What a logical line is, as far as marks go. */
enum kind {
    K_NONE,     /* not a '#pragma maxcode' line */
    K_OPTIMIZE, /* '#pragma maxcode optimize ...' */
    K_BEGIN,    /* '#pragma maxcode begin' */
    K_END,      /* '#pragma maxcode end' */
    K_OTHER     /* '#pragma maxcode' with another word, or none */
};

/* One logical line of a text, by offsets into it. */
struct line {
    size_t start;  /* its first byte */
    size_t end;    /* one past its last byte, before the newline */
    size_t next;   /* the first byte of the next logical line */
    size_t lineno; /* the 1-based physical line of START */
};

/* A begin or end line, for mc_mark_check_fences(). */
struct fence_line {
    size_t start; /* its first byte */
    size_t next;  /* the first byte after its newline */
};

struct fence_lines {
    struct fence_line *v;
    size_t n, cap;
};

static int
is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Whether the newline at TEXT[NL] is escaped by a backslash (or by a
 * backslash and a carriage return) that lies at or after START. */
static int
is_splice(const char *text, size_t start, size_t nl)
{
    if (nl > start && text[nl - 1] == '\\')
        return 1;
    return nl > start + 1 && text[nl - 1] == '\r' && text[nl - 2] == '\\';
}

/* The length of the backslash-newline at TEXT[I] (LEN bytes in all), or
 * 0 if there is none. */
static size_t
splice_len(const char *text, size_t len, size_t i)
{
    if (text[i] != '\\' || i + 1 >= len)
        return 0;
    if (text[i + 1] == '\n')
        return 2;
    if (text[i + 1] == '\r' && i + 2 < len && text[i + 2] == '\n')
        return 3;
    return 0;
}

/*
 * Read the logical line that starts at *POS in the LEN bytes at TEXT
 * into LN, and move *POS and *LINENO (the physical line at *POS) past
 * it. Returns 0, and does nothing, at the end of the text.
 */
static int
next_line(const char *text, size_t len, size_t *pos, size_t *lineno,
          struct line *ln)
{
    size_t i = *pos;

    if (i >= len)
        return 0;
    ln->start = i;
    ln->lineno = *lineno;
    ln->end = ln->next = len;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t at;

        if (!nl)
            break;
        at = (size_t)(nl - text);
        (*lineno)++;
        if (!is_splice(text, ln->start, at)) {
            ln->end = at;
            ln->next = at + 1;
            break;
        }
        i = at + 1;
    }
    *pos = ln->next;
    return 1;
}

/* Whether the first byte of LN that is neither blank nor part of a
 * backslash-newline is '#': a cheap test before copying the line. */
static int
may_be_directive(const char *text, const struct line *ln)
{
    size_t i = ln->start, n;

    while (i < ln->end) {
        if (is_blank(text[i]))
            i++;
        else if ((n = splice_len(text, ln->end, i)) != 0)
            i += n;
        else
            return text[i] == '#';
    }
    return 0;
}

/* Append LN to OUT with its backslash-newlines removed. */
static enum mc_code
splice_line(const char *text, const struct line *ln, struct mc_buf *out)
{
    size_t i = ln->start, from = ln->start, n;

    while (i < ln->end) {
        n = splice_len(text, ln->end, i);
        if (!n) {
            i++;
            continue;
        }
        mc_buf_add(out, text + from, i - from);
        i += n;
        from = i;
    }
    mc_buf_add(out, text + from, ln->end - from);
    return mc_buf_status(out);
}

static const char *
skip_blanks(const char *p, const char *e)
{
    while (p < e && is_blank(*p))
        p++;
    return p;
}

/* Whether a comment ("//" or a block comment) starts at P. */
static int
is_comment(const char *p, const char *e)
{
    return e - p >= 2 && p[0] == '/' && (p[1] == '/' || p[1] == '*');
}

/* If the word W follows at *P, ended by a blank or E, move *P past it. */
static int
match_word(const char **p, const char *e, const char *w)
{
    size_t n = strlen(w);

    if ((size_t)(e - *p) < n || memcmp(*p, w, n))
        return 0;
    if (*p + n < e && !is_blank((*p)[n]))
        return 0;
    *p += n;
    return 1;
}

/*
 * Classify the spliced logical line S (N bytes). For anything but
 * K_NONE, *WORD and *WLEN are the word after "maxcode" (ended by a blank,
 * a comment or the end; maybe empty), and *REST what follows it.
 */
static enum kind
classify(const char *s, size_t n, const char **word, size_t *wlen,
         const char **rest)
{
    const char *p = s, *e = s + n, *w;

    p = skip_blanks(p, e);
    if (p == e || *p != '#')
        return K_NONE;
    p = skip_blanks(p + 1, e);
    if (!match_word(&p, e, "pragma") || p == e)
        return K_NONE;
    p = skip_blanks(p, e);
    if (!match_word(&p, e, "maxcode"))
        return K_NONE;
    p = w = skip_blanks(p, e);
    while (p < e && !is_blank(*p) && !is_comment(p, e))
        p++;
    *word = w;
    *wlen = (size_t)(p - w);
    *rest = p;
    if (*wlen == 8 && !memcmp(w, "optimize", 8))
        return K_OPTIMIZE;
    if (*wlen == 5 && !memcmp(w, "begin", 5))
        return K_BEGIN;
    if (*wlen == 3 && !memcmp(w, "end", 3))
        return K_END;
    return K_OTHER;
}

/* At most this many bytes of a quoted token go into a message. */
#define QUOTE_MAX 60

static int
quote_len(size_t n)
{
    return (int)(n > QUOTE_MAX ? QUOTE_MAX : n);
}

/*
 * Parse the options of an optimize line, the bytes from P to E, and
 * append them to OUT; TOK is scratch space. LINENO is for messages.
 */
static enum mc_code
parse_options(const char *p, const char *e, size_t lineno,
              struct mc_strv *out, struct mc_buf *tok, struct mc_err *err)
{
    for (;;) {
        const char *from, *eq;
        int quoted = 0;

        p = skip_blanks(p, e);
        if (p == e || (e - p >= 2 && p[0] == '/' && p[1] == '/'))
            return MC_OK;
        if (e - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *q;

            for (q = p + 2; e - q >= 2; q++)
                if (q[0] == '*' && q[1] == '/')
                    break;
            if (e - q < 2)
                return MC_OK; /* the comment runs past the line */
            p = q + 2;
            continue;
        }
        mc_buf_reset(tok);
        for (from = p; p < e && (quoted || !is_blank(*p)); p++) {
            if (*p == '"') {
                quoted = !quoted;
            } else if (*p == '\0') {
                return mc_err_set(err, MC_ESYNTAX, "%zu: NUL byte in option "
                                  "'%.*s' of '#pragma maxcode optimize'",
                                  lineno, quote_len((size_t)(p - from)),
                                  from);
            } else if (quoted && *p == '\\' && e - p >= 2 &&
                       (p[1] == '"' || p[1] == '\\')) {
                mc_buf_addc(tok, *++p);
            } else {
                mc_buf_addc(tok, *p);
            }
        }
        if (mc_buf_status(tok))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        if (quoted)
            return mc_err_set(err, MC_ESYNTAX, "%zu: unterminated '\"' in "
                              "option '%.*s' of '#pragma maxcode optimize'",
                              lineno, quote_len((size_t)(p - from)), from);
        eq = memchr(tok->s, '=', tok->len);
        if (!eq || eq == tok->s)
            return mc_err_set(err, MC_ESYNTAX, "%zu: malformed option "
                              "'%.*s' in '#pragma maxcode optimize': "
                              "expected KEY=VALUE", lineno,
                              quote_len((size_t)(p - from)), from);
        if (mc_strv_pushn(out, tok->s, tok->len))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
}

static enum mc_code
push_fence_line(struct fence_lines *fl, const struct line *ln,
                struct mc_err *err)
{
    if (fl->n == fl->cap) {
        size_t cap = fl->cap ? fl->cap * 2 : 8;
        struct fence_line *v = mc_realloc(fl->v, cap * sizeof(*v));

        if (!v)
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        fl->v = v;
        fl->cap = cap;
    }
    fl->v[fl->n].start = ln->start;
    fl->v[fl->n].next = ln->next;
    fl->n++;
    return MC_OK;
}

/*
 * Walk the LEN bytes at TEXT. With M, check the marks strictly and store
 * them in M (which must be initialised). Without M, only note where the
 * begin and end lines are, and report nothing but running out of memory.
 * With FL, append each begin and end line to it.
 */
static enum mc_code
scan(const char *text, size_t len, struct mc_mark *m, struct fence_lines *fl,
     struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    struct mc_buf line = MC_BUF_INIT, tok = MC_BUF_INIT;
    size_t pos = 0, lineno = 1, open = 0; /* open: the line of a begin */
    struct line ln;

    while (next_line(text, len, &pos, &lineno, &ln)) {
        const char *word, *rest, *e;
        enum kind k;
        size_t wlen;

        if (!may_be_directive(text, &ln))
            continue;
        mc_buf_reset(&line);
        if (splice_line(text, &ln, &line)) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
        k = classify(line.s, line.len, &word, &wlen, &rest);
        if (k == K_NONE)
            continue;
        if (fl && (k == K_BEGIN || k == K_END)) {
            rc = push_fence_line(fl, &ln, err);
            if (rc)
                goto out;
        }
        if (!m)
            continue;
        e = line.s + line.len;
        switch (k) {
        case K_OPTIMIZE:
            m->marked = 1;
            rc = parse_options(rest, e, ln.lineno, &m->options, &tok, err);
            break;
        case K_BEGIN:
        case K_END:
            rest = skip_blanks(rest, e);
            if (rest < e && !is_comment(rest, e)) {
                rc = mc_err_set(err, MC_ESYNTAX, "%zu: unexpected '%.*s' "
                                "after '#pragma maxcode %s'", ln.lineno,
                                quote_len((size_t)(e - rest)), rest,
                                k == K_BEGIN ? "begin" : "end");
            } else if (k == K_BEGIN && open) {
                rc = mc_err_set(err, MC_ESYNTAX, "%zu: nested '#pragma "
                                "maxcode begin' (the begin at line %zu is "
                                "not closed)", ln.lineno, open);
            } else if (k == K_BEGIN) {
                open = ln.lineno;
            } else if (!open) {
                rc = mc_err_set(err, MC_ESYNTAX, "%zu: '#pragma maxcode "
                                "end' without begin", ln.lineno);
            } else {
                open = 0;
                m->n_fences++;
            }
            break;
        case K_OTHER:
            if (!wlen)
                rc = mc_err_set(err, MC_ESYNTAX, "%zu: '#pragma maxcode' "
                                "without a directive (optimize, begin or "
                                "end)", ln.lineno);
            else
                rc = mc_err_set(err, MC_ESYNTAX, "%zu: unknown '#pragma "
                                "maxcode %.*s' (expected optimize, begin "
                                "or end)", ln.lineno, quote_len(wlen),
                                word);
            break;
        case K_NONE:
            break;
        }
        if (rc)
            goto out;
    }
    if (m && open)
        rc = mc_err_set(err, MC_ESYNTAX, "%zu: '#pragma maxcode begin' is "
                        "not closed at end of file", open);
out:
    mc_buf_release(&line);
    mc_buf_release(&tok);
    return rc;
}

void
mc_mark_init(struct mc_mark *m)
{
    m->marked = 0;
    mc_strv_init(&m->options);
    m->n_fences = 0;
}

void
mc_mark_release(struct mc_mark *m)
{
    mc_strv_release(&m->options);
    mc_mark_init(m);
}

enum mc_code
mc_mark_scan(const char *text, size_t len, struct mc_mark *m,
             struct mc_err *err)
{
    enum mc_code rc;

    mc_mark_init(m);
    rc = scan(text, len, m, NULL, err);
    if (rc)
        mc_mark_release(m);
    return rc;
}

enum mc_code
mc_mark_scan_file(const char *path, struct mc_mark *m, struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    struct mc_err inner = MC_ERR_INIT;
    struct mc_buf b = MC_BUF_INIT;
    char chunk[8192];
    FILE *f;
    size_t n;

    mc_mark_init(m);
    f = fopen(path, "rb");
    if (!f)
        return mc_err_set(err, errno == ENOENT ? MC_ENOENT : MC_EIO,
                          "cannot open '%s': %s", path, strerror(errno));
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        mc_buf_add(&b, chunk, n);
    if (ferror(f)) {
        rc = mc_err_set(err, MC_EIO, "cannot read '%s': %s", path,
                        strerror(errno));
        goto out;
    }
    if (mc_buf_status(&b)) {
        rc = mc_err_set(err, MC_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    rc = mc_mark_scan(b.s, b.len, m, &inner);
    if (rc)
        mc_err_set(err, rc, "%s:%s%s", path, rc == MC_ESYNTAX ? "" : " ",
                   inner.msg);
out:
    fclose(f);
    mc_buf_release(&b);
    return rc;
}

/* The 1-based line of TEXT that holds the byte at offset OFF. */
static size_t
line_at(const char *text, size_t off)
{
    size_t i, n = 1;

    for (i = 0; i < off; i++)
        if (text[i] == '\n')
            n++;
    return n;
}

enum mc_code
mc_mark_check_fences(const char *orig, size_t olen, const char *cand,
                     size_t clen, struct mc_err *err)
{
    enum mc_code rc;
    struct mc_mark m = MC_MARK_INIT;
    struct fence_lines of = {NULL, 0, 0}, cf = {NULL, 0, 0};
    size_t nf, k, a, c = 0, ci = 0, diff = 0;

    rc = scan(orig, olen, &m, &of, err);
    mc_mark_release(&m);
    if (rc || !of.n)
        goto out;
    rc = scan(cand, clen, NULL, &cf, err);
    if (rc)
        goto out;
    /* ORIG scanned cleanly, so its lines alternate begin, end, ... Match
     * each stretch outside its fences, from an end line (or the start)
     * through the next begin line (or the end), against CAND, where
     * each stretch after the first starts at CAND's next fence line. */
    nf = of.n / 2;
    for (k = 0; k <= nf; k++) {
        size_t b, i, n;

        a = k ? of.v[2 * k - 1].start : 0;
        if (k) {
            while (ci < cf.n && cf.v[ci].start < c)
                ci++;
            if (ci == cf.n) {
                diff = a;
                goto changed;
            }
            c = cf.v[ci].start;
        }
        b = k < nf ? of.v[2 * k].next : olen;
        n = b - a;
        for (i = 0; i < n && c + i < clen && orig[a + i] == cand[c + i]; i++)
            ;
        if (i < n) {
            diff = a + i;
            goto changed;
        }
        c += n;
    }
    if (c == clen)
        goto out;
    diff = olen; /* CAND goes on after ORIG's end */
changed:
    rc = mc_err_set(err, MC_EINVAL, "text outside '#pragma maxcode "
                    "begin/end' changed at line %zu", line_at(orig, diff));
out:
    mc_free(of.v);
    mc_free(cf.v);
    return rc;
}

/* The kernels of the blanked text C (LEN bytes) that NAME selects (NULL:
 * all of them), into K (at most MAX); how many. */
static size_t
select_kernels(const char *c, size_t len, const char *name,
               struct mc_kernel *k, size_t max)
{
    if (name)
        return (size_t)mc_ctext_kernel(c, len, name, k);
    return mc_ctext_kernels(c, len, k, max);
}

/* The first offset of ORIG, from A on, where ORIG[A..B) and CAND from C
 * on differ, or B when CAND[C..C+B-A) is the same (and ends in time). */
static size_t
first_diff(const char *orig, size_t a, size_t b, const char *cand, size_t c,
           size_t clen)
{
    size_t i;

    for (i = a; i < b && c + (i - a) < clen && orig[i] == cand[c + (i - a)];
         i++)
        ;
    return i;
}

#define KERNELS_MAX 64 /* kernels fenced in one file */

enum mc_code
mc_mark_check_kernel(const char *orig, size_t olen, const char *cand,
                     size_t clen, const char *name, struct mc_err *err)
{
    char *oc = mc_ctext_blank(orig, olen), *cc = mc_ctext_blank(cand, clen);
    struct mc_kernel ok[KERNELS_MAX], ck[KERNELS_MAX];
    size_t no, nc, i, a, c, d;
    const char *what = name ? name : "";
    enum mc_code rc = MC_OK;

    if (!oc || !cc) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    no = select_kernels(oc, olen, name, ok, KERNELS_MAX);
    nc = select_kernels(cc, clen, name, ck, KERNELS_MAX);
    if (name && !no) {
        rc = mc_err_set(err, MC_EINVAL, "the source defines no kernel "
                        "'%s' (a __global__ function with a body)", name);
        goto out;
    }
    if (!no || no > KERNELS_MAX)
        goto out; /* no kernel (or too many): nothing to fence by */
    if (nc != no) {
        rc = name ? mc_err_set(err, MC_EINVAL, "kernel '%s' is gone", name)
                  : mc_err_set(err, MC_EINVAL, "the kernels changed: %zu "
                               "instead of %zu", nc, no);
        goto out;
    }
    /* The stretches between kernels: before the first one's first line,
     * between one's closing brace and the next one's first line, and
     * after the last one. */
    for (i = 0, a = 0, c = 0; i <= no; i++) {
        size_t b = i < no ? ok[i].start : olen;
        size_t cb = i < no ? ck[i].start : clen;

        d = first_diff(orig, a, b, cand, c, clen);
        if (d < b || cb - c != b - a)
            goto changed;
        if (i < no) {
            a = ok[i].end;
            c = ck[i].end;
        }
    }
    goto out;
changed:
    if (name)
        rc = mc_err_set(err, MC_EINVAL, "text outside kernel '%s' changed "
                        "at line %zu", what, line_at(orig, d));
    else
        rc = mc_err_set(err, MC_EINVAL, "text outside the kernels changed "
                        "at line %zu", line_at(orig, d));
out:
    mc_free(oc);
    mc_free(cc);
    return rc;
}
