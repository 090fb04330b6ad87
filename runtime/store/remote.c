/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * remote.c: the remote cache's policy (remote.h): when to ask it, what
 * to let in, what to count and what to say, once, when it fails. The
 * backend is store.h's; nothing here names one.
 */
#include "mc_setup.h"
#include "remote.h"
#include "log.h"
#include "share.h"

void
mc_remote_init(struct mc_remote *r, struct mc_cache *cache,
               struct mc_sign_keys *keys, const struct mc_conf *conf,
               struct mc_stats *d)
{
    memset(r, 0, sizeof(*r));
    r->cache = cache;
    r->keys = keys;
    r->conf = conf;
    r->d = d;
}

void
mc_remote_release(struct mc_remote *r)
{
    mc_store_close(&r->store);
}

/* A remote failure: counted; warned once per make run (the first
 * search to fail leaves the marker that quiets the others, and makes
 * them skip the remote); the build goes on with the local cache. */
static void
remote_failed(struct mc_remote *r, const char *msg)
{
    r->d->n[MC_STAT_REMOTE_ERRORS]++;
    r->state = -1; /* this run leaves it alone from now on */
    if (mc_cache_first_in_build(r->cache, "remote-down"))
        mc_error("warning: %s; going on without the remote cache for "
                 "this build", msg);
}

/* Set R->store up when MAXCODE_REMOTE is set and the remote did not
 * fail earlier in this make run, with the keys it trusts
 * (MAXCODE_TRUSTED_KEYS): a file that cannot be read is a failure, as
 * the remote's own, since none of its entries could be checked; 0 when
 * there is none to use. */
static int
remote_ready(struct mc_remote *r)
{
    const char *trusted = mc_conf_get(r->conf, MC_SET_TRUSTED_KEYS);
    struct mc_err err = MC_ERR_INIT;
    enum mc_code rc;

    if (r->state)
        return r->state > 0;
    r->state = -1;
    rc = mc_store_open(&r->store, mc_conf_get(r->conf, MC_SET_REMOTE),
                       r->conf, &err);
    if (rc == MC_ENOENT || mc_cache_in_build(r->cache, "remote-down"))
        return 0;
    if (!rc && *trusted)
        rc = mc_sign_load_trusted(r->keys, trusted, &err);
    if (rc) {
        remote_failed(r, err.msg);
        return 0;
    }
    if (mc_log_get_level() == MC_LOG_VERBOSE) {
        char where[256];

        mc_store_describe(&r->store, where, sizeof(where));
        mc_verbose("remote cache: %s (%s)", where, r->store.ops->name);
    }
    r->state = 1;
    return 1;
}

/* An entry refused by mc_cache_import() for its signature (counted
 * there): said once per make run; the search or the original takes
 * its place. */
static void
remote_untrusted(const struct mc_remote *r, const char *source,
                 const char *key, const char *mode, const char *why)
{
    if (mc_cache_first_in_build(r->cache, "untrusted"))
        mc_error("warning: %s: the remote entry %s is refused, %s; %s "
                 "(MAXCODE_TRUSTED_KEYS; further refusals in this build "
                 "are counted as remote_untrusted, not told)",
                 source, key, why,
                 strcmp(mode, "optimize") && strcmp(mode, "refresh")
                     ? "using the original" : "searching");
}

int
mc_remote_fetch(struct mc_remote *r, const char *source, const char *key,
                const char *mode, struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf body = MC_BUF_INIT;
    unsigned long long before;
    enum mc_code rc;
    int hit = 0;

    if (!remote_ready(r))
        return 0;
    before = r->store.bytes_in;
    rc = mc_store_get(&r->store, key, &body, &err);
    r->d->n[MC_STAT_REMOTE_BYTES_IN] += r->store.bytes_in - before;
    mc_entry_release(e);
    mc_entry_init(e);
    if (rc == MC_ENOENT) {
        r->d->n[MC_STAT_REMOTE_MISSES]++;
    } else if (rc == MC_ESYNTAX) { /* no entry: larger than any, say */
        r->d->n[MC_STAT_REMOTE_CORRUPT]++;
        mc_info("%s: %s; not used", source, err.msg);
    } else if (rc) {
        remote_failed(r, err.msg);
    } else if ((rc = mc_cache_import(r->cache, key, body.s, body.len,
                                     MC_IMPORT_INCLUDES, e, NULL,
                                     &err)) == MC_ESYNTAX) {
        r->d->n[MC_STAT_REMOTE_CORRUPT]++;
        mc_info("%s: the remote entry %s is corrupt (%s); not used",
                source, key, err.msg);
    } else if (rc == MC_EUNTRUSTED) {
        r->untrusted = 1;
        remote_untrusted(r, source, key, mode, err.msg);
    } else if (rc == MC_ENOENT) {
        r->d->n[MC_STAT_REMOTE_MISSES]++;
        mc_verbose("%s: the remote entry's headers differ here", source);
    } else if (rc == MC_OK || rc == MC_EIO) {
        r->d->n[MC_STAT_REMOTE_HITS]++;
        mc_verbose("%s: key %s is in the remote cache", source, key);
        if (rc) /* a full disk, say: used all the same */
            mc_info("%s: cannot store the remote entry: %s", source,
                    err.msg);
        hit = 1;
    } else {
        mc_info("%s: the remote entry %s is not used: %s", source, key,
                err.msg);
    }
    if (!hit) {
        mc_entry_release(e);
        mc_entry_init(e);
    }
    mc_buf_release(&body);
    return hit;
}

void
mc_remote_push(struct mc_remote *r, const char *source,
               const struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf data = MC_BUF_INIT, shared = MC_BUF_INIT;
    const struct mc_buf *put = &data;
    char cwd[PATH_MAX];
    int changed = 0;

    if (!remote_ready(r) || r->store.read_only)
        return;
    if (mc_cache_encode(r->cache, e, &data, &err) ||
        mc_share_entry(data.s, data.len, getcwd(cwd, sizeof(cwd)),
                       r->cache->keys, &shared, &changed, &err)) {
        mc_error("%s: not stored in the remote cache: %s", source,
                 err.code ? err.msg : "out of memory, or too large");
        goto out;
    }
    if (changed)
        put = &shared;
    if (mc_store_put(&r->store, e->key, put->s, put->len, &err)) {
        remote_failed(r, err.msg);
    } else {
        r->d->n[MC_STAT_REMOTE_STORES]++;
        r->d->n[MC_STAT_REMOTE_BYTES_OUT] += put->len;
    }
out:
    mc_buf_release(&data);
    mc_buf_release(&shared);
}
