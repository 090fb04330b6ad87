/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cjam.c: the nests where unroll-and-jam is sure to be right, and the
 * text of the rewrite (see cjam.h). Every test here errs towards no: a
 * nest the reading cannot follow gets no rewrite.
 */
#include "mc_setup.h"
#include "cjam.h"
#include "cscalar.h"
#include "ctext.h"

#include <ctype.h>

#define IDENT(ch) (isalnum((unsigned char)(ch)) || (ch) == '_')

static const char *const type_words[] = {"const",    "double", "float",
                                         "int",      "long",   "short",
                                         "unsigned", "signed", "char"};

static size_t
skip(const char *c, size_t to, size_t i)
{
    return mc_cmodel_skip_space(c, to, i);
}

static int
type_word(const char *c, size_t w, size_t n)
{
    size_t i;

    for (i = 0; n && i < MC_ARRAY_SIZE(type_words); i++)
        if (strlen(type_words[i]) == n && !strncmp(c + w, type_words[i], n))
            return 1;
    return 0;
}

/* The local of J named C[W, W+N), or -1. */
static int
local_of(const char *c, const struct mc_cjam *j, size_t w, size_t n)
{
    size_t i;

    for (i = 0; i < j->nlocal; i++)
        if (j->local[i].n == n && !strncmp(c + j->local[i].at, c + w, n))
            return (int)i;
    return -1;
}

/* Whether C[FROM, TO) names a local of J. */
static int
names_local(const char *c, const struct mc_cjam *j, size_t from, size_t to)
{
    size_t i, n;

    for (i = from; i < to; i++) {
        if (!IDENT(c[i]) || (i > from && IDENT(c[i - 1])))
            continue;
        n = mc_ctext_name_len(c, i);
        if (n && local_of(c, j, i, n) >= 0)
            return 1;
    }
    return 0;
}

/* The statements of C[FROM, TO) (see cjam.h): declarations of locals
 * (into J) where DECL, and assignments of an element or a local. */
static int
statements(const char *c, size_t from, size_t to, int decl, struct mc_cjam *j)
{
    size_t s, e, i, w, n, op;
    int r;

    for (s = from; (r = mc_cscalar_statement(c, to, &s, &e)) > 0; s = e + 1) {
        if (!(n = mc_ctext_name_len(c, s)))
            return 0;
        if (type_word(c, s, n)) {
            for (w = s; type_word(c, w, mc_ctext_name_len(c, w));)
                w = skip(c, e, w + mc_ctext_name_len(c, w));
            n = mc_ctext_name_len(c, w);
            op = skip(c, e, w + n);
            if (!decl || !n || j->nlocal == MC_CJAM_LOCALS ||
                local_of(c, j, w, n) >= 0 || c[op] != '=' ||
                c[op + 1] == '=' || skip(c, e, op + 1) == e ||
                !mc_cscalar_pure(c, op + 1, e))
                return 0;
            j->local[j->nlocal].at = w;
            j->local[j->nlocal++].n = n;
            continue;
        }
        i = skip(c, e, s + n);
        if (c[i] == '[') {
            while (i < e && c[i] == '[') {
                i = mc_ctext_match(c, e, i, '[', ']');
                i = skip(c, e, i);
            }
        } else if (local_of(c, j, s, n) < 0) {
            return 0; /* a scalar that is no local of the outer body */
        }
        if (!(op = mc_cscalar_assign_op(c, i)) || !mc_cscalar_pure(c, s, i) ||
            !mc_cscalar_pure(c, op, e) || skip(c, e, op) == e)
            return 0;
    }
    return r == 0;
}

/* Whether the subscript C[FROM, TO) is V or `T + V`, T naming neither
 * V, OTHER nor a local of J, and holding only names, numbers, '+', '-',
 * '*', '/' and parentheses that nest: distinct values of V give
 * distinct subscripts. */
static int
injective(const char *c, const struct mc_cjam *j, size_t from, size_t to,
          const char *v, const char *other)
{
    size_t a = skip(c, to, from), e = to, vn = strlen(v), p, i;
    int depth = 0;

    while (e > a && isspace((unsigned char)c[e - 1]))
        e--;
    if (e - a < vn || strncmp(c + e - vn, v, vn) ||
        (e - vn > a && IDENT(c[e - vn - 1])))
        return 0;
    if (e - vn == a)
        return 1;
    for (p = e - vn; p > a && isspace((unsigned char)c[p - 1]);)
        p--;
    if (p < a + 2 || c[p - 1] != '+' || c[p - 2] == '+')
        return 0;
    for (i = a; i < p - 1; i++) {
        depth += c[i] == '(';
        depth -= c[i] == ')';
        if (depth < 0 || !(IDENT(c[i]) || isspace((unsigned char)c[i]) ||
                           strchr("+-*/()", c[i])))
            return 0;
    }
    return depth == 0 && !mc_cmodel_has_word(c, a, p - 1, v) &&
           !mc_cmodel_has_word(c, a, p - 1, other) &&
           !names_local(c, j, a, p - 1);
}

/* Whether the element at C[W, END) of an array the nest writes, found in
 * part IN_BODY (the inner body, or PRE or POST), may be updated as
 * cjam.h says, for outer variable V and inner variable W_. */
static int
written_ok(const char *c, const struct mc_cjam *j, size_t w, size_t end,
           int in_body, const char *v, const char *w_)
{
    size_t i = skip(c, end, w + mc_ctext_name_len(c, w)), close;
    int inj_v = 0, inj_w = 0, names_v = 0;

    while (i < end && c[i] == '[') {
        close = mc_ctext_match(c, end, i, '[', ']');
        if (close > end || names_local(c, j, i + 1, close - 1))
            return 0;
        inj_v |= injective(c, j, i + 1, close - 1, v, w_);
        inj_w |= injective(c, j, i + 1, close - 1, w_, v);
        names_v |= mc_cmodel_has_word(c, i + 1, close - 1, v);
        i = skip(c, end, close);
    }
    return inj_v || (!names_v && inj_w && in_body);
}

/* Whether the name at C[A] is the one at C[B]. */
static int
same_name(const char *c, size_t a, size_t b)
{
    size_t n = mc_ctext_name_len(c, a);

    return n && n == mc_ctext_name_len(c, b) && !strncmp(c + a, c + b, n);
}

/* The arrays of the three parts (PRE, the inner body, POST) checked
 * against the rules for writes, NEEDS_RESTRICT into J. */
static int
writes(const char *c, size_t len, const struct mc_cfunc *f,
       const struct mc_cscalar_body *part, const char *v, const char *w_,
       struct mc_cjam *j)
{
    size_t k, l, pf, pt, first = 0;
    int p, q, wrote = 0, other = 0;

    for (p = 0; p < 3; p++)
        other |= part[p].other_read;
    for (p = 0; p < 3; p++)
        for (k = 0; k < part[p].n; k++) {
            size_t x = part[p].base[k];
            int is_written = 0;
            for (q = 0; q < 3; q++)
                for (l = 0; l < part[q].n; l++)
                    if (same_name(c, part[q].base[l], x))
                        is_written |= part[q].written[l];
            if (!is_written) {
                other = 1;
                continue;
            }
            for (q = 0; q < 3; q++)
                for (l = 0; l < part[q].n; l++)
                    if (same_name(c, part[q].base[l], x) &&
                        (!mc_cscalar_same_text(c, part[q].base[l],
                                               part[q].end[l], x,
                                               part[p].end[k]) ||
                         !written_ok(c, j, part[q].base[l], part[q].end[l],
                                     q == 1, v, w_)))
                        return 0;
            if (mc_cscalar_param(c, f, x, mc_ctext_name_len(c, x), &pf, &pt) <
                1)
                return 0;
            if (wrote && !same_name(c, x, first))
                other = 1; /* two arrays written: they may overlap */
            first = x;
            wrote = 1;
        }
    j->needs_restrict = wrote && other;
    for (p = 0; j->needs_restrict && p < 3; p++)
        for (k = 0; k < part[p].n; k++)
            if (part[p].written[k] &&
                (mc_cscalar_param(c, f, part[p].base[k],
                                  mc_ctext_name_len(c, part[p].base[k]), &pf,
                                  &pt) < 1 ||
                 !mc_cmodel_object_pointer(c, len, pf, pt)))
                return 0;
    return 1;
}

/* Whether the outer bound C[FROM, TO) holds what cjam.h allows: the
 * names of `int` parameters and of the loops around loop OUTER. */
static int
bound(const char *c, const struct mc_cmodel *m, int outer, size_t from,
      size_t to)
{
    const struct mc_cfunc *f = &m->fn[m->loop[outer].fn];
    size_t i, n;
    int a, up;

    for (i = from; i < to; i++) {
        if (!IDENT(c[i]) || (i > from && IDENT(c[i - 1])))
            continue;
        if (!(n = mc_ctext_name_len(c, i)))
            continue;
        for (up = 0, a = m->loop[outer].parent; a >= 0 && !up;
             a = m->loop[a].parent)
            up = strlen(m->loop[a].var) == n &&
                 !strncmp(m->loop[a].var, c + i, n);
        if (!up && !mc_cblock_bound(c, f, i, i + n))
            return 0;
    }
    for (i = from; i < to; i++)
        if (!IDENT(c[i]) && !isspace((unsigned char)c[i]) &&
            !strchr("+-*()", c[i]))
            return 0;
    return 1;
}

int
mc_cjam_nest(const char *c, size_t len, const struct mc_cmodel *m, int inner,
             struct mc_cjam *j)
{
    const struct mc_cloop *in = &m->loop[inner], *o;
    struct mc_cbound ib;
    struct mc_cscalar_body part[3];

    memset(j, 0, sizeof(*j));
    if (!in->innermost || in->parent < 0 || !in->plain || !in->var[0] ||
        strstr(c, "mc_uj"))
        return 0;
    o = &m->loop[in->parent];
    if (!o->plain || o->pragma || !o->var[0] || !strcmp(o->var, in->var) ||
        mc_cmodel_line(m, o->head_end - 1) != o->line ||
        mc_cmodel_line(m, in->head_end - 1) != in->line ||
        !mc_cblock_header(c, o, &j->ob) || !mc_cblock_header(c, in, &ib) ||
        !bound(c, m, in->parent, j->ob.lo, j->ob.lo_end) ||
        !bound(c, m, in->parent, j->ob.hi, j->ob.hi_end) ||
        mc_cmodel_has_word(c, in->head, in->head_end, o->var))
        return 0;
    j->outer = in->parent;
    j->inner = inner;
    if (c[o->body] == '{') {
        j->pre = o->body + 1;
        j->pre_end = in->kw;
        j->post = in->end;
        j->post_end = o->end - 1;
        if (c[j->post_end] != '}')
            return 0;
    } else if (o->body == in->kw && o->end == in->end) {
        j->pre = j->pre_end = j->post = j->post_end = in->kw;
    } else {
        return 0;
    }
    j->body = in->body;
    j->body_end = in->end;
    if (c[in->body] == '{') {
        j->body++;
        j->body_end--;
    }
    if (mc_cmodel_has_loop(c, j->pre, j->pre_end) ||
        mc_cmodel_has_loop(c, j->post, j->post_end) ||
        !statements(c, j->pre, j->pre_end, 1, j) ||
        !statements(c, j->body, j->body_end, 0, j) ||
        !statements(c, j->post, j->post_end, 0, j) ||
        names_local(c, j, in->head, in->head_end) ||
        !mc_cscalar_part(c, m, j->outer, j->pre, j->pre_end, &part[0]) ||
        !mc_cscalar_body(c, m, inner, &part[1]) ||
        !mc_cscalar_part(c, m, j->outer, j->post, j->post_end, &part[2]) ||
        part[0].other_write || part[1].other_write || part[2].other_write)
        return 0;
    return writes(c, len, &m->fn[in->fn], part, o->var, in->var, j);
}

/* C[FROM, TO) into OUT as copy K, after a blank: blanks and newlines
 * as one blank, none at either end, V as (V + K), each local L as
 * mc_ujK_L. Nothing when C[FROM, TO) is blank. */
static void
copy(const char *c, const struct mc_cjam *j, const char *v, size_t from,
     size_t to, int k, struct mc_buf *out)
{
    size_t i, n;

    from = skip(c, to, from);
    while (to > from && isspace((unsigned char)c[to - 1]))
        to--;
    if (from < to)
        mc_buf_addc(out, ' ');
    for (i = from; i < to; i++) {
        if (IDENT(c[i]) && (i == from || !IDENT(c[i - 1]))) {
            for (n = 0; i + n < to && IDENT(c[i + n]); n++)
                ;
            if (k && mc_ctext_name_len(c, i) == n && strlen(v) == n &&
                !strncmp(c + i, v, n))
                mc_buf_addf(out, "(%s + %d)", v, k);
            else if (mc_ctext_name_len(c, i) == n && local_of(c, j, i, n) >= 0)
                mc_buf_addf(out, "mc_uj%d_%.*s", k, (int)n, c + i);
            else
                mc_buf_add(out, c + i, n);
            i += n - 1;
        } else if (!isspace((unsigned char)c[i])) {
            mc_buf_addc(out, c[i]);
        } else if (!isspace((unsigned char)c[i + 1])) {
            mc_buf_addc(out, ' ');
        }
    }
}

void
mc_cjam_text(const char *c, const struct mc_cmodel *m, const struct mc_cjam *j,
             int u, const char *pragmas, struct mc_buf *out)
{
    const struct mc_cloop *in = &m->loop[j->inner];
    const char *v = m->loop[j->outer].var;
    int k;

    mc_buf_addf(out,
                "{ int %s = %.*s; for (; (long long)%s + %d %s (%.*s); "
                "%s += %d) {",
                v, (int)(j->ob.lo_end - j->ob.lo), c + j->ob.lo, v, u - 1,
                j->ob.le ? "<=" : "<", (int)(j->ob.hi_end - j->ob.hi),
                c + j->ob.hi, v, u);
    for (k = 0; k < u; k++)
        copy(c, j, v, j->pre, j->pre_end, k, out);
    if (pragmas)
        mc_buf_adds(out, pragmas);
    copy(c, j, v, in->kw, in->head_end, 0, out);
    mc_buf_adds(out, " {");
    for (k = 0; k < u; k++)
        copy(c, j, v, j->body, j->body_end, k, out);
    mc_buf_adds(out, " }");
    for (k = 0; k < u; k++)
        copy(c, j, v, j->post, j->post_end, k, out);
    mc_buf_adds(out, " } ");
}
