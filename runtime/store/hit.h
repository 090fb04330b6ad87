/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hit.h: the cache-hit rule, written once for the plugin (make's thread,
 * plugin/unit.c) and the search recipe (`maxcode optimize`): an entry
 * found for a key is a hit when its include records still hold
 * (mc_entry_includes_valid(), cache.h) and its variant fits this
 * machine (mc_hit_fits()). The plugin's call costs no file read and no
 * allocation when the variant names no architecture.
 */
#ifndef MC_HIT_H
#define MC_HIT_H

#include "cache.h"
#include "target.h"

/*
 * Whether the variant of E may run on this machine: a target("arch=X")
 * it has and T's source has not must name this machine's architecture
 * (native.h), resolved now when none is remembered if RESOLVE (the
 * search recipe), else as remembered (make's thread). When it does not
 * fit, says why at log level normal, naming SOURCE (as the caller names
 * the unit) and what happens instead under MODE: "using the original"
 * in modes cache and verify, else "searching again" (or, in make's
 * thread with no architecture resolved yet, "the search recipe checks
 * it"). An error resolving is said and is no fit.
 */
int mc_hit_fits(const struct mc_target *t, const char *source,
                const struct mc_entry *e, const char *mode, int resolve);

/*
 * Say E's note (its NOTE section: why the original is kept, for a cause
 * in the Makefile, and the fix), naming SOURCE, at log level normal:
 * "SOURCE: NOTE". Nothing when E has none, which is every entry of a
 * search that ran (found a variant or none faster).
 */
void mc_hit_say_note(const char *source, const struct mc_entry *e);

/* The most of a note that is said: 1 KiB with its NUL. */
#define MC_HIT_NOTE_MAX 1023

/* E's note as it is said, appended to OUT: its first MC_HIT_NOTE_MAX
 * bytes, each control character a space (one line of printable text,
 * whoever wrote the entry). A hit that does not read E keeps this line
 * in the variant's record (unit.c). */
void mc_hit_note_line(const struct mc_entry *e, struct mc_buf *out);

/* Say LINE, a note as mc_hit_note_line() made it, naming SOURCE, as
 * mc_hit_say_note() says one. */
void mc_hit_say_line(const char *source, const char *line);

#endif /* MC_HIT_H */
