/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * udiff.c: unified line diffs. The texts are cut into lines, each line
 * is interned to a small integer (equal lines, equal numbers), and
 * Myers' linear-space O(ND) algorithm (the "middle snake" recursion, as
 * GNU diff's compareseq) marks the lines deleted from A and inserted
 * into B. The marks are grouped into change blocks, and blocks closer
 * than twice the context into hunks.
 *
 * A middle-snake search that runs past MAX_COST rounds gives up and the
 * region it was searching becomes one replace: the diff stays correct
 * (patch still gives B), only coarser, and the work is bounded by
 * O((N + M) * MAX_COST).
 */
#include "mc_setup.h"
#include "udiff.h"
#include "alloc.h"

#include <xxhash.h>

/* Rounds of one middle-snake search (each round is two edits) before
 * its region is written as one replace. */
#define MAX_COST 2048

struct line {
    const char *p;
    size_t len;    /* bytes, the newline included when there is one */
};

struct side {
    struct line *lines;
    long n;
    long *cls;     /* interned line numbers */
    char *changed; /* 1 where the line is deleted (A) or inserted (B) */
};

struct ctx {
    struct side a, b;
    long *fdiag;   /* furthest x reached on each diagonal, forward */
    long *bdiag;   /* and backward; both indexed from -(M + 1) */
};

/* One run of changed lines: A[a0, a0 + na) became B[b0, b0 + nb). */
struct block {
    long a0, na, b0, nb;
};

/* Cut TEXT into lines in S->lines. */
static enum mc_code
split_lines(const char *text, size_t len, struct side *s)
{
    size_t i, start = 0;
    long n = 0;

    for (i = 0; i < len; i++)
        if (text[i] == '\n')
            n++;
    if (len && text[len - 1] != '\n')
        n++;
    s->n = n;
    s->lines = mc_calloc((size_t)n + 1, sizeof *s->lines);
    s->cls = mc_calloc((size_t)n + 1, sizeof *s->cls);
    s->changed = mc_calloc((size_t)n + 1, 1);
    if (!s->lines || !s->cls || !s->changed)
        return MC_ENOMEM;
    n = 0;
    for (i = 0; i < len; i++)
        if (text[i] == '\n' || i + 1 == len) {
            s->lines[n].p = text + start;
            s->lines[n].len = i + 1 - start;
            n++;
            start = i + 1;
        }
    return MC_OK;
}

static void
side_release(struct side *s)
{
    mc_free(s->lines);
    mc_free(s->cls);
    mc_free(s->changed);
}

/*
 * Give every line of A and B its class: the index of the first line
 * (numbering A's lines then B's) with the same bytes. An open-addressing
 * table of line numbers, twice as large as there are lines.
 */
static enum mc_code
intern_lines(struct ctx *c)
{
    long total = c->a.n + c->b.n, i;
    size_t size = 16, mask, h;
    long *slot;

    while (size < (size_t)total * 2)
        size *= 2;
    mask = size - 1;
    slot = mc_malloc(size * sizeof *slot);
    if (!slot)
        return MC_ENOMEM;
    for (h = 0; h < size; h++)
        slot[h] = -1;
    for (i = 0; i < total; i++) {
        struct side *s = i < c->a.n ? &c->a : &c->b;
        long k = i < c->a.n ? i : i - c->a.n;
        const struct line *l = &s->lines[k];

        h = (size_t)XXH3_64bits(l->p, l->len) & mask;
        for (;; h = (h + 1) & mask) {
            long j = slot[h];
            const struct line *o;

            if (j < 0) {
                slot[h] = i;
                s->cls[k] = i;
                break;
            }
            o = j < c->a.n ? &c->a.lines[j] : &c->b.lines[j - c->a.n];
            if (o->len == l->len && !memcmp(o->p, l->p, l->len)) {
                s->cls[k] = j;
                break;
            }
        }
    }
    mc_free(slot);
    return MC_OK;
}

/*
 * Find a point (*XMID, *YMID) on a shortest edit path from (XOFF, YOFF)
 * to (XLIM, YLIM), searching forward and backward at once until the two
 * searches overlap (Myers 1986, section 4b; GNU diff's diag() without its
 * heuristics). Returns 0, or -1 when the search passed MAX_COST rounds.
 */
static int
middle_snake(struct ctx *c, long xoff, long xlim, long yoff, long ylim,
             long *xmid, long *ymid)
{
    const long *xv = c->a.cls, *yv = c->b.cls;
    long *fd = c->fdiag, *bd = c->bdiag;
    long dmin = xoff - ylim, dmax = xlim - yoff;
    long fmid = xoff - yoff, bmid = xlim - ylim;
    long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    int odd = (fmid - bmid) & 1;
    long cost, d;

    fd[fmid] = xoff;
    bd[bmid] = xlim;
    for (cost = 1; cost <= MAX_COST; cost++) {
        if (fmin > dmin)
            fd[--fmin - 1] = -1;
        else
            ++fmin;
        if (fmax < dmax)
            fd[++fmax + 1] = -1;
        else
            --fmax;
        for (d = fmax; d >= fmin; d -= 2) {
            long lo = fd[d - 1], hi = fd[d + 1];
            long x = lo >= hi ? lo + 1 : hi, y = x - d;

            while (x < xlim && y < ylim && xv[x] == yv[y])
                x++, y++;
            fd[d] = x;
            if (odd && bmin <= d && d <= bmax && bd[d] <= x) {
                *xmid = x;
                *ymid = y;
                return 0;
            }
        }
        if (bmin > dmin)
            bd[--bmin - 1] = LONG_MAX;
        else
            ++bmin;
        if (bmax < dmax)
            bd[++bmax + 1] = LONG_MAX;
        else
            --bmax;
        for (d = bmax; d >= bmin; d -= 2) {
            long lo = bd[d - 1], hi = bd[d + 1];
            long x = lo < hi ? lo : hi - 1, y = x - d;

            while (x > xoff && y > yoff && xv[x - 1] == yv[y - 1])
                x--, y--;
            bd[d] = x;
            if (!odd && fmin <= d && d <= fmax && x <= fd[d]) {
                *xmid = x;
                *ymid = y;
                return 0;
            }
        }
    }
    return -1;
}

/* Mark the lines of A[xoff, xlim) deleted and B[yoff, ylim) inserted so
 * that what is left unmarked is a longest common subsequence (or, past
 * the cost cap, a common one). */
static void
compare(struct ctx *c, long xoff, long xlim, long yoff, long ylim)
{
    long xmid, ymid;

    while (xoff < xlim && yoff < ylim && c->a.cls[xoff] == c->b.cls[yoff])
        xoff++, yoff++;
    while (xlim > xoff && ylim > yoff
           && c->a.cls[xlim - 1] == c->b.cls[ylim - 1])
        xlim--, ylim--;
    if (xoff == xlim || yoff == ylim
        || middle_snake(c, xoff, xlim, yoff, ylim, &xmid, &ymid) < 0) {
        memset(c->a.changed + xoff, 1, (size_t)(xlim - xoff));
        memset(c->b.changed + yoff, 1, (size_t)(ylim - yoff));
        return;
    }
    compare(c, xoff, xmid, yoff, ymid);
    compare(c, xmid, xlim, ymid, ylim);
}

static void
ctx_release(struct ctx *c)
{
    side_release(&c->a);
    side_release(&c->b);
    if (c->fdiag)
        mc_free(c->fdiag - (c->b.n + 1));
    if (c->bdiag)
        mc_free(c->bdiag - (c->b.n + 1));
}

/* Split, intern and compare A and B into C; C is released by the
 * caller whatever this returns. */
static enum mc_code
run_diff(struct ctx *c, const char *a, size_t a_len, const char *b,
         size_t b_len)
{
    size_t ndiag;
    long *f, *r;

    memset(c, 0, sizeof *c);
    if (split_lines(a, a_len, &c->a) || split_lines(b, b_len, &c->b))
        return MC_ENOMEM;
    if (intern_lines(c))
        return MC_ENOMEM;
    /* Diagonals run from -M to N; the searches touch one more each way. */
    ndiag = (size_t)(c->a.n + c->b.n) + 3;
    f = mc_malloc(ndiag * sizeof *f);
    r = mc_malloc(ndiag * sizeof *r);
    if (f)
        c->fdiag = f + c->b.n + 1;
    if (r)
        c->bdiag = r + c->b.n + 1;
    if (!f || !r)
        return MC_ENOMEM;
    compare(c, 0, c->a.n, 0, c->b.n);
    return MC_OK;
}

/* The next change block at or after (*I, *J), advancing both past it;
 * 0 when there is none. Unmarked lines of A and B pair up in order. */
static int
next_block(const struct ctx *c, long *i, long *j, struct block *bl)
{
    while (*i < c->a.n || *j < c->b.n) {
        if ((*i < c->a.n && c->a.changed[*i])
            || (*j < c->b.n && c->b.changed[*j])) {
            bl->a0 = *i;
            bl->b0 = *j;
            while (*i < c->a.n && c->a.changed[*i])
                (*i)++;
            while (*j < c->b.n && c->b.changed[*j])
                (*j)++;
            bl->na = *i - bl->a0;
            bl->nb = *j - bl->b0;
            return 1;
        }
        (*i)++;
        (*j)++;
    }
    return 0;
}

/* "start,count" as diff -u writes a range: an empty range starts at the
 * line before it, and a count of 1 is left out. */
static void
add_range(struct mc_buf *out, long start, long count)
{
    if (count == 1)
        mc_buf_addf(out, "%ld", start + 1);
    else
        mc_buf_addf(out, "%ld,%ld", count ? start + 1 : start, count);
}

/* One line of a hunk: PREFIX and the line, ending in a newline either
 * way. */
static void
add_line(struct mc_buf *out, char prefix, const struct line *l)
{
    mc_buf_addc(out, prefix);
    mc_buf_add(out, l->p, l->len);
    if (!l->len || l->p[l->len - 1] != '\n')
        mc_buf_adds(out, "\n\\ No newline at end of file\n");
}

/* Write the hunk made of blocks BL[0, N), with CONTEXT lines around. */
static void
add_hunk(const struct ctx *c, const struct block *bl, size_t n, long context,
         struct mc_buf *out)
{
    const struct block *last = &bl[n - 1];
    long a_lo = bl[0].a0 - context, a_hi = last->a0 + last->na + context;
    long b_lo, b_hi, i, k;
    size_t m;

    if (a_lo < 0)
        a_lo = 0;
    if (a_hi > c->a.n)
        a_hi = c->a.n;
    /* Context lines are common, so B's range moves with A's. */
    b_lo = bl[0].b0 - (bl[0].a0 - a_lo);
    b_hi = last->b0 + last->nb + (a_hi - last->a0 - last->na);
    mc_buf_adds(out, "@@ -");
    add_range(out, a_lo, a_hi - a_lo);
    mc_buf_adds(out, " +");
    add_range(out, b_lo, b_hi - b_lo);
    mc_buf_adds(out, " @@\n");
    i = a_lo;
    for (m = 0; m < n; m++) {
        for (; i < bl[m].a0; i++)
            add_line(out, ' ', &c->a.lines[i]);
        for (k = 0; k < bl[m].na; k++)
            add_line(out, '-', &c->a.lines[i++]);
        for (k = 0; k < bl[m].nb; k++)
            add_line(out, '+', &c->b.lines[bl[m].b0 + k]);
    }
    for (; i < a_hi; i++)
        add_line(out, ' ', &c->a.lines[i]);
}

/* Group C's change blocks into hunks and write them to OUT. */
static enum mc_code
write_hunks(const struct ctx *c, const char *a_name, const char *b_name,
            long context, struct mc_buf *out)
{
    struct block *bl = NULL, one;
    size_t n = 0, cap = 0, start;
    long i = 0, j = 0;
    enum mc_code rc = MC_OK;

    while (next_block(c, &i, &j, &one)) {
        if (n == cap) {
            struct block *nb;

            cap = cap ? cap * 2 : 16;
            nb = mc_realloc(bl, cap * sizeof *bl);
            if (!nb) {
                rc = MC_ENOMEM;
                goto out;
            }
            bl = nb;
        }
        bl[n++] = one;
    }
    if (!n)
        goto out;
    mc_buf_addf(out, "--- %s\n+++ %s\n", a_name, b_name);
    for (start = 0; start < n;) {
        size_t end = start + 1;

        while (end < n
               && bl[end].a0 - (bl[end - 1].a0 + bl[end - 1].na)
                      <= 2 * context)
            end++;
        add_hunk(c, bl + start, end - start, context, out);
        start = end;
    }
    rc = mc_buf_status(out);
out:
    mc_free(bl);
    return rc;
}

enum mc_code
mc_udiff(const char *a_name, const char *a, size_t a_len, const char *b_name,
         const char *b, size_t b_len, int context, struct mc_buf *out)
{
    struct ctx c;
    enum mc_code rc = run_diff(&c, a, a_len, b, b_len);

    if (!rc)
        rc = write_hunks(&c, a_name, b_name, context < 0 ? 0 : context,
                         out);
    ctx_release(&c);
    return rc;
}

enum mc_code
mc_udiff_count(const char *a, size_t a_len, const char *b, size_t b_len,
               size_t *added, size_t *removed)
{
    struct ctx c;
    enum mc_code rc = run_diff(&c, a, a_len, b, b_len);
    long i;

    *added = *removed = 0;
    if (!rc) {
        for (i = 0; i < c.a.n; i++)
            *removed += (size_t)c.a.changed[i];
        for (i = 0; i < c.b.n; i++)
            *added += (size_t)c.b.changed[i];
    }
    ctx_release(&c);
    return rc;
}
