/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval_build.c: building the original and candidates as make would,
 * and what builds and runs may read (doc/internals/eval.md, "Reads"):
 * the allow-list, and the checks that a candidate names no file
 * outside it. Part of the executor (eval_priv.h).
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "alloc.h"
#include "flags.h"
#include "lang.h"
#include "reads.h"

#define DIAG_LINES   30          /* compiler diagnostics kept */

/* Building. */
#define BUILD_TIMEOUT_S 300      /* one compiler command */
#define BUILD_OUT_CAP   (1u << 20) /* compiler output kept per stream */

/* Reads outside the project (doc/internals/eval.md, "Reads"). */
#define OUTSIDE_REASON  "candidate reads a file outside the project"

/* ---- building ---- */

/* Whether PATH, relative to make's directory (where compiles run) when
 * not absolute, is a file outside what builds may read; then
 * EV->outside gets SHOWN, the name as the candidate or the compiler
 * wrote it (PATH when NULL). */
static int
outside(struct mc_eval *ev, const char *path, const char *shown)
{
    struct mc_buf p = MC_BUF_INIT;
    struct stat st;
    int out;

    if (*path != '/')
        mc_buf_addf(&p, "%s/", ev->make_dir);
    mc_buf_adds(&p, path);
    /* Files only: "/" or a directory in a message is no content. */
    out = !mc_buf_status(&p) && stat(p.s, &st) == 0 &&
          !S_ISDIR(st.st_mode) && !mc_sandbox_may_read(&ev->sb, p.s);
    mc_buf_release(&p);
    if (out) {
        mc_buf_reset(&ev->outside);
        mc_buf_adds(&ev->outside, shown ? shown : path);
    }
    return out;
}

/* Whether NAMES holds a file outside (see outside()). */
static int
any_outside(struct mc_eval *ev, const struct mc_strv *names)
{
    size_t i;

    for (i = 0; i < names->n; i++)
        if (outside(ev, names->v[i], NULL))
            return 1;
    return 0;
}

int
mc_eval_outside_named(struct mc_eval *ev, const struct mc_buf *diag)
{
    struct mc_strv words = MC_STRV_INIT;
    int found;

    mc_reads_paths_in(diag->s ? diag->s : "", diag->len, &words);
    found = any_outside(ev, &words);
    mc_strv_release(&words);
    return found;
}

/* Keep the first DIAG_LINES lines of compiler output in B. */
static void
trim_diagnostics(const struct mc_buf *in, struct mc_buf *b)
{
    size_t i, lines = 0;

    for (i = 0; i < in->len && lines < DIAG_LINES; i++) {
        mc_buf_addc(b, in->s[i]);
        lines += in->s[i] == '\n';
    }
    if (i < in->len)
        mc_buf_adds(b, "[... more diagnostics cut ...]\n");
}

/* Run the compiler command ARGV with make's directory as the working
 * directory and DIR as the only writable one (READ_ALL: reads not
 * limited) into R, which the caller releases. */
static enum mc_code
run_compiler(struct mc_eval *ev, char *const argv[], const char *dir,
             int read_all, struct mc_spawn_result *r, struct mc_err *err)
{
    struct mc_sandbox_opts so;

    mc_spawn_result_init(r);
    memset(&so, 0, sizeof(so));
    so.cwd = dir;
    so.workdir = ev->make_dir;
    so.timeout_s = BUILD_TIMEOUT_S;
    so.out_cap = BUILD_OUT_CAP;
    so.read_all = read_all;
    return mc_sandbox_run(&ev->sb, argv, &so, r, err);
}

/* Run the build command ARGV (see run_compiler()). 0 when it
 * succeeded; else DIAG gets the trimmed compiler output and
 * EV->build_cmd the command. */
static enum mc_code
run_build(struct mc_eval *ev, struct mc_strv *argv, const char *dir,
          struct mc_buf *diag, struct mc_err *err)
{
    struct mc_spawn_result r;
    enum mc_code rc;

    if (mc_strv_status(argv))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = run_compiler(ev, argv->v, dir, 0, &r, err);
    if (!rc && (r.timed_out || !r.exited || r.status)) {
        mc_buf_reset(diag);
        if (r.timed_out)
            mc_buf_adds(diag, "the compiler timed out\n");
        trim_diagnostics(&r.err, diag);
        trim_diagnostics(&r.out, diag);
        mc_buf_reset(&ev->build_cmd);
        mc_strv_join_shell(argv, &ev->build_cmd);
        rc = MC_EINVAL;
    }
    mc_spawn_result_release(&r);
    return rc;
}

/* Append the words of COMMAND and of LIST to ARGV: LIST as
 * mc_flags_for_build() leaves it for a build in scratch directory DIR, with
 * its run-time paths (a relative rpath) made absolute, as make's
 * directory sees them. */
static enum mc_code
add_words(struct mc_eval *ev, struct mc_strv *argv, const char *command,
          const struct mc_strv *list, const char *dir, struct mc_err *err)
{
    struct mc_strv abs = MC_STRV_INIT;
    enum mc_code rc;

    if (command && (rc = mc_shell_split(command, argv, err)))
        return rc;
    rc = list ? mc_flags_rebase(list, ev->make_dir, NULL, MC_FLAGS_RUNTIME,
                                &abs)
              : MC_OK;
    if (!rc && list)
        rc = mc_flags_for_build(&abs, dir, argv);
    mc_strv_release(&abs);
    return rc ? mc_err_set(err, MC_ENOMEM, "out of memory") : MC_OK;
}

/* Whether link file I of EV's target is compiled on its own (its
 * compile DB entry, link-flags=), not with SOURCE's flags. */
static int
link_own(const struct mc_eval *ev, size_t i)
{
    return ev->t->link_build &&
           ev->t->link_build[i].from != MC_LINK_FROM_SOURCE;
}

/* Compile each link file of EV's target that has a build of its own
 * (its compiler and flags, then EXTRA) into an object in DIR, into
 * OBJS, one word per link file: the object, or the file itself for the
 * link line. */
static enum mc_code
build_links(struct mc_eval *ev, const char *const *extra, const char *dir,
            struct mc_strv *objs, struct mc_buf *diag, struct mc_err *err)
{
    struct mc_target *t = ev->t;
    enum mc_code rc = MC_OK;
    size_t i, j;

    for (i = 0; !rc && i < t->link.n; i++) {
        struct mc_strv argv = MC_STRV_INIT;
        struct mc_buf obj = MC_BUF_INIT;

        if (!link_own(ev, i)) {
            mc_strv_push(objs, t->link.v[i]);
            continue;
        }
        if (mc_buf_addf(&obj, "%s/link-%zu.o", dir, i))
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        if (!rc)
            rc = add_words(ev, &argv, mc_target_link_compiler(t, i),
                           &t->link_build[i].flags, dir, err);
        if (!rc && !argv.n)
            rc = mc_err_set(err, MC_EINVAL, "empty compiler command");
        for (j = 0; !rc && extra && extra[j]; j++)
            mc_strv_push(&argv, extra[j]);
        if (!rc) {
            mc_strv_push(&argv, "-c");
            mc_strv_push(&argv, "-o");
            mc_strv_push(&argv, obj.s);
            mc_strv_push(&argv, t->link.v[i]);
            rc = run_build(ev, &argv, dir, diag, err);
        }
        if (!rc)
            mc_strv_push(objs, obj.s);
        mc_strv_release(&argv);
        mc_buf_release(&obj);
    }
    if (!rc && mc_strv_status(objs))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    return rc;
}

enum mc_code
mc_eval_build(struct mc_eval *ev, const char *src, const char *exe,
              const char *const *extra, const char *dir, struct mc_buf *diag,
              struct mc_err *err)
{
    struct mc_target *t = ev->t;
    struct mc_strv argv = MC_STRV_INIT, links = MC_STRV_INIT;
    struct mc_buf obj = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    /* The link files with builds of their own first: a candidate's
     * failure is then its own. */
    rc = build_links(ev, extra, dir, &links, diag, err);
    if (rc)
        goto out;
    /* Pushes are checked once, by run_build(): a strv's errors stick. */
    rc = add_words(ev, &argv, t->compiler, &t->flags, dir, err);
    if (!rc && !argv.n)
        rc = mc_err_set(err, MC_EINVAL, "empty compiler command");
    for (i = 0; !rc && extra && extra[i]; i++)
        mc_strv_push(&argv, extra[i]);
    if (!rc && t->linker) {
        /* Compile alone, then link with the other driver. */
        mc_buf_addf(&obj, "%s/%s.o", dir, mc_target_name(t));
        mc_strv_push(&argv, "-c");
        mc_strv_push(&argv, "-o");
        mc_strv_push_owned(&argv, mc_buf_status(&obj) ? NULL
                                                      : mc_strdup(obj.s));
        mc_strv_push(&argv, src);
        rc = run_build(ev, &argv, dir, diag, err);
        mc_strv_release(&argv);
        if (!rc)
            rc = add_words(ev, &argv, t->linker, &t->flags, dir, err);
        for (i = 0; !rc && extra && extra[i]; i++)
            mc_strv_push(&argv, extra[i]);
    }
    if (rc)
        goto out;
    rc = add_words(ev, &argv, NULL, &t->ldflags, dir, err);
    mc_strv_push(&argv, "-o");
    mc_strv_push(&argv, exe);
    mc_strv_push(&argv, t->linker ? obj.s : src);
    mc_strv_extend(&argv, &links);
    if (!rc)
        rc = add_words(ev, &argv, mc_target_get(t, MC_OPT_LDLIBS), NULL,
                       dir, err);
    if (!rc)
        rc = add_words(ev, &argv, NULL, &t->ldlibs, dir, err);
    if (mc_lang_get(t->lang)->link_libm)
        mc_strv_push(&argv, "-lm");
    if (!rc)
        rc = run_build(ev, &argv, dir, diag, err);
out:
    mc_strv_release(&argv);
    mc_strv_release(&links);
    mc_buf_release(&obj);
    return rc;
}

/*
 * The files that compiling SRC reads, as `CC FLAGS TEST-CPPFLAGS -M SRC`
 * lists them (with make's directory as the working directory and DIR
 * the writable one), into DEPS. READ_ALL lifts the limit on reads (the
 * original's listing: it is the user's code). MC_EINVAL when the
 * listing failed (the build will say why).
 */
static enum mc_code
list_deps_with(struct mc_eval *ev, const char *compiler,
               const struct mc_strv *flags, const char *src,
               const char *dir, int read_all, struct mc_strv *deps,
               struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT, tf = MC_STRV_INIT;
    struct mc_spawn_result r;
    enum mc_code rc;

    rc = add_words(ev, &argv, compiler, flags, dir, err);
    if (rc)
        goto out;
    mc_shell_split(mc_target_get(ev->t, MC_OPT_TEST_CPPFLAGS), &tf, NULL);
    mc_strv_extend(&argv, &tf);
    mc_strv_push(&argv, "-M");
    mc_strv_push(&argv, src);
    if (mc_strv_status(&argv) || mc_strv_status(&tf)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = run_compiler(ev, argv.v, dir, read_all, &r, err);
    if (!rc && (r.timed_out || !r.exited || r.status || r.truncated))
        rc = MC_EINVAL;
    if (!rc && mc_reads_deps(r.out.s, r.out.len, deps))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_spawn_result_release(&r);
out:
    mc_strv_release(&argv);
    mc_strv_release(&tf);
    return rc;
}

/* list_deps_with() SOURCE's compiler and flags. */
static enum mc_code
list_deps(struct mc_eval *ev, const char *src, const char *dir,
          int read_all, struct mc_strv *deps, struct mc_err *err)
{
    return list_deps_with(ev, ev->t->compiler, &ev->t->flags, src, dir,
                          read_all, deps, err);
}

const char *const *
mc_eval_test_flags(struct mc_eval *ev, struct mc_strv *sv)
{
    static const char *const none[] = {NULL};

    mc_shell_split(mc_target_get(ev->t, MC_OPT_TEST_CPPFLAGS), sv, NULL);
    return sv->n ? (const char *const *)sv->v : none;
}

enum mc_code
mc_eval_build_pair(struct mc_eval *ev, const char *src, const char *dir,
                   char **test_exe, char **time_exe, struct mc_buf *diag,
                   struct mc_err *err)
{
    struct mc_strv tf = MC_STRV_INIT;
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc;

    *test_exe = *time_exe = NULL;
    mc_buf_addf(&p, "%s/test.exe", dir);
    *test_exe = mc_buf_detach(&p, NULL);
    rc = *test_exe ? mc_eval_build(ev, src, *test_exe,
                                   mc_eval_test_flags(ev, &tf), dir, diag,
                                   err)
                   : MC_ENOMEM;
    if (!rc && tf.n) {
        mc_buf_addf(&p, "%s/time.exe", dir);
        *time_exe = mc_buf_detach(&p, NULL);
        rc = *time_exe ? mc_eval_build(ev, src, *time_exe, NULL, dir, diag,
                                       err)
                       : MC_ENOMEM;
    } else if (!rc) {
        *time_exe = mc_strdup(*test_exe);
    }
    mc_strv_release(&tf);
    if (rc == MC_ENOMEM || (!rc && !*time_exe))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return rc;
}

/* Whether compiler output LINE (LEN bytes) reports an error rather than
 * a warning or a note: "error:", "fatal error:", an undefined reference,
 * a library the linker cannot find. */
static int
is_error_line(const char *line, size_t len)
{
    static const char *const marks[] = {
        "error:", "error :", "undefined reference", "cannot find -l",
        "No such file", "ld returned", "not found",
    };
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(marks); i++)
        if (memmem(line, len, marks[i], strlen(marks[i])))
            return 1;
    return 0;
}

void
mc_eval_first_errors(const struct mc_buf *diag, struct mc_buf *out)
{
    const char *p = diag->s ? diag->s : "";
    int pass, n = 0;

    for (pass = 0; pass < 2 && !n; pass++) {
        const char *q;

        for (q = p; *q && n < FIRST_LINES;
             q += strcspn(q, "\n"), q += *q == '\n') {
            size_t len = strcspn(q, "\n");

            if (!len || (pass == 0 && !is_error_line(q, len)))
                continue;
            if (n++)
                mc_buf_adds(out, " | ");
            mc_buf_add(out, q, len);
        }
    }
    if (!n)
        mc_buf_adds(out, "(no compiler output)");
}

/* ---- what builds and runs read ---- */

/* The directory of PATH (relative to make's directory when it is not
 * absolute) into OUT. */
static void
push_dir_of(struct mc_eval *ev, const char *path, struct mc_strv *out)
{
    struct mc_buf b = MC_BUF_INIT;
    const char *slash = strrchr(path, '/');

    if (*path != '/')
        mc_buf_addf(&b, "%s/", ev->make_dir);
    if (slash)
        mc_buf_add(&b, path, (size_t)(slash - path) + (slash == path));
    mc_strv_push_owned(out, mc_buf_detach(&b, NULL));
}

/* Where the programs of COMMAND are installed, into OUT: for each word
 * that PATH resolves to a program, its real directory, or that
 * directory's parent when it is a "bin" (/opt/cuda/bin/nvcc: /opt/cuda,
 * whose include/ and lib/ the compiler reads). */
static void
push_prefixes(const char *command, struct mc_strv *out)
{
    struct mc_strv words = MC_STRV_INIT;
    size_t i;

    mc_shell_split(command ? command : "", &words, NULL);
    for (i = 0; i < words.n; i++) {
        char *exe, *real = NULL, *slash;

        if (words.v[i][0] == '-' || strchr(words.v[i], '='))
            continue;
        exe = mc_spawn_which(words.v[i]);
        if (exe)
            real = realpath(exe, NULL);
        mc_free(exe);
        if (!real)
            continue;
        slash = strrchr(real, '/');
        *slash = '\0';
        if (!strcmp(slash > real ? strrchr(real, '/') + 1 : "", "bin"))
            *strrchr(real, '/') = '\0';
        if (*real)
            mc_strv_push(out, real);
        free(real);
    }
    if (mc_strv_status(&words))
        out->oom = 1;
    mc_strv_release(&words);
}

/* The words of the shell text TEXT as flags, their paths into OUT. */
static void
push_flag_paths(struct mc_eval *ev, const char *text, struct mc_strv *out)
{
    struct mc_strv words = MC_STRV_INIT;

    mc_shell_split(text, &words, NULL);
    mc_flags_paths(&words, ev->make_dir, out);
    if (mc_strv_status(&words))
        out->oom = 1;
    mc_strv_release(&words);
}

enum mc_code
mc_eval_allow_project_reads(struct mc_eval *ev, struct mc_err *err)
{
    const char *ld = getenv("LD_LIBRARY_PATH"), *p;
    struct mc_strv paths = MC_STRV_INIT, args = MC_STRV_INIT;
    struct mc_target *t = ev->t;
    enum mc_code rc = MC_OK;
    size_t i;

    mc_strv_push(&paths, ev->make_dir);
    push_dir_of(ev, t->source_real ? t->source_real : t->source, &paths);
    for (i = 0; i < t->link.n; i++) {
        push_dir_of(ev, t->link.v[i], &paths);
        mc_strv_push(&paths, t->link.v[i]);
        if (link_own(ev, i)) {
            mc_flags_paths(&t->link_build[i].flags, ev->make_dir, &paths);
            push_prefixes(mc_target_link_compiler(t, i), &paths);
        }
    }
    mc_flags_paths(&t->flags, ev->make_dir, &paths);
    mc_flags_paths(&t->ldflags, ev->make_dir, &paths);
    mc_flags_paths(&t->ldlibs, ev->make_dir, &paths);
    push_flag_paths(ev, mc_target_get(t, MC_OPT_LDLIBS), &paths);
    push_flag_paths(ev, mc_target_get(t, MC_OPT_TEST_CPPFLAGS), &paths);
    push_prefixes(t->compiler, &paths);
    push_prefixes(t->linker, &paths);
    mc_shell_split(mc_target_get(t, MC_OPT_ARGS), &args, NULL);
    for (i = 0; i < args.n; i++) {
        const char *eq = strchr(args.v[i], '=');

        if (args.v[i][0] == '/')
            mc_strv_push(&paths, args.v[i]);
        else if (args.v[i][0] == '-' && eq && eq[1] == '/')
            mc_strv_push(&paths, eq + 1);
    }
    for (p = ld ? ld : ""; *p; p += *p == ':') {
        size_t n = strcspn(p, ":");
        struct mc_buf b = MC_BUF_INIT;

        if (n && *p != '/')
            mc_buf_addf(&b, "%s/", ev->make_dir);
        mc_buf_add(&b, p, n);
        if (n)
            mc_strv_push_owned(&paths, mc_buf_detach(&b, NULL));
        mc_buf_release(&b);
        p += n;
    }
    if (mc_strv_status(&paths) || mc_strv_status(&args))
        rc = MC_ENOMEM;
    for (i = 0; !rc && i < paths.n; i++)
        rc = mc_sandbox_allow_read(&ev->sb, paths.v[i]);
    mc_strv_release(&paths);
    mc_strv_release(&args);
    return rc ? mc_err_set(err, rc, "out of memory") : MC_OK;
}

enum mc_code
mc_eval_allow_original_reads(struct mc_eval *ev, const char *dir,
                             struct mc_err *err)
{
    struct mc_strv deps = MC_STRV_INIT;
    struct mc_buf src = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    mc_eval_original_path(ev, &src);
    if (mc_buf_status(&src))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    for (i = 0; !rc && i <= ev->t->link.n; i++) {
        const char *f = i ? ev->t->link.v[i - 1] : src.s;

        if (i && !mc_lang_of_path(f))
            continue;
        if (i && link_own(ev, i - 1))
            rc = list_deps_with(ev, mc_target_link_compiler(ev->t, i - 1),
                                &ev->t->link_build[i - 1].flags, f, dir, 1,
                                &deps, err);
        else
            rc = list_deps(ev, f, dir, 1, &deps, err);
        if (rc == MC_EINVAL) {
            mc_err_clear(err);
            rc = MC_OK;
        }
    }
    for (i = 0; !rc && i < deps.n; i++)
        if (!mc_sandbox_may_read(&ev->sb, deps.v[i]))
            rc = mc_sandbox_allow_read(&ev->sb, deps.v[i]);
    if (rc == MC_ENOMEM || mc_strv_status(&deps))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_strv_release(&deps);
    mc_buf_release(&src);
    return rc;
}

/* The directories where a candidate's relative names may be found,
 * into OUT: SOURCE's (its quote includes are rewritten to reach it),
 * make's, the candidate's DIR and the paths the flags name. */
static void
name_bases(struct mc_eval *ev, const char *dir, struct mc_strv *out)
{
    push_dir_of(ev, ev->t->source_real ? ev->t->source_real
                                       : ev->t->source, out);
    mc_strv_push(out, ev->make_dir);
    mc_strv_push(out, dir);
    mc_flags_paths(&ev->t->flags, ev->make_dir, out);
    push_flag_paths(ev, mc_target_get(ev->t, MC_OPT_TEST_CPPFLAGS), out);
}

enum mc_code
mc_eval_reads_outside(struct mc_eval *ev, const char *path,
                      const char *dir, const char *text, size_t len,
                      int *found, struct mc_err *err)
{
    struct mc_strv names = MC_STRV_INIT, bases = MC_STRV_INIT;
    struct mc_strv deps = MC_STRV_INIT;
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc;
    size_t i, k;

    *found = 0;
    rc = mc_reads_directives(text, len, &names);
    name_bases(ev, dir, &bases);
    if (rc || mc_strv_status(&bases))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    for (i = 0; !rc && !*found && i < names.n; i++) {
        const char *n = names.v[i];

        if (*n == '/') {
            *found = outside(ev, n, n);
            continue;
        }
        for (k = 0; !*found && k < bases.n; k++) {
            mc_buf_reset(&p);
            mc_buf_addf(&p, "%s/%s", bases.v[k], n);
            *found = !mc_buf_status(&p) && outside(ev, p.s, n);
        }
    }
    if (!rc && !*found) {
        rc = list_deps(ev, path, dir, 0, &deps, err);
        if (rc == MC_EINVAL) {
            /* It does not preprocess: the build will say why. */
            mc_err_clear(err);
            rc = MC_OK;
        } else if (!rc) {
            *found = any_outside(ev, &deps);
        }
    }
    mc_strv_release(&names);
    mc_strv_release(&bases);
    mc_strv_release(&deps);
    mc_buf_release(&p);
    return rc;
}

void
mc_eval_reject_outside(struct mc_eval *ev, struct mc_feedback *fb)
{
    fb->verdict = MC_VERDICT_REJECTED;
    fb->compiled = 0;
    mc_buf_reset(&fb->diagnostics);
    mc_buf_reset(&fb->detail);
    mc_buf_addf(&fb->detail, OUTSIDE_REASON ": '%s'", ev->outside.s);
}
