/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_bench.c: `maxcode bench [--json] [--rounds N] SOURCE-or-KEY`
 * re-measures a cached variant against its original now, with the
 * search's protocol (the executor: build, differential runs, warm-up,
 * A/B rounds under the timing lock, each repeated while the machine's
 * load changes), and prints the re-measured speedup and its interval
 * beside the figure the entry claims.
 *
 * The entry is found as `maxcode show` finds it
 * (mc_show_lookup_current). The target is set up again from its
 * manifest: SOURCE as the search named it (from the directory the
 * search ran in, found from source_path), the manifest's compiler,
 * flags and options; $(LDFLAGS) and $(LDLIBS) come from the
 * environment, as for `maxcode eval`. The original is the
 * file on disk, so it must still be the text the search started from
 * (the entry's trajectory keeps it): otherwise bench says so and
 * measures nothing.
 *
 * Exit status: 0 measured (whatever the figure), 1 it could not be
 * measured (no such entry, no variant, SOURCE changed, the variant no
 * longer correct, a build or run failed), 2 usage.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "conf.h"
#include "eval.h"
#include "file.h"
#include "journal.h"
#include "json.h"
#include "log.h"
#include "manifest.h"
#include "show_entries.h"
#include "strv.h"
#include "target.h"
#include "target_setup.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>

#define DEFAULT_ROUNDS 2  /* as the search: a round and its confirmation */
#define COUNT_SLACK 1e-4  /* instruction counts agree to this part */
#define ORIG_MOVED  0.15  /* the original's own time moved by this part
                           * since the search: the machine is not as it
                           * was (doc/internals/eval.md) */

/* What the entry claims and what was measured now. */
struct claim {
    double speedup, low, high;  /* the manifest's; low/high < 0: none */
    double orig_s;              /* the original's time (or count) in the
                                 * search; 0: not recorded */
    const char *metric;
};

/* How far the original's median now (T) lies from the search's, as a
 * part (0.41: 41% more); 0 when the search's is not known. */
static double
orig_change(const struct claim *c, const struct mc_timing *t)
{
    return c->orig_s > 0 && t->orig_s > 0 ? t->orig_s / c->orig_s - 1 : 0;
}

/* The verdict on CLAIM of the measurement in T: "lower than claimed"
 * when even the top of the re-measured interval lies below the claimed
 * speedup, "higher than claimed" when its bottom lies above the top of
 * the claimed interval, else "holds". Instruction counts, deterministic
 * but for a few instructions of start-up, get a slack of COUNT_SLACK. */
static const char *
agreement(const struct claim *c, const struct mc_timing *t)
{
    double slack = strcmp(c->metric, "instructions") ? 0 : COUNT_SLACK;
    double top = c->high > 0 ? c->high : c->speedup;

    if (t->measured_high < c->speedup * (1 - slack))
        return "lower than claimed";
    if (t->measured_low > top * (1 + slack))
        return "higher than claimed";
    return "holds";
}

/* The claim of manifest M into C. */
static void
read_claim(const cJSON *m, struct claim *c)
{
    c->speedup = mc_manifest_num(m, "speedup", 0);
    c->orig_s = mc_manifest_num(m, "baseline_seconds", 0);
    mc_manifest_interval(m, &c->low, &c->high);
    c->metric = mc_manifest_str(m, "metric");
    if (!*c->metric)
        c->metric = "time";
}

/*
 * Go to the directory the search ran in, where SOURCE (as the manifest
 * M names it) is the file at source_path: the current one when it is,
 * else the one that source_path names with SOURCE's relative path taken
 * off its end. An entry from another machine has source_path relative
 * to make's directory (share.h): only the current directory can be that.
 * 0, or -1 having said why.
 */
static int
enter_make_dir(const cJSON *m)
{
    const char *source = mc_manifest_str(m, "source");
    const char *real = mc_manifest_str(m, "source_path");
    char here[PATH_MAX], *dir = NULL;
    size_t ls = strlen(source), lr = strlen(real);
    int rc = -1;

    if (!*source || !*real) {
        mc_error("the entry's manifest names no source");
        return -1;
    }
    if (realpath(source, here) && !strcmp(here, real))
        return 0;
    if (real[0] != '/') {
        /* From another machine (a remote, an archive): source_path is
         * relative to make's directory there (share.h); this one must be
         * make's directory. */
        char there[PATH_MAX];

        if (realpath(source, here) && realpath(real, there) &&
            !strcmp(here, there))
            return 0;
        mc_error("%s: the entry came from another machine and names its "
                 "source relative to make's directory (%s); run maxcode "
                 "bench there", source, real);
        return -1;
    }
    if (source[0] != '/' && lr > ls + 1 && real[lr - ls - 1] == '/' &&
        !strcmp(real + lr - ls, source) && !strstr(source, "../")) {
        dir = mc_strndup(real, lr - ls - 1);
        if (dir && !chdir(dir) && realpath(source, here) &&
            !strcmp(here, real))
            rc = 0;
    }
    if (rc)
        mc_error("%s: cannot find the directory the search ran in (%s "
                 "is gone or moved); run maxcode bench there", source,
                 real);
    else
        mc_info("%s: measuring in %s, where the search ran", source, dir);
    mc_free(dir);
    return rc;
}

/* The manifest's options as "KEY=VALUE" words in ARGS (empty values
 * left out: they are the defaults). */
static int
option_args(const cJSON *m, struct mc_strv *args)
{
    const cJSON *opts = mc_json_object(m, "options"), *o;
    struct mc_buf w = MC_BUF_INIT;
    int rc = 0;

    cJSON_ArrayForEach(o, opts)
    {
        if (!cJSON_IsString(o) || !*o->valuestring)
            continue;
        mc_buf_reset(&w);
        mc_buf_addf(&w, "%s=%s", o->string, o->valuestring);
        if (mc_buf_status(&w) || mc_strv_push(args, w.s)) {
            rc = -1;
            break;
        }
    }
    mc_buf_release(&w);
    return rc;
}

/* The manifest's flags as one shell-quoted string into B. */
static int
flags_string(const cJSON *m, struct mc_buf *b)
{
    const cJSON *flags = mc_json_array(m, "flags"), *f;

    mc_buf_adds(b, "");
    cJSON_ArrayForEach(f, flags)
    {
        if (!cJSON_IsString(f))
            continue;
        if (b->len)
            mc_buf_addc(b, ' ');
        if (mc_shell_quote(b, f->valuestring))
            return -1;
    }
    return mc_buf_status(b) ? -1 : 0;
}

/* Whether the text of T's SOURCE is still the original that entry E's
 * trajectory keeps. 0, or -1 having said why not. */
static int
same_original(struct mc_target *t, const struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_trajectory tr;
    struct mc_buf now = MC_BUF_INIT;
    int rc = -1;

    mc_trajectory_init(&tr);
    if (!e->trajectory.len ||
        mc_trajectory_parse(e->trajectory.s, e->trajectory.len, &tr, &err))
        mc_error("%s: entry %s keeps no readable trajectory, so its "
                 "original is unknown; not measuring against another text",
                 t->source, e->key);
    else if (mc_file_read(t->source, &now, &err))
        mc_error("%s: %s", t->source, err.msg);
    else if (now.len != tr.original.len ||
             memcmp(now.s, tr.original.s, now.len))
        mc_error("%s has changed since entry %s was searched; the variant "
                 "would be measured against another original (a build "
                 "searches it again)", t->source, e->key);
    else
        rc = 0;
    mc_buf_release(&now);
    mc_trajectory_release(&tr);
    return rc;
}

/* The load of round REC as people read it into B; COUNTS: instruction
 * counts, which do not depend on it. */
static void
put_load(struct mc_buf *b, size_t i, const struct mc_load_round *rec,
         int counts)
{
    mc_buf_addf(b, "round %zu: %.1f -> %.1f runnable", i + 1,
                rec->before.running, rec->after.running);
    if (rec->before.psi_some >= 0 && rec->after.psi_some >= 0)
        mc_buf_addf(b, ", cpu pressure %.0f%% -> %.0f%%",
                    rec->before.psi_some, rec->after.psi_some);
    if (rec->repeats)
        mc_buf_addf(b, ", taken again %d time%s", rec->repeats,
                    rec->repeats > 1 ? "s" : "");
    if (rec->changed && !counts)
        mc_buf_adds(b, ", load_changed");
}

static void
print_human(const cJSON *m, const struct claim *c,
            const struct mc_feedback *fb)
{
    const struct mc_timing *t = &fb->timing;
    struct mc_buf b = MC_BUF_INIT;
    int time = strcmp(c->metric, "instructions") != 0;
    const char *why;
    size_t i;

    printf("source:     %s (key %s)\n", mc_manifest_str(m, "source"),
           mc_manifest_str(m, "key"));
    printf("claimed:    %.3fx%s", c->speedup,
           mc_manifest_bound(m, &why) ? " (lower bound)" : "");
    if (c->low > 0 && c->high > 0)
        printf(", 99%% interval [%.3f, %.3f]", c->low, c->high);
    printf(" (searched %s)\n", mc_manifest_str(m, "created"));
    printf("measured:   %.3fx, 99%% interval [%.3f, %.3f] (%zu round%s, "
           "%s)\n", t->measured, t->measured_low, t->measured_high,
           t->rounds, t->rounds == 1 ? "" : "s", c->metric);
    printf("agreement:  %s\n", agreement(c, t));
    if (time)
        printf("times:      original %.6g s, variant %.6g s (medians of "
               "the first round, %zu pairs)\n", t->orig_s, t->cand_s,
               t->pairs);
    else
        printf("counts:     original %.0f, variant %.0f instructions\n",
               t->orig_s, t->cand_s);
    if (time && c->orig_s > 0 && fabs(orig_change(c, t)) > ORIG_MOVED)
        printf("original:   %.6g s now against %.6g s in the search "
               "(%+.0f%%): the machine is not as it was, and a speedup "
               "can move with it\n", t->orig_s, c->orig_s,
               100 * orig_change(c, t));
    for (i = 0; i < t->rounds && i < MC_TIMING_ROUNDS; i++) {
        mc_buf_reset(&b);
        put_load(&b, i, &t->load[i], !time);
        printf("%s%s\n", i ? "            " : "load:       ",
               b.s ? b.s : "");
    }
    mc_buf_release(&b);
}

static int
print_json(const cJSON *m, const struct claim *c,
           const struct mc_feedback *fb)
{
    const struct mc_timing *t = &fb->timing;
    cJSON *o = cJSON_CreateObject(), *x, *a;
    char *text;

    if (!o)
        return mc_put_json_text(NULL);
    cJSON_AddStringToObject(o, "key", mc_manifest_str(m, "key"));
    cJSON_AddStringToObject(o, "source", mc_manifest_str(m, "source"));
    cJSON_AddStringToObject(o, "metric", c->metric);
    x = cJSON_AddObjectToObject(o, "claimed");
    if (x) {
        cJSON_AddNumberToObject(x, "speedup", c->speedup);
        if (c->low > 0 && c->high > 0) {
            a = cJSON_AddArrayToObject(x, "interval");
            cJSON_AddItemToArray(a, cJSON_CreateNumber(c->low));
            cJSON_AddItemToArray(a, cJSON_CreateNumber(c->high));
        } else {
            cJSON_AddNullToObject(x, "interval");
        }
        cJSON_AddStringToObject(x, "created", mc_manifest_str(m, "created"));
        if (c->orig_s > 0)
            cJSON_AddNumberToObject(x, "baseline_seconds", c->orig_s);
    }
    x = cJSON_AddObjectToObject(o, "measured");
    if (x) {
        cJSON_AddNumberToObject(x, "speedup", t->measured);
        a = cJSON_AddArrayToObject(x, "interval");
        cJSON_AddItemToArray(a, cJSON_CreateNumber(t->measured_low));
        cJSON_AddItemToArray(a, cJSON_CreateNumber(t->measured_high));
        cJSON_AddNumberToObject(x, "rounds", (double)t->rounds);
        cJSON_AddNumberToObject(x, "pairs", (double)t->pairs);
        cJSON_AddNumberToObject(x, "baseline_seconds", t->orig_s);
        cJSON_AddNumberToObject(x, "variant_seconds", t->cand_s);
        cJSON_AddBoolToObject(x, "confirmed", t->confirmed);
        cJSON_AddItemToObject(x, "load", mc_timing_load_json(t));
        cJSON_AddBoolToObject(x, "load_changed", t->load_changed);
        cJSON_AddBoolToObject(x, "original_moved",
                              fabs(orig_change(c, t)) > ORIG_MOVED);
    }
    cJSON_AddStringToObject(o, "agreement", agreement(c, t));
    text = cJSON_Print(o);
    cJSON_Delete(o);
    return mc_put_json_text(text);
}

/* Set up the target of entry E (manifest M) in TS and measure its
 * variant with ROUNDS rounds into FB. The exit status. */
static int
measure(const struct mc_entry *e, const cJSON *m, int rounds,
        struct mc_target_setup *ts, struct mc_feedback *fb)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_strv args = MC_STRV_INIT;
    struct mc_buf flags = MC_BUF_INIT;
    struct mc_target_setup_build b = {NULL, NULL, NULL, NULL, NULL};
    struct mc_eval ev;
    int status = 1, ev_ok = 0;

    if (option_args(m, &args) || flags_string(m, &flags)) {
        mc_error("out of memory");
        goto out;
    }
    status = mc_target_setup_load(ts, mc_manifest_str(m, "source"), args.v,
                                  args.n);
    if (status)
        goto out;
    if (*mc_manifest_str(m, "compiler"))
        b.cc = mc_manifest_str(m, "compiler");
    b.flags = flags.s;
    status = mc_target_setup_build(ts, &b);
    if (status)
        goto out;
    status = 1;
    if (same_original(&ts->t, e))
        goto out;
    if (mc_eval_init(&ev, &ts->t, mc_conf_get(&ts->t.conf, MC_SET_CACHE_DIR),
                     &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    ev_ok = 1;
    ev.rounds = rounds;
    if (mc_eval_candidate(&ev, e->variant.s, e->variant.len, 0, 1, fb,
                          &err)) {
        mc_error("%s: cannot measure: %s", ts->t.source,
                 ev.why.len ? ev.why.s : err.msg);
        goto out;
    }
    if (!fb->correct || !fb->timing.done) {
        mc_error("%s: the cached variant cannot be measured: it is %s "
                 "against the original now%s%s", ts->t.source,
                 mc_verdict_name(fb->verdict), fb->detail.len ? ": " : "",
                 fb->detail.len ? fb->detail.s : "");
        goto out;
    }
    status = 0;
out:
    if (ev_ok)
        mc_eval_release(&ev);
    mc_strv_release(&args);
    mc_buf_release(&flags);
    return status;
}

int
mc_cmd_bench(int argc, char **argv)
{
    struct mc_target_setup ts;
    struct mc_feedback fb;
    struct mc_entry e;
    struct claim c;
    const char *what = NULL;
    int json = 0, rounds = DEFAULT_ROUNDS, i, found, status = 1;
    cJSON *m = NULL;
    char *end;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            long n = strtol(argv[++i], &end, 10);

            if (*end || end == argv[i] || n < 1 || n > MC_TIMING_ROUNDS)
                return mc_usage_error("bench: --rounds: expected a whole "
                                      "number from 1 to %d, got '%s'",
                                      MC_TIMING_ROUNDS, argv[i]);
            rounds = (int)n;
        } else if (argv[i][0] == '-') {
            return mc_usage_error("bench: unknown option '%s'", argv[i]);
        } else if (what) {
            return mc_usage_error("bench: one SOURCE or KEY, not '%s' too",
                                  argv[i]);
        } else {
            what = argv[i];
        }
    }
    if (!what)
        return mc_usage_error("bench: missing SOURCE or KEY");
    memset(&ts, 0, sizeof(ts));
    mc_feedback_init(&fb);
    mc_entry_init(&e);
    found = mc_show_lookup_current(what, &e, &m);
    if (found < 0)
        goto out;
    if (found > 0) {
        mc_error("%s: no cache entry holds its variant (only the manifest "
                 "in .maxcode/); nothing to measure", what);
        goto out;
    }
    if (strcmp(mc_manifest_str(m, "status"), "optimized") || !e.variant.len) {
        mc_error("%s: entry %s keeps the original (%s); there is no "
                 "variant to measure", what, e.key,
                 *mc_manifest_str(m, "reason") ? mc_manifest_str(m, "reason")
                                           : "no reason");
        goto out;
    }
    read_claim(m, &c);
    if (enter_make_dir(m))
        goto out;
    status = measure(&e, m, rounds, &ts, &fb);
    if (status)
        goto out;
    if (json)
        status = print_json(m, &c, &fb);
    else
        print_human(m, &c, &fb);
out:
    mc_target_setup_release(&ts);
    mc_feedback_release(&fb);
    mc_entry_release(&e);
    cJSON_Delete(m);
    return status;
}
