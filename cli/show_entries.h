/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * show_entries.h: the entries of one source, for `maxcode show` when
 * the cache holds several (a release build's and a `make check` build's
 * with other flags): each with its key, date, build, directory and
 * status, and which of them the current Makefile hits.
 *
 * Which one make would hit is what make computes: the key depends on
 * the makefile's variables and the call's options as make expands them,
 * which no file outside make records (the variant directories in
 * .maxcode/ stay after their key is no longer used, and a hit writes
 * nothing). So the current one is found by asking make: `make -q -p`
 * in the working directory, with no goal of the makefile's own (a goal
 * of an empty rule given by --eval), and with MAKEFLAGS, MFLAGS,
 * MAKELEVEL, GNUMAKEFLAGS and MAKEFILES taken out of its environment:
 * make reads the makefile as `make` typed there would, the plugin
 * computes each call's key, and the data base that -p prints names the
 * variant .maxcode/KEY/NAME of every $(maxcode ...) call that make
 * expands when it reads the makefile (in a prerequisite list, an
 * immediate assignment or a variable that one of those expands). -q
 * runs no recipe: no search starts. What the parse does is what a
 * build's parse does: the plugin looks the keys up and writes a hit's
 * variant where a build would; with MAXCODE_STATS=0 in its environment
 * it counts no hit or miss in `maxcode stats`. make is $MAKE when it is set, else "make" on PATH; it is given
 * SHOW_MAKE_TIMEOUT_S seconds.
 */
#ifndef MC_SHOW_ENTRIES_H
#define MC_SHOW_ENTRIES_H

#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "hash.h"
#include "strv.h"

struct cJSON;
struct mc_entry;

/* The seconds `make -q -p` may take before show gives up on it. */
#define SHOW_MAKE_TIMEOUT_S 60

/* One entry of a source. */
struct mc_show_entry {
    char key[MC_KEY_HEX + 1];
    int64_t created;          /* the entry's header time */
    struct timespec mtime;    /* its file's: the order within a second */
    struct cJSON *m;          /* its manifest */
    char *dir;                /* the directory its search ran in, or "" */
    struct mc_strv words;     /* its build (mc_report_build_words) */
    char *differs;            /* what tells it apart from the others */
    int current;              /* the current Makefile computes its key */
};

/* The entries of one source, newest first, and the one to show. */
struct mc_show_entries {
    struct mc_show_entry *v;
    size_t n, cap;
    int chosen;               /* the index of the one shown; -1: none */
    int asked;                /* make was asked (several entries) */
    struct mc_buf how;        /* how it was chosen, one sentence */
    char other[MC_KEY_HEX + 1]; /* a key make computes that has no
                                 * entry, or "" */
};

void mc_show_entries_init(struct mc_show_entries *l);
void mc_show_entries_release(struct mc_show_entries *l);

/*
 * Every entry of the local cache for SOURCE into L, newest first: those
 * whose manifest names SOURCE (by its real path when SOURCE exists,
 * else by the name the call gave) and those of the variant directories
 * .maxcode/KEY here whose .source names it (an entry from another
 * checkout). With two or more, make is asked which key it computes now
 * (above) and L->chosen is the newest entry with that key, else the
 * newest, with L->how saying why; with one, it is chosen. Returns 0, or
 * -1 having said why on stderr (the cache cannot be opened or read, or
 * out of memory). No entry is no error: L->n is 0.
 */
int mc_show_entries_find(const char *source, struct mc_show_entries *l);

/*
 * mc_show_lookup() of the entry `maxcode show` shows for WHAT: for a
 * SOURCE with several entries, the one the current Makefile hits
 * (mc_show_entries_find()). `diff` and `bench` use it, so that they name
 * the entry `show` names.
 */
int mc_show_lookup_current(const char *what, struct mc_entry *e,
                           struct cJSON **m);

/* L as JSON: an array of one object per entry, {"key", "created",
 * "directory", "compiler", "flags", "differs", "status", "speedup",
 * "reason", "current", "shown"}; NULL when out of memory. The caller
 * frees it with cJSON_Delete(). */
struct cJSON *mc_show_entries_json(const struct mc_show_entries *l);

#endif /* MC_SHOW_ENTRIES_H */
