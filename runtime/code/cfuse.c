/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cfuse.c: the sweeps whose copy-back may be fused into them with a lag,
 * and the text of the rewrite (see cfuse.h). Every test here errs
 * towards no: a nest the reading cannot follow gets no rewrite.
 */
#include "mc_setup.h"
#include "cfuse.h"
#include "cscalar.h"
#include "ctext.h"

#include <ctype.h>

#define IDENT(ch) (isalnum((unsigned char)(ch)) || (ch) == '_')
#define MAX_LAG   8 /* rows, at most */

static size_t
skip(const char *c, size_t to, size_t i)
{
    return mc_cmodel_skip_space(c, to, i);
}

/* Whether C[*I, TO) starts with the operator P (not the first character
 * of a longer one, "++" or "->"), past blanks; *I then past it. */
static int
punct(const char *c, size_t to, size_t *i, const char *p)
{
    size_t j = skip(c, to, *i), n = strlen(p);

    if (j + n > to || strncmp(c + j, p, n) ||
        (j + n < to && strchr("+-=>", c[j + n]) && strchr("+-", p[0])))
        return 0;
    *i = j + n;
    return 1;
}

/* Whether C[*I, TO) starts with the name W of N bytes, past blanks. */
static int
word(const char *c, size_t to, size_t *i, const char *w, size_t n)
{
    size_t j = skip(c, to, *i);

    if (!n || j + n > to || strncmp(c + j, w, n) ||
        (j + n < to && IDENT(c[j + n])))
        return 0;
    *i = j + n;
    return 1;
}

/* Whether C[*I, TO) starts with a decimal number below 4096, into *V. */
static int
number(const char *c, size_t to, size_t *i, int *v)
{
    size_t j = skip(c, to, *i), k;

    for (*v = 0, k = j; k < to && isdigit((unsigned char)c[k]) && *v < 4096;
         k++)
        *v = *v * 10 + (c[k] - '0');
    if (k == j || *v >= 4096 || (k < to && IDENT(c[k])))
        return 0;
    *i = k;
    return 1;
}

/* The names a subscript is read with: Y, W and X. */
struct names {
    const char *y, *x;
    size_t w, wn; /* W in the text */
};

/* Whether the subscript C[FROM, TO) is `Y * W + X`, `(Y + C) * W + X`
 * or `(Y - C) * W + X`, then `+ D`, `- D` or nothing, into *CY and
 * *DX (signed). */
static int
subscript(const char *c, size_t from, size_t to, const struct names *nm,
          int *cy, int *dx)
{
    size_t i = from;
    int sign = 0, v = 0;

    *cy = *dx = 0;
    if (punct(c, to, &i, "(")) {
        if (!word(c, to, &i, nm->y, strlen(nm->y)))
            return 0;
        sign = punct(c, to, &i, "+") ? 1 : punct(c, to, &i, "-") ? -1 : 0;
        if (!sign || !number(c, to, &i, &v) || !punct(c, to, &i, ")"))
            return 0;
        *cy = sign * v;
    } else if (!word(c, to, &i, nm->y, strlen(nm->y))) {
        return 0;
    }
    if (!punct(c, to, &i, "*") || !word(c, to, &i, c + nm->w, nm->wn) ||
        !punct(c, to, &i, "+") || !word(c, to, &i, nm->x, strlen(nm->x)))
        return 0;
    sign = punct(c, to, &i, "+") ? 1 : punct(c, to, &i, "-") ? -1 : 0;
    if (sign && !number(c, to, &i, &v))
        return 0;
    *dx = sign * v;
    return skip(c, to, i) == to;
}

/* Whether C[*I, TO) starts with an element X[S] of a name, past blanks:
 * its name into [*AT, *AT + *N), its subscript into [*S, *SE), *I past
 * the ']'; one subscript only. */
static int
element(const char *c, size_t to, size_t *i, size_t *at, size_t *n, size_t *s,
        size_t *se)
{
    size_t j = skip(c, to, *i), close;

    if (!(*n = mc_ctext_name_len(c, j)))
        return 0;
    *at = j;
    j = skip(c, to, j + *n);
    if (j >= to || c[j] != '[')
        return 0;
    close = mc_ctext_match(c, to, j, '[', ']');
    if (close > to || c[close - 1] != ']')
        return 0;
    *s = j + 1;
    *se = close - 1;
    *i = close;
    return skip(c, to, close) >= to || c[skip(c, to, close)] != '[';
}

/* The one statement of innermost loop IN's body into [*S, *E) (E: its
 * ';'), or 0. */
static int
only_statement(const char *c, const struct mc_cloop *in, size_t *s, size_t *e)
{
    size_t from = in->body, to = in->end, e2;

    if (c[from] == '{') {
        from++;
        to--;
    }
    *s = from;
    if (mc_cscalar_statement(c, to, s, e) != 1)
        return 0;
    from = *e + 1;
    return mc_cscalar_statement(c, to, &from, &e2) == 0;
}

/* Whether loop OUTER's body is loop INNER alone (in a block or not). */
static int
alone(const char *c, const struct mc_cmodel *m, int outer, int inner)
{
    const struct mc_cloop *o = &m->loop[outer], *in = &m->loop[inner];

    if (in->parent != outer || !in->innermost)
        return 0;
    if (c[o->body] == '{')
        return skip(c, o->end, o->body + 1) == in->kw &&
               skip(c, o->end, in->end) == o->end - 1 && c[o->end - 1] == '}';
    return o->body == in->kw && o->end == in->end;
}

/* Whether the name at C[A, A+N) is a parameter `T *NAME` of F that
 * restrict may qualify. */
static int
pointer(const char *c, size_t len, const struct mc_cfunc *f, size_t a,
        size_t n)
{
    size_t pf, pt;

    return mc_cscalar_param(c, f, a, n, &pf, &pt) == 1 &&
           mc_cmodel_object_pointer(c, len, pf, pt);
}

/* The copy's statement `U[S] = V[S];` at C[S, E) checked against NM,
 * U's name into [*U, *U + *UN), V's into *V, *VN. */
static int
copy_statement(const char *c, size_t s, size_t e, const struct names *nm,
               size_t *u, size_t *un, size_t *v, size_t *vn)
{
    size_t i = s, a, ae;
    int cy, dx;

    if (!element(c, e, &i, u, un, &a, &ae) ||
        !subscript(c, a, ae, nm, &cy, &dx) || cy || dx ||
        !punct(c, e, &i, "=") || (c[i] == '='))
        return 0;
    if (!element(c, e, &i, v, vn, &a, &ae) ||
        !subscript(c, a, ae, nm, &cy, &dx) || cy || dx)
        return 0;
    return skip(c, e, i) == e;
}

/* The sweep's statement `V[S] = EXPR;` at C[S, E): V is C[V_, V_+VN),
 * U C[U, U+UN); into *LAG the most rows back it reads U, into *BACK
 * the most columns back. */
static int
sweep_statement(const char *c, size_t s, size_t e, const struct names *nm,
                size_t u, size_t un, size_t v_, size_t vn, int *lag, int *back)
{
    size_t i = s, at, n, a, ae;
    int cy, dx;

    if (!element(c, e, &i, &at, &n, &a, &ae) || n != vn ||
        strncmp(c + at, c + v_, n) || !subscript(c, a, ae, nm, &cy, &dx) ||
        cy || dx || !punct(c, e, &i, "=") || c[i] == '=' ||
        !mc_cscalar_pure(c, i, e))
        return 0;
    *lag = *back = 0;
    for (; i < e; i++) {
        if (!IDENT(c[i]) || IDENT(c[i - 1]))
            continue;
        n = mc_ctext_name_len(c, i);
        if (n == vn && !strncmp(c + i, c + v_, n))
            return 0;
        if (n == un && !strncmp(c + i, c + u, n)) {
            size_t j = i;
            if (!element(c, e, &j, &at, &n, &a, &ae) ||
                !subscript(c, a, ae, nm, &cy, &dx))
                return 0;
            if (-cy > *lag)
                *lag = -cy;
            if (-dx > *back)
                *back = -dx;
            i = j - 1;
        } else if (n) {
            i += n - 1;
        }
    }
    return *lag <= MAX_LAG;
}

/* The loop whose keyword is at OFF, or -1. */
static int
loop_at(const struct mc_cmodel *m, size_t off)
{
    size_t i;

    for (i = 0; i < m->nloop; i++)
        if (m->loop[i].kw == off)
            return (int)i;
    return -1;
}

/* The header of loop L read as cfuse.h takes it, into HB. */
static int
header(const char *c, const struct mc_cmodel *m, int l, struct mc_cbound *hb)
{
    const struct mc_cloop *lp = &m->loop[l];
    const struct mc_cfunc *f = &m->fn[lp->fn];

    return lp->plain && lp->var[0] &&
           mc_cmodel_line(m, lp->head_end - 1) == lp->line &&
           mc_cblock_header(c, lp, hb) && !hb->le &&
           mc_cblock_bound(c, f, hb->lo, hb->lo_end) &&
           mc_cblock_bound(c, f, hb->hi, hb->hi_end);
}

int
mc_cfuse_nest(const char *c, size_t len, const struct mc_cmodel *m, int inner,
              struct mc_cfuse *f)
{
    const struct mc_cloop *in = &m->loop[inner];
    const struct mc_cfunc *fn;
    struct mc_cbound ib;
    struct names nm;
    size_t i, s, e, u, un, v, vn;
    int lo2, k = 0, back;

    memset(f, 0, sizeof(*f));
    if (!in->innermost || in->parent < 0 || !alone(c, m, in->parent, inner))
        return 0;
    f->sweep = in->parent;
    f->sweep_in = inner;
    f->copy = loop_at(m, skip(c, len, m->loop[f->sweep].end));
    if (f->copy < 0 || m->loop[f->copy].parent != m->loop[f->sweep].parent ||
        m->loop[f->sweep].pragma || m->loop[f->copy].pragma)
        return 0; /* `#pragma omp for` on the sweep: rows in parallel */
    for (i = 0, f->copy_in = -1; i < m->nloop; i++)
        if (m->loop[i].parent == f->copy)
            f->copy_in = (int)i;
    fn = &m->fn[in->fn];
    if (f->copy_in < 0 || !alone(c, m, f->copy, f->copy_in) ||
        !header(c, m, f->sweep, &f->sb) || !header(c, m, f->copy, &f->cb) ||
        !header(c, m, inner, &ib) ||
        !mc_cscalar_same_text(
            c, m->loop[f->sweep].head, m->loop[f->sweep].head_end,
            m->loop[f->copy].head, m->loop[f->copy].head_end) ||
        !mc_cscalar_same_text(c, in->head, in->head_end,
                              m->loop[f->copy_in].head,
                              m->loop[f->copy_in].head_end) ||
        !strcmp(in->var, m->loop[f->sweep].var) ||
        mc_cmodel_has_word(c, in->head, in->head_end, m->loop[f->sweep].var))
        return 0;
    /* X from L2 to W - K. */
    i = ib.lo;
    if (!number(c, ib.lo_end, &i, &lo2) || skip(c, ib.lo_end, i) != ib.lo_end)
        return 0;
    nm.y = m->loop[f->sweep].var;
    nm.x = in->var;
    nm.w = skip(c, ib.hi_end, ib.hi);
    nm.wn = mc_ctext_name_len(c, nm.w);
    i = nm.w + nm.wn;
    if (!nm.wn ||
        (punct(c, ib.hi_end, &i, "-") && !number(c, ib.hi_end, &i, &k)) ||
        skip(c, ib.hi_end, i) != ib.hi_end)
        return 0;
    /* The copy, then the sweep against it. */
    if (!only_statement(c, &m->loop[f->copy_in], &s, &e) ||
        !copy_statement(c, s, e, &nm, &u, &un, &v, &vn) ||
        (un == vn && !strncmp(c + u, c + v, un)) ||
        !pointer(c, len, fn, u, un) || !pointer(c, len, fn, v, vn) ||
        !only_statement(c, in, &s, &e) ||
        !sweep_statement(c, s, e, &nm, u, un, v, vn, &f->lag, &back) ||
        back > lo2 + k)
        return 0;
    {
        struct mc_cscalar_body sc;
        if (!mc_cscalar_body(c, m, inner, &sc) || sc.other_write)
            return 0;
        for (i = 0; i < sc.n; i++)
            if (sc.written[i] && (mc_ctext_name_len(c, sc.base[i]) != vn ||
                                  strncmp(c + sc.base[i], c + v, vn)))
                return 0;
    }
    return 1;
}

int
mc_cfuse_block(const char *c, const struct mc_cmodel *m,
               const struct mc_cfuse *f)
{
    return c[m->loop[f->sweep].body] == '{';
}

/* C[FROM, TO) into OUT on one line after a blank, Y as (Y - LAG). */
static void
one_line(const char *c, size_t from, size_t to, const char *y, int lag,
         struct mc_buf *out)
{
    size_t i, n;

    mc_buf_addc(out, ' ');
    for (i = from; i < to; i++) {
        if (IDENT(c[i]) && (i == from || !IDENT(c[i - 1]))) {
            n = mc_ctext_name_len(c, i);
            if (!n)
                while (IDENT(c[i + n]))
                    n++;
            if (lag && n == strlen(y) && !strncmp(c + i, y, n))
                mc_buf_addf(out, "(%s - %d)", y, lag);
            else
                mc_buf_add(out, c + i, n);
            i += n - 1;
        } else if (!isspace((unsigned char)c[i])) {
            mc_buf_addc(out, c[i]);
        } else if (i + 1 < to && !isspace((unsigned char)c[i + 1])) {
            mc_buf_addc(out, ' ');
        }
    }
}

void
mc_cfuse_text(const char *c, const struct mc_cmodel *m,
              const struct mc_cfuse *f, struct mc_buf *out)
{
    const struct mc_cloop *ci = &m->loop[f->copy_in];
    const char *y = m->loop[f->sweep].var;

    if (f->lag)
        mc_buf_addf(out, " if ((long long)%s - %d >= (%.*s))", y, f->lag,
                    (int)(f->sb.lo_end - f->sb.lo), c + f->sb.lo);
    one_line(c, ci->kw, ci->end, y, f->lag, out);
    if (!mc_cfuse_block(c, m, f))
        mc_buf_adds(out, " }");
}

void
mc_cfuse_copy_lo(const char *c, const struct mc_cfuse *f, struct mc_buf *out)
{
    int hn = (int)(f->cb.hi_end - f->cb.hi),
        ln = (int)(f->cb.lo_end - f->cb.lo);

    mc_buf_addf(out,
                "(int)((long long)(%.*s) - %d > (%.*s) ? "
                "(long long)(%.*s) - %d : (%.*s))",
                hn, c + f->cb.hi, f->lag, ln, c + f->cb.lo, hn, c + f->cb.hi,
                f->lag, ln, c + f->cb.lo);
}
