/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cache_stats.c: the local store's counters (cache.h), the file "stats"
 * beside the entries, read and changed under "stats.lock", apart from
 * the reading and writing of entries in cache.c.
 */
#include "mc_setup.h"
#include "cache.h"
#include "file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

static const char *const stat_names[MC_STAT__COUNT] = {
    "hits",         "misses",     "stores",     "searches",
    "optimized",    "fallbacks",  "candidates", "llm_requests",
    "tokens_in",    "tokens_out", "corrupt",    "trimmed",
    "remote_hits",  "remote_misses", "remote_errors", "remote_corrupt",
    "remote_stores", "remote_bytes_in", "remote_bytes_out",
    "fallback_no_speedup", "fallback_incorrect", "fallback_no_build",
    "fallback_no_model", "fallback_no_device", "fallback_budget",
    "fallback_other", "search_ms", "remote_untrusted", "launched",
    "launch_failures",
};

const char *
mc_stat_name(enum mc_stat s)
{
    return stat_names[s];
}

/* Parse the stats file text into OUT; unknown lines are ignored. */
static void
parse_stats(const char *text, struct mc_stats *out)
{
    const char *p = text;
    size_t next = 0; /* the name the file, written in order, has next */

    while (*p) {
        char name[32];
        size_t i, n = strcspn(p, " ");

        if (n < sizeof(name)) {
            memcpy(name, p, n);
            name[n] = '\0';
            if (!strcmp(name, "cost"))
                out->cost = strtod(p + n, NULL);
            /* A make run that counted writes the file once, at its
             * end: the name in its place first, then any other. */
            i = next < MC_STAT__COUNT && !strcmp(name, stat_names[next])
                    ? next
                    : 0;
            for (; i < MC_STAT__COUNT; i++)
                if (!strcmp(name, stat_names[i])) {
                    out->n[i] = strtoull(p + n, NULL, 10);
                    next = i + 1;
                    break;
                }
        }
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
}

/*
 * The counters file opened for a rewrite in place, beneath the cache
 * directory and not through a link, or -1 where it must be replaced by
 * a rename instead: missing, no regular file, not ours, or linked from
 * elsewhere (a write in place would change the other name's file too).
 * A rename over the old file costs a make run half a millisecond on
 * ext4, which writes the new file's data out first (auto_da_alloc):
 * some 4 us a hit in a make run of 120 hits.
 */
static int
stats_open_inplace(const struct mc_cache *c)
{
    struct stat st;
    int dfd, fd;

    dfd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    fd = openat(dfd, "stats",
                O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    close(dfd);
    if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
                    st.st_nlink != 1 || st.st_uid != geteuid() ||
                    st.st_size > (off_t)MC_FILE_SMALL)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Read the counters file open at FD (stats_open_inplace(): at most
 * MC_FILE_SMALL bytes, and the lock held) into TEXT; its length into
 * *OLD. */
static enum mc_code
stats_pread(int fd, struct mc_buf *text, size_t *old)
{
    char MC_NOINIT chunk[4096];
    off_t at = 0;

    for (;;) {
        ssize_t n = pread(fd, chunk, sizeof(chunk), at);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return MC_EIO;
        if (n == 0)
            break;
        mc_buf_add(text, chunk, (size_t)n);
        at += n;
    }
    *old = (size_t)at;
    return mc_buf_status(text) ? MC_ENOMEM : MC_OK;
}

/* Write TEXT over the counters file open at FD, in one pwrite() from
 * its start, padded with newlines (which the reader skips) to the OLD
 * length, so that no byte of the old text is left past the new one and
 * no truncate is needed. */
static enum mc_code
stats_pwrite(int fd, struct mc_buf *text, size_t old, struct mc_err *err)
{
    size_t done = 0;

    while (text->len < old)
        mc_buf_add(text, "\n", 1);
    if (mc_buf_status(text))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    while (done < text->len) {
        ssize_t n = pwrite(fd, text->s + done, text->len - done,
                           (off_t)done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return mc_err_set(err, MC_EIO, "cannot write the counters: %s",
                              n < 0 ? strerror(errno) : "no space");
        done += (size_t)n;
    }
    return MC_OK;
}

static enum mc_code
stats_update(struct mc_cache *c, const struct mc_stats *delta, int zero,
             struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT, lock = MC_BUF_INIT, text = MC_BUF_INIT;
    struct mc_stats s;
    enum mc_code rc;
    int fd = -1, sfd = -1;
    size_t i, old = 0;

    memset(&s, 0, sizeof(s));
    mc_buf_addf(&path, "%s/stats", c->dir);
    mc_buf_addf(&lock, "%s/stats.lock", c->dir);
    if (mc_buf_status(&path) || mc_buf_status(&lock)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = mc_file_lock(lock.s, 1, &fd, err);
    if (rc)
        goto out;
    sfd = stats_open_inplace(c);
    if (sfd >= 0 && stats_pread(sfd, &text, &old) != MC_OK) {
        close(sfd);
        sfd = -1;
        mc_buf_reset(&text);
    }
    if (sfd < 0 && !zero) {
        /* A counters file that is no regular file (said once) counts as
         * none: the update below replaces it. */
        struct mc_err why = MC_ERR_INIT;

        rc = mc_file_read_shared(c->dir, "stats", MC_FILE_SMALL, &text,
                                 &why);
        if (rc && rc != MC_ENOENT && rc != MC_ESYNTAX) {
            mc_err_set(err, rc, "%s", why.msg);
            goto out;
        }
    }
    if (!zero) {
        parse_stats(text.s, &s);
        for (i = 0; i < MC_STAT__COUNT; i++)
            s.n[i] += delta->n[i];
        s.cost += delta->cost;
    }
    mc_buf_reset(&text);
    for (i = 0; i < MC_STAT__COUNT; i++)
        mc_buf_addf(&text, "%s %llu\n", stat_names[i], s.n[i]);
    mc_buf_addf(&text, "cost %.6f\n", s.cost);
    if (mc_buf_status(&text)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = sfd >= 0 ? stats_pwrite(sfd, &text, old, err)
                  : mc_file_write_atomic(path.s, text.s, text.len, err);
out:
    if (sfd >= 0)
        close(sfd);
    mc_file_unlock(fd);
    mc_buf_release(&path);
    mc_buf_release(&lock);
    mc_buf_release(&text);
    return rc;
}

enum mc_code
mc_cache_stats_add(struct mc_cache *c, const struct mc_stats *delta,
                   struct mc_err *err)
{
    size_t i;

    for (i = 0; i < MC_STAT__COUNT; i++)
        if (delta->n[i])
            break;
    if (i == MC_STAT__COUNT && delta->cost == 0)
        return MC_OK;
    return stats_update(c, delta, 0, err);
}

void
mc_cache_count(void *c, const struct mc_stats *delta)
{
    mc_cache_stats_add(c, delta, NULL);
}

enum mc_code
mc_cache_stats_zero(struct mc_cache *c, struct mc_err *err)
{
    return stats_update(c, NULL, 1, err);
}

enum mc_code
mc_cache_stats_read(struct mc_cache *c, struct mc_stats *out,
                    struct mc_err *err)
{
    struct mc_buf text = MC_BUF_INIT;
    struct mc_err why = MC_ERR_INIT;
    enum mc_code rc;

    struct mc_buf lock = MC_BUF_INIT;
    int fd, i;

    /* The counters are written in place under the lock: a reader takes
     * it shared (where it exists: reading creates nothing), so that it
     * never sees half a write; it waits a second at most (whoever holds
     * a lock in a shared directory for longer is not waited for). */
    memset(out, 0, sizeof(*out));
    mc_buf_addf(&lock, "%s/stats.lock", c->dir);
    fd = mc_buf_status(&lock)
             ? -1
             : open(lock.s, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
                                O_CLOEXEC);
    mc_buf_release(&lock);
    for (i = 0; fd >= 0 && i < 100 && flock(fd, LOCK_SH | LOCK_NB); i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    rc = mc_file_read_shared(c->dir, "stats", MC_FILE_SMALL, &text, &why);
    if (fd >= 0)
        close(fd);
    if (rc == MC_ENOENT || rc == MC_ESYNTAX)
        rc = MC_OK; /* none, or no regular file (said once): zeros */
    else if (rc)
        mc_err_set(err, rc, "%s", why.msg);
    else
        parse_stats(text.s, out);
    mc_buf_release(&text);
    return rc;
}
