/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-sandbox.c: the sandbox policy of a CUDA program, on a machine
 * without a GPU. Fake device nodes (files matched by the
 * MAXCODE_CUDA_DEVICES hook) stand in for /dev/nvidia*: a CUDA run may
 * write them and keeps the CUDA_* and NVIDIA_* variables (not a key),
 * has no address-space limit but a data limit; and it still has no
 * network and cannot write anywhere else. A CPU run gets none of that.
 * Reads: once the caller names what runs may read, a run reads those
 * paths and the system's, not a file elsewhere nor one through a link
 * that leads out; a run marked read_all still reads everything.
 * And the scratch directory: locked while its process lives; one left
 * by a killed process (its lock free) is removed by the next sandbox,
 * one still locked or without a lock (an older maxcode's) is not.
 * And files= trees copied into a run: links only inside the tree.
 * Memory: as root, on a machine with a writable memory controller, an
 * untrusted run (plain, CUDA, sanitizer) is in a memory cgroup of its
 * own, where writing more shared anonymous memory than the bound gets
 * it killed and reported (oom); the leaves and the sandbox's cgroup go
 * with the runs and the sandbox, and one left by a dead process is
 * swept by the next sandbox. Without a cgroup (the MAXCODE_NO_CGROUP
 * hook), rlimits, and the record says that a CUDA run's data limit does
 * not count shared memory, as the test shows.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "sandbox.h"
#include "tap.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <dirent.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define MIB (1024ULL * 1024)

/* Built with ASan (--enable-asan): this program, which the memory cases
 * run, cannot start under an address-space or data limit (its shadow). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static char dir[] = "/tmp/mc-sandbox-XXXXXX";
static int port;            /* a listening loopback port, out here */

/* Run "bash -c SCRIPT" in SB, as a CUDA program when GPU; stdout in R. */
static enum mc_code
run(struct mc_sandbox *sb, int gpu, const char *script,
    struct mc_spawn_result *r)
{
    char *argv[] = {"bash", "-c", (char *)script, NULL};
    struct mc_sandbox_opts o;
    char *rundir = NULL;
    enum mc_code rc;

    memset(&o, 0, sizeof(o));
    mc_spawn_result_init(r);
    rc = mc_sandbox_dir(sb, "run", 1, &rundir, NULL);
    if (rc)
        return rc;
    o.cwd = rundir;
    o.untrusted = 1;
    o.gpu = gpu;
    o.timeout_s = 20;
    rc = mc_sandbox_run(sb, argv, &o, r, NULL);
    mc_free(rundir);
    return rc;
}

/* A loopback socket that listens, so that a connection can be tried. */
static int
listen_loopback(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
        listen(fd, 8) || getsockname(fd, (struct sockaddr *)&a, &len))
        return -1;
    return ntohs(a.sin_port);
}

/* Make PATH a file anyone may write. */
static int
make_file(const char *path)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fclose(f);
    return chmod(path, 0666);
}

/* Make PATH a file anyone may read, holding TEXT. */
static int
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    return chmod(path, 0644);
}

static void
test_sandbox__gpu_paths(void)
{
    struct mc_strv v = MC_STRV_INIT;
    char want[128];

    ok(mc_sandbox_gpu_paths(&v) == MC_OK, "the device glob expands");
    is_long(v.n, 2, "to the two fake nodes (nvidia0, nvidiactl)");
    snprintf(want, sizeof(want), "%s/dev/nvidia0", dir);
    is_str(v.n ? v.v[0] : "", want, "sorted, with their paths");
    mc_strv_release(&v);
}

static void
test_sandbox__gpu_env(void)
{
    ok(mc_sandbox_gpu_env("CUDA_VISIBLE_DEVICES=0"), "CUDA_* is kept");
    ok(mc_sandbox_gpu_env("NVIDIA_DRIVER_CAPABILITIES=compute"),
       "NVIDIA_* is kept");
    ok(!mc_sandbox_gpu_env("CUDA_API_KEY=x"), "not a CUDA_*KEY*");
    ok(!mc_sandbox_gpu_env("NVIDIA_TOKEN=x"), "not a *TOKEN*");
    ok(!mc_sandbox_gpu_env("OPENAI_API_KEY=x"), "nor anything else");
    ok(!mc_sandbox_gpu_env("CUDA_X"), "an entry needs a '='");
}

/* What a run may do, as GPU (a CUDA program) or not. */
static void
check_run(struct mc_sandbox *sb, int gpu)
{
    struct mc_spawn_result r;
    struct mc_buf s = MC_BUF_INIT;
    const char *what = gpu ? "CUDA run" : "CPU run";
    char name[160];

    mc_buf_addf(&s,
                "echo x > %s/dev/nvidia0 && echo dev-written;"
                "echo x > %s/dev/nvidiactl && echo ctl-written;"
                "echo x > %s/elsewhere && echo elsewhere-written;"
                "(echo > /dev/tcp/127.0.0.1/%d) 2>/dev/null && "
                "echo connected;"
                "echo as=$(ulimit -v) data=$(ulimit -d); env;"
                "grep :memory: /proc/self/cgroup",
                dir, dir, dir, port);
    ok(run(sb, gpu, s.s, &r) == MC_OK && r.exited, "a run ends");
#define CASE(c, text)                                                        \
    snprintf(name, sizeof(name), "%s: %s", what, text);                      \
    ok(c, name)
    CASE(!!strstr(r.out.s, "dev-written") == gpu,
         gpu ? "writes a device node" : "cannot write a device node");
    CASE(!!strstr(r.out.s, "ctl-written") == gpu,
         gpu ? "writes nvidiactl" : "cannot write nvidiactl");
    CASE(!strstr(r.out.s, "elsewhere-written"),
         "cannot write outside its directory");
    CASE(!strstr(r.out.s, "connected"), "has no network (loopback)");
    if (sb->cg.dir) {
        CASE(strstr(r.out.s, "as=unlimited") &&
             strstr(r.out.s, "data=unlimited"),
             "no address-space or data limit: the cgroup bounds memory");
        CASE(strstr(r.out.s, ":memory:") && strstr(r.out.s, "/run-"),
             "runs in a memory cgroup leaf of its own");
    } else {
        CASE(!!strstr(r.out.s, "as=unlimited") == gpu,
             gpu ? "no address-space limit" : "an address-space limit");
        CASE(!!strstr(r.out.s, "data=16777216") == gpu,
             gpu ? "a 16 GiB data limit" : "no data limit of a CUDA run");
    }
    CASE(!!strstr(r.out.s, "CUDA_VISIBLE_DEVICES=1") == gpu,
         gpu ? "keeps CUDA_VISIBLE_DEVICES" : "drops CUDA_VISIBLE_DEVICES");
    CASE(!!strstr(r.out.s, "NVIDIA_VISIBLE_DEVICES=all") == gpu,
         gpu ? "keeps NVIDIA_VISIBLE_DEVICES" : "drops NVIDIA_*");
    CASE(!strstr(r.out.s, "CUDA_API_KEY"), "never a key");
#undef CASE
    mc_spawn_result_release(&r);
    mc_buf_release(&s);
}

static void
test_sandbox__cuda_policy(void)
{
    struct mc_sandbox sb;
    struct mc_spawn_result r;
    char cmd[128];
    char *argv[] = {"bash", "-c", cmd, NULL};

    /* The control: outside the sandbox, the port answers. */
    snprintf(cmd, sizeof(cmd), "echo > /dev/tcp/127.0.0.1/%d && echo ok",
             port);
    mc_spawn_result_init(&r);
    ok(mc_spawn(argv, NULL, &r, NULL) == MC_OK && strstr(r.out.s, "ok"),
       "outside the sandbox, the loopback port answers");
    mc_spawn_result_release(&r);
    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
        return;
    }
    ok(sb.landlock > 0, "Landlock restricts writes on this machine");
    ok(sb.netns, "runs get an empty network namespace on this machine");
    check_run(&sb, 1);
    check_run(&sb, 0);
    mc_sandbox_release(&sb);
}

/* The same policy without a cgroup: rlimits bound memory. */
static void
test_sandbox__cuda_policy_rlimits(void)
{
    struct mc_sandbox sb;

    setenv("MAXCODE_NO_CGROUP", "1", 1);
    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
        unsetenv("MAXCODE_NO_CGROUP");
        return;
    }
    ok(!sb.cg.dir, "the hook leaves the sandbox without a cgroup");
    check_run(&sb, 1);
    check_run(&sb, 0);
    mc_sandbox_release(&sb);
    unsetenv("MAXCODE_NO_CGROUP");
}

static const char *self_exe; /* this program, for its --shm mode */

/* --shm MIB: write MIB MiB of shared anonymous memory; "wrote" once
 * done, exit 3 when the mapping is refused. */
static int
shm_write(size_t mib)
{
    size_t n = mib * MIB;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        printf("mmap failed\n");
        return 3;
    }
    memset(p, 1, n);
    printf("wrote\n");
    return 0;
}

/* Run this program's --shm MIB in SB as an untrusted run; a CUDA run
 * when GPU, one without the address-space limit (a sanitizer run's)
 * when NO_AS. The program is copied into the run directory first, so
 * that the unprivileged user may run it wherever the build is. */
static enum mc_code
run_shm(struct mc_sandbox *sb, int mib, int gpu, int no_as,
        struct mc_spawn_result *r)
{
    char arg[16], exe[PATH_MAX], buf[65536];
    char *argv[] = {exe, "--shm", arg, NULL};
    struct mc_sandbox_opts o;
    char *rundir = NULL;
    enum mc_code rc;
    ssize_t n;
    int in, out;

    mc_spawn_result_init(r);
    rc = mc_sandbox_dir(sb, "run", 1, &rundir, NULL);
    if (rc)
        return rc;
    snprintf(exe, sizeof(exe), "%s/shm", rundir);
    snprintf(arg, sizeof(arg), "%d", mib);
    in = open(self_exe, O_RDONLY | O_CLOEXEC);
    out = open(exe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n)
            break;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    if (sb->drop && chown(exe, sb->uid, sb->gid))
        rc = MC_EIO;
    memset(&o, 0, sizeof(o));
    o.cwd = rundir;
    o.untrusted = 1;
    o.gpu = gpu;
    o.no_as_limit = no_as;
    o.timeout_s = 60;
    if (!rc)
        rc = mc_sandbox_run(sb, argv, &o, r, NULL);
    mc_sandbox_rmtree(rundir);
    mc_free(rundir);
    return rc;
}

/* How many leaves (run-N) the sandbox cgroup DIR holds. */
static int
leaves(const char *cgdir)
{
    DIR *d = opendir(cgdir);
    struct dirent *de;
    int n = 0;

    while (d && (de = readdir(d)) != NULL)
        n += !strncmp(de->d_name, "run-", 4);
    if (d)
        closedir(d);
    return n;
}

static void
test_sandbox__memory_cgroup(void)
{
    struct mc_sandbox sb, sb2;
    struct mc_spawn_result r;
    static const char *const kind[] = {"a plain run", "a CUDA run",
                                       "a sanitizer run"};
    char name[160], *cgdir;
    int i;

    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
        return;
    }
    if (geteuid() != 0 && !sb.cg.dir) {
        printf("# not root, no cgroup (%s): rlimits only\n", sb.cg.why);
        mc_sandbox_release(&sb);
        return;
    }
    ok(sb.cg.dir != NULL, "as root, runs get a memory cgroup here");
    if (!sb.cg.dir) {
        printf("# %s\n", sb.cg.why);
        mc_sandbox_release(&sb);
        return;
    }
    mc_sandbox_set_memory(&sb, 64 * MIB);
    contains(mc_sandbox_describe(&sb), "memory 64 MiB per run, every page "
             "counted, shared memory too (its own cgroup",
             "the record says which bound is in force");
    for (i = 0; i < 3; i++) {
        ok(run_shm(&sb, 256, i == 1, i == 2, &r) == MC_OK, "a run ran");
        snprintf(name, sizeof(name), "%s writing 256 MiB of shared "
                 "memory is killed at 64 MiB, as out of memory", kind[i]);
        ok(r.oom && r.signaled && r.sig == SIGKILL &&
           !strstr(r.out.s, "wrote"), name);
        mc_spawn_result_release(&r);
    }
    ok(run_shm(&sb, 16, 0, 0, &r) == MC_OK && r.exited &&
       r.status == 0 && !r.oom && strstr(r.out.s, "wrote"),
       "a run writing 16 MiB ends well");
    mc_spawn_result_release(&r);
    is_long(leaves(sb.cg.dir), 0, "no run's cgroup is left");
    ok(mc_sandbox_init(&sb2, NULL) == MC_OK && sb2.cg.dir &&
       strcmp(sb.cg.dir, sb2.cg.dir), "two sandboxes at once: two cgroups");
    mc_sandbox_release(&sb2);
    cgdir = mc_strdup(sb.cg.dir);
    mc_sandbox_release(&sb);
    ok(cgdir && access(cgdir, F_OK) && errno == ENOENT,
       "the sandbox's cgroup goes with it");
    mc_free(cgdir);
}

static void
test_sandbox__memory_rlimits(void)
{
    struct mc_sandbox sb;
    struct mc_spawn_result r;

    setenv("MAXCODE_NO_CGROUP", "1", 1);
    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
        unsetenv("MAXCODE_NO_CGROUP");
        return;
    }
    mc_sandbox_set_memory(&sb, 64 * MIB);
    contains(mc_sandbox_describe(&sb), "address space 64 MiB per run "
             "(RLIMIT_AS; no memory cgroup: MAXCODE_NO_CGROUP is set), "
             "sanitizer runs: NO hard memory bound",
             "without a cgroup, the record says RLIMIT_AS, and none for "
             "sanitizer runs");
    contains(mc_sandbox_describe_gpu(&sb), "a data limit of 256 MiB instead "
             "of the address-space limit, which does NOT count shared "
             "memory", "and that a CUDA run's data limit misses shared "
             "memory");
    if (UNDER_ASAN) {
        printf("# built with ASan: no run of this program under "
               "rlimits\n");
        mc_sandbox_release(&sb);
        unsetenv("MAXCODE_NO_CGROUP");
        return;
    }
    ok(run_shm(&sb, 256, 0, 0, &r) == MC_OK && r.exited &&
       r.status == 3 && !r.oom, "a plain run cannot map 256 MiB");
    mc_spawn_result_release(&r);
    ok(run_shm(&sb, 512, 1, 0, &r) == MC_OK && r.exited &&
       strstr(r.out.s, "wrote"), "a CUDA run writes 512 MiB of shared "
       "memory past its 256 MiB RLIMIT_DATA (what the record says)");
    mc_spawn_result_release(&r);
    mc_sandbox_release(&sb);
    unsetenv("MAXCODE_NO_CGROUP");
}

/* Run "cat FILE" in SB (READ_ALL: without the limit on reads); whether
 * it printed the file. */
static int
reads(struct mc_sandbox *sb, const char *file, int read_all)
{
    char *argv[] = {"cat", (char *)file, NULL};
    struct mc_spawn_result r;
    struct mc_sandbox_opts o;
    char *rundir = NULL;
    int got;

    memset(&o, 0, sizeof(o));
    mc_spawn_result_init(&r);
    if (mc_sandbox_dir(sb, "run", 1, &rundir, NULL))
        return -1;
    o.cwd = rundir;
    o.untrusted = 1;
    o.read_all = read_all;
    o.timeout_s = 20;
    got = mc_sandbox_run(sb, argv, &o, &r, NULL) == MC_OK && r.exited &&
          r.status == 0 && strstr(r.out.s, "content");
    mc_spawn_result_release(&r);
    mc_free(rundir);
    return got;
}

static void
test_sandbox__reads(void)
{
    struct mc_sandbox sb;
    char in[160], ok_file[200], secret[200], link[200], up[200];

    snprintf(in, sizeof(in), "%s/in", dir);
    snprintf(ok_file, sizeof(ok_file), "%s/in/ok.txt", dir);
    snprintf(secret, sizeof(secret), "%s/out/secret", dir);
    snprintf(link, sizeof(link), "%s/in/link", dir);
    snprintf(up, sizeof(up), "%s/in/../out/secret", dir);
    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
        return;
    }
    ok(reads(&sb, secret, 0) == 1, "before any is named, reads are free");
    ok(!strstr(mc_sandbox_describe(&sb), "reads: only"),
       "and the record says so");
    ok(mc_sandbox_allow_read(&sb, in) == MC_OK, "a directory is named");
    ok(mc_sandbox_allow_read(&sb, "/no/such/dir") == MC_OK,
       "a missing one is skipped");
    ok(mc_sandbox_may_read(&sb, ok_file), "a file in it may be read");
    ok(!mc_sandbox_may_read(&sb, secret), "a file elsewhere may not");
    ok(!mc_sandbox_may_read(&sb, link), "nor through a link in it");
    ok(!mc_sandbox_may_read(&sb, up), "nor through '..'");
    ok(mc_sandbox_may_read(&sb, "/usr/include/stdio.h") ||
       access("/usr/include/stdio.h", F_OK), "the system's headers may");
    ok(mc_sandbox_may_read(&sb, sb.root), "the scratch directory may");
    ok(mc_sandbox_may_read(&sb, "/no/such/file"), "a missing file is fine");
    if (!sb.landlock) {
        printf("# no Landlock here: runs read freely\n");
        mc_sandbox_release(&sb);
        return;
    }
    ok(!!strstr(mc_sandbox_describe(&sb), "reads: only"),
       "the record says reads are limited");
    ok(reads(&sb, ok_file, 0) == 1, "a run reads a file in the directory");
    ok(reads(&sb, secret, 0) == 0, "a run cannot read a file elsewhere");
    ok(reads(&sb, link, 0) == 0, "nor through a link that leads out");
    ok(reads(&sb, secret, 1) == 1, "a read_all run reads it");
    mc_sandbox_release(&sb);
}

/* Make the scratch directory DIR/tmp/NAME, with a lock file when LOCK;
 * the lock file's descriptor (or -1), locked when HELD. */
static int
make_root(const char *name, int lock, int held)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof(path), "%s/tmp/%s", dir, name);
    if (mkdir(path, 0711) || !lock)
        return -1;
    snprintf(path, sizeof(path), "%s/tmp/%s/.lock", dir, name);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0 && held && flock(fd, LOCK_EX))
        ok(0, "flock");
    return fd;
}

/* Whether DIR/tmp/NAME exists. */
static int
root_exists(const char *name)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/tmp/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* A run given CPUs runs on those alone (the timing runs' pin); one
 * given none may use every CPU we may. */
static void
test_sandbox__cpus(void)
{
    char *argv[] = {"sh", "-c", "grep ^Cpus_allowed_list: /proc/self/status",
                    NULL};
    struct mc_sandbox sb;
    struct mc_sandbox_opts o;
    struct mc_spawn_result r;
    cpu_set_t one, mine;
    char want[64], *rundir = NULL;
    int cpu = -1, i;

    if (sched_getaffinity(0, sizeof(mine), &mine) ||
        mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox and our CPUs");
        return;
    }
    for (i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &mine))
            cpu = i;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    memset(&o, 0, sizeof(o));
    mc_spawn_result_init(&r);
    if (mc_sandbox_dir(&sb, "run", 1, &rundir, NULL) == MC_OK) {
        o.cwd = rundir;
        o.untrusted = 1;
        o.timeout_s = 20;
        o.cpus = &one;
        ok(mc_sandbox_run(&sb, argv, &o, &r, NULL) == MC_OK && r.exited,
           "a run given one CPU ran");
        snprintf(want, sizeof(want), "Cpus_allowed_list:\t%d\n", cpu);
        is_str(r.out.s, want, "it may run on that CPU alone");
        mc_spawn_result_release(&r);
        if (CPU_COUNT(&mine) > 1) {
            mc_spawn_result_init(&r);
            o.cpus = NULL;
            ok(mc_sandbox_run(&sb, argv, &o, &r, NULL) == MC_OK &&
                   r.out.s && strcmp(r.out.s, want),
               "a run given none is not pinned");
            mc_spawn_result_release(&r);
        }
    }
    mc_free(rundir);
    mc_sandbox_release(&sb);
}

/* Whether the link PATH reads TARGET. */
static int
link_is(const char *path, const char *target)
{
    char buf[PATH_MAX];
    ssize_t n = readlink(path, buf, sizeof(buf) - 1);

    if (n < 0)
        return 0;
    buf[n] = '\0';
    return !strcmp(buf, target);
}

/* A files= tree copied into a run: files, directories, and links that
 * resolve inside it (as the path to the same place in the copy, never
 * followed); a link out of it stops the copy and is named. */
static void
test_sandbox__copy_in(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sandbox sb;
    char *run = NULL, path[PATH_MAX];
    struct stat st;
    int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (here < 0 || chdir(dir) || mkdir("tree", 0755) ||
        mkdir("tree/sub", 0755) || symlink("a.txt", "tree/alias") ||
        symlink(".", "tree/self") || symlink(".", "tree/again") ||
        symlink("../../tree/a.txt", "tree/sub/up") ||
        mc_sandbox_init(&sb, NULL)) {
        ok(0, "a tree and a sandbox");
        return;
    }
    write_file("tree/a.txt", "content\n");
    ok(mc_sandbox_dir(&sb, "run", 1, &run, NULL) == MC_OK &&
           mc_sandbox_copy_in(&sb, run, "tree", &err) == MC_OK,
       "a tree with links inside it is copied");
    snprintf(path, sizeof(path), "%s/tree/self/again/alias", run);
    ok(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 8,
       "a run reads through its links");
    snprintf(path, sizeof(path), "%s/tree/alias", run);
    ok(link_is(path, "a.txt"), "a link stays a link");
    snprintf(path, sizeof(path), "%s/tree/self", run);
    ok(link_is(path, "."), "a link to the tree itself too");
    snprintf(path, sizeof(path), "%s/tree/sub/up", run);
    ok(link_is(path, "../a.txt"), "one that leaves and comes back leads "
                                  "to the same place by the short way");
    mc_free(run);
    run = NULL;
    ok(mc_sandbox_dir(&sb, "run", 1, &run, NULL) == MC_OK &&
           mc_sandbox_copy_in(&sb, run, "in", &err) == MC_EINVAL,
       "a tree with a link that leads out is refused");
    contains(err.msg, "'in/link' is a symbolic link to '../out/secret', "
                      "outside 'in'", "the message names the link");
    snprintf(path, sizeof(path), "%s/in/link", run);
    ok(lstat(path, &st) && errno == ENOENT, "and it is not copied");
    mc_free(run);
    mc_sandbox_release(&sb);
    if (fchdir(here))
        printf("# cannot go back\n");
    close(here);
}

static void
test_sandbox__stale_roots(void)
{
    char tmp[PATH_MAX], lock[PATH_MAX + 8], *root = NULL;
    int stale, live, fd;
    struct mc_sandbox sb;

    snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
    mkdir(tmp, 0755);
    setenv("TMPDIR", tmp, 1);
    stale = make_root("maxcode-eval-stale1", 1, 0);
    live = make_root("maxcode-eval-live01", 1, 1);
    make_root("maxcode-eval-older1", 0, 0);
    if (stale >= 0)
        close(stale); /* its process is gone */
    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
        return;
    }
    ok(!root_exists("maxcode-eval-stale1"),
       "a scratch directory whose lock is free is removed");
    ok(root_exists("maxcode-eval-live01"), "one still locked is kept");
    ok(root_exists("maxcode-eval-older1"), "one without a lock is kept");
    snprintf(lock, sizeof(lock), "%s/.lock", sb.root);
    fd = open(lock, O_RDWR | O_CLOEXEC);
    ok(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK,
       "the new one is locked while the sandbox lives");
    if (fd >= 0)
        close(fd);
    root = mc_strdup(sb.root);
    mc_sandbox_release(&sb);
    ok(root && access(root, F_OK) && errno == ENOENT,
       "and removed with it");
    mc_free(root);
    if (live >= 0)
        close(live);
    unsetenv("TMPDIR");
}

/* A PID that no process has. */
static long
dead_pid(void)
{
    long pid;

    for (pid = 4194303; pid > 1; pid--)
        if (kill((pid_t)pid, 0) && errno == ESRCH)
            return pid;
    return 0;
}

/* Make the sandbox cgroup OWN/NAME with a leaf run-000001. */
static void
make_cgroup(const char *own, const char *name)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", own, name);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/run-000001", own, name);
    mkdir(path, 0755);
}

/* Whether OWN/NAME exists; removed (leaf first) when KEEP is 0. */
static int
cgroup_exists(const char *own, const char *name, int keep)
{
    char path[PATH_MAX], leaf[PATH_MAX + 16];
    int there;

    snprintf(path, sizeof(path), "%s/%s", own, name);
    there = access(path, F_OK) == 0;
    if (!keep) {
        snprintf(leaf, sizeof(leaf), "%s/run-000001", path);
        rmdir(leaf);
        rmdir(path);
    }
    return there;
}

/* Sandbox cgroups left by processes that are gone: the next sandbox
 * removes them, known by the free lock of their scratch directory, or
 * (no scratch directory here) by their PID; others are kept. A cgroup
 * meant to be kept names a live PID: a maxcode of another test at once,
 * with another TMPDIR, sees no scratch directory of it and goes by the
 * PID (with a gone one, it removed the "still locked" cgroup under this
 * test once). That the lock decides over the PID where there is a
 * scratch directory is shown by the free lock with a live PID. */
static void
test_sandbox__stale_cgroups(void)
{
    char tmp[PATH_MAX], own[PATH_MAX], n[5][96], *slash;
    long dead = dead_pid(), parent = (long)getppid();
    struct mc_sandbox sb;
    int stale, live, freed;

    if (mc_sandbox_init(&sb, NULL) || !sb.cg.dir) {
        printf("# no cgroup here: nothing to sweep\n");
        if (!sb.root)
            ok(0, "a sandbox");
        mc_sandbox_release(&sb);
        return;
    }
    snprintf(own, sizeof(own), "%s", sb.cg.dir);
    slash = strrchr(own, '/');
    *slash = '\0';
    mc_sandbox_release(&sb);
    snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
    mkdir(tmp, 0755);
    setenv("TMPDIR", tmp, 1);
    snprintf(n[0], sizeof(n[0]), "maxcode-eval-stale3-%ld", dead);
    snprintf(n[1], sizeof(n[1]), "maxcode-eval-live03-%ld", parent);
    snprintf(n[2], sizeof(n[2]), "maxcode-eval-gone04-%ld", dead);
    snprintf(n[3], sizeof(n[3]), "maxcode-eval-alive5-%ld", parent);
    snprintf(n[4], sizeof(n[4]), "maxcode-eval-freed6-%ld", parent);
    stale = make_root("maxcode-eval-stale3", 1, 0);
    live = make_root("maxcode-eval-live03", 1, 1);
    freed = make_root("maxcode-eval-freed6", 1, 0);
    if (stale >= 0)
        close(stale);
    if (freed >= 0)
        close(freed);
    make_cgroup(own, n[0]);
    make_cgroup(own, n[1]);
    make_cgroup(own, n[2]);
    make_cgroup(own, n[3]);
    make_cgroup(own, n[4]);
    if (mc_sandbox_init(&sb, NULL)) {
        ok(0, "a sandbox");
    } else {
        ok(!cgroup_exists(own, n[0], 0),
           "a cgroup whose scratch directory's lock is free is removed");
        ok(cgroup_exists(own, n[1], 0),
           "one whose scratch directory is still locked is kept");
        ok(!cgroup_exists(own, n[4], 0),
           "one whose lock is free is removed, its PID alive or not");
        ok(!cgroup_exists(own, n[2], 0),
           "one without a scratch directory here, its PID gone, is "
           "removed");
        ok(cgroup_exists(own, n[3], 0),
           "one without a scratch directory here, its PID alive, is kept");
        mc_sandbox_release(&sb);
    }
    if (live >= 0)
        close(live);
    unsetenv("TMPDIR");
}

int
main(int argc, char **argv)
{
    char path[160], cmd[200];

    if (argc == 3 && !strcmp(argv[1], "--shm"))
        return shm_write((size_t)atoi(argv[2]));
    self_exe = "/proc/self/exe";

    if (!mkdtemp(dir) || chmod(dir, 0755)) {
        printf("Bail out! cannot make a scratch directory\n");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/dev", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/dev/nvidia0", dir);
    make_file(path);
    snprintf(path, sizeof(path), "%s/dev/nvidiactl", dir);
    make_file(path);
    snprintf(path, sizeof(path), "%s/elsewhere", dir);
    make_file(path);
    snprintf(path, sizeof(path), "%s/in", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/out", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/in/ok.txt", dir);
    write_file(path, "content\n");
    snprintf(path, sizeof(path), "%s/out/secret", dir);
    write_file(path, "content\n");
    snprintf(path, sizeof(path), "%s/in/link", dir);
    if (symlink("../out/secret", path))
        printf("# cannot make %s\n", path);
    snprintf(path, sizeof(path), "%s/dev/nvidia*", dir);
    setenv("MAXCODE_CUDA_DEVICES", path, 1);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    setenv("NVIDIA_VISIBLE_DEVICES", "all", 1);
    setenv("CUDA_API_KEY", "sk-not-for-runs", 1);
    port = listen_loopback();
    ok(port > 0, "a loopback port listens");
    TAP_RUN(test_sandbox__gpu_paths);
    TAP_RUN(test_sandbox__gpu_env);
    TAP_RUN(test_sandbox__cuda_policy);
    TAP_RUN(test_sandbox__cuda_policy_rlimits);
    TAP_RUN(test_sandbox__memory_cgroup);
    TAP_RUN(test_sandbox__memory_rlimits);
    TAP_RUN(test_sandbox__reads);
    TAP_RUN(test_sandbox__copy_in);
    TAP_RUN(test_sandbox__stale_roots);
    TAP_RUN(test_sandbox__stale_cgroups);
    TAP_RUN(test_sandbox__cpus);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
