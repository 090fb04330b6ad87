/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * builtin_render.c: the built-in proposer's variants as text. A variant
 * is the original with a sorted list of edits applied: lines inserted
 * before a line (pragmas, attributes, each followed by #line so that
 * messages keep SOURCE's line numbers) and changes within a line
 * (__builtin_expect, __restrict, swapped loop headers, the CUDA
 * insertions). Only lines that may change (inside the fences, or all)
 * are edited. See builtin.h for the knobs.
 */
#include "mc_setup.h"
#include "builtin.h"
#include "alloc.h"
#include "cblock.h"
#include "cfuse.h"
#include "cjam.h"
#include "cmodel.h"
#include "cscalar.h"
#include "ctext.h"

#include <ctype.h>
#include <stdarg.h>

/* One edit of the original: DEL bytes at AT become TEXT. */
struct edit {
    size_t at, del;
    char *text;
    size_t line;   /* the line of AT */
    int force;     /* applied on any line (the fences' own pragmas) */
    unsigned seq;  /* order among edits at one offset */
};

struct edits {
    struct edit *v;
    size_t n, cap;
    int oom;
    const size_t *line_off; /* where each line starts */
    size_t nlines;
};

/* The line holding offset OFF. */
static size_t
line_of(const struct edits *ed, size_t off)
{
    return mc_ctext_line(ed->line_off, ed->nlines, off);
}

static void
add_edit(struct edits *ed, size_t at, size_t del, const char *text)
{
    struct edit *e;

    if (ed->n == ed->cap) {
        size_t cap = ed->cap ? 2 * ed->cap : 16;
        struct edit *v = mc_realloc(ed->v, cap * sizeof(*v));
        if (!v) {
            ed->oom = 1;
            return;
        }
        ed->v = v;
        ed->cap = cap;
    }
    e = &ed->v[ed->n];
    e->text = mc_strdup(text);
    if (!e->text) {
        ed->oom = 1;
        return;
    }
    e->at = at;
    e->del = del;
    e->line = line_of(ed, at);
    e->force = 0;
    e->seq = (unsigned)ed->n++;
}

static void
edits_release(struct edits *ed)
{
    size_t i;

    for (i = 0; i < ed->n; i++)
        mc_free(ed->v[i].text);
    mc_free(ed->v);
}

static int
edit_cmp(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;

    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- fences ---- */

struct fences {
    size_t begins[64], nb;
    size_t ends[64], ne;
};

/* Which lines (1-based) may change: inside fences, or all; the fences
 * into FE. */
static void
changeable(const char *text, size_t len, unsigned char *ok, size_t nlines,
           struct fences *fe)
{
    size_t i = 0, line = 1;
    int in = 0, any = 0;

    fe->nb = fe->ne = 0;
    while (i < len && line <= nlines) {
        const char *l = text + i, *nl = memchr(l, '\n', len - i);
        size_t n = nl ? (size_t)(nl - l) : len - i;
        char buf[128];
        size_t k = 0, m = 0;

        while (k < n && m + 1 < sizeof(buf)) {
            if (l[k] != ' ' && l[k] != '\t')
                buf[m++] = l[k];
            k++;
        }
        buf[m] = '\0';
        if (!strcmp(buf, "#pragmamaxcodebegin")) {
            in = any = 1;
            if (fe->nb < MC_ARRAY_SIZE(fe->begins))
                fe->begins[fe->nb++] = line;
        } else if (!strcmp(buf, "#pragmamaxcodeend")) {
            in = 0;
            if (fe->ne < MC_ARRAY_SIZE(fe->ends))
                fe->ends[fe->ne++] = line;
        } else {
            ok[line] = (unsigned char)in;
        }
        i += n + (nl != NULL);
        line++;
    }
    if (!any)
        memset(ok, 1, nlines + 1);
}

void
mc_builtin_fences(const char *text, size_t len, unsigned char *ok,
                  size_t nlines)
{
    struct fences fe;

    changeable(text, len, ok, nlines, &fe);
}

/* ---- CUDA kernels ---- */

/* The kernels of C (LEN bytes, blanked) that B's knobs may change into
 * KS (at most MAX): the kernel= one, or all. Returns how many. */
static size_t
chosen_kernels(const struct mc_builtin *b, const char *c, size_t len,
               struct mc_kernel *ks, size_t max)
{
    size_t n;

    if (b->kernel[0])
        return (size_t)mc_ctext_kernel(c, len, b->kernel, ks);
    n = mc_ctext_kernels(c, len, ks, max);
    return n < max ? n : max;
}

/* __launch_bounds__ right before the name of kernel K, unless it has
 * one already or its name is qualified. */
static void
launch_bounds_edit(const char *c, const struct mc_kernel *k, int wide,
                   struct edits *ed)
{
    size_t i;

    for (i = k->global; i < k->params; i++)
        if (mc_ctext_word_at(c, k->params, i, "__launch_bounds__"))
            return;
    for (i = k->name; i > k->global && isspace((unsigned char)c[i - 1]); i--)
        ;
    if (c[i - 1] == ':')
        return;
    add_edit(ed, k->name, 0, wide ? "__launch_bounds__(1024, 1) "
                                  : "__launch_bounds__(256, 2) ");
}

/* WORD after the '*' at C[STAR] of a parameter that ends at END, unless
 * it has a restrict qualifier already. */
static void
restrict_after(const char *c, size_t star, size_t end, const char *word,
               struct edits *ed)
{
    char text[32];
    size_t i;

    for (i = star + 1; i < end; i++)
        if (mc_ctext_word_at(c, end, i, "__restrict__") ||
            mc_ctext_word_at(c, end, i, "__restrict") ||
            mc_ctext_word_at(c, end, i, "restrict"))
            return;
    snprintf(text, sizeof(text), isspace((unsigned char)c[star + 1])
                                     ? " %s" : "%s ", word);
    add_edit(ed, star + 1, 0, text);
}

/* WORD on each pointer parameter in C[PARAMS, END): after the last '*'
 * outside brackets (not in a function pointer's "(*f)"); with LEN (the
 * length of C) not 0, only on those that point to an object type the
 * text shows (mc_cmodel_object_pointer()), as the knob counted them. */
static void
restrict_edits(const char *c, size_t len, size_t params, size_t end,
               const char *word, struct edits *ed)
{
    size_t i, star = 0, from = params + 1;
    int depth = 0;

    for (i = params + 1; i < end; i++) {
        char ch = c[i];

        if (!depth && (ch == ',' || i + 1 == end)) {
            if (star &&
                (!len || mc_cmodel_object_pointer(c, len, from, i)))
                restrict_after(c, star, i, word, ed);
            star = 0;
            from = i + 1;
            continue;
        }
        depth += ch == '(' || ch == '<' || ch == '[';
        depth -= ch == ')' || ch == '>' || ch == ']';
        if (ch == '*' && !depth)
            star = i;
    }
}

/* The single-precision math functions with a fast intrinsic, __NAME. */
static const char *const fast_fns[] = {
    "expf", "logf", "sinf", "cosf", "powf", "tanf", "exp10f", "log2f",
    "log10f"};

/* The function of fast_fns[] called at C[I] (END: the end of the
 * kernel), or NULL: a whole word, not a member or qualified name,
 * followed by '('. */
static const char *
fast_call_at(const char *c, size_t end, size_t start, size_t i)
{
    size_t f, j;

    for (f = 0; f < MC_ARRAY_SIZE(fast_fns); f++) {
        if (!mc_ctext_word_at(c, end, i, fast_fns[f]))
            continue;
        j = i + strlen(fast_fns[f]);
        while (j < end && isspace((unsigned char)c[j]))
            j++;
        if (j >= end || c[j] != '(')
            return NULL;
        for (j = i; j > start && isspace((unsigned char)c[j - 1]); j--)
            ;
        if (c[j - 1] == '.' || c[j - 1] == ':' ||
            (c[j - 1] == '>' && c[j - 2] == '-'))
            return NULL;
        return fast_fns[f];
    }
    return NULL;
}

/* __NAME for each call of a fast_fns[] NAME in kernel K's body. */
static void
intrinsic_edits(const char *c, const struct mc_kernel *k, struct edits *ed)
{
    size_t i;

    for (i = k->body + 1; i < k->end; i++) {
        const char *f = fast_call_at(c, k->end, k->body, i);

        if (f) {
            add_edit(ed, i, 0, "__");
            i += strlen(f) - 1;
        }
    }
}

/* Mark in INNER[line] the lines that start an innermost for loop (the
 * keyword first on its line) inside one of the NK kernels KS. */
static void
kernel_loops(const char *c, size_t len, const struct mc_kernel *ks,
             size_t nk, const struct edits *ed, unsigned char *inner)
{
    size_t k, i;

    for (k = 0; k < nk; k++)
        for (i = ks[k].body + 1; i < ks[k].end; i++) {
            size_t j, head_end, s;
            int first = 1;

            if (!mc_ctext_word_at(c, len, i, "for"))
                continue;
            for (s = i; s > 0 && c[s - 1] != '\n'; s--)
                first &= isspace((unsigned char)c[s - 1]) != 0;
            for (j = i + 3; j < len && isspace((unsigned char)c[j]); j++)
                ;
            if (j >= len || c[j] != '(')
                continue;
            head_end = mc_ctext_match(c, len, j, '(', ')');
            if (first && !mc_cmodel_has_loop(c, head_end,
                                   mc_ctext_skip_statement(c, len, head_end)))
                inner[line_of(ed, i)] = 1;
        }
}

/* ---- the knobs' text ---- */

/* The pragmas of TAG's loop knobs for the innermost loop LOOP (-1 when
 * it is no loop of the model: the kernel loops) into OUT. */
static void
loop_pragmas(const struct mc_builtin *b, unsigned long tag, int loop,
             struct mc_buf *out)
{
    int unroll = 0, done[8] = {0};
    size_t i;

    for (i = 0; i < b->nknobs; i++) {
        const struct mc_knob *k = &b->knob[i];
        if ((tag >> i & 1) && k->kind == MC_KK_LOOP && k->op == 0 &&
            (k->where == loop || (k->where < 0 && !unroll)))
            unroll = k->n;
    }
    if (unroll)
        mc_buf_addf(out, b->family == MC_CC_NVCC ? "#pragma unroll %d\n"
                                                 : "#pragma GCC unroll %d\n",
                    unroll);
    for (i = 0; i < b->nknobs; i++) {
        const struct mc_knob *k = &b->knob[i];
        if (!(tag >> i & 1) || k->kind != MC_KK_LOOP || !k->op ||
            k->op >= MC_ARRAY_SIZE(done) || done[k->op] ||
            (k->where >= 0 && k->where != loop))
            continue;
        done[k->op] = 1;
        mc_buf_adds(out, k->opt);
        mc_buf_addc(out, '\n');
    }
}

/* The attributes of TAG for function F into OUT, as one line. */
static void
fn_attributes(const struct mc_builtin *b, unsigned long tag, int f,
              struct mc_buf *out)
{
    size_t i;
    int opts = 0, any = 0;

    for (i = 0; i < b->nknobs; i++) {
        const struct mc_knob *k = &b->knob[i];
        if (!(tag >> i & 1) || k->kind != MC_KK_FNOPT || k->where != f)
            continue;
        mc_buf_addf(out, "%s\"%s\"", opts++ ? ", " : "optimize(", k->opt);
    }
    if (opts)
        mc_buf_addc(out, ')');
    any = opts;
    for (i = 0; i < b->nknobs; i++) {
        const struct mc_knob *k = &b->knob[i];
        if (!(tag >> i & 1) || k->kind != MC_KK_FNATTR || k->where != f)
            continue;
        mc_buf_addf(out, "%s%s", any++ ? ", " : "", k->opt);
    }
    for (i = 0; b->heat && i < b->nknobs; i++)
        if ((tag >> i & 1) && b->knob[i].kind == MC_KK_HOTCOLD && b->heat[f])
            mc_buf_addf(out, "%s%s", any++ ? ", " : "",
                        b->heat[f] == 1 ? "hot" : "cold");
}

static void
file_pragmas(const struct mc_builtin *b, unsigned long tag,
             struct mc_buf *out)
{
    size_t i;
    int any = 0;

    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1) || (b->knob[i].kind != MC_KK_OPT &&
                                b->knob[i].kind != MC_KK_EXACT))
            continue;
        mc_buf_adds(out, any ? ", \"" : "#pragma GCC optimize (\"");
        mc_buf_adds(out, b->knob[i].opt);
        mc_buf_addc(out, '"');
        any = 1;
    }
    if (any)
        mc_buf_adds(out, ")\n");
    /* The pragma alone does not free a loop that calls sqrt from errno:
     * the built-ins were declared under the command line's flags. */
    if (tag & mc_builtin_bit(b, "no-math-errno"))
        mc_cmodel_math_decls(b->blank, b->len, out);
    for (i = 0; i < b->nknobs; i++)
        if ((tag >> i & 1) && b->knob[i].kind == MC_KK_ISA && b->arch[0])
            mc_buf_addf(out, "#pragma GCC target (\"arch=%s\")\n", b->arch);
}

/* ---- edits of the host code ---- */

/* A line (TEXT, then #line) inserted before line LINE. */
static void
before_line(struct edits *ed, size_t line, const char *text)
{
    struct mc_buf b = MC_BUF_INIT;

    mc_buf_addf(&b, "%s#line %zu\n", text, line);
    if (mc_buf_status(&b))
        ed->oom = 1;
    else
        add_edit(ed, ed->line_off[line], 0, b.s);
    mc_buf_release(&b);
}

/* Whether TAG rewrites the header of loop LOOP: a knob of KIND there. */
static int
rewritten(const struct mc_builtin *b, unsigned long tag, int loop, int kind)
{
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if ((tag >> i & 1) && b->knob[i].kind == kind &&
            b->knob[i].where == loop)
            return 1;
    return 0;
}

/* The pragmas of TAG before each innermost loop where one may go
 * (cmodel.h); an interchanged or scalar-replaced one's are written with
 * its rewrite. */
static void
loop_edits(const struct mc_builtin *b, unsigned long tag, struct edits *ed)
{
    struct mc_buf p = MC_BUF_INIT;
    size_t i;

    for (i = 0; i < b->m->nloop; i++) {
        const struct mc_cloop *l = &b->m->loop[i];
        if (!l->innermost || !l->placeable ||
            rewritten(b, tag, (int)i, MC_KK_INTERCHANGE) ||
            rewritten(b, tag, (int)i, MC_KK_SCALAR))
            continue;
        mc_buf_reset(&p);
        loop_pragmas(b, tag, (int)i, &p);
        if (p.len)
            before_line(ed, l->line, p.s);
    }
    mc_buf_release(&p);
}

static void
function_edits(const struct mc_builtin *b, unsigned long tag,
               struct edits *ed)
{
    struct mc_buf a = MC_BUF_INIT, line = MC_BUF_INIT;
    size_t f;

    for (f = 0; f < b->m->nfn; f++) {
        mc_buf_reset(&a);
        fn_attributes(b, tag, (int)f, &a);
        if (!a.len)
            continue;
        mc_buf_reset(&line);
        mc_buf_addf(&line, "__attribute__((%s))\n", a.s);
        before_line(ed, b->m->fn[f].line, line.s);
    }
    mc_buf_release(&a);
    mc_buf_release(&line);
}

static void
expect_edits(const struct mc_builtin *b, struct edits *ed)
{
    size_t i;

    for (i = 0; b->expect && i < b->m->nbr; i++) {
        const struct mc_cbranch *br = &b->m->br[i];
        if (b->expect[i] < 0)
            continue;
        add_edit(ed, br->cond + 1, 0, "__builtin_expect(!!(");
        add_edit(ed, br->cond_end - 1, 0,
                 b->expect[i] ? "), 1)" : "), 0)");
    }
}

/* Loop interchange of loop IN and its parent O, as edits of ORIG (see
 * builtin.h). Statements before the inner loop (P) keep a copy of O of
 * their own, and so do those after it (Q); the three loops sit in one
 * block:  { O { P } I O { BODY } O { Q } }. TAG's pragmas for IN go
 * right before the loop that is inner now, on lines of their own:
 * before O's header where it replaced I's, or after I's header, which
 * may follow the '}' that closes P's copy:
 *
 *     } I
 *     #pragma ...
 *     #line N
 *     O {
 */
static void
interchange_edits(const struct mc_builtin *b, unsigned long tag, int in,
                  const char *orig, struct edits *ed)
{
    const struct mc_cloop *n = &b->m->loop[in];
    const struct mc_cloop *o = &b->m->loop[n->parent];
    struct mc_buf h1 = MC_BUF_INIT, h2 = MC_BUF_INIT, t = MC_BUF_INIT;
    struct mc_buf pr = MC_BUF_INIT, at = MC_BUF_INIT;
    size_t pre, post;
    int block, p, q;

    if (!mc_cmodel_nest(b->blank, b->m, n->parent, in, &pre, &post, &block))
        return;
    p = block && pre != n->kw;
    q = block && post != o->end - 1;
    mc_buf_add(&h1, orig + o->kw, o->head_end - o->kw);
    mc_buf_add(&h2, orig + n->kw, n->head_end - n->kw);
    loop_pragmas(b, tag, in, &pr);
    if (pr.len)
        mc_buf_addf(&at, "\n%s#line %zu\n", pr.s, n->line);
    else
        mc_buf_addc(&at, ' ');
    mc_buf_addf(&t, "%s%s%s%s%s", p ? "} " : "", h2.s ? h2.s : "",
                at.s ? at.s : "", h1.s ? h1.s : "", p || q ? " {" : "");
    if (mc_buf_status(&h1) || mc_buf_status(&h2) || mc_buf_status(&t) ||
        mc_buf_status(&pr) || mc_buf_status(&at)) {
        ed->oom = 1;
    } else if (!block) {
        add_edit(ed, o->kw, o->head_end - o->kw, h2.s);
        if (pr.len && n->placeable)
            before_line(ed, n->line, pr.s);
        add_edit(ed, n->kw, n->head_end - n->kw, h1.s);
    } else {
        add_edit(ed, n->kw, n->head_end - n->kw, t.s);
        mc_buf_reset(&t);
        mc_buf_addf(&t, "{ %s", h1.s);
        add_edit(ed, o->kw, o->head_end - o->kw, p ? t.s : "");
        mc_buf_reset(&t);
        mc_buf_addf(&t, " } %s {", h1.s);
        if (q)
            add_edit(ed, n->end, 0, t.s);
        if (p || q)
            add_edit(ed, o->end, 0, " }");
    }
    mc_buf_release(&h1);
    mc_buf_release(&h2);
    mc_buf_release(&t);
    mc_buf_release(&pr);
    mc_buf_release(&at);
}

/* Scalar replacement in loop IN, as edits of ORIG (see cscalar.h): its
 * `for (INIT; COND; INC) BODY` becomes
 *
 *     { INIT; if (COND) { __typeof__(E) mc_sr_X = E; ...
 *     for (; COND; INC) BODY' E = mc_sr_X; ... } }
 *
 * where BODY' reads and writes mc_sr_X for each replaced element E, and
 * only the elements the loop writes are written back. The guard reads
 * COND once more, which has no side effect: nothing is read or written
 * when the loop runs zero times. TAG's pragmas for IN go right before
 * its keyword, on lines of their own, as for an interchange. */
static void
scalar_edits(const struct mc_builtin *b, unsigned long tag, int in,
             const char *orig, struct edits *ed)
{
    const struct mc_cloop *l = &b->m->loop[in];
    struct mc_cscalar sr;
    struct mc_buf h = MC_BUF_INIT, t = MC_BUF_INIT, pr = MC_BUF_INIT;
    char name[64];
    size_t i, cond;

    if (!mc_cscalar_loop(b->blank, b->len, b->m, in, &sr))
        return;
    for (cond = sr.semi1 + 1; isspace((unsigned char)orig[cond]); cond++)
        ;
    mc_buf_adds(&h, "{ ");
    mc_buf_add(&h, orig + l->head + 1, sr.semi1 - l->head);
    mc_buf_adds(&h, " if (");
    mc_buf_add(&h, orig + cond, sr.semi2 - cond);
    mc_buf_adds(&h, ") { ");
    mc_buf_adds(&t, " ");
    for (i = 0; i < sr.nref; i++) {
        const struct mc_cscalar_ref *r = &sr.ref[i];
        int n = (int)(r->end - r->at);
        snprintf(name, sizeof(name), "mc_sr_%.*s", (int)r->name_len,
                 orig + r->at);
        mc_buf_addf(&h, "__typeof__(%.*s) %s = %.*s; ", n, orig + r->at,
                    name, n, orig + r->at);
        if (r->written)
            mc_buf_addf(&t, "%.*s = %s; ", n, orig + r->at, name);
    }
    mc_buf_adds(&t, "} }");
    loop_pragmas(b, tag, in, &pr);
    if (pr.len)
        mc_buf_addf(&h, "\n%s#line %zu\n", pr.s, l->line);
    mc_buf_adds(&h, "for (");
    mc_buf_add(&h, orig + sr.semi1, l->head_end - sr.semi1);
    if (mc_buf_status(&h) || mc_buf_status(&t) || mc_buf_status(&pr)) {
        ed->oom = 1;
    } else {
        add_edit(ed, l->kw, l->head_end - l->kw, h.s);
        for (i = 0; i < sr.nocc; i++) {
            size_t at = sr.occ[i].at, n = 0;
            while (isalnum((unsigned char)orig[at + n]) || orig[at + n] == '_')
                n++;
            snprintf(name, sizeof(name), "mc_sr_%.*s", (int)n, orig + at);
            add_edit(ed, at, sr.occ[i].end - at, name);
        }
        add_edit(ed, l->end, 0, t.s);
    }
    mc_buf_release(&h);
    mc_buf_release(&t);
    mc_buf_release(&pr);
}

/* Blocking of the nest of innermost loop IN with tiles of T, as edits
 * of ORIG (see cblock.h): a loop over the strips of each strip-mined
 * loop goes before the nest's first keyword, on its line, in the
 * nest's order, and the strip-mined loop runs over one strip:
 *
 *     for (long long mc_bk_V = LO; mc_bk_V < (HI); mc_bk_V += T) ...
 *     for (int V = (int)mc_bk_V,
 *          mc_be_V = (int)((HI) - mc_bk_V > T ? mc_bk_V + T : (HI));
 *          V < mc_be_V; V++)
 *
 * The strip's variable is long long, so neither it nor the bound
 * overflows where V's range reaches INT_MAX. The strip's end is worked
 * out once, in the loop's declaration: a condition holding '?:' is
 * control flow, where GCC loses a '#pragma GCC unroll' or 'ivdep' put
 * before the loop ("ignoring loop annotation"). The innermost loop
 * keeps its line, and TAG's pragmas go before it as before. */
static void
block_edits(const struct mc_builtin *b, int in, int t, const char *orig,
            struct edits *ed)
{
    struct mc_cblock bk;
    struct mc_buf h = MC_BUF_INIT, one = MC_BUF_INIT;
    int k;

    if (!mc_cblock_nest(b->blank, b->len, b->m, in, &bk))
        return;
    for (k = 0; k < bk.depth; k++) {
        const char *v = b->m->loop[bk.loop[k]].var;
        int hn = (int)(bk.b[k].hi_end - bk.b[k].hi);
        const char *hi = orig + bk.b[k].hi;
        if (!bk.b[k].tiled)
            continue;
        mc_buf_addf(&h, "for (long long mc_bk_%s = %.*s; mc_bk_%s < (%.*s); "
                        "mc_bk_%s += %d) ", v,
                    (int)(bk.b[k].lo_end - bk.b[k].lo), orig + bk.b[k].lo,
                    v, hn, hi, v, t);
        mc_buf_reset(&one);
        mc_buf_addf(&one, "(int)mc_bk_%s, mc_be_%s = (int)((%.*s) - "
                          "mc_bk_%s > %d ? mc_bk_%s + %d : (%.*s))",
                    v, v, hn, hi, v, t, v, t, hn, hi);
        if (!mc_buf_status(&one))
            add_edit(ed, bk.b[k].lo, bk.b[k].lo_end - bk.b[k].lo, one.s);
        mc_buf_reset(&one);
        mc_buf_addf(&one, "mc_be_%s", v);
        if (!mc_buf_status(&one))
            add_edit(ed, bk.b[k].hi, bk.b[k].hi_end - bk.b[k].hi, one.s);
    }
    if (mc_buf_status(&h) || mc_buf_status(&one))
        ed->oom = 1;
    else
        add_edit(ed, b->m->loop[bk.loop[0]].kw, 0, h.s);
    mc_buf_release(&h);
    mc_buf_release(&one);
}

/* Unroll-and-jam of innermost loop IN's parent by U, as edits (see
 * cjam.h): the copies go before the outer loop's keyword, on its line,
 * written from the blanked text (no comment is copied); the outer
 * loop, its declaration of V moved out, runs the rest. TAG's pragmas
 * for IN go before the copied inner loop as _Pragma operators, and
 * before the original as lines of their own (loop_edits()). */
static void
jam_edits(const struct mc_builtin *b, unsigned long tag, int in, int u,
          struct edits *ed)
{
    struct mc_cjam jam;
    struct mc_buf pr = MC_BUF_INIT, op = MC_BUF_INIT, t = MC_BUF_INIT;
    const char *p, *nl;

    if (!mc_cjam_nest(b->blank, b->len, b->m, in, &jam))
        return;
    loop_pragmas(b, tag, in, &pr);
    for (p = pr.s; p && *p && !strchr(pr.s, '"'); p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl || strncmp(p, "#pragma ", 8))
            break;
        mc_buf_addf(&op, " _Pragma(\"%.*s\")", (int)(nl - p - 8), p + 8);
    }
    mc_cjam_text(b->blank, b->m, &jam, u, op.s, &t);
    if (mc_buf_status(&pr) || mc_buf_status(&op) || mc_buf_status(&t)) {
        ed->oom = 1;
    } else {
        add_edit(ed, b->m->loop[jam.outer].kw, 0, t.s);
        add_edit(ed, jam.ob.init, jam.ob.init_end - jam.ob.init, "");
        add_edit(ed, b->m->loop[jam.outer].end, 0, " }");
    }
    mc_buf_release(&pr);
    mc_buf_release(&op);
    mc_buf_release(&t);
}

/* The copy-back after the sweep of innermost loop IN fused into it, as
 * edits (cfuse.h): a block around the sweep's body where it has none,
 * the copy of each row once no later row reads it at the end of that
 * block, on the line where the sweep's inner loop ends, and the copy
 * nest left the rows the sweep did not copy. */
static void
fuse_edits(const struct mc_builtin *b, int in, struct edits *ed)
{
    struct mc_cfuse f;
    struct mc_buf t = MC_BUF_INIT, lo = MC_BUF_INIT;

    if (!mc_cfuse_nest(b->blank, b->len, b->m, in, &f))
        return;
    mc_cfuse_text(b->blank, b->m, &f, &t);
    mc_cfuse_copy_lo(b->blank, &f, &lo);
    if (mc_buf_status(&t) || mc_buf_status(&lo)) {
        ed->oom = 1;
    } else {
        if (!mc_cfuse_block(b->blank, b->m, &f))
            add_edit(ed, b->m->loop[f.sweep].head_end, 0, " {");
        add_edit(ed, b->m->loop[in].end, 0, t.s);
        add_edit(ed, f.cb.lo, f.cb.lo_end - f.cb.lo, lo.s);
    }
    mc_buf_release(&t);
    mc_buf_release(&lo);
}

/* Whether TAG puts __restrict on function F: restrict@F, or a scalar
 * replacement or a blocking in F that needs it. */
static int
restricted(const struct mc_builtin *b, unsigned long tag, int f)
{
    size_t i;

    for (i = 0; i < b->nknobs; i++) {
        const struct mc_knob *k = &b->knob[i];
        if ((tag >> i & 1) &&
            ((k->kind == MC_KK_RESTRICT && k->where == f) ||
             ((k->kind == MC_KK_SCALAR || k->kind == MC_KK_BLOCK ||
               k->kind == MC_KK_JAM || k->kind == MC_KK_FUSE) &&
              k->op && b->m->loop[k->where].fn == f)))
            return 1;
    }
    return 0;
}

static void
host_edits(const struct mc_builtin *b, unsigned long tag, const char *orig,
           struct edits *ed)
{
    size_t i;

    function_edits(b, tag, ed);
    loop_edits(b, tag, ed);
    for (i = 0; i < b->nknobs; i++) {
        const struct mc_knob *k = &b->knob[i];
        if (!(tag >> i & 1))
            continue;
        if (k->kind == MC_KK_EXPECT)
            expect_edits(b, ed);
        else if (k->kind == MC_KK_INTERCHANGE)
            interchange_edits(b, tag, k->where, orig, ed);
        else if (k->kind == MC_KK_SCALAR)
            scalar_edits(b, tag, k->where, orig, ed);
        else if (k->kind == MC_KK_BLOCK)
            block_edits(b, k->where, k->n, orig, ed);
        else if (k->kind == MC_KK_JAM)
            jam_edits(b, tag, k->where, k->n, ed);
        else if (k->kind == MC_KK_FUSE)
            fuse_edits(b, k->where, ed);
    }
    /* Once per function, however many knobs ask for it. */
    for (i = 0; i < b->m->nfn; i++)
        if (restricted(b, tag, (int)i))
            restrict_edits(b->blank, b->len, b->m->fn[i].params,
                           b->m->fn[i].params_end, "__restrict", ed);
}

/* The CUDA edits of TAG: loop pragmas inside the chosen kernels, then
 * the kernel-level insertions. */
static enum mc_code
cuda_edits(const struct mc_builtin *b, unsigned long tag, const char *c,
           size_t len, struct edits *ed)
{
    struct mc_kernel ks[64];
    size_t nk = chosen_kernels(b, c, len, ks, MC_ARRAY_SIZE(ks)), k, line;
    unsigned char *inner = mc_calloc(ed->nlines + 2, 1);
    struct mc_buf p = MC_BUF_INIT;

    if (!inner)
        return MC_ENOMEM;
    kernel_loops(c, len, ks, nk, ed, inner);
    loop_pragmas(b, tag, -1, &p);
    for (line = 1; p.len && line <= ed->nlines; line++)
        if (inner[line])
            before_line(ed, line, p.s);
    for (k = 0; k < b->nknobs; k++) {
        const struct mc_knob *kn = &b->knob[k];
        size_t i;
        if (!(tag >> k & 1) || kn->kind != MC_KK_CUDA)
            continue;
        for (i = 0; i < nk; i++)
            if (kn->op == 1)
                restrict_edits(c, 0, ks[i].params, ks[i].params_end,
                               "__restrict__", ed);
            else if (kn->op == 2 || kn->op == 3)
                launch_bounds_edit(c, &ks[i], kn->op == 3, ed);
            else if (kn->op == 4)
                intrinsic_edits(c, &ks[i], ed);
    }
    mc_free(inner);
    mc_buf_release(&p);
    return mc_buf_status(&p) ? MC_ENOMEM : MC_OK;
}

/* The file pragmas of TAG at the top, or inside each fence. */
static void
fence_edits(const struct mc_builtin *b, unsigned long tag,
            const struct fences *fe, struct edits *ed)
{
    struct mc_buf f = MC_BUF_INIT, t = MC_BUF_INIT;
    size_t k;

    if (b->family == MC_CC_GCC)
        file_pragmas(b, tag, &f);
    if (f.len && !fe->nb)
        before_line(ed, 1, f.s);
    for (k = 0; f.len && k < fe->nb; k++) {
        mc_buf_reset(&t);
        mc_buf_addf(&t, "#pragma GCC push_options\n%s", f.s);
        if (fe->begins[k] + 1 <= ed->nlines)
            before_line(ed, fe->begins[k] + 1, t.s);
    }
    for (k = 0; f.len && k < fe->ne; k++)
        before_line(ed, fe->ends[k], "#pragma GCC pop_options\n");
    for (k = 0; k < ed->n; k++)
        ed->v[k].force = 1;
    mc_buf_release(&f);
    mc_buf_release(&t);
}

/* ORIG with the edits of ED that fall on lines that may change (OK). */
static void
apply(const char *orig, size_t len, struct edits *ed,
      const unsigned char *ok, struct mc_buf *out)
{
    size_t from = 0, i;

    if (ed->n)
        qsort(ed->v, ed->n, sizeof(*ed->v), edit_cmp);
    for (i = 0; i < ed->n; i++) {
        const struct edit *e = &ed->v[i];
        if ((!e->force && !ok[e->line]) || e->at < from)
            continue;
        mc_buf_add(out, orig + from, e->at - from);
        mc_buf_adds(out, e->text);
        from = e->at + e->del;
    }
    mc_buf_add(out, orig + from, len - from);
    if (len && orig[len - 1] != '\n')
        mc_buf_addc(out, '\n');
}

/* The start of each line of TEXT into *OFF (1-based), *N lines. */
static enum mc_code
lines_of(const char *text, size_t len, size_t **off, size_t *n)
{
    size_t i, k = 1;

    *n = 1;
    for (i = 0; i < len; i++)
        *n += text[i] == '\n';
    *off = mc_calloc(*n + 2, sizeof(**off));
    if (!*off)
        return MC_ENOMEM;
    for (i = 0; i < len; i++)
        if (text[i] == '\n')
            (*off)[++k] = i + 1;
    return MC_OK;
}

enum mc_code
mc_builtin_render(const struct mc_builtin *b, unsigned long tag,
                  const char *orig, size_t len, struct mc_buf *out)
{
    struct edits ed;
    struct fences fe;
    size_t *off = NULL;
    unsigned char *ok = NULL;
    char *c = NULL;
    enum mc_code rc;

    memset(&ed, 0, sizeof(ed));
    rc = lines_of(orig, len, &off, &ed.nlines);
    ok = rc ? NULL : mc_calloc(ed.nlines + 2, 1);
    c = b->blank && b->len == len ? b->blank : mc_ctext_blank(orig, len);
    if (rc || !ok || !c) {
        rc = MC_ENOMEM;
        goto out;
    }
    ed.line_off = off;
    changeable(orig, len, ok, ed.nlines, &fe);
    fence_edits(b, tag, &fe, &ed);
    if (b->family == MC_CC_NVCC)
        rc = cuda_edits(b, tag, c, len, &ed);
    else if (b->m && b->blank && b->len == len)
        host_edits(b, tag, orig, &ed);
    if (!rc && ed.oom)
        rc = MC_ENOMEM;
    if (!rc)
        apply(orig, len, &ed, ok, out);
    if (!rc)
        rc = mc_buf_status(out);
out:
    if (c != b->blank)
        mc_free(c);
    mc_free(ok);
    mc_free(off);
    edits_release(&ed);
    return rc;
}
