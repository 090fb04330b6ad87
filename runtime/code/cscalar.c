/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cscalar.c: the loops where scalar replacement is sure to be right,
 * and their elements (see cscalar.h). Every test here errs towards no:
 * a loop the reading cannot follow gets no rewrite.
 */
#include "mc_setup.h"
#include "cscalar.h"
#include "ctext.h"

#include <ctype.h>

#define IDENT(ch) (isalnum((unsigned char)(ch)) || (ch) == '_')

/* The words a declaration of a scalar (or of a pointer to, or an array
 * of, scalars) is made of. */
static const char *const scalar_words[] = {
    "char", "short", "int", "long", "float", "double", "signed",
    "unsigned", "const", "restrict", "__restrict", "__restrict__",
    "_Bool", "bool", "size_t", "ptrdiff_t", "int8_t", "int16_t",
    "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"};

/* Words that make a loop body too hard to follow. */
static const char *const refused[] = {
    "if", "else", "switch", "case", "default", "break", "continue",
    "return", "goto", "sizeof", "_Alignof", "alignof", "asm", "__asm",
    "__asm__", "while", "do", "for", "typeof", "__typeof__", "decltype",
    "static", "extern", "volatile", "new", "delete", "this", "operator"};

static int
in_list(const char *c, size_t w, size_t n, const char *const *list,
        size_t count)
{
    size_t i;

    for (i = 0; i < count; i++)
        if (strlen(list[i]) == n && !strncmp(c + w, list[i], n))
            return 1;
    return 0;
}

static int
scalar_word(const char *c, size_t w, size_t n)
{
    return in_list(c, w, n, scalar_words, MC_ARRAY_SIZE(scalar_words));
}

/* The offset of the last character before I (not before FROM) that is
 * no blank, or FROM - 1 (as (size_t)-1 when FROM is 0) when none. */
static size_t
back(const char *c, size_t from, size_t i)
{
    while (i > from && isspace((unsigned char)c[i - 1]))
        i--;
    return i - 1;
}

/* Where the word that ends at C[E] (inclusive) starts. */
static size_t
word_start(const char *c, size_t from, size_t e)
{
    while (e > from && IDENT(c[e - 1]))
        e--;
    return e;
}

/* Whether the lvalue C[AT, END) is assigned, incremented or decremented
 * there (C[FROM, TO) bounds the look around it). */
static int
assigned(const char *c, size_t from, size_t to, size_t at, size_t end)
{
    size_t j = mc_cmodel_skip_space(c, to, end), p = back(c, from, at);

    if (p + 1 > from && p > from && (c[p] == '+' || c[p] == '-') &&
        c[p - 1] == c[p])
        return 1;
    if (j + 1 >= to)
        return 0;
    if ((c[j] == '+' || c[j] == '-') && c[j + 1] == c[j])
        return 1;
    if (c[j] == '=')
        return c[j + 1] != '=';
    if (c[j] && strchr("+-*/%&|^", c[j]) && c[j + 1] == '=')
        return 1;
    return (c[j] == '<' || c[j] == '>') && j + 2 < to &&
           c[j + 1] == c[j] && c[j + 2] == '=';
}

/* Past the subscripts "[...]..." that start at or after I. */
static size_t
chain_end(const char *c, size_t to, size_t i)
{
    size_t j = mc_cmodel_skip_space(c, to, i);

    while (j < to && c[j] == '[') {
        i = mc_ctext_match(c, to, j, '[', ']');
        j = mc_cmodel_skip_space(c, to, i);
    }
    return i;
}

/* Whether the word C[W, W+N) occurs in C[FROM, TO) as an lvalue that is
 * assigned. */
static int
word_assigned(const char *c, size_t from, size_t to, size_t w, size_t n)
{
    size_t i;

    for (i = from; i + n <= to; i++)
        if ((i == from || !IDENT(c[i - 1])) && !strncmp(c + i, c + w, n) &&
            (i + n == to || !IDENT(c[i + n])) &&
            assigned(c, from, to, i, chain_end(c, to, i + n)))
            return 1;
    return 0;
}

/* Whether the statement holding C[I] inside C[FROM, ...) starts with a
 * type word or a storage class. */
static int
declaration_of(const char *c, size_t from, size_t i)
{
    size_t s = i, e;

    while (s > from && !strchr(";{}", c[s - 1]))
        s--;
    s = mc_cmodel_skip_space(c, i, s);
    for (e = s; IDENT(c[e]); e++)
        ;
    return e > s && (scalar_word(c, s, e - s) ||
                     in_list(c, s, e - s, refused, MC_ARRAY_SIZE(refused)) ||
                     !strncmp(c + s, "struct", 6) ||
                     !strncmp(c + s, "auto", 4));
}

/* The parameter of F that declares the name C[W, W+N) into [*FROM, *TO),
 * the name there at *AT: 1 when there is one. */
static int
param_of(const char *c, const struct mc_cfunc *f, size_t w, size_t n,
         size_t *from, size_t *to, size_t *at)
{
    size_t i, s = f->params + 1;
    int depth = 0, hit = 0;

    for (i = f->params + 1; i < f->params_end; i++) {
        if (!depth && (c[i] == ',' || i + 1 == f->params_end)) {
            if (hit) {
                *from = s;
                *to = i;
                return 1;
            }
            s = i + 1;
        }
        depth += c[i] == '(' || c[i] == '[';
        depth -= c[i] == ')' || c[i] == ']';
        if (!depth && !strncmp(c + i, c + w, n) && !IDENT(c[i - 1]) &&
            !IDENT(c[i + n])) {
            hit = 1;
            *at = i;
        }
    }
    return 0;
}

/* The levels of '*' and "[]" of the parameter C[FROM, TO) declaring the
 * name at C[W] (N bytes) with scalar words only; -1 for anything else. */
static int
scalar_dims(const char *c, size_t from, size_t to, size_t w, size_t n)
{
    size_t i = from, e;
    int dims = 0, words = 0;

    while (i < w) {
        if (isspace((unsigned char)c[i])) {
            i++;
        } else if (c[i] == '*') {
            dims++;
            i++;
        } else if (IDENT(c[i])) {
            for (e = i; IDENT(c[e]); e++)
                ;
            if (!scalar_word(c, i, e - i))
                return -1;
            words++;
            i = e;
        } else {
            return -1;
        }
    }
    for (i = mc_cmodel_skip_space(c, to, w + n); i < to && c[i] == '[';
         i = mc_cmodel_skip_space(c, to, mc_ctext_match(c, to, i, '[', ']')))
        dims++;
    return words && i >= to ? dims : -1;
}

/* Whether the name C[W, W+N) is a scalar of F's own inside [F's body,
 * UPTO): a parameter passed by value, or a local declared with a type
 * word right before it, not static. */
static int
own_scalar(const char *c, const struct mc_cfunc *f, size_t upto, size_t w,
           size_t n)
{
    size_t from, to, i, p;

    if (param_of(c, f, w, n, &from, &to, &p))
        return scalar_dims(c, from, to, p, n) == 0;
    for (i = f->body + 1; i + n <= upto; i++) {
        if (strncmp(c + i, c + w, n) || IDENT(c[i - 1]) || IDENT(c[i + n]))
            continue;
        p = back(c, f->body, i);
        if (p > f->body && IDENT(c[p]) &&
            scalar_word(c, word_start(c, f->body, p),
                        p + 1 - word_start(c, f->body, p)) &&
            c[mc_cmodel_skip_space(c, upto, i + n)] != '[')
            return 1;
    }
    return 0;
}

/* Whether the text declares the name C[W, W+N) where F may use it
 * before UPTO: a parameter of F; in F's body a word that is no keyword,
 * or a type word and '*', right before it, or a declaration's list; at
 * file scope, before F, a type word right before it. A name declared
 * nowhere may be a macro, and hide anything. */
static int
declared(const char *c, const struct mc_cfunc *f, size_t upto, size_t w,
         size_t n)
{
    size_t i, p, s;
    int star;
    char name[64];

    if (n >= sizeof(name))
        return 0;
    memcpy(name, c + w, n);
    name[n] = '\0';
    if (mc_cmodel_has_word(c, f->params, f->params_end, name))
        return 1; /* a parameter's, or a name of a parameter's type */
    for (i = 1; i + n <= upto; i++) {
        if (i == f->start)
            i = f->body + 1;
        if (strncmp(c + i, c + w, n) || IDENT(c[i - 1]) || IDENT(c[i + n]))
            continue;
        p = back(c, 0, i);
        for (star = 0; i > f->body && p > f->body && c[p] == '*'; star = 1)
            p = back(c, f->body, p);
        if (p + 1 == 0 || !IDENT(c[p])) {
            if (i > f->body && c[p] == ',' && declaration_of(c, f->body, p))
                return 1;
            continue;
        }
        s = word_start(c, 0, p);
        if (scalar_word(c, s, p + 1 - s) ||
            (i > f->body && !star &&
             !in_list(c, s, p + 1 - s, refused, MC_ARRAY_SIZE(refused))))
            return 1;
    }
    return 0;
}

/* Whether F's body declares the name at C[W] (N bytes) again: a word,
 * or a type's '*', right before it, or a list of a declaration. */
static int
redeclared(const char *c, const struct mc_cfunc *f, size_t w, size_t n)
{
    size_t i, p, s, from = f->body;
    int star;

    for (i = from + 1; i + n <= f->end; i++) {
        if (strncmp(c + i, c + w, n) || IDENT(c[i - 1]) || IDENT(c[i + n]))
            continue;
        p = back(c, from, i);
        for (star = 0; p > from && c[p] == '*'; star = 1)
            p = back(c, from, p);
        if (IDENT(c[p])) {
            s = word_start(c, from, p);
            /* "T X" declares; "a * X" multiplies unless a is a type. */
            if (star ? scalar_word(c, s, p + 1 - s) ||
                           !own_scalar(c, f, f->end, s, p + 1 - s)
                     : !in_list(c, s, p + 1 - s, refused,
                                MC_ARRAY_SIZE(refused)) ||
                           !strncmp(c + s, "static", 6) ||
                           !strncmp(c + s, "extern", 6))
                return 1;
        }
        if (c[p] == ',' && declaration_of(c, from, p))
            return 1;
    }
    return 0;
}

int
mc_cscalar_same_text(const char *c, size_t a, size_t ae, size_t b,
                     size_t be)
{
    for (;;) {
        a = mc_cmodel_skip_space(c, ae, a);
        b = mc_cmodel_skip_space(c, be, b);
        if (a >= ae || b >= be)
            return a >= ae && b >= be;
        if (c[a++] != c[b++])
            return 0;
    }
}

/* Whether the subscripts C[AT, END) of an element of loop L (in F) hold
 * only names, numbers, arithmetic and parentheses, and no name of L's
 * variable, nor one that L assigns or its body declares (the local
 * before the loop could not name it). */
static int
plain_subscripts(const char *c, size_t at, size_t end,
                 const struct mc_cloop *l, const struct mc_cfunc *f)
{
    size_t i, e;

    for (i = at; i < end; i++) {
        if (IDENT(c[i]) && !isdigit((unsigned char)c[i])) {
            for (e = i; IDENT(c[e]); e++)
                ;
            if ((e - i == strlen(l->var) && !strncmp(c + i, l->var, e - i)) ||
                word_assigned(c, l->head, l->end, i, e - i) ||
                !declared(c, f, l->body, i, e - i))
                return 0;
            i = e - 1;
        } else if (!IDENT(c[i]) && !isspace((unsigned char)c[i]) &&
                   !strchr("+-*/%()[]", c[i])) {
            return 0;
        }
    }
    return 1;
}

/* Whether the '*' at C[I] is unary: what comes before it is no operand,
 * or the ')' of a cast (a parenthesis that starts with a type word). */
static int
unary(const char *c, size_t from, size_t i)
{
    size_t p = back(c, from, i), q, e;
    int depth = 0;

    if (p + 1 <= from || !(IDENT(c[p]) || c[p] == ']' || c[p] == ')'))
        return 1;
    if (c[p] != ')')
        return 0;
    for (q = p + 1; q-- > from;) {
        depth += c[q] == ')';
        depth -= c[q] == '(';
        if (!depth)
            break;
    }
    q = mc_cmodel_skip_space(c, p, q + 1);
    for (e = q; IDENT(c[e]); e++)
        ;
    return depth || scalar_word(c, q, e - q);
}

/* One name at C[W, E) of the loop, in C[FROM, TO). */
static void
scan_name(const char *c, const struct mc_cmodel *m, const struct mc_cloop *l,
          size_t from, size_t to, size_t w, size_t e,
          struct mc_cscalar_body *sc)
{
    size_t j = mc_cmodel_skip_space(c, to, e), end;

    if (in_list(c, w, e - w, refused, MC_ARRAY_SIZE(refused)) ||
        (j < to && c[j] == '(')) {
        sc->bad = 1; /* a call, or a construct the reading skips */
        return;
    }
    if (scalar_word(c, w, e - w))
        return;
    if (from >= l->body &&
        !declared(c, &m->fn[l->fn], l->end, w, e - w)) {
        sc->bad = 1; /* perhaps a macro */
        return;
    }
    if (j < to && c[j] == '[') {
        end = chain_end(c, to, e);
        if (sc->n == MC_CSCALAR_OCCS) {
            sc->bad = 1;
            return;
        }
        sc->base[sc->n] = w;
        sc->end[sc->n] = end;
        sc->written[sc->n] = assigned(c, from, to, w, end);
        j = mc_cmodel_skip_space(c, to, end);
        sc->stored[sc->n++] = j + 1 < to && c[j] == '=' && c[j + 1] != '=';
        return;
    }
    if (e - w == strlen(l->var) && !strncmp(c + w, l->var, e - w))
        return;
    if (own_scalar(c, &m->fn[l->fn], l->end, w, e - w))
        return;
    if (assigned(c, from, to, w, e))
        sc->other_write = 1;
    else
        sc->other_read = 1;
}

/* The names and elements of C[FROM, TO), a part of loop L, into SC. */
static void
scan_part(const char *c, const struct mc_cmodel *m, const struct mc_cloop *l,
          size_t from, size_t to, struct mc_cscalar_body *sc)
{
    size_t i, e;

    for (i = from; i < to && !sc->bad; i++) {
        char ch = c[i];

        if (isdigit((unsigned char)ch) ||
            (ch == '.' && i + 1 < to && isdigit((unsigned char)c[i + 1]))) {
            while (i + 1 < to && (IDENT(c[i + 1]) || c[i + 1] == '.' ||
                                  ((c[i + 1] == '+' || c[i + 1] == '-') &&
                                   strchr("eEpP", c[i]))))
                i++;
        } else if (IDENT(ch)) {
            for (e = i; e < to && IDENT(c[e]); e++)
                ;
            scan_name(c, m, l, from, to, i, e, sc);
            i = e - 1;
        } else if ((ch && strchr("?:.#\"'", ch)) ||
                   (ch == '-' && c[i + 1] == '>') ||
                   (ch == '|' && c[i + 1] == '|') ||
                   (ch == '&' && c[i + 1] != '=') ||
                   (ch == '*' && c[i + 1] != '=' && unary(c, from, i))) {
            /* A condition, a member, a pointer or an address. */
            sc->bad = 1;
        }
    }
}

int
mc_cscalar_part(const char *c, const struct mc_cmodel *m, int loop,
                size_t from, size_t to, struct mc_cscalar_body *sc)
{
    const struct mc_cloop *l = &m->loop[loop];

    memset(sc, 0, sizeof(*sc));
    if (!l->var[0] || from < l->body || to > l->end ||
        mc_cmodel_has_word(c, m->fn[l->fn].params, m->fn[l->fn].end,
                           "volatile"))
        return 0;
    scan_part(c, m, l, from, to, sc);
    return !sc->bad;
}

int
mc_cscalar_statement(const char *c, size_t to, size_t *s, size_t *e)
{
    size_t i;

    for (;;) {
        for (i = *s; i < to && c[i] != ';'; i++)
            if (c[i] == '{' || c[i] == '}')
                return -1;
        *s = mc_cmodel_skip_space(c, i, *s);
        *e = i;
        if (*s < i)
            return i < to ? 1 : -1;
        if (i >= to)
            return 0;
        *s = i + 1; /* an empty statement */
    }
}

size_t
mc_cscalar_assign_op(const char *c, size_t i)
{
    if (c[i] == '=' && c[i + 1] != '=')
        return i + 1;
    if (c[i] && strchr("+-*/", c[i]) && c[i + 1] == '=')
        return i + 2;
    return 0;
}

int
mc_cscalar_pure(const char *c, size_t from, size_t to)
{
    size_t i;

    for (i = from; i < to; i++) {
        if (c[i] == ',' || ((c[i] == '+' || c[i] == '-') &&
                            c[i + 1] == c[i]))
            return 0;
        if (c[i] == '=' && c[i + 1] != '=' && c[i - 1] != '=' &&
            c[i - 1] != '!' && c[i - 1] != '<' && c[i - 1] != '>')
            return 0;
        if (c[i] == '(' && IDENT(c[back(c, from, i)]))
            return 0;
    }
    return 1;
}

/* The two top-level ';' of loop L's header into S; 1 when INIT and COND
 * are not empty. */
static int
header(const char *c, const struct mc_cloop *l, struct mc_cscalar *s)
{
    size_t i;
    int depth = 0;

    s->semi1 = s->semi2 = 0;
    for (i = l->head + 1; i + 1 < l->head_end; i++) {
        depth += c[i] == '(';
        depth -= c[i] == ')';
        if (depth || c[i] != ';')
            continue;
        if (s->semi1)
            s->semi2 = s->semi2 ? s->semi2 : i;
        else
            s->semi1 = i;
    }
    return s->semi2 &&
           mc_cmodel_skip_space(c, s->semi1, l->head + 1) < s->semi1 &&
           mc_cmodel_skip_space(c, s->semi2, s->semi1 + 1) < s->semi2;
}

/* Element K of SC as a replaced element of S, unless another element of
 * the loop or an occurrence of its array outside one rules it out. */
static void
candidate(const char *c, size_t len, const struct mc_cmodel *m,
          const struct mc_cloop *l, const struct mc_cscalar_body *sc,
          size_t k, struct mc_cscalar *s)
{
    const struct mc_cfunc *f = &m->fn[l->fn];
    size_t w = sc->base[k], end = sc->end[k], n = 0, i, pf, pt, pw;
    long words = 0;
    int dims = 0, brackets = 0, written = 0, loaded = 0;
    char name[64];

    while (IDENT(c[w + n]))
        n++;
    for (i = 0; i < k; i++)
        if (!strncmp(c + sc->base[i], c + w, n) && !IDENT(c[sc->base[i] + n]))
            return; /* done with its first occurrence */
    if (n > 48 || s->nref == MC_CSCALAR_REFS)
        return;
    snprintf(name, sizeof(name), "mc_sr_%.*s", (int)n, c + w);
    /* Every occurrence of X in the body is this element. */
    for (i = l->body; i < l->end; i++)
        words += mc_ctext_word_at(c, l->end, i, name + 6);
    for (i = k; i < sc->n; i++) {
        if (strncmp(c + sc->base[i], c + w, n) || IDENT(c[sc->base[i] + n]))
            continue;
        if (!mc_cscalar_same_text(c, sc->base[i], sc->end[i], w, end))
            return;
        written |= sc->written[i];
        loaded |= !sc->stored[i];
        words--;
    }
    for (i = mc_cmodel_skip_space(c, end, w + n); i < end && c[i] == '[';
         i = mc_cmodel_skip_space(c, end, mc_ctext_match(c, end, i, '[', ']')))
        dims++;
    for (i = w + n; i < end; i++)
        brackets += c[i] == '[';
    /* An element the loop only stores to is left alone: the load
     * before the loop would read what the program never reads. */
    if (words || !loaded || brackets != dims ||
        mc_cmodel_has_word(c, l->head, l->head_end, name + 6) ||
        mc_cmodel_has_word(c, 0, len, name) ||
        !param_of(c, f, w, n, &pf, &pt, &pw) ||
        scalar_dims(c, pf, pt, pw, n) != dims || redeclared(c, f, w, n) ||
        !plain_subscripts(c, w + n, end, l, f))
        return;
    s->ref[s->nref].at = w;
    s->ref[s->nref].end = end;
    s->ref[s->nref].name_len = n;
    s->ref[s->nref++].written = written;
}

int
mc_cscalar_loop(const char *c, size_t len, const struct mc_cmodel *m,
                int loop, struct mc_cscalar *s)
{
    const struct mc_cloop *l = &m->loop[loop];
    const struct mc_cfunc *f = &m->fn[l->fn];
    struct mc_cscalar_body sc;
    size_t k, i, pf, pt, pw;
    int writes = 0, others;

    memset(s, 0, sizeof(*s));
    memset(&sc, 0, sizeof(sc));
    if (!l->innermost || !l->placeable || !l->plain || !l->var[0] ||
        mc_cmodel_line(m, l->head_end - 1) != l->line ||
        mc_cmodel_has_word(c, f->params, f->end, "volatile") ||
        !header(c, l, s) || !mc_cscalar_pure(c, s->semi1 + 1, s->semi2))
        return 0;
    scan_part(c, m, l, s->semi1 + 1, l->head_end - 1, &sc);
    scan_part(c, m, l, l->body, l->end, &sc);
    if (sc.bad)
        return 0;
    /* Elements in the header stay as they are, and count as memory. */
    for (k = 0; k < sc.n; k++)
        if (sc.base[k] < l->body)
            sc.other_read = 1;
    for (k = 0; k < sc.n; k++)
        if (sc.base[k] >= l->body)
            candidate(c, len, m, l, &sc, k, s);
    if (!s->nref)
        return 0;
    for (k = 0; k < sc.n; k++) {
        int replaced = 0;
        for (i = 0; i < s->nref; i++)
            replaced |= mc_cscalar_same_text(c, sc.base[k], sc.end[k],
                                             s->ref[i].at, s->ref[i].end);
        if (replaced) {
            if (s->nocc == MC_CSCALAR_OCCS)
                return 0;
            s->occ[s->nocc].at = sc.base[k];
            s->occ[s->nocc++].end = sc.end[k];
        } else if (sc.written[k]) {
            sc.other_write = 1;
        } else {
            sc.other_read = 1;
        }
    }
    for (i = 0; i < s->nref; i++)
        writes |= s->ref[i].written;
    others = sc.other_write || (writes && sc.other_read);
    s->needs_restrict = others;
    for (i = 0; others && i < s->nref; i++)
        if (!param_of(c, f, s->ref[i].at, s->ref[i].name_len, &pf, &pt,
                      &pw) ||
            !mc_cmodel_object_pointer(c, len, pf, pt))
            return 0;
    return 1;
}

int
mc_cscalar_body(const char *c, const struct mc_cmodel *m, int loop,
                struct mc_cscalar_body *sc)
{
    const struct mc_cloop *l = &m->loop[loop];

    memset(sc, 0, sizeof(*sc));
    if (!l->var[0] ||
        mc_cmodel_has_word(c, m->fn[l->fn].params, m->fn[l->fn].end,
                           "volatile"))
        return 0;
    scan_part(c, m, l, l->body, l->end, sc);
    return !sc->bad;
}

int
mc_cscalar_param(const char *c, const struct mc_cfunc *f, size_t w,
                 size_t n, size_t *from, size_t *to)
{
    size_t at;

    if (!param_of(c, f, w, n, from, to, &at) || redeclared(c, f, w, n))
        return -1;
    return scalar_dims(c, *from, *to, at, n);
}
