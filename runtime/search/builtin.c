/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * builtin.c: the built-in, compiler-guided proposer: its knob table set
 * up per target (from the code, the profile and the compiler's probe;
 * the table itself is built by builtin_knobs.c), what won before, the
 * choice policy over it, labels and the rule-based critique. The text
 * of a variant is written by builtin_render.c.
 */
#include "mc_setup.h"
#include "builtin.h"
#include "alloc.h"
#include "cmodel.h"
#include "ctext.h"
#include "file.h"
#include "native.h"
#include "spawn.h"

/* ---- what won before ---- */

/* The stem of knob K into OUT: what it is, not where. */
static void
stem(const struct mc_knob *k, char *out, size_t size)
{
    size_t at = strcspn(k->label, "@");

    if (k->kind == MC_KK_INTERCHANGE)
        snprintf(out, size, "interchange");
    else if (k->kind == MC_KK_ISA)
        snprintf(out, size, "arch");
    else if (k->kind == MC_KK_SCALAR)
        snprintf(out, size, "%.*s", (int)at, k->label);
    else if (k->kind == MC_KK_BLOCK)
        snprintf(out, size, "block%d", k->n);
    else if (k->kind == MC_KK_JAM)
        snprintf(out, size, "jam%d", k->n);
    else if (k->kind == MC_KK_FUSE)
        snprintf(out, size, "fuse");
    else if (k->label[at] && k->kind == MC_KK_LOOP)
        snprintf(out, size, "%.*s@loop", (int)at, k->label);
    else if (k->label[at])
        snprintf(out, size, "%.*s@function", (int)at, k->label);
    else
        snprintf(out, size, "%s", k->label);
}

/* The count of STEM in the wins file's TEXT, or 0. */
static unsigned
wins_of(const char *text, const char *stem_)
{
    size_t n = strlen(stem_);
    const char *p = text;

    while (p && *p) {
        if (!strncmp(p, stem_, n) && p[n] == ' ')
            return (unsigned)strtoul(p + n + 1, NULL, 10);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

#define WINS_FILE "builtin-wins" /* in the cache directory */

static void
wins_path(const char *cache_dir, struct mc_buf *out)
{
    mc_buf_addf(out, "%s/" WINS_FILE, cache_dir ? cache_dir : "");
}

/* The general knobs of B that won more often in this cache first (a
 * stable order otherwise); B->knob[].wins set from CACHE_DIR. */
static void
order_by_wins(struct mc_builtin *b, const char *cache_dir)
{
    struct mc_buf text = MC_BUF_INIT;
    char st[64];
    size_t i, j;

    if (!cache_dir || mc_file_read_shared(cache_dir, WINS_FILE,
                                          MC_FILE_SMALL, &text, NULL) ||
        !text.s) {
        mc_buf_release(&text);
        return;
    }
    for (i = 0; i < b->nknobs; i++) {
        stem(&b->knob[i], st, sizeof(st));
        b->knob[i].wins = wins_of(text.s, st);
    }
    for (i = 1; i < b->nknobs; i++) {
        struct mc_knob k = b->knob[i];
        if (!k.general)
            continue;
        for (j = i; j > 0 && b->knob[j - 1].general &&
                    b->knob[j - 1].wins < k.wins;
             j--)
            b->knob[j] = b->knob[j - 1];
        b->knob[j] = k;
    }
    mc_buf_release(&text);
}

void
mc_builtin_remember(const struct mc_builtin *b, unsigned long tag,
                    const char *cache_dir)
{
    struct mc_buf path = MC_BUF_INIT, text = MC_BUF_INIT, out = MC_BUF_INIT;
    char st[64];
    size_t i;

    wins_path(cache_dir, &path);
    if (!cache_dir || mc_buf_status(&path))
        goto out;
    if (mc_file_read_shared(cache_dir, WINS_FILE, MC_FILE_SMALL, &text,
                            NULL))
        mc_buf_reset(&text);
    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1))
            continue;
        stem(&b->knob[i], st, sizeof(st));
        mc_buf_addf(&out, "%s %u\n", st,
                    (text.s ? wins_of(text.s, st) : 0) + 1);
    }
    /* The stems this tag does not have, as they were. */
    for (const char *p = text.s; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p), sp = strcspn(p, " ");

        if (sp < len && sp + 1 < sizeof(st)) {
            snprintf(st, sizeof(st), "%.*s", (int)sp, p);
            if (!out.s || !wins_of(out.s, st))
                mc_buf_addf(&out, "%.*s\n", (int)len, p);
        }
        p = nl ? nl + 1 : NULL;
    }
    if (out.s && !mc_buf_status(&out))
        mc_file_write_atomic(path.s, out.s, out.len, NULL); /* a hint */
out:
    mc_buf_release(&path);
    mc_buf_release(&text);
    mc_buf_release(&out);
}

/* ---- setting up ---- */

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
    size_t i;

    b->family = MC_CC_GCC;
    if (!t->compiler || mc_shell_split(t->compiler, &argv, err) || !argv.n ||
        mc_strv_push(&argv, "--version")) {
        mc_strv_release(&argv);
        return mc_err_set(err, MC_EINVAL, "bad compiler command '%s'",
                          t->compiler ? t->compiler : "");
    }
    mc_spawn_result_init(&r);
    if (mc_spawn(argv.v, &so, &r, NULL) == MC_OK && strstr(r.out.s, "clang"))
        b->family = MC_CC_CLANG;
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    if (b->family == MC_CC_GCC &&
        !strcmp(mc_target_get(t, MC_OPT_ISA), "native"))
        native_arch(b, t);
    for (i = 0; i < t->flags.n; i++)
        b->user_o3 |= !strcmp(t->flags.v[i], "-O3") ||
                      !strcmp(t->flags.v[i], "-Ofast");
    return MC_OK;
}

/* Keep the knobs that apply to TEXT; then the seeds. */
static enum mc_code
settle(struct mc_builtin *b, const struct mc_target *t, const char *text,
       size_t len)
{
    unsigned long keep;
    enum mc_code rc = mc_builtin_applicable(b, text, len, &keep);

    if (rc)
        return rc;
    mc_builtin_compact(b, keep);
    if (b->family != MC_CC_NVCC)
        order_by_wins(b, mc_conf_get(&t->conf, MC_SET_CACHE_DIR));
    if (b->family == MC_CC_NVCC)
        mc_builtin_cuda_seeds(b);
    else
        mc_builtin_host_seeds(b);
    return MC_OK;
}

static enum mc_code
host_init(struct mc_builtin *b, const struct mc_target *t, const char *text,
          size_t len, const double *count, size_t ncount)
{
    struct mc_ctext_pp pp = MC_CTEXT_PP_INIT;

    /* One configuration of the conditionals is read, and the model
     * says where directives may go in every one (cmodel.h). */
    b->m = mc_calloc(1, sizeof(*b->m));
    if (!b->m || mc_ctext_pp(text, len, b->blank, &pp) ||
        mc_cmodel_build(b->blank, len, b->m)) {
        mc_ctext_pp_release(&pp);
        return MC_ENOMEM;
    }
    mc_cmodel_place(b->m, b->blank, &pp);
    mc_ctext_pp_release(&pp);
    b->ok = mc_calloc(b->m->nlines + 2, 1);
    b->expect = mc_calloc(b->m->nbr + 1, 1);
    b->heat = mc_calloc(b->m->nfn + 1, 1);
    if (!b->ok || !b->expect || !b->heat)
        return MC_ENOMEM;
    mc_builtin_fences(text, len, b->ok, b->m->nlines);
    mc_builtin_host_table(b, count, ncount);
    mc_builtin_compact(b, mc_builtin_accepted(b, t));
    return MC_OK;
}

enum mc_code
mc_builtin_init(struct mc_builtin *b, const struct mc_target *t,
                const char *text, size_t len, const double *count,
                size_t ncount, struct mc_err *err)
{
    const char *kernel = mc_target_get(t, MC_OPT_KERNEL);
    enum mc_code rc;

    memset(b, 0, sizeof(*b));
    b->fast_math_ok = *mc_target_get(t, MC_OPT_TOLERANCE) != '\0';
    if (!text)
        text = "", len = 0;
    b->blank = mc_ctext_blank(text, len);
    b->len = len;
    if (!b->blank)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (t->lang != MC_LANG_CUDA) {
        rc = host_family(b, t, err);
        if (!rc && host_init(b, t, text, len, count, ncount))
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    } else if (strlen(kernel) >= sizeof(b->kernel)) {
        return mc_err_set(err, MC_EINVAL, "kernel name '%.40s...' too long",
                          kernel);
    } else {
        b->family = MC_CC_NVCC;
        memcpy(b->kernel, kernel, strlen(kernel) + 1);
        mc_builtin_cuda_table(b);
        rc = MC_OK;
    }
    if (!rc && settle(b, t, text, len))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    return rc;
}

void
mc_builtin_release(struct mc_builtin *b)
{
    if (b->m)
        mc_cmodel_release(b->m);
    mc_free(b->m);
    mc_free(b->blank);
    mc_free(b->ok);
    mc_free(b->expect);
    mc_free(b->heat);
    mc_free(b->avoid);
    b->avoid = NULL;
    b->navoid = b->avoid_cap = 0;
    b->m = NULL;
    b->blank = NULL;
    b->ok = NULL;
    b->expect = NULL;
    b->heat = NULL;
}

void
mc_builtin_label(const struct mc_builtin *b, unsigned long tag,
                 struct mc_buf *out)
{
    size_t i;
    int any = 0;

    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1))
            continue;
        if (any)
            mc_buf_addc(out, '+');
        mc_buf_adds(out, b->knob[i].label);
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

/* Whether TAG is avoided for good, or chosen for this run already. */
static int
avoided(const struct mc_builtin *b, unsigned long tag)
{
    size_t i;

    for (i = 0; i < b->navoid; i++)
        if (b->avoid[i] == tag)
            return 1;
    for (i = 0; i < b->npending; i++)
        if (b->pending[i] == tag)
            return 1;
    return 0;
}

enum mc_code
mc_builtin_avoid(struct mc_builtin *b, unsigned long tag)
{
    size_t i;

    for (i = 0; i < b->navoid; i++)
        if (b->avoid[i] == tag)
            return MC_OK;
    if (b->navoid == b->avoid_cap) {
        size_t cap = b->avoid_cap ? 2 * b->avoid_cap : 32;
        unsigned long *v = mc_realloc(b->avoid, cap * sizeof(*v));

        if (!v)
            return MC_ENOMEM;
        b->avoid = v;
        b->avoid_cap = cap;
    }
    b->avoid[b->navoid++] = tag;
    return MC_OK;
}

/* The knobs of kind KIND in B's table. */
static unsigned long
kind_bits(const struct mc_builtin *b, int kind)
{
    unsigned long bits = 0;
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == kind)
            bits |= 1ul << i;
    return bits;
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

/* The knobs B may still use. */
static unsigned long
allowed(const struct mc_builtin *b)
{
    unsigned long all = b->nknobs >= 64 ? ~0ul : (1ul << b->nknobs) - 1;

    return all & ~b->banned & ~b->blamed;
}

/* TAG with one knob at most of each group (the first in the table), and
 * fp-contract=off only beside arch= (alone it would change only the
 * rounding of an original that the user's flags build with FMA); once
 * arch= alone changed the output, arch= only with it. */
static unsigned long
normal(const struct mc_builtin *b, unsigned long tag)
{
    unsigned long x = kind_bits(b, MC_KK_EXACT);
    size_t i, j;

    if (!(tag & kind_bits(b, MC_KK_ISA)))
        tag &= ~x;
    else if (b->exact && !(x & ~allowed(b)))
        tag |= x;
    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1) || !b->knob[i].group)
            continue;
        for (j = i + 1; j < b->nknobs; j++)
            if (b->knob[j].group == b->knob[i].group)
                tag &= ~(1ul << j);
    }
    return tag;
}

static int
add_pick(const struct mc_builtin *b, unsigned long *tags, size_t *ntags,
         size_t k, unsigned long tag, const struct mc_prop_node *nodes,
         size_t n)
{
    size_t i;

    tag = normal(b, tag);
    if (*ntags >= k || !tag || (tag & ~allowed(b)) || tried(nodes, n, tag) ||
        avoided(b, tag))
        return 0;
    for (i = 0; i < *ntags; i++)
        if (tags[i] == tag)
            return 0;
    tags[(*ntags)++] = tag;
    return 1;
}

/* Fixes of BASE, which failed: drop one knob, the riskiest first. */
static void
repairs(const struct mc_builtin *b, unsigned long base,
        const struct mc_prop_node *nodes, size_t n, size_t k,
        unsigned long *tags, size_t *ntags)
{
    int risk;
    size_t i;

    for (risk = 2; risk >= 0; risk--)
        for (i = b->nknobs; i-- > 0;)
            if ((base >> i & 1) && b->knob[i].risk == risk)
                add_pick(b, tags, ntags, k, base & ~(1ul << i), nodes, n);
}

/* Add candidate TAG with the value model's prior to the M of V, kept
 * in order: higher values first, earlier candidates first among
 * equals. */
static void
add_ranked(struct mc_builtin *b, int parent, unsigned long tag,
           unsigned long *cand, double *v, size_t *m)
{
    double x = b->prior(b->prior_arg, parent, tag);
    size_t j;

    for (j = *m; j > 0 && v[j - 1] < x; j--) {
        cand[j] = cand[j - 1];
        v[j] = v[j - 1];
    }
    cand[j] = tag;
    v[j] = x;
    (*m)++;
}

/* The value model's choice from PARENT: the knob sets one knob away
 * (and from the original, the seeds too) in the order of its prior,
 * into TAGS up to K. */
static void
choose_by_value(struct mc_builtin *b, const struct mc_prop_node *nodes,
                size_t n, int parent, size_t k, unsigned long *tags,
                size_t *ntags)
{
    unsigned long base = parent >= 0 ? nodes[parent].tag : 0;
    unsigned long cand[MC_KNOBS_MAX + 16];
    double v[MC_KNOBS_MAX + 16];
    size_t m = 0, i;

    for (i = 0; base == 0 && i < b->nseeds && i < 16; i++) {
        unsigned long tag = normal(b, b->seeds[i]);

        if (tag && !(tag & ~allowed(b)) && !tried(nodes, n, tag))
            add_ranked(b, parent, tag, cand, v, &m);
    }
    for (i = 0; i < b->nknobs; i++) {
        unsigned long tag = normal(b, base | 1ul << i);

        if (!(base >> i & 1) && tag && !(tag & ~allowed(b)) &&
            !tried(nodes, n, tag))
            add_ranked(b, parent, tag, cand, v, &m);
    }
    for (i = 0; i < m && *ntags < k; i++)
        add_pick(b, tags, ntags, k, cand[i], nodes, n);
}

void
mc_builtin_choose(struct mc_builtin *b, const struct mc_prop_node *nodes,
                  size_t n, int parent, size_t k, int repair,
                  unsigned long *tags, size_t *ntags)
{
    unsigned long base = parent >= 0 ? nodes[parent].tag : 0;
    size_t i, j, round;

    *ntags = 0;
    if (repair && parent >= 0)
        repairs(b, base, nodes, n, k, tags, ntags);
    /* With a value model, its order of the seeds and of the knob sets
     * one knob away. */
    if (b->prior)
        choose_by_value(b, nodes, n, parent, k, tags, ntags);
    /* From the original, the seeds come first. */
    for (i = 0; base == 0 && i < b->nseeds; i++)
        add_pick(b, tags, ntags, k, b->seeds[i], nodes, n);
    /* Climb from the base: add one knob, those that never hurt first. */
    for (round = 0; round < 3; round++)
        for (i = 0; i < b->nknobs; i++) {
            int hurt = hurt_count(nodes, n, 1ul << i);
            if (!(base >> i & 1) && (int)round == (hurt > 1 ? 2 : hurt))
                add_pick(b, tags, ntags, k, base | 1ul << i, nodes, n);
        }
    /* Then two knobs more, in the table's order. */
    for (i = 0; *ntags < k && i < b->nknobs; i++)
        for (j = i + 1; *ntags < k && j < b->nknobs; j++)
            add_pick(b, tags, ntags, k, base | 1ul << i | 1ul << j, nodes,
                     n);
}

/* ---- learning and critique ---- */

/* The riskiest knob of TAG (the later one among equals), or NULL. */
static const struct mc_knob *
riskiest(const struct mc_builtin *b, unsigned long tag)
{
    const struct mc_knob *k = NULL;
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if ((tag >> i & 1) && (!k || b->knob[i].risk >= k->risk))
            k = &b->knob[i];
    return k;
}

/* The line of a compiler's messages DETAIL to quote into *LEN bytes
 * at the pointer returned: the first that reports an error ("error:",
 * "error :"), whole; else the first that is no warning, note or "In
 * function" line; else the first. */
static const char *
error_line(const char *detail, int *len)
{
    const char *p, *first = NULL, *plain = NULL;

    for (p = detail; *p; p += strcspn(p, "\n"), p += *p == '\n') {
        size_t n = strcspn(p, "\n");
        char line[1024];

        if (!n)
            continue;
        snprintf(line, sizeof(line), "%.*s", (int)n, p);
        if (strstr(line, "error:") || strstr(line, "error :")) {
            *len = (int)n;
            return p;
        }
        if (!first)
            first = p;
        if (!plain && !strstr(line, "warning:") && !strstr(line, "note:") &&
            !strstr(line, ": In function") && !strstr(line, "In file "))
            plain = p;
    }
    p = plain ? plain : first ? first : detail;
    *len = (int)strcspn(p, "\n");
    return p;
}

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
    const struct mc_knob *k = riskiest(b, added);
    unsigned long x;

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
        int n;
        const char *e = error_line(detail, &n);

        b->banned |= added;
        /* The error first: a progress line shows the critique's start,
         * and a bundle's knob list can be long. */
        mc_buf_addf(out, "does not compile with this compiler (%.*s): %s; "
                         "never used again", n, e, what.s);
    } else if (!c->correct && (added & kind_bits(b, MC_KK_ISA)) &&
               (x = kind_bits(b, MC_KK_EXACT)) && !(c->tag & x) &&
               !(x & ~allowed(b))) {
        /* Most likely the target's fused multiply-add: blaming another
         * knob would drop one that its pair may show correct. */
        b->exact = 1;
        mc_buf_addf(out, "%s: %.120s; arch=%s without fp-contract=off "
                         "likely rounds a*b+c once (fused multiply-add) "
                         "where the original rounds twice: arch= goes "
                         "with fp-contract=off from now", what.s, detail,
                    b->arch);
    } else if (!c->correct) {
        /* Blame the riskiest new knob; the others may be fine. */
        if (k)
            b->blamed |= 1ul << (k - b->knob);
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
