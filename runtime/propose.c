/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * propose.c: the built-in, compiler-guided proposer: knobs, their
 * rendering as directives, the choice policy and the rule-based critique.
 */
#include "mc_setup.h"
#include "propose.h"
#include "alloc.h"
#include "ctext.h"
#include "mark.h"
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
    K_CLANG_VEC = 1ul << 10
};

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
};

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
        m &= ~(unsigned long)K_FAST_MATH;
    if (!b->arch[0])
        m &= ~(unsigned long)K_ISA;
    return m & ~b->banned & ~b->blamed;
}

enum mc_code
mc_builtin_init(struct mc_builtin *b, const struct mc_target *t,
                struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = 60};
    struct mc_spawn_result r;
    struct mc_strv argv = MC_STRV_INIT;

    memset(b, 0, sizeof(*b));
    b->fast_math_ok = *mc_target_get(t, MC_OPT_TOLERANCE) != '\0';
    if (t->lang == MC_LANG_CUDA) {
        b->family = MC_CC_NVCC;
        return MC_OK;
    }
    b->family = MC_CC_GCC;
    mc_spawn_result_init(&r);
    if (mc_shell_split(t->compiler, &argv, err) || !argv.n ||
        mc_strv_push(&argv, "--version")) {
        mc_strv_release(&argv);
        return mc_err_set(err, MC_EINVAL, "bad compiler command '%s'",
                          t->compiler);
    }
    if (mc_spawn(argv.v, &so, &r, NULL) == MC_OK && strstr(r.out.s, "clang"))
        b->family = MC_CC_CLANG;
    if (b->family == MC_CC_GCC &&
        !strcmp(mc_target_get(t, MC_OPT_ISA), "native")) {
        /* What -march=native means here, as the driver resolves it. */
        struct mc_strv nat = MC_STRV_INIT;
        struct mc_spawn_opts no = {.timeout_s = 60,
                                   .stdin_path = "/dev/null"};
        const char *p;

        mc_shell_split(t->compiler, &nat, NULL);
        mc_strv_push(&nat, "-march=native");
        mc_strv_push(&nat, "-E");
        mc_strv_push(&nat, "-v");
        mc_strv_push(&nat, "-");
        mc_spawn_result_release(&r);
        mc_spawn_result_init(&r);
        if (nat.v && mc_spawn(nat.v, &no, &r, NULL) == MC_OK) {
            for (p = r.err.s; (p = strstr(p, "-march=")) != NULL; p += 7) {
                size_t n = strspn(p + 7, "abcdefghijklmnopqrstuvwxyz"
                                         "0123456789-");
                if (n && n < sizeof(b->arch) &&
                    strncmp(p + 7, "native", 6)) {
                    memcpy(b->arch, p + 7, n);
                    b->arch[n] = '\0';
                    break;
                }
            }
        }
        mc_strv_release(&nat);
    }
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
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

/* Normalise TAG: one unroll pragma at most. */
static unsigned long
normal(unsigned long tag)
{
    if ((tag & K_PRAGMA_UNROLL8) && (tag & K_PRAGMA_UNROLL4))
        tag &= ~(unsigned long)K_PRAGMA_UNROLL4;
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
    static const unsigned long nvcc_seeds[] = {K_PRAGMA_UNROLL4,
                                               K_PRAGMA_UNROLL8};
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
        if (mc_ctext_word_at(c, to, i, "for") || mc_ctext_word_at(c, to, i, "while") ||
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

/* Which lines (1-based) may change: inside fences, or all. */
static void
changeable(const char *text, size_t len, unsigned char *ok, size_t nlines,
           size_t *begins, size_t *nb, size_t *ends, size_t *ne)
{
    size_t i = 0, line = 1;
    int in = 0, any = 0;

    *nb = *ne = 0;
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
            if (*nb < 64)
                begins[(*nb)++] = line;
        } else if (!strcmp(buf, "#pragmamaxcodeend")) {
            in = 0;
            if (*ne < 64)
                ends[(*ne)++] = line;
        } else {
            ok[line] = (unsigned char)in;
        }
        i += n + (nl != NULL);
        line++;
    }
    if (!any)
        memset(ok, 1, nlines + 1);
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

enum mc_code
mc_builtin_render(const struct mc_builtin *b, unsigned long tag,
                  const char *orig, size_t len, struct mc_buf *out)
{
    struct mc_buf file = MC_BUF_INIT, loop = MC_BUF_INIT;
    unsigned char *ok = NULL, *inner = NULL;
    size_t nlines = 1, i, off = 0, line = 1, begins[64], ends[64], nb, ne;
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
    changeable(orig, len, ok, nlines, begins, &nb, ends, &ne);
    innermost_loops(c, len, inner, nlines);
    add_file_pragmas(b, tag, &file);
    add_loop_pragmas(b, tag, &loop);
    if (file.len && !nb)
        mc_buf_addf(out, "%s#line 1\n", file.s);
    while (off < len) {
        const char *l = orig + off, *nl = memchr(l, '\n', len - off);
        size_t n = nl ? (size_t)(nl - l) + 1 : len - off;
        size_t k;

        for (k = 0; k < ne && file.len; k++)
            if (ends[k] == line)
                mc_buf_addf(out, "#pragma GCC pop_options\n#line %zu\n",
                            line);
        if (loop.len && inner[line] && ok[line])
            mc_buf_addf(out, "%s#line %zu\n", loop.s, line);
        mc_buf_add(out, l, n);
        if (nl == NULL && n)
            mc_buf_addc(out, '\n');
        for (k = 0; k < nb && file.len; k++)
            if (begins[k] == line)
                mc_buf_addf(out, "#pragma GCC push_options\n%s#line %zu\n",
                            file.s, line + 1);
        off += n;
        line++;
    }
    rc = mc_buf_status(out);
out:
    mc_free(ok);
    mc_free(inner);
    mc_free(c);
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
