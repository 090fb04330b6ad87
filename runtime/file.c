/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * file.c: whole-file reads, atomic writes, mkdir -p and lock files.
 */
#include "mc_setup.h"
#include "file.h"
#include "alloc.h"

#include <fcntl.h>
#include <sys/file.h>

/* mkdir -p of the directory part of PATH. */
enum mc_code
mc_file_mkdirs_for(const char *path, struct mc_err *err)
{
    char *p = mc_strdup(path), *s;
    enum mc_code rc = MC_OK;

    if (!p)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    for (s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) && errno != EEXIST) {
            rc = mc_err_set(err, MC_EIO, "cannot create '%s': %s", p,
                            strerror(errno));
            break;
        }
        *s = '/';
    }
    mc_free(p);
    return rc;
}

/* Read all of the file at PATH into B. MC_ENOENT if it does not exist. */
enum mc_code
mc_file_read(const char *path, struct mc_buf *b, struct mc_err *err)
{
    struct stat st;

    return mc_file_read_stat(path, b, &st, err);
}

enum mc_code
mc_file_read_stat(const char *path, struct mc_buf *b, struct stat *stp,
                  struct mc_err *err)
{
    ssize_t n;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? MC_ENOENT
                               : mc_err_set(err, MC_EIO, "cannot open "
                                            "'%s': %s", path,
                                            strerror(errno));
    if (fstat(fd, stp) || stp->st_size > MC_FILE_MAX) {
        close(fd);
        return mc_err_set(err, MC_ESYNTAX, "'%s' is too large", path);
    }
    if (mc_buf_grow(b, (size_t)stp->st_size)) {
        close(fd);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    while ((n = read(fd, b->s + b->len, b->cap - b->len - 1)) > 0) {
        b->len += (size_t)n;
        if (b->len + 1 == b->cap && mc_buf_grow(b, 4096))
            break;
    }
    b->s[b->len] = '\0';
    close(fd);
    if (n < 0)
        return mc_err_set(err, MC_EIO, "cannot read '%s': %s", path,
                          strerror(errno));
    return mc_buf_status(b) ? mc_err_set(err, MC_ENOMEM, "out of memory")
                            : MC_OK;
}

enum mc_code
mc_file_tmp_create(const char *path, struct mc_buf *tmp, int *fd,
                   struct mc_err *err)
{
    const char *slash = strrchr(path, '/');

    *fd = -1;
    mc_buf_reset(tmp);
    if (slash)
        mc_buf_addf(tmp, "%.*s/", (int)(slash - path), path);
    mc_buf_addf(tmp, ".%s.tmp.%ld.%lx", slash ? slash + 1 : path,
                (long)getpid(), (unsigned long)random());
    if (mc_buf_status(tmp))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    *fd = open(tmp->s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (*fd < 0)
        return mc_err_set(err, MC_EIO, "cannot create '%s': %s", tmp->s,
                          strerror(errno));
    return MC_OK;
}

enum mc_code
mc_file_tmp_commit(int fd, const char *tmp, const char *path,
                   struct mc_err *err)
{
    enum mc_code rc = MC_OK;

    if (close(fd))
        rc = mc_err_set(err, MC_EIO, "cannot write '%s': %s", tmp,
                        strerror(errno));
    if (!rc && rename(tmp, path))
        rc = mc_err_set(err, MC_EIO, "cannot rename '%s' to '%s': %s", tmp,
                        path, strerror(errno));
    if (rc)
        unlink(tmp);
    return rc;
}

void
mc_file_tmp_abort(int fd, const char *tmp)
{
    if (fd >= 0)
        close(fd);
    unlink(tmp);
}

enum mc_code
mc_file_write_all(int fd, const void *data, size_t len, const char *name,
                  struct mc_err *err)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n = write(fd, (const char *)data + done, len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return mc_err_set(err, MC_EIO, "cannot write '%s': %s", name,
                              n < 0 ? strerror(errno) : "no space");
        done += (size_t)n;
    }
    return MC_OK;
}

/* Write the LEN bytes at DATA to PATH atomically: a temporary file in the
 * same directory, then rename. */
enum mc_code
mc_file_write_atomic(const char *path, const void *data, size_t len,
                     struct mc_err *err)
{
    struct mc_buf tmp = MC_BUF_INIT;
    enum mc_code rc;
    /* The test hook applies to cache entries only. */
    const char *pause = strlen(path) > 4 &&
                                !strcmp(path + strlen(path) - 4, ".mce")
                            ? getenv("MAXCODE_DEBUG_STORE_PAUSE")
                            : NULL;
    size_t half = pause && len > 1 ? len / 2 : 0;
    int fd;

    rc = mc_file_tmp_create(path, &tmp, &fd, err);
    if (rc)
        goto out;
    /* Test hook: stop halfway for a while, so that a test can kill the
     * writer mid-store. */
    rc = mc_file_write_all(fd, data, half, tmp.s, err);
    if (!rc && half)
        sleep((unsigned)atoi(pause));
    if (!rc)
        rc = mc_file_write_all(fd, (const char *)data + half, len - half,
                               tmp.s, err);
    if (rc)
        mc_file_tmp_abort(fd, tmp.s);
    else
        rc = mc_file_tmp_commit(fd, tmp.s, path, err);
out:
    mc_buf_release(&tmp);
    return rc;
}

enum mc_code
mc_file_lock(const char *path, int blocking, int *fd, struct mc_err *err)
{
    enum mc_code rc;
    int e;

    *fd = -1;
    rc = mc_file_mkdirs_for(path, err);
    if (rc)
        return rc;
    for (;;) {
        struct stat held, now;

        *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (*fd < 0) {
            e = errno;
            rc = mc_err_set(err, MC_EIO, "cannot open lock '%s': %s", path,
                            strerror(e));
            break;
        }
        if (flock(*fd, LOCK_EX | (blocking ? 0 : LOCK_NB))) {
            e = errno;
            close(*fd);
            *fd = -1;
            if (e == EINTR)
                continue;
            rc = e == EWOULDBLOCK
                     ? MC_EINVAL
                     : mc_err_set(err, MC_EIO, "cannot lock '%s': %s", path,
                                  strerror(e));
            break;
        }
        if (fstat(*fd, &held) == 0 && stat(path, &now) == 0 &&
            held.st_ino == now.st_ino && held.st_dev == now.st_dev)
            return MC_OK;
        close(*fd); /* removed or replaced meanwhile: lock the new one */
        *fd = -1;
    }
    errno = e; /* for a caller that words the failure itself */
    return rc;
}

void
mc_file_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}
