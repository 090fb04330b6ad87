/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval_profile.c: the source profile of the original (mc_eval_profile()):
 * a gcc coverage build run on the inputs, read by gcov. Part of the
 * executor (eval_priv.h).
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "alloc.h"
#include "profile.h"

/* The source profile (mc_eval_profile()). */
#define PROF_TIMEOUT_X  10       /* a profiled run may take this many
                                  * times the original's slowest run */
#define PROF_TIMEOUT_MIN_S 30    /* ... and at least this */
#define GCOV_TIMEOUT_S  120      /* gcov on the data */
#define GCOV_OUT_CAP    (64u << 20) /* bytes of gcov's JSON kept */
#define VERSION_TIMEOUT_S 60     /* `CC --version` */
#define PROF_STRIP_ALL  "4096"   /* GCOV_PREFIX_STRIP: more directories
                                  * than a path has; libgcov then keeps
                                  * the file name alone */

/* Whether the original can be profiled with gcov: C or C++ that gcc
 * builds (not nvcc, not clang, whose --version says it is clang). */
static enum mc_code
profile_supported(struct mc_eval *ev, struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = VERSION_TIMEOUT_S};
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_spawn_result r;
    enum mc_code rc;

    if (ev->t->lang == MC_LANG_CUDA)
        return mc_err_set(err, MC_EINVAL, "no source profile of CUDA "
                          "code: gcov reads what gcc writes");
    if (mc_shell_split(ev->t->compiler, &argv, NULL) || !argv.n ||
        mc_strv_push(&argv, "--version")) {
        mc_strv_release(&argv);
        return mc_err_set(err, MC_EINVAL, "bad compiler command '%s'",
                          ev->t->compiler);
    }
    mc_spawn_result_init(&r);
    rc = mc_spawn(argv.v, &so, &r, err);
    if (!rc && (!r.exited || r.status))
        rc = mc_err_set(err, MC_EINVAL, "'%s --version' failed",
                        ev->t->compiler);
    else if (!rc && strstr(r.out.s, "clang"))
        rc = mc_err_set(err, MC_EINVAL, "no source profile with clang: "
                        "gcov reads what gcc writes");
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    return rc;
}

/* The gcov that goes with the compiler: its first word that names gcc
 * or g++ ("x86_64-linux-gnu-gcc-12") with that part made "gcov", when
 * PATH has it; else gcov. NULL when there is none; free with
 * mc_free(). */
static char *
gcov_tool(const struct mc_eval *ev)
{
    struct mc_strv words = MC_STRV_INIT;
    struct mc_buf b = MC_BUF_INIT;
    char *tool = NULL;
    size_t i;

    mc_shell_split(ev->t->compiler, &words, NULL);
    for (i = 0; i < words.n; i++) {
        const char *w = words.v[i], *base = strrchr(w, '/'), *at;

        base = base ? base + 1 : w;
        if (!(at = strstr(base, "gcc")) && !(at = strstr(base, "g++")))
            continue;
        mc_buf_addf(&b, "%.*sgcov%s", (int)(at - w), w, at + 3);
        tool = mc_buf_status(&b) ? NULL : mc_spawn_which(b.s);
        break;
    }
    mc_buf_release(&b);
    mc_strv_release(&words);
    return tool ? tool : mc_spawn_which("gcov");
}

/*
 * The file name, less .gcno or .gcda, of the coverage data of the
 * profile build in its directory, as GCC 11 and later name it: after
 * the one command `-o DIR/prof SRC`, "prof-STEM" (STEM: SRC's name less
 * its suffix); after `-c -o DIR/NAME.o SRC` (a build with another link
 * driver), "NAME". The data file's path is absolute in the program
 * (DIR/prof-STEM.gcda). Free with mc_free().
 */
static char *
profile_data(const struct mc_eval *ev)
{
    const char *name = mc_target_name(ev->t), *dot = strrchr(name, '.');
    struct mc_buf b = MC_BUF_INIT;

    if (ev->t->linker)
        mc_buf_adds(&b, name);
    else
        mc_buf_addf(&b, "prof-%.*s", (int)(dot && dot > name
                                           ? (size_t)(dot - name)
                                           : strlen(name)), name);
    return mc_buf_detach(&b, NULL);
}

/* Per-run timeout of profiled runs: generous against the original. */
static double
profile_timeout(const struct mc_eval *ev)
{
    double t = PROF_TIMEOUT_X * ev->orig_run_s;

    return t < PROF_TIMEOUT_MIN_S ? PROF_TIMEOUT_MIN_S : t;
}

/* Run the profile build EXE on input I in directory RUN (trusted: it
 * is the user's code), with libgcov told to write its data there. */
static enum mc_code
profile_spawn(struct mc_eval *ev, const char *exe, const char *run,
              size_t i, struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT, env = MC_STRV_INIT;
    struct mc_buf prefix = MC_BUF_INIT;
    struct mc_sandbox_opts so;
    struct mc_spawn_result r;
    struct mc_run_spec spec;
    enum mc_code rc;

    memset(&spec, 0, sizeof(spec));
    spec.exe = exe;
    mc_eval_run_command(ev, &spec, &argv, &env);
    /* Writes go only to RUN: the data's absolute path is stripped to
     * its file name and put under RUN. */
    mc_buf_addf(&prefix, "GCOV_PREFIX=%s", run);
    mc_strv_push_owned(&env, mc_buf_detach(&prefix, NULL));
    mc_strv_push(&env, "GCOV_PREFIX_STRIP=" PROF_STRIP_ALL);
    if (mc_eval_add_library_path(ev, &env) || mc_strv_status(&argv) ||
        mc_strv_status(&env)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    mc_spawn_result_init(&r);
    memset(&so, 0, sizeof(so));
    so.cwd = run;
    so.stdin_path = mc_eval_input_of(ev, i);
    so.timeout_s = profile_timeout(ev);
    so.env = env.v;
    so.out_cap = OUT_CAP;
    rc = mc_sandbox_run(&ev->sb, argv.v, &so, &r, err);
    if (!rc && r.timed_out)
        rc = mc_err_set(err, MC_EINVAL, "the profiled original timed out "
                        "on %s", mc_eval_input_name(ev, i));
    else if (!rc && r.signaled)
        rc = mc_err_set(err, MC_EINVAL, "the profiled original crashed "
                        "(signal %d) on %s", r.sig, mc_eval_input_name(ev, i));
    mc_spawn_result_release(&r);
out:
    mc_strv_release(&argv);
    mc_strv_release(&env);
    return rc;
}

/*
 * Run the profile build EXE in DIR on input I as the reference runs
 * go, in a fresh directory with the files= files. The data DATA.gcda
 * that earlier runs left in DIR moves into that directory for the run
 * (libgcov adds to it) and back after it.
 */
static enum mc_code
profile_run(struct mc_eval *ev, const char *exe, const char *dir,
            const char *data, size_t i, struct mc_err *err)
{
    struct mc_buf kept = MC_BUF_INIT, ran = MC_BUF_INIT;
    char *run = NULL;
    enum mc_code rc;
    size_t k;

    rc = mc_sandbox_dir(&ev->sb, "run", 0, &run, err);
    for (k = 0; !rc && k < ev->t->files.n; k++)
        rc = mc_sandbox_copy_in(&ev->sb, run, ev->t->files.v[k], err);
    if (rc)
        goto out;
    mc_buf_addf(&kept, "%s/%s.gcda", dir, data);
    mc_buf_addf(&ran, "%s/%s.gcda", run, data);
    if (mc_buf_status(&kept) || mc_buf_status(&ran))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else if (rename(kept.s, ran.s) && errno != ENOENT)
        rc = mc_err_set(err, MC_EIO, "cannot move '%s': %s", kept.s,
                        strerror(errno));
    if (!rc)
        rc = profile_spawn(ev, exe, run, i, err);
    if (!rc && rename(ran.s, kept.s))
        rc = mc_err_set(err, MC_EINVAL, "the profiled original wrote no "
                        "coverage data on %s (it ends without exit()?)",
                        mc_eval_input_name(ev, i));
out:
    if (run) {
        mc_sandbox_rmtree(run);
        mc_free(run);
    }
    mc_buf_release(&kept);
    mc_buf_release(&ran);
    return rc;
}

/* `GCOV --json-format --stdout DATA.gcda` in DIR; its output appended
 * to JSON. */
static enum mc_code
run_gcov(struct mc_eval *ev, const char *gcov, const char *dir,
         const char *data, struct mc_buf *json, struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_buf gcda = MC_BUF_INIT;
    struct mc_sandbox_opts so;
    struct mc_spawn_result r;
    enum mc_code rc;

    mc_buf_addf(&gcda, "%s.gcda", data);
    mc_strv_push(&argv, gcov);
    mc_strv_push(&argv, "--json-format");
    mc_strv_push(&argv, "--stdout");
    mc_strv_push_owned(&argv, mc_buf_detach(&gcda, NULL));
    if (mc_strv_status(&argv))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_spawn_result_init(&r);
    memset(&so, 0, sizeof(so));
    so.cwd = dir;
    so.timeout_s = GCOV_TIMEOUT_S;
    so.out_cap = GCOV_OUT_CAP;
    rc = mc_sandbox_run(&ev->sb, argv.v, &so, &r, err);
    if (!rc && (r.timed_out || !r.exited || r.status || !r.out.len))
        rc = mc_err_set(err, MC_EINVAL, "%s failed on the profile: %.*s",
                        gcov, (int)strcspn(r.err.s, "\n"), r.err.s);
    else if (!rc && r.truncated)
        rc = mc_err_set(err, MC_EINVAL, "%s wrote more than %u MiB",
                        gcov, GCOV_OUT_CAP >> 20);
    else if (!rc && mc_buf_add(json, r.out.s, r.out.len))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    return rc;
}

/* Build the original for the profile into EXE in DIR: its test build
 * with gcc's coverage instrumentation. */
static enum mc_code
build_profiled(struct mc_eval *ev, const char *dir, const char *exe,
               struct mc_err *err)
{
    static const char *const cov[] = {"-fprofile-arcs", "-ftest-coverage",
                                      "-fprofile-update=single"};
    struct mc_strv flags = MC_STRV_INIT;
    struct mc_buf src = MC_BUF_INIT, diag = MC_BUF_INIT, first = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    mc_eval_original_path(ev, &src);
    mc_eval_test_flags(ev, &flags);
    for (i = 0; i < MC_ARRAY_SIZE(cov); i++)
        mc_strv_push(&flags, cov[i]);
    if (mc_buf_status(&src) || mc_strv_status(&flags))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else
        rc = mc_eval_build(ev, src.s, exe, (const char *const *)flags.v,
                           dir, &diag, err);
    if (rc == MC_EINVAL) {
        mc_eval_first_errors(&diag, &first);
        rc = mc_err_set(err, MC_EINVAL, "the profile build failed: %.200s",
                        first.s);
    }
    mc_strv_release(&flags);
    mc_buf_release(&src);
    mc_buf_release(&diag);
    mc_buf_release(&first);
    return rc;
}

enum mc_code
mc_eval_profile(struct mc_eval *ev, struct mc_buf *gcov_json,
                struct mc_err *err)
{
    char *dir = NULL, *data = NULL, *gcov = NULL;
    struct mc_buf exe = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    if (!ev->ready)
        return mc_err_set(err, MC_EINVAL, "no source profile: the "
                          "original is not prepared");
    rc = profile_supported(ev, err);
    if (!rc && !(gcov = gcov_tool(ev)))
        rc = mc_err_set(err, MC_EINVAL, "no source profile: no gcov on "
                        "PATH");
    if (!rc)
        rc = mc_sandbox_dir(&ev->sb, "prof", 0, &dir, err);
    if (!rc && (!(data = profile_data(ev)) ||
                mc_buf_addf(&exe, "%s/prof", dir)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!rc)
        rc = build_profiled(ev, dir, exe.s, err);
    for (i = 0; !rc && i < ev->n_runs; i++)
        rc = profile_run(ev, exe.s, dir, data, i, err);
    if (!rc)
        rc = run_gcov(ev, gcov, dir, data, gcov_json, err);
    if (dir) {
        mc_sandbox_rmtree(dir); /* the build and its data go */
        mc_free(dir);
    }
    mc_buf_release(&exe);
    mc_free(data);
    mc_free(gcov);
    return rc;
}

/* Lines of TEXT: newlines, and one more when it does not end with
 * one. */
static size_t
count_lines(const struct mc_buf *text)
{
    size_t i, n = 0;

    for (i = 0; i < text->len; i++)
        n += text->s[i] == '\n';
    return n + (text->len && text->s[text->len - 1] != '\n');
}

enum mc_code
mc_eval_profile_parsed(struct mc_eval *ev, struct mc_profile *p,
                       struct mc_err *err)
{
    struct mc_buf json = MC_BUF_INIT, src = MC_BUF_INIT;
    enum mc_code rc;

    mc_profile_release(p);
    rc = mc_eval_profile(ev, &json, err);
    if (!rc) {
        mc_eval_original_path(ev, &src);
        rc = mc_buf_status(&src)
                 ? mc_err_set(err, MC_ENOMEM, "out of memory")
                 : mc_profile_parse(json.s, json.len, src.s, p, err);
    }
    if (!rc && mc_profile_set_lines(p, count_lines(&ev->orig_text)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc)
        mc_profile_release(p);
    mc_buf_release(&json);
    mc_buf_release(&src);
    return rc;
}
