/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-gvfmodel.c: the built-in value model: features are deterministic
 * and each group reads what it should (language, loop nests, changed
 * lines, edit stems, verdicts); a fit on separable rows predicts their
 * bins; v* is never below u_t; an empty fit is uniform; a saved model
 * loads with the same predictions and hash; a corrupt file is a syntax
 * error naming it, a missing one MC_ENOENT. The files live in a scratch
 * directory.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "file.h"
#include "gvfmodel.h"
#include "tap.h"
#include "testfs.h"

#include <math.h>
#include <time.h>

/* The layout documented in gvfmodel.h. */
#define X_LANG    0
#define X_DEPTH   6        /* code: nest depth */
#define X_DIFF    26
#define X_NPARTS  52
#define X_VERDICT 53

static char dir[] = "/tmp/mc-gvfmodel-XXXXXX";

static const char flat[] =
    "void\n"
    "scale(int n, double *a)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        a[i] *= 2.0;\n"
    "}\n";

static const char nest[] =
    "void\n"
    "mm(int n, double *c, const double *a, const double *b)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        for (int j = 0; j < n; j++)\n"
    "            for (int k = 0; k < n; k++)\n"
    "                c[i * n + j] += a[i * n + k] * b[k * n + j];\n"
    "}\n";

/* A judged C state of CODE (ORIG its original) with LABEL. */
static struct mc_gvf_state
state(const char *code, const char *orig, const char *label)
{
    struct mc_gvf_state st;

    memset(&st, 0, sizeof(st));
    st.lang = MC_LANG_C;
    st.code = code;
    st.code_len = code ? strlen(code) : 0;
    st.orig = orig;
    st.orig_len = orig ? strlen(orig) : 0;
    st.label = label;
    st.verdict = "correct";
    st.correct = 1;
    st.speedup = 1.5;
    st.fr = 2;
    st.ut = 2;
    st.depth = 1;
    return st;
}

/* The features of ST into X; 0 on success. */
static int
feat(const struct mc_gvf_state *st, double *x)
{
    return mc_gvf_features(st, x) != MC_OK;
}

static void
test_gvfmodel__features(void)
{
    double a[MC_GVF_FEATURES], b[MC_GVF_FEATURES];
    struct mc_gvf_state st = state(nest, flat, "O3+unroll(8)@L12");
    int f, same = 1;

    ok(!feat(&st, a) && !feat(&st, b), "features of a state");
    ok(!memcmp(a, b, sizeof(a)), "deterministic");
    for (f = 0; f < MC_GVF_FEATURES; f++)
        same &= isfinite(a[f]);
    ok(same, "all finite");
    ok(a[X_LANG] == 1 && a[X_LANG + 1] == 0 && a[X_LANG + 2] == 0,
       "C is the first language");
    st.lang = MC_LANG_CUDA;
    feat(&st, b);
    ok(b[X_LANG] == 0 && b[X_LANG + 2] == 1, "CUDA is the third");
    st = state(flat, NULL, NULL);
    feat(&st, b);
    ok(a[X_DEPTH] > b[X_DEPTH] && b[X_DEPTH] == log1p(1.0),
       "a 3-deep nest is deeper than a flat loop");
    st.code = NULL;
    st.code_len = 0;
    feat(&st, a);
    ok(a[X_DEPTH] == 0, "no code, no loops");
    st.orig = flat;
    st.orig_len = strlen(flat);
    feat(&st, a);
    ok(a[X_DEPTH] == b[X_DEPTH], "no code: the original's");
}

static void
test_gvfmodel__changed_lines(void)
{
    double x[MC_GVF_FEATURES];
    struct mc_gvf_state st = state(flat, flat, NULL);
    static const char edited[] =
        "void\n"
        "scale(int n, double *a)\n"
        "{\n"
        "#pragma GCC unroll 4\n"
        "    for (int i = 0; i < n; i++)\n"
        "        a[i] *= 2.0;\n"
        "}\n";

    feat(&st, x);
    ok(x[X_DIFF] == 0, "the original has no changed line");
    st.code = edited;
    st.code_len = strlen(edited);
    feat(&st, x);
    ok(fabs(x[X_DIFF] - 1.0 / 7) < 1e-12, "one line of seven is new");
    ok(x[X_DIFF - 7] == log1p(1.0) && x[X_DIFF - 6] == log1p(1.0),
       "the pragma and the unroll are marked");
    st.orig = NULL;
    feat(&st, x);
    ok(x[X_DIFF] == 0, "no original: 0");
}

static void
test_gvfmodel__edits(void)
{
    double a[MC_GVF_FEATURES], b[MC_GVF_FEATURES];
    struct mc_gvf_state st = state(flat, flat, "O3+restrict@scale");

    feat(&st, a);
    st.label = "O3+unroll(8)@L4+restrict@scale";
    feat(&st, b);
    ok(memcmp(a, b, sizeof(a)), "unroll(8) changes the features");
    is_long(b[X_NPARTS], 3, "three parts");
    st.label = "O3+unroll(8)+restrict";
    feat(&st, a);
    ok(!memcmp(a, b, sizeof(a)), "the @ suffixes do not count");
    st.label = "llm#3";
    feat(&st, a);
    st.label = "llm#12";
    feat(&st, b);
    ok(!memcmp(a, b, sizeof(a)), "nor a trailing #N");
    st.label = NULL;
    feat(&st, a);
    is_long(a[X_NPARTS], 0, "no label, no parts");
}

static void
test_gvfmodel__feedback(void)
{
    double x[MC_GVF_FEATURES];
    struct mc_gvf_state st = state(flat, flat, NULL);

    feat(&st, x);
    ok(x[X_VERDICT] == 0 && x[X_VERDICT + 1] == 1, "correct");
    st.verdict = NULL;
    feat(&st, x);
    ok(x[X_VERDICT] == 1 && x[X_VERDICT + 1] == 0, "not judged");
    st.verdict = "compile-error";
    feat(&st, x);
    ok(x[X_VERDICT + 3] == 1, "compile-error as mc_verdict_name says");
    st.verdict = "compile_error";
    feat(&st, x);
    ok(x[X_VERDICT + 3] == 1, "compile_error too");
    st.verdict = "crash";
    feat(&st, x);
    ok(x[X_VERDICT + 4] == 1, "a crash is a timeout's slot");
}

/* A deterministic uniform number in [0, 1). */
static double
uniform(unsigned long *s)
{
    *s = *s * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* N rows of noise in X whose bin Y is feature 40 (rounded), and a
 * constant feature 41. */
static void
separable(double *x, int *y, size_t n)
{
    unsigned long s = 42;
    size_t i;
    int f;

    for (i = 0; i < n; i++) {
        for (f = 0; f < MC_GVF_FEATURES; f++)
            x[i * MC_GVF_FEATURES + f] = f % 3 ? uniform(&s) : 0;
        y[i] = (int)(uniform(&s) * MC_GVF_BINS);
        x[i * MC_GVF_FEATURES + 40] = y[i] + 0.6 * (uniform(&s) - 0.5);
        x[i * MC_GVF_FEATURES + 41] = 0.25;
    }
}

/* The bin P holds most likely. */
static int
argmax(const double p[MC_GVF_BINS])
{
    int q, best = 0;

    for (q = 1; q < MC_GVF_BINS; q++)
        if (p[q] > p[best])
            best = q;
    return best;
}

static void
test_gvfmodel__fit(void)
{
    enum { N = 5000 };
    struct mc_gvf_model m;
    double *x = mc_calloc((size_t)N * MC_GVF_FEATURES, sizeof(*x));
    int *y = mc_calloc(N, sizeof(*y));
    double p[MC_GVF_BINS], v, sum = 0;
    size_t i, right = 0, low = 0;
    clock_t t0 = clock();

    if (!x || !y)
        goto out;
    separable(x, y, N);
    ok(mc_gvf_model_fit(&m, x, y, N) == MC_OK, "fit 5000 rows");
    printf("# fit took %.2f s of CPU\n",
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    is_long(m.records, N, "records");
    is_str(m.hash, "", "no hash before a save");
    ok(m.sd[41] == 1, "a constant feature's sd is 1");
    for (i = 0; i < N; i++) {
        mc_gvf_model_predict(&m, x + i * MC_GVF_FEATURES, p);
        right += argmax(p) == y[i];
        v = mc_gvf_model_value(&m, x + i * MC_GVF_FEATURES, (int)(i % 5));
        low += v < (double)(i % 5) - 1e-12;
        sum += p[0] + p[1] + p[2] + p[3] + p[4];
    }
    printf("# %zu of %d right\n", right, N);
    ok(right >= N * 9 / 10, "at least 90% of the bins are right");
    is_long(low, 0, "v* is never below u_t");
    ok(fabs(sum - N) < 1e-6, "probabilities sum to 1");
out:
    mc_free(x);
    mc_free(y);
}

static void
test_gvfmodel__uniform(void)
{
    struct mc_gvf_model m;
    double x[MC_GVF_FEATURES], p[MC_GVF_BINS];
    int q, ut, even = 1, values = 1;

    memset(x, 0, sizeof(x));
    x[3] = 7;
    ok(mc_gvf_model_fit(&m, NULL, NULL, 0) == MC_OK, "fit nothing");
    is_long(m.records, 0, "no records");
    mc_gvf_model_predict(&m, x, p);
    for (q = 0; q < MC_GVF_BINS; q++)
        even &= fabs(p[q] - 0.2) < 1e-15;
    ok(even, "every bin 0.2");
    for (ut = 0; ut < MC_GVF_BINS; ut++) {
        double want = 0;

        for (q = 0; q < MC_GVF_BINS; q++)
            want += (q > ut ? q : ut) / 5.0;
        values &= fabs(mc_gvf_model_value(&m, x, ut) - want) < 1e-12;
    }
    ok(values, "v* is the mean of max(q, u_t)");
    ok(fabs(mc_gvf_model_value(&m, x, 2) - 2.6) < 1e-12, "2.6 at u_t 2");
}

/* A model fitted on a few separable rows, saved at PATH. */
static enum mc_code
saved(struct mc_gvf_model *m, const char *path)
{
    double x[200 * MC_GVF_FEATURES];
    int y[200];
    struct mc_err err = MC_ERR_INIT;
    enum mc_code rc;

    separable(x, y, 200);
    rc = mc_gvf_model_fit(m, x, y, 200);
    if (!rc)
        rc = mc_gvf_model_save(m, path, &err);
    if (rc)
        printf("# %s\n", err.msg);
    return rc;
}

static void
test_gvfmodel__save_load(void)
{
    struct mc_gvf_model a, b;
    struct mc_err err = MC_ERR_INIT;
    double x[200 * MC_GVF_FEATURES], pa[MC_GVF_BINS], pb[MC_GVF_BINS];
    int y[200], i, same = 1;

    ok(saved(&a, "gvf/sub/model") == MC_OK, "save into new directories");
    ok(mc_is_key(a.hash), "save sets the hash");
    memset(&b, 0, sizeof(b));
    ok(mc_gvf_model_load(NULL, "gvf/sub/model", &b, &err) == MC_OK, "load");
    is_str(b.hash, a.hash, "the same hash");
    is_long(b.records, 200, "the same records");
    ok(!memcmp(a.mean, b.mean, sizeof(a.mean))
           && !memcmp(a.sd, b.sd, sizeof(a.sd))
           && !memcmp(a.w, b.w, sizeof(a.w)), "the same numbers");
    separable(x, y, 200);
    for (i = 0; i < 200; i++) {
        mc_gvf_model_predict(&a, x + i * MC_GVF_FEATURES, pa);
        mc_gvf_model_predict(&b, x + i * MC_GVF_FEATURES, pb);
        same &= !memcmp(pa, pb, sizeof(pa));
    }
    ok(same, "the same predictions");
    ok(mc_gvf_model_save(&b, "gvf/sub/model", &err) == MC_OK
           && !strcmp(a.hash, b.hash), "saving again gives the same hash");
    ok(mc_gvf_model_load(NULL, "gvf/none", &b, &err) == MC_ENOENT
           && err.code == MC_OK, "a missing model is MC_ENOENT, quietly");
}

/* Load TEXT, written to "bad": whether it is MC_ESYNTAX naming the file,
 * and M untouched. */
static int
corrupt(const char *text)
{
    struct mc_gvf_model m, before;
    struct mc_err err = MC_ERR_INIT;
    int syntax;

    memset(&m, 0x5a, sizeof(m));
    before = m;
    write_file("bad", text);
    syntax = mc_gvf_model_load(NULL, "bad", &m, &err) == MC_ESYNTAX
             && strstr(err.msg, "'bad'");
    printf("# %s\n", err.msg);
    return syntax && !memcmp(&m, &before, sizeof(m));
}

/* TEXT with the first FIND replaced by REPL into B. */
static const char *
edit(struct mc_buf *b, const char *text, const char *find, const char *repl)
{
    const char *at = strstr(text, find);

    mc_buf_reset(b);
    if (!at)
        return "";
    mc_buf_add(b, text, (size_t)(at - text));
    mc_buf_adds(b, repl);
    mc_buf_adds(b, at + strlen(find));
    return b->s;
}

static void
test_gvfmodel__corrupt(void)
{
    struct mc_gvf_model m;
    struct mc_buf text = MC_BUF_INIT, b = MC_BUF_INIT;
    struct mc_err err = MC_ERR_INIT;
    char want[32], other[32], *cut;

    saved(&m, "good");
    mc_file_read("good", &text, &err);
    ok(corrupt(edit(&b, text.s, "maxcode-gvf", "maxcode-gvv")),
       "a bad magic");
    ok(corrupt(edit(&b, text.s, "maxcode-gvf 1", "maxcode-gvf 2")),
       "another version");
    snprintf(want, sizeof(want), "features %d ", MC_GVF_FEATURES);
    snprintf(other, sizeof(other), "features %d ", MC_GVF_FEATURES - 1);
    ok(corrupt(edit(&b, text.s, want, other)), "another feature count");
    ok(corrupt(edit(&b, text.s, "\nsd ", "\nsd nan ")), "a nan");
    ok(corrupt(edit(&b, text.s, "\nsd ", "\nsd 1 ")), "a number too many");
    ok(corrupt(edit(&b, text.s, "\nsd ", "\nsd  ")), "a double space");
    ok(corrupt(edit(&b, text.s, "\nw 2 ", "\nw 2 1x ")), "a bad number");
    ok(corrupt(edit(&b, text.s, "\nw 4 ", "\nw 4 -inf ")), "an inf");
    cut = strrchr(text.s, ' ');
    if (cut)
        *cut = '\0';
    ok(corrupt(text.s), "truncated weights");
    ok(corrupt(""), "an empty file");
    mc_buf_release(&text);
    mc_buf_release(&b);
}

int
main(void)
{
    if (!mkdtemp(dir) || chdir(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    TAP_RUN(test_gvfmodel__features);
    TAP_RUN(test_gvfmodel__changed_lines);
    TAP_RUN(test_gvfmodel__edits);
    TAP_RUN(test_gvfmodel__feedback);
    TAP_RUN(test_gvfmodel__fit);
    TAP_RUN(test_gvfmodel__uniform);
    TAP_RUN(test_gvfmodel__save_load);
    TAP_RUN(test_gvfmodel__corrupt);
    if (chdir("/") || nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS))
        printf("# cannot remove %s\n", dir);
    return tap_done();
}
