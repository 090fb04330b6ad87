/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report.h: the HTML report of what maxcode did (`maxcode report`).
 *
 * A report is built from cache entries: each entry's manifest (MANI)
 * gives a row of the summary table and the target's figures, its
 * trajectory (TRAJ, journal.h), when it has one, the plot of reward per
 * candidate with the running best u (the max-reward curve) and, per
 * candidate, the verdict, speedup, feedback, critique and the diffs
 * against its parent and against the original (udiff.h). The page is
 * one self-contained HTML file: inline CSS, inline SVG, and one small
 * inline script that sorts the summary table (the table reads the same
 * without it). Everything that comes from code, paths or model output is
 * escaped (html.h). doc/report.md describes the page.
 *
 * Manifest members that entries of older versions lack, read when
 * present: "search_seconds" (the search's wall time) and
 * "speedup_interval" ([LOW, HIGH], the confirmed speedup's interval).
 */
#ifndef MC_REPORT_H
#define MC_REPORT_H

#include "buf.h"
#include "cache.h"
#include "hash.h"
#include "journal.h"
#include "llm.h"
#include "status.h"
#include "strv.h"

/* One target: a cache entry as the report shows it. */
struct mc_report_target {
    char key[MC_KEY_HEX + 1];
    char *source, *status, *reason, *strategy, *proposer, *model,
        *metric, *created, *best_label, *ranking;
    char *source_path;         /* the manifest's; "" in old copies */
    char *dir;                 /* the directory the search ran in, or "" */
    struct mc_strv words;      /* its build (mc_report_build_words) */
    double speedup;            /* confirmed as stated; 1 for the
                                * original */
    char *bound_why;           /* NULL: speedup is the median; else it
                                * is low, and why (manifest.h's
                                * speedup_basis and speedup_why) */
    double low, high;          /* its interval; low < 0: none */
    double baseline;           /* seconds of the original; < 0: unknown */
    double seconds;            /* the search's time; < 0: not recorded */
    size_t candidates, correct;
    struct mc_llm_usage usage; /* model requests, tokens, cost */
    int has_traj;              /* TRAJ was there and parsed */
    struct mc_trajectory traj;
    int best;                  /* the confirmed answer's node, or -1 */
};

struct mc_report {
    struct mc_report_target *v;
    size_t n, cap;
    const char *cache_dir;     /* borrowed; shown in the header */
    struct mc_stats stats;     /* the cache's counters */
    int have_stats;
    char generated[32];        /* "YYYY-MM-DD HH:MM UTC" */
};

/* Set R up empty for the cache at CACHE_DIR (borrowed), generated now. */
void mc_report_init(struct mc_report *r, const char *cache_dir);

/* Free what R holds. */
void mc_report_release(struct mc_report *r);

/*
 * Add the entry E to R as a target: its manifest (MC_ESYNTAX in ERR
 * when it is not a JSON object) and, when E has one, its trajectory (a
 * trajectory that does not parse is left out, with a note in ERR's
 * message but MC_OK). MC_ENOMEM.
 */
enum mc_code mc_report_add(struct mc_report *r, const struct mc_entry *e,
                           struct mc_err *err);

/* Order R's targets by source, then newest first. */
void mc_report_sort(struct mc_report *r);

/* The page of R, appended to OUT. MC_ENOMEM. */
enum mc_code mc_report_html(const struct mc_report *r, struct mc_buf *out);

/*
 * The section of T (report_target.c) appended to OUT: its figures, its
 * plot and one <details> per candidate with its verdict, speedup,
 * feedback, critique, knob set (built-in proposer) and its diffs
 * against its parent and against the original. MC_ENOMEM.
 */
enum mc_code mc_report_target_html(const struct mc_report_target *t,
                                   struct mc_buf *out);

/*
 * The plot of T (report_plot.c), an inline <svg> appended to OUT: x is
 * the candidate's step in judging order, y its reward (its speedup when
 * correct, 0 when not); one point per candidate, a <g class="pt"> with a
 * <title> (class "pt-bad" when not correct, "pt-best" for the
 * confirmed answer), linked to the candidate's section; the running
 * best u as a step line; the original's 1x as a dashed line; axes with
 * tick labels. MC_ENOMEM.
 */
enum mc_code mc_report_plot(const struct mc_report_target *t,
                            struct mc_buf *out);

struct cJSON;

/*
 * The words of manifest M's build that tell entries of one source
 * apart, appended to OUT: its compiler's words, its flags, then each
 * option as NAME=VALUE. MC_ENOMEM.
 */
enum mc_code mc_report_build_words(const struct cJSON *m,
                                   struct mc_strv *out);

/*
 * What tells entry I of the N entries of one source apart from the
 * others, each given by its words (WORDS[0..N), mc_report_build_words),
 * into OUT (emptied first): the words of WORDS[I] that another entry
 * lacks, then "without " and the words that another entry has and
 * WORDS[I] lacks, each word once, in the order first seen ("-g -DDEBUG",
 * "without -g -DDEBUG", "-O3; without -O2"). Empty when N < 2 or when
 * the words are the same (the entries then differ by their source's
 * text, a header or the compiler's identity). MC_ENOMEM.
 */
enum mc_code mc_report_words_differ(const struct mc_strv *const *words,
                                    size_t n, size_t i, struct mc_buf *out);

/* S seconds (>= 0) in words that fit a table cell, in CAP bytes of
 * OUT: "38.3 s", "1 min 18 s", "2 h 05 min" (also maxcode stats'). */
void mc_report_duration(double s, char *out, size_t cap);

#endif /* MC_REPORT_H */
