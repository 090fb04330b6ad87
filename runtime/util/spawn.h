/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * spawn.h: run a child process and collect what it says. The child gets
 * its own process group, which a timeout kills as a whole; its output is
 * captured up to a cap. Every child of maxcode starts from a scrubbed
 * environment (mc_spawn_env): no API key (no *API_KEY* variable, no
 * variable holding a registered secret), no LD_PRELOAD, no Bear
 * INTERCEPT_* variables and no Bear wrapper directory on PATH; it is
 * started
 * with the raw execve system call, so that a `bear -- make` never records
 * maxcode's own compiles in the user's compile database. The sandbox
 * (rlimits, scratch directory, no network) builds on this.
 */
#ifndef MC_SPAWN_H
#define MC_SPAWN_H

#include "buf.h"
#include "strv.h"

struct mc_spawn_opts {
    const char *cwd;          /* NULL: the current directory */
    char *const *envp;        /* NULL: mc_spawn_env() of our environment */
    const char *stdin_path;   /* NULL: /dev/null */
    double timeout_s;         /* 0: none */
    size_t out_cap;           /* bytes kept of each stream; 0: 1 MiB */
    /* Called in the child after its descriptors and directory are set,
     * just before exec; a nonzero return aborts the child (status 125)
     * with the message it wrote to stderr. */
    int (*child_setup)(void *ctx);
    void *setup_ctx;
    /* Extra clone flags for the child, such as CLONE_NEWPID (the child
     * is then PID 1 of a namespace whose processes all die with it) or
     * CLONE_NEWIPC; 0 for a plain fork. */
    unsigned long clone_flags;
};

struct mc_spawn_result {
    int exited;       /* exited normally; STATUS is its exit code */
    int status;
    int signaled;     /* killed by signal SIG */
    int sig;
    int timed_out;    /* we killed it at the timeout */
    int truncated;    /* an output stream was cut at the cap */
    int oom;          /* the memory bound killed it (mc_sandbox_run()) */
    double wall_s;    /* from the exec to the exit */
    double user_s, sys_s; /* CPU time of the child (not its orphans) */
    struct mc_buf out, err;  /* captured stdout and stderr */
};

void mc_spawn_result_init(struct mc_spawn_result *r);
void mc_spawn_result_release(struct mc_spawn_result *r);

/*
 * Run ARGV (ARGV[0] resolved through PATH) with options O (NULL for the
 * defaults) and fill R. Returns MC_OK whenever the child ran, whatever
 * its status; an error only when it could not be started: ARGV[0] not
 * found (MC_ENOENT), no pipe or fork, or a child that failed before its
 * program ran (MC_EIO, "cannot run 'EXE': STEP: WHY", where STEP is its
 * input or output, its directory O->cwd, O->child_setup, or execve).
 */
enum mc_code mc_spawn(char *const argv[], const struct mc_spawn_opts *o,
                      struct mc_spawn_result *r, struct mc_err *err);

/*
 * Kill (SIGKILL) the process group of every child of mc_spawn() still
 * alive. Async-signal-safe: for a command's handler of SIGINT or
 * SIGTERM, before it dies of the signal. Children die with their parent
 * anyway (PR_SET_PDEATHSIG), but not the rest of their groups.
 */
void mc_spawn_kill_all(void);

/* The environment for children, built from ours: see above. */
enum mc_code mc_spawn_env(struct mc_strv *out);

/* The monotonic clock, in seconds: what run times are measured with. */
double mc_spawn_clock(void);

/* The wall time, in seconds, of every child of mc_spawn() in this
 * process so far, each from its exec to its exit: the compilers' and
 * the programs' own time, without the forks and what a child does
 * before its exec (the sandbox's set-up). A search's time less what
 * this grew by while it ran is the search's own cost. */
double mc_spawn_children_seconds(void);

/* NAME resolved as execvp would through PATH less Bear's wrapper
 * directories, or NULL; free with mc_free(). A NAME with a slash is
 * returned as is. */
char *mc_spawn_which(const char *name);

/* The same, searching the colon-separated PATH (NULL: /usr/bin:/bin). */
char *mc_spawn_which_in(const char *name, const char *path);

#endif /* MC_SPAWN_H */
