/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target_setup.h: the target of `maxcode optimize` and `maxcode eval`,
 * set up the same way for both: the settings are loaded, SOURCE and its
 * KEY=VALUE arguments parsed (its pragmas first), the log level set, the
 * build resolved from the compile DB or the environment's CC, CFLAGS, ...,
 * and the command line's --cc, --flags, --ld, --ldflags and --ldlibs
 * applied. It comes in two calls so that each command keeps its order of
 * checks: optimize answers MAXCODE_MODE=off between them, before any
 * build is resolved, and eval reads its candidate there.
 */
#ifndef MC_TARGET_SETUP_H
#define MC_TARGET_SETUP_H

#include "conf.h"
#include "target.h"

struct mc_target_setup {
    struct mc_conf conf;  /* the settings; the parse moves them into T */
    struct mc_target t;   /* the target; T.conf holds its settings */
    int from_db;          /* the build came from the compile DB */
};

/* What the command line says about the build; NULL: not given. */
struct mc_target_setup_build {
    const char *cc;       /* --cc */
    const char *flags;    /* --flags */
    const char *ld;       /* --ld */
    const char *ldflags;  /* --ldflags */
    const char *ldlibs;   /* --ldlibs */
};

/*
 * Fill S: load the settings, parse SOURCE with the N "KEY=VALUE" strings
 * in ARGS (mc_target_parse_marked()) and set the log level from the
 * target's MAXCODE_LOG. S need not be initialised. An error is printed
 * on stderr ("maxcode: SOURCE: ..." for a bad target).
 * Returns 0, or the command's exit status: 1 when the settings do not
 * load, MC_EXIT_USAGE when the target does not parse. Release S with
 * mc_target_setup_release() in every case.
 */
int mc_target_setup_load(struct mc_target_setup *s, const char *source,
                         char *const *args, size_t n);

/*
 * After mc_target_setup_load(): resolve S's build, reading the
 * environment's variables (mc_target_resolve_build(); S->from_db tells
 * whether the compile DB was used), then apply what B says instead
 * (mc_target_override_build()). An error is printed on stderr.
 * Returns 0, or the command's exit status: 1 when the build cannot be
 * resolved or memory runs out, MC_EXIT_USAGE when an option of B does
 * not parse (its quotes do not balance).
 */
int mc_target_setup_build(struct mc_target_setup *s,
                          const struct mc_target_setup_build *b);

/* Free what S holds; S may come from a failed or partial setup. */
void mc_target_setup_release(struct mc_target_setup *s);

#endif /* MC_TARGET_SETUP_H */
