/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compdb.c: finding one source file's entry in a compile_commands.json
 * and cleaning its flags so that they can be reused to compile a variant
 * of the file elsewhere. The accepted format and the matching rules are
 * described in compdb.h.
 */
#include "mc_setup.h"
#include "compdb.h"
#include "alloc.h"
#include "buf.h"
#include "flags.h"
#include "lang.h"
#include "paths.h"

#include <cjson/cJSON.h>
#include <ctype.h>

/* Options whose argument is a path that is relative to the compilation's
 * directory: kept together with it (flags.c rebases the path). */
static const char *const path_opts[] = {
    "-I", "-iquote", "-isystem", "-idirafter", "-include", "-imacros",
};

/* Options whose separate argument stays with them, whatever it looks
 * like (an argument is never an input file). */
static const char *const arg_opts[] = {
    "-x", "-D", "-U", "-u", "-z", "-e", "-B", "-T", "-Xlinker",
    "-Xassembler", "-Xpreprocessor", "--param", "-iprefix", "-iwithprefix",
    "-iwithprefixbefore", "-isysroot",
};

void
mc_compdb_entry_init(struct mc_compdb_entry *e)
{
    e->compiler = NULL;
    mc_strv_init(&e->flags);
    e->directory = NULL;
    mc_strv_init(&e->ldflags);
    mc_strv_init(&e->ldlibs);
    mc_strv_init(&e->others);
}

void
mc_compdb_entry_release(struct mc_compdb_entry *e)
{
    mc_free(e->compiler);
    mc_strv_release(&e->flags);
    mc_free(e->directory);
    mc_strv_release(&e->ldflags);
    mc_strv_release(&e->ldlibs);
    mc_strv_release(&e->others);
    mc_compdb_entry_init(e);
}

static enum mc_code
oom(struct mc_err *err)
{
    return mc_err_set(err, MC_ENOMEM, "out of memory");
}

/* Read all of PATH into B. *MISSING is set (and MC_OK returned) when
 * PATH does not exist. */
static enum mc_code
read_db(const char *path, struct mc_buf *b, int *missing, struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    char chunk[8192];
    size_t n;
    FILE *f;

    *missing = 0;
    f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR) {
            *missing = 1;
            return MC_OK;
        }
        return mc_err_set(err, MC_EIO, "cannot open '%s': %s", path,
                          strerror(errno));
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (mc_buf_add(b, chunk, n)) {
            rc = oom(err);
            goto out;
        }
    }
    if (ferror(f))
        rc = mc_err_set(err, MC_EIO, "cannot read '%s': %s", path,
                        strerror(errno));
out:
    fclose(f);
    return rc;
}

/* Parse TEXT, the contents of PATH, into *ROOT (freed by the caller with
 * cJSON_Delete()). Trailing garbage and NUL bytes are errors. */
static enum mc_code
parse_db(const char *path, const struct mc_buf *text, cJSON **root,
         struct mc_err *err)
{
    const char *end = NULL, *p;
    unsigned long line = 1;

    if (strlen(text->s) != text->len)
        return mc_err_set(err, MC_ESYNTAX,
                          "'%s': not valid JSON: NUL byte at offset %lu",
                          path, (unsigned long)strlen(text->s));
    /* The length counts the NUL, which require_null_terminated wants. */
    *root = cJSON_ParseWithLengthOpts(text->s, text->len + 1, &end, 1);
    if (*root)
        return MC_OK;
    if (!end || end < text->s || end > text->s + text->len)
        end = text->s + text->len;
    for (p = text->s; p < end; p++)
        line += *p == '\n';
    return mc_err_set(err, MC_ESYNTAX, "'%s': not valid JSON (line %lu)",
                      path, line);
}

/* E's member NAME if it is a string, else NULL. */
static const char *
str_member(const cJSON *e, const char *name)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, name);

    return cJSON_IsString(m) ? m->valuestring : NULL;
}

/* Check that ROOT, read from PATH, has the shape given in compdb.h. */
static enum mc_code
check_shape(const char *path, const cJSON *root, struct mc_err *err)
{
    const cJSON *e;
    unsigned long i = 0;

    if (!root || !cJSON_IsArray(root))
        return mc_err_set(err, MC_ESYNTAX, "'%s': expected a JSON array of "
                          "compile commands", path);
    for (e = root->child; e; e = e->next, i++) {
        const cJSON *args, *a, *output;

        if (!cJSON_IsObject(e))
            return mc_err_set(err, MC_ESYNTAX,
                              "'%s': .[%lu] is not an object", path, i);
        if (!str_member(e, "directory"))
            return mc_err_set(err, MC_ESYNTAX, "'%s': .[%lu].directory is "
                              "missing or not a string", path, i);
        if (!str_member(e, "file"))
            return mc_err_set(err, MC_ESYNTAX, "'%s': .[%lu].file is "
                              "missing or not a string", path, i);
        output = cJSON_GetObjectItemCaseSensitive(e, "output");
        if (output && !cJSON_IsString(output))
            return mc_err_set(err, MC_ESYNTAX,
                              "'%s': .[%lu].output is not a string", path, i);
        args = cJSON_GetObjectItemCaseSensitive(e, "arguments");
        if (!args) {
            if (!str_member(e, "command"))
                return mc_err_set(err, MC_ESYNTAX,
                                  "'%s': .[%lu] has neither \"arguments\" "
                                  "(an array of strings) nor \"command\" "
                                  "(a string)", path, i);
            continue;
        }
        if (!cJSON_IsArray(args) || !args->child)
            return mc_err_set(err, MC_ESYNTAX, "'%s': .[%lu].arguments is "
                              "not a non-empty array", path, i);
        for (a = args->child; a; a = a->next)
            if (!cJSON_IsString(a))
                return mc_err_set(err, MC_ESYNTAX, "'%s': .[%lu].arguments "
                                  "holds something other than strings",
                                  path, i);
    }
    return MC_OK;
}

/* P, joined to DIR unless P is absolute. NULL if out of memory; the
 * caller frees the result with mc_free(). */
static char *
join_path(const char *dir, const char *p)
{
    struct mc_buf b = MC_BUF_INIT;

    if (*p != '/' && *dir) {
        mc_buf_adds(&b, dir);
        if (b.s[b.len - 1] != '/')
            mc_buf_addc(&b, '/');
    }
    mc_buf_adds(&b, p);
    return mc_buf_detach(&b, NULL);
}

/* Resolve P, relative to DIR, into REAL (PATH_MAX bytes). 1 if it
 * resolved, 0 if it did not (it does not exist, say), -1 if out of
 * memory. */
static int
resolve(const char *dir, const char *p, char *real)
{
    char *joined = join_path(dir, p);
    int ok;

    if (!joined)
        return -1;
    ok = realpath(joined, real) != NULL;
    mc_free(joined);
    return ok;
}

/* Whether REAL, an entry's resolved file, is a variant of the source
 * whose realpath is SRC: REAL is PREFIX/.maxcode/KEY/NAME and the first
 * line of PREFIX/.maxcode/KEY/.source is SRC. -1 if out of memory. */
static int
is_variant_of(const char *real, const char *src)
{
    static const char marker[] = "/.maxcode/";
    const size_t mlen = sizeof(marker) - 1;
    struct mc_buf path = MC_BUF_INIT;
    const char *name = strrchr(real, '/'), *key, *nl;
    char line[PATH_MAX + 2];
    size_t n, len;
    int rc = 0;
    FILE *f;

    if (!name || name == real)
        return 0;
    for (key = name; key > real && key[-1] != '/'; key--)
        ;
    if (key == name || (size_t)(key - real) < mlen ||
        memcmp(key - mlen, marker, mlen))
        return 0;
    mc_buf_add(&path, real, (size_t)(name - real));
    mc_buf_adds(&path, "/.source");
    if (mc_buf_status(&path)) {
        rc = -1;
        goto out;
    }
    f = fopen(path.s, "r");
    if (!f)
        goto out;
    n = fread(line, 1, sizeof(line), f);
    fclose(f);
    nl = memchr(line, '\n', n);
    len = nl ? (size_t)(nl - line) : n;
    rc = len == strlen(src) && !memcmp(line, src, len);
out:
    mc_buf_release(&path);
    return rc;
}

/* Entry E's argv (the DB's .[I]) into ARGV. */
static enum mc_code
entry_argv(const char *db_path, const cJSON *e, unsigned long i,
           struct mc_strv *argv, struct mc_err *err)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "arguments");
    struct mc_err sub = MC_ERR_INIT;
    enum mc_code rc;
    const cJSON *a;

    if (args) {
        for (a = args->child; a; a = a->next)
            if (mc_strv_push(argv, a->valuestring))
                return oom(err);
        return MC_OK;
    }
    rc = mc_shell_split(str_member(e, "command"), argv, &sub);
    if (rc == MC_ENOMEM)
        return oom(err);
    if (rc)
        return mc_err_set(err, rc, "'%s': .[%lu].command: %s", db_path, i,
                          sub.msg);
    if (!argv->n)
        return mc_err_set(err, MC_ESYNTAX, "'%s': .[%lu].command is empty",
                          db_path, i);
    return MC_OK;
}

/* If A is one of OPTS, return 1 and point *ARG at NULL (separate form);
 * if A is one of them with its argument joined on, and that argument does
 * not start with '-', return 1 and point *ARG at it. Else 0. *LEN gets
 * the option's length. */
static int
match_opt(const char *a, const char *const *opts, size_t nopts,
          const char **arg, size_t *len)
{
    size_t i;

    for (i = 0; i < nopts; i++) {
        size_t n = strlen(opts[i]);

        if (strncmp(a, opts[i], n))
            continue;
        if (a[n] == '-')
            continue;
        *arg = a[n] ? a + n : NULL;
        *len = n;
        return 1;
    }
    return 0;
}

/* Whether A is "-MF", "-MT" or "-MQ", which name a dependency file or
 * its target, with their argument joined on or not. */
static int
is_dep_opt(const char *a)
{
    return a[0] == '-' && a[1] == 'M' &&
           (a[2] == 'F' || a[2] == 'T' || a[2] == 'Q');
}

/* Whether argument A names the entry's FILE (as written, or resolved
 * relative to DIR to REAL). -1 if out of memory. */
static int
names_file(const char *a, const char *dir, const char *file,
           const char *real)
{
    char buf[PATH_MAX];
    int r;

    if (!strcmp(a, file))
        return 1;
    if (*a == '-' || !*a)
        return 0;
    r = resolve(dir, a, buf);
    return r < 0 ? -1 : r && !strcmp(buf, real);
}

/* Whether word A (no option) names an input file of a compile or a
 * link: a source by the language table's extensions, an object, a
 * static or shared library ("libz.so.1" too). */
static int
is_input_file(const char *a)
{
    const char *base = strrchr(a, '/'), *dot, *so;

    base = base ? base + 1 : a;
    if (!*base || *a == '-')
        return 0;
    if (mc_lang_of_path(base))
        return 1;
    dot = strrchr(base, '.');
    if (dot && (!strcmp(dot, ".o") || !strcmp(dot, ".a") ||
                !strcmp(dot, ".so")))
        return 1;
    so = strstr(base, ".so.");
    if (!so || so == base)
        return 0;
    for (so += 4; *so; so++)
        if (!isdigit((unsigned char)*so) && *so != '.')
            return 0;
    return 1;
}

/* Whether A is one of arg_opts, whose next word is its argument. */
static int
takes_arg(const char *a)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(arg_opts); i++)
        if (!strcmp(a, arg_opts[i]))
            return 1;
    return 0;
}

int
mc_compdb_keeps_next(const char *a)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(path_opts); i++)
        if (!strcmp(a, path_opts[i]))
            return 1;
    return takes_arg(a);
}

/* Drop from ARGV the compiler launchers before the compiler: a build
 * that runs "maxcode gcc ..." or "ccache gcc ..." (CMake and Meson write
 * the launcher into the entry) compiles with gcc. */
static void
drop_launchers(struct mc_strv *argv)
{
    static const char *const launchers[] = {"maxcode", "ccache", "sccache"};
    size_t k = 0, i;

    for (;;) {
        const char *w = argv->v[k], *base = strrchr(w, '/');
        int is = 0;

        base = base ? base + 1 : w;
        for (i = 0; i < MC_ARRAY_SIZE(launchers); i++)
            is |= !strcmp(base, launchers[i]);
        if (!is || k + 2 > argv->n)
            break;
        k++;
        if (!strcmp(argv->v[k], "--") && k + 2 <= argv->n)
            k++;
    }
    if (!k)
        return;
    for (i = 0; i < k; i++)
        mc_free(argv->v[i]);
    memmove(argv->v, argv->v + k, (argv->n - k + 1) * sizeof(*argv->v));
    argv->n -= k;
}

/* Clean ARGV (see mc_compdb_find) into OUT's flags, ldflags, ldlibs and
 * others. DIR and FILE are the entry's; REAL is the file's realpath. */
static enum mc_code
clean_flags(const struct mc_strv *argv, const char *dir, const char *file,
            const char *real, struct mc_compdb_entry *out,
            struct mc_err *err)
{
    struct mc_strv *fl = &out->flags;
    size_t i, len;

    for (i = 1; i < argv->n; i++) {
        const char *a = argv->v[i], *arg;
        int r;

        if (!strcmp(a, "-c") || !strcmp(a, "-MD") || !strcmp(a, "-MMD") ||
            !strncmp(a, "-Wp,-MD,", strlen("-Wp,-MD,")) ||
            !strncmp(a, "-Wp,-MMD,", strlen("-Wp,-MMD,")))
            continue;
        if (!strncmp(a, "-o", 2)) {
            if (!a[2])
                i++; /* "-o X": X goes too */
            continue;
        }
        if (is_dep_opt(a)) {
            if (!a[3])
                i++; /* "-MF X": X goes too */
            continue;
        }
        if (match_opt(a, path_opts, MC_ARRAY_SIZE(path_opts), &arg, &len)) {
            /* The path is rebased with the others, below. */
            if (mc_strv_push(fl, a) ||
                (!arg && i + 1 < argv->n && mc_strv_push(fl, argv->v[++i])))
                return oom(err);
            continue;
        }
        if (!strncmp(a, "-l", 2) || !strncmp(a, "-L", 2)) {
            /* For the link, not for SOURCE's compile. */
            struct mc_strv *to = a[1] == 'l' ? &out->ldlibs : &out->ldflags;

            if (mc_strv_push(to, a) ||
                (!a[2] && i + 1 < argv->n && mc_strv_push(to, argv->v[++i])))
                return oom(err);
            continue;
        }
        if (takes_arg(a)) {
            if (mc_strv_push(fl, a) ||
                (i + 1 < argv->n && mc_strv_push(fl, argv->v[++i])))
                return oom(err);
            continue;
        }
        r = names_file(a, dir, file, real);
        if (r < 0)
            return oom(err);
        if (r)
            continue;
        if (is_input_file(a)) {
            if (mc_strv_push(&out->others, a))
                return oom(err);
            continue;
        }
        if (mc_strv_push(fl, a))
            return oom(err);
    }
    return MC_OK;
}

/* Absolute path P with each "DIR/.." dropped, in place ("/a/b/../c" is
 * "/a/c"): a file name for people, not for the compiler. */
static void
drop_dotdot(char *p)
{
    char *w = p, *r = p;

    while (*r) {
        size_t n;

        while (*r == '/')
            r++;
        n = strcspn(r, "/");
        if (n == 2 && r[0] == '.' && r[1] == '.') {
            while (w > p && *--w != '/')
                ;
        } else if (n && !(n == 1 && r[0] == '.')) {
            *w++ = '/';
            memmove(w, r, n);
            w += n;
        }
        r += n;
    }
    if (w == p)
        *w++ = '/';
    *w = '\0';
}

/* The words of *V (flags, ON_FLAGS; else file names) meant relative to
 * directory FROM, made relative to directory TO (both absolute). */
static enum mc_code
rebase_list(struct mc_strv *v, const char *from, const char *to,
            int on_flags)
{
    struct mc_strv out = MC_STRV_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    if (on_flags)
        rc = mc_flags_rebase(v, from, to, MC_FLAGS_ALL, &out);
    for (i = 0; !on_flags && !rc && i < v->n; i++) {
        char *abs = v->v[i][0] == '/' ? NULL : join_path(from, v->v[i]);
        char *rel;

        if (abs)
            drop_dotdot(abs);
        rel = abs ? mc_path_relative(to, abs) : NULL;

        if (v->v[i][0] == '/')
            rc = mc_strv_push(&out, v->v[i]);
        else if (!rel)
            rc = MC_ENOMEM;
        else
            rc = mc_strv_push(&out, rel);
        mc_free(rel);
        mc_free(abs);
    }
    if (rc) {
        mc_strv_release(&out);
        return MC_ENOMEM;
    }
    mc_strv_release(v);
    *v = out;
    return MC_OK;
}

/* OUT's flags, ldflags and other files, whose paths are relative to the
 * entry's directory DIR, made relative to the current directory (see
 * flags.h). */
static enum mc_code
rebase(struct mc_compdb_entry *out, const char *dir, struct mc_err *err)
{
    char cwd[PATH_MAX];
    char *from;
    enum mc_code rc;

    if (!mc_path_cwd(cwd, sizeof(cwd)))
        return mc_err_set(err, MC_EIO, "cannot get the current directory: "
                          "%s", strerror(errno));
    from = join_path(cwd, dir);
    if (!from)
        return oom(err);
    rc = rebase_list(&out->flags, from, cwd, 1);
    if (!rc)
        rc = rebase_list(&out->ldflags, from, cwd, 1);
    if (!rc)
        rc = rebase_list(&out->others, from, cwd, 0);
    mc_free(from);
    return rc ? oom(err) : MC_OK;
}

/* SOURCE's entry in the parsed and checked DB ROOT of DB_PATH into OUT,
 * as mc_compdb_find() says. */
static enum mc_code
find_in(const char *db_path, const cJSON *root, const char *source,
        struct mc_compdb_entry *out, int *found, struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    struct mc_strv argv = MC_STRV_INIT;
    const cJSON *e, *match = NULL;
    char src[PATH_MAX], real[PATH_MAX], match_real[PATH_MAX];
    unsigned long i, match_i = 0;
    const char *dir;

    mc_compdb_entry_init(out);
    *found = 0;
    if (!realpath(source, src))
        goto out; /* no such source: no entry */
    for (e = root->child, i = 0; e; e = e->next, i++) {
        int r = resolve(str_member(e, "directory"), str_member(e, "file"),
                        real);

        if (r > 0 && strcmp(real, src))
            r = is_variant_of(real, src);
        if (r < 0) {
            rc = oom(err);
            goto out;
        }
        if (r) {
            match = e;
            match_i = i;
            memcpy(match_real, real, strlen(real) + 1);
        }
    }
    if (!match)
        goto out;
    rc = entry_argv(db_path, match, match_i, &argv, err);
    if (!rc && (!argv.n || !argv.v)) {
        mc_err_set(err, MC_ESYNTAX, "'%s': .[%lu] has no compiler",
                   db_path, match_i);
        rc = MC_ESYNTAX;
    }
    if (rc || !argv.v)
        goto out;
    drop_launchers(&argv);
    dir = str_member(match, "directory");
    out->compiler = mc_strdup(argv.v[0]);
    out->directory = mc_strdup(dir);
    if (!out->compiler || !out->directory) {
        rc = oom(err);
        goto out;
    }
    rc = clean_flags(&argv, dir, str_member(match, "file"), match_real, out,
                     err);
    if (rc)
        goto out;
    rc = rebase(out, dir, err);
    if (rc)
        goto out;
    *found = 1;
out:
    if (rc)
        mc_compdb_entry_release(out);
    mc_strv_release(&argv);
    return rc;
}

enum mc_code
mc_compdb_find_each(const char *db_path, char *const *sources, size_t n,
                    struct mc_compdb_entry *outs, int *found,
                    struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    struct mc_buf text = MC_BUF_INIT;
    cJSON *root = NULL;
    size_t i;
    int missing;

    for (i = 0; i < n; i++) {
        mc_compdb_entry_init(&outs[i]);
        found[i] = 0;
    }
    rc = read_db(db_path, &text, &missing, err);
    if (rc || missing)
        goto out;
    rc = parse_db(db_path, &text, &root, err);
    if (rc)
        goto out;
    rc = check_shape(db_path, root, err);
    for (i = 0; !rc && root && i < n; i++)
        rc = find_in(db_path, root, sources[i], &outs[i], &found[i], err);
    if (rc) {
        for (i = 0; i < n; i++) {
            mc_compdb_entry_release(&outs[i]);
            found[i] = 0;
        }
    }
out:
    cJSON_Delete(root);
    mc_buf_release(&text);
    return rc;
}

enum mc_code
mc_compdb_find(const char *db_path, const char *source,
               struct mc_compdb_entry *out, int *found, struct mc_err *err)
{
    char *one[1];

    one[0] = (char *)source;
    return mc_compdb_find_each(db_path, one, 1, out, found, err);
}
