/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * file.c: whole-file reads, atomic writes, mkdir -p and lock files.
 */
#include "mc_setup.h"
#include "file.h"
#include "alloc.h"
#include "log.h"
#include "strv.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/syscall.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

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

/* A file of mode MODE in words, for a refusal ("a FIFO"); NULL for a
 * regular file. */
static const char *
kind_of(mode_t mode)
{
    if (S_ISREG(mode))
        return NULL;
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/*
 * Append what FD holds to B, at most CAP bytes: the bytes read count,
 * not the size fstat() said (HINT, used only to size B), so a file that
 * grows while it is read is refused too. NAME is for messages.
 */
static enum mc_code
read_capped(int fd, const char *name, size_t cap, off_t hint,
            struct mc_buf *b, struct mc_err *err)
{
    size_t start = b->len;
    ssize_t n;

    if (mc_buf_grow(b, hint > 0 && (uint64_t)hint < cap ? (size_t)hint
                                                        : 0))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    for (;;) {
        size_t got = b->len - start, room;

        if (got > cap) {
            b->len = start;
            b->s[b->len] = '\0';
            return mc_err_set(err, MC_ESYNTAX, "'%s' is larger than %zu "
                              "bytes", name, cap);
        }
        if (b->len + 1 >= b->cap && mc_buf_grow(b, 4096))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        room = b->cap - b->len - 1;
        if (room > cap - got + 1)
            room = cap - got + 1; /* one past the cap tells it is over */
        n = read(fd, b->s + b->len, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        b->len += (size_t)n;
        /* A regular file's read comes back short only at its end: at
         * the size fstat() gave, that is the end, and the read that
         * would say so is spared. */
        if ((size_t)n < room && hint > 0 && b->len - start == (size_t)hint)
            break;
    }
    b->s[b->len] = '\0';
    if (n < 0)
        return mc_err_set(err, MC_EIO, "cannot read '%s': %s", name,
                          strerror(errno));
    return MC_OK;
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
    enum mc_code rc;
    const char *kind;
    int fd;

    /* stat() first, so that no device is ever opened and no FIFO waited
     * on; fstat() again after the open, in case it was swapped. */
    if (stat(path, stp))
        return errno == ENOENT || errno == ENOTDIR
                   ? MC_ENOENT
                   : mc_err_set(err, MC_EIO, "cannot open '%s': %s", path,
                                strerror(errno));
    if ((kind = kind_of(stp->st_mode)) != NULL)
        return mc_err_set(err, MC_ESYNTAX, "'%s' is %s", path, kind);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT
                   ? MC_ENOENT
                   : mc_err_set(err, MC_EIO, "cannot open '%s': %s", path,
                                strerror(errno));
    if (fstat(fd, stp))
        rc = mc_err_set(err, MC_EIO, "cannot stat '%s': %s", path,
                        strerror(errno));
    else if ((kind = kind_of(stp->st_mode)) != NULL)
        rc = mc_err_set(err, MC_ESYNTAX, "'%s' is %s", path, kind);
    else
        rc = read_capped(fd, path, MC_FILE_MAX, stp->st_size, b, err);
    close(fd);
    return rc;
}

/*
 * The directory that holds REL (beneath the directory ROOTFD) opened
 * with O_PATH into *DIRFD, by a walk of one component at a time, no
 * link followed. MC_ENOENT when a component is missing or no directory;
 * MC_EIO naming the first link on the way.
 */
static enum mc_code
walk_beneath(int rootfd, const char *rel, size_t dirlen, int *dirfd,
             struct mc_err *err)
{
    char *dir = mc_malloc(dirlen + 1), *comp, *next;
    enum mc_code rc = MC_OK;
    int cur = -1, fd;

    *dirfd = -1;
    if (!dir)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    memcpy(dir, rel, dirlen);
    dir[dirlen] = '\0';
    cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
    if (cur < 0) {
        rc = mc_err_set(err, MC_EIO, "cannot open '%s': %s", rel,
                        strerror(errno));
        goto out;
    }
    for (comp = dir; comp; comp = next) {
        struct stat st;

        next = strchr(comp, '/');
        if (next)
            *next++ = '\0';
        if (!*comp || !strcmp(comp, "."))
            continue;
        if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW)) {
            rc = errno == ENOENT || errno == ENOTDIR
                     ? MC_ENOENT
                     : mc_err_set(err, MC_EIO, "cannot open '%s': %s", rel,
                                  strerror(errno));
            goto out;
        }
        if (S_ISLNK(st.st_mode)) {
            rc = mc_err_set(err, MC_EIO, "'%s': '%.*s' is a symbolic link",
                            rel, (int)(comp + strlen(comp) - dir), rel);
            goto out;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc = MC_ENOENT;
            goto out;
        }
        fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
                                   O_CLOEXEC);
        if (fd < 0) {
            /* swapped since the fstatat(): a link now, or gone */
            rc = errno == ENOENT ? MC_ENOENT
                                 : mc_err_set(err, MC_EIO, "'%s': '%.*s' "
                                              "changed while it was read",
                                              rel, (int)(comp + strlen(comp)
                                                         - dir), rel);
            goto out;
        }
        close(cur);
        cur = fd;
    }
    *dirfd = cur;
    cur = -1;
out:
    if (cur >= 0)
        close(cur);
    mc_free(dir);
    return rc;
}

/*
 * The directory that holds REL beneath ROOTFD into *DIRFD: openat2()
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it
 * (Linux 5.6), else, or to tell which component was a link, the walk.
 * Test hook: MAXCODE_DEBUG_NO_OPENAT2=1 takes the walk at once, as a
 * kernel without openat2() would.
 */
static enum mc_code
open_dir_beneath(int rootfd, const char *rel, size_t dirlen, int *dirfd,
                 struct mc_err *err)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
    const char *hook = getenv("MAXCODE_DEBUG_NO_OPENAT2");
    struct open_how how;
    char *dir;
    int e;

    if (hook && !strcmp(hook, "1"))
        return walk_beneath(rootfd, rel, dirlen, dirfd, err);
    dir = mc_malloc(dirlen + 1);
    if (!dir)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    memcpy(dir, rel, dirlen);
    dir[dirlen] = '\0';
    memset(&how, 0, sizeof(how));
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                  RESOLVE_NO_MAGICLINKS;
    *dirfd = (int)syscall(SYS_openat2, rootfd, dir, &how, sizeof(how));
    e = errno;
    mc_free(dir);
    if (*dirfd >= 0)
        return MC_OK;
    if (e == ENOENT || e == ENOTDIR)
        return MC_ENOENT;
    /* ELOOP (a link: the walk names it), ENOSYS, EPERM under a seccomp
     * filter, EAGAIN after a concurrent rename: the walk decides. */
#endif
    return walk_beneath(rootfd, rel, dirlen, dirfd, err);
}

/*
 * REL beneath ROOTFD opened for reading in one openat2(), no link
 * followed at any component, into *FD: 1; 0 when REL or a directory on
 * its way is missing; -1 when the kernel has no openat2() or refused REL
 * (a link on its way, a socket, a filter), for the walk to decide and
 * name what it refused.
 */
static int
open_file_beneath(int rootfd, const char *rel, int *fd)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
    const char *hook = getenv("MAXCODE_DEBUG_NO_OPENAT2");
    struct open_how how;

    if (!hook || strcmp(hook, "1")) {
        memset(&how, 0, sizeof(how));
        how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
                    O_NOFOLLOW;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                      RESOLVE_NO_MAGICLINKS;
        *fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
        if (*fd >= 0)
            return 1;
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
    }
#else
    (void)rootfd;
    (void)rel;
#endif
    *fd = -1;
    return -1;
}

enum mc_code
mc_file_read_beneath(const char *root, const char *rel, size_t cap,
                     struct mc_buf *b, struct stat *stp,
                     struct mc_err *err)
{
    enum mc_code rc;
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (rootfd < 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? MC_ENOENT
                   : mc_err_set(err, MC_EIO, "cannot open '%s': %s", root,
                                strerror(errno));
    rc = mc_file_read_at(rootfd, rel, cap, b, stp, err);
    close(rootfd);
    return rc;
}

enum mc_code
mc_file_read_at(int rootfd, const char *rel, size_t cap, struct mc_buf *b,
                struct stat *stp, struct mc_err *err)
{
    const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
    const char *p, *kind;
    struct stat st_, *st = stp ? stp : &st_;
    int dirfd = -1, fd = -1;
    enum mc_code rc = MC_OK;

    /* No absolute path, no "..": what REL names stays under ROOT. */
    if (*rel == '/')
        return mc_err_set(err, MC_EIO, "'%s' is an absolute path", rel);
    for (p = rel; *p; p += strcspn(p, "/"), p += *p == '/')
        if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
            return mc_err_set(err, MC_EIO, "'%s' names '..'", rel);
    if (!*base || !strcmp(base, "."))
        return mc_err_set(err, MC_ESYNTAX, "'%s' is a directory", rel);
    /* The short way: one openat2() of the whole of REL (O_NONBLOCK and
     * O_NOCTTY: a FIFO or a terminal is opened without a wait, then
     * refused below); the walk when it cannot say. */
    switch (open_file_beneath(rootfd, rel, &fd)) {
    case 1:
        goto opened;
    case 0:
        return MC_ENOENT;
    }
    if (slash)
        rc = open_dir_beneath(rootfd, rel, (size_t)(slash - rel), &dirfd,
                              err);
    else
        dirfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
    if (rc)
        goto out;
    if (dirfd < 0) {
        rc = mc_err_set(err, MC_EIO, "cannot open '%s': %s", rel,
                        strerror(errno));
        goto out;
    }
    /* The last component: its type before it is opened (no FIFO waited
     * on), and again after. */
    if (fstatat(dirfd, base, st, AT_SYMLINK_NOFOLLOW)) {
        rc = errno == ENOENT || errno == ENOTDIR
                 ? MC_ENOENT
                 : mc_err_set(err, MC_EIO, "cannot open '%s': %s", rel,
                              strerror(errno));
        goto out;
    }
    if ((kind = kind_of(st->st_mode)) != NULL) {
        rc = mc_err_set(err, MC_ESYNTAX, "'%s' is %s", rel, kind);
        goto out;
    }
    fd = openat(dirfd, base, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
                                 O_NOFOLLOW);
    if (fd < 0) {
        rc = errno == ENOENT
                 ? MC_ENOENT
                 : errno == ELOOP
                       ? mc_err_set(err, MC_ESYNTAX, "'%s' is a symbolic "
                                    "link", rel)
                       : mc_err_set(err, MC_EIO, "cannot open '%s': %s",
                                    rel, strerror(errno));
        goto out;
    }
opened:
    if (fstat(fd, st))
        rc = mc_err_set(err, MC_EIO, "cannot stat '%s': %s", rel,
                        strerror(errno));
    else if ((kind = kind_of(st->st_mode)) != NULL)
        rc = mc_err_set(err, MC_ESYNTAX, "'%s' is %s", rel, kind);
    else
        rc = read_capped(fd, rel, cap, st->st_size, b, err);
out:
    if (fd >= 0)
        close(fd);
    if (dirfd >= 0)
        close(dirfd);
    return rc;
}

/* The paths already reported by mc_file_read_shared(): once each. */
static struct mc_strv reported = MC_STRV_INIT;

enum mc_code
mc_file_read_shared(const char *root, const char *rel, size_t cap,
                    struct mc_buf *b, struct mc_err *err)
{
    struct mc_err e = MC_ERR_INIT;
    struct mc_buf full = MC_BUF_INIT;
    enum mc_code rc;

    rc = mc_file_read_beneath(root, rel, cap, b, NULL, &e);
    if (rc == MC_ESYNTAX || rc == MC_EIO) {
        mc_buf_addf(&full, "%s/%s", root, rel);
        if (!mc_buf_status(&full) && !mc_strv_contains(&reported, full.s)) {
            mc_info("ignoring a file in the cache directory '%s': %s",
                    root, e.msg);
            mc_strv_push(&reported, full.s);
        }
        mc_buf_release(&full);
    }
    if (rc && rc != MC_ENOENT)
        mc_err_set(err, rc, "%s", e.msg);
    return rc;
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

        /* Not through a link (someone sharing the directory could
         * point one anywhere, and O_CREAT would create its target). */
        *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
                             O_NONBLOCK | O_NOCTTY, 0666);
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
