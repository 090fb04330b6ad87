/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target_resolve.c: what a target's names stand for. Files as make finds
 * prerequisites (VPATH), the globs of inputs= and bench-inputs=, the
 * link= files and the files= trees (checked to stay inside make's
 * directory), and the build: the compiler, flags and link line from the
 * compile DB or make's variables, or a command line's overrides. See
 * target.h; the option checks of target.c call the list expanders
 * through target_int.h.
 */
#include "mc_setup.h"
#include "target.h"
#include "target_int.h"
#include "alloc.h"
#include "buf.h"
#include "compdb.h"
#include "paths.h"
#include "tree.h"

#include <glob.h>

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
    return vpath ? mc_target_split_list(vpath, ": \t", &vpath_dirs) : MC_OK;
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

size_t
mc_target_vpath_count(void)
{
    return vpath_dirs.n;
}

/* ---- Files the build makes ---- */

static int made_ok;

void
mc_target_allow_made(int allow)
{
    made_ok = allow;
}

/* Whether NAME, which is not there, may be a file the build makes: a
 * plain name (a glob that matches nothing is a mistake), under
 * mc_target_allow_made(). */
static int
may_be_made(const char *name)
{
    return made_ok && *name && !strpbrk(name, "*?[");
}

/* NAME, not made yet, into OUT and MADE (once each). */
static enum mc_code
add_made(const char *name, struct mc_strv *out, struct mc_strv *made)
{
    if ((!mc_strv_contains(out, name) && mc_strv_push(out, name)) ||
        (!mc_strv_contains(made, name) && mc_strv_push(made, name)))
        return MC_ENOMEM;
    return MC_OK;
}

enum mc_code
mc_target_expand_globs(const char *name, const char *value,
                       struct mc_strv *out, struct mc_strv *made,
                       struct mc_err *err)
{
    struct mc_strv pats = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    size_t i, j;

    if (mc_target_split_list(value, " \t,", &pats)) {
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
            if (may_be_made(pats.v[i])) {
                if (add_made(pats.v[i], out, made)) {
                    rc = mc_err_set(err, MC_ENOMEM, "out of memory");
                    goto out;
                }
                continue;
            }
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

enum mc_code
mc_target_check_files(const char *value, struct mc_strv *out,
                      struct mc_strv *made, struct mc_err *err)
{
    struct mc_strv words = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    if (mc_target_split_list(value, " \t,", &words)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    for (i = 0; i < words.n && !rc; i++) {
        struct stat st;

        /* "a.c+b.c" lists two files, unless a file has that name. */
        if (stat(words.v[i], &st) && strchr(words.v[i], '+')) {
            rc = mc_target_split_list(words.v[i], "+", out);
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

        if (stat(out->v[i], &st) && errno == ENOENT &&
            may_be_made(out->v[i])) {
            if (!mc_strv_contains(made, out->v[i]) &&
                mc_strv_push(made, out->v[i])) {
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
                goto out;
            }
            continue;
        }
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

    if (!strcmp(p, ".") || mc_target_climbs(p) || p[0] == '/') {
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

enum mc_code
mc_target_expand_paths(const char *value, struct mc_strv *out,
                       struct mc_strv *made, struct mc_err *err)
{
    struct mc_strv pats = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    char cwd[PATH_MAX];
    size_t i, j;

    if (mc_target_split_list(value, " \t,", &pats)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (!pats.n) {
        rc = mc_err_set(err, MC_EINVAL, "files is empty: name the files "
                        "or directories a run reads, e.g. files=data/*.txt");
        goto out;
    }
    if (!mc_path_cwd(cwd, sizeof(cwd))) {
        rc = mc_err_set(err, MC_EIO, "cannot find make's directory: %s",
                        strerror(errno));
        goto out;
    }
    for (i = 0; i < pats.n && !rc; i++) {
        glob_t g;
        int r, self = 0;

        if (pats.v[i][0] == '/' || mc_target_climbs(pats.v[i])) {
            rc = mc_err_set(err, MC_EINVAL, "files '%s': name it relative "
                            "to make's directory and inside it (each run "
                            "gets it at that path)", pats.v[i]);
            goto out;
        }
        r = glob(pats.v[i], 0, NULL, &g);
        if (r == GLOB_NOMATCH || (r == 0 && g.gl_pathc == 0)) {
            const char *p = pats.v[i];

            if (r == 0)
                globfree(&g);
            while (p[0] == '.' && p[1] == '/')
                p += 2 + strspn(p + 2, "/");
            if (may_be_made(p) && strcmp(p, ".")) {
                if (add_made(p, out, made)) {
                    rc = mc_err_set(err, MC_ENOMEM, "out of memory");
                    goto out;
                }
                continue;
            }
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

void
mc_target_link_build_release(struct mc_target *t)
{
    size_t i;

    if (!t->link_build)
        return;
    for (i = 0; i < t->link.n; i++) {
        mc_free(t->link_build[i].compiler);
        mc_strv_release(&t->link_build[i].flags);
    }
    mc_free(t->link_build);
    t->link_build = NULL;
}

/*
 * Each link file's build into T->link_build: a source of the language
 * table whose compile DB entry is found (E[I], FOUND[I]; E NULL when
 * there is no DB) gets the entry's compiler and flags; else, with
 * link-flags= given, those flags; else SOURCE's (MC_LINK_FROM_SOURCE).
 * Objects and libraries are not compiled: SOURCE's, which leaves them
 * on the link line.
 */
static enum mc_code
resolve_links(struct mc_target *t, const struct mc_compdb_entry *e,
              const int *found, struct mc_err *err)
{
    const char *opt = t->opt[MC_OPT_LINK_FLAGS];
    enum mc_code rc = MC_OK;
    size_t i;

    mc_target_link_build_release(t);
    if (!t->link.n)
        return MC_OK;
    t->link_build = mc_calloc(t->link.n, sizeof(*t->link_build));
    if (!t->link_build)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    for (i = 0; i < t->link.n; i++)
        mc_strv_init(&t->link_build[i].flags);
    for (i = 0; !rc && i < t->link.n; i++) {
        struct mc_link_build *lb = &t->link_build[i];

        if (!mc_lang_of_path(t->link.v[i]))
            continue;
        if (e && found[i]) {
            lb->from = MC_LINK_FROM_DB;
            lb->compiler = mc_strdup(e[i].compiler);
            if (!lb->compiler || mc_strv_extend(&lb->flags, &e[i].flags))
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        } else if (opt) {
            lb->from = MC_LINK_FROM_OPTION;
            if (mc_shell_split(opt, &lb->flags, NULL))
                rc = mc_err_set(err, MC_EINVAL, "option 'link-flags': "
                                "unbalanced quotes");
        }
    }
    return rc;
}

/* The compile DB DB's entries of SOURCE (E[0], FOUND[0]) and of each
 * link file (E[1 + I]), read once: into *E and *FOUND, arrays of 1 +
 * link files that the caller frees (free_entries()). */
static enum mc_code
find_entries(const struct mc_target *t, const char *db,
             struct mc_compdb_entry **e, int **found, struct mc_err *err)
{
    char **names;
    size_t i, n = 1 + t->link.n;
    enum mc_code rc;

    *e = mc_calloc(n, sizeof(**e));
    *found = mc_calloc(n, sizeof(**found));
    names = mc_calloc(n, sizeof(*names));
    if (!*e || !*found || !names) {
        mc_free(names);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    names[0] = t->source;
    for (i = 0; i < t->link.n; i++)
        names[1 + i] = t->link.v[i];
    rc = mc_compdb_find_each(db, names, n, *e, *found, err);
    mc_free(names);
    return rc;
}

/* Free what find_entries() made for T. */
static void
free_entries(const struct mc_target *t, struct mc_compdb_entry *e,
             int *found)
{
    size_t i;

    for (i = 0; e && i < 1 + t->link.n; i++)
        mc_compdb_entry_release(&e[i]);
    mc_free(e);
    mc_free(found);
}

const char *
mc_target_link_compiler(const struct mc_target *t, size_t i)
{
    const struct mc_lang_info *lang = mc_lang_of_path(t->link.v[i]);

    if (t->link_build && t->link_build[i].compiler)
        return t->link_build[i].compiler;
    if (t->linker && lang && lang->lang != t->lang)
        return t->linker;
    return t->compiler ? t->compiler : "";
}

const char *
mc_target_link_from(const struct mc_target *t, size_t i)
{
    static const char *const names[] = {
        [MC_LINK_FROM_SOURCE] = "SOURCE's flags",
        [MC_LINK_FROM_DB] = "compile DB",
        [MC_LINK_FROM_OPTION] = "link-flags",
    };

    return names[t->link_build ? t->link_build[i].from
                               : MC_LINK_FROM_SOURCE];
}

enum mc_code
mc_target_link_command(const struct mc_target *t, size_t i,
                       struct mc_strv *out)
{
    const struct mc_link_build *lb = t->link_build ? &t->link_build[i]
                                                   : NULL;

    if (!lb || lb->from == MC_LINK_FROM_SOURCE)
        return MC_OK;
    if (mc_shell_split(mc_target_link_compiler(t, i), out, NULL))
        return MC_EINVAL;
    mc_strv_extend(out, &lb->flags);
    mc_strv_push(out, "-c");
    mc_strv_push(out, t->link.v[i]);
    return mc_strv_status(out) ? MC_ENOMEM : MC_OK;
}

/* Whether make's directory has a compile_commands.json to read: asked
 * once per process where the directory is pinned (make's), else at each
 * call. */
static int
default_db(void)
{
    static int known, there;

    if (known)
        return there;
    there = access("compile_commands.json", R_OK) == 0;
    known = mc_path_cwd_pinned();
    return there;
}

enum mc_code
mc_target_resolve_build(struct mc_target *t, mc_target_var_fn var,
                        void *ctx, int *from_db, struct mc_err *err)
{
    const struct mc_lang_info *lang = mc_lang_get(t->lang);
    const struct mc_lang_info *cxx = mc_lang_get(MC_LANG_CXX);
    struct mc_compdb_entry none = MC_COMPDB_ENTRY_INIT, *es = NULL;
    const struct mc_compdb_entry *e = &none;
    const char *db = mc_conf_get(&t->conf, MC_SET_COMPDB);
    enum mc_code rc = MC_OK;
    int found = 0, *founds = NULL;

    *from_db = 0;
    mc_free(t->compiler);
    t->compiler = NULL;
    mc_strv_release(&t->flags);
    mc_strv_release(&t->db_others);
    if (!*db && default_db())
        db = "compile_commands.json";
    if (*db) {
        /* SOURCE's entry and the link files', the DB read once. */
        rc = find_entries(t, db, &es, &founds, err);
        if (rc)
            goto out;
        e = &es[0];
        found = founds[0];
    }
    if (found) {
        *from_db = 1;
        t->compiler = mc_strdup(e->compiler);
        if (!t->compiler || mc_strv_extend(&t->flags, &e->flags) ||
            mc_strv_extend(&t->db_others, &e->others)) {
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
    t->flags_from_make = !found && !t->opt[MC_OPT_CFLAGS];
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
    /* The entry's -L and -l: for the link, not for SOURCE's compile. */
    if (!rc && found && (mc_strv_extend(&t->ldflags, &e->ldflags) ||
                         mc_strv_extend(&t->ldlibs, &e->ldlibs)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
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
    if (!rc)
        rc = resolve_links(t, es ? es + 1 : NULL, founds ? founds + 1 : NULL,
                           err);
out:
    free_entries(t, es, founds);
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
