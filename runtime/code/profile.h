/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile.h: a source-level profile of one file, read from gcov's JSON
 * intermediate format: how many times each line ran and each function
 * was called. The executor produces the JSON (mc_eval_profile() in
 * eval.h) from the original built with gcc's coverage instrumentation
 * and run on its inputs; the built-in proposer reads it to see where
 * the time goes.
 *
 * gcov's counts are executions of the code on a line, summed over all
 * runs. What a line's count means follows from where gcc puts the code
 * (gcc 12, at -O0 and -O2 alike; doc/internals/eval.md has more):
 *   for (i = 0; i < n; i++)   n + 1 per entry of the loop (the tests)
 *       body;                 n per entry
 *   if (c)                    once per test
 *       then;                 times C held
 * With optimisation, code can move to other lines or vanish.
 */
#ifndef MC_PROFILE_H
#define MC_PROFILE_H

#include <stddef.h>
#include "status.h"

/* One function of the file, as gcov lists it. */
struct mc_profile_fn {
    char *name;               /* demangled ("twice<int>(int)" in C++) */
    size_t start_line, end_line;
    double count;             /* times called */
    double lines;             /* sum of the counts of its lines */
};

struct mc_profile {
    size_t nlines;            /* lines known: COUNT has NLINES + 1
                               * entries, indexed from 1 */
    double *count;            /* COUNT[LINE]: executions of the code on
                               * LINE; -1 where the line has no code
                               * (and at index 0) */
    struct mc_profile_fn *fn; /* in gcov's order (by start line) */
    size_t nfn;
};

#define MC_PROFILE_INIT {0, NULL, NULL, 0}

/* Set P up empty; allocates nothing. */
void mc_profile_init(struct mc_profile *p);

/* Free P's contents; P is then empty (initialised). */
void mc_profile_release(struct mc_profile *p);

/*
 * Read gcov's JSON JSON (LEN bytes; `gcov --json-format --stdout` of
 * GCC 9 or later, with one or more "files") into P, which must be
 * initialised; what it held is released first. Only the file whose
 * name has SOURCE's last path component is read; when several do, the
 * one whose path is SOURCE (or ends with "/SOURCE" for a relative
 * SOURCE). A line listed more than once (one entry per template
 * instance) counts the sum. A line counts towards the function that
 * gcov names for it, else towards the innermost function whose lines
 * hold it. P->nlines is the last line gcov knows of (a line or a
 * function's end); mc_profile_set_lines() extends it to the source's.
 * Errors: MC_ESYNTAX when JSON is not gcov's JSON, MC_ENOENT when no
 * file has SOURCE's name, MC_EINVAL when several do and none is
 * SOURCE, MC_ENOMEM. P is then empty.
 */
enum mc_code mc_profile_parse(const char *json, size_t len,
                              const char *source, struct mc_profile *p,
                              struct mc_err *err);

/* Make P hold NLINES lines at least (the lines added have no code:
 * -1). MC_ENOMEM leaves P as it was. */
enum mc_code mc_profile_set_lines(struct mc_profile *p, size_t nlines);

#endif /* MC_PROFILE_H */
