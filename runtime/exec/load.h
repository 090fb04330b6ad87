/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.h: the machine's load around a timing round. The executor
 * samples it before and after each A/B round (eval.c); a round taken
 * while the load changed materially is taken again, at most
 * MC_LOAD_REPEATS times, and a round kept with the load still changing
 * is flagged (it promotes only a win whose whole interval clears
 * min-speedup). The rule and its thresholds are in
 * doc/internals/eval.md, "Load during a round".
 *
 * The sampler is a function pointer, so that tests can inject samples
 * (tests/unit/test-eval.c); NULL means mc_load_read(), which reads
 * /proc.
 */
#ifndef MC_LOAD_H
#define MC_LOAD_H

#include "status.h"

struct cJSON;

#define MC_LOAD_REPEATS 2      /* a round is taken at most 1 + this many
                                * times when the load changes */
#define MC_LOAD_SHARE   0.25   /* the CPU share a timed program can get
                                * changed by this part of the larger */
#define MC_LOAD_PSI     20.0   /* CPU pressure: points of "some avg10" */

/* One sample of the machine's load; a field < 0 is unknown. */
struct mc_load {
    double running;   /* runnable tasks besides the sampler (the mean of
                       * a few reads of /proc/stat's procs_running) */
    double psi_some;  /* /proc/pressure/cpu "some avg10", percent */
    double loadavg;   /* /proc/loadavg's 1-minute figure */
    double cpus;      /* online CPUs (< 1: taken as 1) */
};

/* What a round's load was: the samples around the round that was kept,
 * how many rounds were taken again because the load changed, and
 * whether it changed around the kept one too. */
struct mc_load_round {
    struct mc_load before, after;
    int repeats;
    int changed;
};

/* A sampler: fill OUT (CTX is the caller's). */
typedef void mc_load_fn(struct mc_load *out, void *ctx);

/* The sampler that reads /proc (CTX unused); fields it cannot read are
 * -1. Takes about 5 ms (a few reads, 1 ms apart). */
void mc_load_read(struct mc_load *out, void *ctx);

/*
 * Whether the load changed materially from BEFORE to AFTER: the share
 * of a CPU that one more runnable task (the timed program) can get,
 * min(1, cpus / (running + 1)), moved by MC_LOAD_SHARE of the larger
 * share or more; or, where both samples have it, the CPU pressure by
 * MC_LOAD_PSI points or more. Unknown fields count as no change.
 */
int mc_load_changed(const struct mc_load *before,
                    const struct mc_load *after);

/*
 * Take a round: ROUND(ARG, &KEEP) between two samples of SAMPLE (with
 * SAMPLE_CTX; NULL: mc_load_read), again while mc_load_changed() says
 * the load changed, at most MC_LOAD_REPEATS more times. A round that
 * sets *KEEP (one whose candidate failed: no point in taking it again)
 * is kept whatever the load. REC gets the kept round's samples, the
 * repeats and whether its load changed. Returns ROUND's first error.
 */
enum mc_code mc_load_guard(mc_load_fn *sample, void *sample_ctx,
                           enum mc_code (*round)(void *arg, int *keep),
                           void *arg, struct mc_load_round *rec);

/* REC as a JSON object {"before": {...}, "after": {...}, "repeats": N,
 * "changed": B} (each sample: running, psi_some, loadavg, cpus; unknown
 * ones null); NULL if out of memory. The caller owns it. */
struct cJSON *mc_load_round_json(const struct mc_load_round *rec);

#endif /* MC_LOAD_H */
