/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval.c: judging candidates (the executor's entry point
 * mc_eval_candidate()), the verdict and the feedback record. The other
 * jobs are in the eval_*.c parts (eval_priv.h says which). See eval.h
 * for the sequence and doc/internals/eval.md for why.
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "cuda.h"
#include "alloc.h"
#include "file.h"
#include "log.h"
#include "lang.h"
#include "mark.h"
#include "variant.h"

#include <cjson/cJSON.h>

#define SAN_SLOWDOWN 4           /* sanitized runs get this many times
                                  * the timeout */
/* ASan's report when its own watch of resident memory (hard_rss_limit_mb,
 * set where no cgroup bounds a sanitizer run) fires. */
#define SAN_RSS_REPORT "hard rss limit exhausted"

/* Running and judging. */
#define RUN_TIMEOUT_X   10       /* a candidate's run may take this many */
#define RUN_TIMEOUT_PAD_S 5      /* times the original's, plus this */

const char *
mc_verdict_name(enum mc_verdict v)
{
    static const char *const names[] = {"correct", "incorrect",
                                        "compile-error", "timeout",
                                        "crash", "rejected"};
    return names[v];
}

void
mc_feedback_init(struct mc_feedback *fb)
{
    memset(fb, 0, sizeof(*fb));
    mc_buf_init(&fb->detail);
    mc_buf_init(&fb->diagnostics);
    fb->verdict = MC_VERDICT_REJECTED;
}

void
mc_feedback_release(struct mc_feedback *fb)
{
    mc_buf_release(&fb->detail);
    mc_buf_release(&fb->diagnostics);
    mc_feedback_init(fb);
}

static const char *const san_flags[] = {
    "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer", "-g", NULL};

/* Whether a run's output RES holds a sanitizer report. */
static int
san_reported(const struct mc_run_result *res)
{
    return res->o.status == SAN_EXIT ||
           strstr(res->o.err.s, "runtime error:") ||
           strstr(res->o.err.s, "Sanitizer");
}

/*
 * Whether the original itself reports under the sanitizers on run I:
 * then a candidate's report there says nothing of the candidate (the
 * undefined behaviour may be in a link file, or in code the candidate
 * kept). Asked only when a candidate's sanitizer run reported, so a
 * search pays for the original's sanitizer build only then, once: it
 * is built beside the original's test build, and each run's answer is
 * kept. 0 when it cannot tell (the build fails, out of memory).
 */
static int
original_reports(struct mc_eval *ev, size_t i, double timeout,
                 struct mc_err *err)
{
    struct mc_buf src = MC_BUF_INIT, exe = MC_BUF_INIT, diag = MC_BUF_INIT;
    struct mc_run_result res;
    const char *slash;

    if (!ev->orig_san_report) {
        ev->orig_san_report = mc_malloc(ev->n_runs);
        if (!ev->orig_san_report)
            return 0;
        memset(ev->orig_san_report, -1, ev->n_runs);
    }
    if (ev->orig_san_report[i] >= 0)
        return ev->orig_san_report[i];
    if (!ev->orig_san && ev->orig_test &&
        (slash = strrchr(ev->orig_test, '/'))) {
        struct mc_buf dir = MC_BUF_INIT;

        mc_buf_add(&dir, ev->orig_test, (size_t)(slash - ev->orig_test));
        mc_buf_addf(&exe, "%s/orig-san.exe", dir.s);
        mc_eval_original_path(ev, &src);
        if (!mc_buf_status(&dir) && !mc_buf_status(&exe) &&
            !mc_buf_status(&src) &&
            mc_eval_build(ev, src.s, exe.s, san_flags, dir.s, &diag,
                          NULL) == MC_OK)
            ev->orig_san = mc_buf_detach(&exe, NULL);
        else
            ev->orig_san = mc_strdup("");
        mc_buf_release(&dir);
    }
    mc_buf_release(&src);
    mc_buf_release(&exe);
    mc_buf_release(&diag);
    if (!ev->orig_san || !*ev->orig_san)
        return 0;
    if (mc_eval_run_inputs(ev, ev->orig_san, 1, 1, SAN_SLOWDOWN * timeout,
                           &res, i, err))
        return 0;
    ev->orig_san_report[i] = !res.timed_out && !res.oom && san_reported(&res);
    mc_eval_result_release(&res);
    return ev->orig_san_report[i];
}

/* Run EXE on every input and compare with the reference; sets FB's
 * verdict and detail on the first failure. Returns 1 if all match. */
static int
check_runs(struct mc_eval *ev, const char *exe, int sanitized,
           struct mc_feedback *fb, const char *when, struct mc_err *err)
{
    double timeout = RUN_TIMEOUT_X * ev->orig_run_s + RUN_TIMEOUT_PAD_S;
    size_t i;

    for (i = 0; i < ev->n_runs; i++) {
        struct mc_run_result res;
        struct mc_buf diff = MC_BUF_INIT;
        int ok = 1;

        if (mc_eval_run_inputs(ev, exe, 1, sanitized,
                               sanitized ? SAN_SLOWDOWN * timeout : timeout,
                               &res, i, err))
            return 0;
        if (res.oom || (sanitized && strstr(res.o.err.s, SAN_RSS_REPORT))) {
            fb->verdict = MC_VERDICT_CRASH;
            mc_buf_addf(&fb->detail, "%s: out of memory%s: ",
                        mc_eval_input_name(ev, i),
                        sanitized && !*when ? " in the sanitizer run" : "");
            mc_eval_out_of_memory(ev, res.oom, &fb->detail);
            mc_buf_adds(&fb->detail, when);
            ok = 0;
        } else if (res.timed_out) {
            fb->verdict = MC_VERDICT_TIMEOUT;
            mc_buf_addf(&fb->detail, "%s: timed out after %.1f s%s",
                        mc_eval_input_name(ev, i),
                        sanitized ? SAN_SLOWDOWN * timeout : timeout,
                        when);
            ok = 0;
        } else if (sanitized && san_reported(&res)) {
            const char *rep = strstr(res.o.err.s, "runtime error:");
            if (!rep)
                rep = strstr(res.o.err.s, "ERROR: ");
            if (original_reports(ev, i, timeout, err)) {
                /* Not the candidate's doing: said, not held against
                 * it; its output is compared in the plain runs. */
                mc_buf_addf(&fb->diagnostics, "(%s: the original itself "
                            "has a sanitizer report in this run, so this "
                            "one judges nothing: %.160s)\n",
                            mc_eval_input_name(ev, i),
                            rep ? rep : res.o.err.s);
            } else {
                fb->verdict = MC_VERDICT_INCORRECT;
                mc_buf_addf(&fb->detail, "%s: sanitizer report: %.200s",
                            mc_eval_input_name(ev, i),
                            rep ? rep : res.o.err.s);
                ok = 0;
            }
        } else if (res.signaled &&
                   !(ev->ref[i].status == SIG_STATUS + res.sig)) {
            fb->verdict = MC_VERDICT_CRASH;
            mc_buf_addf(&fb->detail, "%s: killed by signal %d (%s)%s",
                        mc_eval_input_name(ev, i), res.sig, strsignal(res.sig),
                        when);
            ok = 0;
        } else if (!sanitized && !mc_eval_same_output(ev, &ev->ref[i],
                                                      &res.o, &diff)) {
            fb->verdict = MC_VERDICT_INCORRECT;
            mc_buf_addf(&fb->detail, "%s: %s%s", mc_eval_input_name(ev, i),
                        diff.s, when);
            ok = 0;
        }
        mc_buf_release(&diff);
        mc_eval_result_release(&res);
        if (!ok)
            return 0;
    }
    return 1;
}

/* The user's check command, with MAXCODE_EXE naming the candidate,
 * once per input (the original passed it on each: mc_eval_prepare()).
 * Returns 1 if it passed on all; sets FB's verdict and detail on the
 * first failure. */
static int
run_check(struct mc_eval *ev, const char *exe, struct mc_feedback *fb,
          struct mc_err *err)
{
    const char *check = mc_target_get(ev->t, MC_OPT_CHECK);
    struct mc_buf how = MC_BUF_INIT;
    size_t i;
    int ok = 1;

    for (i = 0; ok && *check && i < ev->n_runs; i++) {
        struct mc_run_result res;

        if (mc_eval_run_check(ev, check, exe, i, &res, err))
            return 0;
        ok = mc_eval_check_passed(&res, &how);
        if (!ok) {
            fb->verdict = MC_VERDICT_INCORRECT;
            mc_buf_addf(&fb->detail, "check '%s' on %s %s", check,
                        mc_eval_input_name(ev, i), how.s);
        }
        mc_eval_result_release(&res);
    }
    mc_buf_release(&how);
    return ok;
}

/* No API key leaves through a feedback record, even if a candidate
 * managed to read one and print it. */
static void
mask_secrets(const struct mc_eval *ev, struct mc_feedback *fb)
{
    static const char *const vars[] = {"MAXCODE_API_KEY", "OPENAI_API_KEY",
                                       "ANTHROPIC_API_KEY"};
    size_t i;

    mc_log_mask(&fb->detail, mc_conf_get(&ev->t->conf, MC_SET_API_KEY));
    mc_log_mask(&fb->diagnostics,
                mc_conf_get(&ev->t->conf, MC_SET_API_KEY));
    for (i = 0; i < MC_ARRAY_SIZE(vars); i++) {
        mc_log_mask(&fb->detail, getenv(vars[i]));
        mc_log_mask(&fb->diagnostics, getenv(vars[i]));
    }
}

/* Build the candidate at PATH with the sanitizers in DIR and run it on
 * the inputs; *WRONG when a run failed (FB says how). A compiler without
 * a sanitizer runtime is said in the diagnostics, and judging goes on. */
static enum mc_code
sanitized_runs(struct mc_eval *ev, const char *path, const char *dir,
               struct mc_feedback *fb, int *wrong, struct mc_err *err)
{
    struct mc_buf sp = MC_BUF_INIT;
    enum mc_code rc;
    char *san_exe;

    mc_buf_addf(&sp, "%s/san.exe", dir);
    san_exe = mc_buf_detach(&sp, NULL);
    rc = san_exe ? mc_eval_build(ev, path, san_exe, san_flags, dir,
                                 &fb->diagnostics, err)
                 : MC_ENOMEM;
    if (rc == MC_EINVAL && mc_eval_outside_named(ev, &fb->diagnostics)) {
        mc_eval_reject_outside(ev, fb);
        *wrong = 1;
        rc = MC_OK;
    } else if (rc == MC_EINVAL) {
        /* No sanitizer runtime for this compiler: say so, go on. */
        mc_buf_adds(&fb->diagnostics, "(the sanitizer build failed; no "
                    "sanitizer run)\n");
        rc = MC_OK;
    } else if (!rc && !check_runs(ev, san_exe, 1, fb, "", err)) {
        *wrong = 1;
    }
    mc_free(san_exe);
    return rc;
}

/* The CUDA candidate EXE's correctness runs again under compute-sanitizer
 * (memcheck), where it is installed and a device is there; otherwise the
 * diagnostics say it was not run. Returns 0 when a run failed (FB says
 * how), as check_runs(). */
static int
cuda_sanitizer_runs(struct mc_eval *ev, const char *exe,
                    struct mc_feedback *fb, struct mc_err *err)
{
    char *tool = mc_spawn_which_in(CUDA_SANITIZER, getenv("PATH"));
    struct mc_cuda_probe p;
    int ok = 1;

    memset(&p, 0, sizeof(p));
    mc_cuda_probe_read(ev->cache_dir, &p, NULL);
    if (!tool)
        mc_buf_adds(&fb->diagnostics, "(" CUDA_SANITIZER " not run: it is "
                    "not installed)\n");
    else if (!p.n)
        mc_buf_adds(&fb->diagnostics, "(" CUDA_SANITIZER " not run: no "
                    "CUDA device)\n");
    else
        ok = check_runs(ev, exe, 1, fb, " (" CUDA_SANITIZER ")", err);
    mc_free(tool);
    return ok;
}

/* Steps 3 to 6 of mc_eval_candidate() for the candidate built from
 * PATH in DIR into TEST_EXE and TIME_EXE: FB says correct only when it
 * passed them all; an error only when the judging itself failed. */
static enum mc_code
judge_built(struct mc_eval *ev, const char *path, const char *dir,
            const char *test_exe, const char *time_exe, int sanitize,
            int time_it, struct mc_feedback *fb, struct mc_err *err)
{
    enum mc_code rc;
    int wrong = 0;

    /* 3. Differential runs, 4. check and sanitizers. */
    if (!check_runs(ev, test_exe, 0, fb, "", err) ||
        !run_check(ev, test_exe, fb, err))
        return MC_OK;
    if (sanitize && mc_lang_get(ev->t->lang)->sanitize) {
        rc = sanitized_runs(ev, path, dir, fb, &wrong, err);
        if (rc || wrong)
            return rc;
    } else if (sanitize && mc_lang_get(ev->t->lang)->kernels &&
               !cuda_sanitizer_runs(ev, test_exe, fb, err)) {
        return MC_OK;
    }
    /* 5. Timing, 6. correctness again afterwards. */
    if (time_it) {
        rc = mc_eval_time_candidate(ev, time_exe, fb, err);
        if (rc || fb->verdict == MC_VERDICT_TIMEOUT ||
            fb->verdict == MC_VERDICT_CRASH)
            return rc;
        if (!check_runs(ev, test_exe, 0, fb, " (after timing)", err))
            return MC_OK;
    }
    fb->correct = 1;
    fb->verdict = MC_VERDICT_CORRECT;
    return MC_OK;
}

enum mc_code
mc_eval_candidate(struct mc_eval *ev, const char *text, size_t len,
                  int sanitize, int time_it, struct mc_feedback *fb,
                  struct mc_err *err)
{
    struct mc_err fe = MC_ERR_INIT;
    struct mc_buf src = MC_BUF_INIT, path = MC_BUF_INIT;
    char *dir = NULL, *test_exe = NULL, *time_exe = NULL;
    const char *kernel = mc_target_get(ev->t, MC_OPT_KERNEL);
    enum mc_code rc;
    int outside_read = 0;

    fb->metric = mc_target_get(ev->t, MC_OPT_METRIC);
    fb->sandbox = mc_lang_get(ev->t->lang)->kernels
                      ? mc_sandbox_describe_gpu(&ev->sb)
                      : mc_sandbox_describe(&ev->sb);
    rc = mc_eval_read_original(ev, err);
    if (rc)
        return rc;
    /* 1. Fences: #pragma maxcode begin/end, and kernel=NAME; checked
     * before anything runs. */
    if (mc_mark_check_fences(ev->orig_text.s, ev->orig_text.len, text, len,
                             &fe) ||
        ((*kernel || (mc_lang_get(ev->t->lang)->kernels &&
                      !ev->orig_fenced)) &&
         mc_mark_check_kernel(ev->orig_text.s, ev->orig_text.len, text, len,
                              *kernel ? kernel : NULL, &fe))) {
        fb->verdict = MC_VERDICT_REJECTED;
        mc_buf_adds(&fb->detail, fe.msg);
        return MC_OK;
    }
    rc = mc_eval_prepare(ev, err);
    if (rc)
        return rc;
    fb->baseline_s = ev->baseline_s;
    /* 2. Build, from a file in the sandbox that includes what SOURCE
     * includes (the same rewriting as a variant's). */
    rc = mc_sandbox_dir(&ev->sb, "candidate", 0, &dir, err);
    if (rc)
        goto out;
    mc_buf_addf(&path, "%s/%s", dir, mc_target_name(ev->t));
    rc = mc_variant_rewrite(path.s, ev->t->source, ev->t->source_real, text,
                            len, &src, err);
    if (!rc)
        rc = mc_file_write_atomic(path.s, src.s, src.len, err);
    if (!rc)
        rc = mc_eval_reads_outside(ev, path.s, dir, text, len,
                                   &outside_read, err);
    if (rc)
        goto out;
    if (outside_read) {
        mc_eval_reject_outside(ev, fb);
        goto out;
    }
    rc = mc_eval_build_pair(ev, path.s, dir, &test_exe, &time_exe,
                            &fb->diagnostics, err);
    if (rc == MC_EINVAL && mc_eval_outside_named(ev, &fb->diagnostics)) {
        mc_eval_reject_outside(ev, fb);
        rc = MC_OK;
        goto out;
    }
    if (rc == MC_EINVAL) {
        fb->verdict = MC_VERDICT_COMPILE_ERROR;
        mc_buf_add(&fb->detail, fb->diagnostics.s, fb->diagnostics.len);
        mc_buf_rtrim(&fb->detail);
        rc = MC_OK;
        goto out;
    }
    if (rc)
        goto out;
    fb->compiled = 1;
    rc = judge_built(ev, path.s, dir, test_exe, time_exe, sanitize, time_it,
                     fb, err);
out:
    if (err && err->code && !rc && !fb->correct && !fb->detail.len) {
        /* The judging itself failed midway: say so in the record. */
        fb->verdict = MC_VERDICT_REJECTED;
        mc_buf_addf(&fb->detail, "could not judge: %s", err->msg);
    }
    mask_secrets(ev, fb);
    if (dir) {
        mc_sandbox_rmtree(dir);
        mc_free(dir);
    }
    mc_free(test_exe);
    mc_free(time_exe);
    mc_buf_release(&src);
    mc_buf_release(&path);
    return rc;
}

cJSON *
mc_timing_load_json(const struct mc_timing *t)
{
    cJSON *a = cJSON_CreateArray();
    size_t i;

    for (i = 0; a && i < t->rounds && i < MC_TIMING_ROUNDS; i++)
        cJSON_AddItemToArray(a, mc_load_round_json(&t->load[i]));
    return a;
}

char *
mc_feedback_json(const struct mc_feedback *fb)
{
    const struct mc_timing *t = &fb->timing;
    cJSON *o = cJSON_CreateObject(), *tm;
    char *text;

    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "verdict", mc_verdict_name(fb->verdict));
    cJSON_AddBoolToObject(o, "compiled", fb->compiled);
    cJSON_AddBoolToObject(o, "correct", fb->correct);
    if (t->confirmed)
        cJSON_AddNumberToObject(o, "speedup", t->confirmed_speedup);
    else
        cJSON_AddNullToObject(o, "speedup");
    if (t->done)
        cJSON_AddNumberToObject(o, "baseline_seconds", t->orig_s);
    else if (fb->baseline_s > 0)
        cJSON_AddNumberToObject(o, "baseline_seconds", fb->baseline_s);
    else
        cJSON_AddNullToObject(o, "baseline_seconds");
    if (t->done)
        cJSON_AddNumberToObject(o, "candidate_seconds", t->cand_s);
    else
        cJSON_AddNullToObject(o, "candidate_seconds");
    cJSON_AddStringToObject(o, "detail", fb->detail.s);
    cJSON_AddStringToObject(o, "diagnostics", fb->diagnostics.s);
    cJSON_AddStringToObject(o, "metric", fb->metric ? fb->metric : "time");
    cJSON_AddStringToObject(o, "sandbox", fb->sandbox ? fb->sandbox : "");
    tm = cJSON_AddObjectToObject(o, "timing");
    if (tm && t->done) {
        cJSON_AddNumberToObject(tm, "pairs", (double)t->pairs);
        cJSON_AddNumberToObject(tm, "median_speedup", t->median);
        cJSON_AddNumberToObject(tm, "ci99_low", t->ci_low);
        cJSON_AddNumberToObject(tm, "ci99_high", t->ci_high);
        cJSON_AddNumberToObject(tm, "original_spread", t->orig_spread);
        cJSON_AddNumberToObject(tm, "candidate_spread", t->cand_spread);
        cJSON_AddBoolToObject(tm, "promoted", t->promoted);
        cJSON_AddBoolToObject(tm, "confirmed", t->confirmed);
        cJSON_AddNumberToObject(tm, "start", t->start);
        cJSON_AddNumberToObject(tm, "end", t->end);
        cJSON_AddNumberToObject(tm, "rounds", (double)t->rounds);
        cJSON_AddItemToObject(tm, "load", mc_timing_load_json(t));
        cJSON_AddBoolToObject(tm, "load_changed", t->load_changed);
    }
    text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}
