/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * internal.h: what the plugin's files share. Not installed, not exported.
 */
#ifndef MC_PLUGIN_INTERNAL_H
#define MC_PLUGIN_INTERNAL_H

#include <gnumake.h>
#include "cache.h"
#include "conf.h"

/* Stop make with "maxcode: MSG" at the caller's makefile line. Returns
 * only under the test stub, and when make was asked only to clean. */
void mc_plugin_fail(const char *fmt, ...) MC_PRINTF(1, 2);

/*
 * Whether make was asked only to clean: every goal of $(MAKECMDGOALS)
 * is "clean" or ends in it ("distclean", "mostlyclean",
 * "maintainer-clean", "realclean") or is "clobber". Then no error in a
 * call stops make (a missing file, a bad option or pragma): the call
 * expands to its SOURCE ($(maxcode-marked ...) to the word), and a call
 * without one expands as it always does, so that `make clean` removes
 * the variants' objects too.
 */
int mc_plugin_only_cleaning(void);

/* A copy of S in memory from gmk_alloc(), for make to free. */
char *mc_plugin_to_make(const char *s);

/* The effective configuration at this point of the makefile, into C
 * (released by the caller). */
enum mc_code mc_plugin_conf(struct mc_conf *c, struct mc_err *err);

/* Count S once for the cache in DIR; written out when make exits. */
void mc_plugin_count(const char *dir, enum mc_stat s);

/* One call made in mode cache, for the line at exit: HIT is 1 for a
 * hit, 0 for a miss, -1 when the cache was not asked (no CUDA device);
 * ORIGINAL says it expanded to SOURCE. */
void mc_plugin_cache_mode(int hit, int original);

/* Write the pending counters. */
void mc_plugin_flush_stats(void);

/* $(maxcode SOURCE[, KEY=VALUE]...) and $(maxcode-marked FILES). */
char *mc_fn_maxcode(const char *name, unsigned int argc, char **argv);
char *mc_fn_marked(const char *name, unsigned int argc, char **argv);

#endif /* MC_PLUGIN_INTERNAL_H */
