/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * node.h: a node of the search (search.h): a candidate's code, its
 * feedback, its critique, its reward and u, with its life cycle and its
 * one JSON form. The journal (journal.h), an entry's trajectory and the
 * manifest's trajectory (manifest.h) write a node through
 * mc_search_node_json(); the journal and the trajectory read it back
 * through mc_search_node_parse(). Readers of trajectories (the report,
 * show, bench, gvf, the value models) need this header, not the
 * search's.
 *
 * The two forms, one writer:
 *   journal  = {"parent":P,"depth":D,"tag":T,"label":L,"verdict":V,
 *               "correct":b,"compile_error":b,"confirmed":b,
 *               "speedup":x,"reward":x,"u":x,"fr":n,"ut":x,
 *               ["value":x,]"detail":s,["duplicate_of":n,]
 *               ["repeats":s,]["load":[round...],]["load_changed":true,]
 *               "critique":s,"code":s}
 *   manifest = {"parent":P,"variant":L,"verdict":V,"speedup":x,
 *               "confirmed":b,"u":x,"fr":n,"ut":x,["value":x,]
 *               ["duplicate_of":n,]["repeats":s,]"critique":s}
 * The journal form is the journal's node line without its usage
 * members (journal.h) and the node line of an entry's TRAJ; the
 * manifest form is an item of a manifest's "trajectory" (manifest.h),
 * where the knob set or label L is named "variant". V is an
 * mc_verdict_name(); the load of a timed node is, per timing round,
 *   round    = {"before":sample,"after":sample,"repeats":n,"changed":b}
 *   sample   = {"running":x|null,"psi_some":x|null,"loadavg":x|null,
 *               "cpus":x|null}
 * (mc_load_round_json(), load.h). REPEATS names what the proposer did
 * not propose because its code was a judged node's (the built-in
 * proposer's, proposer_builtin.c): those took that node's verdict
 * without a build, a run or a place in the budget, and this node was
 * proposed instead.
 */
#ifndef MC_NODE_H
#define MC_NODE_H

#include "buf.h"
#include "eval.h"
#include "load.h"
#include "status.h"

struct cJSON;

struct mc_search_node {
    int parent, depth;
    unsigned long tag;
    char *label;
    struct mc_buf code;
    enum mc_verdict verdict;
    int correct, compile_error, confirmed;
    double speedup, reward, u;
    int fr;                   /* f_r, the reward bin */
    double ut, value;         /* binned u; the value model's, or -1 */
    int duplicate_of;         /* the earlier node with this code but for
                               * whitespace, whose judgement it took
                               * without a build or a run; or -1 */
    char *repeats;            /* the proposals this node replaced, whose
                               * code repeated a judged one's and was
                               * judged no more: "LABEL (candidate N)"
                               * joined by "; " (N 1-based); or NULL */
    char *detail, *critique;
    size_t load_rounds;       /* the timing's rounds (0: not timed), */
    struct mc_load_round load[MC_TIMING_ROUNDS]; /* the load around
                               * each (journal "load"; not read back) */
    int load_changed;         /* a round was kept with its load changed */
};

/* Set ND up as an empty node from the original; release it with
 * mc_search_node_release(). */
void mc_search_node_init(struct mc_search_node *nd);
void mc_search_node_release(struct mc_search_node *nd);

/* Which of the two JSON forms above. */
enum mc_node_form {
    MC_NODE_JOURNAL,  /* the journal's and TRAJ's node */
    MC_NODE_MANIFEST  /* an item of the manifest's "trajectory" */
};

/* Node ND as a FORM object, or NULL when out of memory; the caller
 * frees it with cJSON_Delete(). */
struct cJSON *mc_search_node_json(const struct mc_search_node *nd,
                                  enum mc_node_form form);

/* Set ND (initialised) from the journal-form object O, each member
 * bounded (json.h): a number out of its range is taken as missing; its
 * parent and duplicate_of are taken as they are (the caller checks them
 * against the nodes before it). MC_ENOMEM. */
enum mc_code mc_search_node_parse(const struct cJSON *o,
                                  struct mc_search_node *nd);

#endif /* MC_NODE_H */
