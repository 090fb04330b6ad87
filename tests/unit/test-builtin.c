/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-builtin.c: the built-in proposer on host code: the model of the
 * code (functions, loops, their variables and strides, branches, nests),
 * and each knob family as it appears in the variant: file options
 * (no-math-errno, O3 unless the flags have it), per-loop pragmas and
 * per-function attributes on the hot ones, the profile's
 * __builtin_expect, hot/cold and unroll(T), loop interchange (the
 * variant compiles and prints what the original prints), restrict on a
 * hot function, and clang's loop pragmas. A compiler that rejects a
 * directive never sees it again: the probe leaves the knob out, is
 * remembered (a second set-up runs no probe), and a knob that failed to
 * compile in a search is never chosen again. General knobs that won in
 * this cache before come first. With isa=native and exact comparison,
 * arch= comes paired with fp-contract=off first. The cases run in a scratch
 * directory that is the current directory, with XDG_CACHE_HOME there.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cmodel.h"
#include "ctext.h"
#include "builtin.h"
#include "target.h"
#include "tap.h"
#include "testfs.h"

#include <sys/wait.h>

static char dir[] = "/tmp/mc-builtin-XXXXXX";

/* A matrix product in i-j-k order over variably sized arrays, a helper
 * with a biased branch, and a main that prints a checksum. */
static const char gemm[] =
    "#include <stdio.h>\n"                                       /* 1 */
    "#include <math.h>\n"                                        /* 2 */
    "static void\n"                                              /* 3 */
    "mm(int n, double (*c)[n], double (*a)[n], double (*b)[n])\n" /* 4 */
    "{\n"                                                        /* 5 */
    "    for (int i = 0; i < n; i++)\n"                          /* 6 */
    "        for (int j = 0; j < n; j++) {\n"                    /* 7 */
    "            c[i][j] *= 0.5;\n"                              /* 8 */
    "            for (int k = 0; k < n; k++)\n"                  /* 9 */
    "                c[i][j] += a[i][k] * b[k][j];\n"            /* 10 */
    "        }\n"                                                /* 11 */
    "}\n"                                                        /* 12 */
    "static double\n"                                            /* 13 */
    "norm(int n, double *x, double *y)\n"                        /* 14 */
    "{\n"                                                        /* 15 */
    "    double s = 0;\n"                                        /* 16 */
    "    for (int i = 0; i < n; i++) {\n"                        /* 17 */
    "        if (x[i] < -1e9)\n"                                 /* 18 */
    "            s -= 1;\n"                                      /* 19 */
    "        s += sqrt(x[i] * x[i] + y[i]);\n"                   /* 20 */
    "    }\n"                                                    /* 21 */
    "    return s;\n"                                            /* 22 */
    "}\n"                                                        /* 23 */
    "int\n"                                                      /* 24 */
    "main(void)\n"                                               /* 25 */
    "{\n"                                                        /* 26 */
    "    enum { N = 24 };\n"                                     /* 27 */
    "    static double a[N][N], b[N][N], c[N][N], x[N];\n"       /* 28 */
    "    for (int i = 0; i < N; i++)\n"                          /* 29 */
    "        for (int j = 0; j < N; j++) {\n"                    /* 30 */
    "            a[i][j] = i * 0.25 - j;\n"                      /* 31 */
    "            b[i][j] = j * 0.125 + i;\n"                     /* 32 */
    "            c[i][j] = i + j;\n"                             /* 33 */
    "        }\n"                                                /* 34 */
    "    mm(N, c, a, b);\n"                                      /* 35 */
    "    for (int i = 0; i < N; i++)\n"                          /* 36 */
    "        x[i] = c[i][i];\n"                                  /* 37 */
    "    printf(\"%.17g %.17g\\n\", c[3][5], norm(N, x, x));\n"  /* 38 */
    "    return 0;\n"                                            /* 39 */
    "}\n";                                                       /* 40 */

/* Set B up for TEXT as PATH with compiler CC and FLAGS (space-separated,
 * or ""), the options OPTS (N of them: "isa=native"; the native
 * architecture is then haswell), the profile COUNT (NCOUNT lines, or
 * NULL). */
static enum mc_code
setup_opts(struct mc_builtin *b, const char *path, const char *cc,
           const char *flags, char *const *opts, size_t n,
           const double *count, size_t ncount, const char *text)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    struct mc_conf c;
    enum mc_code rc;

    memset(b, 0, sizeof(*b));
    write_file(path, text);
    mc_conf_init(&c, NULL);
    rc = mc_target_parse(&t, path, opts, n, &c, &err);
    mc_conf_release(&c);
    if (!rc && !(t.compiler = mc_strdup(cc)))
        rc = MC_ENOMEM;
    if (!rc && n && !(t.native_arch = mc_strdup("haswell")))
        rc = MC_ENOMEM;
    if (!rc && *flags)
        rc = mc_shell_split(flags, &t.flags, &err);
    if (!rc)
        rc = mc_builtin_init(b, &t, text, strlen(text), count, ncount, &err);
    if (rc)
        printf("# %s: %s\n", path, err.msg);
    mc_target_release(&t);
    return rc;
}

static enum mc_code
setup(struct mc_builtin *b, const char *path, const char *cc,
      const char *flags, const double *count, size_t ncount,
      const char *text)
{
    return setup_opts(b, path, cc, flags, NULL, 0, count, ncount, text);
}

/* TEXT rendered by B with the knobs LABELS ('+'-separated) into OUT;
 * a label that is not in the table fails the test. */
static void
render(const struct mc_builtin *b, const char *labels, const char *text,
       struct mc_buf *out)
{
    unsigned long tag = 0;
    const char *p, *e;
    char one[64];

    for (p = labels; *p; p = *e ? e + 1 : e) {
        int k;
        e = p + strcspn(p, "+");
        snprintf(one, sizeof(one), "%.*s", (int)(e - p), p);
        k = mc_builtin_knob(b, one);
        if (!ok(k >= 0, one))
            continue;
        tag |= 1ul << k;
    }
    mc_buf_reset(out);
    if (mc_builtin_render(b, tag, text, strlen(text), out) || !out->s)
        mc_buf_adds(out, "(render failed)");
}

/* The output of TEXT built with `gcc -O2` and run, into OUT. */
static int
build_run(const char *name, const char *text, struct mc_buf *out)
{
    char cmd[256];
    FILE *p;
    int c;

    write_file(name, text);
    snprintf(cmd, sizeof(cmd), "gcc -O2 -o %s.exe %s -lm 2>&1 && ./%s.exe",
             name, name, name);
    mc_buf_reset(out);
    if (!(p = popen(cmd, "r")))
        return 0;
    while ((c = fgetc(p)) != EOF)
        mc_buf_addc(out, (char)c);
    return pclose(p) == 0 && out->s;
}

static void
test_builtin__model(void)
{
    struct mc_cmodel m;
    char *c = mc_ctext_blank(gemm, strlen(gemm));
    size_t pre, post;
    int block;

    if (!ok(c && !mc_cmodel_build(c, strlen(gemm), &m), "model built"))
        return;
    is_long(m.nfn, 3, "three functions");
    ok(m.nfn == 3 && !strncmp(gemm + m.fn[1].name, "norm", 4) &&
       m.fn[1].line == 13 && m.fn[1].end_line == 23,
       "norm from line 13 to 23");
    is_long(m.nloop, 7, "seven loops");
    ok(m.nloop == 7 && m.loop[2].line == 9 && m.loop[2].innermost &&
       !strcmp(m.loop[2].var, "k") && m.loop[2].parent == 1 &&
       m.loop[2].depth == 2, "k: the innermost of three, line 9");
    ok(m.nloop == 7 && m.loop[2].strided == 1 && m.loop[2].unit == 1 &&
       m.loop[2].pv_unit == 2 && m.loop[2].pv_strided == 0,
       "k strides down b's column; j would not");
    ok(m.nloop == 7 && m.loop[3].math == 1 && m.loop[3].fp,
       "norm's loop calls sqrt on doubles");
    ok(m.nbr == 1 && m.br[0].line == 18 && m.br[0].then_line == 19,
       "the branch on line 18, taken on line 19");
    ok(m.nloop == 7 &&
       mc_cmodel_nest(c, &m, 1, 2, &pre, &post, &block) && block &&
       pre < m.loop[2].kw && post == m.loop[1].end - 1,
       "j-k is a nest with a statement before the inner loop");
    ok(!mc_cmodel_nest(c, &m, 0, 1, &pre, &post, &block),
       "i-j is not (j is not innermost)");
    mc_cmodel_release(&m);
    mc_free(c);
}

static void
test_builtin__file_options(void)
{
    static const char errno_top[] =
        "#pragma GCC optimize (\"no-math-errno\")\n"
        "#ifndef __cplusplus\n"
        "double sqrt(double) __attribute__((__const__));\n"
        "#endif\n#line 1\n#include <stdio.h>\n";
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;

    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", NULL, 0, gemm), "setup"))
        return;
    ok(mc_builtin_knob(&b, "O3") >= 0, "O3 under -O2");
    render(&b, "no-math-errno", gemm, &r);
    ok(!strncmp(r.s, errno_top, strlen(errno_top)),
       "no-math-errno at the top, with sqrt declared const, then #line 1");
    render(&b, "O3+loop-nest-optimize", gemm, &r);
    contains(r.s, "#pragma GCC optimize (\"O3\", \"loop-nest-optimize\")\n",
             "GCC's polyhedral optimizer beside O3");
    mc_builtin_release(&b);
    if (!ok(!setup(&b, "hot.c", "gcc", "-O3 -g", NULL, 0, gemm), "setup"))
        return;
    ok(mc_builtin_knob(&b, "O3") < 0, "no O3 under -O3");
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

static void
test_builtin__loops_and_functions(void)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;

    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", NULL, 0, gemm), "setup"))
        return;
    render(&b, "unroll(8)@L9", gemm, &r);
    contains(r.s, "        c[i][j] *= 0.5;\n#pragma GCC unroll 8\n#line 9\n"
                  "            for (int k", "unroll(8) before line 9 only");
    is_long(tap_count(r.s, "#pragma GCC unroll"), 1, "and nowhere else");
    render(&b, "ivdep@L17", gemm, &r);
    contains(r.s, "#pragma GCC ivdep\n#line 17\n    for (int i",
             "ivdep before norm's loop");
    render(&b, "O3@mm+unroll-loops@mm", gemm, &r);
    contains(r.s, "<math.h>\n__attribute__((optimize(\"O3\", "
                  "\"unroll-loops\")))\n#line 3\nstatic void\nmm(",
             "optimize() on the hot function, before its declaration");
    is_long(tap_count(r.s, "__attribute__"), 1, "on it only");
    render(&b, "flatten@main", gemm, &r);
    contains(r.s, "__attribute__((flatten))\n#line 24\nint\nmain(",
             "flatten on a function that calls");
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

static void
test_builtin__profile(void)
{
    double cnt[41];
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(cnt); i++)
        cnt[i] = -1;
    cnt[6] = 25;                   /* mm runs once, n = 24 */
    cnt[7] = 24 * 25, cnt[8] = 576;
    cnt[9] = 576 * 25, cnt[10] = 576 * 24;
    cnt[16] = 80;                  /* norm runs 80 times */
    cnt[17] = 80 * 25, cnt[18] = 80 * 24, cnt[19] = 0, cnt[20] = 80 * 24;
    cnt[25] = 1, cnt[29] = 25, cnt[31] = 576;
    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", cnt, MC_ARRAY_SIZE(cnt),
                   gemm), "setup"))
        return;
    render(&b, "expect", gemm, &r);
    contains(r.s, "\n        if (__builtin_expect(!!(x[i] < -1e9), 0))\n"
                  "            s -= 1;\n",
             "__builtin_expect on the branch never taken");
    is_long(tap_count(r.s, "__builtin_expect"), 1, "there only");
    ok(!strstr(r.s, "#line"), "in the line: no #line needed");
    render(&b, "hot-cold", gemm, &r);
    contains(r.s, "__attribute__((hot))\n#line 3\nstatic void\nmm(",
             "hot: the function with most of the lines");
    ok(mc_builtin_knob(&b, "unroll(24)@L9") < 0,
       "no full unroll beyond 16 trips");
    render(&b, "restrict@norm", gemm, &r);
    contains(r.s, "norm(int n, double *__restrict x, double *__restrict y)",
             "restrict on a hot function's pointers");
    ok(mc_builtin_rewrites(&b, 1ul << mc_builtin_knob(&b, "restrict@norm")),
       "restrict is a rewrite (judged with the sanitizers)");
    mc_builtin_release(&b);
    cnt[9] = 576 * 7, cnt[10] = 576 * 6; /* k takes 6 trips */
    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", cnt, MC_ARRAY_SIZE(cnt),
                   gemm), "setup"))
        return;
    render(&b, "unroll(6)@L9", gemm, &r);
    contains(r.s, "#pragma GCC unroll 6\n#line 9\n",
             "unroll at the measured trip count");
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

static void
test_builtin__interchange(void)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT, want = MC_BUF_INIT, got = MC_BUF_INIT;
    char *text;

    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", NULL, 0, gemm), "setup"))
        return;
    render(&b, "interchange(j,k)@L7", gemm, &r);
    contains(r.s, "        { for (int j = 0; j < n; j++) {\n"
                  "            c[i][j] *= 0.5;\n"
                  "            } for (int k = 0; k < n; k++) for (int j = 0;"
                  " j < n; j++) {\n"
                  "                c[i][j] += a[i][k] * b[k][j];\n"
                  "        } }\n",
             "k outside j, the scaling in a j loop of its own");
    ok(mc_builtin_rewrites(&b, 1ul << mc_builtin_knob(&b,
                                                      "interchange(j,k)@L7")),
       "interchange is a rewrite");
    text = mc_strdup(r.s);
    ok(build_run("orig.c", gemm, &want) && build_run("ikj.c", text, &got) &&
       !strcmp(want.s, got.s), "it prints what the original prints");
    mc_free(text);
    mc_builtin_release(&b);
    mc_buf_release(&r);
    mc_buf_release(&want);
    mc_buf_release(&got);
}

static void
test_builtin__clang(void)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;

    if (!ok(!setup(&b, "hot.c", "clang", "-O2", NULL, 0, gemm),
            "setup (clang is installed)"))
        return;
    is_long(b.family, MC_CC_CLANG, "clang's family");
    ok(mc_builtin_knob(&b, "O3") < 0 && mc_builtin_knob(&b, "fast-math") < 0,
       "no GCC optimize pragmas");
    render(&b, "vectorize+ivdep", gemm, &r);
    contains(r.s, "#pragma clang loop vectorize(enable) interleave(enable)\n"
                  "#pragma clang loop vectorize(assume_safety)\n#line 9\n",
             "clang's loop pragmas");
    render(&b, "interchange(j,k)@L7", gemm, &r);
    contains(r.s, "for (int k = 0; k < n; k++) for (int j", "interchange");
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

/* A compiler that rejects loop-nest-optimize and logs each compile. */
static const char rejecting_cc[] =
    "#!/bin/sh\n"
    "echo \"$*\" >>cc.log\n"
    "for a; do case $a in *.c) ! grep -q loop-nest-optimize \"$a\" || "
    "exit 1;; esac; done\n"
    "exec gcc \"$@\"\n";

static void
test_builtin__rejected_never_retried(void)
{
    struct mc_builtin b;
    struct mc_prop_node nodes[2];
    unsigned long tags[64];
    size_t n, i, lines;
    struct mc_buf log = MC_BUF_INIT, crit = MC_BUF_INIT;
    int k, again = 0;
    FILE *f;

    write_file("rejecting-cc", rejecting_cc);
    chmod("rejecting-cc", 0755);
    if (!ok(!setup(&b, "hot.c", "./rejecting-cc", "-O2", NULL, 0, gemm),
            "setup"))
        return;
    ok(mc_builtin_knob(&b, "loop-nest-optimize") < 0 &&
       mc_builtin_knob(&b, "graphite-identity") >= 0,
       "a directive the compiler rejects is not in the table");
    f = fopen("cc.log", "r");
    for (int ch; f && (ch = fgetc(f)) != EOF;)
        mc_buf_addc(&log, (char)ch);
    if (f)
        fclose(f);
    lines = (size_t)tap_count(log.s, "-c -o /dev/null");
    ok(lines > 5, "the probe compiled each directive once");
    mc_builtin_release(&b);
    setup(&b, "hot.c", "./rejecting-cc", "-O2", NULL, 0, gemm);
    mc_buf_reset(&log);
    f = fopen("cc.log", "r");
    for (int ch; f && (ch = fgetc(f)) != EOF;)
        mc_buf_addc(&log, (char)ch);
    if (f)
        fclose(f);
    is_long(tap_count(log.s, "-c -o /dev/null"), (long)lines,
            "a second set-up probes nothing: the answers are remembered");
    ok(mc_builtin_knob(&b, "loop-nest-optimize") < 0, "still not in it");
    /* In a search: a knob that failed to compile is never chosen again. */
    k = mc_builtin_knob(&b, "unroll-loops");
    memset(nodes, 0, sizeof(nodes));
    nodes[0].parent = -1;
    nodes[0].tag = 1ul << k;
    nodes[0].evaluated = 1;
    nodes[0].compile_error = 1;
    mc_builtin_learn(&b, nodes, 0, "error: bad option", &crit);
    contains(crit.s, "never used again", "the critique says so");
    mc_builtin_choose(&b, nodes, 1, -1, MC_ARRAY_SIZE(tags), 0, tags, &n);
    for (i = 0; i < n; i++)
        again |= (tags[i] >> k & 1) != 0;
    ok(n > 10 && !again, "never chosen again");
    mc_builtin_release(&b);
    mc_buf_release(&log);
    mc_buf_release(&crit);
}

static void
test_builtin__past_wins_first(void)
{
    struct mc_builtin b;
    struct mc_buf w = MC_BUF_INIT;
    char path[256];
    int k;
    FILE *f;

    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", NULL, 0, gemm), "setup"))
        return;
    ok(mc_builtin_knob(&b, "unroll-loops") < mc_builtin_knob(&b, "ipa-pta"),
       "the table's own order at first");
    k = mc_builtin_knob(&b, "ipa-pta");
    snprintf(path, sizeof(path), "%s/maxcode", dir);
    mc_builtin_remember(&b, 1ul << k | 1ul << mc_builtin_knob(&b,
                                                   "unroll(8)@L9"), path);
    mc_builtin_remember(&b, 1ul << k, path);
    mc_builtin_release(&b);
    snprintf(path, sizeof(path), "%s/maxcode/builtin-wins", dir);
    for (f = fopen(path, "r"); f && (k = fgetc(f)) != EOF;)
        mc_buf_addc(&w, (char)k);
    if (f)
        fclose(f);
    ok(w.s && strstr(w.s, "ipa-pta 2\n") && strstr(w.s, "unroll(8)@loop 1\n"),
       "what won is counted by what it is, not where");
    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", NULL, 0, gemm), "setup"))
        return;
    ok(mc_builtin_knob(&b, "ipa-pta") < mc_builtin_knob(&b, "unroll-loops"),
       "a general knob that won before comes first");
    ok(mc_builtin_knob(&b, "interchange(j,k)@L7") == 0,
       "knobs the code calls for stay ahead");
    mc_builtin_release(&b);
    mc_buf_release(&w);
}

/* A value model's prior that favours knob set FAVOURED (and its parts
 * a little), everything else 0. */
static unsigned long favoured;
static int prior_calls;

static double
favour(void *arg, int parent, unsigned long tag)
{
    (void)arg;
    (void)parent;
    prior_calls++;
    return tag == favoured ? 4 : (tag & favoured) ? 1 : 0;
}

static void
test_builtin__value_orders_knobs(void)
{
    struct mc_builtin b;
    struct mc_prop_node nodes[1];
    unsigned long tags[4], seed0;
    size_t n;
    int k;

    if (!ok(!setup(&b, "hot.c", "gcc", "-O2", NULL, 0, gemm), "setup"))
        return;
    mc_builtin_choose(&b, nodes, 0, -1, 4, 0, tags, &n);
    seed0 = tags[0];
    ok(n == 4 && seed0 == b.seeds[0], "without a value model: seeds first");
    /* From the original: a single knob the model prefers goes first. */
    k = mc_builtin_knob(&b, "ipa-pta");
    favoured = 1ul << k;
    b.prior = favour;
    b.prior_arg = NULL;
    mc_builtin_choose(&b, nodes, 0, -1, 4, 0, tags, &n);
    ok(n == 4 && tags[0] == 1ul << k, "the model's favourite first");
    ok(prior_calls > (int)b.nknobs, "every seed and single knob is scored");
    /* From a judged parent: the one-knob step it prefers. */
    memset(nodes, 0, sizeof(nodes));
    nodes[0].parent = -1;
    nodes[0].tag = seed0;
    nodes[0].evaluated = nodes[0].correct = 1;
    nodes[0].speedup = nodes[0].reward = 1.5;
    nodes[0].value = -1;
    k = mc_builtin_knob(&b, "split-loops");
    if (ok(k >= 0 && !(seed0 >> k & 1), "split-loops is a step away")) {
        favoured = seed0 | 1ul << k;
        mc_builtin_choose(&b, nodes, 1, 0, 2, 0, tags, &n);
        ok(n == 2 && tags[0] == favoured, "the step the model prefers first");
    }
    mc_builtin_release(&b);
}

/* isa=native with outputs compared exactly: arch= paired with
 * fp-contract=off, the pair first; fp-contract=off never alone; arch=
 * alone judged wrong makes the pair the rule and blames no knob. With a
 * tolerance, no pair. A knob set avoided is not chosen. */
static void
test_builtin__exact_isa(void)
{
    static char *native[] = {"isa=native"};
    static char *loose[] = {"isa=native", "tolerance=1e-9"};
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT, crit = MC_BUF_INIT;
    struct mc_prop_node nodes[2];
    unsigned long tags[64], isa, x;
    size_t n, i, j;
    int bad = 0;

    if (!ok(!setup_opts(&b, "hot.c", "gcc", "-O2", native, 1, NULL, 0,
                        gemm), "setup"))
        return;
    isa = 1ul << mc_builtin_knob(&b, "arch=haswell");
    x = 1ul << mc_builtin_knob(&b, "fp-contract=off");
    ok(mc_builtin_knob(&b, "fp-contract=off") ==
           mc_builtin_knob(&b, "arch=haswell") + 1,
       "fp-contract=off right after arch=");
    for (j = 2; j + 1 < b.nseeds; j++)
        if (b.seeds[j] == (b.seeds[j + 1] | x) && !(b.seeds[j + 1] & x))
            break;
    ok(b.nseeds > 4 && b.seeds[0] == (b.seeds[1] | x) &&
           !(b.seeds[1] & x) && (b.seeds[1] & isa) && j + 1 < b.nseeds,
       "the bundle and plain O3 paired first, then alone");
    for (i = 0; i < b.nseeds; i++)
        if (i != 1 && i != j + 1)
            bad |= (b.seeds[i] & isa) && !(b.seeds[i] & x);
    ok(!bad, "the other seeds paired only");
    render(&b, "O3+arch=haswell+fp-contract=off", gemm, &r);
    contains(r.s, "#pragma GCC optimize (\"O3\", \"fp-contract=off\")\n"
                  "#pragma GCC target (\"arch=haswell\")\n",
             "the pair's text");
    memset(nodes, 0, sizeof(nodes));
    nodes[0].parent = -1;
    nodes[0].tag = 1ul << mc_builtin_knob(&b, "O3");
    nodes[0].evaluated = nodes[0].correct = 1;
    nodes[0].speedup = nodes[0].reward = 1.2;
    mc_builtin_choose(&b, nodes, 1, 0, MC_ARRAY_SIZE(tags), 0, tags, &n);
    for (i = 0, bad = 0; i < n; i++)
        bad |= (tags[i] & x) && !(tags[i] & isa);
    ok(n > 10 && !bad, "fp-contract=off never without arch=");
    /* arch= alone prints other digits. */
    nodes[1] = nodes[0];
    nodes[1].parent = -1;
    nodes[1].tag = b.seeds[1];
    nodes[1].correct = 0;
    nodes[1].speedup = 0;
    mc_builtin_learn(&b, nodes, 1, "expected '1', got '1.0000001'", &crit);
    contains(crit.s, "without fp-contract=off", "the critique says why");
    ok(!b.blamed && b.exact, "no knob blamed; the pair is the rule");
    mc_builtin_choose(&b, nodes, 2, -1, MC_ARRAY_SIZE(tags), 0, tags, &n);
    for (i = 0, bad = 0; i < n; i++)
        bad |= (tags[i] & isa) && !(tags[i] & x);
    ok(n > 10 && !bad && tags[0] == b.seeds[0],
       "from then on, arch= only with fp-contract=off");
    ok(!mc_builtin_avoid(&b, b.seeds[0]), "avoid");
    mc_builtin_choose(&b, nodes, 2, -1, 1, 0, tags, &n);
    ok(n == 1 && tags[0] != b.seeds[0], "an avoided knob set is not chosen");
    mc_builtin_release(&b);
    if (ok(!setup_opts(&b, "hot.c", "gcc", "-O2", loose, 2, NULL, 0, gemm),
           "setup"))
        ok(mc_builtin_knob(&b, "arch=haswell") >= 0 &&
               mc_builtin_knob(&b, "fp-contract=off") < 0,
           "with a tolerance, arch= alone");
    mc_builtin_release(&b);
    mc_buf_release(&r);
    mc_buf_release(&crit);
}

/* A product in i-k-j order with isa=native: the first round (four
 * seeds) holds a blocking seed, paired with the arch pair, as it does
 * without isa; the plain O3 seeds come after it. */
static void
test_builtin__block_seed_with_isa(void)
{
    static const char ikj[] =
        "void\n"
        "mm(int n, double *c, const double *a, const double *b)\n"
        "{\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int k = 0; k < n; k++)\n"
        "            for (int j = 0; j < n; j++)\n"
        "                c[i * n + j] += a[i * n + k] * b[k * n + j];\n"
        "}\n";
    static char *native[] = {"isa=native"};
    struct mc_builtin b;
    unsigned long x, blocks = 0;
    size_t i, first = 0;

    if (!ok(!setup_opts(&b, "ikj.c", "gcc", "-O2", native, 1, NULL, 0, ikj),
            "setup"))
        return;
    x = 1ul << mc_builtin_knob(&b, "fp-contract=off");
    for (i = 0; i < b.nknobs; i++)
        if (b.knob[i].kind == MC_KK_BLOCK)
            blocks |= 1ul << i;
    for (i = 0; i < 4 && i < b.nseeds; i++)
        if ((b.seeds[i] & blocks) && (b.seeds[i] & x))
            first++;
    ok(blocks && first == 1, "a blocking seed, paired, in the first four");
    mc_builtin_release(&b);
}

/* Whether GCC at -O2 reports a loop of FILE vectorized at a place that
 * holds AT (":LINE:"). */
static int
vectorized(const char *file, const char *at)
{
    struct mc_buf out = MC_BUF_INIT;
    char cmd[256];
    FILE *p;
    int c, yes;

    snprintf(cmd, sizeof(cmd),
             "gcc -O2 -fopt-info-vec-optimized -c -o /dev/null %s 2>&1", file);
    if (!(p = popen(cmd, "r")))
        return 0;
    while ((c = fgetc(p)) != EOF)
        mc_buf_addc(&out, (char)c);
    yes = pclose(p) == 0 && out.s && strstr(out.s, at) &&
          strstr(strstr(out.s, at), "loop vectorized");
    mc_buf_release(&out);
    return yes;
}

/* A loop that calls sqrt and writes through pointers that may alias
 * what it reads: errno and aliasing each keep it scalar, so the seed
 * with restrict carries no-math-errno too. */
static void
test_builtin__restrict_seed_with_errno(void)
{
    static const char pull[] =
        "#include <math.h>\n"
        "void\n"
        "pull(int n, const double *x, const double *m, double *a)\n"
        "{\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) {\n"
        "            double d = x[i] - x[j] + 1e-4;\n"
        "            a[j] += m[i] / (d * sqrt(d * d));\n"
        "        }\n"
        "}\n";
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    unsigned long e, rs;
    size_t i;

    if (!ok(!setup_opts(&b, "pull.c", "gcc", "-O2", NULL, 0, NULL, 0, pull),
            "setup"))
        return;
    e = mc_builtin_bit(&b, "no-math-errno");
    rs = mc_builtin_bit(&b, "restrict@pull");
    for (i = 0; i < b.nseeds && (b.seeds[i] & (e | rs)) != (e | rs); i++)
        ;
    ok(e && rs && i < 4, "restrict and no-math-errno together in the first "
                        "four seeds");
    render(&b, "O3+no-math-errno+restrict@pull", pull, &r);
    contains(r.s, "#ifndef __cplusplus\n"
                  "double sqrt(double) __attribute__((__const__));\n"
                  "#endif\n",
             "sqrt declared const: the pragma alone leaves it setting errno");
    write_file("pull-errno.c", r.s);
    ok(vectorized("pull-errno.c", ":6:"), "so the j loop vectorizes");
    render(&b, "O3+restrict@pull", pull, &r);
    write_file("pull-plain.c", r.s);
    ok(!vectorized("pull-plain.c", ":6:"), "and without it, it does not");
    mc_buf_release(&r);
    mc_builtin_release(&b);
}

/* Unroll-and-jam (cjam.h): a row of sums, a column of sums, a symmetric
 * update with a triangular bound and a product in i-k-j order, each
 * jammed 4 and 2 times, with the remainders (sizes 0 to 9, none a
 * multiple of 4 but 0 and 8) printing the original's bits; nests where
 * two outer iterations may update one element at different inner
 * iterations, or the reading is unsure, are offered nothing. */
static const char jam[] =
    "#include <stdio.h>\n"                                       /* 1 */
    "void\n"                                                     /* 2 */
    "sums(int m, int n, double (*a)[9], const double *x, double *t, "
    "double *y)\n"                                               /* 3 */
    "{\n"                                                        /* 4 */
    "    for (int i = 0; i < m; i++) {\n"                        /* 5 */
    "        double s = 0.0; /* row i */\n"                      /* 6 */
    "        for (int j = 0; j < n; j++)\n"                      /* 7 */
    "            s += a[i][j] * x[j];\n"                         /* 8 */
    "        t[i] = s;\n"                                        /* 9 */
    "    }\n"                                                    /* 10 */
    "    for (int j = 0; j < n; j++) {\n"                        /* 11 */
    "        double s = 0.0;\n"                                  /* 12 */
    "        for (int i = 0; i < m; i++)\n"                      /* 13 */
    "            s += a[i][j] * t[i];\n"                         /* 14 */
    "        y[j] = s;\n"                                        /* 15 */
    "    }\n"                                                    /* 16 */
    "}\n"                                                        /* 17 */
    "void\n"                                                     /* 18 */
    "syrk(int n, int m, double *c, const double *a)\n"           /* 19 */
    "{\n"                                                        /* 20 */
    "    for (int i = 0; i < n; i++)\n"                          /* 21 */
    "        for (int j = 0; j <= i; j++) {\n"                   /* 22 */
    "            c[i * n + j] *= 0.75;\n"                        /* 23 */
    "            for (int k = 0; k < m; k++)\n"                  /* 24 */
    "                c[i * n + j] += a[i * m + k] * a[j * m + k];\n"
    "        }\n"                                                /* 26 */
    "}\n"                                                        /* 27 */
    "void\n"                                                     /* 28 */
    "mm(int n, float *c, const float *a, const float *b)\n"      /* 29 */
    "{\n"                                                        /* 30 */
    "    for (int i = 0; i < n; i++)\n"                          /* 31 */
    "        for (int k = 0; k < n; k++) {\n"                    /* 32 */
    "            float aik = a[i * n + k];\n"                    /* 33 */
    "            for (int j = 0; j < n; j++)\n"                  /* 34 */
    "                c[i * n + j] += aik * b[k * n + j];\n"      /* 35 */
    "        }\n"                                                /* 36 */
    "}\n"                                                        /* 37 */
    "double\n"                                                   /* 38 */
    "total(int n, const double *a)\n"                            /* 39 */
    "{\n"                                                        /* 40 */
    "    double s = 0;\n"                                        /* 41 */
    "    for (int i = 0; i < n; i++)\n"                          /* 42 */
    "        for (int j = 0; j < n; j++)\n"                      /* 43 */
    "            s += a[i * n + j];\n"                           /* 44 */
    "    return s;\n"                                            /* 45 */
    "}\n"                                                        /* 46 */
    "void\n"                                                     /* 47 */
    "conv(int n, double *c, const double *a, const double *b)\n" /* 48 */
    "{\n"                                                        /* 49 */
    "    for (int i = 0; i < n; i++)\n"                          /* 50 */
    "        for (int j = 0; j < n; j++)\n"                      /* 51 */
    "            c[i + j] += a[i] * b[j];\n"                     /* 52 */
    "}\n"                                                        /* 53 */
    "void\n"                                                     /* 54 */
    "shift(int n, double *x, const double *y)\n"                 /* 55 */
    "{\n"                                                        /* 56 */
    "    for (int i = 0; i < n; i++)\n"                          /* 57 */
    "        for (int j = 0; j < n - 1; j++)\n"                  /* 58 */
    "            x[j] += x[j + 1] * y[i];\n"                     /* 59 */
    "}\n"                                                        /* 60 */
    "void\n"                                                     /* 61 */
    "tri(int n, double *x, const double *y)\n"                   /* 62 */
    "{\n"                                                        /* 63 */
    "    for (int i = 0; i < n; i++)\n"                          /* 64 */
    "        for (int j = 0; j < i; j++)\n"                      /* 65 */
    "            x[i * n + j] += y[j];\n"                        /* 66 */
    "}\n"                                                        /* 67 */
    "int\n"                                                      /* 68 */
    "main(void)\n"                                               /* 69 */
    "{\n"                                                        /* 70 */
    "    static double a[9][9], x[9], t[9], y[9], c[81], d[81];\n"
    "    static float fa[81], fb[81], fc[81];\n"                 /* 72 */
    "    double sum = 0;\n"                                      /* 73 */
    "    for (int i = 0; i < 81; i++) {\n"                       /* 74 */
    "        a[i / 9][i % 9] = (i * 7 % 11) / 3.0 - 1.1;\n"      /* 75 */
    "        d[i] = (i % 13) / 9.0 - 0.7;\n"                     /* 76 */
    "        fa[i] = (i % 17) / 5.0f - 1.3f;\n"                  /* 77 */
    "        fb[i] = (i % 19) / 7.0f - 0.9f;\n"                  /* 78 */
    "    }\n"                                                    /* 79 */
    "    for (int n = 0; n <= 9; n++) {\n"                       /* 80 */
    "        for (int i = 0; i < 81; i++)\n"                     /* 81 */
    "            c[i] = i % 5 / 3.0, fc[i] = 0;\n"               /* 82 */
    "        for (int j = 0; j < 9; j++)\n"                      /* 83 */
    "            x[j] = j / 7.0 + 0.3 * n, y[j] = t[j] = 0;\n"   /* 84 */
    "        sums(n, 9 - n / 2, a, x, t, y);\n"                  /* 85 */
    "        syrk(n, 9, c, d);\n"                                /* 86 */
    "        mm(n, fc, fa, fb);\n"                               /* 87 */
    "        for (int i = 0; i < 81; i++)\n"                     /* 88 */
    "            sum += c[i] * (i % 7) + fc[i] * (i % 3) + "
    "(i < 9 ? y[i] + t[i] : 0);\n"                               /* 89 */
    "        printf(\"%d %a\\n\", n, sum);\n"                    /* 90 */
    "    }\n"                                                    /* 91 */
    "    return 0;\n"                                            /* 92 */
    "}\n";                                                       /* 93 */

static void
test_builtin__jam(void)
{
    static const char *const unsure[] = {
        "jam4(i)@L42", /* a sum over both loops in one scalar */
        "jam4(i)@L50", /* c[i + j]: two iterations of i, one element */
        "jam4(i)@L57", /* x[j] and x[j + 1]: read, then written by i + 1 */
        "jam4(i)@L64", /* the inner bound names i */
    };
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT, want = MC_BUF_INIT, got = MC_BUF_INIT;
    unsigned long jams = 0;
    size_t i;
    char *text;

    if (!ok(!setup(&b, "jam.c", "gcc", "-O2", NULL, 0, jam), "setup"))
        return;
    render(&b, "jam4(j)@L11", jam, &r);
    contains(r.s, "    { int j = 0; for (; (long long)j + 3 < (n); j += 4) {"
                  " double mc_uj0_s = 0.0; double mc_uj1_s = 0.0;"
                  " double mc_uj2_s = 0.0; double mc_uj3_s = 0.0;"
                  " for (int i = 0; i < m; i++) {"
                  " mc_uj0_s += a[i][j] * t[i];"
                  " mc_uj1_s += a[i][(j + 1)] * t[i];"
                  " mc_uj2_s += a[i][(j + 2)] * t[i];"
                  " mc_uj3_s += a[i][(j + 3)] * t[i]; }"
                  " y[j] = mc_uj0_s; y[(j + 1)] = mc_uj1_s;"
                  " y[(j + 2)] = mc_uj2_s; y[(j + 3)] = mc_uj3_s; }"
                  " for (; j < n; j++) {\n"
                  "        double s = 0.0;\n"
                  "        for (int i = 0; i < m; i++)\n"
                  "            s += a[i][j] * t[i];\n"
                  "        y[j] = s;\n"
                  "    } }\n}\n",
             "four columns' sums apart in one run of i, the rest as it was");
    contains(r.s, "double *__restrict t, double *__restrict y)",
             "restrict: a and t may alias y");
    ok(mc_builtin_rewrites(&b, 1ul << mc_builtin_knob(&b, "jam4(j)@L11")),
       "unroll-and-jam is a rewrite");
    ok(b.knob[mc_builtin_knob(&b, "jam4(j)@L11")].group ==
           b.knob[mc_builtin_knob(&b, "jam2(j)@L11")].group,
       "4 and 2 copies of one nest exclude each other");
    for (i = 0; i < b.nknobs; i++)
        if (b.knob[i].kind == MC_KK_JAM && b.knob[i].n == 4)
            jams |= 1ul << i;
    for (i = 0; i < b.nseeds && (b.seeds[i] & jams) != jams; i++)
        ;
    ok(jams && i < b.nseeds, "one seed jams every nest that takes it");
    render(&b, "jam4(k)@L32+unroll(8)@L34", jam, &r);
    contains(r.s, " _Pragma(\"GCC unroll 8\") for (int j = 0; j < n; j++) {"
                  " c[i * n + j] += mc_uj0_aik * b[k * n + j];",
             "a loop pragma goes before the copied inner loop too");
    contains(r.s, "#pragma GCC unroll 8\n#line 34\n",
             "and before the original, which runs the rest");
    for (i = 0; i < MC_ARRAY_SIZE(unsure); i++)
        ok(mc_builtin_knob(&b, unsure[i]) < 0, unsure[i]);
    ok(build_run("jam-orig.c", jam, &want), "the original runs");
    render(&b, "jam4(i)@L5+jam4(j)@L11+jam4(j)@L22+jam4(k)@L32+unroll(8)@L34",
           jam, &r);
    text = mc_strdup(r.s);
    ok(build_run("jam4.c", text, &got) && !strcmp(want.s, got.s),
       "jammed 4 times, it prints the original's bits (and GCC warns of "
       "no pragma it ignored)");
    mc_free(text);
    render(&b, "jam2(i)@L5+jam2(j)@L11+jam2(j)@L22+jam2(k)@L32", jam, &r);
    text = mc_strdup(r.s);
    ok(build_run("jam2.c", text, &got) && !strcmp(want.s, got.s),
       "jammed 2 times, too");
    mc_free(text);
    mc_builtin_release(&b);
    mc_buf_release(&r);
    mc_buf_release(&want);
    mc_buf_release(&got);
}

/* A sweep and its copy-back fused with a lag (cfuse.h): a Jacobi
 * stencil (rows y - 1 to y + 1 read: lag 1) inside a time loop, and a
 * nest in '{' blocks that reads two rows back (lag 2), each printing the
 * original's bits for grids of 3 to 8 by 2 to 8 and 0 to 2 steps (a
 * sweep that runs zero times, or leaves fewer rows than the lag); a
 * read that reaches back past the row's start into a row already copied,
 * and a sweep that reads what it writes, are offered nothing. */
static const char fuse[] =
    "#include <stdio.h>\n"                                   /* 1 */
    "void\n"                                                 /* 2 */
    "sweep(int w, int h, int steps, float *u, float *v)\n"   /* 3 */
    "{\n"                                                    /* 4 */
    "    for (int s = 0; s < steps; s++) {\n"                /* 5 */
    "        for (int y = 1; y < h - 1; y++)\n"              /* 6 */
    "            for (int x = 1; x < w - 1; x++)\n"          /* 7 */
    "                v[y * w + x] = 0.2f * (u[y * w + x] +\n"    /* 8 */
    "                    u[y * w + x - 1] +\n"                  /* 9 */
    "                    u[y * w + x + 1] + u[(y - 1) * w + x] +\n"
    "                    u[(y + 1) * w + x]);\n"                /* 11 */
    "        for (int y = 1; y < h - 1; y++)\n"              /* 12 */
    "            for (int x = 1; x < w - 1; x++)\n"          /* 13 */
    "                u[y * w + x] = v[y * w + x];\n"         /* 14 */
    "    }\n"                                                /* 15 */
    "}\n"                                                    /* 16 */
    "void\n"                                                 /* 17 */
    "deep(int w, int h, int *a, int *b)\n"                   /* 18 */
    "{\n"                                                    /* 19 */
    "    for (int y = 2; y < h - 2; y++) {\n"                /* 20 */
    "        for (int x = 0; x < w; x++)\n"                  /* 21 */
    "            b[y * w + x] = a[(y - 2) * w + x] + a[(y + 2) * w + x];\n"
    "    }\n"                                                /* 23 */
    "    for (int y = 2; y < h - 2; y++) {\n"                /* 24 */
    "        for (int x = 0; x < w; x++)\n"                  /* 25 */
    "            a[y * w + x] = b[y * w + x];\n"             /* 26 */
    "    }\n"                                                /* 27 */
    "}\n"                                                    /* 28 */
    "void\n"                                                 /* 29 */
    "reach(int w, int h, int *a, int *b)\n"                  /* 30 */
    "{\n"                                                    /* 31 */
    "    for (int y = 2; y < h; y++)\n"                      /* 32 */
    "        for (int x = 1; x < w; x++)\n"                  /* 33 */
    "            b[y * w + x] = a[(y - 1) * w + x - 2];\n"   /* 34 */
    "    for (int y = 2; y < h; y++)\n"                      /* 35 */
    "        for (int x = 1; x < w; x++)\n"                  /* 36 */
    "            a[y * w + x] = b[y * w + x];\n"             /* 37 */
    "}\n"                                                    /* 38 */
    "void\n"                                                 /* 39 */
    "self(int w, int h, int *a, int *b)\n"                   /* 40 */
    "{\n"                                                    /* 41 */
    "    for (int y = 1; y < h; y++)\n"                      /* 42 */
    "        for (int x = 1; x < w; x++)\n"                  /* 43 */
    "            b[y * w + x] = a[y * w + x] + b[y * w + x - 1];\n"
    "    for (int y = 1; y < h; y++)\n"                      /* 45 */
    "        for (int x = 1; x < w; x++)\n"                  /* 46 */
    "            a[y * w + x] = b[y * w + x];\n"             /* 47 */
    "}\n"                                                    /* 48 */
    "int\n"                                                  /* 49 */
    "main(void)\n"                                           /* 50 */
    "{\n"                                                    /* 51 */
    "    static float u[100], v[100];\n"                     /* 52 */
    "    static int a[100], b[100];\n"                       /* 53 */
    "    double sum = 0;\n"                                  /* 54 */
    "    for (int w = 3; w <= 8; w++)\n"                     /* 55 */
    "        for (int h = 2; h <= 8; h++)\n"                 /* 56 */
    "            for (int st = 0; st <= 2; st++) {\n"        /* 57 */
    "                for (int i = 0; i < 100; i++) {\n"      /* 58 */
    "                    u[i] = v[i] = (i * 7 % 11) / 3.0f;\n"
    "                    a[i] = i * 5 % 13;\n"               /* 60 */
    "                    b[i] = i % 3;\n"                    /* 61 */
    "                }\n"                                    /* 62 */
    "                sweep(w, h, st, u, v);\n"               /* 63 */
    "                deep(w, h, a, b);\n"                    /* 64 */
    "                reach(w, h, a, b);\n"                   /* 65 */
    "                self(w, h, a, b);\n"                    /* 66 */
    "                for (int i = 0; i < 100; i++)\n"        /* 67 */
    "                    sum += u[i] * (i % 7) + a[i] * (i % 5) + b[i];\n"
    "            }\n"                                        /* 69 */
    "    printf(\"%a\\n\", sum);\n"                          /* 70 */
    "    return 0;\n"                                        /* 71 */
    "}\n";                                                   /* 72 */

static void
test_builtin__fuse(void)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT, want = MC_BUF_INIT, got = MC_BUF_INIT;
    size_t i;
    char *text;

    if (!ok(!setup(&b, "fuse.c", "gcc", "-O2", NULL, 0, fuse), "setup"))
        return;
    render(&b, "fuse(y)@L6", fuse, &r);
    contains(r.s, "        for (int y = 1; y < h - 1; y++) {\n",
             "the sweep's body gets a block");
    contains(r.s, "u[(y + 1) * w + x]); if ((long long)y - 1 >= (1)) "
                  "for (int x = 1; x < w - 1; x++) "
                  "u[(y - 1) * w + x] = v[(y - 1) * w + x]; }\n",
             "row y - 1 copied once row y is computed, on the sweep's last "
             "line");
    contains(r.s, "        for (int y = (int)((long long)(h - 1) - 1 > (1) ? "
                  "(long long)(h - 1) - 1 : (1)); y < h - 1; y++)\n",
             "the copy nest copies the last row only");
    contains(r.s, "float *__restrict u, float *__restrict v)",
             "restrict: u and v may overlap");
    render(&b, "fuse(y)@L20", fuse, &r);
    contains(r.s, "a[(y + 2) * w + x]; if ((long long)y - 2 >= (2)) "
                  "for (int x = 0; x < w; x++) "
                  "a[(y - 2) * w + x] = b[(y - 2) * w + x];\n",
             "two rows back: lag 2, in the block there was");
    ok(mc_builtin_knob(&b, "fuse(y)@L32") < 0,
       "a read two columns back reaches a row already copied: nothing");
    ok(mc_builtin_knob(&b, "fuse(y)@L42") < 0,
       "a sweep that reads what it writes: nothing");
    i = (size_t)mc_builtin_knob(&b, "fuse(y)@L6");
    ok(mc_builtin_rewrites(&b, 1ul << i) && b.knob[i].risk == 2,
       "fusion is a rewrite, blamed first");
    for (i = 0; i < b.nseeds && !(b.seeds[i] & 1ul << mc_builtin_knob(
                                      &b, "fuse(y)@L6"));
         i++)
        ;
    ok(i < 4, "a seed among the first four fuses the first sweep");
    i = (size_t)mc_builtin_knob(&b, "fuse(y)@L20");
    ok(mc_builtin_knob(&b, "block128(y,x)@L25") >= 0 &&
           b.knob[mc_builtin_knob(&b, "block128(y,x)@L25")].group ==
               b.knob[i].group &&
           b.knob[mc_builtin_knob(&b, "block128(y,x)@L21")].group ==
               b.knob[i].group,
       "the blocking of either nest excludes the fusion: both change "
       "their headers");
    ok(build_run("fuse-orig.c", fuse, &want), "the original runs");
    render(&b, "fuse(y)@L6+fuse(y)@L20+unroll(8)@L7", fuse, &r);
    text = mc_strdup(r.s);
    ok(build_run("fuse1.c", text, &got) && !strcmp(want.s, got.s),
       "fused, it prints the original's bits");
    mc_free(text);
    mc_builtin_release(&b);
    mc_buf_release(&r);
    mc_buf_release(&want);
    mc_buf_release(&got);
}

/* The user's #pragma before a loop (omp for: its iterations run in
 * parallel) keeps the rewrites off that loop: an interchange would give
 * the pragma another loop, unroll-and-jam and blocking another header,
 * and a fusion would copy rows that another thread still reads. The same
 * text with a blank line for the pragma gets them. */
static void
test_builtin__user_pragma(void)
{
    static const char with[] =
        "void\n"
        "colsum(int n, double *c, const double *a)\n"
        "{\n"
        "#pragma omp parallel for\n"
        "    for (int j = 0; j < n; j++)\n"
        "        for (int k = 0; k < n; k++)\n"
        "            c[j] += a[k * n + j];\n"
        "}\n"
        "void\n"
        "relax(int w, int h, int *a, int *b)\n"
        "{\n"
        "#pragma omp parallel for\n"
        "\n"
        "    for (int y = 1; y < h; y++) /* after a blank line */\n"
        "        for (int x = 1; x < w; x++)\n"
        "            b[y * w + x] = a[y * w + x] + a[(y - 1) * w + x];\n"
        "    for (int y = 1; y < h; y++)\n"
        "        for (int x = 1; x < w; x++)\n"
        "            a[y * w + x] = b[y * w + x];\n"
        "}\n";
    static const char *const labels[] = {"interchange(j,k)@L5", "jam4(j)@L5",
                                         "fuse(y)@L14"};
    char *without = mc_strdup(with), *p, msg[64];
    struct mc_builtin b;
    size_t i;

    while ((p = strstr(without, "#pragma omp parallel for")) != NULL)
        memset(p, ' ', strlen("#pragma omp parallel for"));
    if (!ok(!setup(&b, "par.c", "gcc", "-O2", NULL, 0, without), "setup"))
        goto out;
    for (i = 0; i < MC_ARRAY_SIZE(labels); i++)
        ok(mc_builtin_knob(&b, labels[i]) >= 0, labels[i]);
    mc_builtin_release(&b);
    if (!ok(!setup(&b, "par.c", "gcc", "-O2", NULL, 0, with), "setup"))
        goto out;
    for (i = 0; i < MC_ARRAY_SIZE(labels); i++) {
        snprintf(msg, sizeof(msg), "with omp for, no %s", labels[i]);
        ok(mc_builtin_knob(&b, labels[i]) < 0, msg);
    }
    mc_builtin_release(&b);
out:
    mc_free(without);
}

int
main(void)
{
    char cmd[64];

    if (!mkdtemp(dir) || chdir(dir) || setenv("XDG_CACHE_HOME", dir, 1)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    TAP_RUN(test_builtin__model);
    TAP_RUN(test_builtin__file_options);
    TAP_RUN(test_builtin__loops_and_functions);
    TAP_RUN(test_builtin__profile);
    TAP_RUN(test_builtin__interchange);
    TAP_RUN(test_builtin__clang);
    TAP_RUN(test_builtin__rejected_never_retried);
    TAP_RUN(test_builtin__past_wins_first);
    TAP_RUN(test_builtin__value_orders_knobs);
    TAP_RUN(test_builtin__exact_isa);
    TAP_RUN(test_builtin__block_seed_with_isa);
    TAP_RUN(test_builtin__restrict_seed_with_errno);
    TAP_RUN(test_builtin__jam);
    TAP_RUN(test_builtin__fuse);
    TAP_RUN(test_builtin__user_pragma);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# cannot remove %s\n", dir);
    return tap_done();
}
