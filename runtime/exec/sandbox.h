/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sandbox.h: where candidate code is built and run. Candidate code is
 * untrusted: a model wrote it, or a user handed it to `maxcode eval`.
 *
 * A sandbox is a scratch directory (mode 0711) made for one evaluation
 * and removed after it. Each run goes through mc_sandbox_run(), which
 * starts the command through mc_spawn() (own process group, wall-clock
 * timeout that kills the group, capped output) and, in the child before
 * exec:
 *   - cuts the network: it joins an empty network namespace made once
 *     per sandbox (when the OS lets us: as root);
 *   - restricts writes with Landlock (Linux >= 5.13) to the run's own
 *     directory and /dev/null; once the caller has named what runs may
 *     read (mc_sandbox_allow_read()), reads too: to those paths, the
 *     scratch directory, the directories on PATH and the system's
 *     (see sandbox.c);
 *   - bounds memory: an untrusted run (candidate code, and the
 *     original's runs that judge it) enters a memory cgroup of its own
 *     where the machine lets us make one (cgroup.h), which counts every
 *     page, shared ones too, for every kind of run; elsewhere
 *     RLIMIT_AS, RLIMIT_DATA for CUDA runs, and nothing the kernel
 *     enforces for sanitizer runs (the executor asks ASan to watch its
 *     resident memory then);
 *   - sets rlimits: CPU time, file size, open files, processes, no core
 *     files;
 *   - pins the run to the caller's CPUs, when it names any (timing);
 *   - for untrusted runs as root, drops to the unprivileged user
 *     "nobody", so the process limit holds and root-owned files are out
 *     of reach.
 * The environment is an allow-list (PATH without Bear's wrappers, HOME
 * and TMPDIR inside the run directory, LC_ALL=C, and what the caller
 * adds): no API key or token gets through.
 *
 * The process is a child subreaper, so processes that escape the group
 * (a double fork, setsid) are reparented to it; after every run,
 * mc_sandbox_sweep() kills and reaps every descendant left. What the
 * sandbox cannot stop is listed in doc/internals/eval.md.
 */
#ifndef MC_SANDBOX_H
#define MC_SANDBOX_H

#include <sched.h>
#include <sys/types.h>
#include "cgroup.h"
#include "spawn.h"
#include "strv.h"
#include "status.h"

struct mc_sandbox {
    char *root;        /* the scratch directory */
    int lock_fd;       /* holds ROOT/.lock (flock) while we live, or -1 */
    int drop;          /* untrusted runs switch to UID/GID */
    uid_t uid;
    gid_t gid;
    int netns;         /* runs join an empty network namespace */
    int netns_fd;      /* ... this one */
    int landlock;      /* Landlock ABI restricting writes, or 0 */
    int limit_reads;   /* reads are limited (where Landlock is) ... */
    struct mc_strv reads; /* ... to these real paths and the system's */
    int pidns;         /* untrusted runs get PID and IPC namespaces */
    unsigned serial;   /* for run directory names */
    unsigned long long memory; /* an untrusted run's memory bound, bytes
                        * (mc_sandbox_set_memory(); 4 GiB) */
    struct mc_cgroup cg; /* where that bound is a cgroup's (cg.dir), or
                        * why it is rlimits (cg.why) */
};

struct mc_sandbox_opts {
    const char *cwd;          /* a directory made by mc_sandbox_dir():
                               * the only one writable, HOME and TMPDIR */
    const char *workdir;      /* the working directory, when it is not
                               * CWD (the executor compiles in make's) */
    const char *stdin_path;   /* NULL: /dev/null */
    double timeout_s;         /* wall clock; 0: 60 s */
    int untrusted;            /* candidate code: drop privileges */
    int no_as_limit;          /* sanitizer builds reserve huge shadows:
                               * no RLIMIT_AS (a cgroup still bounds an
                               * untrusted run) */
    int read_all;             /* reads are not limited (a trusted
                               * listing of what the original reads) */
    int gpu;                  /* a CUDA program: the NVIDIA device nodes
                               * may be opened for writing, memory is
                               * bounded by the cgroup, or without one by
                               * RLIMIT_DATA instead of the address
                               * space, and the CUDA_* and NVIDIA_*
                               * variables are kept */
    char *const *env;         /* extra NAME=VALUE strings, or NULL */
    size_t out_cap;           /* bytes kept per stream; 0: 1 MiB */
    const cpu_set_t *cpus;    /* the CPUs the run may use, or NULL: those
                               * maxcode may (timing runs are pinned) */
};

/* Make a scratch directory under $TMPDIR (or /tmp) and find out which
 * isolation this OS allows. Release with mc_sandbox_release(). The
 * directory is locked while this process lives; scratch directories of
 * ours that no live process locks (left by a command killed by a
 * signal) are removed first, and so are the memory cgroups such a
 * command left (see stale_cgroup() in sandbox.c). */
enum mc_code mc_sandbox_init(struct mc_sandbox *sb, struct mc_err *err);

/* Bound the memory of each untrusted run to BYTES (MAXCODE_RUN_MEMORY;
 * 0: the default, 4 GiB), from the next run on. */
void mc_sandbox_set_memory(struct mc_sandbox *sb, unsigned long long bytes);

/* Kill what is left, remove the scratch directory, free SB. */
void mc_sandbox_release(struct mc_sandbox *sb);

/*
 * Let runs read PATH (a file, or a directory with everything beneath
 * it; symbolic links resolved now), and from now on limit every run's
 * reads to such paths, the scratch directory, the directories on PATH
 * and the system's, where Landlock is there. A PATH that does not exist
 * is skipped. MC_ENOMEM is the only error.
 */
enum mc_code mc_sandbox_allow_read(struct mc_sandbox *sb,
                                   const char *path);

/*
 * Whether the file at PATH, symbolic links resolved, lies beneath a
 * path given to mc_sandbox_allow_read(), the scratch directory or the
 * system's code (/usr, /bin, /lib...): where a compile's sources may
 * come from, whether or not Landlock enforces it. 1 when PATH does not
 * exist (there is nothing to read).
 */
int mc_sandbox_may_read(const struct mc_sandbox *sb, const char *path);

/*
 * Make a fresh directory NAME-N inside the sandbox (N counts up), owned
 * by the unprivileged user when UNTRUSTED and the sandbox drops
 * privileges. *PATH is freed by the caller with mc_free().
 */
enum mc_code mc_sandbox_dir(struct mc_sandbox *sb, const char *name,
                            int untrusted, char **path, struct mc_err *err);

/* Run ARGV as described above; R as for mc_spawn(), and R->oom set when
 * the kernel's OOM killer killed a process of the run at its cgroup's
 * bound. Leftover processes are swept before it returns. MC_EIO also
 * when the run's cgroup cannot be made. */
enum mc_code mc_sandbox_run(struct mc_sandbox *sb, char *const argv[],
                            const struct mc_sandbox_opts *o,
                            struct mc_spawn_result *r, struct mc_err *err);

/*
 * Copy PATH (a file, or a directory with everything under it), relative
 * to the current directory, to DIR/PATH, creating the directories
 * between. The copies belong to the unprivileged user when the sandbox
 * drops privileges, so that an untrusted run may read and write them.
 * The tree is walked under tree.h's rule: regular files and directories
 * are copied, a symbolic link whose target is inside the tree is copied
 * as a link to the same place in the copy, and any other link, a device,
 * a FIFO or a socket stops the copy: MC_EINVAL naming it. MC_EIO names
 * what could not be copied.
 */
enum mc_code mc_sandbox_copy_in(struct mc_sandbox *sb, const char *dir,
                                const char *path, struct mc_err *err);

/*
 * The device nodes a CUDA run may open for writing, as they exist here,
 * into OUT: the paths that the glob in $MAXCODE_CUDA_DEVICES matches
 * (a test hook; by default /dev/nvidia*, which includes nvidiactl,
 * nvidia-uvm, nvidia-uvm-tools, nvidia-modeset, nvidiaN and the
 * nvidia-caps directory).
 */
enum mc_code mc_sandbox_gpu_paths(struct mc_strv *out);

/* Whether the environment entry NAME=VALUE in ENTRY is one a CUDA run
 * keeps: CUDA_* and NVIDIA_* (not those whose name says it is a key,
 * token, secret or password). */
int mc_sandbox_gpu_env(const char *entry);

/* Kill and reap every descendant of this process. */
void mc_sandbox_sweep(void);

/* A one-line account of the isolation in force, for feedback records
 * ("network: cut (network namespace); writes: ..."). Static storage. */
const char *mc_sandbox_describe(const struct mc_sandbox *sb);

/* mc_sandbox_describe() with what CUDA runs are allowed besides. */
const char *mc_sandbox_describe_gpu(const struct mc_sandbox *sb);

/* Remove the directory tree at PATH (best effort). */
void mc_sandbox_rmtree(const char *path);

#endif /* MC_SANDBOX_H */
