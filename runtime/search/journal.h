/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * journal.h: the search's journal, .maxcode/<key>/journal.jsonl, one
 * JSON object per line: a header naming the search, then one line per
 * evaluated candidate, appended as soon as it is judged, so that a
 * search killed midway resumes without evaluating any journaled
 * candidate again.
 *
 *   journal = header *node
 *   header  = {"maxcode_journal":1,"key":K,"strategy":S,"budget":B,
 *              "proposer":P}
 *   node    = the journal form of a node (node.h: parent, depth, tag,
 *             label, verdict, ..., load, critique, code), then
 *             ["usage":usage]["value_usage":usage]
 *   usage   = see usage.h: the model usage so far (cumulative), on the
 *             lines of a proposer that has a cost (proposer=llm)
 *   value_usage = the same for a value model that has a cost (served)
 *
 * fr is the node's reward bin and ut the binned u (rollout.h); value,
 * the value model's expected bin, only when one scored the node. load
 * is the machine's load around each timing round of a timed node
 * (load.h), load_changed says a round was kept with its load changing;
 * both are a record only, not read back on resume. A
 * cache entry's trajectory (TRAJ, doc/internals/rollouts.md) holds the
 * same node objects, without the usage members.
 *
 * P (parent) is a node's index among the node lines, or -1 for the
 * original; V is an mc_verdict_name(). A reader takes a header whose
 * key, strategy, budget or proposer differs, or a journal without a
 * header, as another search's: the search starts a new journal. Lines
 * before the first matching header are skipped. A line that is not
 * whole JSON ending in a newline ends the journal: the torn last line
 * of a search killed mid-write is ignored.
 */
#ifndef MC_JOURNAL_H
#define MC_JOURNAL_H

#include "buf.h"
#include "node.h"
#include "usage.h"

/* What names a search: a journal of another is not resumed. */
struct mc_journal_head {
    const char *key, *strategy, *proposer;
    size_t budget;
};

/* A journal read back. */
struct mc_journal_log {
    int matched;                  /* a header of this search was found */
    struct mc_search_node *nodes; /* the node lines after it, in order */
    size_t n, cap;
    struct mc_usage usage;        /* of the last node line; zero: none */
    struct mc_usage value_usage;  /* its value_usage; zero: none */
};

void mc_journal_log_init(struct mc_journal_log *log);

/* Free LOG's nodes and usage (those not moved out of it). */
void mc_journal_log_release(struct mc_journal_log *log);

/*
 * Read the journal at PATH for the search H into LOG (initialised): at
 * most MAX node lines after the first header that matches H. A missing
 * file is no error (LOG->matched is 0). A parent index that does not
 * name an earlier node becomes -1. Errors: MC_ENOMEM; MC_EIO and others
 * when PATH exists but cannot be read (in ERR).
 */
enum mc_code mc_journal_read(const char *path,
                             const struct mc_journal_head *h, size_t max,
                             struct mc_journal_log *log, struct mc_err *err);

/*
 * Start a new journal at PATH for the search H: remove any old one and
 * write the header line. A write that fails is logged (mc_info) and not
 * an error: the search goes on without resume. MC_ENOMEM in ERR.
 */
enum mc_code mc_journal_start(const char *path,
                              const struct mc_journal_head *h,
                              struct mc_err *err);

/*
 * Append node ND's line to the journal at PATH, with USAGE and
 * VALUE_USAGE (NULL: no such member). The line goes out in one write()
 * with O_APPEND. A failure is logged, not returned: the search goes on
 * without it.
 */
void mc_journal_append(const char *path, const struct mc_search_node *nd,
                       const struct mc_usage *usage,
                       const struct mc_usage *value_usage);

/*
 * The trajectory of a search as its cache entry keeps it (the TRAJ
 * section, cache.h), so that rollouts, reports and other machines work
 * from the cache alone:
 *   trajectory = theader LF *(node LF)
 *   theader    = {"maxcode_trajectory":1,"key":K,"lang":L,"strategy":S,
 *                 "proposer":P,"budget":B,"bins":BINS,"gamma":G,
 *                 "ranking":R,"original":TEXT}
 *   node       = the journal's node, without usage members
 * L is the language's key name ("c", "c++", "cuda"), BINS the bins=
 * value, G MAXCODE_GAMMA, R the gvf ranking ("served", "built-in",
 * "reward") or "" for other strategies, TEXT the original source.
 */
struct mc_trajectory {
    char *key, *lang, *strategy, *proposer, *bins, *ranking;
    size_t budget;
    double gamma;
    struct mc_buf original;
    struct mc_search_node *nodes; /* in order; parents checked */
    size_t n, cap;
};

/* What a trajectory's header says, as its writer is given it: the
 * strings are borrowed (RANKING and ORIGINAL may be NULL: ""). */
struct mc_trajectory_head {
    const char *key, *lang, *strategy, *proposer, *bins, *ranking;
    size_t budget;
    double gamma;
    const char *original;
};

/* The trajectory of header H and the N NODES, appended to OUT (the
 * search's is written by mc_manifest_traj(), manifest.h). MC_ENOMEM. */
enum mc_code mc_trajectory_write(const struct mc_trajectory_head *h,
                                 const struct mc_search_node *nodes,
                                 size_t n, struct mc_buf *out);

void mc_trajectory_init(struct mc_trajectory *t);
void mc_trajectory_release(struct mc_trajectory *t);

/* Read the trajectory TEXT (LEN bytes) into T (initialised).
 * MC_ESYNTAX (with why, in ERR) when its header is missing or a line is
 * not JSON; MC_ENOMEM. */
enum mc_code mc_trajectory_parse(const char *text, size_t len,
                                 struct mc_trajectory *t, struct mc_err *err);

#endif /* MC_JOURNAL_H */
