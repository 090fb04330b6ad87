/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval_priv.h: what the parts of the executor share, and nothing else
 * includes (not installed). The executor (eval.h) is split along its
 * jobs:
 *   eval.c          the public entry points: judging a candidate
 *                   (mc_eval_candidate()), its verdict and feedback;
 *   eval_run.c      running a program in the sandbox, and comparing
 *                   its outputs with the reference (compare=, ignore=,
 *                   tolerance=);
 *   eval_build.c    building, and what builds and runs may read;
 *   eval_prep.c     preparing the original: its build, its reference
 *                   runs, mc_eval_init();
 *   eval_time.c     timing: the baseline, warm-up, A/B rounds, the
 *                   statistics of the promotion rule;
 *   eval_profile.c  the gcov source profile of the original.
 * doc/internals/eval.md says why each works as it does.
 */
#ifndef MC_EVAL_PRIV_H
#define MC_EVAL_PRIV_H

#include "eval.h"
#include "spawn.h"
#include "strv.h"

#define OUT_CAP      (4u << 20)  /* bytes of output kept per stream */
#define CMP_FILE_CAP (64u << 20) /* most bytes of a compare=file: file */
#define SAN_EXIT     86          /* exit status of a sanitizer report */
#define CUDA_SANITIZER "compute-sanitizer" /* memcheck of CUDA candidates */
#define SIG_STATUS   128         /* status of a run killed by signal N:
                                  * 128 + N, as the shell says it */
#define MIB          (1ULL << 20)
#define FIRST_LINES     3        /* error or stderr lines in a summary */
#define CHECK_TIMEOUT_S 120      /* each run of the check= command */

/* One run of a program: what runs, on what, how. */
struct mc_run_spec {
    const char *exe;
    const char *input;    /* stdin, or NULL */
    double timeout_s;
    int untrusted;
    int sanitized;        /* ASan/UBSan build */
    const char *tool;     /* "perf", "valgrind" or NULL */
    const char *shell_cmd;/* run `sh -c` this with MAXCODE_EXE=exe */
    int pinned;           /* a timing run: on the timing CPU */
};

/* How it went (mc_eval_run_once()). */
struct mc_run_result {
    struct mc_run_out o;
    int timed_out, signaled, sig, truncated;
    int oom;              /* killed at the memory bound */
    double seconds;       /* harness time, else wall time */
    double wall;          /* wall time */
    int harness;          /* maxcode-time lines were printed */
    double instructions;  /* with a tool */
};

/* ---- eval_run.c: running, and comparing outputs ---- */

/* Free O's buffers and its refusal. */
void mc_eval_run_out_release(struct mc_run_out *o);

/* SPEC's command line into ARGV and its extra environment into ENV
 * (errors stick in both). */
void mc_eval_run_command(const struct mc_eval *ev,
                         const struct mc_run_spec *spec, struct mc_strv *argv,
                         struct mc_strv *env);

/* LD_LIBRARY_PATH, when make's environment has one, into ENV, with its
 * relative directories made absolute as make's directory sees them. */
enum mc_code mc_eval_add_library_path(struct mc_eval *ev, struct mc_strv *env);

/* RES from the finished run R of SPEC in DIR: status, time, the output
 * that is compared (harness time lines and ignore= lines dropped) and
 * the compared file. MC_ENOMEM when out of memory. */
enum mc_code mc_eval_take_result(struct mc_eval *ev,
                                 const struct mc_run_spec *spec,
                                 const char *dir, struct mc_spawn_result *r,
                                 struct mc_run_result *res);

/* Run SPEC in a fresh directory that has the files= files; what
 * `compare=file:NAME` names is read back before the directory goes. */
enum mc_code mc_eval_run_once(struct mc_eval *ev,
                              const struct mc_run_spec *spec,
                              struct mc_run_result *res, struct mc_err *err);

/* Compare run output CAND with the reference REF as `compare` says;
 * on a difference, DIFF tells the first one. */
int mc_eval_same_output(struct mc_eval *ev, const struct mc_run_out *ref,
                        const struct mc_run_out *cand, struct mc_buf *diff);

/* The input of run I, or NULL (one run, no stdin). */
const char *mc_eval_input_of(struct mc_eval *ev, size_t i);

/* The name of input I in messages: its path, or "(no input)". */
const char *mc_eval_input_name(struct mc_eval *ev, size_t i);

/* Run EXE on input I (input_of()) as a correctness run into RES, which
 * the caller releases with mc_eval_result_release(). */
enum mc_code mc_eval_run_inputs(struct mc_eval *ev, const char *exe,
                                int untrusted, int sanitized, double timeout,
                                struct mc_run_result *res, size_t i,
                                struct mc_err *err);

/* Free RES's outputs. */
void mc_eval_result_release(struct mc_run_result *res);

/*
 * Run the check= command CHECK (not empty) as `sh -c` with MAXCODE_EXE
 * naming EXE, in a fresh directory as the program's runs have, with
 * input I (mc_eval_input_of()) on its standard input, untrusted, into
 * RES (released by the caller with mc_eval_result_release()). The
 * original and every candidate are checked this way, once per input.
 */
enum mc_code mc_eval_run_check(struct mc_eval *ev, const char *check,
                               const char *exe, size_t i,
                               struct mc_run_result *res,
                               struct mc_err *err);

/*
 * Whether check run RES passed (it exited 0 in time); when it did not,
 * append to B how it ended ("failed (exit status N)", "timed out after
 * N s", "failed (signal N)") and the first lines it printed, stderr's,
 * else stdout's, joined by " | " (at most FIRST_LINES lines, 200 bytes).
 */
int mc_eval_check_passed(const struct mc_run_result *res, struct mc_buf *b);

/* Why a run was stopped at the memory bound, into B: killed in its
 * cgroup (CGROUP), else by ASan's watch of its resident memory. */
void mc_eval_out_of_memory(const struct mc_eval *ev, int cgroup,
                           struct mc_buf *b);

/* ---- eval_build.c: building, and what builds may read ---- */

/* Whether compiler output DIAG names a file outside what builds may
 * read (the compiler quotes lines of the files it reports on). */
int mc_eval_outside_named(struct mc_eval *ev, const struct mc_buf *diag);

/*
 * Build SRC (with the target's link files) into EXE with EXTRA flags (a
 * NULL-terminated list, may be NULL), as make would: in make's
 * directory, so that every relative path in the flags means what it
 * means there, with only DIR writable. A link file with a build of its
 * own (its compile DB entry, link-flags=: target.h) is compiled first
 * into DIR/link-I.o with its compiler, its flags and EXTRA; the others
 * are compiled with SRC. One compiler command compiles and links; when
 * the link driver is another compiler (a C source with a C++ link
 * file), SRC is compiled to an object first. The link has
 * $(LDFLAGS) before the files and ldlibs=, $(LDLIBS) and, for C and C++,
 * -lm after them. On a compiler error, DIAG gets its trimmed output and
 * MC_EINVAL is returned.
 */
enum mc_code mc_eval_build(struct mc_eval *ev, const char *src,
                           const char *exe, const char *const *extra,
                           const char *dir, struct mc_buf *diag,
                           struct mc_err *err);

/* Build SRC for tests and for timing into DIR; the two are one
 * executable when there are no test-cppflags. */
enum mc_code mc_eval_build_pair(struct mc_eval *ev, const char *src,
                                const char *dir, char **test_exe,
                                char **time_exe, struct mc_buf *diag,
                                struct mc_err *err);

/* The test-cppflags as a NULL-terminated list in SV (SV.v may be NULL:
 * then the list is empty). */
const char *const *mc_eval_test_flags(struct mc_eval *ev, struct mc_strv *sv);

/* The first error lines of compiler output DIAG (at most 3; its first
 * lines when none looks like an error) into OUT, joined by " | ". */
void mc_eval_first_errors(const struct mc_buf *diag, struct mc_buf *out);

/*
 * Limit what builds and runs read (doc/internals/eval.md, "Reads") to
 * make's directory, SOURCE's, the link files' and their directories,
 * every path the flags name (include and library directories, forced
 * includes), where the compiler and linker are installed, the absolute
 * paths in args=, the directories of LD_LIBRARY_PATH, the scratch
 * directory and the system's.
 */
enum mc_code mc_eval_allow_project_reads(struct mc_eval *ev,
                                         struct mc_err *err);

/*
 * Let builds read what the original's compile reads: the dependency
 * lists of SOURCE and of each link file in a language (headers reached
 * through a symbolic link, or found where the flags do not say), listed
 * in DIR without the limit. A listing that fails is no error: the
 * original's build then says what is wrong.
 */
enum mc_code mc_eval_allow_original_reads(struct mc_eval *ev, const char *dir,
                                          struct mc_err *err);

/*
 * Whether the candidate TEXT (LEN bytes, as the model wrote it; PATH in
 * DIR holds it rewritten) reads a file outside what builds may read;
 * EV->outside then names it. Two checks that hold with or without
 * Landlock: the files its directives name (#include, #embed, #line,
 * .incbin...), each tried where the compiler would look; and its
 * dependency list (`CC -M`), which also has the names that macros
 * build.
 */
enum mc_code mc_eval_reads_outside(struct mc_eval *ev, const char *path,
                                   const char *dir, const char *text,
                                   size_t len, int *found, struct mc_err *err);

/* FB says that the candidate reads a file outside the project (named
 * in EV->outside), and carries no compiler output: the compiler may
 * have quoted the file. */
void mc_eval_reject_outside(struct mc_eval *ev, struct mc_feedback *fb);

/* ---- eval_prep.c: preparing the original ---- */

/* The original's SOURCE as builds name it, made absolute, into SRC
 * (errors stick in SRC). */
void mc_eval_original_path(const struct mc_eval *ev, struct mc_buf *src);

/* The original's text into EV->orig_text, once. */
enum mc_code mc_eval_read_original(struct mc_eval *ev, struct mc_err *err);

/* ---- eval_time.c: timing, A/B rounds and statistics ---- */

/* (p90 - p10) / median of the N (at least 1) sorted values X: the
 * spread of a program's samples in a timing round (struct mc_timing);
 * 0 when N is 1 or the median is not positive. P10 and P90 are the
 * values at 0-based ranks floor(0.1 (N - 1)) and floor(0.9 (N - 1)). */
double mc_eval_spread(const double *x, size_t n);

/* The baseline: the original alone, under the timing lock; the median
 * of 5 samples after a warm-up (or its instruction count). */
enum mc_code mc_eval_time_original(struct mc_eval *ev, struct mc_err *err);

/* Time CAND against the original: warm-up, a round, and when it
 * promotes, a fresh confirmation round (with EV->rounds set: that many
 * rounds, whatever each decides). Each round is taken again while the
 * machine's load changes around it (mc_load_guard()); a round kept with
 * its load still changing promotes only when its whole interval clears
 * min-speedup. */
enum mc_code mc_eval_time_candidate(struct mc_eval *ev, const char *cand,
                                    struct mc_feedback *fb,
                                    struct mc_err *err);

#endif /* MC_EVAL_PRIV_H */
