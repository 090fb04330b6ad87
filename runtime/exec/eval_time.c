/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval_time.c: timing: the original's baseline, the warm-up, the
 * interleaved A/B rounds of a candidate against it under the machine's
 * timing lock, instruction counts, and the statistics of the promotion
 * rule. Part of the executor (eval_priv.h).
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "alloc.h"
#include "file.h"
#include "log.h"

#include <fcntl.h>
#include <math.h>
#include <time.h>

#define MIN_PAIRS    8           /* the first 99% interval needs 8 */
#define MAX_PAIRS    40
#define TIGHT_PAIRS  200         /* most pairs of a round that goes on
                                  * while its interval is too wide to
                                  * state its median (ev->tight): their
                                  * 99% interval is ranks 82 to 119; a
                                  * 6 ms program's pair, two sandboxed
                                  * runs, took 55 to 70 ms on the busy
                                  * 2-core machine, so the default cap
                                  * (20 s) comes first there */
#define SHORT_RUN_S  0.05        /* a timed run shorter than this is
                                  * "too short to time closer" */
#define ALPHA        0.01        /* two-sided: 99% intervals */
#define TIMING_LOCK_DIR  "/run/lock"       /* the machine's lock files */
#define TIMING_LOCK_NAME "maxcode-timing.lock"

/* Timing. */
#define BASELINE_SAMPLES 5       /* timed runs of the original alone */
#define WARM_PAIRS      4        /* warm-up pairs at most ... */
#define WARM_AGREE      0.05     /* ... until the original's last two
                                    samples agree within this share */
#define TIMING_TIMEOUT_X 20      /* a timed run may take this many times
                                  * the original's runs */
#define TIMING_TIMEOUT_MIN_S 10  /* ... and at least this */
#define CI_NARROW       0.03     /* a round stops once its interval is
                                  * this narrow, relative to the median */
#define SPREAD_LOW      0.1      /* spread: (p90 - p10) / median */
#define SPREAD_HIGH     0.9
#define PROBE_TIMEOUT_S 30       /* whether perf can count here */
#define COUNT_TIMEOUT_S 600      /* one run under perf or valgrind */
#define COUNT_NOISE     1e-4     /* instruction counts confirm within
                                  * this part (the environment's size
                                  * moves them by a few) */

/* How a timed or counted run failed (bench_runs()' *FAILED). */
enum { RUN_FAILED = 1, RUN_OOM = 2 };

/* What counts instructions: ev->instr_tool (eval.h). */
enum { TOOL_UNKNOWN = 0, TOOL_PERF = 1, TOOL_VALGRIND = 2 };

static double
wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- statistics ---- */

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int
mc_eval_median_ci(double *x, size_t n, double alpha, double *median,
                  double *low, double *high)
{
    double tail = 0, p;
    size_t k = 0, i;

    if (!n)
        return -1;
    qsort(x, n, sizeof(*x), cmp_double);
    *median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    /* Largest k with P(Bin(n, 1/2) < k) <= alpha/2: the interval
     * [x_(k), x_(n-k+1)] (1-based) covers the median with 1 - alpha. */
    p = pow(0.5, (double)n); /* P(X = 0) */
    for (i = 0; i < n / 2; i++) {
        if (tail + p > alpha / 2)
            break;
        tail += p;
        k = i + 1;
        p = p * (double)(n - i) / (double)(i + 1);
    }
    if (!k) {
        *low = x[0];
        *high = x[n - 1];
        return -1;
    }
    *low = x[k - 1];
    *high = x[n - k];
    return 0;
}

double
mc_eval_spread(const double *x, size_t n)
{
    double med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;

    if (n < 2 || med <= 0)
        return 0;
    return (x[(size_t)(SPREAD_HIGH * (double)(n - 1))] -
            x[(size_t)(SPREAD_LOW * (double)(n - 1))]) / med;
}

int
mc_eval_wide(double median, double low, double high)
{
    if (median <= 0 || low <= 0)
        return 0;
    return low < median * (1 - MC_STATE_SHARE) ||
           high > median * (1 + MC_STATE_SHARE);
}

int
mc_eval_state(double median, double low, double high, double *stated)
{
    int wide = mc_eval_wide(median, low, high);

    *stated = wide ? low : median;
    return wide;
}

void
mc_eval_state_why(double program_s, struct mc_buf *why)
{
    if (program_s <= 0 || program_s >= SHORT_RUN_S)
        mc_buf_adds(why, "its timings vary too much on this machine to "
                    "time closer");
    else if (program_s < 0.001)
        mc_buf_addf(why, "the variant runs %.3g us, too short to time "
                    "closer", program_s * 1e6);
    else
        mc_buf_addf(why, "the variant runs %.3g ms, too short to time "
                    "closer", program_s * 1e3);
}

/* ---- timing ---- */

/* The machine's timing lock file into P: MAXCODE_TIMING_LOCK, else in
 * /run/lock (machine-wide, for every user), else in $XDG_RUNTIME_DIR,
 * else in /tmp. Never in the cache directory, which may be shared
 * between machines (NFS): machines do not disturb each other's timing. */
static void
timing_lock_path(const struct mc_eval *ev, struct mc_buf *p)
{
    const char *set = mc_conf_get(&ev->t->conf, MC_SET_TIMING_LOCK);
    const char *xdg = getenv("XDG_RUNTIME_DIR");

    if (*set)
        mc_buf_adds(p, set);
    else if (access(TIMING_LOCK_DIR, W_OK) == 0)
        mc_buf_adds(p, TIMING_LOCK_DIR "/" TIMING_LOCK_NAME);
    else if (xdg && *xdg == '/' && access(xdg, W_OK) == 0)
        mc_buf_addf(p, "%s/" TIMING_LOCK_NAME, xdg);
    else
        mc_buf_adds(p, "/tmp/" TIMING_LOCK_NAME);
}

/* The timing phase's machine-wide lock (blocking): the descriptor to
 * pass to mc_file_unlock(), or -1 (said, and timing goes on unlocked). */
static int
timing_lock(struct mc_eval *ev)
{
    struct mc_buf p = MC_BUF_INIT;
    int fd = -1;

    timing_lock_path(ev, &p);
    if (mc_buf_status(&p) || mc_file_lock(p.s, 1, &fd, NULL))
        mc_info("cannot take the timing lock '%s': %s; timing unlocked",
                p.s, strerror(errno));
    mc_buf_release(&p);
    return fd;
}

/* Per-run timeout of timing runs: generous against the original. */
static double
timing_timeout(struct mc_eval *ev)
{
    double t = TIMING_TIMEOUT_X * ev->orig_run_s *
               (double)(ev->t->bench_inputs.n ? ev->t->bench_inputs.n : 1);

    return t < TIMING_TIMEOUT_MIN_S ? TIMING_TIMEOUT_MIN_S : t;
}

/*
 * Run EXE once per bench input, under TOOL ("perf", "valgrind") when it
 * is not NULL: the sum of the seconds, or of the instructions counted,
 * into *TOTAL. *FAILED tells a run that timed out or was killed
 * (RUN_FAILED), or was killed at the memory bound (RUN_OOM).
 */
static enum mc_code
bench_runs(struct mc_eval *ev, const char *exe, const char *tool,
           double timeout, double *total, int *failed, struct mc_err *err)
{
    const struct mc_strv *bench = &ev->t->bench_inputs;
    size_t i, n = bench->n ? bench->n : 1;
    enum mc_code rc = MC_OK;

    *total = 0;
    *failed = 0;
    for (i = 0; i < n && !rc; i++) {
        struct mc_run_spec spec;
        struct mc_run_result res;

        memset(&spec, 0, sizeof(spec));
        spec.exe = exe;
        spec.input = bench->n ? bench->v[i] : NULL;
        spec.timeout_s = timeout;
        spec.untrusted = 1;
        spec.tool = tool;
        spec.pinned = !tool;
        rc = mc_eval_run_once(ev, &spec, &res, err);
        if (!rc && res.oom)
            *failed = RUN_OOM;
        else if (!rc && (res.timed_out || res.signaled) && !*failed)
            *failed = RUN_FAILED;
        if (!rc && tool && res.instructions < 0 && !res.oom)
            rc = mc_err_set(err, MC_EIO, "%s reported no instruction count "
                            "(or more than one)", tool);
        *total += tool ? res.instructions : res.seconds;
        mc_eval_result_release(&res);
    }
    return rc;
}

/* One timing sample of EXE: the sum over the bench inputs. */
static enum mc_code
time_sample(struct mc_eval *ev, const char *exe, double timeout,
            double *seconds, int *failed, struct mc_err *err)
{
    return bench_runs(ev, exe, NULL, timeout, seconds, failed, err);
}

/* Instructions of EXE over the bench inputs, with perf or valgrind;
 * *FAILED as bench_runs() says. */
static enum mc_code
count_instructions(struct mc_eval *ev, const char *exe, double *count,
                   int *failed, struct mc_err *err)
{
    if (ev->instr_tool == TOOL_UNKNOWN) {
        /* Probe once: perf counts only where the kernel lets it. */
        struct mc_run_spec spec;
        struct mc_run_result res;

        memset(&spec, 0, sizeof(spec));
        spec.exe = "/bin/true";
        spec.tool = "perf";
        spec.timeout_s = PROBE_TIMEOUT_S;
        ev->instr_tool = TOOL_VALGRIND;
        if (mc_eval_run_once(ev, &spec, &res, err) == MC_OK &&
            res.instructions > 0)
            ev->instr_tool = TOOL_PERF;
        mc_eval_result_release(&res);
        mc_err_clear(err);
    }
    return bench_runs(ev, exe,
                      ev->instr_tool == TOOL_PERF ? "perf" : "valgrind",
                      COUNT_TIMEOUT_S, count, failed, err);
}

static int
metric_is_instructions(struct mc_eval *ev)
{
    return !strcmp(mc_target_get(ev->t, MC_OPT_METRIC), "instructions");
}

enum mc_code
mc_eval_time_original(struct mc_eval *ev, struct mc_err *err)
{
    double s[BASELINE_SAMPLES], med, lo, hi;
    enum mc_code rc = MC_OK;
    int lock, failed = 0, i;

    lock = timing_lock(ev);
    if (metric_is_instructions(ev)) {
        rc = count_instructions(ev, ev->orig_time, &ev->baseline_s,
                                &failed, err);
        if (!rc && failed == RUN_OOM)
            rc = mc_err_set(err, MC_EINVAL, "the original ran out of "
                            "memory while its instructions were counted "
                            "(the bound is %llu MiB: MAXCODE_RUN_MEMORY)",
                            ev->sb.memory / MIB);
    } else {
        rc = time_sample(ev, ev->orig_time, timing_timeout(ev), &s[0],
                         &failed, err);
        for (i = 0; !rc && !failed && i < BASELINE_SAMPLES; i++)
            rc = time_sample(ev, ev->orig_time, timing_timeout(ev), &s[i],
                             &failed, err);
        if (!rc && failed == RUN_OOM)
            rc = mc_err_set(err, MC_EINVAL, "the original's timing build "
                            "ran out of memory on its bench inputs (the "
                            "bound is %llu MiB: MAXCODE_RUN_MEMORY)",
                            ev->sb.memory / MIB);
        else if (!rc && failed)
            rc = mc_err_set(err, MC_EINVAL, "the original's timing build "
                            "timed out or crashed on its bench inputs");
        if (!rc) {
            mc_eval_median_ci(s, BASELINE_SAMPLES, ALPHA, &med, &lo, &hi);
            ev->baseline_s = med;
        }
    }
    mc_file_unlock(lock);
    return rc;
}

/*
 * One interleaved round of A (original) against B (candidate): pairs in
 * ABBA order until the 99% interval decides against MIN_SPEEDUP, MAX_PAIRS
 * pairs, or the time cap, counted from START (the round's first
 * attempt: a round taken again shares its cap). With EV->tight, a round
 * whose interval lies above MIN_SPEEDUP but is too wide to state its
 * median (mc_eval_wide()) goes on, up to TIGHT_PAIRS pairs or the cap.
 * Fills T's figures; returns whether it promotes.
 */
static enum mc_code
ab_round(struct mc_eval *ev, const char *cand, double min_speedup,
         double start, struct mc_timing *t, int *promoted, int *failed,
         struct mc_err *err)
{
    double a[TIGHT_PAIRS], b[TIGHT_PAIRS], ratio[TIGHT_PAIRS];
    double tmp[TIGHT_PAIRS];
    double timeout = timing_timeout(ev), med, lo, hi;
    enum mc_code rc = MC_OK;
    size_t n = 0, most = ev->tight ? TIGHT_PAIRS : MAX_PAIRS;

    *promoted = 0;
    *failed = 0;
    while (n < most) {
        int fa = 0, fb = 0;

        if (n % 2 == 0) {
            rc = time_sample(ev, ev->orig_time, timeout, &a[n], &fa, err);
            if (!rc)
                rc = time_sample(ev, cand, timeout, &b[n], &fb, err);
        } else {
            rc = time_sample(ev, cand, timeout, &b[n], &fb, err);
            if (!rc)
                rc = time_sample(ev, ev->orig_time, timeout, &a[n], &fa,
                                 err);
        }
        if (rc)
            return rc;
        if (fa)
            return mc_err_set(err, MC_EINVAL, "the original timed out or "
                              "crashed while it was timed");
        if (fb) {
            *failed = fb;
            return MC_OK;
        }
        ratio[n] = b[n] > 0 ? a[n] / b[n] : 0;
        n++;
        if (n < MIN_PAIRS)
            continue;
        memcpy(tmp, ratio, n * sizeof(*tmp));
        mc_eval_median_ci(tmp, n, ALPHA, &med, &lo, &hi);
        if ((lo > min_speedup &&
             !(ev->tight && mc_eval_wide(med, lo, hi))) ||
            hi < min_speedup || hi < 1.0 ||
            (hi - lo) / med < CI_NARROW ||
            wall_now() - start > ev->timing_cap_s)
            break;
    }
    memcpy(tmp, ratio, n * sizeof(*tmp));
    mc_eval_median_ci(tmp, n, ALPHA, &med, &lo, &hi);
    if (ev->tight)
        mc_verbose("timing: a round of %zu pairs, %.3fx in [%.3fx, "
                   "%.3fx]%s", n, med, lo, hi,
                   mc_eval_wide(med, lo, hi) ? ", too wide to state" : "");
    t->pairs = n;
    t->median = med;
    t->ci_low = lo;
    t->ci_high = hi;
    qsort(a, n, sizeof(*a), cmp_double);
    qsort(b, n, sizeof(*b), cmp_double);
    t->orig_s = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    t->cand_s = n % 2 ? b[n / 2] : (b[n / 2 - 1] + b[n / 2]) / 2;
    t->orig_spread = mc_eval_spread(a, n);
    t->cand_spread = mc_eval_spread(b, n);
    /* The promotion rule: the whole 99% interval above 1 (the candidate
     * is faster beyond the noise) and the median at least min-speedup. */
    *promoted = lo > 1.0 && med >= min_speedup;
    return MC_OK;
}

/* One A/B round as mc_load_guard() takes it (ROUND_ARG). */
struct round_arg {
    struct mc_eval *ev;
    const char *cand;
    double min_speedup;
    struct mc_timing *t;
    int promoted, failed;
    int attempts;   /* of this round so far */
    double start;   /* of its first attempt */
    struct mc_err *err;
};

/* An attempt at the round; it is kept (not taken again) when its
 * candidate failed, or when the round's time cap, counted from its
 * first attempt, is spent: the repeats share the cap. */
static enum mc_code
guarded_round(void *arg, int *keep)
{
    struct round_arg *a = arg;
    enum mc_code rc;

    if (!a->attempts++)
        a->start = wall_now();
    rc = ab_round(a->ev, a->cand, a->min_speedup, a->start, a->t,
                  &a->promoted, &a->failed, a->err);
    *keep = a->failed || wall_now() - a->start >= a->ev->timing_cap_s;
    return rc;
}

/* FB's verdict: CAND's run was killed at the memory bound while it was
 * WHAT ("timed", "counted"). */
static void
timing_oom(struct mc_eval *ev, const char *what, struct mc_feedback *fb)
{
    fb->verdict = MC_VERDICT_CRASH;
    mc_buf_addf(&fb->detail, "out of memory while it was %s: ", what);
    mc_eval_out_of_memory(ev, 1, &fb->detail);
}

/* Count the instructions of the original once and of CAND twice into
 * FB's timing, the load sampled around them for the record only: counts
 * do not depend on it. A count killed at the memory bound is FB's
 * verdict, crash. */
static enum mc_code
time_by_count(struct mc_eval *ev, const char *cand, double min_speedup,
              struct mc_feedback *fb, struct mc_err *err)
{
    mc_load_fn *sample = ev->load_fn ? ev->load_fn : mc_load_read;
    struct mc_timing *t = &fb->timing;
    double ci = 0, oi = 0, ci2 = 0;
    enum mc_code rc;
    int fo = 0, fc = 0;

    sample(&t->load[0].before, ev->load_ctx);
    rc = count_instructions(ev, ev->orig_time, &oi, &fo, err);
    if (!rc && fo == RUN_OOM)
        rc = mc_err_set(err, MC_EINVAL, "the original ran out of memory "
                        "while its instructions were counted");
    if (!rc)
        rc = count_instructions(ev, cand, &ci, &fc, err);
    if (!rc && fc != RUN_OOM)
        rc = count_instructions(ev, cand, &ci2, &fc, err);
    if (!rc && fc == RUN_OOM) {
        timing_oom(ev, "counted", fb);
        return MC_OK;
    }
    if (rc)
        return rc;
    sample(&t->load[0].after, ev->load_ctx);
    t->load[0].changed = mc_load_changed(&t->load[0].before,
                                         &t->load[0].after);
    t->pairs = 1;
    t->rounds = 1;
    t->orig_s = oi;
    t->cand_s = ci;
    t->median = t->ci_low = t->ci_high = ci > 0 ? oi / ci : 0;
    t->measured = t->measured_low = t->measured_high = t->median;
    t->promoted = t->median > 1.0 && t->median >= min_speedup;
    /* Deterministic: the confirmation is the same count again (to a
     * part in 10^4: the environment's size moves it by a few). */
    t->confirmed = t->promoted && fabs(ci2 - ci) <= COUNT_NOISE * ci;
    t->confirmed_speedup = t->confirmed ? t->median : 0;
    t->confirmed_low = t->confirmed_high = t->confirmed_speedup;
    t->done = 1;
    return MC_OK;
}

/* Before the first timed pair: the builds' dirty pages go to disk now
 * (syncfs of the make directory's file system), so that their
 * write-back does not land in the middle of a round; then pairs of one
 * run of each, discarded, until the original's last two samples agree
 * within WARM_AGREE, at most WARM_PAIRS pairs (caches, page faults, a
 * clock that ramps up after the builds). *FAILED when a run timed out
 * or crashed. */
static enum mc_code
warm_up(struct mc_eval *ev, const char *cand, int *failed,
        struct mc_err *err)
{
    double prev = 0, a = 0, b;
    enum mc_code rc = MC_OK;
    int fd, i;

    fd = open(ev->make_dir ? ev->make_dir : ".", O_RDONLY | O_DIRECTORY |
              O_CLOEXEC);
    if (fd >= 0) {
        (void)syncfs(fd);
        close(fd);
    }
    for (i = 0; i < WARM_PAIRS; i++) {
        prev = a;
        rc = time_sample(ev, ev->orig_time, timing_timeout(ev), &a, failed,
                         err);
        if (!rc && !*failed)
            rc = time_sample(ev, cand, timing_timeout(ev), &b, failed, err);
        if (rc || *failed)
            break;
        if (i > 0 && fabs(a - prev) <= WARM_AGREE * prev)
            break;
    }
    if (!rc && !*failed)
        mc_verbose("timing: warm-up of %d pairs",
                   i < WARM_PAIRS ? i + 1 : i);
    return rc;
}

enum mc_code
mc_eval_time_candidate(struct mc_eval *ev, const char *cand,
                       struct mc_feedback *fb, struct mc_err *err)
{
    struct mc_timing *t = &fb->timing, again;
    struct round_arg a;
    double min_speedup = atof(mc_target_get(ev->t, MC_OPT_MIN_SPEEDUP));
    enum mc_code rc;
    size_t want = ev->rounds > 0 ? (size_t)ev->rounds : 1, r;
    int lock, wf = 0, later_promoted = 1;

    if (want > MC_TIMING_ROUNDS)
        want = MC_TIMING_ROUNDS;
    lock = timing_lock(ev);
    t->start = wall_now();
    mc_verbose("timing: start %.6f %s", t->start, ev->t->source);
    if (metric_is_instructions(ev)) {
        rc = time_by_count(ev, cand, min_speedup, fb, err);
        goto out;
    }
    rc = warm_up(ev, cand, &wf, err);
    if (rc)
        goto out;
    if (wf == RUN_OOM) {
        timing_oom(ev, "timed", fb);
        goto out;
    }
    if (wf) {
        fb->verdict = MC_VERDICT_TIMEOUT;
        mc_buf_adds(&fb->detail, "the timing build timed out or crashed");
        goto out;
    }
    memset(&a, 0, sizeof(a));
    a.ev = ev;
    a.cand = cand;
    a.min_speedup = min_speedup;
    a.err = err;
    for (r = 0; r < want; r++) {
        memset(&again, 0, sizeof(again));
        a.t = r ? &again : t;
        a.attempts = 0;
        rc = mc_load_guard(ev->load_fn, ev->load_ctx, guarded_round, &a,
                           &t->load[r]);
        if (rc)
            goto out;
        if (a.failed == RUN_OOM && !r) {
            timing_oom(ev, "timed", fb);
            goto out;
        }
        if (a.failed && !r) {
            fb->verdict = MC_VERDICT_TIMEOUT;
            mc_buf_adds(&fb->detail, "a timing run timed out or crashed");
            goto out;
        }
        if (a.failed) {
            later_promoted = 0;
            break;
        }
        if (t->load[r].changed) {
            /* The machine changed under the round even when taken
             * again. Its pairs still decide, conservatively: only a win
             * whose whole interval clears min-speedup promotes. (A busy
             * build machine changes all the time; refusing every such
             * round would keep nothing there, and a load that starts
             * mid-round moves some pairs, not the interval of all.) */
            const struct mc_timing *rt = r ? &again : t;

            a.promoted = a.promoted && rt->ci_low > min_speedup;
            t->load_changed = 1;
        }
        t->rounds = r + 1;
        if (!r) {
            t->done = 1;
            t->promoted = a.promoted;
            t->measured = t->median;
            t->measured_low = t->ci_low;
            t->measured_high = t->ci_high;
            if (!ev->rounds && a.promoted)
                want = 2;
            continue;
        }
        later_promoted &= a.promoted;
        t->measured = fmin(t->measured, again.median);
        t->measured_low = fmin(t->measured_low, again.ci_low);
        t->measured_high = fmax(t->measured_high, again.ci_high);
    }
    t->confirmed = t->promoted && t->rounds >= 2 && later_promoted;
    if (t->confirmed) {
        /* The headline is the worse of the rounds, taken apart in time,
         * and its interval spans theirs: a figure the next measurement
         * should not fall below. */
        t->confirmed_speedup = t->measured;
        t->confirmed_low = t->measured_low;
        t->confirmed_high = t->measured_high;
    }
out:
    t->end = wall_now();
    mc_verbose("timing: end %.6f %s", t->end, ev->t->source);
    mc_file_unlock(lock);
    return rc;
}
