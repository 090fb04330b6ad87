/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * propose.c: the built-in, compiler-guided proposer: knobs, their
 * rendering as directives, the choice policy and the rule-based critique.
 * Rendering copies the original line by line: loop pragmas go before the
 * lines that start innermost loops, and for CUDA the kernel-level knobs
 * are insertions at offsets inside the kernels' spans (the name, the
 * pointer parameters, the math calls), found in the blanked text.
 */
#include "mc_setup.h"
#include "propose.h"
#include "alloc.h"
#include "ctext.h"
#include "mark.h"
#include "native.h"
#include "spawn.h"

#include <ctype.h>

enum {
    K_O3 = 1ul << 0,
    K_UNROLL_LOOPS = 1ul << 1,
    K_VECT_UNLIMITED = 1ul << 2,
    K_LOOP_DIST = 1ul << 3,
    K_UNROLL_JAM = 1ul << 4,
    K_FAST_MATH = 1ul << 5,
    K_ISA = 1ul << 6,
    K_PRAGMA_UNROLL4 = 1ul << 7,
    K_PRAGMA_UNROLL8 = 1ul << 8,
    K_IVDEP = 1ul << 9,
    K_CLANG_VEC = 1ul << 10,
    K_RESTRICT = 1ul << 11,
    K_LB256 = 1ul << 12,
    K_LB1024 = 1ul << 13,
    K_FAST_INTRIN = 1ul << 14
};

/* The CUDA knobs, applied inside kernels only. */
#define CUDA_KNOBS                                                          \
    (K_PRAGMA_UNROLL4 | K_PRAGMA_UNROLL8 | K_RESTRICT | K_LB256 |           \
     K_LB1024 | K_FAST_INTRIN)

#define F_GCC   1u
#define F_CLANG 2u
#define F_NVCC  4u

struct knob {
    unsigned long bit;
    const char *label;
    unsigned families;
    const char *gcc_opt;  /* in #pragma GCC optimize, or NULL */
    const char *why;      /* what it does, for the critique */
};

/* In order of preference when climbing; riskiest last. */
static const struct knob knobs[] = {
    {K_O3, "O3", F_GCC, "O3",
     "more aggressive vectorization, unrolling and inlining"},
    {K_CLANG_VEC, "vectorize", F_CLANG, NULL,
     "forced vectorization and interleaving of innermost loops"},
    {K_UNROLL_LOOPS, "unroll-loops", F_GCC, "unroll-loops",
     "less loop overhead in every loop"},
    {K_PRAGMA_UNROLL8, "unroll(8)", F_GCC | F_CLANG | F_NVCC, NULL,
     "innermost loops unrolled 8 times"},
    {K_PRAGMA_UNROLL4, "unroll(4)", F_GCC | F_CLANG | F_NVCC, NULL,
     "innermost loops unrolled 4 times"},
    {K_VECT_UNLIMITED, "vect-cost-model=unlimited", F_GCC,
     "vect-cost-model=unlimited",
     "vectorization even where the cost model hesitated"},
    {K_UNROLL_JAM, "unroll-and-jam", F_GCC, "loop-unroll-and-jam",
     "outer loops unrolled and fused for reuse"},
    {K_LOOP_DIST, "loop-distribution", F_GCC, "tree-loop-distribution",
     "loops split so parts vectorize"},
    {K_ISA, "arch=native", F_GCC, NULL,
     "this machine's wider vector instructions"},
    {K_IVDEP, "ivdep", F_GCC | F_CLANG, NULL,
     "the vectorizer ignores assumed loop-carried dependences"},
    {K_FAST_MATH, "fast-math", F_GCC, "fast-math",
     "floating-point reassociation lets reductions vectorize"},
    {K_RESTRICT, "restrict", F_NVCC, NULL,
     "unaliased pointer parameters let loads go through the read-only "
     "cache and be reordered"},
    {K_LB256, "launch_bounds(256,2)", F_NVCC, NULL,
     "registers capped for two blocks of 256 threads per multiprocessor"},
    {K_LB1024, "launch_bounds(1024,1)", F_NVCC, NULL,
     "registers capped for blocks of 1024 threads"},
    {K_FAST_INTRIN, "fast-intrinsics", F_NVCC, NULL,
     "hardware approximations of the single-precision math functions"},
};

/* The single-precision math functions with a fast intrinsic, __NAME. */
static const char *const fast_fns[] = {
    "expf", "logf", "sinf", "cosf", "powf", "tanf", "exp10f", "log2f",
    "log10f"};

static unsigned
family_bit(const struct mc_builtin *b)
{
    return b->family == MC_CC_GCC ? F_GCC
           : b->family == MC_CC_CLANG ? F_CLANG
                                      : F_NVCC;
}

/* The knobs this target may use at all. */
static unsigned long
allowed(const struct mc_builtin *b)
{
    unsigned long m = 0;
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(knobs); i++)
        if (knobs[i].families & family_bit(b))
            m |= knobs[i].bit;
    if (!b->fast_math_ok)
        m &= ~(unsigned long)(K_FAST_MATH | K_FAST_INTRIN);
    if (!b->arch[0])
        m &= ~(unsigned long)K_ISA;
    return m & b->applicable & ~b->banned & ~b->blamed;
}

/* What -march=native means for T's compiler, into B->arch ("" when it
 * cannot tell): the architecture T's key has, when its caller resolved
 * it (a "cpu-" hash of the CPU's flags is no name -march takes), else
 * as the driver resolves it now. */
static void
native_arch(struct mc_builtin *b, const struct mc_target *t)
{
    if (!t->native_arch)
        mc_native_march(t->compiler, b->arch, sizeof(b->arch));
    else if (strncmp(t->native_arch, "cpu-", 4))
        snprintf(b->arch, sizeof(b->arch), "%s", t->native_arch);
}

/* The compiler family of T (gcc or clang, from `CC --version`) into B. */
static enum mc_code
host_family(struct mc_builtin *b, const struct mc_target *t,
            struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = 60};
    struct mc_spawn_result r;
    struct mc_strv argv = MC_STRV_INIT;

    b->family = MC_CC_GCC;
    if (mc_shell_split(t->compiler, &argv, err) || !argv.n ||
        mc_strv_push(&argv, "--version")) {
        mc_strv_release(&argv);
        return mc_err_set(err, MC_EINVAL, "bad compiler command '%s'",
                          t->compiler);
    }
    mc_spawn_result_init(&r);
    if (mc_spawn(argv.v, &so, &r, NULL) == MC_OK && strstr(r.out.s, "clang"))
        b->family = MC_CC_CLANG;
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    if (b->family == MC_CC_GCC &&
        !strcmp(mc_target_get(t, MC_OPT_ISA), "native"))
        native_arch(b, t);
    return MC_OK;
}

/* The CUDA knobs that change TEXT (LEN bytes) at all: rendered alone,
 * each must differ from the text rendered with no knob. */
static enum mc_code
cuda_applicable(struct mc_builtin *b, const char *text, size_t len)
{
    struct mc_buf none = MC_BUF_INIT, one = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    b->applicable = ~(unsigned long)CUDA_KNOBS;
    rc = mc_builtin_render(b, 0, text, len, &none);
    for (i = 0; !rc && i < MC_ARRAY_SIZE(knobs); i++) {
        if (!(knobs[i].bit & CUDA_KNOBS))
            continue;
        mc_buf_reset(&one);
        rc = mc_builtin_render(b, knobs[i].bit, text, len, &one);
        if (!rc && (one.len != none.len || memcmp(one.s, none.s, one.len)))
            b->applicable |= knobs[i].bit;
    }
    mc_buf_release(&none);
    mc_buf_release(&one);
    return rc;
}

enum mc_code
mc_builtin_init(struct mc_builtin *b, const struct mc_target *t,
                const char *text, size_t len, struct mc_err *err)
{
    const char *kernel = mc_target_get(t, MC_OPT_KERNEL);

    memset(b, 0, sizeof(*b));
    b->fast_math_ok = *mc_target_get(t, MC_OPT_TOLERANCE) != '\0';
    b->applicable = ~0ul;
    if (t->lang != MC_LANG_CUDA)
        return host_family(b, t, err);
    b->family = MC_CC_NVCC;
    if (strlen(kernel) >= sizeof(b->kernel))
        return mc_err_set(err, MC_EINVAL, "kernel name '%.40s...' too long",
                          kernel);
    memcpy(b->kernel, kernel, strlen(kernel) + 1);
    if (cuda_applicable(b, text ? text : "", text ? len : 0))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

void
mc_builtin_label(const struct mc_builtin *b, unsigned long tag,
                 struct mc_buf *out)
{
    size_t i;
    int any = 0;

    for (i = 0; i < MC_ARRAY_SIZE(knobs); i++) {
        if (!(tag & knobs[i].bit))
            continue;
        if (any)
            mc_buf_addc(out, '+');
        if (knobs[i].bit == K_ISA)
            mc_buf_addf(out, "arch=%s", b->arch);
        else
            mc_buf_adds(out, knobs[i].label);
        any = 1;
    }
    if (!any)
        mc_buf_adds(out, "original");
}

/* ---- choosing ---- */

static int
tried(const struct mc_prop_node *nodes, size_t n, unsigned long tag)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (nodes[i].tag == tag)
            return 1;
    return 0;
}

/* How often adding KNOB made a correct child slower than its parent. */
static int
hurt_count(const struct mc_prop_node *nodes, size_t n, unsigned long knob)
{
    size_t i;
    int hurt = 0;

    for (i = 0; i < n; i++) {
        const struct mc_prop_node *c = &nodes[i];
        double ps;
        unsigned long ptag;

        if (!c->evaluated || !c->correct)
            continue;
        ptag = c->parent >= 0 ? nodes[c->parent].tag : 0;
        ps = c->parent >= 0 ? nodes[c->parent].speedup : 1.0;
        if ((c->tag & ~ptag) == knob && c->speedup < ps * 0.97)
            hurt++;
    }
    return hurt;
}

/* Normalise TAG: one unroll pragma and one __launch_bounds__ at most. */
static unsigned long
normal(unsigned long tag)
{
    if ((tag & K_PRAGMA_UNROLL8) && (tag & K_PRAGMA_UNROLL4))
        tag &= ~(unsigned long)K_PRAGMA_UNROLL4;
    if ((tag & K_LB256) && (tag & K_LB1024))
        tag &= ~(unsigned long)K_LB1024;
    return tag;
}

static int
add_pick(unsigned long *tags, size_t *ntags, size_t k, unsigned long tag,
         unsigned long ok, const struct mc_prop_node *nodes, size_t n)
{
    size_t i;

    tag = normal(tag);
    if (*ntags >= k || !tag || (tag & ~ok) || tried(nodes, n, tag))
        return 0;
    for (i = 0; i < *ntags; i++)
        if (tags[i] == tag)
            return 0;
    tags[(*ntags)++] = tag;
    return 1;
}

void
mc_builtin_choose(struct mc_builtin *b, const struct mc_prop_node *nodes,
                  size_t n, int parent, size_t k, int repair,
                  unsigned long *tags, size_t *ntags)
{
    static const unsigned long gcc_seeds[] = {
        K_O3, K_O3 | K_UNROLL_LOOPS, K_O3 | K_VECT_UNLIMITED,
        K_PRAGMA_UNROLL8, K_O3 | K_ISA, K_O3 | K_FAST_MATH,
        K_O3 | K_IVDEP, K_O3 | K_LOOP_DIST};
    static const unsigned long clang_seeds[] = {
        K_CLANG_VEC, K_PRAGMA_UNROLL8, K_IVDEP, K_PRAGMA_UNROLL4,
        K_CLANG_VEC | K_PRAGMA_UNROLL4};
    static const unsigned long nvcc_seeds[] = {
        K_RESTRICT, K_LB256, K_PRAGMA_UNROLL4, K_RESTRICT | K_PRAGMA_UNROLL4,
        K_FAST_INTRIN, K_PRAGMA_UNROLL8, K_LB1024};
    const unsigned long *seeds = b->family == MC_CC_GCC ? gcc_seeds
                                 : b->family == MC_CC_CLANG ? clang_seeds
                                                            : nvcc_seeds;
    size_t nseeds = b->family == MC_CC_GCC ? MC_ARRAY_SIZE(gcc_seeds)
                    : b->family == MC_CC_CLANG ? MC_ARRAY_SIZE(clang_seeds)
                                               : MC_ARRAY_SIZE(nvcc_seeds);
    unsigned long ok = allowed(b), base = parent >= 0 ? nodes[parent].tag : 0;
    unsigned long combo;
    size_t i, round;

    *ntags = 0;
    if (repair && parent >= 0) {
        /* Drop one knob, the riskiest first (the table's end). */
        for (i = MC_ARRAY_SIZE(knobs); i-- > 0;)
            if (base & knobs[i].bit)
                add_pick(tags, ntags, k, base & ~knobs[i].bit, ok, nodes, n);
    }
    /* Climb from the base: add one knob, those that never hurt first. */
    for (round = 0; round < 3; round++)
        for (i = 0; i < MC_ARRAY_SIZE(knobs); i++) {
            int hurt = hurt_count(nodes, n, knobs[i].bit);
            if (!(base & knobs[i].bit) && (int)round == (hurt > 1 ? 2 : hurt))
                add_pick(tags, ntags, k, base | knobs[i].bit, ok, nodes, n);
        }
    /* From the original, the seeds come first. */
    if (base == 0) {
        size_t before = *ntags;
        unsigned long picked[64];

        memcpy(picked, tags, before * sizeof(*tags));
        *ntags = 0;
        for (i = 0; i < nseeds; i++)
            add_pick(tags, ntags, k, seeds[i], ok, nodes, n);
        for (i = 0; i < before; i++)
            add_pick(tags, ntags, k, picked[i], ok, nodes, n);
    }
    /* Then any untried combination, smallest first. */
    for (combo = 1; *ntags < k && combo < (1ul << MC_ARRAY_SIZE(knobs));
         combo++)
        if (!(combo & ~ok))
            add_pick(tags, ntags, k, combo | base, ok, nodes, n);
}

/* ---- rendering ---- */

/* Whether C[FROM, TO) holds a loop keyword. */
static int
has_loop(const char *c, size_t from, size_t to)
{
    size_t i;

    for (i = from; i < to; i++)
        if (mc_ctext_word_at(c, to, i, "for") ||
            mc_ctext_word_at(c, to, i, "while") ||
            mc_ctext_word_at(c, to, i, "do"))
            return 1;
    return 0;
}

/* Mark in INNER[line] (1-based) the lines that start an innermost for
 * loop (the keyword first on its line). */
static void
innermost_loops(const char *c, size_t len, unsigned char *inner,
                size_t nlines)
{
    size_t i, line = 1;

    for (i = 0; i < len; i++) {
        if (c[i] == '\n') {
            line++;
            continue;
        }
        if (mc_ctext_word_at(c, len, i, "for")) {
            size_t j = i + 3, start, body_end, k;
            int depth = 0, first = 1;

            for (k = i; k > 0 && c[k - 1] != '\n'; k--)
                if (!isspace((unsigned char)c[k - 1]))
                    first = 0;
            while (j < len && isspace((unsigned char)c[j]))
                j++;
            if (j >= len || c[j] != '(')
                continue;
            start = j;
            for (; j < len; j++) {
                depth += c[j] == '(';
                depth -= c[j] == ')';
                if (!depth)
                    break;
            }
            body_end = mc_ctext_skip_statement(c, len, j + 1);
            if (first && line <= nlines && !has_loop(c, j + 1, body_end) &&
                start > i)
                inner[line] = 1;
        }
    }
}

/* The lines (1-based) of the fences' begin and end pragmas. */
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

/* ---- CUDA kernels ---- */

/* One insertion into the original: INS goes before offset AT. */
struct edit {
    size_t at;
    const char *ins;
};

struct edits {
    struct edit *v;
    size_t n, cap;
    int oom;
};

static void
add_edit(struct edits *ed, size_t at, const char *ins)
{
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
    ed->v[ed->n].at = at;
    ed->v[ed->n++].ins = ins;
}

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

/* Keep in INNER only the lines that start inside the body of one of the
 * NK kernels KS. */
static void
loops_in_kernels(const char *c, size_t len, const struct mc_kernel *ks,
                 size_t nk, unsigned char *inner, size_t nlines)
{
    size_t off = 0, line, k;

    for (line = 1; line <= nlines; line++) {
        const char *nl = off < len ? memchr(c + off, '\n', len - off) : NULL;
        int in = 0;

        for (k = 0; k < nk; k++)
            in |= off > ks[k].body && off < ks[k].end;
        if (!in)
            inner[line] = 0;
        off = nl ? (size_t)(nl - c) + 1 : len;
    }
}

/* __launch_bounds__ right before the name of kernel K, unless it has
 * one already or its name is qualified. */
static void
launch_bounds_edit(const char *c, const struct mc_kernel *k,
                   unsigned long tag, struct edits *ed)
{
    size_t i;

    for (i = k->global; i < k->params; i++)
        if (mc_ctext_word_at(c, k->params, i, "__launch_bounds__"))
            return;
    for (i = k->name; i > k->global && isspace((unsigned char)c[i - 1]); i--)
        ;
    if (c[i - 1] == ':')
        return;
    add_edit(ed, k->name, tag & K_LB256 ? "__launch_bounds__(256, 2) "
                                        : "__launch_bounds__(1024, 1) ");
}

/* __restrict__ after the '*' at C[STAR] of a parameter that ends at
 * END, unless it has a restrict qualifier already. */
static void
restrict_after(const char *c, size_t star, size_t end, struct edits *ed)
{
    size_t i;

    for (i = star + 1; i < end; i++)
        if (mc_ctext_word_at(c, end, i, "__restrict__") ||
            mc_ctext_word_at(c, end, i, "__restrict") ||
            mc_ctext_word_at(c, end, i, "restrict"))
            return;
    add_edit(ed, star + 1, isspace((unsigned char)c[star + 1])
                               ? " __restrict__"
                               : "__restrict__ ");
}

/* __restrict__ on each pointer parameter of kernel K: after the last
 * '*' outside brackets (not in a function pointer's "(*f)"). */
static void
restrict_edits(const char *c, const struct mc_kernel *k, struct edits *ed)
{
    size_t i, star = 0;
    int depth = 0;

    for (i = k->params + 1; i < k->params_end; i++) {
        char ch = c[i];

        if (!depth && (ch == ',' || i + 1 == k->params_end)) {
            if (star)
                restrict_after(c, star, i, ed);
            star = 0;
            continue;
        }
        depth += ch == '(' || ch == '<' || ch == '[';
        depth -= ch == ')' || ch == '>' || ch == ']';
        if (ch == '*' && !depth)
            star = i;
    }
}

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
            add_edit(ed, i, "__");
            i += strlen(f) - 1;
        }
    }
}

/* The insertions of TAG's kernel-level knobs into the NK kernels KS of
 * C, in the order of their offsets. */
static void
kernel_edits(const char *c, const struct mc_kernel *ks, size_t nk,
             unsigned long tag, struct edits *ed)
{
    size_t k;

    for (k = 0; k < nk; k++) {
        if (tag & (K_LB256 | K_LB1024))
            launch_bounds_edit(c, &ks[k], tag, ed);
        if (tag & K_RESTRICT)
            restrict_edits(c, &ks[k], ed);
        if (tag & K_FAST_INTRIN)
            intrinsic_edits(c, &ks[k], ed);
    }
}

/* Scope the loop pragmas of B to the kernels of C, and collect TAG's
 * kernel-level insertions into ED. */
static enum mc_code
cuda_scope(const struct mc_builtin *b, unsigned long tag, const char *c,
           size_t len, unsigned char *inner, size_t nlines,
           struct edits *ed)
{
    struct mc_kernel ks[64];
    size_t nk = chosen_kernels(b, c, len, ks, MC_ARRAY_SIZE(ks));

    loops_in_kernels(c, len, ks, nk, inner, nlines);
    kernel_edits(c, ks, nk, tag, ed);
    return ed->oom ? MC_ENOMEM : MC_OK;
}

/* The line of ORIG at OFF (N bytes) into OUT, with the insertions of ED
 * that fall in it from *EI on when OK (the line may change). */
static void
emit_line(struct mc_buf *out, const char *orig, size_t off, size_t n,
          const struct edits *ed, size_t *ei, int ok)
{
    size_t from = off;

    for (; *ei < ed->n && ed->v[*ei].at < off + n; (*ei)++) {
        if (!ok)
            continue;
        mc_buf_add(out, orig + from, ed->v[*ei].at - from);
        mc_buf_adds(out, ed->v[*ei].ins);
        from = ed->v[*ei].at;
    }
    mc_buf_add(out, orig + from, off + n - from);
}

static void
add_file_pragmas(const struct mc_builtin *b, unsigned long tag,
                 struct mc_buf *out)
{
    size_t i;
    int any = 0;

    if (b->family != MC_CC_GCC)
        return;
    for (i = 0; i < MC_ARRAY_SIZE(knobs); i++) {
        if (!(tag & knobs[i].bit) || !knobs[i].gcc_opt)
            continue;
        mc_buf_adds(out, any ? ", \"" : "#pragma GCC optimize (\"");
        mc_buf_adds(out, knobs[i].gcc_opt);
        mc_buf_addc(out, '"');
        any = 1;
    }
    if (any)
        mc_buf_adds(out, ")\n");
    if ((tag & K_ISA) && b->arch[0])
        mc_buf_addf(out, "#pragma GCC target (\"arch=%s\")\n", b->arch);
}

static void
add_loop_pragmas(const struct mc_builtin *b, unsigned long tag,
                 struct mc_buf *out)
{
    int n = tag & K_PRAGMA_UNROLL8 ? 8 : tag & K_PRAGMA_UNROLL4 ? 4 : 0;

    if (n)
        mc_buf_addf(out, b->family == MC_CC_NVCC ? "#pragma unroll %d\n"
                                                 : "#pragma GCC unroll %d\n",
                    n);
    if (tag & K_IVDEP)
        mc_buf_adds(out, b->family == MC_CC_CLANG
                             ? "#pragma clang loop vectorize(assume_safety)\n"
                             : "#pragma GCC ivdep\n");
    if (tag & K_CLANG_VEC)
        mc_buf_adds(out, "#pragma clang loop vectorize(enable) "
                         "interleave(enable)\n");
}

/* The lines of ORIG (LEN bytes) into OUT, with FILE's pragmas after
 * each fence begin (and pops before its end), LOOP before the innermost
 * loops (INNER) and the insertions of ED, where OK lets a line change. */
static void
emit_lines(const char *orig, size_t len, const struct mc_buf *file,
           const struct mc_buf *loop, const unsigned char *inner,
           const unsigned char *ok, const struct fences *fe,
           const struct edits *ed, struct mc_buf *out)
{
    size_t off = 0, line = 1, ei = 0;

    while (off < len) {
        const char *l = orig + off, *nl = memchr(l, '\n', len - off);
        size_t n = nl ? (size_t)(nl - l) + 1 : len - off;
        size_t k;

        for (k = 0; k < fe->ne && file->len; k++)
            if (fe->ends[k] == line)
                mc_buf_addf(out, "#pragma GCC pop_options\n#line %zu\n",
                            line);
        if (loop->len && inner[line] && ok[line])
            mc_buf_addf(out, "%s#line %zu\n", loop->s, line);
        emit_line(out, orig, off, n, ed, &ei, ok[line]);
        if (nl == NULL && n)
            mc_buf_addc(out, '\n');
        for (k = 0; k < fe->nb && file->len; k++)
            if (fe->begins[k] == line)
                mc_buf_addf(out, "#pragma GCC push_options\n%s#line %zu\n",
                            file->s, line + 1);
        off += n;
        line++;
    }
}

enum mc_code
mc_builtin_render(const struct mc_builtin *b, unsigned long tag,
                  const char *orig, size_t len, struct mc_buf *out)
{
    struct mc_buf file = MC_BUF_INIT, loop = MC_BUF_INIT;
    struct edits ed = {NULL, 0, 0, 0};
    struct fences fe;
    unsigned char *ok = NULL, *inner = NULL;
    size_t nlines = 1, i;
    char *c = NULL;
    enum mc_code rc = MC_OK;

    for (i = 0; i < len; i++)
        nlines += orig[i] == '\n';
    ok = mc_calloc(nlines + 2, 1);
    inner = mc_calloc(nlines + 2, 1);
    c = mc_ctext_blank(orig, len);
    if (!ok || !inner || !c) {
        rc = MC_ENOMEM;
        goto out;
    }
    changeable(orig, len, ok, nlines, &fe);
    innermost_loops(c, len, inner, nlines);
    if (b->family == MC_CC_NVCC &&
        (rc = cuda_scope(b, tag, c, len, inner, nlines, &ed)) != MC_OK)
        goto out;
    add_file_pragmas(b, tag, &file);
    add_loop_pragmas(b, tag, &loop);
    if (file.len && !fe.nb)
        mc_buf_addf(out, "%s#line 1\n", file.s);
    emit_lines(orig, len, &file, &loop, inner, ok, &fe, &ed, out);
    rc = mc_buf_status(out);
out:
    mc_free(ok);
    mc_free(inner);
    mc_free(c);
    mc_free(ed.v);
    mc_buf_release(&file);
    mc_buf_release(&loop);
    return rc;
}

/* ---- learning and critique ---- */

void
mc_builtin_learn(struct mc_builtin *b, const struct mc_prop_node *nodes,
                 size_t i, const char *detail, struct mc_buf *out)
{
    const struct mc_prop_node *c = &nodes[i];
    unsigned long ptag = c->parent >= 0 ? nodes[c->parent].tag : 0;
    unsigned long added = c->tag & ~ptag, removed = ptag & ~c->tag;
    double ps = c->parent >= 0 && nodes[c->parent].correct
                    ? nodes[c->parent].speedup
                    : 1.0;
    struct mc_buf what = MC_BUF_INIT;
    const struct knob *k = NULL;
    size_t j;

    for (j = 0; j < MC_ARRAY_SIZE(knobs); j++)
        if (added & knobs[j].bit)
            k = &knobs[j]; /* the riskiest added knob */
    if (added) {
        mc_buf_adds(&what, "added ");
        mc_builtin_label(b, added, &what);
    }
    if (removed) {
        mc_buf_adds(&what, what.len ? ", removed " : "removed ");
        mc_builtin_label(b, removed, &what);
    }
    if (!what.len)
        mc_buf_adds(&what, "same knobs");
    if (c->compile_error) {
        b->banned |= added;
        mc_buf_addf(out, "%s: does not compile with this compiler (%.100s);"
                         " never used again", what.s, detail);
    } else if (!c->correct) {
        /* Blame the riskiest new knob; the others may be fine. */
        if (k)
            b->blamed |= k->bit;
        mc_buf_addf(out, "%s: %.120s; %s likely changes the program's "
                         "meaning here (dropped)", what.s, detail,
                    k ? k->label : "a knob");
    } else if (c->speedup > ps * 1.05) {
        mc_buf_addf(out, "%s: %.2fx, %.2fx its parent: %s paid off; build "
                         "on it", what.s, c->speedup, c->speedup / ps,
                    k ? k->why : "the change");
    } else if (c->speedup < ps * 0.97) {
        mc_buf_addf(out, "%s: %.2fx, slower than its parent (%.2fx): code "
                         "growth or worse scheduling; not added here again",
                    what.s, c->speedup, ps);
    } else {
        mc_buf_addf(out, "%s: %.2fx, no change beyond the noise: the loops "
                         "are already as fast at the user's level, or "
                         "memory-bound", what.s, c->speedup);
    }
    mc_buf_release(&what);
}
