/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fallback.h: why the original stays after a search (search.h): the
 * reason for people, in the search's S->reason (the manifest's "reason",
 * the log), and the counter `maxcode stats` counts it under
 * (fallback_* in cache.h).
 */
#ifndef MC_FALLBACK_H
#define MC_FALLBACK_H

#include "cache.h"

struct mc_search;

/*
 * No variant of search S won: append to S->reason why the original
 * stays: the best correct candidate and its speedup against MIN_SPEEDUP,
 * or that none was correct, then what the proposer says stopped it
 * (its explain()). Nothing when the endpoint failed (the reason already
 * says what failed).
 */
void mc_fallback_explain(struct mc_search *s, double min_speedup);

/*
 * The counter (MC_STAT_FALLBACK_*) of the reason the original is kept
 * after search S (NULL when no search ran), for `maxcode stats`; the
 * first that holds:
 *   NO_DEVICE  NO_DEVICE is set: a CUDA target on a machine without one;
 *   OTHER      no search ran (the original did not build or preprocess,
 *              the inputs changed while make ran, ...);
 *   NO_MODEL   the model endpoint is missing or failed;
 *   BUDGET     max-tokens, max-cost or MAXCODE_TIME_LIMIT stopped the
 *              search before budget= candidates;
 *   NO_SPEEDUP a correct candidate, none faster beyond min-speedup (or
 *              its confirmation failed), or nothing to try;
 *   INCORRECT  candidates built, none was correct;
 *   NO_BUILD   no candidate built.
 */
enum mc_stat mc_fallback_reason_of(const struct mc_search *s, int no_device);

#endif /* MC_FALLBACK_H */
