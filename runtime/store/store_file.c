/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * store_file.c: the file backend of store.h, a directory on a file
 * system that several machines mount (NFS, Lustre, CephFS), the usual
 * way a cluster shares files.
 *
 *   MAXCODE_REMOTE = "file://" DIR *("|" ATTRIBUTE)   ; store.h
 *   DIR            = an absolute path, taken as written (no %-escapes)
 *
 * An entry's object is the file DIR/ab/KEY (layout=subdirs) or DIR/KEY
 * (layout=flat), the entry file's bytes, as the http backend keeps them
 * on a server. DIR must exist (a missing one is a failure, as a server
 * that does not answer); the "ab" directories are made as needed.
 *
 * Reading: the directory is as untrusted as a server. Its files are read
 * with the checking read (mc_file_read_beneath(): no link followed below
 * DIR, a regular file only, no FIFO waited on, at most MC_ENTRY_MAX
 * bytes), and what is read enters the local store only through
 * mc_cache_import() (checksum, key, signature), as a GET's body does.
 * DIR itself may be reached through links.
 *
 * Writing, safe with many writers on many machines at once: the bytes go
 * to a temporary file in the object's own directory,
 *   .KEY.tmp.HOST.PID.RANDOM     (HOST: this machine's name)
 * created new (O_EXCL: never another writer's), written, fsync()ed, and
 * renamed onto the object's name, then the directory is fsync()ed.
 * rename() within a directory is atomic on a local file system and on
 * NFS and Lustre (one server operation): a reader sees the whole old
 * object, the whole new one, or none, and never a part. Two writers of
 * one KEY write the same entry, or two that both hold; the last rename
 * wins. A writer killed mid-write leaves only its temporary file, which
 * no reader opens (a name that starts with '.' is never an object).
 */
#include "mc_setup.h"
#include "store.h"
#include "alloc.h"
#include "cache.h"
#include "file.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/random.h>
#include <time.h>

#define TMP_TRIES 8 /* temporary names tried before giving up */

/* The backend's state. */
struct fstore {
    char *dir; /* DIR, without a trailing '/' */
};

static enum mc_code
file_open(struct mc_store *s, const char *where, const struct mc_conf *c,
          struct mc_err *err)
{
    struct fstore *f = mc_calloc(1, sizeof(*f));
    const char *dir = where + strlen("file://");
    struct stat st;

    (void)c;
    s->state = f;
    if (!f)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (strncmp(where, "file://", 7) || *dir != '/')
        return mc_err_set(err, MC_ECONFIG, "MAXCODE_REMOTE: '%s' names no "
                          "absolute directory (file:///PATH)", where);
    f->dir = mc_strdup(dir);
    if (!f->dir)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (stat(f->dir, &st))
        return mc_err_set(err, MC_EIO, "the shared directory '%s': %s",
                          f->dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mc_err_set(err, MC_EIO, "the shared directory '%s' is not "
                          "a directory", f->dir);
    return MC_OK;
}

static enum mc_code
file_get(struct mc_store *s, const char *key, struct mc_buf *out,
         struct mc_err *err)
{
    const struct fstore *f = s->state;
    struct mc_err why = MC_ERR_INIT;
    struct mc_buf obj = MC_BUF_INIT;
    enum mc_code rc;
    int dirfd;
    struct stat st;

    mc_buf_reset(out);
    if (!mc_is_key(key))
        return MC_ENOENT;
    if (mc_store_object(s, key, &obj)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    /* An "ab" made a link by whoever shares DIR is a bad object, not a
     * failure of the store (the checking read refuses it either way). */
    if (!s->flat) {
        dirfd = open(f->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dirfd >= 0) {
            char ab[3] = {key[0], key[1], '\0'};
            int link = !fstatat(dirfd, ab, &st, AT_SYMLINK_NOFOLLOW) &&
                       S_ISLNK(st.st_mode);

            close(dirfd);
            if (link) {
                rc = mc_err_set(err, MC_ESYNTAX, "file://%s: '%s': '%s' is "
                                "a symbolic link", f->dir, obj.s, ab);
                goto out;
            }
        }
    }
    rc = mc_file_read_beneath(f->dir, obj.s, MC_ENTRY_MAX, out, NULL, &why);
    if (rc == MC_ESYNTAX || rc == MC_EIO)
        mc_err_set(err, rc, "file://%s: %s", f->dir, why.msg);
    else if (rc == MC_ENOMEM)
        mc_err_set(err, rc, "out of memory");
    if (rc == MC_ESYNTAX)
        mc_buf_reset(out);
out:
    mc_buf_release(&obj);
    return rc;
}

/* A name for a temporary file of KEY that no other writer, here or on
 * another machine, picks: ".KEY.tmp.HOST.PID.RANDOM" into B. */
static void
tmp_name(const char *key, struct mc_buf *b)
{
    char host[65] = "";
    unsigned long long r = 0;
    struct timespec ts;
    size_t i;

    if (gethostname(host, sizeof(host) - 1))
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    for (i = 0; host[i]; i++)
        if (!isalnum((unsigned char)host[i]) && host[i] != '-')
            host[i] = '_';
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        clock_gettime(CLOCK_REALTIME, &ts);
        r ^= (unsigned long long)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
             (unsigned long long)ts.tv_sec ^ (unsigned long long)random();
    }
    mc_buf_reset(b);
    mc_buf_addf(b, ".%s.tmp.%s.%ld.%016llx", key, host[0] ? host : "host",
                (long)getpid(), r);
}

/* Write the LEN bytes at DATA to a new temporary file in DIRFD, its name
 * into TMP, fsync()ed and closed. MC_EIO (the file removed) on failure. */
static enum mc_code
write_tmp(const struct fstore *f, int dirfd, const char *key,
          const void *data, size_t len, struct mc_buf *tmp,
          struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    int fd = -1, tries;

    for (tries = 0; tries < TMP_TRIES && fd < 0; tries++) {
        tmp_name(key, tmp);
        if (mc_buf_status(tmp))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        fd = openat(dirfd, tmp->s, O_WRONLY | O_CREAT | O_EXCL |
                                       O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return mc_err_set(err, MC_EIO, "file://%s: cannot create a "
                          "temporary file for %s: %s", f->dir, key,
                          strerror(errno));
    rc = mc_file_write_all(fd, data, len, tmp->s, err);
    if (!rc && fsync(fd))
        rc = mc_err_set(err, MC_EIO, "file://%s: cannot sync '%s': %s",
                        f->dir, tmp->s, strerror(errno));
    if (close(fd) && !rc)
        rc = mc_err_set(err, MC_EIO, "file://%s: cannot write '%s': %s",
                        f->dir, tmp->s, strerror(errno));
    if (rc)
        unlinkat(dirfd, tmp->s, 0);
    return rc;
}

static enum mc_code
file_put(struct mc_store *s, const char *key, const void *data, size_t len,
         struct mc_err *err)
{
    const struct fstore *f = s->state;
    struct mc_buf tmp = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    int rootfd = -1, dirfd = -1;
    const char *name = key;

    if (s->read_only)
        return mc_err_set(err, MC_EINVAL, "the remote is read-only");
    if (!mc_is_key(key))
        return mc_err_set(err, MC_EINVAL, "bad key '%s'", key);
    rootfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) {
        rc = mc_err_set(err, MC_EIO, "the shared directory '%s': %s",
                        f->dir, strerror(errno));
        goto out;
    }
    if (s->flat) {
        dirfd = rootfd;
        rootfd = -1;
    } else {
        char ab[3] = {key[0], key[1], '\0'};

        if (mkdirat(rootfd, ab, 0777) && errno != EEXIST) {
            rc = mc_err_set(err, MC_EIO, "file://%s: cannot make '%s': %s",
                            f->dir, ab, strerror(errno));
            goto out;
        }
        /* Never through a link that someone put there. */
        dirfd = openat(rootfd, ab, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                       O_CLOEXEC);
        if (dirfd < 0) {
            rc = mc_err_set(err, MC_EIO, "file://%s: cannot open '%s': %s",
                            f->dir, ab, strerror(errno));
            goto out;
        }
    }
    rc = write_tmp(f, dirfd, key, data, len, &tmp, err);
    if (rc)
        goto out;
    if (renameat(dirfd, tmp.s, dirfd, name)) {
        rc = mc_err_set(err, MC_EIO, "file://%s: cannot rename '%s' to "
                        "'%s': %s", f->dir, tmp.s, name, strerror(errno));
        unlinkat(dirfd, tmp.s, 0);
        goto out;
    }
    /* The rename itself made durable (best effort: some file systems
     * cannot sync a directory). */
    (void)fsync(dirfd);
out:
    if (dirfd >= 0)
        close(dirfd);
    if (rootfd >= 0)
        close(rootfd);
    mc_buf_release(&tmp);
    return rc;
}

static void
file_describe(const struct mc_store *s, char *out, size_t cap)
{
    const struct fstore *f = s->state;

    snprintf(out, cap, "file://%s", f && f->dir ? f->dir : "");
}

static void
file_close(struct mc_store *s)
{
    struct fstore *f = s->state;

    if (f)
        mc_free(f->dir);
    mc_free(f);
    s->state = NULL;
}

static const char *const file_schemes[] = {"file://", NULL};

const struct mc_store_ops mc_store_file = {
    "file", file_schemes, file_open, file_get, file_put, file_describe,
    file_close,
};
