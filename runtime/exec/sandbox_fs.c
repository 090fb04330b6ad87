/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sandbox_fs.c: what a run may read and write: the Landlock rules the
 * child sets before exec, and the read allow-list (what the caller
 * allowed, the scratch directory, the system's). Part of the sandbox
 * (sandbox_priv.h).
 */
#include "mc_setup.h"
#include "sandbox.h"
#include "sandbox_priv.h"
#include "paths.h"
#include "strv.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/landlock.h>

/* Landlock write rights of ABI 1 (all that Debian 12's header has; newer
 * kernels accept them unchanged). */
#define LL_WRITE                                                            \
    (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |        \
     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |        \
     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |            \
     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |          \
     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Landlock read rights (ABI 1): running a file, reading a file, listing
 * a directory. */
#define LL_READ                                                             \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |            \
     LANDLOCK_ACCESS_FS_READ_DIR)
/* The rights a rule on a file (not a directory) may hold. */
#define LL_FILE_RIGHTS                                                      \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |            \
     LANDLOCK_ACCESS_FS_WRITE_FILE | LL_TRUNCATE)

/*
 * When reads are limited (mc_sandbox_allow_read()), what every run may
 * read besides what the caller allowed and the scratch directory.
 * SYS_CODE: where the system's programs, libraries and headers are, which
 * also count as places a compile's sources may come from
 * (mc_sandbox_may_read()). SYS_READ: what the loader, libc, the
 * toolchain and language runtimes read to start and to learn about the
 * machine (found with strace for gcc, clang, nvcc, ASan, OpenMP, perf
 * and valgrind), none of them user data; a path that is not there is
 * skipped. Besides these, the directories on PATH may be read and run.
 */
static const char *const sys_code[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};
static const char *const sys_read[] = {
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/ld.so.preload", "/etc/locale.alias", "/etc/localtime",
    "/etc/timezone", "/etc/alternatives", "/etc/nsswitch.conf",
    "/etc/passwd", "/etc/group", "/etc/debian_version", "/etc/os-release",
    "/etc/lsb-release", "/etc/redhat-release", "/etc/system-release",
    "/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
    "/proc/sys", "/proc/filesystems", "/sys", "/dev/null", "/dev/zero",
    "/dev/full", "/dev/random", "/dev/urandom",
};
/* What the CUDA driver reads besides (CUDA runs only). */
static const char *const gpu_read[] = {
    "/proc/driver", "/proc/devices", "/proc/modules", "/etc/nvidia",
};

int
mc_sandbox_landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
    return (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
                        LANDLOCK_CREATE_RULESET_VERSION);
#else
    return -1;
#endif
}

/* Rights newer than Debian 12's header: REFER (ABI 2), TRUNCATE (3). */
#define LL_REFER        (1ULL << 13)
#define LL_TRUNCATE     (1ULL << 14)
#define LL_ABI_REFER    2
#define LL_ABI_TRUNCATE 3
/* Device nodes are read and written, not run. */
#define LL_READ_EXEC    LANDLOCK_ACCESS_FS_EXECUTE

/* Allow ACCESS beneath PATH in the ruleset RS: on a file, only the
 * rights a file can have. 0 on success or when PATH is gone. */
static int
allow(int rs, const char *path, __u64 access)
{
#ifdef SYS_landlock_create_ruleset
    struct landlock_path_beneath_attr rule;
    struct stat st;
    int ok;

    rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (rule.parent_fd < 0)
        return 0;
    rule.allowed_access = access;
    if (fstat(rule.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rule.allowed_access &= LL_FILE_RIGHTS;
    ok = syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
                 &rule, 0) == 0;
    close(rule.parent_fd);
    return ok ? 0 : -1;
#else
    (void)rs;
    (void)path;
    (void)access;
    return -1;
#endif
}

int
mc_sandbox_restrict_fs(const char *dir, char *const *extra,
                       char *const *reads, int abi)
{
#ifdef SYS_landlock_create_ruleset
    __u64 write = LL_WRITE | (abi >= LL_ABI_REFER ? LL_REFER : 0) |
                  (abi >= LL_ABI_TRUNCATE ? LL_TRUNCATE : 0);
    __u64 read = reads ? LL_READ : 0;
    /* On a directory (nvidia-caps), the rights hold for what is in it. */
    __u64 dev = LANDLOCK_ACCESS_FS_WRITE_FILE | (read & ~LL_READ_EXEC) |
                (abi >= LL_ABI_TRUNCATE ? LL_TRUNCATE : 0);
    struct landlock_ruleset_attr attr = {.handled_access_fs = write | read};
    int rs, ok;

    rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
    if (rs < 0)
        return -1;
    ok = access(dir, F_OK) == 0 && allow(rs, dir, write | read) == 0;
    ok = ok && allow(rs, "/dev/null", dev) == 0;
    for (; ok && extra && *extra; extra++)
        ok = allow(rs, *extra, dev) == 0;
    for (; ok && reads && *reads; reads++)
        ok = allow(rs, *reads, read) == 0;
    ok = ok && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         syscall(SYS_landlock_restrict_self, rs, 0) == 0;
    close(rs);
    return ok ? 0 : -1;
#else
    (void)dir;
    (void)extra;
    (void)reads;
    (void)abi;
    return -1;
#endif
}


enum mc_code
mc_sandbox_allow_read(struct mc_sandbox *sb, const char *path)
{
    char *real = realpath(path, NULL);
    enum mc_code rc = MC_OK;

    sb->limit_reads = 1;
    if (!real)
        return errno == ENOMEM ? MC_ENOMEM : MC_OK;
    if (!mc_strv_contains(&sb->reads, real))
        rc = mc_strv_push(&sb->reads, real);
    free(real);
    return rc;
}

int
mc_sandbox_may_read(const struct mc_sandbox *sb, const char *path)
{
    char *real = realpath(path, NULL), *dir;
    int ok = 0;
    size_t i;

    if (!real)
        return 1; /* nothing there to read */
    for (i = 0; !ok && i < sb->reads.n; i++)
        ok = mc_path_beneath(real, sb->reads.v[i]);
    /* The scratch directory and the system's, as real paths too. */
    for (i = 0; !ok && i <= MC_ARRAY_SIZE(sys_code); i++) {
        dir = realpath(i ? sys_code[i - 1] : sb->root, NULL);
        ok = dir && mc_path_beneath(real, dir);
        free(dir);
    }
    free(real);
    return ok;
}

enum mc_code
mc_sandbox_read_paths(const struct mc_sandbox *sb, int gpu,
                      struct mc_strv *out)
{
    const char *path = getenv("PATH"), *p;
    size_t i;

    mc_strv_extend(out, &sb->reads);
    mc_strv_push(out, sb->root);
    for (i = 0; i < MC_ARRAY_SIZE(sys_code); i++)
        mc_strv_push(out, sys_code[i]);
    for (i = 0; i < MC_ARRAY_SIZE(sys_read); i++)
        mc_strv_push(out, sys_read[i]);
    for (i = 0; gpu && i < MC_ARRAY_SIZE(gpu_read); i++)
        mc_strv_push(out, gpu_read[i]);
    for (p = path ? path : ""; *p; p += *p == ':') {
        size_t n = strcspn(p, ":");

        if (*p == '/')
            mc_strv_pushn(out, p, n);
        p += n;
    }
    return mc_strv_status(out);
}
