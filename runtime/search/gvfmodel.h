/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gvfmodel.h: the built-in value model (strategy=gvf without a served
 * one): a multinomial logistic regression over five reward bins, fitted
 * by `maxcode gvf train` on the rollouts of this cache, read by the
 * search to rank nodes and, with the built-in proposer, to order knobs.
 * No GPU, no network, no dependency.
 *
 * A state (struct mc_gvf_state) becomes a fixed vector of
 * MC_GVF_FEATURES features (mc_gvf_features()), in this order:
 *   lang      3  one-hot: C, C++, CUDA
 *   code      8  from a structural reading (cmodel.h) of the state's
 *                code (its original when it has none; zeros without
 *                either), each log1p: functions, loops, innermost loops,
 *                nest depth (deepest loop + 1), innermost loops with
 *                unit-stride subscripts, with strided ones, with math
 *                calls, loops in functions that use floating point
 *   body      8  log1p of counts over the innermost loops' bodies
 *                (blanked text): '*', '/', '%', '+', '-' (not "->"),
 *                '[', comparisons, calls (a word before '(' that is not
 *                a keyword such as if, for, sizeof)
 *   marks     7  log1p of counts in the whole text: "#pragma" (and
 *                _Pragma), "unroll", "restrict" (with __restrict),
 *                "__builtin_expect", "__attribute__", the word "omp",
 *                "__launch_bounds__"
 *   diff      2  the share of the code's lines that are not lines of
 *                the original (as multisets; 0 without an original),
 *                log1p of the code's length in lines
 *   edits    25  the knob set or edit label split on '+': each part's
 *                stem (without an "@..." suffix and a trailing "#N":
 *                "unroll(8)" of "unroll(8)@L12", "llm" of "llm#3")
 *                counted in one of 24 buckets by its FNV-1a hash; then
 *                the number of parts
 *   feedback 16  the verdict one-hot (not judged, correct, incorrect,
 *                compile error, timeout or crash, rejected; an unknown
 *                name sets none), correct, confirmed, log speedup
 *                (floored at 1e-3, clamped to [-5, 5]), f_r one-hot,
 *                u_t / 4, min(depth, 16) / 16
 *
 * The model file (CACHE_DIR/gvf/model, or where -o says):
 *   model    = magic LF dims LF count LF mean LF sd LF 5weights
 *   magic    = "maxcode-gvf" SP version        ; MC_GVF_MODEL_VERSION
 *   dims     = "features" SP F SP "classes" SP "5"
 *   count    = "records" SP N                  ; what it was fitted on
 *   mean     = "mean" F(SP number)             ; per feature
 *   sd       = "sd" F(SP number)               ; per feature, > 0
 *   weights  = "w" SP Q (F+1)(SP number) LF    ; class Q = 0..4: bias,
 *                                              ; then one per feature
 * numbers are C "%.17g" and finite. A file that does not parse, or whose
 * version or feature count differs from this build's, is no model.
 */
#ifndef MC_GVFMODEL_H
#define MC_GVFMODEL_H

#include <stddef.h>
#include "hash.h"
#include "lang.h"
#include "status.h"

#define MC_GVF_BINS          5
#define MC_GVF_MODEL_VERSION 1
#define MC_GVF_FEATURES      69  /* 3+8+8+7+2+25+16, see above */

/* One state as the value model sees it. */
struct mc_gvf_state {
    enum mc_lang lang;
    const char *code;      /* the state's whole source, or NULL */
    size_t code_len;
    const char *orig;      /* the original source, or NULL */
    size_t orig_len;
    const char *label;     /* knob set or edit label, or NULL */
    const char *verdict;   /* mc_verdict_name(), or NULL: not judged */
    int correct, confirmed;
    double speedup;        /* measured (0 when not correct) */
    int fr;                /* its reward bin, 0..4 */
    int ut;                /* the running max of bins on its path */
    int depth;             /* 1: a child of the original */
    const char *detail;    /* the feedback's text, or NULL (not read
                            * by the features: the served prompt's) */
    const char *critique;  /* the critique, or NULL (likewise) */
};

struct mc_gvf_model {
    size_t records;                   /* fitted on */
    double mean[MC_GVF_FEATURES], sd[MC_GVF_FEATURES];
    double w[MC_GVF_BINS][MC_GVF_FEATURES + 1];
    char hash[MC_KEY_HEX + 1];        /* of the file's bytes */
};

/* ST's features into X (MC_GVF_FEATURES). Deterministic; MC_ENOMEM. */
enum mc_code mc_gvf_features(const struct mc_gvf_state *st, double *x);

/* Fit M on the N rows X (N * MC_GVF_FEATURES, row-major) with the bins
 * Y (0..4; others are clamped): features standardized (a constant one
 * gets sd 1), softmax regression with an L2 penalty of 1e-3 on the
 * weights, 600 full-batch Adam steps from zero; deterministic. N may be
 * 0 (a uniform model). Sets M->records to N and M->hash to "" (a file's
 * hash comes from save and load). X and Y are only read. MC_ENOMEM. */
enum mc_code mc_gvf_model_fit(struct mc_gvf_model *m, const double *x,
                              const int *y, size_t n);

/* The probabilities of the five bins for X, into P. */
void mc_gvf_model_predict(const struct mc_gvf_model *m, const double *x,
                          double p[MC_GVF_BINS]);

/* The expected value sum_q max(q, UT) p(q) of X: v* is never below the
 * path's u_t. */
double mc_gvf_model_value(const struct mc_gvf_model *m, const double *x,
                          int ut);

/* Write M to PATH (atomically, its directory created), setting M->hash
 * to the hex XXH3-128 of the bytes written (one hash field,
 * "gvf-model"). MC_EIO in ERR; MC_EINVAL when a number in M is not
 * finite (nothing is written). */
enum mc_code mc_gvf_model_save(struct mc_gvf_model *m, const char *path,
                               struct mc_err *err);

#define MC_GVF_MODEL_MAX (1u << 20) /* a larger model file is refused */

/* Read the model at PATH into M (with its hash, computed as by save).
 * With DIR (the cache directory), PATH is relative to it and read with
 * mc_file_read_shared(): no link followed, a regular file only, a bad
 * file said once. Without, PATH is read as it is. MC_ENOENT, without a
 * message, when there is none; MC_ESYNTAX when it is no regular file,
 * is over MC_GVF_MODEL_MAX bytes, does not parse, a number is not
 * finite, or its version or feature count differs (ERR says why,
 * quoting PATH); MC_EIO. M is unchanged on any error. */
enum mc_code mc_gvf_model_load(const char *dir, const char *path,
                               struct mc_gvf_model *m, struct mc_err *err);

#endif /* MC_GVFMODEL_H */
