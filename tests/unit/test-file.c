/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-file.c: the lock files of mc_file_lock() (the cache's per-key and
 * stats locks and the evaluator's timing lock all use it): created with
 * their directories, exclusive, refused at once without BLOCKING, and
 * taken again on a lock file that was removed meanwhile.
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
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
