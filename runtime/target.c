/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target.c: option checks, list expansion and the content key of one
 * marked unit.
 */
#include "mc_setup.h"
#include "target.h"
#include "alloc.h"
#include "buf.h"
#include "compdb.h"
#include "compiler.h"
#include "file.h"
#include "mark.h"
#include "paths.h"
#include "spawn.h"
#include "tree.h"

#include <ctype.h>
#include <glob.h>
#include <math.h>

#define BINS 3 /* bins=S1+S2+S3 */

enum check {
    C_FILES,    /* files that must exist */
    C_GLOB,     /* globs that must match */
    C_WORDS,    /* text a shell can split */
    C_COMPARE,  /* stdout stderr both exit file:NAME */
    C_TOL,      /* REL or REL/ABS */
    C_TEXT,     /* non-empty text */
    C_IDENT,    /* a C identifier */
    C_SETTING,  /* checked by the setting */
    C_BOOL01,   /* 0 or 1 */
    C_NATIVE,   /* native */
    C_POSINT,   /* a whole number > 0 */
    C_POSNUM,   /* a number > 0 */
    C_BINS,     /* S1+S2+S3, increasing */
    C_PATHS,    /* globs of relative files or directories */
    C_REGEX     /* a POSIX extended regular expression */
};

struct optdef {
    const char *name;
    enum check check;
    int setting; /* enum mc_setting_id for C_SETTING, else -1 */
};

static const struct optdef opts[MC_OPT__COUNT] = {
    [MC_OPT_LINK] = {"link", C_FILES, -1},
    [MC_OPT_ARGS] = {"args", C_WORDS, -1},
    [MC_OPT_INPUTS] = {"inputs", C_GLOB, -1},
    [MC_OPT_BENCH_INPUTS] = {"bench-inputs", C_GLOB, -1},
    [MC_OPT_TEST_CPPFLAGS] = {"test-cppflags", C_WORDS, -1},
    [MC_OPT_COMPARE] = {"compare", C_COMPARE, -1},
    [MC_OPT_TOLERANCE] = {"tolerance", C_TOL, -1},
    [MC_OPT_CHECK] = {"check", C_TEXT, -1},
    [MC_OPT_CFLAGS] = {"cflags", C_WORDS, -1},
    [MC_OPT_KERNEL] = {"kernel", C_IDENT, -1},
    [MC_OPT_BUDGET] = {"budget", C_SETTING, MC_SET_BUDGET},
    [MC_OPT_STRATEGY] = {"strategy", C_SETTING, MC_SET_STRATEGY},
    [MC_OPT_PROPOSER] = {"proposer", C_SETTING, MC_SET_PROPOSER},
    [MC_OPT_METRIC] = {"metric", C_SETTING, MC_SET_METRIC},
    [MC_OPT_MIN_SPEEDUP] = {"min-speedup", C_SETTING, MC_SET_MIN_SPEEDUP},
    [MC_OPT_SANITIZE] = {"sanitize", C_BOOL01, -1},
    [MC_OPT_ISA] = {"isa", C_NATIVE, -1},
    [MC_OPT_FIELDS] = {"fields", C_SETTING, MC_SET_FIELDS},
    [MC_OPT_CRITIQUE] = {"critique", C_SETTING, MC_SET_CRITIQUE},
    [MC_OPT_MAX_TOKENS] = {"max-tokens", C_POSINT, -1},
    [MC_OPT_MAX_COST] = {"max-cost", C_POSNUM, -1},
    [MC_OPT_BINS] = {"bins", C_BINS, -1},
    [MC_OPT_LDLIBS] = {"ldlibs", C_WORDS, -1},
    [MC_OPT_FILES] = {"files", C_PATHS, -1},
    [MC_OPT_IGNORE] = {"ignore", C_REGEX, -1},
};

const char *
mc_target_opt_name(enum mc_opt opt)
{
    return opts[opt].name;
}

static const char *
known_list(void)
{
    return "link, args, inputs, bench-inputs, test-cppflags, compare, "
           "tolerance, check, cflags, kernel, budget, strategy, proposer, "
           "metric, min-speedup, sanitize, isa, fields, critique, "
           "max-tokens, max-cost, bins, ldlibs, files, ignore";
}

static int
lookup_opt(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < MC_OPT__COUNT; i++)
        if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
            return (int)i;
    return -1;
}

static int
is_number(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Split VALUE at blanks (and at '+' or ',' for lists that are not file
 * names) into OUT. */
static enum mc_code
split_list(const char *value, const char *seps, struct mc_strv *out)
{
    const char *p = value;

    p += strspn(p, seps);
    while (*p) {
        size_t n = strcspn(p, seps);
        if (mc_strv_pushn(out, p, n))
            return MC_ENOMEM;
        p += n;
        p += strspn(p, seps);
    }
    return MC_OK;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- VPATH ---- */

static struct mc_strv vpath_dirs;

enum mc_code
mc_target_set_vpath(const char *vpath)
{
    mc_strv_release(&vpath_dirs);
    return vpath ? split_list(vpath, ": \t", &vpath_dirs) : MC_OK;
}

/* PATH joined to VPATH directory I, or NULL if out of memory. */
static char *
vpath_join(size_t i, const char *path)
{
    struct mc_buf b = MC_BUF_INIT;
    const char *dir = vpath_dirs.v[i];
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    mc_buf_addf(&b, "%.*s/%s", (int)n, dir, path);
    return mc_buf_detach(&b, NULL);
}

/*
 * PATH as make finds a prerequisite: PATH itself when it exists or is
 * absolute, else the first VPATH directory's DIR/PATH that exists.
 * Returns a copy (mc_free), or NULL when out of memory.
 */
static char *
vpath_find(const char *path)
{
    struct stat st;
    size_t i;

    if (path[0] != '/' && stat(path, &st)) {
        for (i = 0; i < vpath_dirs.n; i++) {
            char *p = vpath_join(i, path);
            if (!p || !stat(p, &st))
                return p;
            mc_free(p);
        }
    }
    return mc_strdup(path);
}

char *
mc_target_find(const char *path)
{
    return vpath_find(path);
}

/* Expand the globs in VALUE into OUT (sorted, without duplicates). */
static enum mc_code
expand_globs(const char *name, const char *value, struct mc_strv *out,
             struct mc_err *err)
{
    struct mc_strv pats = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    size_t i, j;

    if (split_list(value, " \t,", &pats)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (!pats.n) {
        rc = mc_err_set(err, MC_EINVAL, "%s is empty: give a glob such as "
                        "%s=tests/*.in", name, name);
        goto out;
    }
    for (i = 0; i < pats.n; i++) {
        glob_t g;
        int r = glob(pats.v[i], 0, NULL, &g);

        for (j = 0; r == GLOB_NOMATCH && pats.v[i][0] != '/' &&
                    j < vpath_dirs.n; j++) {
            char *p = vpath_join(j, pats.v[i]);
            if (!p) {
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
                goto out;
            }
            r = glob(p, 0, NULL, &g);
            mc_free(p);
        }
        if (r == GLOB_NOMATCH || (r == 0 && g.gl_pathc == 0)) {
            if (r == 0)
                globfree(&g);
            rc = mc_err_set(err, MC_EINVAL, "%s '%s' matches no file", name,
                            pats.v[i]);
            goto out;
        }
        if (r) {
            rc = mc_err_set(err, MC_EIO, "%s '%s': cannot read the "
                            "directory", name, pats.v[i]);
            goto out;
        }
        for (j = 0; j < g.gl_pathc && !rc; j++) {
            struct stat st;
            if (stat(g.gl_pathv[j], &st) || !S_ISREG(st.st_mode))
                continue;
            if (!mc_strv_contains(out, g.gl_pathv[j]) &&
                mc_strv_push(out, g.gl_pathv[j]))
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        }
        globfree(&g);
        if (rc)
            goto out;
    }
    if (!out->n) {
        rc = mc_err_set(err, MC_EINVAL, "%s '%s' matches no regular file",
                        name, value);
        goto out;
    }
    qsort(out->v, out->n, sizeof(*out->v), cmp_str);
out:
    mc_strv_release(&pats);
    return rc;
}

static enum mc_code
check_files(const char *value, struct mc_strv *out, struct mc_err *err)
{
    struct mc_strv words = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    if (split_list(value, " \t,", &words)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    for (i = 0; i < words.n && !rc; i++) {
        struct stat st;

        /* "a.c+b.c" lists two files, unless a file has that name. */
        if (stat(words.v[i], &st) && strchr(words.v[i], '+')) {
            rc = split_list(words.v[i], "+", out);
            continue;
        }
        rc = mc_strv_push(out, words.v[i]);
    }
    for (i = 0; i < out->n && !rc; i++) {
        char *found = vpath_find(out->v[i]);
        if (!found) {
            rc = MC_ENOMEM;
        } else {
            mc_free(out->v[i]);
            out->v[i] = found;
        }
    }
    if (rc) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (!out->n) {
        rc = mc_err_set(err, MC_EINVAL, "link is empty: name the files "
                        "linked with SOURCE, e.g. link=harness.c");
        goto out;
    }
    for (i = 0; i < out->n; i++) {
        struct stat st;
        if (stat(out->v[i], &st) || !S_ISREG(st.st_mode)) {
            rc = mc_err_set(err, MC_EINVAL, "link file '%s' not found",
                            out->v[i]);
            goto out;
        }
    }
out:
    mc_strv_release(&words);
    return rc;
}

/* Whether relative PATH has a ".." component. */
static int
climbs(const char *path)
{
    const char *p = path;

    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
        p += strspn(p, "/");
    }
    return 0;
}

/* Check the match P of the files= pattern PAT, as expanded and
 * resolved: relative, no ".." component, not make's directory CWD
 * itself, its real path inside CWD, a regular file or a directory. */
static enum mc_code
check_match(const char *pat, const char *p, const char *cwd,
            struct mc_err *err)
{
    const char *why = NULL, *hint = "";
    struct stat st;
    char *real;

    if (!strcmp(p, ".") || climbs(p) || p[0] == '/') {
        why = !strcmp(p, ".") ? "make's directory itself"
                              : "outside make's directory";
        if (strchr(pat, '*') && p[0] == '.' && (!p[1] || !strcmp(p, "..")))
            hint = "; for dot files write '.[!.]*'";
    } else if ((real = realpath(p, NULL)) == NULL) {
        if (errno == ENOMEM)
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        if (errno == ELOOP)
            why = "a symbolic link in a loop";
        else if (errno == ENOENT || errno == ENOTDIR)
            why = "a dangling symbolic link";
        else
            why = "not readable";
    } else {
        if (!strcmp(real, cwd) || !mc_path_beneath(real, cwd))
            why = "outside make's directory once its links are resolved";
        else if (stat(real, &st))
            why = "not readable";
        else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            why = mc_tree_kind_name(&st);
        free(real); /* from realpath() */
    }
    if (!why)
        return MC_OK;
    return mc_err_set(err, MC_EINVAL, "files '%s': its match '%s' is %s, "
                      "refused: each run gets regular files and "
                      "directories inside make's directory only%s", pat, p,
                      why, hint);
}

/* files=VALUE: globs of files and directories, each relative to make's
 * directory and inside it, expanded into OUT (sorted, no duplicates).
 * Each match is checked as well as the pattern: ".*" matches "..", and
 * a link may lead anywhere. */
static enum mc_code
expand_paths(const char *value, struct mc_strv *out, struct mc_err *err)
{
    struct mc_strv pats = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    char cwd[PATH_MAX];
    size_t i, j;

    if (split_list(value, " \t,", &pats)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (!pats.n) {
        rc = mc_err_set(err, MC_EINVAL, "files is empty: name the files "
                        "or directories a run reads, e.g. files=data/*.txt");
        goto out;
    }
    if (!getcwd(cwd, sizeof(cwd))) {
        rc = mc_err_set(err, MC_EIO, "cannot find make's directory: %s",
                        strerror(errno));
        goto out;
    }
    for (i = 0; i < pats.n && !rc; i++) {
        glob_t g;
        int r, self = 0;

        if (pats.v[i][0] == '/' || climbs(pats.v[i])) {
            rc = mc_err_set(err, MC_EINVAL, "files '%s': name it relative "
                            "to make's directory and inside it (each run "
                            "gets it at that path)", pats.v[i]);
            goto out;
        }
        r = glob(pats.v[i], 0, NULL, &g);
        if (r == GLOB_NOMATCH || (r == 0 && g.gl_pathc == 0)) {
            if (r == 0)
                globfree(&g);
            rc = mc_err_set(err, MC_EINVAL, "files '%s' matches no file",
                            pats.v[i]);
            goto out;
        }
        if (r) {
            rc = mc_err_set(err, MC_EIO, "files '%s': cannot read the "
                            "directory", pats.v[i]);
            goto out;
        }
        for (j = 0; j < g.gl_pathc && !rc; j++) {
            const char *p = g.gl_pathv[j];

            while (p[0] == '.' && p[1] == '/')
                p += 2 + strspn(p + 2, "/");
            /* ".*" matches "." before "..": say the worse first. */
            if (!*p || !strcmp(p, ".")) {
                self = 1;
                continue;
            }
            rc = check_match(pats.v[i], p, cwd, err);
            if (!rc && !mc_strv_contains(out, p) && mc_strv_push(out, p))
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        }
        if (!rc && self)
            rc = check_match(pats.v[i], ".", cwd, err);
        globfree(&g);
    }
    if (!rc)
        qsort(out->v, out->n, sizeof(*out->v), cmp_str);
out:
    mc_strv_release(&pats);
    return rc;
}

/* compare=MODE; a file:NAME is read back from a run's directory, so
 * NAME must stay inside it: relative, no ".." component. */
static enum mc_code
check_compare(const char *value, struct mc_err *err)
{
    const char *name = value + 5;

    if (!strcmp(value, "stdout") || !strcmp(value, "stderr") ||
        !strcmp(value, "both") || !strcmp(value, "exit"))
        return MC_OK;
    if (strncmp(value, "file:", 5) || !*name)
        return mc_err_set(err, MC_EINVAL, "option 'compare=%s': expected "
                          "stdout, stderr, both, exit or file:NAME", value);
    if (name[0] == '/' || climbs(name))
        return mc_err_set(err, MC_EINVAL, "option 'compare=%s': name the "
                          "file relative to the run's directory and inside "
                          "it (no '..', not absolute): the run writes it "
                          "there", value);
    return MC_OK;
}

/* tolerance=REL or REL/ABS. */
static enum mc_code
check_tol(const char *value, struct mc_err *err)
{
    char rel[64];
    const char *slash = strchr(value, '/');
    size_t n = slash ? (size_t)(slash - value) : strlen(value);
    double a, b;

    if (n < sizeof(rel)) {
        memcpy(rel, value, n);
        rel[n] = '\0';
        if (is_number(rel, &a) && a >= 0 &&
            (!slash || (is_number(slash + 1, &b) && b >= 0)))
            return MC_OK;
    }
    return mc_err_set(err, MC_EINVAL, "option 'tolerance=%s': expected "
                      "REL or REL/ABS, non-negative numbers such as "
                      "1e-6/1e-9", value);
}

/* kernel=NAME: an identifier, for a language with kernels. */
static enum mc_code
check_kernel(const struct mc_target *t, const char *value,
             struct mc_err *err)
{
    const char *p = value;

    if (!mc_lang_get(t->lang)->kernels)
        return mc_err_set(err, MC_EINVAL, "option 'kernel' applies only "
                          "to CUDA sources (.cu), not '%s'", t->source);
    if (isalpha((unsigned char)*p) || *p == '_') {
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (!*p)
            return MC_OK;
    }
    return mc_err_set(err, MC_EINVAL, "option 'kernel=%s': expected the "
                      "name of a __global__ function", value);
}

/* An option that is a setting: the settings table checks it. */
static enum mc_code
check_setting(struct mc_target *t, const struct optdef *d,
              const char *value, struct mc_err *err)
{
    struct mc_err e2 = MC_ERR_INIT;
    const char *expected;

    if (mc_conf_set(&t->conf, (enum mc_setting_id)d->setting, value,
                    MC_FROM_ARG, d->name, &e2) == MC_OK)
        return MC_OK;
    /* "budget: MAXCODE_BUDGET=0: expected ..." reads better as: */
    expected = strstr(e2.msg, "expected");
    return mc_err_set(err, MC_EINVAL, "option '%s=%s': %s", d->name, value,
                      expected ? expected : e2.msg);
}

/* A whole number > 0. */
static enum mc_code
check_posint(const struct optdef *d, const char *value, struct mc_err *err)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(value, &end, 10);
    if (!errno && end != value && !*end && v > 0)
        return MC_OK;
    return mc_err_set(err, MC_EINVAL, "option '%s=%s': expected a whole "
                      "number > 0", d->name, value);
}

/* The most nodes an ignore= expression may expand to, and its longest
 * text: the C library compiles a repetition by copying what it repeats,
 * so "((a+)+)+..." or nested {1,255} bounds grow exponentially and can
 * take gigabytes or minutes inside make (the fuzzer found both). */
#define REGEX_MAX_COST 1024
#define REGEX_MAX_LEN  256

static size_t regex_alt_cost(const char **p, int depth);

/* Saturating A * B and A + B, at REGEX_MAX_COST + 1. */
static size_t
cost_mul(size_t a, size_t b)
{
    return a && b > (REGEX_MAX_COST + 1) / a ? REGEX_MAX_COST + 1 : a * b;
}

static size_t
cost_add(size_t a, size_t b)
{
    return a + b > REGEX_MAX_COST ? REGEX_MAX_COST + 1 : a + b;
}

/* The factor of the repetition at *P ("*", "?", "+", "{N}", "{N,}",
 * "{N,M}"), advancing *P past it; 0 when *P holds none. */
static size_t
regex_repeat(const char **p)
{
    const char *s = *p;
    unsigned long lo, hi;
    char *end;

    if (*s == '*' || *s == '?') {
        *p = s + 1;
        return 1;
    }
    if (*s == '+') {
        *p = s + 1;
        return 2;
    }
    if (*s != '{' || !isdigit((unsigned char)s[1]))
        return 0;
    lo = strtoul(s + 1, &end, 10);
    hi = lo;
    if (*end == ',') {
        hi = lo + 1;
        if (isdigit((unsigned char)end[1]))
            hi = strtoul(end + 1, &end, 10);
        else
            end++;
    }
    if (*end != '}')
        return 0;
    *p = end + 1;
    return hi > REGEX_MAX_COST ? REGEX_MAX_COST + 1 : (hi ? hi : 1);
}

/* The cost of one atom at *P (a character, an escape, a bracket
 * expression or a group), advancing *P past it. */
static size_t
regex_atom_cost(const char **p, int depth)
{
    const char *s = *p;
    size_t c = 1;

    if (*s == '\\' && s[1]) {
        s += 2;
    } else if (*s == '[') {
        s++;
        if (*s == '^')
            s++;
        if (*s == ']')
            s++;
        while (*s && *s != ']') {
            if (*s == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
                const char *close = strchr(s + 2, s[1]);
                s = close && close[1] == ']' ? close + 2 : s + 1;
            } else {
                s++;
            }
        }
        if (*s)
            s++;
    } else if (*s == '(') {
        s++;
        c = depth > 32 ? REGEX_MAX_COST + 1 : regex_alt_cost(&s, depth + 1);
        if (*s == ')')
            s++;
    } else {
        s++;
    }
    *p = s;
    return c;
}

/* The cost of alternatives up to an unmatched ')' or the end. */
static size_t
regex_alt_cost(const char **p, int depth)
{
    size_t total = 0, f;

    while (**p && **p != ')') {
        size_t c;

        if (**p == '|') {
            (*p)++;
            continue;
        }
        c = regex_atom_cost(p, depth);
        if ((f = regex_repeat(p))) {
            /* Each repetition adds nodes to the expression's epsilon
             * closures, and stacked ones ("a??*", undefined in POSIX)
             * make their computation explode: one per atom. */
            c = cost_mul(c, f + 1);
            if (regex_repeat(p))
                c = REGEX_MAX_COST + 1;
        }
        total = cost_add(total, c);
    }
    return total;
}

/* Whether the C library may compile REGEX within bounds. */
static int
regex_bounded(const char *regex)
{
    const char *p = regex;
    size_t c = 0;

    if (strlen(regex) > REGEX_MAX_LEN)
        return 0;
    while (*p) {
        c = cost_add(c, regex_alt_cost(&p, 0));
        if (*p == ')')
            p++;
    }
    return c <= REGEX_MAX_COST;
}

/* ignore=REGEX, compiled into T->ignore. */
static enum mc_code
check_regex(struct mc_target *t, const char *value, struct mc_err *err)
{
    char msg[128];
    int r;

    if (!*value)
        return mc_err_set(err, MC_EINVAL, "option 'ignore' is empty: "
                          "give a regular expression such as "
                          "'^elapsed: '");
    if (!regex_bounded(value))
        return mc_err_set(err, MC_EINVAL, "option 'ignore=%.60s%s': too "
                          "large once its repetitions are expanded (at "
                          "most %d bytes, no stacked repetitions such as "
                          "'a?*', and nested ones such as '(a+)+' or "
                          "'(x{1,100}){1,100}' kept small)",
                          value, strlen(value) > 60 ? "..." : "",
                          REGEX_MAX_LEN);
    t->ignore = mc_malloc(sizeof(*t->ignore));
    if (!t->ignore)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    r = regcomp(t->ignore, value, REG_EXTENDED | REG_NOSUB);
    if (r) {
        regerror(r, t->ignore, msg, sizeof(msg));
        mc_free(t->ignore);
        t->ignore = NULL;
        return mc_err_set(err, MC_EINVAL, "option 'ignore=%s': not a "
                          "POSIX extended regular expression: %s",
                          value, msg);
    }
    return MC_OK;
}

/* bins=S1+S2+S3, increasing. */
static enum mc_code
check_bins(const char *value, struct mc_err *err)
{
    struct mc_strv tmp = MC_STRV_INIT;
    double a, prev = 0;
    size_t count;
    enum mc_code rc;

    if (split_list(value, "+, \t", &tmp))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    for (count = 0; count < tmp.n; count++) {
        if (!is_number(tmp.v[count], &a) || a <= prev)
            break;
        prev = a;
    }
    rc = (tmp.n == BINS && count == BINS) ? MC_OK : MC_EINVAL;
    mc_strv_release(&tmp);
    if (rc)
        return mc_err_set(err, MC_EINVAL, "option 'bins=%s': expected "
                          "three increasing percentages S1+S2+S3, such "
                          "as 125+180+260", value);
    return MC_OK;
}

/* Words that the shell splitter takes: balanced quotes. */
static enum mc_code
check_words(const struct optdef *d, const char *value, struct mc_err *err)
{
    struct mc_strv tmp = MC_STRV_INIT;
    enum mc_code rc = mc_shell_split(value, &tmp, NULL);

    mc_strv_release(&tmp);
    if (rc)
        return mc_err_set(err, MC_EINVAL, "option '%s=%s': unbalanced "
                          "quotes", d->name, value);
    return MC_OK;
}

/* Check VALUE for option OPT; fill the target's lists on the way. */
static enum mc_code
check_value(struct mc_target *t, enum mc_opt opt, const char *value,
            struct mc_err *err)
{
    const struct optdef *d = &opts[opt];
    double a;

    switch (d->check) {
    case C_FILES:
        return check_files(value, &t->link, err);
    case C_GLOB:
        return expand_globs(d->name, value,
                            opt == MC_OPT_INPUTS ? &t->inputs
                                                 : &t->bench_inputs,
                            err);
    case C_WORDS:
        return check_words(d, value, err);
    case C_COMPARE:
        return check_compare(value, err);
    case C_TOL:
        return check_tol(value, err);
    case C_TEXT:
        if (*value)
            return MC_OK;
        return mc_err_set(err, MC_EINVAL, "option '%s' is empty", d->name);
    case C_IDENT:
        return check_kernel(t, value, err);
    case C_SETTING:
        return check_setting(t, d, value, err);
    case C_BOOL01:
        if (!strcmp(value, "0") || !strcmp(value, "1"))
            return MC_OK;
        return mc_err_set(err, MC_EINVAL, "option '%s=%s': expected 0 or 1",
                          d->name, value);
    case C_NATIVE:
        if (!strcmp(value, "native"))
            return MC_OK;
        return mc_err_set(err, MC_EINVAL, "option 'isa=%s': the only value "
                          "is 'native'", value);
    case C_POSINT:
        return check_posint(d, value, err);
    case C_POSNUM:
        if (is_number(value, &a) && a > 0)
            return MC_OK;
        return mc_err_set(err, MC_EINVAL, "option '%s=%s': expected a "
                          "number > 0", d->name, value);
    case C_PATHS:
        return expand_paths(value, &t->files, err);
    case C_REGEX:
        return check_regex(t, value, err);
    case C_BINS:
        return check_bins(value, err);
    }
    return mc_err_set(err, MC_EINTERNAL, "option '%s' has no check",
                      d->name);
}

/* Set option OPT to the words of LIST, when it was given. */
static enum mc_code
pin_list(struct mc_target *t, enum mc_opt opt, const struct mc_strv *list)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t i;

    if (!t->opt[opt])
        return MC_OK;
    for (i = 0; i < list->n; i++)
        mc_buf_addf(&b, "%s%s", i ? " " : "", list->v[i]);
    if (mc_buf_status(&b))
        return MC_ENOMEM;
    mc_free(t->opt[opt]);
    t->opt[opt] = mc_buf_detach(&b, NULL);
    return t->opt[opt] ? MC_OK : MC_ENOMEM;
}

/* The file lists as found (through VPATH), so that `maxcode optimize`
 * finds the same files without it. */
static enum mc_code
pin_lists(struct mc_target *t)
{
    enum mc_code rc = pin_list(t, MC_OPT_LINK, &t->link);

    if (!rc)
        rc = pin_list(t, MC_OPT_INPUTS, &t->inputs);
    if (!rc)
        rc = pin_list(t, MC_OPT_BENCH_INPUTS, &t->bench_inputs);
    return rc;
}

/* MC_EINVAL: SOURCE is of no language in the table. */
static enum mc_code
not_source(const char *source, struct mc_err *err)
{
    struct mc_buf names = MC_BUF_INIT, exts = MC_BUF_INIT;
    enum mc_code rc;

    if (mc_lang_add_names(&names) || mc_lang_add_exts(&exts))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else
        rc = mc_err_set(err, MC_EINVAL, "SOURCE '%s' is not %s (%s)",
                        source, names.s, exts.s);
    mc_buf_release(&names);
    mc_buf_release(&exts);
    return rc;
}

enum mc_code
mc_target_parse(struct mc_target *t, const char *source, char *const *args,
                size_t n, struct mc_conf *base, struct mc_err *err)
{
    const struct mc_lang_info *lang;
    enum mc_code rc = MC_OK;
    struct stat st;
    size_t i;

    memset(t, 0, sizeof(*t));
    t->conf = *base;
    memset(base, 0, sizeof(*base));
    if (!*source)
        return mc_err_set(err, MC_EINVAL, "missing SOURCE: write "
                          "$(maxcode path/to/file.c[, KEY=VALUE]...)");
    if (strchr(source, '=') && stat(source, &st))
        return mc_err_set(err, MC_EINVAL, "the first argument must be "
                          "SOURCE, not the option '%s'", source);
    if (strpbrk(source, " \t"))
        return mc_err_set(err, MC_EINVAL, "SOURCE '%s' must be one file "
                          "(use $(maxcode-marked ...) for a list)", source);
    t->source = vpath_find(source);
    if (!t->source)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!(lang = mc_lang_of_path(source)))
        return not_source(source, err);
    t->lang = lang->lang;
    if (stat(t->source, &st) || !S_ISREG(st.st_mode))
        return mc_err_set(err, MC_EINVAL, "SOURCE '%s' not found%s", source,
                          vpath_dirs.n ? " (nor on VPATH)" : "");
    {
        char *real = realpath(t->source, NULL);
        if (!real)
            return mc_err_set(err, MC_EIO, "cannot resolve '%s': %s",
                              source, strerror(errno));
        t->source_real = mc_strdup(real);
        free(real); /* from realpath() */
        if (!t->source_real)
            return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    for (i = 0; i < n; i++) {
        const char *a = args[i], *eq = strchr(a, '=');
        int opt;

        if (!*a)
            return mc_err_set(err, MC_EINVAL, "empty argument %zu (a stray "
                              "comma?)", i + 2);
        if (!eq || eq == a)
            return mc_err_set(err, MC_EINVAL, "argument '%s' is not "
                              "KEY=VALUE", a);
        opt = lookup_opt(a, (size_t)(eq - a));
        if (opt < 0)
            return mc_err_set(err, MC_EINVAL, "unknown option '%.*s' "
                              "(known: %s)", (int)(eq - a), a, known_list());
        if (t->opt[opt])
            return mc_err_set(err, MC_EINVAL, "option '%s' given twice",
                              opts[opt].name);
        t->opt[opt] = mc_strdup(eq + 1);
        if (!t->opt[opt])
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        rc = check_value(t, (enum mc_opt)opt, eq + 1, err);
        if (rc)
            return rc;
    }
    if (!t->opt[MC_OPT_BENCH_INPUTS] && t->inputs.n)
        rc = mc_strv_extend(&t->bench_inputs, &t->inputs);
    /* Found on VPATH: the rule's command line names what was found. */
    if (!rc && vpath_dirs.n)
        rc = pin_lists(t);
    return rc ? mc_err_set(err, rc, "out of memory") : MC_OK;
}

enum mc_code
mc_target_parse_marked(struct mc_target *t, const char *source,
                       char *const *args, size_t n, struct mc_conf *base,
                       struct mc_err *err)
{
    struct mc_mark m = MC_MARK_INIT;
    struct mc_strv all = MC_STRV_INIT;
    struct mc_buf text = MC_BUF_INIT;
    struct mc_err inner = MC_ERR_INIT;
    enum mc_code rc;
    char *found;
    size_t i, j;

    /* The source is read once: for its marks here, for the key later. */
    found = *source ? vpath_find(source) : NULL;
    rc = found ? mc_file_read(found, &text, err) : MC_ENOENT;
    mc_free(found);
    if (rc == MC_ENOENT) {
        mc_err_clear(err);
        rc = MC_OK; /* mc_target_parse() reports a missing SOURCE */
    } else if (!rc && (rc = mc_mark_scan(text.s, text.len, &m, &inner))) {
        mc_err_set(err, rc, "%s:%s", source, inner.msg);
    }
    for (i = 0; !rc && i < m.options.n; i++) {
        const char *o = m.options.v[i];
        size_t klen = strcspn(o, "=");
        int overridden = 0;

        for (j = 0; j < n; j++)
            if (!strncmp(args[j], o, klen) && args[j][klen] == '=')
                overridden = 1;
        if (!overridden && mc_strv_push(&all, o))
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    for (j = 0; !rc && j < n; j++)
        if (mc_strv_push(&all, args[j]))
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc) {
        /* BASE moves into T whatever the outcome, as target.h says. */
        memset(t, 0, sizeof(*t));
        t->conf = *base;
        memset(base, 0, sizeof(*base));
        mc_buf_release(&text);
    } else {
        rc = mc_target_parse(t, source, all.v, all.n, base, err);
        t->text = text;
    }
    mc_mark_release(&m);
    mc_strv_release(&all);
    return rc;
}

void
mc_target_release(struct mc_target *t)
{
    size_t i;

    mc_free(t->source);
    mc_free(t->source_real);
    for (i = 0; i < MC_OPT__COUNT; i++)
        mc_free(t->opt[i]);
    mc_strv_release(&t->link);
    mc_strv_release(&t->inputs);
    mc_strv_release(&t->bench_inputs);
    mc_conf_release(&t->conf);
    mc_free(t->compiler);
    mc_strv_release(&t->flags);
    mc_free(t->linker);
    mc_free(t->gpu);
    mc_free(t->native_arch);
    mc_strv_release(&t->ldflags);
    mc_strv_release(&t->ldlibs);
    mc_strv_release(&t->files);
    if (t->ignore) {
        regfree(t->ignore);
        mc_free(t->ignore);
    }
    if (t->text.s)
        mc_buf_release(&t->text);
    memset(t, 0, sizeof(*t));
}

const char *
mc_target_opt_default(enum mc_opt opt, const struct mc_conf *conf,
                      enum mc_lang lang)
{
    if (opts[opt].check == C_SETTING)
        return mc_conf_get(conf, (enum mc_setting_id)opts[opt].setting);
    switch (opt) {
    case MC_OPT_COMPARE:
        return "both";
    case MC_OPT_BINS:
        return mc_lang_get(lang)->bins;
    default:
        return "";
    }
}

const char *
mc_target_get(const struct mc_target *t, enum mc_opt opt)
{
    /* A given setting option lives in T's conf (the argument layer). */
    if (opts[opt].check != C_SETTING && t->opt[opt])
        return t->opt[opt];
    return mc_target_opt_default(opt, &t->conf, t->lang);
}

const char *
mc_target_proposer(const struct mc_target *t)
{
    const char *p = mc_target_get(t, MC_OPT_PROPOSER);

    if (!strcmp(p, "auto"))
        return *mc_conf_get(&t->conf, MC_SET_LLM_URL) ||
                       *mc_conf_get(&t->conf, MC_SET_LLM_REPLAY)
                   ? "llm"
                   : "builtin";
    return !strcmp(p, "llm") ? "llm" : "builtin";
}

const char *
mc_target_name(const struct mc_target *t)
{
    const char *slash = strrchr(t->source, '/');

    return slash ? slash + 1 : t->source;
}

/* One entry of a files= tree into the hash ARG: a file by name and
 * content, a directory by name, a link (inside the tree) by name and
 * where it leads. */
static enum mc_code
hash_entry(const struct mc_tree_entry *e, void *arg, struct mc_err *err)
{
    struct mc_hash *h = arg;

    switch (e->kind) {
    case MC_TREE_FILE:
        mc_hash_field_str(h, "file-name", e->path);
        return mc_hash_field_fd(h, "file", e->fd, e->path, err);
    case MC_TREE_DIR:
        mc_hash_field_str(h, "dir-name", e->path);
        return MC_OK;
    case MC_TREE_LINK:
        mc_hash_field_str(h, "link-name", e->path);
        mc_hash_field_str(h, "link", e->target);
        return MC_OK;
    }
    return mc_err_set(err, MC_EINTERNAL, "'%s': unknown entry", e->path);
}

/* Hash the files= entry PATH (a file, or a directory with everything
 * under it, in name order) under the rule of tree.h. */
static enum mc_code
hash_tree(struct mc_hash *h, const char *path, struct mc_err *err)
{
    return mc_tree_walk(path, hash_entry, h, err);
}

/* The identity of the compiler COMPILER of T into *OUT. */
static enum mc_code
identity(const struct mc_target *t, const char *compiler, const char **out,
         struct mc_err *err)
{
    return mc_compiler_identity(compiler,
                                mc_conf_get(&t->conf, MC_SET_COMPILER_CHECK),
                                mc_conf_get(&t->conf, MC_SET_CACHE_DIR), out,
                                err);
}

/* The build: compiler, GPU or native architecture, flags, linker. */
static enum mc_code
hash_build(struct mc_hash *h, const struct mc_target *t, struct mc_err *err)
{
    const char *ident;
    enum mc_code rc;
    size_t i;

    if ((rc = identity(t, t->compiler ? t->compiler : "", &ident, err)))
        return rc;
    mc_hash_field_str(h, "compiler", ident);
    if (mc_lang_get(t->lang)->kernels)
        /* A variant tuned on one GPU is not served on another. */
        mc_hash_field_str(h, "gpu", t->gpu ? t->gpu : "unprobed");
    if (!strcmp(mc_target_get(t, MC_OPT_ISA), "native"))
        /* Nor one tuned for one CPU on another. */
        mc_hash_field_str(h, "native-arch", t->native_arch
                                                ? t->native_arch
                                                : MC_NATIVE_UNRESOLVED);
    for (i = 0; i < t->flags.n; i++)
        mc_hash_field_str(h, "flag", t->flags.v[i]);
    if (t->linker) {
        if ((rc = identity(t, t->linker, &ident, err)))
            return rc;
        mc_hash_field_str(h, "linker", ident);
    }
    for (i = 0; i < t->ldflags.n; i++)
        mc_hash_field_str(h, "ldflag", t->ldflags.v[i]);
    for (i = 0; i < t->ldlibs.n; i++)
        mc_hash_field_str(h, "ldlib", t->ldlibs.v[i]);
    return MC_OK;
}

/* Each file of LIST by name (relative to CWD when inside it) and
 * contents, as fields NAME-name and NAME. */
static enum mc_code
hash_files(struct mc_hash *h, const char *name, const struct mc_strv *list,
           const char *cwd, struct mc_err *err)
{
    char field[32];
    enum mc_code rc = MC_OK;
    size_t i;

    snprintf(field, sizeof(field), "%s-name", name);
    for (i = 0; i < list->n && !rc; i++) {
        mc_hash_field_str(h, field, mc_path_in_dir(list->v[i], cwd));
        rc = mc_hash_field_file(h, name, list->v[i], err);
    }
    return rc;
}

/* SOURCE, link files, inputs and files= trees. */
static enum mc_code
hash_sources(struct mc_hash *h, const struct mc_target *t,
             struct mc_err *err)
{
    char cwd[PATH_MAX];
    enum mc_code rc;
    size_t i;

    if (!getcwd(cwd, sizeof(cwd)))
        cwd[0] = '\0';
    /* The path matters: the variant's #line and include rewriting name
     * it, and two copies of a file in two directories are two units.
     * Where the checkout is does not. */
    mc_hash_field_str(h, "source-name", mc_path_in_dir(t->source, cwd));
    if (t->text.cap)
        mc_hash_field(h, "source", t->text.s, t->text.len);
    else if ((rc = mc_hash_field_file(h, "source", t->source, err)))
        return rc;
    if ((rc = hash_build(h, t, err)) ||
        (rc = hash_files(h, "link", &t->link, cwd, err)) ||
        (rc = hash_files(h, "input", &t->inputs, cwd, err)) ||
        (rc = hash_files(h, "bench-input", &t->bench_inputs, cwd, err)))
        return rc;
    for (i = 0; i < t->files.n && !rc; i++)
        rc = hash_tree(h, t->files.v[i], err);
    return rc;
}

/* Every other option's effective value, the model, and for a
 * model-driven search what shapes its prompts. */
static void
hash_options(struct mc_hash *h, const struct mc_target *t,
             const struct mc_key_versions *v)
{
    size_t i;

    for (i = 0; i < MC_OPT__COUNT; i++) {
        if (i == MC_OPT_LINK || i == MC_OPT_INPUTS ||
            i == MC_OPT_BENCH_INPUTS || i == MC_OPT_CFLAGS ||
            i == MC_OPT_FILES)
            continue; /* hashed by content */
        mc_hash_field_str(h, opts[i].name, mc_target_get(t, (enum mc_opt)i));
    }
    mc_hash_field_str(h, "model", mc_conf_get(&t->conf, MC_SET_MODEL));
    if (!strcmp(mc_target_proposer(t), "llm")) {
        const char *critic = mc_conf_get(&t->conf, MC_SET_CRITIC_MODEL);

        mc_hash_field_str(h, "proposer-resolved", "llm");
        mc_hash_field_str(h, "llm-api",
                          mc_conf_get(&t->conf, MC_SET_LLM_API));
        mc_hash_field_str(h, "critic-model",
                          *critic ? critic
                                  : mc_conf_get(&t->conf, MC_SET_MODEL));
        mc_hash_field_str(h, "prompt-version", v->prompt_version);
    }
    if (!strcmp(mc_target_get(t, MC_OPT_STRATEGY), "gvf") &&
        v->value_model) {
        struct mc_buf id = MC_BUF_INIT;

        /* Out of memory hashes "": a key, if not the usual one. */
        v->value_model(t, &id);
        mc_hash_field_str(h, "value-model", id.s ? id.s : "");
        mc_buf_release(&id);
    }
}

enum mc_code
mc_target_key_with(const struct mc_target *t, const struct mc_key_versions *v,
                   int trace, char hex[MC_KEY_HEX + 1], struct mc_err *err)
{
    struct mc_digest d;
    struct mc_hash h;
    enum mc_code rc;

    if (!v || !v->entry_format || !v->prompt_version)
        return mc_err_set(err, MC_EINTERNAL, "the key's versions are "
                          "not given");
    if (mc_hash_init(&h))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_hash_set_trace(&h, trace);
    mc_hash_field_str(&h, "entry-format", v->entry_format);
    mc_hash_field_str(&h, "lang", mc_lang_get(t->lang)->key_name);
    rc = hash_sources(&h, t, err);
    if (!rc) {
        hash_options(&h, t, v);
        mc_hash_digest(&h, &d);
        mc_digest_hex(&d, hex);
    }
    mc_hash_release(&h);
    return rc;
}

enum mc_code
mc_target_args(const struct mc_target *t, struct mc_strv *out)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t i;

    for (i = 0; i < MC_OPT__COUNT; i++) {
        if (!t->opt[i] && opts[i].check != C_SETTING)
            continue;
        mc_buf_reset(&b);
        mc_buf_addf(&b, "%s=%s", opts[i].name,
                    mc_target_get(t, (enum mc_opt)i));
        if (mc_buf_status(&b) || mc_strv_push(out, b.s)) {
            mc_buf_release(&b);
            return MC_ENOMEM;
        }
    }
    mc_buf_release(&b);
    return MC_OK;
}

/* Append the shell words of make variable NAME to OUT. */
static enum mc_code
add_var_words(mc_target_var_fn var, void *ctx, const char *name,
              struct mc_strv *out, struct mc_err *err)
{
    char *v = var(name, ctx);
    enum mc_code rc = MC_OK;

    if (v && mc_shell_split(v, out, NULL))
        rc = mc_err_set(err, MC_EINVAL, "$(%s) has unbalanced quotes: "
                        "'%.80s'", name, v);
    mc_free(v);
    return rc;
}

/* Whether a link file of T is C++ source, so that the test executable
 * links with the C++ compiler. */
static int
links_cxx(const struct mc_target *t)
{
    const struct mc_lang_info *lang;
    size_t i;

    for (i = 0; i < t->link.n; i++)
        if ((lang = mc_lang_of_path(t->link.v[i])) != NULL &&
            lang->lang == MC_LANG_CXX)
            return 1;
    return 0;
}

enum mc_code
mc_target_resolve_build(struct mc_target *t, mc_target_var_fn var,
                        void *ctx, int *from_db, struct mc_err *err)
{
    const struct mc_lang_info *lang = mc_lang_get(t->lang);
    const struct mc_lang_info *cxx = mc_lang_get(MC_LANG_CXX);
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    const char *db = mc_conf_get(&t->conf, MC_SET_COMPDB);
    enum mc_code rc = MC_OK;
    int found = 0;

    *from_db = 0;
    mc_free(t->compiler);
    t->compiler = NULL;
    mc_strv_release(&t->flags);
    if (!*db && access("compile_commands.json", R_OK) == 0)
        db = "compile_commands.json";
    if (*db) {
        rc = mc_compdb_find(db, t->source, &e, &found, err);
        if (rc)
            goto out;
    }
    if (found) {
        *from_db = 1;
        t->compiler = mc_strdup(e.compiler);
        if (!t->compiler || mc_strv_extend(&t->flags, &e.flags)) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
    } else {
        char *cc = var(lang->cc_var, ctx);

        if (cc && !*cc) {
            mc_free(cc);
            cc = NULL;
        }
        t->compiler = cc ? cc : mc_strdup(lang->cc_default);
        if (!t->compiler) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
        rc = add_var_words(var, ctx, "CPPFLAGS", &t->flags, err);
        if (!rc)
            rc = add_var_words(var, ctx, lang->flags_var, &t->flags, err);
        if (rc)
            goto out;
    }
    if (t->opt[MC_OPT_CFLAGS]) {
        mc_strv_release(&t->flags);
        if (mc_shell_split(t->opt[MC_OPT_CFLAGS], &t->flags, err)) {
            rc = mc_err_set(err, MC_EINVAL, "option 'cflags': unbalanced "
                            "quotes");
            goto out;
        }
    }
    /* Linking as make's built-in rule does: $(LDFLAGS) ... $(LDLIBS). */
    mc_free(t->linker);
    t->linker = NULL;
    mc_strv_release(&t->ldflags);
    mc_strv_release(&t->ldlibs);
    rc = add_var_words(var, ctx, "LDFLAGS", &t->ldflags, err);
    if (!rc)
        rc = add_var_words(var, ctx, "LDLIBS", &t->ldlibs, err);
    if (!rc && t->lang == MC_LANG_C && links_cxx(t)) {
        char *ld = var(cxx->cc_var, ctx);

        if (ld && !*ld) {
            mc_free(ld);
            ld = NULL;
        }
        t->linker = ld ? ld : mc_strdup(cxx->cc_default);
        if (!t->linker)
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    }
out:
    mc_compdb_entry_release(&e);
    return rc;
}

enum mc_code
mc_target_override_build(struct mc_target *t, const char *cc,
                         const char *flags, const char *ld,
                         const char *ldflags, const char *ldlibs,
                         struct mc_err *err)
{
    const struct {
        const char *opt, *value;
        struct mc_strv *to;
    } lists[] = {
        {"--flags", flags, &t->flags},
        {"--ldflags", ldflags, &t->ldflags},
        {"--ldlibs", ldlibs, &t->ldlibs},
    };
    size_t i;

    if (cc) {
        mc_free(t->compiler);
        if (!(t->compiler = mc_strdup(cc)))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    if (ld) {
        mc_free(t->linker);
        t->linker = NULL;
        if (*ld && !(t->linker = mc_strdup(ld)))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    for (i = 0; i < MC_ARRAY_SIZE(lists); i++) {
        if (!lists[i].value)
            continue;
        mc_strv_release(lists[i].to);
        if (mc_shell_split(lists[i].value, lists[i].to, NULL))
            return mc_err_set(err, MC_EINVAL, "%s: unbalanced quotes: "
                              "'%.80s'", lists[i].opt, lists[i].value);
    }
    return MC_OK;
}

void
mc_target_drop_ignored(const struct mc_target *t, struct mc_buf *b)
{
    size_t in = 0, out = 0;

    if (!t->ignore || !b->len)
        return;
    while (in < b->len) {
        char *nl = memchr(b->s + in, '\n', b->len - in);
        size_t end = nl ? (size_t)(nl - b->s) : b->len;
        size_t next = nl ? end + 1 : end;
        int drop;

        b->s[end] = '\0'; /* the line alone; restored below */
        drop = regexec(t->ignore, b->s + in, 0, NULL, 0) == 0;
        if (nl)
            b->s[end] = '\n';
        if (!drop) {
            memmove(b->s + out, b->s + in, next - in);
            out += next - in;
        }
        in = next;
    }
    b->len = out;
    b->s[out] = '\0';
}
