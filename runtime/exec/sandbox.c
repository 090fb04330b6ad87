/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sandbox.c: scratch directories, the child's isolation (network
 * namespace, Landlock writes and reads, rlimits, privilege drop), the
 * environment allow-list, and sweeping leftover processes. The Landlock
 * rules and the read allow-list are in sandbox_fs.c (sandbox_priv.h).
 */
#include "mc_setup.h"
#include "sandbox.h"
#include "sandbox_priv.h"
#include "alloc.h"
#include "cgroup.h"
#include "buf.h"
#include "strv.h"
#include "tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MB (1024ULL * 1024)

/* The rlimits of a run: untrusted (candidate code) and trusted (the
 * compiler, the original's builds). The CPU limit is the timeout plus
 * CPU_SLACK_S, so that the wall-clock timeout normally fires first. */
#define CPU_SLACK_S        2
#define FSIZE_UNTRUSTED    (256 * MB)
#define FSIZE_TRUSTED      (1024 * MB)
#define NOFILE_UNTRUSTED   256
#define NOFILE_TRUSTED     1024
#define MEMORY_DEFAULT     (4096 * MB) /* untrusted runs' memory bound */
#define AS_TRUSTED         (8192 * MB)
/* Without a cgroup, a CUDA run's memory bound: the runtime reserves far
 * more address space than any RLIMIT_AS we could set (PROT_NONE ranges
 * for unified addressing), so RLIMIT_DATA instead, at this many times
 * the bound (16 GiB at the default). RLIMIT_DATA counts private
 * writable memory only: not shared mappings, which is why the cgroup,
 * where there is one, is the bound of every untrusted run. */
#define DATA_GPU_TIMES     4
#define DATA_GPU           (16384 * MB) /* trusted CUDA runs */
#define GPU_PATHS_MAX      64    /* device nodes a CUDA run may write */
#define NPROC_UNTRUSTED    64
#define TIMEOUT_DEFAULT_S  60    /* a run whose timeout_s is 0 */
#define NOBODY_ID          65534 /* "nobody" when the passwd lacks it */
#define COPY_CHUNK         65536 /* bytes copied at a time */
#define NFTW_FDS           16    /* descriptors nftw() may hold */
#define SWEEP_KIDS         256   /* children killed per sweep round */
#define SWEEP_ROUNDS       100   /* rounds before a sweep gives up */
#define ROOT_PREFIX        "maxcode-eval-"
#define ROOT_LOCK          ".lock" /* in the scratch directory, held
                                    * (flock) by its process */

struct setup {
    const struct mc_sandbox *sb;
    const char *write_dir;
    int untrusted, no_as_limit, gpu;
    int cg_fd;                /* the run's cgroup.procs, or -1: no
                               * cgroup, rlimits bound its memory */
    char *const *gpu_paths;   /* device nodes also writable, or NULL */
    char *const *read_paths;  /* all that may be read, or NULL: reads are
                               * not limited */
    double timeout_s;
    const cpu_set_t *cpus;    /* pinned to these, or NULL */
};

static void
limit(int resource, rlim_t value)
{
    struct rlimit rl = {value, value};

    setrlimit(resource, &rl);
}

/* Runs in the child, just before exec. */
static int
child_setup(void *ctx)
{
    const struct setup *s = ctx;
    rlim_t cpu = (rlim_t)s->timeout_s + CPU_SLACK_S;
    rlim_t mem = (rlim_t)s->sb->memory;

    /* First: what this process allocates from now on is counted. */
    if (s->cg_fd >= 0 && mc_cgroup_enter(s->cg_fd)) {
        dprintf(2, "maxcode: sandbox: cannot enter the run's memory "
                "cgroup: %s\n", strerror(errno));
        return -1;
    }
    if (s->sb->netns && setns(s->sb->netns_fd, CLONE_NEWNET)) {
        dprintf(2, "maxcode: sandbox: cannot cut the network: %s\n",
                strerror(errno));
        return -1;
    }
    if (s->sb->landlock &&
        mc_sandbox_restrict_fs(s->write_dir, s->gpu ? s->gpu_paths : NULL,
                               s->read_paths, s->sb->landlock)) {
        dprintf(2, "maxcode: sandbox: cannot restrict %s: %s\n",
                s->read_paths ? "reads and writes" : "writes",
                strerror(errno));
        return -1;
    }
    /* Best effort: a CPU taken offline since leaves the run unpinned. */
    if (s->cpus)
        sched_setaffinity(0, sizeof(*s->cpus), s->cpus);
    limit(RLIMIT_CPU, cpu);
    limit(RLIMIT_CORE, 0);
    limit(RLIMIT_FSIZE, s->untrusted ? FSIZE_UNTRUSTED : FSIZE_TRUSTED);
    limit(RLIMIT_NOFILE, s->untrusted ? NOFILE_UNTRUSTED : NOFILE_TRUSTED);
    /* In a cgroup, the cgroup bounds memory (every page, shared ones
     * too): no address-space limit, which would only fail what it
     * allows. */
    if (s->cg_fd < 0 && s->gpu)
        limit(RLIMIT_DATA, s->untrusted ? DATA_GPU_TIMES * mem : DATA_GPU);
    else if (s->cg_fd < 0 && !s->no_as_limit)
        limit(RLIMIT_AS, s->untrusted ? mem : AS_TRUSTED);
    if (s->untrusted && s->sb->drop) {
        if (setgroups(0, NULL) || setgid(s->sb->gid) ||
            setuid(s->sb->uid)) {
            dprintf(2, "maxcode: sandbox: cannot drop privileges: %s\n",
                    strerror(errno));
            return -1;
        }
    }
    if (s->untrusted)
        limit(RLIMIT_NPROC, NPROC_UNTRUSTED);
    return 0;
}

/*
 * One empty network namespace for all of this sandbox's runs: a child
 * makes it and waits; we keep a descriptor to it and let the child go.
 * Joining it (setns) is cheap where creating one per run is not. Returns
 * the descriptor, or -1 where the OS does not allow it.
 */
static int
make_netns(void)
{
    int ready[2], fd = -1, status;
    char path[64], c;
    pid_t pid, parent = getpid();

    if (pipe2(ready, O_CLOEXEC))
        return -1;
    pid = fork();
    if (pid == 0) {
        /* It holds copies of our descriptors (a key's lock among them):
         * it dies with us, should we die before we kill it. */
        close(ready[0]);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == parent &&
            unshare(CLONE_NEWNET) == 0 && write(ready[1], "y", 1) == 1)
            pause();
        _exit(1);
    }
    close(ready[1]);
    if (pid < 0) {
        close(ready[0]);
        return -1;
    }
    if (read(ready[0], &c, 1) == 1) {
        snprintf(path, sizeof(path), "/proc/%ld/ns/net", (long)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    close(ready[0]);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return fd;
}

/* Can children be cloned with FLAGS (new namespaces)? */
static int
probe_clone(unsigned long flags)
{
    int status = 0;
    pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
                               NULL);

    if (pid == 0)
        _exit(0);
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Lock the scratch directory ROOT as ours: ROOT/.lock, locked before it
 * gets that name, so that no sweep ever sees it unlocked. The
 * descriptor, or -1.
 */
static int
lock_root(const char *root)
{
    struct mc_buf tmp = MC_BUF_INIT, name = MC_BUF_INIT;
    int fd = -1;

    mc_buf_addf(&tmp, "%s/%s.new", root, ROOT_LOCK);
    mc_buf_addf(&name, "%s/%s", root, ROOT_LOCK);
    if (!mc_buf_status(&tmp) && !mc_buf_status(&name))
        fd = open(tmp.s, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 && (flock(fd, LOCK_EX | LOCK_NB) || rename(tmp.s, name.s))) {
        close(fd);
        fd = -1;
    }
    mc_buf_release(&tmp);
    mc_buf_release(&name);
    return fd;
}

/*
 * Remove the scratch directories in BASE that a killed command left:
 * ours (same owner), with a lock file that no live process holds.
 * Directories without one (an older maxcode's) are left alone.
 */
static void
sweep_stale_roots(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *de;

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        struct mc_buf dir = MC_BUF_INIT;
        struct stat st;
        int fd;

        if (strncmp(de->d_name, ROOT_PREFIX, strlen(ROOT_PREFIX)))
            continue;
        mc_buf_addf(&dir, "%s/%s", base, de->d_name);
        if (mc_buf_status(&dir) || lstat(dir.s, &st) ||
            !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
            mc_buf_release(&dir);
            continue;
        }
        mc_buf_addf(&dir, "/%s", ROOT_LOCK);
        fd = mc_buf_status(&dir)
                 ? -1
                 : open(dir.s, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
            dir.s[dir.len - strlen(ROOT_LOCK) - 1] = '\0';
            mc_sandbox_rmtree(dir.s);
        }
        if (fd >= 0)
            close(fd);
        mc_buf_release(&dir);
    }
    closedir(d);
}

/*
 * Whether the sandbox cgroup NAME (ROOT-PID, see cgroup.h) was left by
 * a process that is gone: its scratch directory ROOT in BASE (CTX) has
 * a lock that no live process holds, or (another TMPDIR, or no lock
 * yet) no process PID is alive.
 */
static int
stale_cgroup(const char *name, void *ctx)
{
    const char *base = ctx, *dash = strrchr(name, '-');
    struct mc_buf lock = MC_BUF_INIT;
    long pid = dash ? atol(dash + 1) : 0;
    int fd, stale;

    if (pid <= 0 || (size_t)(dash - name) <= strlen(ROOT_PREFIX))
        return 0;
    mc_buf_addf(&lock, "%s/%.*s/%s", base, (int)(dash - name), name,
                ROOT_LOCK);
    fd = mc_buf_status(&lock)
             ? -1
             : open(lock.s, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        stale = flock(fd, LOCK_EX | LOCK_NB) == 0;
    else
        stale = pid != (long)getpid() && kill((pid_t)pid, 0) &&
                errno == ESRCH;
    if (fd >= 0)
        close(fd);
    mc_buf_release(&lock);
    return stale;
}

/* Whether the user SB drops to may enter every directory above PATH
 * (by the mode bits; PATH itself is made 0711). Else the first that it
 * may not, into BLOCKED. */
static int
reachable_by_dropped(const struct mc_sandbox *sb, const char *path,
                     struct mc_buf *blocked)
{
    struct mc_buf dir = MC_BUF_INIT;
    const char *slash = path;
    int ok = 1;

    while (ok && (slash = strchr(slash + 1, '/'))) {
        struct stat st;

        mc_buf_reset(&dir);
        mc_buf_add(&dir, path, (size_t)(slash - path));
        if (mc_buf_status(&dir) || stat(dir.s, &st))
            break;
        ok = (st.st_mode & S_IXOTH) ||
             (st.st_uid == sb->uid && (st.st_mode & S_IXUSR)) ||
             (st.st_gid == sb->gid && (st.st_mode & S_IXGRP));
        if (!ok)
            mc_buf_adds(blocked, dir.s);
    }
    mc_buf_release(&dir);
    return ok;
}

enum mc_code
mc_sandbox_init(struct mc_sandbox *sb, struct mc_err *err)
{
    const char *tmp = getenv("TMPDIR");
    const char *base = tmp && *tmp == '/' ? tmp : "/tmp";
    struct mc_buf path = MC_BUF_INIT;
    struct passwd *pw;

    memset(sb, 0, sizeof(*sb));
    sb->lock_fd = -1;
    sb->memory = MEMORY_DEFAULT;
    /* The cgroups first: a stale one is known by its scratch directory's
     * free lock, which the next sweep removes. */
    mc_cgroup_sweep(stale_cgroup, (void *)base);
    sweep_stale_roots(base);
    mc_buf_addf(&path, "%s/%sXXXXXX", base, ROOT_PREFIX);
    if (mc_buf_status(&path))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!mkdtemp(path.s)) {
        enum mc_code rc = mc_err_set(err, MC_EIO, "cannot create '%s': %s",
                                     path.s, strerror(errno));
        mc_buf_release(&path);
        return rc;
    }
    chmod(path.s, 0711);
    sb->lock_fd = lock_root(path.s);
    sb->root = mc_buf_detach(&path, NULL);
    if (geteuid() == 0) {
        pw = getpwnam("nobody");
        sb->drop = 1;
        sb->uid = pw ? pw->pw_uid : NOBODY_ID;
        sb->gid = pw ? pw->pw_gid : NOBODY_ID;
        if (!reachable_by_dropped(sb, sb->root, &path)) {
            /* Every run would fail at its exec, the original's too. */
            enum mc_code rc = mc_err_set(
                err, MC_EIO, "the sandbox's user nobody (maxcode runs as "
                "root) cannot enter '%s', above the scratch directory: "
                "set TMPDIR to a directory every user may enter, such as "
                "/tmp", path.s);
            mc_buf_release(&path);
            mc_sandbox_release(sb);
            return rc;
        }
    }
    sb->pidns = probe_clone(CLONE_NEWPID | CLONE_NEWIPC);
    sb->netns_fd = make_netns();
    sb->netns = sb->netns_fd >= 0;
    sb->landlock = mc_sandbox_landlock_abi() >= 1 ? mc_sandbox_landlock_abi()
                                                  : 0;
    /* A test hook: act as a kernel without Landlock. */
    if (getenv("MAXCODE_NO_LANDLOCK"))
        sb->landlock = 0;
    /* Orphans of our children come to us, so that none escapes. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    /* The memory cgroup of this sandbox's runs: the scratch directory's
     * name and our PID (a lock is where a sweep finds whether we live). */
    mc_buf_reset(&path);
    mc_buf_addf(&path, "%s-%ld", strrchr(sb->root, '/') + 1,
                (long)getpid());
    if (mc_buf_status(&path)) {
        mc_sandbox_release(sb);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    mc_cgroup_init(&sb->cg, path.s, sb->memory);
    mc_buf_release(&path);
    return MC_OK;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        return rmdir(path) ? 0 : 0;
    return unlink(path) ? 0 : 0;
}

void
mc_sandbox_rmtree(const char *path)
{
    nftw(path, rm_one, NFTW_FDS, FTW_DEPTH | FTW_PHYS);
}

void
mc_sandbox_release(struct mc_sandbox *sb)
{
    mc_sandbox_sweep();
    /* Before the lock goes: a sweep never sees our cgroup unlocked. */
    mc_cgroup_release(&sb->cg);
    if (sb->netns)
        close(sb->netns_fd);
    if (sb->root)
        mc_sandbox_rmtree(sb->root);
    if (sb->root && sb->lock_fd >= 0)
        close(sb->lock_fd); /* after the removal: no sweep races it */
    mc_free(sb->root);
    mc_strv_release(&sb->reads);
    memset(sb, 0, sizeof(*sb));
    sb->lock_fd = -1;
}

void
mc_sandbox_set_memory(struct mc_sandbox *sb, unsigned long long bytes)
{
    sb->memory = bytes ? bytes : MEMORY_DEFAULT;
}

enum mc_code
mc_sandbox_dir(struct mc_sandbox *sb, const char *name, int untrusted,
               char **path, struct mc_err *err)
{
    struct mc_buf p = MC_BUF_INIT;

    *path = NULL;
    /* Fixed-width names: a run's environment (HOME, TMPDIR) has the same
     * size every time, which keeps instruction counts repeatable. */
    mc_buf_addf(&p, "%s/%s-%06u", sb->root, name, ++sb->serial);
    if (mc_buf_status(&p))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (mkdir(p.s, 0700) ||
        (untrusted && sb->drop && chown(p.s, sb->uid, sb->gid))) {
        enum mc_code rc = mc_err_set(err, MC_EIO, "cannot create '%s': %s",
                                     p.s, strerror(errno));
        mc_buf_release(&p);
        return rc;
    }
    if (!untrusted || !sb->drop)
        chmod(p.s, 0755);
    *path = mc_buf_detach(&p, NULL);
    return MC_OK;
}

/* Give P to the unprivileged user when runs drop to it. */
static int
give(const struct mc_sandbox *sb, const char *p)
{
    return sb->drop ? chown(p, sb->uid, sb->gid) : 0;
}

/* A copy of a files= tree into a run's directory. */
struct copy {
    struct mc_sandbox *sb;
    const char *dest; /* where the tree goes */
    struct mc_buf to; /* where the entry at hand goes */
};

/* Copy the regular file open as FD, with mode MODE, to TO. */
static enum mc_code
copy_file(struct mc_sandbox *sb, int fd, const char *from, const char *to,
          mode_t mode, struct mc_err *err)
{
    char buf[COPY_CHUNK];
    ssize_t n = 0;
    enum mc_code rc = MC_OK;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                   (mode & 0777) | 0600);

    while (out >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    if (out < 0 || n < 0 || give(sb, to))
        rc = mc_err_set(err, MC_EIO, "cannot copy '%s' to '%s': %s", from,
                        to, strerror(errno));
    if (out >= 0 && close(out) && !rc)
        rc = mc_err_set(err, MC_EIO, "cannot write '%s': %s", to,
                        strerror(errno));
    return rc;
}

/* One entry of a files= tree, as tree.h walks it, copied: a link only
 * ever leads inside the copy. */
static enum mc_code
copy_entry(const struct mc_tree_entry *e, void *arg, struct mc_err *err)
{
    struct copy *c = arg;
    const char *to;

    mc_buf_reset(&c->to);
    mc_buf_adds(&c->to, c->dest);
    if (*e->rel)
        mc_buf_addf(&c->to, "/%s", e->rel);
    if (mc_buf_status(&c->to))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    to = c->to.s;
    /* Two files= entries may overlap: the later copy wins. */
    if (e->kind != MC_TREE_DIR && unlink(to) && errno != ENOENT &&
        errno != EISDIR)
        return mc_err_set(err, MC_EIO, "cannot replace '%s': %s", to,
                          strerror(errno));
    switch (e->kind) {
    case MC_TREE_DIR:
        if ((mkdir(to, 0755) && errno != EEXIST) || give(c->sb, to))
            return mc_err_set(err, MC_EIO, "cannot create '%s': %s", to,
                              strerror(errno));
        return MC_OK;
    case MC_TREE_FILE:
        return copy_file(c->sb, e->fd, e->path, to, e->st->st_mode, err);
    case MC_TREE_LINK:
        if (symlink(e->target, to) ||
            (c->sb->drop && lchown(to, c->sb->uid, c->sb->gid)))
            return mc_err_set(err, MC_EIO, "cannot create '%s': %s", to,
                              strerror(errno));
        return MC_OK;
    }
    return mc_err_set(err, MC_EINTERNAL, "'%s': unknown entry", e->path);
}

enum mc_code
mc_sandbox_copy_in(struct mc_sandbox *sb, const char *dir, const char *path,
                   struct mc_err *err)
{
    struct mc_buf to = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    mc_buf_addf(&to, "%s/%s", dir, path);
    if (mc_buf_status(&to))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    /* The directories between DIR and PATH's last component. */
    for (i = strlen(dir) + 1; !rc && i < to.len; i++) {
        if (to.s[i] != '/')
            continue;
        to.s[i] = '\0';
        if ((mkdir(to.s, 0755) && errno != EEXIST) || give(sb, to.s))
            rc = mc_err_set(err, MC_EIO, "cannot create '%s': %s", to.s,
                            strerror(errno));
        to.s[i] = '/';
    }
    if (!rc) {
        struct copy c;

        c.sb = sb;
        c.dest = to.s;
        mc_buf_init(&c.to);
        rc = mc_tree_walk(path, copy_entry, &c, err);
        mc_buf_release(&c.to);
    }
    mc_buf_release(&to);
    return rc;
}

/* Our children, from /proc: the PIDs whose parent we are. */
static size_t
children(pid_t *out, size_t cap)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    pid_t me = getpid();
    size_t n = 0;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL && n < cap) {
        char path[300], buf[512], *p;
        ssize_t len;
        int fd;
        long ppid;

        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        len = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = '\0';
        /* "pid (comm) state ppid ...": comm may hold spaces and ')'. */
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
            continue;
        if (ppid == me)
            out[n++] = (pid_t)atol(de->d_name);
    }
    closedir(d);
    return n;
}

void
mc_sandbox_sweep(void)
{
    pid_t kids[SWEEP_KIDS];
    int round;

    for (round = 0; round < SWEEP_ROUNDS; round++) {
        size_t i, n;

        /* As a subreaper, every descendant still alive is our child by
         * now: no children (ECHILD) means nothing is left. */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (errno == ECHILD && waitpid(-1, NULL, WNOHANG) < 0 &&
            errno == ECHILD)
            return;
        n = children(kids, MC_ARRAY_SIZE(kids));
        if (!n)
            return;
        for (i = 0; i < n; i++) {
            kill(-kids[i], SIGKILL);
            kill(kids[i], SIGKILL);
        }
        for (i = 0; i < n; i++)
            waitpid(kids[i], NULL, 0);
    }
}

int
mc_sandbox_gpu_env(const char *entry)
{
    static const char *const secret[] = {"KEY", "TOKEN", "SECRET",
                                         "PASSWORD"};
    size_t n = strcspn(entry, "="), i;
    char name[128];

    if (!entry[n] || n >= sizeof(name) ||
        (strncmp(entry, "CUDA_", 5) && strncmp(entry, "NVIDIA_", 7)))
        return 0;
    memcpy(name, entry, n);
    name[n] = '\0';
    for (i = 0; i < MC_ARRAY_SIZE(secret); i++)
        if (strstr(name, secret[i]))
            return 0;
    return 1;
}

enum mc_code
mc_sandbox_gpu_paths(struct mc_strv *out)
{
    const char *pat = getenv("MAXCODE_CUDA_DEVICES");
    glob_t g;
    size_t i;
    int r;

    r = glob(pat && *pat ? pat : "/dev/nvidia*", 0, NULL, &g);
    if (r == GLOB_NOSPACE)
        return MC_ENOMEM;
    for (i = 0; r == 0 && i < g.gl_pathc && i < GPU_PATHS_MAX; i++)
        mc_strv_push(out, g.gl_pathv[i]);
    if (r == 0)
        globfree(&g);
    return mc_strv_status(out);
}

/* The allow-listed environment for a run in directory CWD; GPU keeps
 * the CUDA runtime's variables too. */
static enum mc_code
make_env(const char *cwd, int gpu, char *const *extra, struct mc_strv *env)
{
    static const char *const keep[] = {"PATH=", "LANG=", "TZ=", "TERM="};
    struct mc_strv all = MC_STRV_INIT;
    struct mc_buf b = MC_BUF_INIT;
    enum mc_code rc;
    size_t i, k;

    rc = mc_spawn_env(&all); /* PATH already without Bear's wrappers */
    for (i = 0; !rc && i < all.n; i++) {
        for (k = 0; k < MC_ARRAY_SIZE(keep); k++)
            if (!strncmp(all.v[i], keep[k], strlen(keep[k])))
                break;
        if (k < MC_ARRAY_SIZE(keep) || (gpu && mc_sandbox_gpu_env(all.v[i])))
            rc = mc_strv_push(env, all.v[i]);
    }
    mc_strv_release(&all);
    mc_buf_addf(&b, "HOME=%s", cwd);
    if (!rc)
        rc = mc_strv_push(env, b.s);
    mc_buf_reset(&b);
    mc_buf_addf(&b, "TMPDIR=%s", cwd);
    if (!rc)
        rc = mc_strv_push(env, b.s);
    if (!rc)
        rc = mc_strv_push(env, "LC_ALL=C");
    for (i = 0; !rc && extra && extra[i]; i++)
        rc = mc_strv_push(env, extra[i]);
    mc_buf_release(&b);
    return rc ? MC_ENOMEM : MC_OK;
}

enum mc_code
mc_sandbox_run(struct mc_sandbox *sb, char *const argv[],
               const struct mc_sandbox_opts *o, struct mc_spawn_result *r,
               struct mc_err *err)
{
    struct mc_strv env = MC_STRV_INIT, gpu_paths = MC_STRV_INIT;
    struct mc_strv reads = MC_STRV_INIT;
    struct mc_cgroup_run cg = {NULL, -1};
    struct setup s;
    struct mc_spawn_opts so;
    enum mc_code rc;

    s.sb = sb;
    s.write_dir = o->cwd ? o->cwd : sb->root;
    s.untrusted = o->untrusted;
    s.no_as_limit = o->no_as_limit;
    s.gpu = o->gpu;
    s.gpu_paths = NULL;
    s.timeout_s = o->timeout_s > 0 ? o->timeout_s : TIMEOUT_DEFAULT_S;
    s.cpus = o->cpus;
    /* Built here: the child, forked from a process that may have
     * threads, must not allocate. */
    if (make_env(s.write_dir, o->gpu, o->env, &env) ||
        (o->gpu && mc_sandbox_gpu_paths(&gpu_paths)) ||
        (sb->limit_reads && sb->landlock && !o->read_all &&
         mc_sandbox_read_paths(sb, o->gpu, &reads))) {
        mc_strv_release(&env);
        mc_strv_release(&gpu_paths);
        mc_strv_release(&reads);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    /* Candidate code runs in a memory cgroup of its own, where there is
     * one: the bound counts every page, shared memory too. */
    rc = o->untrusted && sb->cg.dir
             ? mc_cgroup_run_begin(&sb->cg, sb->memory, &cg, err)
             : MC_OK;
    if (rc) {
        mc_strv_release(&env);
        mc_strv_release(&gpu_paths);
        mc_strv_release(&reads);
        return rc;
    }
    s.cg_fd = cg.procs_fd;
    s.gpu_paths = gpu_paths.v;
    s.read_paths = reads.v;
    memset(&so, 0, sizeof(so));
    so.cwd = o->workdir ? o->workdir : s.write_dir;
    so.envp = env.v;
    so.stdin_path = o->stdin_path;
    so.timeout_s = s.timeout_s;
    so.out_cap = o->out_cap;
    so.child_setup = child_setup;
    so.setup_ctx = &s;
    /* Untrusted code gets its own PID namespace (all of it dies with its
     * first process: no setsid or double fork escapes) and its own IPC
     * namespace (no System V memory shared between runs). */
    if (o->untrusted && sb->pidns)
        so.clone_flags = CLONE_NEWPID | CLONE_NEWIPC;
    rc = mc_spawn(argv, &so, r, err);
    mc_sandbox_sweep();
    /* Its processes are gone: the leaf can go, once it told of kills. */
    if (cg.path)
        r->oom = mc_cgroup_run_end(&sb->cg, &cg) > 0;
    mc_strv_release(&env);
    mc_strv_release(&gpu_paths);
    mc_strv_release(&reads);
    return rc;
}

/* BYTES as "4 GiB", "256 MiB", "100 KiB" or "1000 bytes", into BUF. */
static const char *
size_text(unsigned long long bytes, char *buf, size_t cap)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB",
                                       "TiB"};
    size_t u = 0;

    while (u + 1 < MC_ARRAY_SIZE(unit) && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, cap, "%llu %s", bytes, unit[u]);
    return buf;
}

const char *
mc_sandbox_describe(const struct mc_sandbox *sb)
{
    static char text[1200];
    char mem[32], memory[600];

    size_text(sb->memory, mem, sizeof(mem));
    if (sb->cg.dir)
        snprintf(memory, sizeof(memory), "memory %s per run, every page "
                 "counted, shared memory too (its own cgroup %s, no swap; "
                 "sanitizer and instruction-counting runs too)", mem,
                 sb->cg.v2 ? "v2" : "v1");
    else
        snprintf(memory, sizeof(memory), "address space %s per run "
                 "(RLIMIT_AS; no memory cgroup: %s), sanitizer runs: NO "
                 "hard memory bound (ASan reserves terabytes of address "
                 "space; ASan's own check of resident memory instead)",
                 mem, sb->cg.why);
    snprintf(text, sizeof(text),
             "network: %s; writes: %s; reads: %s; user: %s; processes: %s; "
             "limits: cpu, %s, file size %llu MiB, %d files, "
             "%d processes; timeout kills the process group; leftovers "
             "swept",
             sb->netns ? "cut (new network namespace)"
                       : "NOT cut (no network namespace allowed here)",
             sb->landlock ? "only the run directory (Landlock)"
                          : "NOT restricted (no Landlock here)",
             !sb->limit_reads ? "not restricted"
             : sb->landlock   ? "only the project, its include and library "
                                "directories, the scratch directory and "
                                "the system's (Landlock)"
                              : "NOT restricted (no Landlock here; what a "
                                "candidate includes or embeds is checked "
                                "instead)",
             sb->drop ? "nobody (dropped from root)" : "the invoking user",
             sb->pidns ? "own PID and IPC namespaces"
                       : "NOT in their own PID namespace",
             memory, FSIZE_UNTRUSTED / MB, NOFILE_UNTRUSTED,
             NPROC_UNTRUSTED);
    return text;
}

const char *
mc_sandbox_describe_gpu(const struct mc_sandbox *sb)
{
    static char text[1600];
    char data[32];

    if (sb->cg.dir)
        snprintf(text, sizeof(text), "%s; CUDA runs: the NVIDIA device "
                 "nodes writable, no address-space limit (the cgroup bounds "
                 "their host memory), CUDA_* and NVIDIA_* variables kept",
                 mc_sandbox_describe(sb));
    else
        snprintf(text, sizeof(text), "%s; CUDA runs: the NVIDIA device "
                 "nodes writable, a data limit of %s instead of the "
                 "address-space limit, which does NOT count shared memory, "
                 "CUDA_* and NVIDIA_* variables kept",
                 mc_sandbox_describe(sb),
                 size_text(DATA_GPU_TIMES * sb->memory, data,
                           sizeof(data)));
    return text;
}
