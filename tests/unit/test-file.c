/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-file.c: the lock files of mc_file_lock() (the cache's per-key and
 * stats locks and the evaluator's timing lock all use it): created with
 * their directories, exclusive, refused at once without BLOCKING, taken
 * again on a lock file that was removed meanwhile, and never through a
 * link. The checking reads: mc_file_read_beneath() refuses links at any
 * component, FIFOs, devices, directories, '..' and files over its cap,
 * each with its reason; mc_file_read() follows links but reads regular
 * files only, and neither waits on a FIFO.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "file.h"
#include "tap.h"
#include "testfs.h"

#include <ftw.h>
#include <sys/wait.h>

static char dir[] = "/tmp/mc-file-XXXXXX";

/* Whether another process can take the lock at PATH without waiting. */
static int
free_elsewhere(const char *path)
{
    int status = 0, fd;
    pid_t pid = fork();

    if (pid == 0)
        _exit(mc_file_lock(path, 0, &fd, NULL) == MC_OK ? 0 : 1);
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void
test_file__lock_excludes(void)
{
    struct mc_err err = MC_ERR_INIT;
    char path[PATH_MAX];
    int fd = -1, fd2 = 7;

    snprintf(path, sizeof(path), "%s/a/b/k.lock", dir);
    is_long(mc_file_lock(path, 1, &fd, &err), MC_OK,
            "a lock is taken, its directories made");
    ok(fd >= 0 && access(path, F_OK) == 0, "the lock file exists");
    is_long(free_elsewhere(path), 0, "another process cannot take it");
    is_long(mc_file_lock(path, 0, &fd2, &err), MC_EINVAL,
            "nor can another descriptor, without waiting: MC_EINVAL");
    is_long(fd2, -1, "which leaves *FD at -1");
    is_str(err.msg, "", "with no message");
    mc_file_unlock(fd);
    is_long(free_elsewhere(path), 1, "unlocked, it is free again");
    mc_file_unlock(-1); /* does nothing */
}

static void
test_file__removed_lock_is_taken_again(void)
{
    struct mc_err err = MC_ERR_INIT;
    char path[PATH_MAX];
    struct stat held, now;
    int fd = -1;

    snprintf(path, sizeof(path), "%s/gone.lock", dir);
    is_long(mc_file_lock(path, 1, &fd, &err), MC_OK, "locked");
    unlink(path); /* as `maxcode cache clean` may */
    mc_file_unlock(fd);
    is_long(mc_file_lock(path, 1, &fd, &err), MC_OK,
            "a removed lock file is made again and locked");
    ok(fstat(fd, &held) == 0 && stat(path, &now) == 0 &&
           held.st_ino == now.st_ino,
       "the lock held is the file at PATH");
    is_long(free_elsewhere(path), 0, "and it excludes others");
    mc_file_unlock(fd);
}

static void
test_file__lock_errors(void)
{
    struct mc_err err = MC_ERR_INIT;
    char path[PATH_MAX];
    int fd = 7;

    snprintf(path, sizeof(path), "%s/file", dir);
    mc_file_write_atomic(path, "x", 1, NULL);
    snprintf(path, sizeof(path), "%s/file/k.lock", dir);
    ok(mc_file_lock(path, 1, &fd, &err) != MC_OK,
       "a lock under a plain file fails");
    is_long(fd, -1, "*FD is -1");
    contains(err.msg, "cannot open lock", "the message says what failed");
    contains(err.msg, "k.lock'", "and names the lock");
    is_long(errno, ENOTDIR, "errno keeps the cause");
}


static void
test_file__lock_is_no_link(void)
{
    struct mc_err err = MC_ERR_INIT;
    char path[PATH_MAX], target[PATH_MAX];
    int fd = 7;

    snprintf(target, sizeof(target), "%s/elsewhere", dir);
    snprintf(path, sizeof(path), "%s/linked.lock", dir);
    ok(symlink(target, path) == 0, "a lock file that is a dangling link");
    ok(mc_file_lock(path, 1, &fd, &err) != MC_OK, "is not opened");
    ok(access(target, F_OK) != 0, "and its target is not created");
}

/* In a fresh directory ROOT: ok (regular), link (to ok), fifo, zero (a
 * link to /dev/zero), dir/, dlink (a link to dir), dir/in, big (5
 * bytes). */
static void
beneath_tree(char *root, size_t cap)
{
    char p[PATH_MAX];

    snprintf(root, cap, "%s/beneath", dir);
    mkdir(root, 0777);
#define AT(name) (snprintf(p, sizeof(p), "%s/%s", root, name), p)
    mc_file_write_atomic(AT("ok"), "fine\n", 5, NULL);
    symlink("ok", AT("link"));
    mkfifo(AT("fifo"), 0666);
    symlink("/dev/zero", AT("zero"));
    mkdir(AT("dir"), 0777);
    mc_file_write_atomic(AT("dir/in"), "in\n", 3, NULL);
    symlink("dir", AT("dlink"));
#undef AT
}

/* mc_file_read_beneath() of REL in ROOT with CAP: its code, B's text
 * and the message into ERR. */
static enum mc_code
beneath(const char *root, const char *rel, size_t cap, struct mc_buf *b,
        struct mc_err *err)
{
    mc_buf_reset(b);
    mc_err_clear(err);
    return mc_file_read_beneath(root, rel, cap, b, NULL, err);
}

static void
test_file__read_beneath(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf b = MC_BUF_INIT;
    char root[PATH_MAX];
    struct stat st;

    beneath_tree(root, sizeof(root));
    is_long(beneath(root, "ok", 100, &b, &err), MC_OK, "a regular file");
    is_str(b.s, "fine\n", "is read");
    is_long(beneath(root, "dir/in", 100, &b, &err), MC_OK,
            "one in a directory");
    is_str(b.s, "in\n", "too");
    is_long(beneath(root, "link", 100, &b, &err), MC_ESYNTAX,
            "a link, even to a file beside it: MC_ESYNTAX");
    is_str(err.msg, "'link' is a symbolic link", "with the reason");
    is_str(b.s, "", "B unchanged");
    is_long(beneath(root, "fifo", 100, &b, &err), MC_ESYNTAX,
            "a FIFO: refused, not waited on");
    is_str(err.msg, "'fifo' is a FIFO", "with the reason");
    is_long(beneath(root, "zero", 100, &b, &err), MC_ESYNTAX,
            "a link to /dev/zero");
    is_str(err.msg, "'zero' is a symbolic link", "is a link");
    is_long(beneath("/dev", "zero", 100, &b, &err), MC_ESYNTAX,
            "/dev/zero itself");
    is_str(err.msg, "'zero' is a device", "is a device, never opened");
    is_long(beneath(root, "dir", 100, &b, &err), MC_ESYNTAX,
            "a directory");
    is_str(err.msg, "'dir' is a directory", "with the reason");
    is_long(beneath(root, "dlink/in", 100, &b, &err), MC_EIO,
            "a directory on the way that is a link: MC_EIO");
    is_str(err.msg, "'dlink/in': 'dlink' is a symbolic link",
           "naming the link");
    is_long(beneath(root, "dir/../ok", 100, &b, &err), MC_EIO, "'..'");
    is_str(err.msg, "'dir/../ok' names '..'", "is refused");
    is_long(beneath(root, "/etc/passwd", 100, &b, &err), MC_EIO,
            "an absolute path");
    is_str(err.msg, "'/etc/passwd' is an absolute path", "is refused");
    is_long(beneath(root, "none", 100, &b, &err), MC_ENOENT,
            "a missing file: MC_ENOENT");
    is_str(err.msg, "", "without a message");
    is_long(beneath(root, "nodir/x", 100, &b, &err), MC_ENOENT,
            "a missing directory too");
    is_long(beneath(root, "ok", 4, &b, &err), MC_ESYNTAX,
            "5 bytes over a cap of 4");
    is_str(err.msg, "'ok' is larger than 4 bytes", "say so");
    is_str(b.s, "", "and leave B unchanged");
    is_long(beneath(root, "ok", 5, &b, &err), MC_OK, "a cap of 5 holds");
    mc_buf_reset(&b);
    is_long(mc_file_read_beneath(root, "dir/in", 100, &b, &st, &err),
            MC_OK, "ST is filled");
    ok(S_ISREG(st.st_mode) && st.st_size == 3, "from the file read");
    mc_buf_release(&b);
}

static void
test_file__read_regular_only(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf b = MC_BUF_INIT;
    char root[PATH_MAX], p[PATH_MAX + 8];

    beneath_tree(root, sizeof(root));
    snprintf(p, sizeof(p), "%s/link", root);
    is_long(mc_file_read(p, &b, &err), MC_OK,
            "mc_file_read() follows a link to a regular file");
    is_str(b.s, "fine\n", "and reads it");
    mc_buf_reset(&b);
    snprintf(p, sizeof(p), "%s/zero", root);
    is_long(mc_file_read(p, &b, &err), MC_ESYNTAX,
            "but not one to /dev/zero");
    contains(err.msg, "is a device", "which is a device");
    mc_err_clear(&err);
    snprintf(p, sizeof(p), "%s/fifo", root);
    is_long(mc_file_read(p, &b, &err), MC_ESYNTAX, "nor a FIFO");
    contains(err.msg, "is a FIFO", "said so");
    mc_buf_release(&b);
}

int
main(void)
{
    if (!mkdtemp(dir)) {
        printf("Bail out! cannot make a scratch directory\n");
        return 1;
    }
    TAP_RUN(test_file__lock_excludes);
    TAP_RUN(test_file__removed_lock_is_taken_again);
    TAP_RUN(test_file__lock_errors);
    TAP_RUN(test_file__lock_is_no_link);
    TAP_RUN(test_file__read_beneath);
    setenv("MAXCODE_DEBUG_NO_OPENAT2", "1", 1); /* the walk, as without */
    TAP_RUN(test_file__read_beneath);
    unsetenv("MAXCODE_DEBUG_NO_OPENAT2");
    TAP_RUN(test_file__read_regular_only);
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
