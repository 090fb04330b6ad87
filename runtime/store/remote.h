/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * remote.h: the remote cache as `maxcode optimize` uses it, whatever
 * backend keeps it (store.h: an HTTP server, a shared directory): on a
 * local miss, fetch the entry and let it in through mc_cache_import()
 * (checksum, key, signature, this machine's headers); after a search,
 * push the new entry (as it leaves the machine, share.h); count both;
 * and when the remote fails, warn once per make run and go on without
 * it for the rest of the build.
 *
 * Only `maxcode optimize` talks to the remote, never make's thread: a
 * local miss emits the search rule, and the recipe fetches before it
 * searches (store_http.c and maxcode(7) say why).
 *
 * Counters (cache.h), added to the caller's:
 *   remote_hits       an entry fetched, checked and used
 *   remote_misses     none there, or its headers differ here
 *   remote_corrupt    an object that is no entry of its key (too large,
 *                     not a regular file, a link, a bad checksum)
 *   remote_untrusted  refused for its signature (counted by
 *                     mc_cache_import())
 *   remote_errors     the remote failed (once per command: it is left
 *                     alone after that)
 *   remote_stores, remote_bytes_in, remote_bytes_out
 */
#ifndef MC_REMOTE_H
#define MC_REMOTE_H

#include "cache.h"
#include "conf.h"
#include "sign.h"
#include "store.h"

struct mc_remote {
    struct mc_store store;      /* MAXCODE_REMOTE, when state > 0 */
    int state;                  /* 0 not looked at, 1 ready, -1 none */
    struct mc_cache *cache;     /* the local store (borrowed) */
    struct mc_sign_keys *keys;  /* CACHE's keys (borrowed): the trusted
                                 * keys are loaded into them */
    const struct mc_conf *conf; /* the settings (borrowed) */
    struct mc_stats *d;         /* the caller's counters (borrowed) */
    int untrusted;              /* an entry was refused (sign.h) */
};

/*
 * Set R up over the local store CACHE (whose keys are KEYS), the
 * settings CONF, counting into D. No I/O: the remote is opened when first
 * used. Everything passed in must outlive R. A zeroed R may be released
 * too. Release R with mc_remote_release().
 */
void mc_remote_init(struct mc_remote *r, struct mc_cache *cache,
                    struct mc_sign_keys *keys, const struct mc_conf *conf,
                    struct mc_stats *d);
void mc_remote_release(struct mc_remote *r);

/*
 * A local miss of KEY for SOURCE (as messages name it): the entry from
 * the remote, when MAXCODE_REMOTE is set and the remote did not fail
 * earlier in this make run, through mc_cache_import() (its checksum,
 * KEY, its signature when MAXCODE_TRUSTED_KEYS is set, this machine's
 * headers), stored locally as it came. Returns 1 on a remote hit, with
 * the entry in E (set up by the caller; emptied otherwise). MODE (the
 * command's) words the message of a refused entry. Never fails: a
 * failure is counted and said, and is a miss.
 */
int mc_remote_fetch(struct mc_remote *r, const char *source,
                    const char *key, const char *mode, struct mc_entry *e);

/*
 * A new local entry E of SOURCE goes to the remote too, unless it is
 * read-only: as it leaves this machine, its manifest's paths relative
 * to the current directory (make's, where the recipe runs; share.h),
 * signed as the local store signs. Never fails: a failure is counted
 * and said.
 */
void mc_remote_push(struct mc_remote *r, const char *source,
                    const struct mc_entry *e);

#endif /* MC_REMOTE_H */
