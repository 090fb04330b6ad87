/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * launcher.c: `maxcode COMPILER ARGS...` (launcher.h). The work for a
 * marked file is `maxcode optimize` (cmd_optimize.c), run as a child in
 * the source's directory, so that the pragma's relative paths mean what
 * they say: it prints the path to compile, which replaces the source in
 * the compiler's command. Everything else is the compiler's own run.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "common.h"
#include "file.h"
#include "flags.h"
#include "lang.h"
#include "launcher.h"
#include "log.h"
#include "mark.h"
#include "paths.h"
#include "strv.h"

#include <sys/stat.h>
#include <sys/wait.h>

/* Replace this process with the compiler ARGV; 127 when it cannot. */
static int
run_compiler(char **argv)
{
    execvp(argv[0], argv);
    if (errno == ENOENT && !strchr(argv[0], '/'))
        return mc_usage_error("unknown command '%s' (nor a compiler on "
                              "PATH to launch)", argv[0]);
    fprintf(stderr, "maxcode: %s: %s\n", argv[0], strerror(errno));
    return 127;
}

/* Read FD to its end into OUT (when not NULL) and close it; then wait
 * for PID. Its exit status (128 + the signal that killed it), or -1. */
static int
drain_and_wait(int fd, struct mc_buf *out, pid_t pid)
{
    char chunk[4096];
    ssize_t n;
    int status;

    while (fd >= 0 && ((n = read(fd, chunk, sizeof(chunk))) > 0 ||
                       (n < 0 && errno == EINTR)))
        if (n > 0 && out)
            mc_buf_add(out, chunk, (size_t)n);
    if (fd >= 0)
        close(fd);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Run the compiler ARGV and wait for it; its stderr into ERR when ERR
 * is not NULL. Its exit status, or 127. */
static int
wait_compiler(char **argv, struct mc_buf *err)
{
    int fd[2] = {-1, -1}, status;
    pid_t pid;

    if (err && pipe(fd))
        return 127;
    if ((pid = fork()) < 0)
        return 127;
    if (pid == 0) {
        if (err) {
            dup2(fd[1], 2);
            close(fd[0]);
            close(fd[1]);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "maxcode: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (err)
        close(fd[1]);
    status = drain_and_wait(fd[0], err, pid);
    return status < 0 ? 127 : status;
}

/* The nearest directory from DIR (absolute) upward that holds NAME, as
 * DIR/NAME (NAME_TOO) or DIR; NULL when none. mc_free() it. */
static char *
upward(const char *dir, const char *name, int name_too)
{
    struct mc_buf b = MC_BUF_INIT;
    char *d = mc_strdup(dir), *found = NULL;

    while (d && !found) {
        char *slash = strrchr(d, '/');
        struct stat st;

        mc_buf_reset(&b);
        mc_buf_addf(&b, "%s/%s", strcmp(d, "/") ? d : "", name);
        if (b.s && stat(b.s, &st) == 0)
            found = name_too ? mc_buf_detach(&b, NULL) : mc_strdup(d);
        else if (!slash || !strcmp(d, "/"))
            break;
        else
            slash[slash == d] = '\0'; /* "/a" goes up to "/" */
    }
    mc_free(d);
    mc_buf_release(&b);
    return found;
}

/* The words of ARGV (C) that say how the source is compiled: all but
 * the compiler, the source, -o and its argument; the caller drops -c
 * and the dependency-file options (mc_flags_for_build()). */
static enum mc_code
compile_words(int argc, char **argv, const struct mc_launcher_cmd *c,
              struct mc_strv *out)
{
    int i, joined = c->output >= 0 && strcmp(argv[c->output - 1], "-o");

    for (i = 1; i < argc; i++)
        if (i != c->source && i != c->output &&
            (joined || i + 1 != c->output))
            mc_strv_push(out, argv[i]);
    return mc_strv_status(out) ? MC_ENOMEM : MC_OK;
}

/* The search's child: `maxcode optimize --count --cc CC --flags FLAGS
 * -- NAME` in DIR, with MAXCODE_ROOT and MAXCODE_COMPDB set where found
 * and not set already. Its stdout (the path to compile) into OUT; its
 * stderr is ours. Its exit status, or -1 when it could not run. */
static int
run_optimize(const char *dir, const char *name, const char *cc,
             const char *flags, const char *root, const char *db,
             struct mc_buf *out)
{
    char self[PATH_MAX];
    int fd[2], status;
    ssize_t n;
    pid_t pid;

    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0 || pipe(fd))
        return -1;
    self[n] = '\0';
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        char *argv[] = {self, "optimize", "--count", "--cc", (char *)cc,
                        "--flags", (char *)flags, "--", (char *)name,
                        NULL};

        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        if (chdir(dir)) {
            fprintf(stderr, "maxcode: %s: %s\n", dir, strerror(errno));
            _exit(1);
        }
        if (root && !getenv("MAXCODE_ROOT"))
            setenv("MAXCODE_ROOT", root, 1);
        if (db && !getenv("MAXCODE_COMPDB"))
            setenv("MAXCODE_COMPDB", db, 1);
        execv(self, argv);
        _exit(127);
    }
    close(fd[1]);
    status = drain_and_wait(fd[0], out, pid);
    return status > 127 ? -1 : status;
}

/* The dependency file that ARGV's compile writes (-MF FILE), or NULL. */
static const char *
dep_file(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-MF") && i + 1 < argc)
            return argv[i + 1];
        if (!strncmp(argv[i], "-MF", 3) && argv[i][3])
            return argv[i] + 3;
    }
    return NULL;
}

/* In the dependency file DEP, the variant VARIANT named as SOURCE: the
 * build system's record of what the object depends on names the file
 * as the user wrote it. */
static void
dep_file_rename(const char *dep, const char *variant, const char *source)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf in = MC_BUF_INIT, out = MC_BUF_INIT;
    size_t vlen = strlen(variant), i = 0;
    const char *p;

    if (!dep || mc_file_read(dep, &in, &err) || !in.s)
        goto out;
    while ((p = memmem(in.s + i, in.len - i, variant, vlen))) {
        mc_buf_add(&out, in.s + i, (size_t)(p - (in.s + i)));
        mc_buf_adds(&out, source);
        i = (size_t)(p - in.s) + vlen;
    }
    if (i == 0)
        goto out;
    mc_buf_add(&out, in.s + i, in.len - i);
    if (!mc_buf_status(&out))
        mc_file_write_atomic(dep, out.s, out.len, &err);
out:
    mc_buf_release(&in);
    mc_buf_release(&out);
}

/* The original's diagnostics in place of the variant's: ARGV checked
 * with -fsyntax-only, without -o, -c and the dependency files. */
static void
original_diagnostics(int argc, char **argv, const struct mc_launcher_cmd *c)
{
    struct mc_strv words = MC_STRV_INIT, check = MC_STRV_INIT;

    mc_strv_push(&check, argv[0]);
    if (!compile_words(argc, argv, c, &words) &&
        !mc_flags_for_build(&words, NULL, &check)) {
        mc_strv_push(&check, "-fsyntax-only");
        mc_strv_push(&check, argv[c->source]);
        if (!mc_strv_status(&check))
            wait_compiler(check.v, NULL);
    }
    mc_strv_release(&words);
    mc_strv_release(&check);
}

/* The command's flags for `maxcode optimize --flags`, from DIR (the
 * source's directory): shell words, relative paths rebased. */
static enum mc_code
search_flags(int argc, char **argv, const struct mc_launcher_cmd *c,
             const char *cwd, const char *dir, struct mc_buf *out)
{
    struct mc_strv words = MC_STRV_INIT, built = MC_STRV_INIT,
                   moved = MC_STRV_INIT;
    enum mc_code rc;
    size_t i;

    rc = compile_words(argc, argv, c, &words);
    if (!rc)
        rc = mc_flags_for_build(&words, NULL, &built);
    if (!rc)
        rc = mc_flags_rebase(&built, cwd, dir, MC_FLAGS_ALL, &moved);
    for (i = 0; !rc && i < moved.n; i++) {
        if (i)
            mc_buf_addc(out, ' ');
        rc = mc_shell_quote(out, moved.v[i]);
    }
    mc_strv_release(&words);
    mc_strv_release(&built);
    mc_strv_release(&moved);
    return rc ? rc : mc_buf_status(out);
}

/* Whether the pragma's options M name link files that are sources. */
static int
links_sources(const struct mc_mark *m)
{
    size_t i;

    for (i = 0; i < m->options.n; i++)
        if (!strncmp(m->options.v[i], "link=", 5) &&
            (strstr(m->options.v[i], ".c") || strstr(m->options.v[i], ".C")))
            return 1;
    return 0;
}

/* The path to compile in place of ARGV's source, into PATH: the
 * variant, or nothing (the original). Says on stderr why not. */
static void
variant_for(int argc, char **argv, const struct mc_launcher_cmd *c,
            const struct mc_mark *m, struct mc_buf *path)
{
    const char *src = argv[c->source];
    char cwd[PATH_MAX], real[PATH_MAX], *slash, *root = NULL, *db = NULL;
    struct mc_buf flags = MC_BUF_INIT, out = MC_BUF_INIT;
    int status;

    if (!getcwd(cwd, sizeof(cwd)) || !realpath(src, real) ||
        !(slash = strrchr(real, '/')))
        return;
    *slash = '\0';
    if (search_flags(argc, argv, c, cwd, real[0] ? real : "/", &flags)) {
        mc_info("%s: out of memory; compiling the original", src);
        goto out;
    }
    root = upward(real, ".git", 0);
    db = getenv("MAXCODE_COMPDB") ? NULL
                                  : upward(cwd, "compile_commands.json", 1);
    if (!db && !getenv("MAXCODE_COMPDB") && links_sources(m))
        mc_info("%s: no compile_commands.json in %s or above: its link "
                "files are compiled with its flags (CMake: "
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON; or set "
                "MAXCODE_COMPDB)", src, cwd);
    status = run_optimize(real[0] ? real : "/", slash + 1, argv[0],
                          flags.s ? flags.s : "", root, db, &out);
    if (status != 0) {
        mc_info("%s: maxcode optimize %s (status %d); compiling the "
                "original", src, status < 0 ? "could not run" : "failed",
                status);
        goto out;
    }
    while (out.len && (out.s[out.len - 1] == '\n' || out.s[out.len - 1] ==
                       '\r'))
        out.s[--out.len] = '\0';
    if (!out.len || strchr(out.s, '\n'))
        goto out;
    if (out.s[0] != '/')
        mc_buf_addf(path, "%s/", real);
    mc_buf_adds(path, out.s);
out:
    mc_free(root);
    mc_free(db);
    mc_buf_release(&flags);
    mc_buf_release(&out);
}

int
mc_launcher_main(int argc, char **argv)
{
    struct mc_launcher_cmd c;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf text = MC_BUF_INIT, path = MC_BUF_INIT, diag = MC_BUF_INIT;
    struct mc_mark m = MC_MARK_INIT;
    struct stat a, b;
    char *source;
    size_t line;
    int status;

    mc_launcher_classify(argc, argv, &c);
    if (c.source < 0 || mc_file_read(argv[c.source], &text, &err) ||
        !text.s || !mc_launcher_marked(text.s, text.len)) {
        mc_buf_release(&text);
        return run_compiler(argv);
    }
    source = argv[c.source];
    if (mc_mark_scan(text.s, text.len, &m, &err)) {
        mc_info("%s:%s; compiling the original", source, err.msg);
        mc_buf_release(&text);
        return run_compiler(argv);
    }
    if ((line = mc_launcher_open_comment(text.s, text.len)))
        mc_info("%s:%zu: the pragma's line ends inside a comment that an "
                "unquoted '/*' opens (quote the value: "
                "inputs=\"t/*.in\"); the compiler skips what follows it",
                source, line);
    variant_for(argc, argv, &c, &m, &path);
    mc_mark_release(&m);
    mc_buf_release(&text);
    if (!path.len || (stat(path.s, &a) == 0 && stat(source, &b) == 0 &&
                      a.st_ino == b.st_ino && a.st_dev == b.st_dev)) {
        mc_buf_release(&path);
        return run_compiler(argv);
    }
    argv[c.source] = path.s;
    status = wait_compiler(argv, &diag);
    argv[c.source] = source;
    if (status != 0) {
        mc_info("%s: the variant did not compile here (status %d); "
                "compiling the original", source, status);
        mc_buf_release(&diag);
        mc_buf_release(&path);
        return run_compiler(argv);
    }
    dep_file_rename(dep_file(argc, argv), path.s, source);
    if (diag.len && mc_lang_of_path(source) &&
        mc_lang_of_path(source)->lang != MC_LANG_CUDA)
        original_diagnostics(argc, argv, &c);
    else if (diag.len)
        fwrite(diag.s, 1, diag.len, stderr);
    mc_buf_release(&diag);
    mc_buf_release(&path);
    return 0;
}
