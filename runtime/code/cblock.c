/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cblock.c: the perfect nests where cache blocking is sure to be right,
 * and the tile sizes to try there (see cblock.h). Every test here errs
 * towards no: a nest the reading cannot follow gets no rewrite.
 */
#include "mc_setup.h"
#include "cblock.h"
#include "cscalar.h"
#include "ctext.h"

#include <ctype.h>

#define IDENT(ch) (isalnum((unsigned char)(ch)) || (ch) == '_')

static size_t
skip(const char *c, size_t to, size_t i)
{
    return mc_cmodel_skip_space(c, to, i);
}

/* Whether C[FROM, TO) holds only blanks and at most one CH, counted
 * into *N. */
static int
only(const char *c, size_t from, size_t to, char ch, int *n)
{
    size_t i;

    *n = 0;
    for (i = from; i < to; i++)
        if (c[i] == ch)
            (*n)++;
        else if (!isspace((unsigned char)c[i]))
            return 0;
    return *n <= 1;
}

/* Whether loop P's body is loop L alone, or L alone in a block. */
static int
perfect(const char *c, const struct mc_cloop *p, const struct mc_cloop *l)
{
    int open, close;

    return only(c, p->head_end, l->kw, '{', &open) &&
           only(c, l->end, p->end, '}', &close) && open == close;
}

/* Where the ';' at or after I in C[I, TO) is, or TO. */
static size_t
semi(const char *c, size_t to, size_t i)
{
    while (i < to && c[i] != ';')
        i++;
    return i;
}

/* C[FROM, TO) without its blanks at either end into *AT, *END; 1 when
 * something is left. */
static int
trimmed(const char *c, size_t from, size_t to, size_t *at, size_t *end)
{
    *at = skip(c, to, from);
    for (*end = to; *end > *at && isspace((unsigned char)c[*end - 1]);)
        (*end)--;
    return *at < *end;
}

int
mc_cblock_header(const char *c, const struct mc_cloop *l,
                 struct mc_cbound *hb)
{
    size_t n = strlen(l->var), e = l->head_end - 1, i, s1, s2;

    memset(hb, 0, sizeof(*hb));
    i = skip(c, e, l->head + 1);
    hb->init = i;
    if (!mc_ctext_word_at(c, e, i, "int"))
        return 0;
    i = skip(c, e, i + 3);
    if (!mc_ctext_word_at(c, e, i, l->var))
        return 0;
    i = skip(c, e, i + n);
    if (c[i] != '=' || c[i + 1] == '=')
        return 0;
    s1 = semi(c, e, i);
    s2 = semi(c, e, s1 + 1);
    if (s2 >= e || !trimmed(c, i + 1, s1, &hb->lo, &hb->lo_end))
        return 0;
    hb->init_end = hb->lo_end;
    i = skip(c, s2, s1 + 1);
    if (!mc_ctext_word_at(c, s2, i, l->var))
        return 0;
    i = skip(c, s2, i + n);
    hb->le = c[i] == '<' && c[i + 1] == '=';
    if (c[i] != '<' || c[i + 1] == '<' ||
        !trimmed(c, i + 1 + hb->le, s2, &hb->hi, &hb->hi_end))
        return 0;
    i = skip(c, e, s2 + 1);
    if (mc_ctext_word_at(c, e, i, l->var)) {
        i = skip(c, e, i + n);
        if (c[i] != '+' || c[i + 1] != '+')
            return 0;
        i = skip(c, e, i + 2);
    } else {
        if (c[i] != '+' || c[i + 1] != '+')
            return 0;
        i = skip(c, e, i + 2);
        if (!mc_ctext_word_at(c, e, i, l->var))
            return 0;
        i = skip(c, e, i + n);
    }
    return i == e;
}

/* Whether loop L's header reads `for (int V = LO; V < HI; V++)` (or
 * ++V), with LO and HI into *BK's K-th entry. */
static int
header(const char *c, const struct mc_cloop *l, struct mc_cblock *bk, int k)
{
    struct mc_cbound hb;

    if (!mc_cblock_header(c, l, &hb) || hb.le)
        return 0;
    bk->b[k].lo = hb.lo;
    bk->b[k].lo_end = hb.lo_end;
    bk->b[k].hi = hb.hi;
    bk->b[k].hi_end = hb.hi_end;
    return 1;
}

/* Whether the parameter C[FROM, TO), the name at C[W] (N bytes), is
 * declared `int` (or `const int`). */
static int
int_param(const char *c, size_t from, size_t to, size_t w, size_t n)
{
    size_t i, e;
    int ints = 0;

    for (i = from; i < to; i = e) {
        for (e = i; e < to && IDENT(c[e]); e++)
            ;
        if (e == i) {
            e = i + 1;
            continue;
        }
        if (e - i == 3 && !strncmp(c + i, "int", 3))
            ints++;
        else if (!(e - i == 5 && !strncmp(c + i, "const", 5)) &&
                 !(e - i == n && !strncmp(c + i, c + w, n)))
            return 0;
    }
    return ints == 1;
}

int
mc_cblock_bound(const char *c, const struct mc_cfunc *f, size_t from,
                size_t to)
{
    size_t i, e, pf, pt;

    for (i = from; i < to; i++) {
        if (isdigit((unsigned char)c[i])) {
            for (e = i; e < to && IDENT(c[e]); e++)
                if (!isdigit((unsigned char)c[e]))
                    return 0;
            i = e - 1;
        } else if (IDENT(c[i])) {
            for (e = i; e < to && IDENT(c[e]); e++)
                ;
            if ((skip(c, to, e) < to && c[skip(c, to, e)] == '(') ||
                mc_cscalar_param(c, f, i, e - i, &pf, &pt) != 0 ||
                !int_param(c, pf, pt, i, e - i))
                return 0;
            i = e - 1;
        } else if (!isspace((unsigned char)c[i]) && !strchr("+-*()", c[i])) {
            return 0;
        }
    }
    return 1;
}

/* The loop of BK (its place in the nest) whose variable is the word at
 * C[W] in C[W, TO), or -1. */
static int
var_of(const char *c, size_t to, const struct mc_cmodel *m,
       const struct mc_cblock *bk, size_t w)
{
    int k;

    for (k = 0; k < bk->depth; k++)
        if (mc_ctext_word_at(c, to, w, m->loop[bk->loop[k]].var))
            return k;
    return -1;
}

/* The loops that the subscript C[FROM, TO) names, as bits of *USED,
 * when it is V or `V1 * E + V2` with V2 running from 0 to E. */
static int
subscript(const char *c, const struct mc_cmodel *m,
          const struct mc_cblock *bk, size_t from, size_t to, int *used)
{
    size_t i = skip(c, to, from), e1, e2;
    int v1 = var_of(c, to, m, bk, i), v2;

    if (v1 < 0)
        return 0;
    i = skip(c, to, i + strlen(m->loop[bk->loop[v1]].var));
    *used = 1 << v1;
    if (i == to)
        return 1;
    if (c[i] != '*')
        return 0;
    e1 = skip(c, to, i + 1);
    for (e2 = e1; e2 < to && IDENT(c[e2]); e2++)
        ;
    i = skip(c, to, e2);
    if (e2 == e1 || i == to || c[i] != '+')
        return 0;
    i = skip(c, to, i + 1);
    v2 = var_of(c, to, m, bk, i);
    if (v2 < 0 || v2 == v1 ||
        skip(c, to, i + strlen(m->loop[bk->loop[v2]].var)) != to ||
        bk->b[v2].lo_end != bk->b[v2].lo + 1 || c[bk->b[v2].lo] != '0' ||
        !mc_cscalar_same_text(c, bk->b[v2].hi, bk->b[v2].hi_end, e1, e2))
        return 0;
    *used |= 1 << v2;
    return 1;
}

/* Whether loop L's body is a list of statements `X[S] OP EXPR;` (see
 * cblock.h), each X[S] an element of SC that the statement writes. */
static int
statements(const char *c, const struct mc_cloop *l,
           const struct mc_cscalar_body *sc)
{
    size_t from = l->body, to = l->end, s, e, k, op;
    int n = 0, r;

    if (c[from] == '{') {
        from++;
        to--;
    }
    for (s = from; (r = mc_cscalar_statement(c, to, &s, &e)) > 0;
         s = e + 1) {
        for (k = 0; k < sc->n && sc->base[k] != s; k++)
            ;
        if (k == sc->n || !sc->written[k] ||
            !(op = mc_cscalar_assign_op(c, skip(c, e, sc->end[k]))))
            return 0;
        if (!mc_cscalar_pure(c, s, sc->end[k]) || !mc_cscalar_pure(c, op, e))
            return 0;
        n++;
    }
    return r == 0 && n > 0;
}

/* The length of the name that starts at C[W]. */
static size_t
name_len(const char *c, size_t w)
{
    size_t n = 0;

    while (IDENT(c[w + n]))
        n++;
    return n;
}

/* The output X[S] of SC (its first written element) checked against
 * every element there: the arrays into BK; its index in SC, or -1. */
static int
output(const char *c, const struct mc_cscalar_body *sc,
       struct mc_cblock *bk)
{
    size_t k, i, x, n;
    int out = -1;

    for (k = 0; k < sc->n && out < 0; k++)
        if (sc->written[k])
            out = (int)k;
    if (out < 0)
        return -1;
    x = sc->base[out];
    n = name_len(c, x);
    for (k = 0; k < sc->n; k++) {
        size_t w = sc->base[k], wn = name_len(c, w);
        if (wn == n && !strncmp(c + w, c + x, n)) {
            if (!mc_cscalar_same_text(c, w, sc->end[k], x, sc->end[out]))
                return -1;
            continue;
        }
        bk->needs_restrict = 1;
        for (i = 0; i < k; i++)
            if (name_len(c, sc->base[i]) == wn &&
                !strncmp(c + sc->base[i], c + w, wn))
                break;
        bk->arrays += i == k;
    }
    bk->arrays++;
    return out;
}

/* Bytes of an element of the parameter C[FROM, TO), from its type
 * words. */
static int
elem_size(const char *c, size_t from, size_t to)
{
    if (mc_cmodel_has_word(c, from, to, "double") ||
        mc_cmodel_has_word(c, from, to, "long"))
        return 8;
    if (mc_cmodel_has_word(c, from, to, "char"))
        return 1;
    if (mc_cmodel_has_word(c, from, to, "short"))
        return 2;
    return 4;
}

int
mc_cblock_nest(const char *c, size_t len, const struct mc_cmodel *m,
               int inner, struct mc_cblock *bk)
{
    const struct mc_cloop *in = &m->loop[inner];
    const struct mc_cfunc *f = &m->fn[in->fn];
    struct mc_cscalar_body sc;
    int chain[MC_CBLOCK_DEPTH], d = 1, k, i, used = 0, red = -1, out;
    size_t x, open, close, pf, pt;
    char name[48];

    memset(bk, 0, sizeof(*bk));
    if (!in->innermost)
        return 0;
    chain[0] = inner;
    while (d < MC_CBLOCK_DEPTH && m->loop[chain[d - 1]].parent >= 0 &&
           perfect(c, &m->loop[m->loop[chain[d - 1]].parent],
                   &m->loop[chain[d - 1]])) {
        chain[d] = m->loop[chain[d - 1]].parent;
        d++;
    }
    if (d < 2)
        return 0;
    bk->depth = d;
    for (k = 0; k < d; k++)
        bk->loop[k] = chain[d - 1 - k];
    for (k = 0; k < d; k++) {
        const struct mc_cloop *l = &m->loop[bk->loop[k]];
        if (!l->plain || l->pragma || !l->var[0] ||
            mc_cmodel_line(m, l->head_end - 1) != l->line ||
            !header(c, l, bk, k) ||
            !mc_cblock_bound(c, f, bk->b[k].lo, bk->b[k].lo_end) ||
            !mc_cblock_bound(c, f, bk->b[k].hi, bk->b[k].hi_end))
            return 0;
        for (i = 0; i < k; i++)
            if (!strcmp(m->loop[bk->loop[i]].var, l->var))
                return 0;
    }
    if (!mc_cscalar_body(c, m, inner, &sc) || sc.other_write ||
        !statements(c, in, &sc) || (out = output(c, &sc, bk)) < 0)
        return 0;
    x = sc.base[out];
    open = skip(c, sc.end[out], x + name_len(c, x));
    close = mc_ctext_match(c, sc.end[out], open, '[', ']');
    if (mc_cscalar_param(c, f, x, name_len(c, x), &pf, &pt) != 1 ||
        close != sc.end[out] ||
        !subscript(c, m, bk, open + 1, close - 1, &used))
        return 0;
    for (k = d - 1; k >= 0; k--)
        if (!(used >> k & 1))
            red = k; /* the outermost loop of the reduction */
    for (k = d - 2; k < d; k++) {
        char end[sizeof(name)];

        snprintf(name, sizeof(name), "mc_bk_%s", m->loop[bk->loop[k]].var);
        snprintf(end, sizeof(end), "mc_be_%s", m->loop[bk->loop[k]].var);
        if ((!(used >> k & 1) && k != red) ||
            mc_cmodel_has_word(c, 0, len, name) ||
            mc_cmodel_has_word(c, 0, len, end))
            return 0;
        bk->b[k].tiled = 1;
    }
    bk->needs_restrict |= sc.other_read;
    if (bk->needs_restrict && !mc_cmodel_object_pointer(c, len, pf, pt))
        return 0;
    bk->elem = elem_size(c, pf, pt);
    return 1;
}

/* ---- the tile sizes ---- */

/* The number the file PATH starts with, in bytes where a K or M
 * follows it ("32K", "1M"), or 0; its first line into BUF (SIZE
 * bytes). */
static long
read_size(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "r");
    char *end;
    long v;

    buf[0] = '\0';
    if (!fp)
        return 0;
    if (!fgets(buf, (int)size, fp))
        buf[0] = '\0';
    fclose(fp);
    v = strtol(buf, &end, 10);
    if (v <= 0)
        return 0;
    return *end == 'K' ? v * 1024 : *end == 'M' ? v * 1024 * 1024 : v;
}

/* The size of the data cache of LEVEL (1 or 2) in bytes, or 0. */
static long
cache_size(int level)
{
    char path[96], buf[64];
    long v = -1;
    int i;

#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
#endif
    for (i = 0; v <= 0 && i < 8; i++) {
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_size(path, buf, sizeof(buf)) != level)
            continue;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        read_size(path, buf, sizeof(buf));
        if (!strncmp(buf, "Instruction", 11))
            continue;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        v = read_size(path, buf, sizeof(buf));
    }
    return v > 0 ? v : 0;
}

void
mc_cblock_sizes(const struct mc_cblock *bk, int *sizes)
{
    static const int all[MC_CBLOCK_SIZES] = {128, 64, 32, 16};
    long l2 = cache_size(2), room;
    int k, n = 0;

    if (!l2)
        l2 = cache_size(1) * 8;
    room = (l2 ? l2 : 1024 * 1024) / 2;
    for (k = 0; k < MC_CBLOCK_SIZES; k++)
        if ((long)bk->arrays * all[k] * all[k] * bk->elem <= room)
            sizes[n++] = all[k];
    for (k = MC_CBLOCK_SIZES - 1; k >= 0; k--)
        if ((long)bk->arrays * all[k] * all[k] * bk->elem > room)
            sizes[n++] = all[k];
}
