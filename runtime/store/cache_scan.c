/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cache_scan.c: the local store's scan of its entries, the LRU trim and
 * the cleaning (cache.h), apart from the reading and writing of entries
 * in cache.c.
 */
#include "mc_setup.h"
#include "cache.h"
#include "alloc.h"
#include "file.h"
#include "log.h"

#include <dirent.h>
#include <time.h>

#define STALE_TMP_S 3600 /* a temporary file this old was left by a
                          * writer killed mid-store */

/* ---- scanning, trimming, cleaning ---- */

static int
is_hex2(const char *s)
{
    return strlen(s) == 2 && strspn(s, "0123456789abcdef") == 2;
}

static enum mc_code
push_item(struct mc_cache_items *items, const char *path, const char *name,
          const struct stat *st)
{
    struct mc_cache_item *it;

    if (items->n == items->cap) {
        size_t cap = items->cap ? items->cap * 2 : 64;
        struct mc_cache_item *v = mc_realloc(items->v, cap * sizeof(*v));
        if (!v)
            return MC_ENOMEM;
        items->v = v;
        items->cap = cap;
    }
    it = &items->v[items->n];
    memcpy(it->key, name, MC_KEY_HEX);
    it->key[MC_KEY_HEX] = '\0';
    it->path = mc_strdup(path);
    if (!it->path)
        return MC_ENOMEM;
    it->size = (uint64_t)st->st_size;
    it->mtime = st->st_mtim;
    items->total += it->size;
    items->n++;
    return MC_OK;
}

/* Visit DIR/ab/cd/ for every fan-out pair. */
static enum mc_code
scan_leaf(const char *leaf, struct mc_cache_items *out, struct mc_err *err)
{
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    struct dirent *de;
    DIR *d = opendir(leaf);
    time_t now = time(NULL);

    if (!d)
        return MC_OK;
    while ((de = readdir(d)) != NULL && !rc) {
        const char *name = de->d_name;
        size_t n = strlen(name);
        struct stat st;

        mc_buf_reset(&p);
        mc_buf_addf(&p, "%s/%s", leaf, name);
        if (mc_buf_status(&p) || lstat(p.s, &st) || !S_ISREG(st.st_mode))
            continue;
        if (name[0] == '.' && strstr(name, ".tmp.")) {
            /* A writer killed mid-store left this; it is never read. */
            if (now - st.st_mtime > STALE_TMP_S)
                unlink(p.s);
            continue;
        }
        if (n == MC_KEY_HEX + 4 && !strcmp(name + MC_KEY_HEX, ".mce"))
            if (push_item(out, p.s, name, &st))
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    closedir(d);
    mc_buf_release(&p);
    return rc;
}

static int
older_first(const void *a, const void *b)
{
    const struct mc_cache_item *x = a, *y = b;

    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->key, y->key);
}

enum mc_code
mc_cache_scan(struct mc_cache *c, struct mc_cache_items *out,
              struct mc_err *err)
{
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    struct dirent *a, *b;
    DIR *top, *mid;

    memset(out, 0, sizeof(*out));
    top = opendir(c->dir);
    if (!top)
        return errno == ENOENT ? MC_OK
                               : mc_err_set(err, MC_EIO, "cannot read '%s':"
                                            " %s", c->dir, strerror(errno));
    while (!rc && (a = readdir(top)) != NULL) {
        if (!is_hex2(a->d_name))
            continue;
        mc_buf_reset(&p);
        mc_buf_addf(&p, "%s/%s", c->dir, a->d_name);
        if (mc_buf_status(&p) || !(mid = opendir(p.s)))
            continue;
        while (!rc && (b = readdir(mid)) != NULL) {
            struct mc_buf leaf = MC_BUF_INIT;
            if (!is_hex2(b->d_name))
                continue;
            mc_buf_addf(&leaf, "%s/%s", p.s, b->d_name);
            rc = mc_buf_status(&leaf)
                     ? mc_err_set(err, MC_ENOMEM, "out of memory")
                     : scan_leaf(leaf.s, out, err);
            mc_buf_release(&leaf);
        }
        closedir(mid);
    }
    closedir(top);
    mc_buf_release(&p);
    if (!rc && out->n)
        qsort(out->v, out->n, sizeof(*out->v), older_first);
    return rc;
}

void
mc_cache_items_release(struct mc_cache_items *items)
{
    size_t i;

    for (i = 0; i < items->n; i++)
        mc_free(items->v[i].path);
    mc_free(items->v);
    memset(items, 0, sizeof(*items));
}

/* Remove an entry, and its lock file when no search holds it. */
static void
remove_entry(const char *path)
{
    char lock[PATH_MAX];
    size_t n = strlen(path);
    int fd;

    unlink(path);
    if (n > 4 && n < sizeof(lock)) {
        memcpy(lock, path, n - 4);
        memcpy(lock + n - 4, ".lock", 6);
        if (access(lock, F_OK) == 0 &&
            mc_file_lock(lock, 0, &fd, NULL) == MC_OK) {
            unlink(lock);
            mc_file_unlock(fd);
        }
    }
}

enum mc_code
mc_cache_trim(struct mc_cache *c, uint64_t max_bytes, size_t *removed,
              struct mc_err *err)
{
    struct mc_cache_items items;
    struct mc_stats d;
    enum mc_code rc;
    size_t i, gone = 0;

    rc = mc_cache_scan(c, &items, err);
    for (i = 0; !rc && i < items.n && items.total > max_bytes; i++) {
        remove_entry(items.v[i].path);
        items.total -= items.v[i].size;
        gone++;
    }
    mc_cache_items_release(&items);
    if (removed)
        *removed = gone;
    if (gone) {
        memset(&d, 0, sizeof(d));
        d.n[MC_STAT_TRIMMED] = gone;
        mc_cache_stats_add(c, &d, NULL);
    }
    return rc;
}

enum mc_code
mc_cache_clean(struct mc_cache *c, size_t *removed, struct mc_err *err)
{
    struct mc_cache_items items;
    enum mc_code rc;
    size_t i;

    rc = mc_cache_scan(c, &items, err);
    for (i = 0; !rc && i < items.n; i++)
        remove_entry(items.v[i].path);
    if (removed)
        *removed = rc ? 0 : items.n;
    mc_cache_items_release(&items);
    return rc;
}
