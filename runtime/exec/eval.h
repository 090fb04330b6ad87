/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval.h: the executor. It turns a candidate source into a verdict the
 * search can trust: does it compile, is it correct, how fast is it.
 * The protocol (timing, statistics, sandbox) is in doc/internals/eval.md.
 *
 * One struct mc_eval serves one target: the original is built, run for
 * its reference outputs, checked by the `check` command (it must pass
 * its own check to be a reference) and timed once, then each candidate
 * is
 *   1. checked against the fences (text outside them must not change);
 *   2. built twice, for tests (with test-cppflags) and for timing;
 *   3. run on every input in a fresh sandbox directory and compared with
 *      the original (what `compare` names, and always the exit status;
 *      numbers within `tolerance` when it is set);
 *   4. checked by the `check` command (once per input, the input on
 *      its stdin), and with sanitize=1 built with
 *      ASan+UBSan and run again, where any report fails it;
 *   5. timed A/B-interleaved against the original under the machine-wide
 *      timing lock, promoted only beyond the noise, and confirmed in a
 *      fresh round;
 *   6. run on every input again, after timing.
 */
#ifndef MC_EVAL_H
#define MC_EVAL_H

#include "buf.h"
#include "load.h"
#include "profile.h"
#include "sandbox.h"
#include "target.h"

enum mc_verdict {
    MC_VERDICT_CORRECT,
    MC_VERDICT_INCORRECT,
    MC_VERDICT_COMPILE_ERROR,
    MC_VERDICT_TIMEOUT,
    MC_VERDICT_CRASH,
    MC_VERDICT_REJECTED
};

/* "correct", "incorrect", "compile-error", "timeout", "crash",
 * "rejected". */
const char *mc_verdict_name(enum mc_verdict v);

/* What a program printed and how it ended. */
struct mc_run_out {
    struct mc_buf out, err, file;
    int status;      /* exit status, or 128 + signal */
    int file_missing;
    char *file_refused; /* why the compare=file: file was not read ("'out.txt'
                         * is a FIFO"), mc_malloc'd; NULL when it was */
};

#define MC_TIMING_ROUNDS 5   /* most A/B rounds of one timing */

/* Timing of one candidate against the original. */
struct mc_timing {
    int done;            /* timing ran */
    size_t pairs;        /* A/B pairs measured in the main round */
    double median;       /* median per-pair speedup (orig / cand) */
    double ci_low, ci_high; /* its distribution-free 99% interval */
    double orig_s, cand_s;  /* median seconds (or instructions) */
    double orig_spread, cand_spread; /* (p90 - p10) / median */
    int promoted;        /* beyond the noise and >= min-speedup */
    int confirmed;       /* promoted again in a fresh round */
    double confirmed_speedup; /* the worse of the two rounds' medians */
    double confirmed_low, confirmed_high; /* both rounds' intervals */
    double start, end;   /* wall clock of the timing phase */
    size_t rounds;       /* A/B rounds kept (repeats not counted) */
    double measured;     /* the worse of those rounds' medians, */
    double measured_low, measured_high; /* and the span of their
                          * intervals, promoted or not (maxcode bench) */
    struct mc_load_round load[MC_TIMING_ROUNDS]; /* per round kept: the
                          * machine's load around it */
    int load_changed;    /* a round was kept with its load changed: it
                          * promoted nothing */
};

/* The feedback record (DESIGN 1.7): the search's observation. */
struct mc_feedback {
    enum mc_verdict verdict;
    int compiled, correct;
    struct mc_buf detail;       /* first difference, diagnostics, why */
    struct mc_buf diagnostics;  /* trimmed compiler output */
    struct mc_timing timing;
    double baseline_s;          /* the original, alone */
    const char *metric;
    const char *sandbox;        /* isolation in force */
};

struct mc_eval {
    struct mc_target *t;
    struct mc_sandbox sb;
    char *cache_dir;          /* holds timing.lock */
    struct mc_buf orig_text;
    char *orig_test, *orig_time;     /* executables */
    char *orig_san;           /* the original built with the sanitizers,
                               * once a candidate's sanitizer run
                               * reported; "" when it cannot be built */
    signed char *orig_san_report; /* per run: 1 when the original's own
                               * sanitizer run reports (then that run
                               * judges no candidate), 0 not, -1 not
                               * run yet */
    struct mc_run_out *ref;   /* per run: the original's outputs */
    size_t n_runs;            /* inputs, or 1 run without stdin */
    double orig_run_s;        /* the original's slowest test run */
    double baseline_s;        /* median time of the original */
    int ready;                /* original built and its outputs known */
    int text_read;            /* orig_text holds the original */
    int orig_fenced;          /* it has #pragma maxcode begin/end */
    int instr_tool;           /* 0 unknown, 1 perf, 2 valgrind, -1 none */
    int harness;              /* the original prints maxcode-time lines */
    double timing_cap_s;      /* most seconds of timing per candidate */
    char *make_dir;           /* where builds run: the current directory */
    struct mc_buf build_cmd;  /* the last build command that failed */
    struct mc_buf outside;    /* a file outside the project that a
                               * candidate named, as it named it */
    struct mc_buf why;        /* why prepare failed, in full (ERR has it
                               * cut to its size) */
    int tight;                /* a round that would promote with an
                               * interval wider than MC_STATE_SHARE
                               * allows goes on, up to the cap (the
                               * search's final confirmation) */
    int rounds;               /* 0: the search's rule (a confirmation
                               * round after a promoting one); N (at most
                               * MC_TIMING_ROUNDS): N rounds, whatever
                               * each decides (maxcode bench) */
    int pin;                  /* timing runs are pinned to TIMING_CPUS */
    cpu_set_t timing_cpus;    /* one CPU (MAXCODE_TIMING_CPU) */
    mc_load_fn *load_fn;      /* samples the load around each round;
                               * NULL: mc_load_read() (tests inject) */
    void *load_ctx;           /* load_fn's */
};

void mc_feedback_init(struct mc_feedback *fb);
void mc_feedback_release(struct mc_feedback *fb);

struct cJSON;

/* The load records of T's rounds as a JSON array of
 * mc_load_round_json() objects; NULL if out of memory. The caller owns
 * it. */
struct cJSON *mc_timing_load_json(const struct mc_timing *t);

/* The feedback as JSON text (DESIGN 1.7 fields and more); free with
 * cJSON_free(). NULL if out of memory. */
char *mc_feedback_json(const struct mc_feedback *fb);

/*
 * Set EV up for target T (owned by the caller, which must have set its
 * compiler and flags). CACHE_DIR holds the timing lock. No work yet.
 */
enum mc_code mc_eval_init(struct mc_eval *ev, struct mc_target *t,
                          const char *cache_dir, struct mc_err *err);
void mc_eval_release(struct mc_eval *ev);

/*
 * Build the original, record its outputs (twice: an original whose runs
 * differ cannot judge anyone, MC_EINVAL), run the check= command on it
 * once per input (an original that fails its own check is no
 * reference: MC_EINVAL), and time it alone. On failure ERR says why (a
 * build error, a crash, a failed check, ...), and EV->why says it in
 * full: for a build error, the command line, the working directory and
 * the first error lines; for a failed check, the check, the input and
 * the first lines the check printed. Idempotent.
 */
enum mc_code mc_eval_prepare(struct mc_eval *ev, struct mc_err *err);

/*
 * Judge the candidate TEXT (LEN bytes). SANITIZE adds the ASan+UBSan
 * run; TIME_IT times a correct candidate. FB (initialised by the caller)
 * gets the record. Returns an error only when the judging itself failed
 * (the original could not be prepared, out of memory).
 */
enum mc_code mc_eval_candidate(struct mc_eval *ev, const char *text,
                               size_t len, int sanitize, int time_it,
                               struct mc_feedback *fb, struct mc_err *err);

/*
 * A source profile of the original: gcov's JSON text (`gcov
 * --json-format --stdout`, GCC 9+ intermediate format) appended to
 * GCOV_JSON (initialised by the caller, who releases it). EV must be
 * prepared (mc_eval_prepare()). The original's test build (its flags,
 * test-cppflags, link files) is built again in a fresh sandbox
 * directory with -fprofile-arcs -ftest-coverage -fprofile-update=single
 * and run trusted on every input as the reference runs go (stdin,
 * args=, a fresh directory with the files= files); the runs' counts add
 * up. Nothing is left behind. Only for C and C++ built by gcc: CUDA,
 * clang, no gcov, a failed build, a run that times out (10 times the
 * original's slowest run, at least 30 s), crashes or writes no data,
 * and a failing gcov are MC_EINVAL with ERR saying which; a caller goes
 * on without a profile. MC_ENOMEM, MC_EIO as usual.
 */
enum mc_code mc_eval_profile(struct mc_eval *ev, struct mc_buf *gcov_json,
                             struct mc_err *err);

/*
 * mc_eval_profile() read into P (initialised; what it held is
 * released) with mc_profile_parse() for the original's source, its
 * lines extended to all the source's lines. On any error P is empty
 * and the code is mc_eval_profile()'s or mc_profile_parse()'s.
 */
enum mc_code mc_eval_profile_parsed(struct mc_eval *ev,
                                    struct mc_profile *p,
                                    struct mc_err *err);

/*
 * The statistics of the promotion rule, exposed for tests: the
 * distribution-free confidence interval of the median of the N values in
 * X (sorted in place) at two-sided level 1 - ALPHA. Returns 0, or -1
 * when N is too small for that level (the interval is then the range).
 */
int mc_eval_median_ci(double *x, size_t n, double alpha, double *median,
                      double *low, double *high);

/*
 * Tight enough to state (doc/internals/eval.md): a confirmed speedup's
 * median is the figure stated only when its 99% interval lies within
 * MC_STATE_SHARE of the median on either side; otherwise the figure
 * stated (manifest, progress line, show, report) is the interval's
 * lower bound. The search's final confirmation runs more pairs first
 * (struct mc_eval's tight).
 */
#define MC_STATE_SHARE 0.15

/* Whether the interval [LOW, HIGH] of median MEDIAN is wider than the
 * rule allows: an end lies more than MC_STATE_SHARE of MEDIAN from it.
 * An unknown interval (LOW <= 0) or median is not wide. */
int mc_eval_wide(double median, double low, double high);

/*
 * The figure to state for the confirmed speedup MEDIAN with 99%
 * interval [LOW, HIGH], into *STATED: MEDIAN, or LOW when the interval
 * is wide (mc_eval_wide()); returns 1 when it is LOW, else 0.
 */
int mc_eval_state(double median, double low, double high, double *stated);

/*
 * Why a figure is stated as its interval's lower bound, appended to
 * WHY (initialised by the caller): a variant whose timed run (PROGRAM_S
 * seconds) is short is "too short to time closer"; a longer one has
 * timings that vary too much on this machine. MC_ENOMEM as WHY says.
 */
void mc_eval_state_why(double program_s, struct mc_buf *why);

/*
 * Compare the original's output ORIG with CAND. With tolerance REL/ABS
 * (REL < 0: exact), numbers are compared token by token and the other
 * text exactly; a NaN or infinity where ORIG has a finite number fails.
 * Returns 1 if equal; else 0 and the first difference in DIFF.
 */
int mc_eval_compare(const char *orig, size_t olen, const char *cand,
                    size_t clen, double rel, double abs_tol,
                    struct mc_buf *diff);

/* Remove "maxcode-time: SECONDS" lines from B; return their sum, or a
 * negative number when there was none. */
double mc_eval_strip_times(struct mc_buf *b);

#endif /* MC_EVAL_H */
