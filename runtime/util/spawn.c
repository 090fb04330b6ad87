/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * spawn.c: fork, raw execve, capture, timeout with process-group kill.
 * The process groups of the children alive are kept in a small table,
 * so that a command dying of a signal can kill them first
 * (mc_spawn_kill_all); each child also dies with us (PR_SET_PDEATHSIG),
 * for the signals no handler sees (SIGKILL).
 */
#include "mc_setup.h"
#include "spawn.h"
#include "log.h"
#include "alloc.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

#define OUT_CAP_DEFAULT (1u << 20) /* bytes kept per stream: out_cap 0 */
#define READ_CHUNK      8192       /* bytes read from a pipe at a time */
#define KILL_GRACE_S    1          /* to reap a child killed at the
                                    * timeout */
#define WAIT_POLL_US    1000       /* reaping without a pidfd: a poll */
#define LIVE_MAX        8          /* children alive at once that
                                    * mc_spawn_kill_all() reaches */
#define FD_SCAN_MAX     65536L     /* descriptors closed one by one in a
                                    * child, without close_range(2) */

/* The exit status of a child that never ran its program; the parent
 * learns why from the exec pipe (struct start_failure), not from it. */
#define EXIT_NO_START   127

/* What a child that could not start its program writes on the exec
 * pipe: the step that failed and its errno (0: none known). */
enum start_step { STEP_FDS, STEP_CWD, STEP_SETUP, STEP_PARENT, STEP_EXEC };
struct start_failure {
    int step;
    int errnum;
};

/* The process groups of our children alive (0: a free slot), for
 * mc_spawn_kill_all(), which a signal handler calls. */
static volatile sig_atomic_t live[LIVE_MAX];

static void
live_add(pid_t pid)
{
    size_t i;

    for (i = 0; i < LIVE_MAX; i++)
        if (!live[i]) {
            live[i] = pid;
            return;
        }
}

static void
live_remove(pid_t pid)
{
    size_t i;

    for (i = 0; i < LIVE_MAX; i++)
        if (live[i] == pid)
            live[i] = 0;
}

void
mc_spawn_kill_all(void)
{
    size_t i;

    for (i = 0; i < LIVE_MAX; i++) {
        pid_t pid = live[i];

        if (pid > 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
    }
}

void
mc_spawn_result_init(struct mc_spawn_result *r)
{
    memset(r, 0, sizeof(*r));
    mc_buf_init(&r->out);
    mc_buf_init(&r->err);
}

void
mc_spawn_result_release(struct mc_spawn_result *r)
{
    mc_buf_release(&r->out);
    mc_buf_release(&r->err);
}

/* PATH without Bear's compiler-wrapper directories, into OUT. */
static enum mc_code
scrub_path(const char *path, struct mc_buf *out)
{
    const char *p = path;
    size_t start = out->len;

    while (*p) {
        size_t n = strcspn(p, ":");
        if (!memmem(p, n, "bear", 4)) {
            if (out->len > start)
                mc_buf_addc(out, ':');
            mc_buf_add(out, p, n);
        }
        p += n;
        p += *p == ':';
    }
    return mc_buf_status(out);
}

char *
mc_spawn_which(const char *name)
{
    struct mc_buf path = MC_BUF_INIT;
    const char *env = getenv("PATH");
    char *res = NULL;

    if (!scrub_path(env ? env : "/usr/bin:/bin", &path))
        res = mc_spawn_which_in(name, path.s);
    mc_buf_release(&path);
    return res;
}

char *
mc_spawn_which_in(const char *name, const char *path)
{
    struct mc_buf b = MC_BUF_INIT;
    const char *p;

    if (strchr(name, '/'))
        return mc_strdup(name);
    for (p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        mc_buf_reset(&b);
        mc_buf_addf(&b, "%.*s/%s", (int)n, n ? p : ".", name);
        if (mc_buf_status(&b) == MC_OK && access(b.s, X_OK) == 0)
            return mc_buf_detach(&b, NULL);
        p += n;
        p += *p == ':';
    }
    mc_buf_release(&b);
    return NULL;
}

enum mc_code
mc_spawn_env(struct mc_strv *out)
{
    char **e;

    for (e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');

        if (!strncmp(*e, "LD_PRELOAD=", 11) ||
            !strncmp(*e, "INTERCEPT_", 10))
            continue;
        /* No child sees a key: not as *API_KEY*, not inside another
         * variable (MAKEFLAGS holds command-line variables). */
        if ((eq && memmem(*e, (size_t)(eq - *e), "API_KEY", 7)) ||
            mc_log_holds_secret(*e))
            continue;
        if (!strncmp(*e, "PATH=", 5) && strstr(*e, "bear")) {
            struct mc_buf b = MC_BUF_INIT;

            mc_buf_adds(&b, "PATH=");
            if (scrub_path(*e + 5, &b) ||
                mc_strv_push_owned(out, mc_buf_detach(&b, NULL)))
                return MC_ENOMEM;
            continue;
        }
        if (mc_strv_push(out, *e))
            return MC_ENOMEM;
    }
    return MC_OK;
}

/* The value of PATH in ENVP, or NULL. */
static const char *
env_path(char *const *envp)
{
    for (; envp && *envp; envp++)
        if (!strncmp(*envp, "PATH=", 5))
            return *envp + 5;
    return NULL;
}

/* The wall time of every child that ran, from its exec to its exit. */
static double children_s;

double
mc_spawn_children_seconds(void)
{
    return children_s;
}

double
mc_spawn_clock(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Keep at most CAP bytes of what arrives on FD in B; 0 at EOF. */
static int
drain(int fd, struct mc_buf *b, size_t cap, int *truncated)
{
    char chunk[READ_CHUNK];
    ssize_t n = read(fd, chunk, sizeof(chunk));

    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (n == 0)
        return 0;
    if (b->len + (size_t)n > cap)
        *truncated = 1;
    if (b->len < cap)
        mc_buf_add(b, chunk,
                   (size_t)n < cap - b->len ? (size_t)n : cap - b->len);
    return 1;
}

/*
 * In the child, just before exec: close every descriptor above stderr
 * but KEEP, below LIMIT where close_range(2) is missing. What the
 * maxcode process inherited stays there: make's jobserver pipe (the
 * search's recipe is a '+' line, so make 4.3 passes its descriptors
 * open), whatever the shell around make had open, the input file before
 * dup2(). A candidate that read the jobserver pipe would take make's
 * tokens for good; one that wrote it would let make run more jobs than
 * -j says.
 */
static void
close_inherited(int keep, long limit)
{
    long fd;

#ifdef SYS_close_range
    if (keep > 3 && syscall(SYS_close_range, 3, keep - 1, 0) == 0 &&
        syscall(SYS_close_range, keep + 1, ~0U, 0) == 0)
        return;
    if (keep == 3 && syscall(SYS_close_range, 4, ~0U, 0) == 0)
        return;
#endif
    for (fd = 3; fd < limit; fd++)
        if (fd != keep)
            close((int)fd);
}

/* In the child: tell the parent through EXEC_FD that STEP failed, and
 * end. */
static void
start_failed(int exec_fd, enum start_step step)
{
    struct start_failure f = {step, errno};

    if (write(exec_fd, &f, sizeof(f)) < 0)
        _exit(EXIT_NO_START);
    _exit(EXIT_NO_START);
}

/* In the child: never returns. EXEC_FD closes on a successful exec.
 * PARENT is our parent's PID (0 in a new PID namespace, where it has
 * none). */
static void
child(char *const argv[], const char *exe, char *const *envp,
      const struct mc_spawn_opts *o, int out_fd, int err_fd, int exec_fd,
      pid_t parent)
{
    struct rlimit nofile;
    long fd_limit = 1024;
    int in_fd;

    /* Before the caller's set-up may lower it. */
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
        nofile.rlim_cur != RLIM_INFINITY)
        fd_limit = nofile.rlim_cur < FD_SCAN_MAX ? (long)nofile.rlim_cur
                                                 : FD_SCAN_MAX;
    setpgid(0, 0);
    in_fd = open(o && o->stdin_path ? o->stdin_path : "/dev/null",
                 O_RDONLY);
    if (in_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
        dup2(err_fd, 2) < 0)
        start_failed(exec_fd, STEP_FDS);
    if (o && o->cwd && chdir(o->cwd))
        start_failed(exec_fd, STEP_CWD);
    signal(SIGPIPE, SIG_DFL);
    errno = 0;
    if (o && o->child_setup && o->child_setup(o->setup_ctx))
        start_failed(exec_fd, STEP_SETUP);
    /* Die with the parent, even by SIGKILL. Set after child_setup: a
     * change of user clears it. The parent may have died before. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == 0 &&
        getppid() != parent) {
        errno = 0;
        start_failed(exec_fd, STEP_PARENT);
    }
    close_inherited(exec_fd, fd_limit);
    /* The raw system call: an LD_PRELOAD interposer (Bear) in our own
     * process does not see it. */
    syscall(SYS_execve, exe, argv, envp);
    start_failed(exec_fd, STEP_EXEC);
}

/* Wait for the child's exec (the close-on-exec pipe EXEC_FD reads EOF)
 * and close EXEC_FD; the time it happened. Set-up in the child is not
 * the program's time. When the child could not start its program, it
 * says why on the pipe: into *F, and *FAILED is set. */
static double
await_exec(int exec_fd, struct start_failure *f, int *failed)
{
    ssize_t n;

    while ((n = read(exec_fd, f, sizeof(*f))) < 0 && errno == EINTR)
        ;
    *failed = n == (ssize_t)sizeof(*f);
    close(exec_fd);
    return mc_spawn_clock();
}

/* The error for a child that could not start EXE, as F tells, with
 * the first line of what it said on stderr (SAID: a child_setup() says
 * why it refused there), if anything. */
static enum mc_code
say_start_failure(const char *exe, const struct start_failure *f,
                  const struct mc_buf *said, struct mc_err *err)
{
    size_t n = said->len ? strcspn(said->s, "\n") : 0;
    static const char *const what[] = {
        [STEP_FDS] = "cannot open its input or output",
        [STEP_CWD] = "cannot enter its working directory",
        [STEP_SETUP] = "cannot set up its sandbox",
        [STEP_PARENT] = "maxcode ended while it started",
        [STEP_EXEC] = "cannot execute it",
    };
    const char *step = f->step >= STEP_FDS && f->step <= STEP_EXEC
                           ? what[f->step]
                           : "cannot start it";

    return mc_err_set(err, MC_EIO, "cannot run '%s': %s%s%s%s%.*s%s", exe,
                      step, f->errnum > 0 ? ": " : "",
                      f->errnum > 0 ? strerror(f->errnum) : "",
                      n ? " (" : "", (int)n, n ? said->s : "", n ? ")" : "");
}

/* Read the child's stdout (FDS[0]) and stderr (FDS[1]) into R, each up
 * to CAP, until both close or the TIMEOUT (0: none) from T0 passes, when
 * the group PID is killed. Closes what it read to the end (-1 in FDS). */
static void
collect_output(pid_t pid, int fds[2], size_t cap, double timeout, double t0,
               struct mc_spawn_result *r)
{
    int open_fds = 2;

    while (open_fds) {
        struct pollfd pf[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
        struct mc_buf *into[2] = {&r->out, &r->err};
        int wait_ms = -1, n, i;

        if (timeout > 0) {
            double left = timeout - (mc_spawn_clock() - t0);
            if (left <= 0) {
                r->timed_out = 1;
                kill(-pid, SIGKILL);
                return;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        n = poll(pf, 2, wait_ms);
        if (n < 0 && errno != EINTR)
            return;
        if (n <= 0)
            continue;
        for (i = 0; i < 2; i++)
            if (pf[i].revents && !drain(fds[i], into[i], cap,
                                        &r->truncated)) {
                close(fds[i]);
                fds[i] = -1;
                open_fds--;
            }
    }
}

/* Wait for PID to end, into *WSTATUS and *RU. The pipes are closed, but
 * the child may still run (it closed its output and sleeps): the
 * deadline TIMEOUT from T0 holds for the wait too. */
static void
reap(pid_t pid, double timeout, double t0, struct mc_spawn_result *r,
     int *wstatus, struct rusage *ru)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

    memset(ru, 0, sizeof(*ru));
    for (;;) {
        pid_t w = wait4(pid, wstatus, WNOHANG, ru);
        double left = timeout > 0 ? timeout - (mc_spawn_clock() - t0) : 1;

        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (timeout > 0 && left <= 0 && !r->timed_out) {
            r->timed_out = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            left = KILL_GRACE_S;
        }
        if (pidfd >= 0) {
            /* Readable when the child exits: no polling delay. */
            struct pollfd pf = {pidfd, POLLIN, 0};
            poll(&pf, 1, timeout > 0 || r->timed_out
                             ? (int)(left * 1000) + 1
                             : -1);
        } else {
            usleep(WAIT_POLL_US);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
}

/* R's status and times from WSTATUS and RU. */
static void
set_result(struct mc_spawn_result *r, int wstatus, const struct rusage *ru)
{
    r->user_s = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
    r->sys_s = (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
    if (WIFEXITED(wstatus)) {
        r->exited = 1;
        r->status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        r->signaled = 1;
        r->sig = WTERMSIG(wstatus);
    }
}

/* Close the N descriptors of FDS that are open. */
static void
close_all(int *fds, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Fork (with O's clone flags, when any); the child's pid, or < 0. */
static pid_t
fork_child(const struct mc_spawn_opts *o)
{
    if (o && o->clone_flags)
        /* fork() with new namespaces: the raw clone, no new stack. */
        return (pid_t)syscall(SYS_clone, o->clone_flags | SIGCHLD, NULL,
                              NULL, NULL, NULL);
    return fork();
}

enum mc_code
mc_spawn(char *const argv[], const struct mc_spawn_opts *o,
         struct mc_spawn_result *r, struct mc_err *err)
{
    struct mc_strv env = MC_STRV_INIT;
    size_t cap = o && o->out_cap ? o->out_cap : OUT_CAP_DEFAULT;
    double t0, timeout = o ? o->timeout_s : 0;
    /* stdout, stderr and the exec pipe: read ends, then write ends */
    int fd[6] = {-1, -1, -1, -1, -1, -1};
    int p[2], i, wstatus = 0, start_fail;
    struct start_failure sf;
    struct rusage ru;
    enum mc_code rc = MC_OK;
    char *exe = NULL;
    pid_t pid, self = getpid();

    if (!(o && o->envp) && mc_spawn_env(&env)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    /* Resolve through the child's PATH: Bear's wrappers are not on it. */
    exe = mc_spawn_which_in(argv[0], env_path(o && o->envp ? o->envp
                                                         : env.v));
    if (!exe) {
        rc = mc_err_set(err, MC_ENOENT, "cannot find '%s' on PATH", argv[0]);
        goto out;
    }
    for (i = 0; i < 3; i++) {
        if (pipe2(p, O_CLOEXEC)) {
            rc = mc_err_set(err, MC_EIO, "cannot create a pipe: %s",
                            strerror(errno));
            goto out;
        }
        fd[i] = p[0];
        fd[i + 3] = p[1];
    }
    pid = fork_child(o);
    if (pid < 0) {
        rc = mc_err_set(err, MC_EIO, "cannot fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0)
        child(argv, exe, o && o->envp ? o->envp : env.v, o, fd[3], fd[4],
              fd[5], o && (o->clone_flags & CLONE_NEWPID) ? 0 : self);
    setpgid(pid, pid); /* also in the parent: no race with kill() */
    live_add(pid);
    close_all(fd + 3, 3);
    fd[3] = fd[4] = fd[5] = -1;
    t0 = await_exec(fd[2], &sf, &start_fail);
    fd[2] = -1;
    if (start_fail) {
        /* Not the program's behaviour: the caller hears of it. */
        collect_output(pid, fd, cap, KILL_GRACE_S, t0, r);
        reap(pid, KILL_GRACE_S, t0, r, &wstatus, &ru);
        kill(-pid, SIGKILL);
        live_remove(pid);
        rc = say_start_failure(exe, &sf, &r->err, err);
        goto out;
    }
    collect_output(pid, fd, cap, timeout, t0, r);
    reap(pid, timeout, t0, r, &wstatus, &ru);
    /* Anything the child left behind in its group goes too. */
    kill(-pid, SIGKILL);
    live_remove(pid);
    r->wall_s = mc_spawn_clock() - t0;
    children_s += r->wall_s;
    set_result(r, wstatus, &ru);
    if (mc_buf_status(&r->out) || mc_buf_status(&r->err))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    close_all(fd, 6);
    mc_strv_release(&env);
    mc_free(exe);
    return rc;
}
