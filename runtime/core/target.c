/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target.c: the options of one marked unit: their table, their checks,
 * parsing $(maxcode SOURCE, ...) and its pragmas, and each option's
 * effective value. Finding the files a target names (VPATH, globs) and
 * its build are in target_resolve.c; its content key in key.c.
 */
#include "mc_setup.h"
#include "target.h"
#include "target_int.h"
#include "alloc.h"
#include "buf.h"
#include "file.h"
#include "mark.h"

#include <ctype.h>
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
    [MC_OPT_LINK_FLAGS] = {"link-flags", C_WORDS, -1},
};

const char *
mc_target_opt_name(enum mc_opt opt)
{
    return opts[opt].name;
}

/* MC_EINVAL: the option NAME (LEN bytes) is none of opts[]; the message
 * lists them. */
static enum mc_code
unknown_opt(const char *name, size_t len, struct mc_err *err)
{
    struct mc_buf known = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    for (i = 0; i < MC_OPT__COUNT; i++)
        mc_buf_addf(&known, "%s%s", i ? ", " : "", opts[i].name);
    if (mc_buf_status(&known))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else
        rc = mc_err_set(err, MC_EINVAL, "unknown option '%.*s' (known: %s)",
                        (int)len, name, known.s);
    mc_buf_release(&known);
    return rc;
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

enum mc_code
mc_target_split_list(const char *value, const char *seps, struct mc_strv *out)
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

int
mc_target_climbs(const char *path)
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
    if (name[0] == '/' || mc_target_climbs(name))
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

    if (mc_target_split_list(value, "+, \t", &tmp))
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
        return mc_target_check_files(value, &t->link, &t->made, err);
    case C_GLOB:
        return mc_target_expand_globs(d->name, value,
                                      opt == MC_OPT_INPUTS
                                          ? &t->inputs
                                          : &t->bench_inputs,
                                      &t->made, err);
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
        return mc_target_expand_paths(value, &t->files, &t->made, err);
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
    t->source = mc_target_find(source);
    if (!t->source)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!(lang = mc_lang_of_path(source)))
        return not_source(source, err);
    t->lang = lang->lang;
    if (stat(t->source, &st) || !S_ISREG(st.st_mode))
        return mc_err_set(err, MC_EINVAL, "SOURCE '%s' not found%s", source,
                          mc_target_vpath_count() ? " (nor on VPATH)" : "");
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
            return unknown_opt(a, (size_t)(eq - a), err);
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
    if (!rc && mc_target_vpath_count())
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
    found = *source ? mc_target_find(source) : NULL;
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
    mc_strv_release(&t->db_others);
    mc_target_link_build_release(t);
    mc_strv_release(&t->files);
    mc_strv_release(&t->made);
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
mc_target_name(const struct mc_target *t)
{
    const char *slash = strrchr(t->source, '/');

    return slash ? slash + 1 : t->source;
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
