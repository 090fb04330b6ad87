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

/* Options whose argument is the next word, besides those of flags.h
 * (gcc, clang and nvcc). */
static const char *const takes_next[] = {
    "-o", "-MF", "-MT", "-MQ", "-I", "-isystem", "-iquote", "-idirafter",
    "-include", "-imacros", "-iprefix", "-iwithprefix",
    "-iwithprefixbefore", "-isysroot", "-x", "-Xlinker", "-Xpreprocessor",
    "-Xassembler", "-Xclang", "-L", "-D", "-U", "-aux-info", "--param",
    "-T", "-u", "-z", "-B", "-target", "-arch", "-ccbin", "-Xcompiler",
    "-Xptxas", "-Xnvlink", "-gencode", "--compiler-options",
    "--compiler-bindir", "--generate-code", "--gpu-architecture", "-MJ",
    "--serialize-diagnostics", "-dumpdir", "-dumpbase"};

/* Words after which maxcode leaves the command alone: it does not
 * compile to an object, or reads what the launcher cannot see. */
static const char *const not_ours[] = {
    "-E", "-S", "-M", "-MM", "-fsyntax-only", "-", "-x", "--version",
    "-###", "-emit-llvm", "-dM", "--preprocess", "-ptx", "-cubin",
    "--ptx", "--cubin", "-fatbin", "--fatbin", "-fdump-tree-all"};

static int
in_list(const char *w, const char *const *list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(w, list[i]))
            return 1;
    return 0;
}

void
mc_launcher_classify(int argc, char *const *argv, struct mc_launcher_cmd *c)
{
    int i, compile = 0, sources = 0, other = 0;

    c->source = -1;
    c->output = -1;
    for (i = 1; i < argc; i++) {
        const char *w = argv[i];

        if (!strcmp(w, "-c")) {
            compile = 1;
        } else if (in_list(w, not_ours, MC_ARRAY_SIZE(not_ours)) ||
                   w[0] == '@') {
            return;
        } else if (in_list(w, takes_next, MC_ARRAY_SIZE(takes_next))) {
            if (!strcmp(w, "-o"))
                c->output = i + 1;
            i++;
        } else if (!strncmp(w, "-o", 2) && strcmp(w, "-odir")) {
            c->output = i; /* -oFILE */
        } else if (w[0] != '-') {
            if (mc_lang_of_path(w)) {
                sources++;
                c->source = i;
            } else {
                other++;
            }
        }
    }
    if (!compile || sources != 1 || other || c->output >= argc)
        c->source = -1;
}

/* The blanks of mark.h's grammar. */
static int
blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f' ||
           ch == '\r';
}

/* Whether the line of TEXT that holds "pragma" at P reads
 * "#pragma maxcode optimize" from its start; *EOL gets its end. */
static int
pragma_line(const char *text, size_t len, size_t p, size_t *eol)
{
    size_t s = p, e = p + 6;
    const char *nl;

    while (s > 0 && blank(text[s - 1]))
        s--;
    if (s == 0 || text[s - 1] != '#')
        return 0;
    s--;
    while (s > 0 && blank(text[s - 1]))
        s--;
    nl = memchr(text + p, '\n', len - p);
    *eol = nl ? (size_t)(nl - text) : len;
    if (s > 0 && text[s - 1] != '\n')
        return 0;
    if (e >= *eol || !blank(text[e]))
        return 0;
    while (e < *eol && blank(text[e]))
        e++;
    if (*eol - e < 7 || memcmp(text + e, "maxcode", 7))
        return 0;
    e += 7;
    if (e >= *eol || !blank(text[e]))
        return 0;
    while (e < *eol && blank(text[e]))
        e++;
    return *eol - e >= 8 && !memcmp(text + e, "optimize", 8) &&
           (e + 8 == *eol || blank(text[e + 8]) || text[e + 8] == '/');
}

/* The offset of each "#pragma maxcode optimize" line of TEXT from
 * *FROM on, or LEN when none is left; *FROM moves past it. */
static size_t
next_pragma(const char *text, size_t len, size_t *from, size_t *eol)
{
    const char *p;

    while (*from < len &&
           (p = memmem(text + *from, len - *from, "pragma", 6))) {
        size_t at = (size_t)(p - text);

        *from = at + 6;
        if (pragma_line(text, len, at, eol)) {
            *from = *eol;
            return at;
        }
    }
    *from = len;
    return len;
}

int
mc_launcher_marked(const char *text, size_t len)
{
    size_t from = 0, eol;

    return next_pragma(text, len, &from, &eol) < len;
}

size_t
mc_launcher_open_comment(const char *text, size_t len)
{
    size_t from = 0, at, eol;

    while ((at = next_pragma(text, len, &from, &eol)) < len) {
        size_t i, line = 1;
        int quoted = 0, open = 0;

        for (i = at; i + 1 < eol; i++) {
            if (text[i] == '"')
                quoted = !quoted;
            else if (!quoted && !open && text[i] == '/' &&
                     text[i + 1] == '*')
                open = 1, i++;
            else if (open && text[i] == '*' && text[i + 1] == '/')
                open = 0, i++;
        }
        if (open) {
            for (i = 0; i < at; i++)
                line += text[i] == '\n';
            return line;
        }
    }
    return 0;
}

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
