/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-spawn.c: running a child: its exit status or signal, capped
 * output, and above all the timeout: a command that sleeps past it is
 * killed with its whole process group (a background child included,
 * also when the command closed its output) and reported as timed out,
 * within a bounded time. A child dies with its parent, even when that
 * dies of SIGKILL, and mc_spawn_kill_all(), from a signal handler,
 * kills the rest of its group. A child inherits no descriptor but its three
 * standard ones (make's jobserver pipe stays with maxcode).
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "file.h"
#include "spawn.h"
#include "tap.h"

#include <signal.h>
#include <sys/wait.h>

#define TIMEOUT_S 0.5 /* the timeout the cases give */
#define BOUND_S   5.0 /* a killed run must be over by then */

static char dir[] = "/tmp/mc-spawn-XXXXXX";

/* Run "sh -c SCRIPT" with TIMEOUT (0: none) and cap CAP (0: default);
 * *ELAPSED is how long mc_spawn() took. */
static enum mc_code
run_sh(const char *script, double timeout, size_t cap,
       struct mc_spawn_result *r, double *elapsed)
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    struct mc_spawn_opts o;
    double t0 = mc_spawn_clock();
    enum mc_code rc;

    memset(&o, 0, sizeof(o));
    o.timeout_s = timeout;
    o.out_cap = cap;
    mc_spawn_result_init(r);
    rc = mc_spawn(argv, &o, r, NULL);
    *elapsed = mc_spawn_clock() - t0;
    return rc;
}

/* Whether process PID is gone (or a zombie: dead, not yet reaped). */
static int
gone(pid_t pid)
{
    char path[64], buf[256], *p;
    FILE *f;
    int dead;

    if (kill(pid, 0) && errno == ESRCH)
        return 1;
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    f = fopen(path, "r");
    if (!f)
        return 1;
    dead = fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) != NULL &&
           (p[2] == 'Z' || p[2] == 'X');
    fclose(f);
    return dead;
}

/* The PID written to FILE by the child, or -1. */
static pid_t
pid_in(const char *file)
{
    struct mc_buf b = MC_BUF_INIT;
    long pid = -1;

    if (mc_file_read(file, &b, NULL) == MC_OK && b.len)
        pid = strtol(b.s, NULL, 10);
    mc_buf_release(&b);
    return (pid_t)pid;
}

/* Whether PID is gone within BOUND_S (init may take a moment to reap
 * an orphan). */
static int
gone_soon(pid_t pid)
{
    double t0 = mc_spawn_clock();

    while (!gone(pid) && mc_spawn_clock() - t0 < BOUND_S)
        usleep(10000);
    return gone(pid);
}

static void
test_spawn__exit_and_signal(void)
{
    struct mc_spawn_result r;
    double t;

    is_long(run_sh("echo out; echo err >&2; exit 3", 0, 0, &r, &t), MC_OK,
            "a command runs");
    ok(r.exited && r.status == 3 && !r.signaled && !r.timed_out,
       "its exit status is reported");
    is_str(r.out.s, "out\n", "stdout is captured");
    is_str(r.err.s, "err\n", "stderr apart");
    mc_spawn_result_release(&r);
    run_sh("kill -TERM $$", 0, 0, &r, &t);
    ok(r.signaled && r.sig == SIGTERM && !r.exited,
       "a signal that ends it is reported");
    mc_spawn_result_release(&r);
}

/* Every child's time from its exec to its exit adds up, for a search's
 * own cost (search_child_seconds); the fork before it is not counted. */
static void
test_spawn__children_seconds_add_up(void)
{
    struct mc_spawn_result r;
    double before = mc_spawn_children_seconds(), t;

    run_sh("sleep 0.2", 0, 0, &r, &t);
    mc_spawn_result_release(&r);
    run_sh("sleep 0.1", 0, 0, &r, &t);
    ok(mc_spawn_children_seconds() - before >= 0.3,
       "two children of 0.2 and 0.1 s add 0.3 s or more");
    ok(mc_spawn_children_seconds() - before < 0.3 + 5, "and not much more");
    mc_spawn_result_release(&r);
}

static void
test_spawn__output_cap(void)
{
    struct mc_spawn_result r;
    double t;

    run_sh("i=0; while [ $i -lt 500 ]; do echo 0123456789; i=$((i+1)); "
           "done", 0, 1000, &r, &t);
    is_long(r.out.len, 1000, "output is kept up to the cap");
    ok(r.truncated, "and said to be cut");
    ok(r.exited && r.status == 0, "the command still runs to its end");
    mc_spawn_result_release(&r);
}

static void
test_spawn__timeout_kills_the_group(void)
{
    struct mc_spawn_result r;
    char script[PATH_MAX + 128];
    pid_t bg;
    double t;

    snprintf(script, sizeof(script),
             "sleep 30 & echo $! > %s/bg; echo started; sleep 30", dir);
    is_long(run_sh(script, TIMEOUT_S, 0, &r, &t), MC_OK,
            "a command that outlives its timeout");
    ok(r.timed_out, "is reported as timed out");
    ok(r.signaled && r.sig == SIGKILL, "killed by SIGKILL");
    ok(t >= TIMEOUT_S && t < BOUND_S, "at the timeout, in bounded time");
    ok(r.wall_s >= TIMEOUT_S && r.wall_s < BOUND_S, "wall_s says so too");
    is_str(r.out.s, "started\n", "what it printed before is kept");
    bg = pid_in("bg");
    ok(bg > 0, "its background child started");
    ok(bg > 0 && gone_soon(bg), "and was killed with the group");
    if (bg > 0 && !gone(bg))
        kill(bg, SIGKILL);
    mc_spawn_result_release(&r);
}

static void
test_spawn__timeout_after_output_closed(void)
{
    struct mc_spawn_result r;
    char script[PATH_MAX + 128];
    pid_t bg;
    double t;

    /* The pipes see EOF at once: the deadline must hold for the wait. */
    snprintf(script, sizeof(script),
             "exec >/dev/null 2>&1; sleep 30 & echo $! > %s/bg2; sleep 30",
             dir);
    run_sh(script, TIMEOUT_S, 0, &r, &t);
    ok(r.timed_out, "a command that closed its output times out too");
    ok(t >= TIMEOUT_S && t < BOUND_S, "in bounded time");
    bg = pid_in("bg2");
    ok(bg > 0 && gone_soon(bg), "and its group is killed");
    if (bg > 0 && !gone(bg))
        kill(bg, SIGKILL);
    mc_spawn_result_release(&r);
}

static void
test_spawn__no_timeout_when_quick(void)
{
    struct mc_spawn_result r;
    double t;

    run_sh("sleep 0.1; echo done", 5, 0, &r, &t);
    ok(!r.timed_out && r.exited && r.status == 0,
       "a command that ends in time is not timed out");
    is_str(r.out.s, "done\n", "and its output is whole");
    mc_spawn_result_release(&r);
}

/* In a helper process: die of SIGTERM, killing our children first. */
static void
on_term(int sig)
{
    (void)sig;
    mc_spawn_kill_all();
    _exit(0);
}

/*
 * Fork a helper that runs SCRIPT with mc_spawn() (and, with HANDLER,
 * calls mc_spawn_kill_all() on SIGTERM); once FILE holds a PID, send the
 * helper SIG and reap it. The PID in FILE, or -1.
 */
static pid_t
spawn_then_kill(const char *script, const char *file, int handler, int sig)
{
    double t0 = mc_spawn_clock();
    pid_t helper, pid = -1;

    helper = fork();
    if (helper == 0) {
        char *argv[] = {"sh", "-c", (char *)script, NULL};
        struct mc_spawn_result r;

        if (handler)
            signal(SIGTERM, on_term);
        mc_spawn_result_init(&r);
        mc_spawn(argv, NULL, &r, NULL);
        _exit(0);
    }
    if (helper < 0)
        return -1;
    while ((pid = pid_in(file)) <= 0 && mc_spawn_clock() - t0 < BOUND_S)
        usleep(10000);
    kill(helper, sig);
    waitpid(helper, NULL, 0);
    return pid;
}

/* Run "sh -c SCRIPT" (in the scratch directory) in a helper killed by
 * SIG (with HANDLER, see spawn_then_kill()); the process whose PID
 * SCRIPT writes to FILE must then be gone. STARTED and KILLED name the
 * checks. */
static void
expect_killed(const char *script, const char *file, int handler, int sig,
              const char *started, const char *killed)
{
    pid_t pid = spawn_then_kill(script, file, handler, sig);

    ok(pid > 0, started);
    ok(pid > 0 && gone_soon(pid), killed);
    if (pid > 0 && !gone(pid))
        kill(pid, SIGKILL);
}

static void
test_spawn__child_dies_with_parent(void)
{
    expect_killed("echo $$ > own; exec sleep 30", "own", 0, SIGKILL,
                  "a child started",
                  "it dies with its parent, killed by SIGKILL");
}

static void
test_spawn__kill_all_reaches_the_group(void)
{
    expect_killed("sleep 30 & echo $! > grp; wait", "grp", 1, SIGTERM,
                  "a child's background child started",
                  "mc_spawn_kill_all() in a SIGTERM handler kills it");
}

static void
test_spawn__missing_program(void)
{
    char *argv[] = {"mc-no-such-program-here", NULL};
    struct mc_spawn_result r;
    struct mc_err err = MC_ERR_INIT;

    mc_spawn_result_init(&r);
    is_long(mc_spawn(argv, NULL, &r, &err), MC_ENOENT,
            "a program not on PATH is MC_ENOENT");
    contains(err.msg, "cannot find 'mc-no-such-program-here'",
             "naming it");
    mc_spawn_result_release(&r);
}

/* A child that cannot start its program is an error with the reason,
 * not a run whose status and stderr would pass for the program's. */
static void
test_spawn__start_failures(void)
{
    char *argv[] = {"./not-executable", NULL};
    char *sh[] = {"/bin/sh", "-c", "echo ran", NULL};
    struct mc_spawn_opts so = {.cwd = "no-such-directory"};
    struct mc_spawn_result r;
    struct mc_err err = MC_ERR_INIT;
    FILE *f = fopen("not-executable", "w");

    if (f) {
        fputs("#!/bin/sh\necho ran\n", f);
        fclose(f);
    }
    mc_spawn_result_init(&r);
    is_long(mc_spawn(argv, NULL, &r, &err), MC_EIO,
            "a file without execute permission is MC_EIO");
    contains(err.msg, "cannot run './not-executable': cannot execute it: "
             "Permission denied", "naming the program, the step, errno");
    is_long(r.out.len, 0, "nothing ran");
    mc_spawn_result_release(&r);
    mc_err_clear(&err);
    mc_spawn_result_init(&r);
    is_long(mc_spawn(sh, &so, &r, &err), MC_EIO,
            "a working directory that is missing is MC_EIO");
    contains(err.msg, "cannot enter its working directory: No such file",
             "saying so");
    mc_spawn_result_release(&r);
    mc_err_clear(&err);
}

static void
test_spawn__no_inherited_descriptors(void)
{
    struct mc_spawn_result r;
    int p[2] = {-1, -1}, high = -1;
    double t;

    /* As make passes its jobserver pipe: open across exec, and one of
     * them high up, as a shell's saved descriptors are. */
    if (pipe(p) == 0)
        high = dup2(p[0], 200);
    ok(p[0] >= 0 && high == 200, "an inheritable pipe is open");
    run_sh("ls /proc/self/fd", 5, 0, &r, &t);
    /* ls's own view of its directory is the fourth: 0, 1, 2, 3. */
    is_str(r.out.s, "0\n1\n2\n3\n",
           "the child has stdin, stdout and stderr only");
    mc_spawn_result_release(&r);
    if (high >= 0)
        close(high);
    if (p[0] >= 0) {
        close(p[0]);
        close(p[1]);
    }
}

int
main(void)
{
    char cmd[64];

    if (!mkdtemp(dir) || chdir(dir)) {
        printf("Bail out! cannot make a scratch directory\n");
        return 1;
    }
    TAP_RUN(test_spawn__exit_and_signal);
    TAP_RUN(test_spawn__output_cap);
    TAP_RUN(test_spawn__children_seconds_add_up);
    TAP_RUN(test_spawn__timeout_kills_the_group);
    TAP_RUN(test_spawn__timeout_after_output_closed);
    TAP_RUN(test_spawn__no_timeout_when_quick);
    TAP_RUN(test_spawn__child_dies_with_parent);
    TAP_RUN(test_spawn__kill_all_reaches_the_group);
    TAP_RUN(test_spawn__missing_program);
    TAP_RUN(test_spawn__start_failures);
    TAP_RUN(test_spawn__no_inherited_descriptors);
    snprintf(cmd, sizeof(cmd), "cd / && rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
