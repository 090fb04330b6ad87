/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * store_local.c: the local store (cache.h) as a backend of store.h, so
 * that code written against the interface can read and write it as any
 * other. Its layout is the local store's own (DIR/ab/cd/KEY.mce; the
 * attributes do not apply), and MAXCODE_REMOTE never chooses it. The
 * plugin and `maxcode optimize` keep calling cache.h directly: a hit in
 * make's thread goes through nothing more than mc_cache_get().
 *
 * get() is the checking read of the entry file (no link followed, a
 * regular file, at most MC_ENTRY_MAX bytes); put() goes through
 * mc_cache_import() (the bytes must decode and hold KEY), as every
 * entry from outside does.
 */
#include "mc_setup.h"
#include "store.h"
#include "alloc.h"
#include "cache.h"
#include "file.h"

/* Open the cache directory WHERE. No I/O. */
static enum mc_code
local_open(struct mc_store *s, const char *where, const struct mc_conf *c,
           struct mc_err *err)
{
    struct mc_cache *cache = mc_calloc(1, sizeof(*cache));

    (void)c;
    s->state = cache;
    if (!cache)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return mc_cache_init(cache, where, err);
}

static enum mc_code
local_get(struct mc_store *s, const char *key, struct mc_buf *out,
          struct mc_err *err)
{
    struct mc_cache *cache = s->state;
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc;

    mc_buf_reset(out);
    if (!mc_is_key(key))
        return MC_ENOENT;
    if (mc_cache_path(cache, key, ".mce", &path))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = mc_file_read_beneath(cache->dir, path.s + strlen(cache->dir) + 1,
                              MC_ENTRY_MAX, out, NULL, err);
    mc_buf_release(&path);
    return rc;
}

static enum mc_code
local_put(struct mc_store *s, const char *key, const void *data,
          size_t len, struct mc_err *err)
{
    enum mc_code rc = mc_cache_import(s->state, key, data, len, 0, NULL,
                                      NULL, err);

    /* Bytes that are no entry of KEY are refused: not kept, with why. */
    if (rc == MC_ESYNTAX || rc == MC_EUNTRUSTED) {
        rc = MC_EIO;
        if (err)
            err->code = rc;
    }
    return rc;
}

static void
local_describe(const struct mc_store *s, char *out, size_t cap)
{
    const struct mc_cache *cache = s->state;

    snprintf(out, cap, "%s", cache && cache->dir ? cache->dir : "");
}

static void
local_close(struct mc_store *s)
{
    if (s->state)
        mc_cache_release(s->state);
    mc_free(s->state);
    s->state = NULL;
}

const struct mc_store_ops mc_store_local = {
    "local", NULL, local_open, local_get, local_put, local_describe,
    local_close,
};
