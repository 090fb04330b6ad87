/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gvfmodel.c: the built-in value model: a state's features (its code read
 * through ctext.h and cmodel.h, its edit label, its feedback), a softmax
 * regression over the five reward bins fitted by full-batch Adam, and the
 * model's text file (grammar in gvfmodel.h).
 */
#include "mc_setup.h"
#include "gvfmodel.h"
#include "alloc.h"
#include "buf.h"
#include "cmodel.h"
#include "ctext.h"
#include "file.h"

#include <ctype.h>
#include <math.h>

#define GVF_BUCKETS 24     /* hash buckets of edit stems */

/* Where each group of features starts (see gvfmodel.h). */
enum {
    F_LANG = 0,                     /* 3: C, C++, CUDA */
    F_CODE = F_LANG + 3,            /* 8: the structure */
    F_BODY = F_CODE + 8,            /* 8: innermost loop bodies */
    F_MARK = F_BODY + 8,            /* 7: marks of edits */
    F_DIFF = F_MARK + 7,            /* share of lines not original */
    F_LINES,                        /* log1p of the length in lines */
    F_EDIT,                         /* GVF_BUCKETS: stems */
    F_NPARTS = F_EDIT + GVF_BUCKETS,
    F_VERDICT,                      /* 6: see verdicts[] */
    F_CORRECT = F_VERDICT + 6,
    F_CONFIRMED,
    F_SPEEDUP,
    F_FR,                           /* MC_GVF_BINS: one-hot */
    F_UT = F_FR + MC_GVF_BINS,
    F_DEPTH,
    F_COUNT
};

_Static_assert(F_COUNT == MC_GVF_FEATURES, "MC_GVF_FEATURES is stale");

#define NF MC_GVF_FEATURES
#define NQ MC_GVF_BINS

/* The fit's inner loops are written out for five bins. */
_Static_assert(MC_GVF_BINS == 5, "gvfmodel.c is written for 5 bins");
#define STR_(x) #x
#define STR(x)  STR_(x)

/* ------------------------------------------------------------ features */

static int
is_ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* FNV-1a (32 bits) of the LEN bytes at S. */
static uint32_t
fnv1a(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

/* How many times NEEDLE occurs in C[0, LEN); with WORD, only as a whole
 * word. */
static size_t
count_str(const char *c, size_t len, const char *needle, int word)
{
    size_t n = strlen(needle), i, k = 0;

    for (i = 0; i + n <= len; i++) {
        if (memcmp(c + i, needle, n))
            continue;
        if (word && ((i > 0 && is_ident(c[i - 1]))
                     || (i + n < len && is_ident(c[i + n]))))
            continue;
        k++;
    }
    return k;
}

/* Words before '(' that are no calls. */
static const char *const not_calls[] = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof",
    "_Alignof", "decltype", "typeof", "__typeof__", "__attribute__",
    "catch", "static_assert", "_Static_assert", "defined"};

/* Whether the word C[I, J), followed by '(', is a call. */
static int
is_call(const char *c, size_t i, size_t j)
{
    size_t k;

    for (k = 0; k < MC_ARRAY_SIZE(not_calls); k++)
        if (strlen(not_calls[k]) == j - i
            && !memcmp(c + i, not_calls[k], j - i))
            return 0;
    return 1;
}

/* Add to N[0..7] the operations in the blanked C[FROM, TO): '*', '/',
 * '%', '+', '-' (not "->"), '[', comparisons, calls. */
static void
body_ops(const char *c, size_t from, size_t to, double *n)
{
    size_t i = from, j, k;

    while (i < to) {
        char ch = c[i], nx = i + 1 < to ? c[i + 1] : '\0';

        if (is_ident(ch) && !isdigit((unsigned char)ch)) {
            for (j = i; j < to && is_ident(c[j]); j++)
                ;
            for (k = j; k < to && isspace((unsigned char)c[k]); k++)
                ;
            n[7] += k < to && c[k] == '(' && is_call(c, i, j);
            i = j;
            continue;
        }
        if (is_ident(ch)) {                  /* a number: 1e-3, 0x1f */
            while (i < to && (is_ident(c[i]) || c[i] == '.'
                              || ((c[i] == '-' || c[i] == '+')
                                  && (c[i - 1] == 'e' || c[i - 1] == 'E'))))
                i++;
            continue;
        }
        n[0] += ch == '*';
        n[1] += ch == '/';
        n[2] += ch == '%';
        n[3] += ch == '+';
        n[4] += ch == '-' && nx != '>';
        n[5] += ch == '[';
        if (ch == '-' && nx == '>') {
            i += 2;
            continue;
        }
        if ((ch == '<' || ch == '>') && nx == ch) {
            i += 2;                          /* a shift */
            continue;
        }
        if (ch == '<' || ch == '>'
            || ((ch == '=' || ch == '!') && nx == '=')) {
            n[6] += 1;
            i += nx == '=' ? 2 : 1;
            continue;
        }
        i++;
    }
}

/* The structure of the blanked C (model CM) into X[F_CODE..F_BODY+7]. */
static void
loop_features(const char *c, const struct mc_cmodel *cm, double *x)
{
    double n[8] = {0}, ops[8] = {0};
    size_t i;
    int k, depth = 0;

    for (i = 0; i < cm->nloop; i++) {
        const struct mc_cloop *l = &cm->loop[i];

        if (l->depth + 1 > depth)
            depth = l->depth + 1;
        n[7] += l->fp != 0;
        if (!l->innermost)
            continue;
        n[2] += 1;
        n[4] += l->unit > 0;
        n[5] += l->strided > 0;
        n[6] += l->math > 0;
        body_ops(c, l->body, l->end, ops);
    }
    n[0] = (double)cm->nfn;
    n[1] = (double)cm->nloop;
    n[3] = depth;
    for (k = 0; k < 8; k++) {
        x[F_CODE + k] = log1p(n[k]);
        x[F_BODY + k] = log1p(ops[k]);
    }
}

/* The marks of edits in the raw TEXT (LEN bytes) into X[F_MARK..]. */
static void
mark_features(const char *text, size_t len, double *x)
{
    x[F_MARK + 0] = log1p((double)(count_str(text, len, "#pragma", 0)
                                   + count_str(text, len, "_Pragma", 1)));
    x[F_MARK + 1] = log1p((double)count_str(text, len, "unroll", 0));
    x[F_MARK + 2] = log1p((double)count_str(text, len, "restrict", 0));
    x[F_MARK + 3] = log1p((double)count_str(text, len, "__builtin_expect",
                                            0));
    x[F_MARK + 4] = log1p((double)count_str(text, len, "__attribute__", 0));
    x[F_MARK + 5] = log1p((double)count_str(text, len, "omp", 1));
    x[F_MARK + 6] = log1p((double)count_str(text, len, "__launch_bounds__",
                                            0));
}

/* The lines of TEXT (LEN bytes): their count, and with H their hashes
 * into H (room for the count). */
static size_t
line_hashes(const char *text, size_t len, uint64_t *h)
{
    size_t i = 0, n = 0, j;

    while (i < len) {
        uint64_t v = 14695981039346656037u;

        for (j = i; j < len && text[j] != '\n'; j++) {
            v ^= (unsigned char)text[j];
            v *= 1099511628211u;
        }
        if (h)
            h[n] = v;
        n++;
        i = j + 1;
    }
    return n;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Into *SHARE: the share of CODE's lines (CLEN bytes) that are not lines
 * of ORIG (OLEN bytes), as multisets. MC_ENOMEM. */
static enum mc_code
diff_share(const char *code, size_t clen, const char *orig, size_t olen,
           double *share)
{
    size_t nc = line_hashes(code, clen, NULL);
    size_t no = line_hashes(orig, olen, NULL), i = 0, j = 0, same = 0;
    uint64_t *hc = mc_calloc(nc + 1, sizeof(*hc));
    uint64_t *ho = mc_calloc(no + 1, sizeof(*ho));
    enum mc_code rc = MC_OK;

    *share = 0;
    if (!hc || !ho) {
        rc = MC_ENOMEM;
        goto out;
    }
    line_hashes(code, clen, hc);
    line_hashes(orig, olen, ho);
    qsort(hc, nc, sizeof(*hc), cmp_u64);
    qsort(ho, no, sizeof(*ho), cmp_u64);
    while (i < nc && j < no) {
        if (hc[i] == ho[j]) {
            same++;
            i++;
            j++;
        } else if (hc[i] < ho[j]) {
            i++;
        } else {
            j++;
        }
    }
    if (nc)
        *share = (double)(nc - same) / (double)nc;
out:
    mc_free(hc);
    mc_free(ho);
    return rc;
}

/* The code features of ST into X. MC_ENOMEM. */
static enum mc_code
code_features(const struct mc_gvf_state *st, double *x)
{
    struct mc_cmodel cm = MC_CMODEL_INIT;
    const char *code = st->code ? st->code : st->orig;
    size_t len = st->code ? st->code_len : st->orig_len;
    char *c = NULL;
    enum mc_code rc = MC_OK;

    if (!code)
        goto out;
    c = mc_ctext_blank(code, len);
    if (!c) {
        rc = MC_ENOMEM;
        goto out;
    }
    rc = mc_cmodel_build(c, len, &cm);
    if (rc)
        goto out;
    loop_features(c, &cm, x);
    mark_features(code, len, x);
    if (st->orig)
        rc = diff_share(code, len, st->orig, st->orig_len, &x[F_DIFF]);
    x[F_LINES] = log1p((double)line_hashes(code, len, NULL));
out:
    mc_cmodel_release(&cm);
    mc_free(c);
    return rc;
}

/* The stems of LABEL's '+'-separated parts into buckets in X. */
static void
edit_features(const char *label, double *x)
{
    const char *p = label;

    while (p && *p) {
        const char *end = strchr(p, '+'), *stem, *q;

        if (!end)
            end = p + strlen(p);
        stem = memchr(p, '@', (size_t)(end - p));
        if (!stem)
            stem = end;
        for (q = stem; q > p && isdigit((unsigned char)q[-1]); q--)
            ;
        if (q < stem && q - 1 > p && q[-1] == '#')
            stem = q - 1;
        if (stem > p) {
            x[F_EDIT + fnv1a(p, (size_t)(stem - p)) % GVF_BUCKETS] += 1;
            x[F_NPARTS] += 1;
        }
        p = *end ? end + 1 : end;
    }
}

/* Verdict names and their slots in the one-hot (0: not judged). */
static const struct {
    const char *name;
    int slot;
} verdicts[] = {
    {"correct", 1},       {"incorrect", 2}, {"compile_error", 3},
    {"compile-error", 3}, {"timeout", 4},   {"crash", 4},
    {"rejected", 5}};

/* The feedback of ST into X. */
static void
feedback_features(const struct mc_gvf_state *st, double *x)
{
    size_t i;
    double s = log(st->speedup > 1e-3 ? st->speedup : 1e-3);

    if (!st->verdict)
        x[F_VERDICT] = 1;
    for (i = 0; st->verdict && i < MC_ARRAY_SIZE(verdicts); i++)
        if (!strcmp(st->verdict, verdicts[i].name))
            x[F_VERDICT + verdicts[i].slot] = 1;
    x[F_CORRECT] = st->correct != 0;
    x[F_CONFIRMED] = st->confirmed != 0;
    x[F_SPEEDUP] = s < -5 ? -5 : s > 5 ? 5 : s;
    if (st->fr >= 0 && st->fr < NQ)
        x[F_FR + st->fr] = 1;
    x[F_UT] = st->ut / 4.0;
    x[F_DEPTH] = st->depth <= 0 ? 0 : st->depth >= 16 ? 1
                                                      : st->depth / 16.0;
}

enum mc_code
mc_gvf_features(const struct mc_gvf_state *st, double *x)
{
    enum mc_code rc;

    memset(x, 0, NF * sizeof(*x));
    if ((unsigned)st->lang < 3)
        x[F_LANG + st->lang] = 1;
    rc = code_features(st, x);
    if (rc)
        return rc;
    edit_features(st->label, x);
    feedback_features(st, x);
    return MC_OK;
}

/* ----------------------------------------------------------- the model */

#define FIT_STEPS 600
#define FIT_LR    0.05
#define FIT_L2    1e-3

/* P: the softmax of the scores S. */
static void
softmax(const double s[NQ], double p[NQ])
{
    double top = s[0], sum = 0;
    int q;

    for (q = 1; q < NQ; q++)
        if (s[q] > top)
            top = s[q];
    for (q = 0; q < NQ; q++) {
        p[q] = exp(s[q] - top);
        sum += p[q];
    }
    for (q = 0; q < NQ; q++)
        p[q] /= sum;
}

void
mc_gvf_model_predict(const struct mc_gvf_model *m, const double *x,
                     double p[MC_GVF_BINS])
{
    double s[NQ];
    int q, f;

    for (q = 0; q < NQ; q++) {
        s[q] = m->w[q][0];
        for (f = 0; f < NF; f++)
            s[q] += m->w[q][f + 1] * ((x[f] - m->mean[f]) / m->sd[f]);
    }
    softmax(s, p);
}

double
mc_gvf_model_value(const struct mc_gvf_model *m, const double *x, int ut)
{
    double p[NQ], v = 0;
    int q;

    mc_gvf_model_predict(m, x, p);
    for (q = 0; q < NQ; q++)
        v += (q > ut ? q : ut) * p[q];
    return v;
}

/*
 * The training rows, sparse: row I's non-zero raw features are
 * COL/VAL[ROW[I], ROW[I+1]). The standardization is folded into the
 * weights (w z = (w / sd) x - (w / sd) mean), so the rows stay sparse.
 */
struct fit {
    size_t n;
    size_t *row;
    unsigned char *col;  /* NF < 256 */
    double *val;
    const int *y;
};

/* The mean and sd of each feature of the N rows X into M. */
static void
standardize(struct mc_gvf_model *m, const double *x, size_t n)
{
    size_t i;
    int f;

    for (f = 0; f < NF; f++) {
        double sum = 0, ss = 0, mu;

        for (i = 0; i < n; i++)
            sum += x[i * NF + f];
        mu = n ? sum / (double)n : 0;
        for (i = 0; i < n; i++)
            ss += (x[i * NF + f] - mu) * (x[i * NF + f] - mu);
        m->mean[f] = mu;
        m->sd[f] = n ? sqrt(ss / (double)n) : 1;
        if (!(m->sd[f] >= 1e-6))
            m->sd[f] = 1;
    }
}

/* FT's sparse rows from the N rows X. MC_ENOMEM. */
static enum mc_code
fit_init(struct fit *ft, const double *x, const int *y, size_t n)
{
    size_t i, k = 0;
    int f;

    ft->n = n;
    ft->y = y;
    ft->row = mc_calloc(n + 1, sizeof(*ft->row));
    ft->col = mc_calloc(n * NF + 1, sizeof(*ft->col));
    ft->val = mc_calloc(n * NF + 1, sizeof(*ft->val));
    if (!ft->row || !ft->col || !ft->val)
        return MC_ENOMEM;
    for (i = 0; i < n; i++) {
        ft->row[i] = k;
        for (f = 0; f < NF; f++) {
            if (x[i * NF + f] == 0)
                continue;
            ft->col[k] = (unsigned char)f;
            ft->val[k++] = x[i * NF + f];
        }
    }
    ft->row[n] = k;
    return MC_OK;
}

static void
fit_release(struct fit *ft)
{
    mc_free(ft->row);
    mc_free(ft->col);
    mc_free(ft->val);
}

/*
 * One row's scores into S: C plus its features times V. The five sums
 * are written out, so that they stay in registers.
 */
static void
row_scores(const struct fit *ft, size_t i, const double c[NQ],
           const double v[NF][NQ], double s[NQ])
{
    double s0 = c[0], s1 = c[1], s2 = c[2], s3 = c[3], s4 = c[4];
    size_t k;

    for (k = ft->row[i]; k < ft->row[i + 1]; k++) {
        const double *a = v[ft->col[k]];
        double xk = ft->val[k];

        s0 += xk * a[0];
        s1 += xk * a[1];
        s2 += xk * a[2];
        s3 += xk * a[3];
        s4 += xk * a[4];
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    s[4] = s4;
}

/* Add row I's features times the residuals R to G. */
static void
row_grad(const struct fit *ft, size_t i, const double r[NQ],
         double G[NF][NQ])
{
    double r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3], r4 = r[4];
    size_t k;

    for (k = ft->row[i]; k < ft->row[i + 1]; k++) {
        double *gk = G[ft->col[k]], xk = ft->val[k];

        gk[0] += xk * r0;
        gk[1] += xk * r1;
        gk[2] += xk * r2;
        gk[3] += xk * r3;
        gk[4] += xk * r4;
    }
}

/* The gradient G of the mean cross-entropy plus the L2 penalty at M. */
static void
gradient(const struct fit *ft, const struct mc_gvf_model *m,
         double g[NQ][NF + 1])
{
    double v[NF][NQ], c[NQ], G[NF][NQ], S[NQ] = {0}, s[NQ], p[NQ];
    size_t i;
    int q, f, y;

    memset(G, 0, sizeof(G));
    for (q = 0; q < NQ; q++) {
        c[q] = m->w[q][0];
        for (f = 0; f < NF; f++) {
            v[f][q] = m->w[q][f + 1] / m->sd[f];
            c[q] -= v[f][q] * m->mean[f];
        }
    }
    for (i = 0; i < ft->n; i++) {
        row_scores(ft, i, c, v, s);
        softmax(s, p);
        y = ft->y[i] < 0 ? 0 : ft->y[i] >= NQ ? NQ - 1 : ft->y[i];
        p[y] -= 1;
        for (q = 0; q < NQ; q++)
            S[q] += p[q];
        row_grad(ft, i, p, G);
    }
    for (q = 0; q < NQ; q++) {
        g[q][0] = S[q] / (double)ft->n;
        for (f = 0; f < NF; f++)
            g[q][f + 1] = (G[f][q] - m->mean[f] * S[q]) / m->sd[f]
                              / (double)ft->n
                          + FIT_L2 * m->w[q][f + 1];
    }
}

/* FIT_STEPS Adam steps on M's weights, from zero. */
static void
adam(const struct fit *ft, struct mc_gvf_model *m)
{
    double g[NQ][NF + 1], m1[NQ][NF + 1], m2[NQ][NF + 1];
    double b1 = 0.9, b2 = 0.999, b1t = 1, b2t = 1;
    int t, q, f;

    memset(m->w, 0, sizeof(m->w));
    memset(m1, 0, sizeof(m1));
    memset(m2, 0, sizeof(m2));
    for (t = 0; t < FIT_STEPS; t++) {
        gradient(ft, m, g);
        b1t *= b1;
        b2t *= b2;
        for (q = 0; q < NQ; q++)
            for (f = 0; f <= NF; f++) {
                m1[q][f] = b1 * m1[q][f] + (1 - b1) * g[q][f];
                m2[q][f] = b2 * m2[q][f] + (1 - b2) * g[q][f] * g[q][f];
                m->w[q][f] -= FIT_LR * (m1[q][f] / (1 - b1t))
                              / (sqrt(m2[q][f] / (1 - b2t)) + 1e-8);
            }
    }
}

enum mc_code
mc_gvf_model_fit(struct mc_gvf_model *m, const double *x, const int *y,
                 size_t n)
{
    struct fit ft = {0, NULL, NULL, NULL, NULL};
    enum mc_code rc = MC_OK;

    memset(m, 0, sizeof(*m));
    standardize(m, x, n);
    m->records = n;
    if (!n)
        goto out;
    rc = fit_init(&ft, x, y, n);
    if (rc)
        goto out;
    adam(&ft, m);
out:
    fit_release(&ft);
    return rc;
}

/* ------------------------------------------------------------ the file */

#define GVF_MAGIC "maxcode-gvf"

/* Into HEX: the hash of the LEN bytes at DATA, as a model's hash.
 * MC_ENOMEM. */
static enum mc_code
model_hash(const char *data, size_t len, char hex[MC_KEY_HEX + 1])
{
    struct mc_hash h;
    struct mc_digest d;

    if (mc_hash_init(&h))
        return MC_ENOMEM;
    mc_hash_field(&h, "gvf-model", data, len);
    mc_hash_digest(&h, &d);
    mc_digest_hex(&d, hex);
    mc_hash_release(&h);
    return MC_OK;
}

/* Append " %.17g" of each of the N numbers at V to B, then LF; 0 when
 * one is not finite. */
static int
add_numbers(struct mc_buf *b, const double *v, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return 0;
        mc_buf_addf(b, " %.17g", v[i]);
    }
    mc_buf_addc(b, '\n');
    return 1;
}

enum mc_code
mc_gvf_model_save(struct mc_gvf_model *m, const char *path,
                  struct mc_err *err)
{
    struct mc_buf b = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    int q, ok;

    mc_buf_addf(&b, "%s %d\nfeatures %d classes %d\nrecords %zu\nmean",
                GVF_MAGIC, MC_GVF_MODEL_VERSION, NF, NQ, m->records);
    ok = add_numbers(&b, m->mean, NF);
    mc_buf_adds(&b, "sd");
    ok = ok && add_numbers(&b, m->sd, NF);
    for (q = 0; q < NQ; q++) {
        mc_buf_addf(&b, "w %d", q);
        ok = ok && add_numbers(&b, m->w[q], NF + 1);
    }
    if (!ok) {
        rc = mc_err_set(err, MC_EINVAL, "cannot write '%s': the model "
                        "holds a number that is not finite", path);
        goto out;
    }
    if (mc_buf_status(&b)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = mc_file_mkdirs_for(path, err);
    if (rc)
        goto out;
    rc = mc_file_write_atomic(path, b.s, b.len, err);
    if (rc)
        goto out;
    if (model_hash(b.s, b.len, m->hash))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_buf_release(&b);
    return rc;
}

/* A cursor over a model file's text, for the error messages. */
struct rd {
    const char *p, *end;
    int line;
    const char *why;       /* what is wrong, once something is */
};

/* Consume the literal S; 0 (with why) when it is not there. */
static int
rd_lit(struct rd *r, const char *s)
{
    size_t n = strlen(s);

    if ((size_t)(r->end - r->p) < n || memcmp(r->p, s, n)) {
        r->why = "does not start as a maxcode-gvf model line should";
        return 0;
    }
    r->p += n;
    return 1;
}

/* Consume SP and a finite number into *V, which must end at SP or LF. */
static int
rd_num(struct rd *r, double *v)
{
    char *e;

    if (r->p >= r->end || *r->p != ' ' || r->p + 1 >= r->end
        || isspace((unsigned char)r->p[1])) {
        r->why = "too few numbers";
        return 0;
    }
    *v = strtod(r->p + 1, &e);
    if (e >= r->end && e > r->p + 1) {
        r->why = "it is truncated";
        return 0;
    }
    if (e == r->p + 1 || e >= r->end || (*e != ' ' && *e != '\n')) {
        r->why = "a number does not parse";
        return 0;
    }
    if (!isfinite(*v)) {
        r->why = "a number is not finite";
        return 0;
    }
    r->p = e;
    return 1;
}

/* Consume LF; 0 (with why) when the line has more. */
static int
rd_eol(struct rd *r)
{
    if (r->p >= r->end || *r->p != '\n') {
        r->why = r->p >= r->end ? "it is truncated" : "too many numbers";
        return 0;
    }
    r->p++;
    r->line++;
    return 1;
}

/* Consume the N numbers of a line, and its LF, into V. */
static int
rd_line(struct rd *r, double *v, int n)
{
    int i;

    for (i = 0; i < n; i++)
        if (!rd_num(r, &v[i]))
            return 0;
    return rd_eol(r);
}

/* Consume an integer into *V: SP and a number that is a whole one from
 * 0 to 2^53. */
static int
rd_int(struct rd *r, double *v)
{
    if (!rd_num(r, v))
        return 0;
    if (*v < 0 || *v > 9007199254740992.0 || *v != floor(*v)) {
        r->why = "a count is not a whole number";
        return 0;
    }
    return 1;
}

/* Parse the magic, dims and count lines into M; 0 with why. */
static int
rd_head(struct rd *r, struct mc_gvf_model *m)
{
    double v, f, q;

    if (!rd_lit(r, GVF_MAGIC) || !rd_int(r, &v) || !rd_eol(r))
        return 0;
    if (v != MC_GVF_MODEL_VERSION) {
        r->why = "its version is not this build's ("
                 STR(MC_GVF_MODEL_VERSION) ")";
        return 0;
    }
    if (!rd_lit(r, "features") || !rd_int(r, &f) || !rd_lit(r, " classes")
        || !rd_int(r, &q) || !rd_eol(r))
        return 0;
    if (f != NF || q != NQ) {
        r->why = "its feature or class count is not this build's ("
                 STR(MC_GVF_FEATURES) " and " STR(MC_GVF_BINS) ")";
        return 0;
    }
    if (!rd_lit(r, "records") || !rd_int(r, &v) || !rd_eol(r))
        return 0;
    m->records = (size_t)v;
    return 1;
}

/* Parse the model text [R->p, R->end) into M; 0 with why. */
static int
rd_model(struct rd *r, struct mc_gvf_model *m)
{
    char w[16];
    int q, f;

    if (!rd_head(r, m) || !rd_lit(r, "mean") || !rd_line(r, m->mean, NF)
        || !rd_lit(r, "sd") || !rd_line(r, m->sd, NF))
        return 0;
    for (f = 0; f < NF; f++)
        if (m->sd[f] <= 0) {
            r->why = "an sd is not positive";
            return 0;
        }
    for (q = 0; q < NQ; q++) {
        snprintf(w, sizeof(w), "w %d", q);
        if (!rd_lit(r, w) || !rd_line(r, m->w[q], NF + 1))
            return 0;
    }
    if (r->p != r->end) {
        r->why = "there is more after the last weights";
        return 0;
    }
    return 1;
}

enum mc_code
mc_gvf_model_load(const char *dir, const char *path,
                  struct mc_gvf_model *m, struct mc_err *err)
{
    struct mc_buf b = MC_BUF_INIT;
    struct mc_gvf_model *t = NULL;
    struct rd r;
    enum mc_code rc;

    rc = dir ? mc_file_read_shared(dir, path, MC_GVF_MODEL_MAX, &b, err)
             : mc_file_read(path, &b, err);
    if (rc)
        goto out;
    t = mc_calloc(1, sizeof(*t));
    if (!t) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    r.p = b.s;
    r.end = b.s + b.len;
    r.line = 1;
    r.why = NULL;
    if (!rd_model(&r, t)) {
        rc = mc_err_set(err, MC_ESYNTAX, "'%s' is no value model: line "
                        "%d: %s", path, r.line, r.why);
        goto out;
    }
    if (model_hash(b.s, b.len, t->hash)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    *m = *t;
out:
    mc_free(t);
    mc_buf_release(&b);
    return rc;
}
