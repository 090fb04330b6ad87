/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-placement.c: where the built-in proposer puts its directives. A
 * per-loop pragma goes only on the line of a `for` that starts a
 * statement, a function attribute only before a definition's first
 * line, neither inside a macro, a multi-line condition or a
 * preprocessor conditional that the directive's line does not wholly
 * belong to; after an interchange, the inner loop's pragmas sit right
 * before the loop they are for. The cases check the model's lines and
 * what it is unsure of on a corpus of real-code shapes, and render
 * every knob offered there; tests/t0111-directive-placement.sh compiles
 * each. A critique of a candidate that did not compile quotes the
 * compiler's first error line, whole, not a warning before it. restrict
 * goes only on pointers to object types the text shows (not on a
 * pointer to a function typedef, as zopfli's cost model). Scalar
 * replacement reads an element once before its loop and writes it once
 * after, guarded for zero trips, with restrict where only that rules out
 * aliasing; not where the loop writes the array elsewhere. Blocking
 * strip-mines a matrix product in i-k-j order on k and j, not where it
 * could reorder one element's sum or the reading is unsure.
 *
 * With arguments it is the tool that test uses:
 *
 *   test-placement --all FILE CC [FLAG...]
 *
 * sets the built-in proposer up for FILE (a profile made up from the
 * code: every other function never ran, every branch rarely taken, so
 * that hot, cold and expect are offered too), then renders each knob
 * alone, each seed, and each interchange, scalar replacement or
 * blocking with each loop knob (and restrict), and
 * compiles every candidate with `CC -fsyntax-only FLAG...` next to
 * FILE. A line per candidate that fails ("FAIL LABEL: the first error
 * line"), then "candidates N failed M"; exit status 1 when one failed,
 * 2 when the set-up or the original failed.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cmodel.h"
#include "ctext.h"
#include "builtin.h"
#include "file.h"
#include "strv.h"
#include "target.h"
#include "tap.h"
#include "testfs.h"

#include <sys/wait.h>

static char dir[] = "/tmp/mc-placement-XXXXXX";

/* Real-code shapes: a multi-line macro and a do-while(0) one before
 * everything (their lines once shifted every line after them), macros
 * that expand to loops, conditionals around functions, loops and a
 * function's return type, K&R-style line breaks, attributes, a
 * multi-line condition, if without braces, labels, switch in a loop,
 * loops of one statement, a multi-line header, and a nest to
 * interchange with a statement before its inner loop. */
static const char corpus[] =
    "#include <stddef.h>\n"                                         /* 1 */
    "#define CLEAR(p, n) \\\n"                                      /* 2 */
    "    do { \\\n"                                                 /* 3 */
    "        size_t k_; \\\n"                                       /* 4 */
    "        for (k_ = 0; k_ < (n); k_++) \\\n"                     /* 5 */
    "            (p)[k_] = 0; \\\n"                                 /* 6 */
    "    } while (0)\n"                                             /* 7 */
    "#define SWAP(a, b) do { int t_ = (a); (a) = (b); (b) = t_; } "
    "while (0)\n"                                                   /* 8 */
    "#define FOR_EACH(i, n) for ((i) = 0; (i) < (n); (i)++)\n"      /* 9 */
    "#ifdef __GNUC__\n"                                             /* 10 */
    "#  define NOINLINE __attribute__((noinline))\n"                /* 11 */
    "#else\n"                                                       /* 12 */
    "#  define NOINLINE\n"                                          /* 13 */
    "#endif\n"                                                      /* 14 */
    "static int\n"                                                  /* 15 */
    "sum_if(const int *a, size_t n, int lo,\n"                      /* 16 */
    "       int hi)\n"                                              /* 17 */
    "{\n"                                                           /* 18 */
    "    int s = 0;\n"                                              /* 19 */
    "    size_t i;\n"                                               /* 20 */
    "    for (i = 0; i < n; i++)\n"                                 /* 21 */
    "        if (a[i] > lo &&\n"                                    /* 22 */
    "            a[i] < hi)\n"                                      /* 23 */
    "            s += a[i];\n"                                      /* 24 */
    "    return s;\n"                                               /* 25 */
    "}\n"                                                           /* 26 */
    "#if defined(USE_FAST)\n"                                       /* 27 */
    "static long fast(const long *a, size_t n) {\n"                 /* 28 */
    "    long s = 0;\n"                                             /* 29 */
    "    for (size_t i = 0; i < n; i++) s += a[i];\n"               /* 30 */
    "    return s;\n"                                               /* 31 */
    "}\n"                                                           /* 32 */
    "#else\n"                                                       /* 33 */
    "static long fast(const long *a, size_t n)\n"                   /* 34 */
    "{\n"                                                           /* 35 */
    "    long s = 0;\n"                                             /* 36 */
    "    size_t i;\n"                                               /* 37 */
    "#  ifdef UNROLLED\n"                                           /* 38 */
    "    for (i = 0; i + 1 < n; i += 2) {\n"                        /* 39 */
    "        s += a[i + 1];\n"                                      /* 40 */
    "#  else\n"                                                     /* 41 */
    "    for (i = 0; i < n; i++) {\n"                               /* 42 */
    "#  endif\n"                                                    /* 43 */
    "        s += a[i];\n"                                          /* 44 */
    "    }\n"                                                       /* 45 */
    "    return s;\n"                                               /* 46 */
    "}\n"                                                           /* 47 */
    "#endif\n"                                                      /* 48 */
    "NOINLINE static void\n"                                        /* 49 */
    "scale(double *x, const double *y, size_t n, double f)\n"       /* 50 */
    "{\n"                                                           /* 51 */
    "    size_t i;\n"                                               /* 52 */
    "    FOR_EACH(i, n) x[i] = y[i] * f;\n"                         /* 53 */
    "    for (i = 0;\n"                                             /* 54 */
    "         i < n;\n"                                             /* 55 */
    "         i++)\n"                                               /* 56 */
    "        x[i] += y[i];\n"                                       /* 57 */
    "}\n"                                                           /* 58 */
    "static int\n"                                                  /* 59 */
    "#ifdef WIDE\n"                                                 /* 60 */
    "wide_or_narrow(long *a, int n)\n"                              /* 61 */
    "#else\n"                                                       /* 62 */
    "wide_or_narrow(int *a, int n)\n"                               /* 63 */
    "#endif\n"                                                      /* 64 */
    "{\n"                                                           /* 65 */
    "    int j;\n"                                                  /* 66 */
    "    for (j = 0; j < n; j++) a[j] = j;\n"                       /* 67 */
    "    return n;\n"                                               /* 68 */
    "}\n"                                                           /* 69 */
    "static int\n"                                                  /* 70 */
    "labels(int *a, int n)\n"                                       /* 71 */
    "{\n"                                                           /* 72 */
    "    int i = 0, j;\n"                                           /* 73 */
    "again:\n"                                                      /* 74 */
    "    for (j = 0; j < n; j++)\n"                                 /* 75 */
    "        a[j] += j;\n"                                          /* 76 */
    "    if (++i < 3)\n"                                            /* 77 */
    "        goto again;\n"                                         /* 78 */
    "    for (j = 0; j < n; j++) {\n"                               /* 79 */
    "        switch (a[j] & 3) {\n"                                 /* 80 */
    "        case 0: a[j]++; break;\n"                              /* 81 */
    "        case 1:\n"                                             /* 82 */
    "            for (i = 0; i < 4; i++)\n"                         /* 83 */
    "                a[j] ^= i;\n"                                  /* 84 */
    "            break;\n"                                          /* 85 */
    "        default: break;\n"                                     /* 86 */
    "        }\n"                                                   /* 87 */
    "    }\n"                                                       /* 88 */
    "    while (n > 0 &&\n"                                         /* 89 */
    "           a[n - 1] == 0)\n"                                   /* 90 */
    "        n--;\n"                                                /* 91 */
    "    do {\n"                                                    /* 92 */
    "        n--;\n"                                                /* 93 */
    "    } while (n > 0);\n"                                        /* 94 */
    "    if (n)\n"                                                  /* 95 */
    "        for (j = 0; j < 4; j++) a[j] = 0;\n"                   /* 96 */
    "    else\n"                                                    /* 97 */
    "        for (j = 0; j < 4; j++) a[j] = 1;\n"                   /* 98 */
    "    return n;\n"                                               /* 99 */
    "}\n"                                                           /* 100 */
    "static void clear_swap(int *a, int n)\n"                       /* 101 */
    "{\n"                                                           /* 102 */
    "    int x = 1, y = 2;\n"                                       /* 103 */
    "    CLEAR(a, (size_t)n);\n"                                    /* 104 */
    "    SWAP(x, y);\n"                                             /* 105 */
    "    if (n > 2)\n"                                              /* 106 */
    "        SWAP(a[0], a[1]);\n"                                   /* 107 */
    "    a[0] += x - y;\n"                                          /* 108 */
    "}\n"                                                           /* 109 */
    "void\n"                                                        /* 110 */
    "mm(int n, double (*c)[n], double (*a)[n], double (*b)[n])\n"   /* 111 */
    "{\n"                                                           /* 112 */
    "    for (int i = 0; i < n; i++)\n"                             /* 113 */
    "        for (int j = 0; j < n; j++) {\n"                       /* 114 */
    "            c[i][j] *= 0.5;\n"                                 /* 115 */
    "            for (int k = 0; k < n; k++)\n"                     /* 116 */
    "                c[i][j] += a[i][k] * b[k][j];\n"               /* 117 */
    "        }\n"                                                   /* 118 */
    "}\n"                                                           /* 119 */
    "int\n"                                                         /* 120 */
    "main(void)\n"                                                  /* 121 */
    "{\n"                                                           /* 122 */
    "    static int v[64];\n"                                       /* 123 */
    "    static long w[64];\n"                                      /* 124 */
    "    static double d[64], e[8][8], f[8][8], g[8][8];\n"         /* 125 */
    "    clear_swap(v, 64);\n"                                      /* 126 */
    "    scale(d, d, 64, 0.5);\n"                                   /* 127 */
    "    mm(8, e, f, g);\n"                                         /* 128 */
    "    return sum_if(v, 64, 0, 9) + (int)fast(w, 64) +\n"         /* 129 */
    "           labels(v, 64) + wide_or_narrow(v, 64);\n"           /* 130 */
    "}\n";                                                          /* 131 */

/* The line of offset OFF in TEXT (1-based). */
static size_t
line_in(const char *text, size_t off)
{
    size_t i, n = 1;

    for (i = 0; i < off && text[i]; i++)
        n += text[i] == '\n';
    return n;
}

/* Set B up for TEXT as PATH with compiler CC and FLAGS, with the
 * made-up profile (see the top) unless PROFILE is 0. */
static enum mc_code
setup(struct mc_builtin *b, const char *path, const char *cc,
      const struct mc_strv *flags, const char *text, size_t len,
      int profile)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    struct mc_conf c;
    struct mc_cmodel m = MC_CMODEL_INIT;
    double *count = NULL;
    size_t ncount = 0, f, l;
    char *blank = NULL;
    enum mc_code rc;

    memset(b, 0, sizeof(*b));
    if (profile) {
        blank = mc_ctext_blank(text, len);
        if (!blank || mc_cmodel_build(blank, len, &m))
            return MC_ENOMEM;
        ncount = m.nlines + 1;
        if (!(count = mc_calloc(ncount, sizeof(*count))))
            return MC_ENOMEM;
        for (l = 1; l < ncount; l++)
            count[l] = 1000;
        for (f = 1; f < m.nfn; f += 2)
            for (l = m.fn[f].line; l <= m.fn[f].end_line && l < ncount; l++)
                count[l] = 0;
        for (l = 0; l < m.nbr; l++)
            if (m.br[l].then_line && m.br[l].then_line < ncount &&
                count[m.br[l].line] > 0)
                count[m.br[l].then_line] = 1;
        mc_cmodel_release(&m);
        mc_free(blank);
    }
    mc_conf_init(&c, NULL);
    rc = mc_target_parse(&t, path, NULL, 0, &c, &err);
    mc_conf_release(&c);
    if (!rc && !(t.compiler = mc_strdup(cc)))
        rc = MC_ENOMEM;
    for (l = 0; !rc && flags && l < flags->n; l++)
        rc = mc_strv_push(&t.flags, flags->v[l]);
    if (!rc)
        rc = mc_builtin_init(b, &t, text, len, count, ncount, &err);
    if (rc)
        printf("# %s: %s\n", path, err.msg);
    mc_target_release(&t);
    mc_free(count);
    return rc;
}

/* The knob sets to try on B: each knob alone, each seed, and each
 * rewrite of a loop's header (interchange, scalar replacement, blocking,
 * unroll-and-jam, fusion) with each loop knob, all but interchange with
 * each restrict knob, into TAGS (at most MAX); returns how many. */
static size_t
knob_sets(const struct mc_builtin *b, unsigned long *tags, size_t max)
{
    size_t i, j, n = 0;

    for (i = 0; i < b->nknobs && n < max; i++)
        tags[n++] = 1ul << i;
    for (i = 0; i < b->nseeds && n < max; i++)
        tags[n++] = b->seeds[i];
    for (i = 0; i < b->nknobs; i++)
        for (j = 0; (b->knob[i].kind == MC_KK_INTERCHANGE ||
                     b->knob[i].kind == MC_KK_SCALAR ||
                     b->knob[i].kind == MC_KK_BLOCK ||
                     b->knob[i].kind == MC_KK_JAM ||
                     b->knob[i].kind == MC_KK_FUSE) &&
                    j < b->nknobs && n < max;
             j++)
            if (b->knob[j].kind == MC_KK_LOOP ||
                (b->knob[i].kind != MC_KK_INTERCHANGE &&
                 b->knob[j].kind == MC_KK_RESTRICT))
                tags[n++] = 1ul << i | 1ul << j;
    return n;
}

/* The first line of DIAG that reports an error, else its first line,
 * into OUT. */
static void
first_error(const char *diag, struct mc_buf *out)
{
    const char *p, *e = strstr(diag, "error");

    p = e ? e : diag;
    while (p > diag && p[-1] != '\n')
        p--;
    mc_buf_add(out, p, strcspn(p, "\n"));
}

/* Whether DIAG (a compiler's messages) says that a directive went where
 * it does nothing. */
static int
misplaced_warning(const char *diag)
{
    return strstr(diag, "attribute ignored") ||
           strstr(diag, "attribute directive ignored") ||
           strstr(diag, "ignoring #pragma") ||
           strstr(diag, "ignoring '#pragma");
}

/* CMD run by the shell; its output (both streams) into OUT; its exit
 * status. */
static int
run(const char *cmd, struct mc_buf *out)
{
    struct mc_buf full = MC_BUF_INIT;
    FILE *p;
    int c, st;

    mc_buf_reset(out);
    mc_buf_addf(&full, "%s 2>&1", cmd);
    if (mc_buf_status(&full) || !(p = popen(full.s, "r"))) {
        mc_buf_release(&full);
        return -1;
    }
    while ((c = fgetc(p)) != EOF)
        mc_buf_addc(out, (char)c);
    st = pclose(p);
    mc_buf_release(&full);
    if (!out->s)
        mc_buf_adds(out, "");
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `--all FILE CC FLAG...` (see the top). */
static int
render_all(int argc, char **argv)
{
    const char *path = argv[2], *cc = argv[3], *slash = strrchr(path, '/');
    struct mc_strv flags = MC_STRV_INIT;
    struct mc_buf text = MC_BUF_INIT, out = MC_BUF_INIT, cmd = MC_BUF_INIT;
    struct mc_buf var = MC_BUF_INIT, diag = MC_BUF_INIT, lab = MC_BUF_INIT;
    struct mc_builtin b;
    unsigned long tags[MC_KNOBS_MAX * 4];
    size_t n, i, failed = 0;
    int i_arg, base_misplaced;

    for (i_arg = 4; i_arg < argc; i_arg++)
        mc_strv_push(&flags, argv[i_arg]);
    if (mc_file_read(path, &text, NULL) || !text.s) {
        printf("cannot read %s\n", path);
        return 2;
    }
    if (setup(&b, path, cc, &flags, text.s, text.len, 1)) {
        printf("cannot set the proposer up for %s\n", path);
        return 2;
    }
    mc_buf_addf(&var, "%.*smcplace-%s", slash ? (int)(slash - path + 1) : 0,
                path, slash ? slash + 1 : path);
    mc_shell_quote(&cmd, cc);
    mc_buf_adds(&cmd, " -fsyntax-only");
    for (i = 0; i < flags.n; i++) {
        mc_buf_addc(&cmd, ' ');
        mc_shell_quote(&cmd, flags.v[i]);
    }
    mc_buf_addc(&cmd, ' ');
    mc_shell_quote(&cmd, var.s);
    if (mc_buf_status(&cmd) || mc_buf_status(&var))
        return 2;
    if (mc_file_write_atomic(var.s, text.s, text.len, NULL) ||
        run(cmd.s, &diag)) {
        printf("the original does not compile: %s\n", diag.s);
        unlink(var.s);
        return 2;
    }
    base_misplaced = misplaced_warning(diag.s);
    for (i = 0; getenv("MC_PLACEMENT_VERBOSE") && i < b.m->nfn; i++)
        printf("# function %.*s line %zu%s\n", (int)b.m->fn[i].name_len,
               text.s + b.m->fn[i].name, b.m->fn[i].line,
               b.m->fn[i].placeable ? "" : " (no attribute)");
    for (i = 0; getenv("MC_PLACEMENT_VERBOSE") && i < b.m->nloop; i++)
        printf("# loop line %zu%s%s\n", b.m->loop[i].line,
               b.m->loop[i].innermost ? " innermost" : "",
               b.m->loop[i].placeable ? "" : " (no pragma)");
    n = knob_sets(&b, tags, MC_ARRAY_SIZE(tags));
    for (i = 0; i < n; i++) {
        int rc;

        mc_buf_reset(&out);
        mc_buf_reset(&lab);
        mc_builtin_label(&b, tags[i], &lab);
        if (mc_builtin_render(&b, tags[i], text.s, text.len, &out) ||
            mc_file_write_atomic(var.s, out.s, out.len, NULL)) {
            printf("FAIL %s: cannot render\n", lab.s);
            failed++;
            continue;
        }
        rc = run(cmd.s, &diag);
        if (rc || (!base_misplaced && misplaced_warning(diag.s))) {
            struct mc_buf e = MC_BUF_INIT;
            first_error(rc ? diag.s : strstr(diag.s, "ignor"), &e);
            printf("FAIL %s: %s\n", lab.s, e.s ? e.s : "");
            mc_buf_release(&e);
            failed++;
        } else if (getenv("MC_PLACEMENT_VERBOSE")) {
            printf("ok %s\n", lab.s);
        }
    }
    printf("knobs %zu candidates %zu failed %zu\n", b.nknobs, n, failed);
    unlink(var.s);
    mc_builtin_release(&b);
    mc_strv_release(&flags);
    mc_buf_release(&text);
    mc_buf_release(&out);
    mc_buf_release(&cmd);
    mc_buf_release(&var);
    mc_buf_release(&diag);
    mc_buf_release(&lab);
    return failed ? 1 : 0;
}

/* ---- the cases ---- */

/* The loop of M whose keyword is on LINE of TEXT, or NULL. */
static const struct mc_cloop *
loop_on(const struct mc_cmodel *m, const char *text, size_t line)
{
    size_t i;

    for (i = 0; i < m->nloop; i++)
        if (line_in(text, m->loop[i].kw) == line)
            return &m->loop[i];
    return NULL;
}

/* Where the statement that starts at the first '@' of TEXT ends, as
 * mc_ctext_skip_statement() says, against the '#' that marks its end
 * (the offset just past the statement). */
static void
statement_end(const char *text, const char *name)
{
    const char *at = strchr(text, '@'), *want = strchr(text, '#');
    char *c = mc_strdup(text);
    size_t got;

    c[at - text] = ' ';
    c[want - text] = ' ';
    got = mc_ctext_skip_statement(c, strlen(c), (size_t)(at - text));
    is_long((long)got, (long)(want - text), name);
    mc_free(c);
}

/* A loop's body without braces ends where its statement does, also when
 * that statement holds blocks: an if with an else, nested loops, a
 * do-while, a switch. */
static void
test_placement__statement_ends(void)
{
    statement_end("for (;;) @x = f(a, b);# y = 1;", "an expression");
    statement_end("@{ a; { b; } }# c;", "a block");
    statement_end("@if (a) { x = 1; }# y = 2;", "an if with a block");
    statement_end("@if (a) { x = 1; } else { y = 2; }# z = 3;",
                  "an if with an else block");
    statement_end("@if (a) x = 1; else if (b) { y; } else z = (int){0};#"
                  " w;",
                  "else if, and a compound literal");
    statement_end("@for (i = 0; i < n; i++) for (j = 0; j < n; j++) "
                  "{ s += a[j]; }# t = s;",
                  "a loop whose body is a loop with a block");
    statement_end("@while (k) { k--; }# k = 3;", "a while");
    statement_end("@do { k--; } while (k > 0);# k = 3;", "a do-while");
    statement_end("@do k--; while (k);# k = 3;", "a do-while, no block");
    statement_end("@switch (k) { case 1: x; break; }# y;", "a switch");
    statement_end("@if (a) { x; }#\n  elsewhere = 1; q;",
                  "a name that starts with else is no else");
    statement_end("@iffy = 2;# q;", "a name that starts with if");
}

static void
test_placement__lines_after_a_macro(void)
{
    size_t len = strlen(corpus), i;
    char *c = mc_ctext_blank(corpus, len);
    struct mc_cmodel m;
    int same = 1;

    if (!ok(c && !mc_cmodel_build(c, len, &m), "model built"))
        return;
    for (i = 0; i < len; i++)
        same &= (corpus[i] == '\n') == (c[i] == '\n');
    ok(same, "the blanked text keeps every newline, a macro's too");
    for (i = 0; i < m.nloop; i++)
        if (m.loop[i].line != line_in(corpus, m.loop[i].kw))
            break;
    ok(i == m.nloop, "every loop's line is the line of its keyword");
    for (i = 0; i < m.nfn; i++)
        if (m.fn[i].line != line_in(corpus, m.fn[i].start))
            break;
    ok(i == m.nfn, "every function's line is the line of its start");
    mc_cmodel_release(&m);
    mc_free(c);
}

static void
test_placement__unsure_not_offered(void)
{
    size_t len = strlen(corpus), i;
    struct mc_builtin b;
    const struct mc_cmodel *m;
    const struct mc_cloop *l;

    write_file("shapes.c", corpus);
    if (!ok(!setup(&b, "shapes.c", "gcc", NULL, corpus, len, 1), "setup"))
        return;
    m = b.m;
    ok((l = loop_on(m, corpus, 21)) && l->placeable,
       "a loop whose body is an if: placeable");
    ok((l = loop_on(m, corpus, 30)) && l->placeable,
       "a loop in the first branch of a conditional: placeable");
    ok(!loop_on(m, corpus, 39) && !loop_on(m, corpus, 42),
       "the #else branch is not read, nor what it holds");
    ok((l = loop_on(m, corpus, 54)) && l->placeable,
       "a header over three lines: placeable");
    ok((l = loop_on(m, corpus, 75)) && l->placeable,
       "a loop after a label: placeable");
    ok((l = loop_on(m, corpus, 83)) && l->placeable,
       "a loop after a case label: placeable");
    ok((l = loop_on(m, corpus, 96)) && l->placeable &&
       (l = loop_on(m, corpus, 98)) && l->placeable,
       "loops under if and else without braces: placeable");
    ok(!loop_on(m, corpus, 5) && !loop_on(m, corpus, 53),
       "no loop inside a macro or from one");
    for (i = 0; i < m->nfn; i++) {
        size_t name = line_in(corpus, m->fn[i].name);
        if (name == 63 || name == 61)
            ok(!m->fn[i].placeable,
               "a function whose header spans a conditional: no "
               "attribute");
        if (name == 16)
            ok(m->fn[i].placeable && m->fn[i].line == 15,
               "K&R-style lines: the attribute before the return type");
        if (name == 50)
            ok(m->fn[i].placeable && m->fn[i].line == 49,
               "before a macro of attributes");
    }
    for (i = 0; i < b.nknobs; i++)
        if (b.knob[i].kind == MC_KK_FNOPT || b.knob[i].kind == MC_KK_FNATTR)
            ok(m->fn[b.knob[i].where].placeable, b.knob[i].label);
    mc_builtin_release(&b);
}

static void
test_placement__interchanged_inner_loop(void)
{
    size_t len = strlen(corpus), i;
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    int x, u = -1;

    write_file("shapes.c", corpus);
    if (!ok(!setup(&b, "shapes.c", "gcc", NULL, corpus, len, 0), "setup"))
        return;
    x = mc_builtin_knob(&b, "interchange(j,k)@L114");
    if (!ok(x >= 0, "the j-k nest interchanges"))
        goto out;
    for (i = 0; i < b.nknobs; i++)
        if (b.knob[i].kind == MC_KK_LOOP && b.knob[i].where < 0 &&
            b.knob[i].n == 8)
            u = (int)i;
    if (!ok(u >= 0, "unroll(8) on every loop is offered"))
        goto out;
    mc_buf_reset(&r);
    if (!ok(!mc_builtin_render(&b, 1ul << x | 1ul << u, corpus, len, &r) &&
                r.s,
            "rendered"))
        goto out;
    contains(r.s, "            } for (int k = 0; k < n; k++)\n"
                  "#pragma GCC unroll 8\n#line 116\n"
                  "for (int j = 0; j < n; j++) {\n",
             "the pragma right before the loop that is now inner");
    ok(!strstr(r.s, "#pragma GCC unroll 8\n#line 116\n            }"),
       "not before the line that closes the first copy");
out:
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

static void
test_placement__critique_quotes_the_error(void)
{
    static const char detail[] =
        "shapes.c: In function 'labels':\n"
        "shapes.c:70:1: warning: 'cold' attribute ignored [-Wattributes]\n"
        "shapes.c:75:5: error: for, while or do statement expected before "
        "'size_t', which is what a pragma placed before a declaration "
        "gets from GCC\n"
        "shapes.c:76:5: error: a second error\n";
    struct mc_builtin b;
    struct mc_prop_node node;
    struct mc_buf out = MC_BUF_INIT;

    write_file("shapes.c", corpus);
    if (!ok(!setup(&b, "shapes.c", "gcc", NULL, corpus, strlen(corpus), 0),
            "setup"))
        return;
    memset(&node, 0, sizeof(node));
    node.parent = -1;
    node.tag = 1;
    node.evaluated = 1;
    node.compile_error = 1;
    mc_builtin_learn(&b, &node, 0, detail, &out);
    contains(out.s ? out.s : "", "does not compile with this compiler "
             "(shapes.c:75:5: error: for, while or do "
             "statement expected before 'size_t', which is what a pragma "
             "placed before a declaration gets from GCC): ",
             "the first error line, whole, first");
    contains(out.s ? out.s : "", "; never used again", "then the knobs");
    ok(out.s && !strstr(out.s, "warning") && !strchr(out.s, '\n'),
       "no warning, one line");
    mc_builtin_release(&b);
    mc_buf_release(&out);
}

/* Whether the parameter PARAM, found in TEXT, is a pointer to an object
 * type for the model. */
static int
object_pointer(const char *text, const char *param)
{
    size_t len = strlen(text);
    char *c = mc_ctext_blank(text, len);
    const char *p = strstr(text, param);
    int r;

    if (!c || !p)
        return -1;
    r = mc_cmodel_object_pointer(c, len, (size_t)(p - text),
                                 (size_t)(p - text) + strlen(param));
    mc_free(c);
    return r;
}

static void
test_placement__restrict_object_pointers(void)
{
    static const char types[] =
        "#include <stdint.h>\n"
        "typedef double CostFun(unsigned litlen, void *context);\n"
        "typedef CostFun CostAlias;\n"
        "typedef int (*Cmp)(const void *, const void *);\n"
        "typedef struct Block { int n; } Block, *BlockP;\n"
        "typedef unsigned short u16;\n"
        "typedef u16 word;\n"
        "/* typedef int Hdr; in a comment */\n"
        "double f(Block *s, const unsigned char *in, CostFun *costmodel,\n"
        "         void *ctx, word *w, CostAlias *alias, Cmp *cmps,\n"
        "         Hdr *h, struct node *next, const uint8_t *const *ins,\n"
        "         Hdr **hp, int (*g)(int *), char *(*h2)(void),\n"
        "         float *v[4], BlockP *bp, const double *x);\n";
    static const struct {
        const char *param;
        int want;
        const char *why;
    } cases[] = {
        {"Block *s", 1, "a typedef of a struct"},
        {"const unsigned char *in", 1, "type keywords"},
        {"CostFun *costmodel", 0, "a typedef of a function type (zopfli)"},
        {"void *ctx", 1, "void"},
        {"word *w", 1, "a typedef of a typedef of unsigned short"},
        {"CostAlias *alias", 0, "a typedef of a function typedef"},
        {"Cmp *cmps", 0, "a typedef with parentheses: unsure"},
        {"Hdr *h", 0, "a type the text does not show (a comment)"},
        {"struct node *next", 1, "a struct tag"},
        {"const uint8_t *const *ins", 1, "a pointer to a pointer"},
        {"Hdr **hp", 1, "a pointer to a pointer of any type"},
        {"int (*g)(int *)", 0, "a function pointer"},
        {"char *(*h2)(void)", 0, "a function pointer returning a pointer"},
        {"float *v[4]", 1, "an array of pointers"},
        {"BlockP *bp", 1, "a typedef of a pointer"},
        {"const double *x", 1, "the last parameter"},
    };
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(cases); i++)
        ok(object_pointer(types, cases[i].param) == cases[i].want,
           cases[i].why);
}

/* The knob labelled LABEL of B rendered alone on TEXT into R; 0 when
 * there is no such knob or it does not render. */
static int
render_knob(const struct mc_builtin *b, const char *label, const char *text,
            struct mc_buf *r)
{
    int k = mc_builtin_knob(b, label);

    mc_buf_reset(r);
    return k >= 0 && !mc_builtin_render(b, 1ul << k, text, strlen(text), r) &&
           r->s;
}

static void
test_placement__scalar_replacement(void)
{
    static const char text[] =
        "void\n"                                                    /* 1 */
        "mv(int n, int m, double *c, double (*a)[64], const double *b)\n"
        "{\n"                                                       /* 3 */
        "    for (int i = 0; i < n; i++)\n"                         /* 4 */
        "        for (int j = 0; j < m; j++)\n"                     /* 5 */
        "            c[i] += a[i][j] * b[j];\n"                     /* 6 */
        "}\n"                                                       /* 7 */
        "double\n"                                                  /* 8 */
        "dot(int n, const double *a, const double *w)\n"            /* 9 */
        "{\n"                                                       /* 10 */
        "    double s = 0;\n"                                       /* 11 */
        "    for (int i = 0; i < n; i++)\n"                         /* 12 */
        "        for (int j = 0; j < n; j++)\n"                     /* 13 */
        "            s += a[j] * w[i];\n"                           /* 14 */
        "    return s;\n"                                           /* 15 */
        "}\n"                                                       /* 16 */
        "void\n"                                                    /* 17 */
        "fwd(int n, double *x)\n"                                   /* 18 */
        "{\n"                                                       /* 19 */
        "    for (int i = 0; i < n; i++)\n"                         /* 20 */
        "        for (int j = 0; j < i; j++)\n"                     /* 21 */
        "            x[i] -= x[j];\n"                               /* 22 */
        "}\n"                                                       /* 23 */
        "#define STEP 2\n"                                          /* 24 */
        "void\n"                                                    /* 25 */
        "macro(int n, double *x, const double *y)\n"                /* 26 */
        "{\n"                                                       /* 27 */
        "    for (int i = 0; i < n; i++)\n"                         /* 28 */
        "        for (int j = 0; j < n; j++)\n"                     /* 29 */
        "            x[j] += y[i] * STEP;\n"                        /* 30 */
        "}\n"                                                       /* 31 */
        "void\n"                                                    /* 32 */
        "cond(int n, double *x, const double *y)\n"                 /* 33 */
        "{\n"                                                       /* 34 */
        "    for (int i = 0; i < n; i++)\n"                         /* 35 */
        "        for (int j = 0; j < n; j++)\n"                     /* 36 */
        "            if (y[j] > 0) x[i] += y[j];\n"                 /* 37 */
        "}\n"                                                       /* 38 */
        "void\n"                                                    /* 39 */
        "store(int n, double *x, const double *y)\n"                /* 40 */
        "{\n"                                                       /* 41 */
        "    for (int i = 0; i < n; i++)\n"                         /* 42 */
        "        for (int j = 0; j < n; j++)\n"                     /* 43 */
        "            x[i] = y[j];\n"                                /* 44 */
        "}\n"                                                       /* 45 */
        "void\n"                                                    /* 46 */
        "means(int m, int n, const double *d, double *mean)\n"      /* 47 */
        "{\n"                                                       /* 48 */
        "    for (int j = 0; j < n; j++)\n"                         /* 49 */
        "        for (int i = 0; i < m; i++)\n"                     /* 50 */
        "            mean[j] += d[i * n + j];\n"                    /* 51 */
        "}\n";                                                      /* 52 */
    static const struct {
        const char *line, *why;
    } unsure[] = {
        {"L21", "not where the loop writes the array at another subscript"},
        {"L29", "not where a name may be a macro"},
        {"L36", "not where an element may be touched in some iterations "
                "only"},
        {"L43", "not for an element the loop only stores to"},
    };
    char label[64];
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    size_t i;
    int k, u = -1;

    write_file("sr.c", text);
    if (!ok(!setup(&b, "sr.c", "gcc", NULL, text, strlen(text), 0),
            "setup"))
        return;
    if (ok(render_knob(&b, "scalar-restrict@L5", text, &r),
           "c[i] is offered with restrict: a and b may alias it"))
        contains(r.s, "mv(int n, int m, double *__restrict c, "
                      "double (*a)[64], const double *__restrict b)\n{\n"
                      "    for (int i = 0; i < n; i++)\n"
                      "        { int j = 0; if (j < m) { "
                      "__typeof__(c[i]) mc_sr_c = c[i]; "
                      "for (; j < m; j++)\n"
                      "            mc_sr_c += a[i][j] * b[j]; "
                      "c[i] = mc_sr_c; } }\n}\n",
                 "read before the loop, written after, both guarded");
    if (ok(render_knob(&b, "scalar@L13", text, &r),
           "w[i] is offered alone: the loop writes only a local"))
        contains(r.s, "dot(int n, const double *a, const double *w)\n"
                      "{\n    double s = 0;\n"
                      "    for (int i = 0; i < n; i++)\n"
                      "        { int j = 0; if (j < n) { "
                      "__typeof__(w[i]) mc_sr_w = w[i]; "
                      "for (; j < n; j++)\n"
                      "            s += a[j] * mc_sr_w; } }\n",
                 "read once, never written back");
    for (i = 0; i < b.nknobs; i++)
        if (b.knob[i].kind == MC_KK_LOOP && b.knob[i].where < 0 &&
            b.knob[i].n == 8)
            u = (int)i;
    k = mc_builtin_knob(&b, "scalar@L13");
    mc_buf_reset(&r);
    if (ok(u >= 0 && k >= 0 &&
               !mc_builtin_render(&b, 1ul << k | 1ul << u, text,
                                  strlen(text), &r) && r.s,
           "with unroll(8), rendered"))
        contains(r.s, "mc_sr_w = w[i]; \n#pragma GCC unroll 8\n#line 13\n"
                      "for (; j < n; j++)\n",
                 "the pragma right before the loop's keyword");
    k = mc_builtin_knob(&b, "scalar-restrict@L50");
    u = mc_builtin_knob(&b, "interchange(j,i)@L49");
    ok(k >= 0 && u >= 0 && b.knob[k].group &&
           b.knob[k].group == b.knob[u].group,
       "one loop's interchange and scalar replacement exclude each other");
    for (i = 0; i < MC_ARRAY_SIZE(unsure); i++) {
        snprintf(label, sizeof(label), "scalar@%s", unsure[i].line);
        k = mc_builtin_knob(&b, label);
        snprintf(label, sizeof(label), "scalar-restrict@%s", unsure[i].line);
        ok(k < 0 && mc_builtin_knob(&b, label) < 0, unsure[i].why);
    }
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

/* Whether B offers blocking for the nest whose innermost loop is on
 * LINE of TEXT. */
static int
blocked(const struct mc_builtin *b, const char *text, size_t line)
{
    const struct mc_cloop *l = loop_on(b->m, text, line);
    size_t i;

    for (i = 0; l && i < b->nknobs; i++)
        if (b->knob[i].kind == MC_KK_BLOCK &&
            &b->m->loop[b->knob[i].where] == l)
            return 1;
    return 0;
}

static void
test_placement__blocking(void)
{
    static const char text[] =
        "double\n"                                                  /* 1 */
        "dot(int n, const double *a)\n"                             /* 2 */
        "{\n"                                                       /* 3 */
        "    double s = 0;\n"                                       /* 4 */
        "    for (int i = 0; i < n; i++)\n"                         /* 5 */
        "        for (int j = 0; j < n; j++)\n"                     /* 6 */
        "            s += a[i * n + j];\n"                          /* 7 */
        "    return s;\n"                                           /* 8 */
        "}\n"                                                       /* 9 */
        "void\n"                                                    /* 10 */
        "sum3(int n, double *y, const double *a)\n"                 /* 11 */
        "{\n"                                                       /* 12 */
        "    for (int i = 0; i < n; i++)\n"                         /* 13 */
        "        for (int j = 0; j < n; j++)\n"                     /* 14 */
        "            for (int k = 0; k < n; k++)\n"                 /* 15 */
        "                y[i] += a[(i * n + j) * n + k];\n"         /* 16 */
        "}\n"                                                       /* 17 */
        "void\n"                                                    /* 18 */
        "conv(int n, double *c, const double *a, const double *b)\n"
        "{\n"                                                       /* 20 */
        "    for (int i = 0; i < n; i++)\n"                         /* 21 */
        "        for (int j = 0; j < n; j++)\n"                     /* 22 */
        "            c[i + j] += a[i] * b[j];\n"                    /* 23 */
        "}\n"                                                       /* 24 */
        "void\n"                                                    /* 25 */
        "tri(int n, double *x, const double *y)\n"                  /* 26 */
        "{\n"                                                       /* 27 */
        "    for (int i = 0; i < n; i++)\n"                         /* 28 */
        "        for (int j = 0; j < i; j++)\n"                     /* 29 */
        "            x[i * n + j] = y[j * n + i];\n"                /* 30 */
        "}\n"                                                       /* 31 */
        "void\n"                                                    /* 32 */
        "pre(int n, double *x, const double *y)\n"                  /* 33 */
        "{\n"                                                       /* 34 */
        "    for (int i = 0; i < n; i++) {\n"                       /* 35 */
        "        x[i] = 0;\n"                                       /* 36 */
        "        for (int j = 0; j < n; j++)\n"                     /* 37 */
        "            x[i] += y[j * n + i];\n"                       /* 38 */
        "    }\n"                                                   /* 39 */
        "}\n"                                                       /* 40 */
        "void\n"                                                    /* 41 */
        "mm(int n, double *c, const double *a, const double *b)\n"  /* 42 */
        "{\n"                                                       /* 43 */
        "    for (int i = 0; i < n; i++)\n"                         /* 44 */
        "        for (int k = 0; k < n; k++)\n"                     /* 45 */
        "            for (int j = 0; j < n; j++)\n"                 /* 46 */
        "                c[i * n + j] += a[i * n + k] * b[k * n + j];\n"
        "}\n";                                                      /* 48 */
    static const struct {
        size_t line;
        const char *why;
    } unsure[] = {
        {6, "not where the body updates a scalar"},
        {15, "not where a strip-mined loop would reorder one element's "
             "sum (two loops reduce)"},
        {22, "not where two iterations may update one element"},
        {29, "not where a bound names another loop's variable"},
        {37, "not for a nest that is not perfect"},
    };
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    size_t i;
    int k, s;

    write_file("bk.c", text);
    if (!ok(!setup(&b, "bk.c", "gcc", NULL, text, strlen(text), 0),
            "setup"))
        return;
    if (ok(render_knob(&b, "block32(k,j)@L46", text, &r),
           "the product in i-k-j order is blocked on k and j"))
        contains(r.s, "mm(int n, double *__restrict c, "
                      "const double *__restrict a, "
                      "const double *__restrict b)\n{\n"
                      "    for (long long mc_bk_k = 0; mc_bk_k < (n); "
                      "mc_bk_k += 32) for (long long mc_bk_j = 0; "
                      "mc_bk_j < (n); mc_bk_j += 32) "
                      "for (int i = 0; i < n; i++)\n"
                      "        for (int k = (int)mc_bk_k, mc_be_k = "
                      "(int)((n) - mc_bk_k > 32 ? mc_bk_k + 32 : (n)); "
                      "k < mc_be_k; k++)\n"
                      "            for (int j = (int)mc_bk_j, mc_be_j = "
                      "(int)((n) - mc_bk_j > 32 ? mc_bk_j + 32 : (n)); "
                      "j < mc_be_j; j++)\n"
                      "                c[i * n + j] += a[i * n + k] * "
                      "b[k * n + j];\n}\n",
                 "strips outside, each element's sum over k in order, "
                 "with restrict");
    /* With a loop pragma before the strip-mined inner loop, GCC keeps
     * it: the strip's end is no '?:' in the loop's condition, where
     * GCC dropped the pragma ("ignoring loop annotation"). */
    k = mc_builtin_knob(&b, "block32(k,j)@L46");
    s = mc_builtin_knob(&b, "unroll(8)@L46");
    mc_buf_reset(&r);
    if (ok(k >= 0 && s >= 0 &&
               !mc_builtin_render(&b, 1ul << k | 1ul << s, text,
                                  strlen(text), &r) && r.s &&
               !mc_file_write_atomic("bk-unroll.c", r.s, r.len, NULL),
           "blocking with unroll(8) on the inner loop renders")) {
        struct mc_buf diag = MC_BUF_INIT;
        int rc = run("gcc -O3 -c -o bk-unroll.o bk-unroll.c", &diag);
        ok(rc == 0 && !strstr(diag.s, "ignoring loop annotation"),
           "and GCC keeps the pragma");
        if (diag.len)
            printf("# %s", diag.s);
        mc_buf_release(&diag);
    }
    for (s = 0, i = 0; i < b.nknobs; i++)
        s += b.knob[i].kind == MC_KK_BLOCK;
    ok(s == 4, "four tile sizes");
    k = mc_builtin_knob(&b, "block32(k,j)@L46");
    s = mc_builtin_knob(&b, "scalar-restrict@L46");
    ok(k >= 0 && s >= 0 && b.knob[k].group &&
           b.knob[k].group == b.knob[s].group,
       "a nest's blocking and scalar replacement exclude each other");
    for (i = 0; i < MC_ARRAY_SIZE(unsure); i++)
        ok(!blocked(&b, text, unsure[i].line), unsure[i].why);
    mc_builtin_release(&b);
    mc_buf_release(&r);
}

int
main(int argc, char **argv)
{
    char cmd[64];

    if (argc >= 4 && !strcmp(argv[1], "--all"))
        return render_all(argc, argv);
    if (!mkdtemp(dir) || chdir(dir) || setenv("XDG_CACHE_HOME", dir, 1)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    TAP_RUN(test_placement__statement_ends);
    TAP_RUN(test_placement__lines_after_a_macro);
    TAP_RUN(test_placement__unsure_not_offered);
    TAP_RUN(test_placement__interchanged_inner_loop);
    TAP_RUN(test_placement__critique_quotes_the_error);
    TAP_RUN(test_placement__restrict_object_pointers);
    TAP_RUN(test_placement__scalar_replacement);
    TAP_RUN(test_placement__blocking);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# cannot remove %s\n", dir);
    return tap_done();
}
