/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * manifest.h: an entry's manifest (the MANI section, cache.h): what a
 * build's search found, for people (`maxcode show`), the report, bench
 * and the copy that leaves the machine (share.h). A JSON object as
 * cJSON prints it, indented with tabs, with its members in this order:
 *
 *   manifest = {"key":K,"source":S,"source_path":P,["directory":D,]
 *               "status":ST,
 *               "reason":R,"speedup":x,"speedup_interval":[lo,hi]|null,
 *               ["speedup_basis":B,"speedup_median":x,"speedup_why":W,]
 *               "load":[round...]|null,"search_seconds":x|null,
 *               ["search_child_seconds":x,]
 *               "baseline_seconds":x|null,"best_seconds":x|null,
 *               "metric":s,"candidates":n,"correct_candidates":n,
 *               "strategy":s,"proposer":s,"model":s,
 *               "llm_requests":n,"tokens_in":n,"tokens_out":n,"cost":x,
 *               ["critic_model":s,"prompt_version":s,]
 *               ["usage":{MODEL:counts,...},]
 *               "created":TIME,"maxcode_version":V,"compiler":s,
 *               "flags":[s...],"options":{OPTION:s,...},
 *               "includes":[path...],
 *               ["links":[link...],]
 *               ["recipe_flags":s,"flags_warning":s,]
 *               ["ranking":s,"ranking_note":s,]
 *               ["best":LABEL,"critique":s,]
 *               ["trajectory":[item...]]}
 *   link     = {"file":F,"flags_from":FROM,"command":C}
 *   round    = the load of one round of the final confirmation (node.h)
 *   counts   = {"requests":n,"tokens_in":n,"tokens_out":n,"cost":x}
 *              (usage.h)
 *   item     = the manifest form of a node (node.h): {"parent":P,
 *              "variant":LABEL,"verdict":V,"speedup":x,"confirmed":b,
 *              "u":x,"fr":n,"ut":x,["value":x,]["duplicate_of":n,]
 *              ["repeats":s,]"critique":s}
 *
 * K is the 32-digit key; S the source as the call wrote it; P its real
 * path (relative to make's directory in a copy that left the machine,
 * share.h); D the directory the search ran in (make's, for a search
 * that make's recipe ran; "." in a copy that left the machine; entries
 * of older versions lack it);
 * ST "optimized" or "original", R why the original ("" when
 * optimized); speedup the confirmed speedup as stated everywhere (1 for
 * the original), speedup_interval its 99% interval (both confirming
 * rounds'; null for the original); a search's variant adds B, what
 * speedup is: "median" (the worse of the rounds' medians) or "lower
 * bound" (the interval's: it is too wide to state the median,
 * MC_STATE_SHARE in eval.h), speedup_median that median, and W why it
 * is the lower bound ("" for the median); an entry without B states the
 * median (stored before the rule); load the machine's load around each
 * round of the final
 * confirmation (null when none ran); search_seconds the search's time
 * (null when none ran), search_child_seconds the part of it its
 * compiles and runs took, each from its exec to its exit (absent where
 * search_seconds is null, and in entries stored before it);
 * baseline_seconds the original's time and
 * best_seconds baseline_seconds / speedup (null until the executor
 * times); metric, strategy and proposer the effective options, model
 * MAXCODE_MODEL; the counts what the search's models spent, the
 * policy's and the value model's together (0 without a model);
 * critic_model and prompt_version when a model wrote the variants;
 * usage, per model, when a model (the policy or the value model) has a
 * cost; TIME the UTC time it was stored, "YYYY-MM-DDTHH:MM:SSZ"; V the
 * version that stored it; compiler the compiler command, flags the
 * effective flags, options every option's effective value ("" for
 * none); includes the paths of the INCL records; links, when there are
 * link files, how each was compiled for the test executable: F as
 * written, FROM "compile DB" (its own entry), "link-flags" (the
 * option), "SOURCE's flags" or "not compiled" (an object or a
 * library, linked as it is), C the compile command as one shell line
 * ("" when not compiled; with SOURCE's flags it is compiled in
 * SOURCE's command, C is its equivalent); recipe_flags, only when the
 * flags that make gave the search recipe (the user's target's own,
 * target-specific variables included) differ from the flags the key
 * and the search used, are the recipe's, and flags_warning the
 * warning said then and at each hit. A search's manifest
 * adds ranking and ranking_note for strategy=gvf (the value model
 * used: "served", "built-in" or "reward", and why), best and critique
 * (the best confirmed node's label and critique) when there is one, and
 * its trajectory, one item per candidate in judging order. Entries of older
 * versions may lack search_seconds, speedup_interval, load, cost and
 * usage; readers take a missing member as unknown.
 *
 * The plugin never parses a manifest; `show`, `cache list`, `bench`,
 * the report (report.h) and share.c do, each through the bounded
 * reader of json.h: a manifest may come from another machine.
 */
#ifndef MC_MANIFEST_H
#define MC_MANIFEST_H

#include <stddef.h>
#include "buf.h"
#include "status.h"

struct cJSON;
struct mc_search;
struct mc_target;

/* What a manifest says about the search. */
struct mc_manifest_outcome {
    const char *status;      /* "optimized" or "original" */
    const char *reason;      /* why the original ("" when optimized) */
    double speedup;          /* confirmed; 1 for the original */
    double baseline;         /* seconds of the original, < 0: unknown */
    size_t candidates, correct;
    const struct mc_search *search; /* or NULL */
    const char *recipe_flags;  /* the recipe's flags when they differ
                                * from the key's, else NULL */
    const char *flags_warning; /* what was said of it, or NULL */
};

/*
 * The manifest of the entry of target T under KEY with outcome O; the
 * include files are the paths of INCLUDES' "HASH PATH" lines. NULL when
 * out of memory; the caller frees it with cJSON_free().
 */
char *mc_manifest_write(const struct mc_target *t, const char *key,
                        const struct mc_manifest_outcome *o,
                        const struct mc_buf *includes);

/* The trajectory of search S as its entry keeps it (TRAJ, journal.h),
 * appended to OUT. MC_ENOMEM. */
enum mc_code mc_manifest_traj(const struct mc_search *s, struct mc_buf *out);

/* ---- reading a manifest (show, cache list, bench, the report) ---- */

/* The largest figure a reader takes: every number of a manifest is a
 * count, a time, a speedup or a node's index, and an entry from another
 * machine may hold inf or -1e300, which must not reach a cast to an
 * integer or a plot's scale. */
#define MC_MANIFEST_NUM_MAX 1e12

/* The longest string a reader takes (a critique, a reason, a path). */
#define MC_MANIFEST_STR_MAX ((size_t)1 << 20)

/* Member NAME of manifest (or trajectory item) M as a string of at most
 * MC_MANIFEST_STR_MAX bytes, else ""; it borrows from M. */
const char *mc_manifest_str(const struct cJSON *m, const char *name);

/* Member NAME of M as a number in [0, MC_MANIFEST_NUM_MAX], else DFLT
 * (a missing figure, or a parent of -1, takes DFLT). */
double mc_manifest_num(const struct cJSON *m, const char *name,
                       double dflt);

/* The speedup_interval of manifest M into *LOW and *HIGH: 1 when M has
 * one with 0 < LOW <= HIGH <= MC_MANIFEST_NUM_MAX, else 0 with both
 * -1 (the original's null, or an entry stored before it was recorded). */
int mc_manifest_interval(const struct cJSON *m, double *low, double *high);

/* speedup_basis's two values. */
#define MC_BASIS_MEDIAN "median"
#define MC_BASIS_BOUND  "lower bound"

/* Whether manifest M's speedup is its interval's lower bound (its
 * speedup_basis is MC_BASIS_BOUND), with *WHY its speedup_why ("" when
 * none; borrowed from M); 0 for the median and for an entry stored
 * before the basis was recorded. */
int mc_manifest_bound(const struct cJSON *m, const char **why);

/*
 * The directory the search of manifest M ran in, into OUT (emptied
 * first): its "directory", else, for an entry stored before it was
 * recorded, make's directory as source_path tells it (source_path with
 * the relative source taken off its end, else source_path's own
 * directory); empty when neither tells (a copy from another machine
 * without it). MC_ENOMEM.
 */
enum mc_code mc_manifest_dir(const struct cJSON *m, struct mc_buf *out);

#endif /* MC_MANIFEST_H */
