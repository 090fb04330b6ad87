/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * optimize_store.h: what `maxcode optimize` does to the cache around a
 * lookup and a store: MAXCODE_MODE=verify's check of a cached variant,
 * and the trim after a store.
 */
#ifndef MC_OPTIMIZE_STORE_H
#define MC_OPTIMIZE_STORE_H

#include "cache.h"
#include "target.h"

/*
 * MAXCODE_MODE=verify: re-check the cached variant E of T with the
 * executor (under CACHE_DIR) before it is used. A variant that is the
 * original needs no check; one that fails is replaced, in E, by the
 * original, and said.
 */
void mc_optimize_verify_entry(struct mc_target *t, const char *cache_dir,
                              struct mc_entry *e);

/* Trim the cache C when it has grown past CONF's MAXCODE_MAX_SIZE: down
 * to 90%, so that not every store trims. */
void mc_optimize_auto_trim(struct mc_cache *c, const struct mc_conf *conf);

#endif
