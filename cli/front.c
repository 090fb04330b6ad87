/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * front.c: the program installed as `maxcode`. It takes the compiler
 * launcher's common case alone: a compile of a file without marking,
 * or any compiler command that is not a compile maxcode takes, becomes
 * the compiler, with one exec and one read of the file in between, as
 * ccache's would (maxcode(1), COMPILER LAUNCHER). Everything else, every
 * subcommand, a marked file, and whatever it is not sure of, goes to the
 * full program (main.c), which it execs with the same arguments: built
 * as cli/maxcode, installed in pkglibexecdir. Which commands a launcher
 * takes and what marks a file are launcher_scan.c's, the full program's
 * own answers.
 *
 * Where the system allows (x86-64 Linux; configure's MC_FRONT_BARE),
 * it is a static program without the C library: its own _start, system
 * calls and string functions. Such a program starts in a third of the
 * time of one linked with libc, which is most of what a launcher costs
 * on a compile (doc/benchmarks.md). Elsewhere it is an ordinary program
 * with the same code.
 */
#include "mc_setup.h"
#include "commands.h"
#include "launcher.h"

#include <fcntl.h>
#include <sys/mman.h>
#if MC_FRONT_BARE
/* -ffreestanding: clang's <limits.h> then leaves out the system's, and
 * with it PATH_MAX. */
#include <linux/limits.h>
#include <sys/syscall.h>
#endif

#ifndef MC_PKGLIBEXECDIR
#define MC_PKGLIBEXECDIR "/usr/local/libexec/maxcode"
#endif

/* The system calls the front makes, each returning -errno on failure. */
#if MC_FRONT_BARE
static long
sys6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long r;

    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                       "r"(r9)
                     : "rcx", "r11", "memory");
    return r;
}
#define SYS(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

static long
sys_open(const char *path)
{
    return SYS(__NR_open, path, O_RDONLY | O_CLOEXEC, 0);
}

static long
sys_size(long fd)
{
    return SYS(__NR_lseek, fd, 0, SEEK_END);
}

static long
sys_close(long fd)
{
    return SYS(__NR_close, fd, 0, 0);
}

static long
sys_write(long fd, const char *s, size_t n)
{
    return SYS(__NR_write, fd, s, n);
}

static long
sys_execve(const char *path, char **argv, char **envp)
{
    return SYS(__NR_execve, path, argv, envp);
}

static long
sys_readlink(const char *path, char *buf, size_t n)
{
    return SYS(__NR_readlink, path, buf, n);
}

static long
sys_access(const char *path)
{
    return SYS(__NR_access, path, X_OK, 0);
}

/* The kernel's struct stat is glibc's on x86-64. */
static long
sys_stat(const char *path, struct stat *st)
{
    return SYS(__NR_stat, path, st, 0);
}

static void *
sys_map(long fd, size_t len)
{
    long r = sys6(__NR_mmap, 0, (long)len, PROT_READ, MAP_PRIVATE, fd, 0);

    return r < 0 && r > -4096 ? NULL : (void *)r;
}

static long
sys_unmap(void *p, size_t len)
{
    return SYS(__NR_munmap, p, len, 0);
}

static _Noreturn void
sys_exit(int status)
{
    for (;;)
        SYS(__NR_exit_group, status, 0, 0);
}

/* What launcher_scan.c, lang.c and the compiler's own code call. The
 * byte copies go through volatile pointers, so that the compiler does
 * not make them calls to themselves. */
void *
memset(void *s, int c, size_t n)
{
    volatile unsigned char *p = s;

    while (n--)
        *p++ = (unsigned char)c;
    return s;
}

void *
memcpy(void *restrict d, const void *restrict s, size_t n)
{
    volatile unsigned char *p = d;
    const unsigned char *q = s;

    while (n--)
        *p++ = *q++;
    return d;
}

size_t
strlen(const char *s)
{
    const char *p = s;

    while (*p)
        p++;
    return (size_t)(p - s);
}

int
memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;

    for (; n; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}

int
strncmp(const char *a, const char *b, size_t n)
{
    for (; n && *a && *a == *b; n--, a++, b++)
        ;
    return n ? (unsigned char)*a - (unsigned char)*b : 0;
}

int
strcmp(const char *a, const char *b)
{
    return strncmp(a, b, (size_t)-1);
}

void *
memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;

    for (; n; n--, p++)
        if (*p == (unsigned char)c)
            return (void *)p;
    return NULL;
}

char *
strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}

char *
strrchr(const char *s, int c)
{
    const char *last = NULL;

    for (;; s++) {
        if (*s == (char)c)
            last = s;
        if (!*s)
            return (char *)last;
    }
}

void *
memmem(const void *h, size_t hn, const void *n, size_t nn)
{
    const char *p = h;

    if (!nn)
        return (void *)p;
    for (; hn >= nn; p++, hn--)
        if (*p == *(const char *)n && !memcmp(p, n, nn))
            return (void *)p;
    return NULL;
}
#else
static long
ret(long r)
{
    return r < 0 ? -errno : r;
}

static long
sys_open(const char *path)
{
    return ret(open(path, O_RDONLY | O_CLOEXEC));
}

static long
sys_size(long fd)
{
    return ret(lseek((int)fd, 0, SEEK_END));
}

static long
sys_close(long fd)
{
    return ret(close((int)fd));
}

static long
sys_write(long fd, const char *s, size_t n)
{
    return ret(write((int)fd, s, n));
}

static long
sys_execve(const char *path, char **argv, char **envp)
{
    return ret(execve(path, argv, envp));
}

static long
sys_readlink(const char *path, char *buf, size_t n)
{
    return ret(readlink(path, buf, n));
}

static long
sys_access(const char *path)
{
    return ret(access(path, X_OK));
}

static long
sys_stat(const char *path, struct stat *st)
{
    return ret(stat(path, st));
}

static void *
sys_map(long fd, size_t len)
{
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, (int)fd, 0);

    return p == MAP_FAILED ? NULL : p;
}

static long
sys_unmap(void *p, size_t len)
{
    return ret(munmap(p, len));
}
#endif

/* The value of NAME in ENVP, or NULL. */
static const char *
env_get(char **envp, const char *name)
{
    size_t n = strlen(name);

    for (; *envp; envp++)
        if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
}

/* Append the N bytes at S to the string OUT of SIZE bytes at *AT; 0
 * when they do not fit. */
static int
add(char *out, size_t size, size_t *at, const char *s, size_t n)
{
    if (*at + n >= size)
        return 0;
    memcpy(out + *at, s, n);
    *at += n;
    out[*at] = '\0';
    return 1;
}

static void
say(const char *a, const char *b, const char *c)
{
    sys_write(2, a, strlen(a));
    sys_write(2, b, strlen(b));
    sys_write(2, c, strlen(c));
}

/* Whether ARGV (ARGC words) is the full program's: no first word, a
 * subcommand, an option, "--" without a compiler after it. */
static int
for_full_program(int argc, char **argv)
{
#define COMMAND_NAME(name, run) name,
    static const char *const names[] = {MC_COMMANDS(COMMAND_NAME)};
#undef COMMAND_NAME
    size_t i;

    if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--")) ||
        (!strcmp(argv[1], "--") && argc < 3))
        return 1;
    for (i = 0; i < MC_ARRAY_SIZE(names); i++)
        if (!strcmp(argv[1], names[i]))
            return 1;
    return 0;
}

/* Whether the compile of PATH is one maxcode takes: the file is marked,
 * or cannot be read in a way the full program should look at. A file
 * that cannot be opened is the compiler's to report. */
static int
marked(const char *path)
{
    long fd = sys_open(path), size;
    void *text;
    int yes;

    if (fd < 0)
        return 0;
    size = sys_size(fd);
    if (size <= 0) {
        sys_close(fd);
        return size < 0;
    }
    text = sys_map(fd, (size_t)size);
    sys_close(fd);
    if (!text)
        return 1;
    yes = mc_launcher_marked(text, (size_t)size);
    sys_unmap(text, (size_t)size);
    return yes;
}

/* Replace the front with ARGV's program, found on PATH as execvp()
 * finds it, but looked at with access() before the exec: a failed exec
 * costs a new address space and a copy of the arguments and the
 * environment, and PATH often holds several directories before the
 * compiler's. Returns when none was run; the full program then answers
 * (a shell script without "#!", an unknown command). */
static void
exec_compiler(char **argv, char **envp)
{
    const char *path = env_get(envp, "PATH"), *p, *end;
    char file[PATH_MAX];

    if (strchr(argv[0], '/')) {
        sys_execve(argv[0], argv, envp);
        return;
    }
    for (p = path ? path : "/bin:/usr/bin";; p = end + 1) {
        size_t at = 0;
        long r;

        end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        if (add(file, sizeof(file), &at, p, (size_t)(end - p)) &&
            (at == 0 || add(file, sizeof(file), &at, "/", 1)) &&
            add(file, sizeof(file), &at, argv[0], strlen(argv[0])) &&
            sys_access(file) == 0) {
            r = sys_execve(file, argv, envp);
            if (r != -ENOENT && r != -ENOTDIR && r != -EACCES &&
                r != -ELOOP && r != -ENAMETOOLONG && r != -ESTALE &&
                r != -ENODEV && r != -ETIMEDOUT)
                return;
        }
        if (!*end)
            return;
    }
}

/* DIR, then the path from FROM to TO (absolute, without "." or ".."
 * components), then "/maxcode", into OUT; 0 when it does not fit. */
static int
relative_join(char *out, size_t size, const char *dir, const char *from,
              const char *to)
{
    size_t i = 0, last = 0, at = 0;

    while (from[i] && from[i] == to[i]) {
        if (from[i] == '/')
            last = i;
        i++;
    }
    if ((!from[i] && (!to[i] || to[i] == '/')) || (!to[i] && from[i] == '/'))
        last = i;
    if (!add(out, size, &at, dir, strlen(dir)))
        return 0;
    for (i = last; from[i]; i++)
        if (from[i] == '/' && from[i + 1] && from[i + 1] != '/' &&
            !add(out, size, &at, "/..", 3))
            return 0;
    return add(out, size, &at, to + last, strlen(to + last)) &&
           add(out, size, &at, "/maxcode", 8);
}

/* Replace the front with the program PATH, given ARGV, unless PATH is
 * the front itself (pkglibexecdir set to bindir, a link): that would
 * exec itself for ever. */
static void
exec_other(const char *path, char **argv, char **envp)
{
    struct stat a, b;

    /* Set here too: the analyzer cannot see the system call fill them. */
    a.st_dev = b.st_dev = 0;
    a.st_ino = b.st_ino = 0;
    if (sys_stat(path, &a) == 0 && sys_stat("/proc/self/exe", &b) == 0 &&
        (a.st_dev != b.st_dev || a.st_ino != b.st_ino))
        sys_execve(path, argv, envp);
}

/* Replace the front with the full program, given ARGV. It is found
 * from the front's own path: the build tree's cli/maxcode, then the
 * installed one (a DESTDIR's too), then the configured pkglibexecdir.
 * Returns when none could be run, having said so. */
static void
exec_full_program(char **argv, char **envp)
{
    char self[PATH_MAX], full[PATH_MAX];
    long n = sys_readlink("/proc/self/exe", self, sizeof(self) - 1);
    size_t at = 0;
    char *slash;

    if (n > 0) {
        self[n] = '\0';
        slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        if (add(full, sizeof(full), &at, self, strlen(self)) &&
            add(full, sizeof(full), &at, "/cli/maxcode", 12))
            exec_other(full, argv, envp);
        if (relative_join(full, sizeof(full), self, MC_BINDIR,
                          MC_PKGLIBEXECDIR))
            exec_other(full, argv, envp);
    }
    exec_other(MC_PKGLIBEXECDIR "/maxcode", argv, envp);
    say("maxcode: cannot run the maxcode program (", MC_PKGLIBEXECDIR,
        "/maxcode, or one beside this front); reinstall maxcode\n");
}

/* The front: the compiler when the command is a compile maxcode leaves
 * alone, else the full program. An interposer in the environment
 * (LD_PRELOAD: Bear's, a sanitizer's) sees no exec made by a program
 * without the C library, so with one the full program does the exec. */
static int
front(int argc, char **argv, char **envp)
{
    const char *preload = env_get(envp, "LD_PRELOAD");
    struct mc_launcher_cmd c;
    char **cc;

    if (for_full_program(argc, argv)) {
        exec_full_program(argv, envp);
        return 127;
    }
    cc = argv + 1 + !strcmp(argv[1], "--");
    if (!preload || !*preload) {
        mc_launcher_classify(argc - (int)(cc - argv), cc, &c);
        if (c.source < 0 || !marked(cc[c.source]))
            exec_compiler(cc, envp);
    }
    exec_full_program(argv, envp);
    /* The build never fails because of maxcode: the compiler alone. */
    exec_compiler(cc, envp);
    say("maxcode: ", cc[0], ": cannot run it\n");
    return 127;
}

#if MC_FRONT_BARE
/* The kernel starts the program here: the stack holds argc, argv's
 * words, NULL, the environment's, NULL. */
void mc_front_start(long *sp);

void
mc_front_start(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);

    sys_exit(front(argc, argv, argv + argc + 1));
}

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "\txor %ebp, %ebp\n"
        "\tmov %rsp, %rdi\n"
        "\tand $-16, %rsp\n"
        "\tcall mc_front_start\n"
        "\thlt\n");
#else
int
main(int argc, char **argv)
{
    extern char **environ;

    return front(argc, argv, environ);
}
#endif
