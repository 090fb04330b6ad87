/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cgroup.h: a memory cgroup of its own for each run of candidate code,
 * where the machine lets us make one. RLIMIT_AS cannot bound a sanitizer
 * run (ASan reserves terabytes of shadow) nor a CUDA run (the runtime
 * reserves more address space than any limit), and RLIMIT_DATA does not
 * count shared memory; a memory cgroup counts every page a run's
 * processes touch, shared anonymous memory included, whatever they map.
 *
 * Layout, beneath the memory cgroup this process is in (so that a limit
 * put on maxcode's own job still holds for its runs):
 *   OWN/NAME          one per sandbox (NAME: maxcode-eval-XXXXXX-PID,
 *                     the scratch directory's name and our PID)
 *   OWN/NAME/run-N    one per run, its limit set before the run starts;
 *                     removed once the run's processes are gone
 * Cgroup v1 (the "memory" hierarchy): memory.limit_in_bytes, and
 * memory.memsw.limit_in_bytes where swap is accounted. Cgroup v2 (a
 * tree where the memory controller is enabled for OWN's children):
 * memory.max, memory.swap.max 0, memory.oom.group 1. The child enters
 * its leaf itself, before it executes (mc_cgroup_enter()).
 *
 * None is used (mc_cgroup_init() says why) without a memory controller,
 * on a read-only mount, in a v2 tree that does not delegate the memory
 * controller to us, or without the right to make a cgroup there (not
 * root); the sandbox falls back to rlimits then. The test hook
 * MAXCODE_NO_CGROUP acts as such a machine.
 */
#ifndef MC_CGROUP_H
#define MC_CGROUP_H

#include "status.h"

#define MC_CGROUP_PREFIX "maxcode-eval-" /* NAME's start, for sweeps */

struct mc_cgroup {
    char *dir;         /* OWN/NAME, or NULL: none (see WHY) */
    int v2;            /* a cgroup v2 tree, else the v1 hierarchy */
    unsigned serial;   /* for run-N */
    char why[200];     /* why there is none: "not root", ... */
};

/* One run's leaf: its path, and its cgroup.procs open for writing. */
struct mc_cgroup_run {
    char *path;        /* NULL: the run has no leaf */
    int procs_fd;      /* -1 when none */
};

/*
 * Find a writable memory controller and make the sandbox's cgroup NAME
 * beneath this process's own; a probe leaf with a limit of LIMIT bytes
 * is made and removed, so that a cgroup is only claimed where limits
 * can be set. Never fails: where no cgroup can be had, CG->dir is NULL
 * and CG->why says why. Release with mc_cgroup_release().
 */
void mc_cgroup_init(struct mc_cgroup *cg, const char *name,
                    unsigned long long limit);

/* Remove what is left of the sandbox's cgroup (leaves whose processes
 * are gone, then NAME itself) and free CG. */
void mc_cgroup_release(struct mc_cgroup *cg);

/*
 * Make the next leaf of CG with a memory limit of LIMIT bytes (swap
 * included, or none allowed) into RUN, whose cgroup.procs is left open
 * for the child (mc_cgroup_enter()). MC_EIO (ERR says what could not be
 * written) or MC_ENOMEM; RUN is then empty. Finish with
 * mc_cgroup_run_end(), whatever happens between.
 */
enum mc_code mc_cgroup_run_begin(struct mc_cgroup *cg,
                                 unsigned long long limit,
                                 struct mc_cgroup_run *run,
                                 struct mc_err *err);

/* In the child, before exec: move the calling process into the leaf
 * whose cgroup.procs is PROCS_FD. Async-signal-safe, allocates nothing.
 * 0, or -1 with errno. */
int mc_cgroup_enter(int procs_fd);

/*
 * After the run's processes are gone: how many of them the kernel's OOM
 * killer killed in RUN's leaf (0: none), then remove the leaf (killing
 * what may be left in it) and empty RUN.
 */
int mc_cgroup_run_end(struct mc_cgroup *cg, struct mc_cgroup_run *run);

/*
 * Remove the sandbox cgroups beneath this process's own that STALE
 * (called with each NAME found) says were left by a process that is
 * gone: what is left in their leaves is killed, the leaves and NAME
 * removed. Nothing happens where there is no cgroup.
 */
void mc_cgroup_sweep(int (*stale)(const char *name, void *ctx),
                     void *ctx);

#endif /* MC_CGROUP_H */
